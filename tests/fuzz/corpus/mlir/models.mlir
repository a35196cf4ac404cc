// Hand-written module for tosakit's MLIR round-trip tests: int8 and fp32 convolution chains, shape ops,
// input/output names (tosakit.name + loc("name")), op names (NameLoc), a target_env and two functions.
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "8k", profiles = [pro_int, pro_fp], extensions = [int16, bf16]>} {
  func.func @int8_net(%x: tensor<1x4x4x2xi8> {tosakit.name = "x"}) -> (tensor<1x4x4x3xi8> {tosakit.name = "y"}) {
    %w = "tosa.const"() <{values = dense<[[[[1, -2]]], [[[3, 4]]], [[[-5, 6]]]]> : tensor<3x1x1x2xi8>}> : () -> tensor<3x1x1x2xi8> loc("w")
    %b = "tosa.const"() <{values = dense<[10, -20, 30]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %izp = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
    %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %acc = tosa.conv2d %x, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x3xi32> loc("conv1")
    %mult = "tosa.const"() <{values = dense<[1073741824, 1518500250, 2147483647]> : tensor<3xi32>}> : () -> tensor<3xi32>
    %shift = "tosa.const"() <{values = dense<[30, 31, 38]> : tensor<3xi8>}> : () -> tensor<3xi8>
    %rizp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %rozp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
    %r = tosa.rescale %acc, %mult, %shift, %rizp, %rozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<1x4x4x3xi32>, tensor<3xi32>, tensor<3xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x3xi8> loc("rescale1")
    %c = tosa.clamp %r {max_val = 100 : i8, min_val = -128 : i8} : (tensor<1x4x4x3xi8>) -> tensor<1x4x4x3xi8> loc("relu1")
    return %c : tensor<1x4x4x3xi8>
  }
  func.func @fp32_net(%x: tensor<1x3x3x1xf32> loc("image"), %y: tensor<1x3x3x2xf32>) -> (tensor<1x3x3x2xf32> {tosakit.name = "sum"}, tensor<2x9xf32>, tensor<3x1x3x1xf32>) {
    %w = "tosa.const"() <{values = dense<[[[[0.5]]], [[[-1.25]]]]> : tensor<2x1x1x1xf32>}> : () -> tensor<2x1x1x1xf32>
    %b = "tosa.const"() <{values = dense<[0.1, 0.2]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %conv = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, local_bound = true, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32> loc("conv_fp"("models.mlir":21:13))
    %sum = tosa.add %conv, %y : (tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> loc(fused["add0", "other"])
    %shape = tosa.const_shape {values = dense<[2, 9]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %flat = tosa.reshape %sum, %shape : (tensor<1x3x3x2xf32>, !tosa.shape<2>) -> tensor<2x9xf32>
    %t = tosa.transpose %x {perms = array<i32: 1, 2, 3, 0>} : (tensor<1x3x3x1xf32>) -> tensor<3x3x1x1xf32>
    %s = tosa.clamp %t {max_val = 6.0 : f32, min_val = 0.0 : f32, nan_mode = IGNORE} : (tensor<3x3x1x1xf32>) -> tensor<3x3x1x1xf32>
    %rs = tosa.const_shape {values = dense<[3, 1, 3, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %r = tosa.reshape %s, %rs : (tensor<3x3x1x1xf32>, !tosa.shape<4>) -> tensor<3x1x3x1xf32>
    return %sum, %flat, %r : tensor<1x3x3x2xf32>, tensor<2x9xf32>, tensor<3x1x3x1xf32>
  }
}
