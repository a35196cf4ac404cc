// dense_resource constants: blobs in the dialect_resources section. Each blob starts with a 4-byte
// alignment header (0x04000000 = align 4 / 0x02000000 = align 2) followed by little-endian elements.
func.func @res() -> (tensor<2x2xi32>, tensor<3xf16>, tensor<3xi8>) {
  %0 = "tosa.const"() <{values = dense_resource<blob_i32> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %1 = "tosa.const"() <{values = dense_resource<blob_f16> : tensor<3xf16>}> : () -> tensor<3xf16>
  %2 = "tosa.const"() <{values = dense_resource<blob_i8> : tensor<3xi8>}> : () -> tensor<3xi8>
  return %0, %1, %2 : tensor<2x2xi32>, tensor<3xf16>, tensor<3xi8>
}
{-#
  dialect_resources: {
    builtin: {
      blob_i32: "0x0400000001000000FFFFFFFF0000008007000000",
      blob_f16: "0x02000000003C00C0007C",
      blob_i8: "0x0100000080FF7F"
    }
  }
#-}
