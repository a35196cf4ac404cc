#!/usr/bin/env bash
# inspect_visual.sh ppocr_cls|resnet50: `tosakit visual` float vs INT8 (min/max calibration on the model's
# input), tested in headless Chromium (inspect_visual_browser.py: no console error, every op shown, click,
# search, table, slider; size and load time printed).
#   ppocr_cls  the bundled PaddleOCR classifier on a dataset of two samples (its input and a noisy copy) with
#              the calibration table; the screenshot $OUT/visual_ppocr_cls/report.png is docs/inspect_visual.png.
#   resnet50   the torchvision export (random weights; exit 77 without python3-torch/torchvision).
set -euo pipefail
MODEL="$1"
PY=/usr/bin/python3
W="$OUT/visual_$MODEL"
rm -rf "$W" && mkdir -p "$W/dataset"
case "$MODEL" in
  ppocr_cls)
    M="$ROOT/models/ppocr_cls"
    cp "$M/input.npz" "$W/dataset/sample0.npz"
    "$TK" import "$M/model.onnx" --input-shape x=1x3x48x192 -o "$W/float.mlir"
    layer=p2o.Conv.10 ;;
  resnet50)
    if ! "$PY" -c "import torch, torchvision" 2>/dev/null; then
      echo "SKIP: python3-torch / python3-torchvision not installed (scripts/install-deps.sh)"; exit 77
    fi
    mkdir -p "$OUT/torchvision"
    [ -f "$OUT/torchvision/resnet50.onnx" ] || "$PY" "$ROOT/tests/scripts/export_torchvision.py" resnet50 "$OUT/torchvision"
    cp "$OUT/torchvision/resnet50.input.npz" "$W/dataset/sample0.npz"
    "$TK" import "$OUT/torchvision/resnet50.onnx" -o "$W/float.mlir"
    layer=/layer1/layer1.0/conv1/Conv ;;
  *) echo "unknown model $MODEL"; exit 2 ;;
esac
"$TK" calibrate "$W/float.mlir" --dataset "$W/dataset" --method minmax --tune-num 0 -o "$W/cali.txt"
"$TK" quantize "$W/float.mlir" --quantize INT8 --calibration-table "$W/cali.txt" -o "$W/int8.mlir"
if [ "$MODEL" = ppocr_cls ]; then
  $PY -c "
import numpy as np, sys
d = np.load(sys.argv[1])
np.savez(sys.argv[2], **{k: (v + 0.05 * np.random.default_rng(0).standard_normal(v.shape)).astype(v.dtype) for k, v in d.items()})" \
    "$W/dataset/sample0.npz" "$W/dataset/sample1.npz"
fi
"$TK" visual "$W/float.mlir" "$W/int8.mlir" --dataset "$W/dataset" --calibration-table "$W/cali.txt" \
  -o "$W/report.html"
ops=$(grep -cE '^ *%[^ ]+ = (tosa\.|"tosa\.)' "$W/float.mlir")
consts=$(grep -cE '^ *%[^ ]+ = ("tosa\.const|tosa\.const_shape)' "$W/float.mlir")
echo "{\"ops\": $((ops - consts)), \"layer\": \"$layer\"}" > "$W/check.json"
"$PY" "$ROOT/tests/scripts/inspect_visual_browser.py" "$W/report.html" "$W/check.json" "$W/report.png"
echo "visual $MODEL: PASS"
