// Known deviation (docs/ORACLE.md): MAX_POOL2D nan_mode = IGNORE on an all-NaN window, spec 2.3.8.
module {
  func.func @main(%x: tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32> {
    %r = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, nan_mode = IGNORE, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
    return %r : tensor<1x2x2x1xf32>
  }
}
