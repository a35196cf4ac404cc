// cond_if and while_loop in upstream MLIR 22 syntax (checked with mlir-opt-22).
func.func @select_add_sub(%c: tensor<1xi1>, %a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %r = tosa.cond_if %c (%x = %a, %y = %b) : tensor<1xi1> (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> {
  ^bb0(%x1: tensor<2xf32> loc("then_x"), %y1: tensor<2xf32>):
    %s = tosa.add %x1, %y1 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("then_add")
    tosa.yield %s : tensor<2xf32>
  } else {
  ^bb0(%x2: tensor<2xf32>, %y2: tensor<2xf32>):
    %d = tosa.sub %x2, %y2 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    tosa.yield %d : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
func.func @count_down(%n: tensor<i32>, %acc: tensor<f32>) -> tensor<f32> {
  %one = "tosa.const"() <{values = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
  %r:2 = tosa.while_loop (%i = %n, %a = %acc) : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>) {
    %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %gt = tosa.greater %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %gt : tensor<i1>
  } do {
  ^bb0(%i2: tensor<i32>, %a2: tensor<f32>):
    %k = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %i3 = tosa.sub %i2, %k : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %a3 = tosa.add %a2, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
    tosa.yield %i3, %a3 : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}
