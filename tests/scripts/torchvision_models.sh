#!/usr/bin/env bash
# torchvision_models.sh MODEL (resnet18, mobilenet_v2): export the torchvision classifier with random weights
# (tests/scripts/export_torchvision.py, fixed seeds), run live ONNX Runtime on a random input, then
# `tosakit import --test-input/--test-reference` must match ORT with cosine >= 0.99999; `tosakit run` of the
# imported MLIR is compared again with models/compare.py (against ORT and against PyTorch itself).
# Nothing generated is committed: everything goes to $OUT/torchvision. Exit 77 (ctest: skipped) when
# python3-torch/torchvision or onnxruntime-node (scripts/install-deps.sh) are missing.
set -euo pipefail
MODEL="$1"
PY=/usr/bin/python3
DIR="$OUT/torchvision"
mkdir -p "$DIR"
if ! "$PY" -c "import torch, torchvision" 2>/dev/null; then
  echo "SKIP: python3-torch / python3-torchvision not installed (scripts/install-deps.sh)"; exit 77
fi
if ! (cd "$ROOT/tools/ort" && node -e "require('onnxruntime-node')") 2>/dev/null; then
  echo "SKIP: onnxruntime-node not installed (scripts/install-deps.sh runs npm ci in tools/ort)"; exit 77
fi
"$PY" "$ROOT/tests/scripts/export_torchvision.py" "$MODEL" "$DIR"
node "$ROOT/tools/ort/run_ort.js" "$DIR/$MODEL.onnx" "$DIR/$MODEL.ort.npz" "$DIR/$MODEL.input.npz"
# Sanity of the oracle itself: ORT agrees with PyTorch.
"$PY" "$ROOT/models/compare.py" "$DIR/$MODEL.ort.npz" "$DIR/$MODEL.torch.npz" --cosine 0.99999 --euclidean 0.999
rm -f "$DIR/$MODEL.mlir"
"$TK" import "$DIR/$MODEL.onnx" -o "$DIR/$MODEL.mlir" \
  --test-input "$DIR/$MODEL.input.npz" --test-reference "$DIR/$MODEL.ort.npz" --tolerance 0.99999,0.999
"$TK" validate "$DIR/$MODEL.mlir"
"$TK" run "$DIR/$MODEL.mlir" --inputs "$DIR/$MODEL.input.npz" -o "$DIR/$MODEL.out.npz"
"$PY" "$ROOT/models/compare.py" "$DIR/$MODEL.out.npz" "$DIR/$MODEL.ort.npz" --cosine 0.99999 --euclidean 0.999
"$PY" "$ROOT/models/compare.py" "$DIR/$MODEL.out.npz" "$DIR/$MODEL.torch.npz" --cosine 0.99999 --euclidean 0.999
echo "$MODEL: PASS"
