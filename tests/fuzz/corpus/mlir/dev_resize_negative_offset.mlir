// Known deviation (docs/ORACLE.md): integer bilinear RESIZE with a negative offset, spec 2.12.1.
module {
  func.func @main(%x: tensor<1x3x3x1xi8>) -> tensor<1x7x7x1xi32> {
    %s = tosa.const_shape {values = dense<[2, 1, 2, 1]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %o = tosa.const_shape {values = dense<[-1, -1]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %b = tosa.const_shape {values = dense<[1, 1]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %r = tosa.resize %x, %s, %o, %b {mode = BILINEAR} : (tensor<1x3x3x1xi8>, !tosa.shape<4>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x7x7x1xi32>
    return %r : tensor<1x7x7x1xi32>
  }
}
