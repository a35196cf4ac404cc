#!/bin/bash
# End-to-end quantization on a real (small) task: a CNN trained on sklearn's handwritten digits
# (tests/scripts/digits_model.py, fixed seeds), exported to ONNX, imported, calibrated on 200 training samples
# and quantized INT8 symmetric/asymmetric, INT16 and BF16; held-out top-1 accuracy against the float model.
# Targets (issue 10): INT8 within 0.5 points of float, INT16 and BF16 within 0.3.
# Env: TK (tosakit binary), ROOT (source tree), OUT (work directory). Exit 77 (skip) without torch/sklearn.
set -euo pipefail
PY=/usr/bin/python3
$PY -c "import torch, sklearn" 2>/dev/null || { echo "digits_quantize: python3-torch/python3-sklearn missing: skipped"; exit 77; }
W="$OUT/digits"
rm -rf "$W" && mkdir -p "$W"
$PY "$ROOT/tests/scripts/digits_model.py" "$W"
N=$($PY -c "import numpy as np; print(len(np.load('$W/test_labels.npy')))")
# Batch 1 for calibration, the whole held-out set as one batch for evaluation; op names are the same.
"$TK" import "$W/digits.onnx" --input-shape input=1x1x8x8 -o "$W/digits.mlir"
"$TK" import "$W/digits.onnx" --input-shape input=${N}x1x8x8 -o "$W/digits_batch.mlir"
"$TK" calibrate "$W/digits.mlir" --dataset "$W/calib" --input-num 200 -o "$W/cali.txt"

accuracy() {  # model -> accuracy in percent on the held-out set
  "$TK" run "$1" --inputs "$W/test.npz" -o "$W/out.npz" > /dev/null
  $PY "$ROOT/tests/scripts/digits_accuracy.py" "$W/out.npz" "$W/test_labels.npy"
}
FLOAT=$(accuracy "$W/digits_batch.mlir")
echo "float: $FLOAT%"
fail=0
check() {  # name, extra quantize flags, allowed drop in points
  local name=$1 flags=$2 allowed=$3
  "$TK" quantize "$W/digits_batch.mlir" $flags --calibration-table "$W/cali.txt" -o "$W/digits_$name.mlir"
  local acc
  acc=$(accuracy "$W/digits_$name.mlir")
  local ok
  ok=$($PY -c "print(int($FLOAT - $acc <= $allowed))")
  echo "$name: $acc% (float $FLOAT%, drop $($PY -c "print(round($FLOAT - $acc, 4))") points, allowed $allowed)"
  [ "$ok" = 1 ] || { echo "digits_quantize: $name accuracy drop beyond $allowed points"; fail=1; }
}
check int8_sym "--quantize INT8" 0.5
check int8_asym "--quantize INT8 --asymmetric" 0.5
check int16 "--quantize INT16" 0.3
check bf16 "--quantize BF16" 0.3
# The all-integer form: int8 in, int8 out, PRO-INT only, and upstream MLIR parses and verifies it.
"$TK" quantize "$W/digits.mlir" --quantize INT8 --calibration-table "$W/cali.txt" --quant-input --quant-output \
  -o "$W/digits_int8_io.mlir"
"$TK" validate "$W/digits_int8_io.mlir" --profile pro_int
if command -v mlir-opt-22 > /dev/null; then
  mlir-opt-22 --verify-each "$W/digits_int8_io.mlir" > /dev/null
  echo "mlir-opt-22 verifies the all-int8 graph"
fi
if grep -q "f32\|bf16\|f16" "$W/digits_int8_io.mlir"; then
  echo "digits_quantize: the --quant-input --quant-output INT8 graph still has float tensors"; fail=1
fi
exit $fail
