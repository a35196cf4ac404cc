#!/usr/bin/env bash
# inspect_graph.sh resnet50|ppocr_cls_int8: `tosakit graph` to .dot, .svg and .html of a real model; the node and
# edge counts equal the model's (inspect_graph_counts.py: expected from the MLIR text, the DOT counted by
# Graphviz's gc). resnet50 is the torchvision export (random weights; exit 77 without python3-torch), the
# classifier the bundled PaddleOCR model quantized to INT8 (min/max on its input.npz).
set -euo pipefail
MODEL="$1"
PY=/usr/bin/python3
W="$OUT/graph_$MODEL"
mkdir -p "$W"
case "$MODEL" in
  resnet50)
    if ! "$PY" -c "import torch, torchvision" 2>/dev/null; then
      echo "SKIP: python3-torch / python3-torchvision not installed (scripts/install-deps.sh)"; exit 77
    fi
    mkdir -p "$OUT/torchvision"
    [ -f "$OUT/torchvision/resnet50.onnx" ] || "$PY" "$ROOT/tests/scripts/export_torchvision.py" resnet50 "$OUT/torchvision"
    "$TK" import "$OUT/torchvision/resnet50.onnx" -o "$W/model.mlir" ;;
  ppocr_cls_int8)
    mkdir -p "$W/dataset"
    cp "$ROOT/models/ppocr_cls/input.npz" "$W/dataset/sample0.npz"
    "$TK" import "$ROOT/models/ppocr_cls/model.onnx" --input-shape x=1x3x48x192 -o "$W/float.mlir"
    "$TK" calibrate "$W/float.mlir" --dataset "$W/dataset" --method minmax --tune-num 0 -o "$W/cali.txt"
    "$TK" quantize "$W/float.mlir" --quantize INT8 --calibration-table "$W/cali.txt" -o "$W/model.mlir" ;;
  *) echo "unknown model $MODEL"; exit 2 ;;
esac
for ext in dot svg html; do
  start=$(date +%s%N)
  "$TK" graph "$W/model.mlir" -o "$W/graph.$ext"
  echo "graph.$ext: $(stat -c %s "$W/graph.$ext") bytes in $(( ($(date +%s%N) - start) / 1000000 )) ms (load + layout)"
done
"$PY" "$ROOT/tests/scripts/inspect_graph_counts.py" "$W/model.mlir" "$W/graph.dot" "$W/graph.svg"
"$PY" "$ROOT/tests/scripts/inspect_graph_counts.py" "$W/model.mlir" "$W/graph.dot" "$W/graph.html"
# Quantized tensors show their recorded scale and zero point.
if [ "$MODEL" = ppocr_cls_int8 ]; then grep -q "scale 0\.[0-9]* zp 0" "$W/graph.dot"; fi
echo "graph $MODEL: PASS"
