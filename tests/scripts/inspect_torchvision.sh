#!/usr/bin/env bash
# inspect_torchvision.sh MODEL (resnet50, mobilenet_v2): `tosakit info --json` of the torchvision export (random
# weights, tests/scripts/export_torchvision.py) meets PyTorch's own parameter and MAC counts
# (inspect_torchvision_figures.py). Exit 77 (ctest: skipped) without python3-torch/torchvision.
set -euo pipefail
MODEL="$1"
PY=/usr/bin/python3
DIR="$OUT/torchvision"
mkdir -p "$DIR"
if ! "$PY" -c "import torch, torchvision" 2>/dev/null; then
  echo "SKIP: python3-torch / python3-torchvision not installed (scripts/install-deps.sh)"; exit 77
fi
[ -f "$DIR/$MODEL.onnx" ] || "$PY" "$ROOT/tests/scripts/export_torchvision.py" "$MODEL" "$DIR"
"$TK" info "$DIR/$MODEL.onnx" --json > "$DIR/$MODEL.info.json"
"$PY" "$ROOT/tests/scripts/inspect_torchvision_figures.py" "$MODEL" "$DIR/$MODEL.info.json"
