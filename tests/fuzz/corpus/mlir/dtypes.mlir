// One tosa.const per element type. Expected bit patterns are written next to each value in
// tests/formats/mlir_io_test.cpp (DTypesExactBits).
func.func @consts() -> (tensor<3xi1>, tensor<4xi4>, tensor<3xi8>, tensor<2xi16>, tensor<2xi32>, tensor<2xi48>, tensor<2xi64>, tensor<2xf16>, tensor<2xbf16>, tensor<3xf32>, tensor<2xf8E4M3FN>, tensor<2xf8E5M2>, tensor<2x2xi8>, tensor<2xbf16>, tensor<2xf32>) {
  %b = "tosa.const"() <{values = dense<[true, false, true]> : tensor<3xi1>}> : () -> tensor<3xi1>
  %i4 = "tosa.const"() <{values = dense<[-8, -1, 0, 7]> : tensor<4xi4>}> : () -> tensor<4xi4>
  %i8 = "tosa.const"() <{values = dense<[-128, 0, 127]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %i16 = "tosa.const"() <{values = dense<[-32768, 32767]> : tensor<2xi16>}> : () -> tensor<2xi16>
  %i32 = "tosa.const"() <{values = dense<[-2147483648, 2147483647]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %i48 = "tosa.const"() <{values = dense<[-140737488355328, 140737488355327]> : tensor<2xi48>}> : () -> tensor<2xi48>
  %i64 = "tosa.const"() <{values = dense<[-9223372036854775808, 9223372036854775807]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %f16 = "tosa.const"() <{values = dense<[1.5, -65504.0]> : tensor<2xf16>}> : () -> tensor<2xf16>
  %bf16 = "tosa.const"() <{values = dense<[1.5, -2.0]> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %f32 = "tosa.const"() <{values = dense<[1.5, 0x7FC00000, 0xFF800000]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %e4 = "tosa.const"() <{values = dense<[1.5, -448.0]> : tensor<2xf8E4M3FN>}> : () -> tensor<2xf8E4M3FN>
  %e5 = "tosa.const"() <{values = dense<[1.5, 57344.0]> : tensor<2xf8E5M2>}> : () -> tensor<2xf8E5M2>
  %splat = "tosa.const"() <{values = dense<-3> : tensor<2x2xi8>}> : () -> tensor<2x2xi8>
  %hexbf = "tosa.const"() <{values = dense<"0x803FC0FF"> : tensor<2xbf16>}> : () -> tensor<2xbf16>
  %hexf = "tosa.const"() <{values = dense<"0x0000803F00000080"> : tensor<2xf32>}> : () -> tensor<2xf32>
  return %b, %i4, %i8, %i16, %i32, %i48, %i64, %f16, %bf16, %f32, %e4, %e5, %splat, %hexbf, %hexf : tensor<3xi1>, tensor<4xi4>, tensor<3xi8>, tensor<2xi16>, tensor<2xi32>, tensor<2xi48>, tensor<2xi64>, tensor<2xf16>, tensor<2xbf16>, tensor<3xf32>, tensor<2xf8E4M3FN>, tensor<2xf8E5M2>, tensor<2x2xi8>, tensor<2xbf16>, tensor<2xf32>
}
