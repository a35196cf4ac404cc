#!/usr/bin/env bash
# export_qdq_vs_ort.sh MODEL MAX_REL (small_cnn, resnet18): the QDQ export round trip (docs/ONNX.md "Exporting QDQ
# models"). The float PyTorch model (tests/qdq/make_qdq_models.py NAME_float) is imported, calibrated by
# `tosakit calibrate` on the calibration photographs and written as an ONNX QDQ model by `tosakit export-qdq`;
# then, on the held-out photograph:
# - live ONNX Runtime runs the exported model (its QDQ fusion: QLinearConv, QGemm, ...);
# - `tosakit import --qdq fold-ort` of it (integer convs, ONNX Runtime's float requantization) must give ONNX
#   Runtime's outputs up to float32 rounding of the last layer's scaling (relative 1e-5);
# - `tosakit import` (`--qdq fold`, integer-only: every conv/matmul takes i8) within MAX_REL (ONNX Runtime's float
#   requantization can be one step off near rounding ties, see qdq_vs_ort.sh; measured: identical), same argmax;
# - `tosakit quantize` of the calibrated float model is compared with the re-import (printed: the same integer
#   layers up to the rescale multipliers, which the export rounds through float32 scales).
# Exit 77 (ctest: skipped) without python3-torch/torchvision/skimage/onnx or onnxruntime-node.
set -euo pipefail
MODEL="$1"
MAX_REL="$2"
source "$ROOT/tests/qdq/model_setup.sh"
DIR="$OUT/qdq_export"
mkdir -p "$DIR"
F="$DIR/${MODEL}_float"
"$PY" "$ROOT/tests/qdq/make_qdq_models.py" "$DIR" "${MODEL}_float"
"$PY" "$ROOT/tests/qdq/photo_input.py" "$F.input.npz" "$size"
rm -f "$F.mlir" "$F.cali.txt" "$F.qdq.onnx" "$F.qdq.mlir" "$F.qdq-ort.mlir" "$F.int8.mlir"
"$TK" import "$F.onnx" -o "$F.mlir"
"$TK" calibrate "$F.mlir" --dataset "${F}_calib" -o "$F.cali.txt"
"$TK" export-qdq "$F.onnx" --calibration-table "$F.cali.txt" -o "$F.qdq.onnx"
"$PY" -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))" "$F.qdq.onnx"
node "$ROOT/tools/ort/run_ort.js" "$F.qdq.onnx" "$F.ort.npz" "$F.input.npz"
"$TK" import "$F.qdq.onnx" -o "$F.qdq.mlir"
"$TK" validate "$F.qdq.mlir"
if grep -E "tosa\.(conv2d|depthwise_conv2d|matmul) .*xf32>" "$F.qdq.mlir"; then
  echo "FAIL: a float conv/matmul is left after importing the exported QDQ model"; exit 1
fi
"$TK" import "$F.qdq.onnx" -o "$F.qdq-ort.mlir" --qdq fold-ort
for backend in fast ref; do
  "$TK" run "$F.qdq-ort.mlir" --backend "$backend" --inputs "$F.input.npz" -o "$F.$backend.qdq-ort.npz" >/dev/null
  "$PY" "$ROOT/tests/qdq/export_compare.py" "$F.$backend.qdq-ort.npz" "$F.ort.npz" --max-rel 1e-5 \
    --label "--qdq fold-ort, $backend backend, vs ONNX Runtime: "
  "$TK" run "$F.qdq.mlir" --backend "$backend" --inputs "$F.input.npz" -o "$F.$backend.qdq.npz" >/dev/null
  "$PY" "$ROOT/tests/qdq/export_compare.py" "$F.$backend.qdq.npz" "$F.ort.npz" --max-rel "$MAX_REL" \
    --label "--qdq fold, $backend backend, vs ONNX Runtime: "
done
# tosakit quantize of the same calibration: the integer graph the export describes, reported.
"$TK" quantize "$F.mlir" --quantize INT8 --calibration-table "$F.cali.txt" -o "$F.int8.mlir"
"$TK" run "$F.int8.mlir" --inputs "$F.input.npz" -o "$F.int8.npz" >/dev/null
"$PY" "$ROOT/tests/qdq/export_compare.py" "$F.int8.npz" "$F.fast.qdq.npz" --max-rel 1 --min-cos 0.999 \
  --label "tosakit quantize vs the re-imported export: "
echo "$MODEL: PASS"
