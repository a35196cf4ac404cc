// Known deviation (docs/ORACLE.md): tosa-validate rejects PAD on a rank-4 tensor at level 8K, spec 2.10.2.
module {
  func.func @main(%x: tensor<1x2x2x1xi8>) -> tensor<1x4x4x1xi8> {
    %p = tosa.const_shape {values = dense<[0, 0, 1, 1, 1, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
    %c = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %r = tosa.pad %x, %p, %c : (tensor<1x2x2x1xi8>, !tosa.shape<8>, tensor<1xi8>) -> tensor<1x4x4x1xi8>
    return %r : tensor<1x4x4x1xi8>
  }
}
