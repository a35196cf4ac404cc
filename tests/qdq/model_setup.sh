# Sourced by the whole-model QDQ tests (qdq_vs_ort.sh, export_qdq_vs_ort.sh) with MODEL set: exits 77 (ctest:
# skipped) without python3-torch/torchvision/skimage/onnx or onnxruntime-node; sets PY and the input size of
# MODEL (small_cnn*: 32, else 224).
PY=/usr/bin/python3
if ! "$PY" -c "import torch, torchvision, skimage, onnx" 2>/dev/null; then
  echo "SKIP: python3-torch / python3-torchvision / python3-skimage / python3-onnx not installed"; exit 77
fi
if ! (cd "$ROOT/tools/ort" && node -e "require('onnxruntime-node')") 2>/dev/null; then
  echo "SKIP: onnxruntime-node not installed (scripts/install-deps.sh runs npm ci in tools/ort)"; exit 77
fi
size=224
case "$MODEL" in small_cnn*) size=32 ;; esac
