#!/bin/bash
# quantize INT8: a conv whose only consumer is a ReLU6 (clamp 0..6) is written directly on the ReLU6's unsigned
# grid (TPU-MLIR 6.1.2: a non-negative tensor is UINT8 with S = threshold / 255; in TOSA's int8, zero point
# -128). Expected codes computed independently in numpy (tests/quantize/test_quant_fused_relu.py) from the
# hand-written calibration table below and the formulas of docs/QUANTIZATION.md; a conv with a second consumer
# keeps its own signed grid (S = threshold / 127, zero point 0). Env: TK, ROOT, OUT.
set -euo pipefail
W="$OUT/quant_fused_relu"
rm -rf "$W" && mkdir -p "$W"
# x[1,1,4,1] -> conv 1x1 'conv_a' (w 1.5, b 0.25) -> clamp 0..6 'relu6'  -> y0
#            -> conv 1x1 'conv_b' (w -2, b 0)   -> clamp 0..inf 'relu' -> y1, and conv_b is also y2
cat > "$W/model.mlir" <<'MLIR'
module {
  func.func @main(%x: tensor<1x1x4x1xf32> {tosakit.name = "x"}) -> (tensor<1x1x4x1xf32> {tosakit.name = "y0"}, tensor<1x1x4x1xf32> {tosakit.name = "y1"}, tensor<1x1x4x1xf32> {tosakit.name = "y2"}) {
    %wa = "tosa.const"() <{values = dense<1.5> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32> loc("wa")
    %ba = "tosa.const"() <{values = dense<0.25> : tensor<1xf32>}> : () -> tensor<1xf32> loc("ba")
    %wb = "tosa.const"() <{values = dense<-2.0> : tensor<1x1x1x1xf32>}> : () -> tensor<1x1x1x1xf32> loc("wb")
    %bb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("bb")
    %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32> loc("zp")
    %a = tosa.conv2d %x, %wa, %ba, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x4x1xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x1xf32> loc("conv_a")
    %r6 = tosa.clamp %a {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x1x4x1xf32>) -> tensor<1x1x4x1xf32> loc("relu6")
    %b = tosa.conv2d %x, %wb, %bb, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x4x1xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x1xf32> loc("conv_b")
    %r = tosa.clamp %b {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x1x4x1xf32>) -> tensor<1x1x4x1xf32> loc("relu")
    return %r6, %r, %b : tensor<1x1x4x1xf32>, tensor<1x1x4x1xf32>, tensor<1x1x4x1xf32>
  }
}
MLIR
cat > "$W/cali.txt" <<'TABLE'
# op_name threshold min max
x 4.0 -4.0 4.0
conv_a 5.0 -5.75 6.25
relu6 5.1 0.0 6.0
conv_b 6.0 -8.0 8.0
relu 4.0 0.0 8.0
TABLE
/usr/bin/python3 -c "import numpy as np; np.save('$W/x.npy', np.array([-3.0, 0.7, 1.9, 4.0], np.float32).reshape(1, 1, 4, 1))"
"$TK" quantize "$W/model.mlir" --quantize INT8 --calibration-table "$W/cali.txt" -o "$W/int8.mlir"
"$TK" run "$W/int8.mlir" --backend ref --input "x=$W/x.npy" -o "$W/out.npz" --dump-intermediates "$W/layers.npz" \
  --tosa-types > /dev/null
/usr/bin/python3 "$ROOT/tests/quantize/test_quant_fused_relu.py" "$W/int8.mlir" "$W/x.npy" "$W/layers.npz"
