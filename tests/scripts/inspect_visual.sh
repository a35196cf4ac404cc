#!/usr/bin/env bash
# inspect_visual.sh: `tosakit visual` of the bundled PaddleOCR classifier, float vs INT8 (min/max calibration on
# its input.npz), on a dataset of two samples (the input and a noisy copy) with the calibration table, tested in
# headless Chromium (inspect_visual_browser.py: no console error, every op shown, click, search, table, slider;
# size and load time printed). The screenshot is $OUT/visual_ppocr/report.png (docs/inspect_visual.png).
set -euo pipefail
PY=/usr/bin/python3
W="$OUT/visual_ppocr"
rm -rf "$W" && mkdir -p "$W/dataset"
M="$ROOT/models/ppocr_cls"
cp "$M/input.npz" "$W/dataset/sample0.npz"
"$TK" import "$M/model.onnx" --input-shape x=1x3x48x192 -o "$W/float.mlir"
"$TK" calibrate "$W/float.mlir" --dataset "$W/dataset" --method minmax --tune-num 0 -o "$W/cali.txt"
"$TK" quantize "$W/float.mlir" --quantize INT8 --calibration-table "$W/cali.txt" -o "$W/int8.mlir"
$PY -c "
import numpy as np, sys
x = np.load(sys.argv[1])['x']
np.savez(sys.argv[2], x=(x + 0.05 * np.random.default_rng(0).standard_normal(x.shape)).astype(np.float32))" \
  "$M/input.npz" "$W/dataset/sample1.npz"
"$TK" visual "$W/float.mlir" "$W/int8.mlir" --dataset "$W/dataset" --calibration-table "$W/cali.txt" \
  -o "$W/report.html"
ops=$(grep -cE '^ *%[^ ]+ = (tosa\.|"tosa\.)' "$W/float.mlir")
consts=$(grep -cE '^ *%[^ ]+ = ("tosa\.const|tosa\.const_shape)' "$W/float.mlir")
echo "{\"ops\": $((ops - consts)), \"layer\": \"p2o.Conv.10\"}" > "$W/check.json"
"$PY" "$ROOT/tests/scripts/inspect_visual_browser.py" "$W/report.html" "$W/check.json" "$W/report.png"
echo "visual ppocr_cls: PASS"
