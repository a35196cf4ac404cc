// Known deviation (docs/ORACLE.md): RESCALE with input_unsigned and output_unsigned is an ERROR_IF (2.13.2)
// that the upstream verifier accepts.
module {
  func.func @main(%x: tensor<5xi8>) -> tensor<5xi16> {
    %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
    %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
    %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %oz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
    %r = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = true, output_unsigned = true, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<5xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<5xi16>
    return %r : tensor<5xi16>
  }
}
