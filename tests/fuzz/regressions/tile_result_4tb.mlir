func.func @main(%x: tensor<1xf32> loc("x")) -> tensor<1000000000000xf32> {
  %m = tosa.const_shape {values = dense<1000000000000> : tensor<1xindex>} : () -> !tosa.shape<1>
  %y = tosa.tile %x, %m : (tensor<1xf32>, !tosa.shape<1>) -> tensor<1000000000000xf32>
  return %y : tensor<1000000000000xf32>
}
