#!/bin/bash
# torchvision_quantize.sh MODEL (resnet18, mobilenet_v2): INT8 post-training quantization of a torchvision
# classifier on real photos, through the CLI as a user runs it (issue 10, "done when"):
#   export (tests/scripts/export_torchvision_realbn.py: default-init weights, BatchNorm statistics recomputed on
#   real photos; calibration and held-out crops from DISJOINT photos, written as PNG files)
#   -> tosakit import --mean/--scale/--pixel-format rgb (ImageNet normalisation recorded in the model)
#   -> tosakit calibrate --dataset calib/ -> tosakit quantize --quantize INT8
#   -> tosakit run on every held-out image, float and INT8; output cosine in numpy: min >= 0.98
#   -> tosakit qtable --expected-cos 0.995 -> tosakit quantize --quantize-table: held-out mean cosine >= 0.995
#      with at most 15% of the layers (float tensors of `run --dump-intermediates`) in float.
# Env: TK (tosakit binary), ROOT (source tree), OUT (work directory); optional CALIB_CROPS (calibration crops
# per calibration photo, 8 photos; default 8), HELDOUT_CROPS (per held-out photo, 4 photos; default 4),
# TUNE_NUM (calibrate --tune-num, default 5), QTABLE_NUM (qtable --input-num, default 10).
# Exit 77 (ctest: skipped) without python3-torch/torchvision/skimage/sklearn/PIL.
set -euo pipefail
MODEL=$1
PY=/usr/bin/python3
CALIB_CROPS=${CALIB_CROPS:-8}
HELDOUT_CROPS=${HELDOUT_CROPS:-4}
TUNE_NUM=${TUNE_NUM:-5}
QTABLE_NUM=${QTABLE_NUM:-10}
$PY -c "import torch, torchvision, skimage, sklearn, PIL" 2>/dev/null || {
  echo "torchvision_quantize: python3-torch/torchvision/skimage/sklearn/pil missing: skipped"; exit 77; }
W="$OUT/torchvision_quantize/$MODEL"
rm -rf "$W" && mkdir -p "$W"
SECONDS=0
step() { echo "[${SECONDS}s] $*"; }

step "export $MODEL"
$PY "$ROOT/tests/scripts/export_torchvision_realbn.py" "$MODEL" "$W" --calib-crops "$CALIB_CROPS" \
  --heldout-crops "$HELDOUT_CROPS"
step "import"
"$TK" import "$W/$MODEL.onnx" --input-shape input=1x3x224x224 -o "$W/$MODEL.mlir" \
  --mean 123.675,116.28,103.53 --scale 0.0171,0.0175,0.0174 --pixel-format rgb

run_heldout() {  # model, output directory: one `tosakit run` per held-out image
  mkdir -p "$2"
  for img in "$W"/heldout/*.png; do
    "$TK" run "$1" --input "input=$img" -o "$2/$(basename "$img" .png).npz" > /dev/null
  done
}
step "float model on the held-out images (vs PyTorch)"
run_heldout "$W/$MODEL.mlir" "$W/out_float"
$PY "$ROOT/tests/scripts/torchvision_quantize_cos.py" "$W/heldout_torch" "$W/out_float" --min 0.99999 \
  --label "float vs pytorch"

step "calibrate ($(ls "$W/calib" | wc -l) images, --tune-num $TUNE_NUM)"
"$TK" calibrate "$W/$MODEL.mlir" --dataset "$W/calib" --tune-num "$TUNE_NUM" -o "$W/cali.txt"
step "quantize INT8"
"$TK" quantize "$W/$MODEL.mlir" --quantize INT8 --calibration-table "$W/cali.txt" -o "$W/${MODEL}_int8.mlir"
run_heldout "$W/${MODEL}_int8.mlir" "$W/out_int8"
fail=0
$PY "$ROOT/tests/scripts/torchvision_quantize_cos.py" "$W/out_float" "$W/out_int8" --min 0.98 \
  --label "$MODEL all-INT8 (held-out)" || fail=1

step "qtable --expected-cos 0.995 (--input-num $QTABLE_NUM calibration images)"
"$TK" qtable "$W/$MODEL.mlir" --dataset "$W/calib" --calibration-table "$W/cali.txt" --expected-cos 0.995 \
  --input-num "$QTABLE_NUM" --loss-table "$W/loss.txt" -o "$W/qtable.txt"
"$TK" quantize "$W/$MODEL.mlir" --quantize INT8 --calibration-table "$W/cali.txt" \
  --quantize-table "$W/qtable.txt" -o "$W/${MODEL}_mixed.mlir"
run_heldout "$W/${MODEL}_mixed.mlir" "$W/out_mixed"
# Layers: every float tensor the float model computes (run --dump-intermediates names them as qtable does).
"$TK" run "$W/$MODEL.mlir" --input "input=$(ls "$W"/heldout/*.png | head -1)" -o "$W/layers_out.npz" \
  --dump-intermediates "$W/layers.npz" > /dev/null
LAYERS=$($PY -c "import numpy as np; d = np.load('$W/layers.npz'); print(sum(d[k].dtype.kind == 'f' for k in d))")
FLOAT_LAYERS=$(grep -cv '^#' "$W/qtable.txt" || true)
echo "qtable: $FLOAT_LAYERS of $LAYERS layers in float ($($PY -c "print(round(100 * $FLOAT_LAYERS / $LAYERS, 1))")%)"
$PY -c "import sys; sys.exit(0 if $FLOAT_LAYERS <= 0.15 * $LAYERS else 1)" || {
  echo "torchvision_quantize: more than 15% of the layers in float"; fail=1; }
MIXED=$($PY "$ROOT/tests/scripts/torchvision_quantize_cos.py" "$W/out_float" "$W/out_mixed" \
  --label "$MODEL INT8 + qtable (held-out)")
echo "$MIXED"
MEAN=$(echo "$MIXED" | sed -n 's/.* mean \([0-9.]*\) over.*/\1/p' | head -1)
$PY -c "import sys; sys.exit(0 if $MEAN >= 0.995 else 1)" || {
  echo "torchvision_quantize: held-out mean cosine $MEAN with the qtable is below 0.995"; fail=1; }
step "done"
exit $fail
