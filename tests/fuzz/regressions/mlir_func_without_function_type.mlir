"builtin.module"() ({
  "func.func"() <{functitno_ype = (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>, sym_name = "g", res_attrs = [{tosakit.name = "z"}]}> ({
  ^bb0(%arg0: tensor<2xf32> loc("a"), %arg1: tensor<2xf32> loc("b")):
    %0 = "tosa.add"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32> loc("add0")
    %1 = "tosa.clamp"(%0) <{max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32, nan_mode = #tosa.nan_mode<PROPAGATE>}> : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "tosa.clamp"(%1) <{max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32, nan_mode = #tosa.nan_mode<IGNORE>}> : (tensor<2xf32>) -> tensor<2xf32>
    "func.return"(%2) : (tensor<2xf32>) -> ()
  }) : () -> ()
}) : () -> ()
