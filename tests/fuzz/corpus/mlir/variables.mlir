// tosa.variable (module-level symbol), variable_read / variable_write.
module attributes {tosa.target_env = #tosa.target_env<specification_version = "1.0", level = "none", profiles = [pro_int], extensions = [variable]>} {
  tosa.variable @counter = dense<[1, -2, 3, -4]> : tensor<4xi32> loc("counter_var")
  tosa.variable @state : tensor<2x3xf32>
  func.func @step(%x: tensor<4xi32>) -> tensor<4xi32> {
    %0 = tosa.variable_read @counter : tensor<4xi32> loc("read_counter")
    %1 = tosa.add %0, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    tosa.variable_write @counter, %1 : tensor<4xi32>
    return %1 : tensor<4xi32>
  }
}
