#!/usr/bin/env bash
# The main job on the bundled default model: set up, build, then take a real ONNX model (PaddleOCR's mobile
# text-direction classifier, real weights) to TOSA, run it on the fast backend (the default) and check it against
# ONNX Runtime's output; then run the bundled hand-written int8 TOSA model against an independent calculation.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"
BUILD="${BUILD_DIR:-$ROOT/build}"
TK="$BUILD/tools/tosakit/tosakit"
OUT="$BUILD/demo"
mkdir -p "$OUT"

echo "== tosakit import models/ppocr_cls/model.onnx (verified against ONNX Runtime on the bundled input)"
"$TK" import "$ROOT/models/ppocr_cls/model.onnx" -o "$OUT/ppocr_cls.mlir" --input-shape x=1x3x48x192 \
  --test-input "$ROOT/models/ppocr_cls/input.npz" --test-reference "$ROOT/models/ppocr_cls/ort_output.npz" \
  --tolerance 0.99999,0.999
echo "== tosakit validate"
"$TK" validate "$OUT/ppocr_cls.mlir"
echo "== tosakit run (every layer's output kept in $OUT/ppocr_cls.layers.npz)"
"$TK" run "$OUT/ppocr_cls.mlir" --inputs "$ROOT/models/ppocr_cls/input.npz" -o "$OUT/ppocr_cls.out.npz" \
  --dump-intermediates "$OUT/ppocr_cls.layers.npz"
echo "== compare with ONNX Runtime"
/usr/bin/python3 "$ROOT/models/compare.py" "$OUT/ppocr_cls.out.npz" "$ROOT/models/ppocr_cls/ort_output.npz"

echo "== int8 TOSA model: tosakit run models/default/model.mlir"
"$TK" validate "$ROOT/models/default/model.mlir"
"$TK" run "$ROOT/models/default/model.mlir" --inputs "$ROOT/models/default/inputs.npz" -o "$OUT/default.out.npz"
/usr/bin/python3 "$ROOT/models/default/check.py" "$OUT/default.out.npz" "$ROOT/models/default/expected.npz"
echo "demo: PASS"
