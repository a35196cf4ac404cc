#!/usr/bin/env bash
# Import PaddleOCR's classifier, run it, compare with ONNX Runtime's bundled output (cosine >= 0.99999).
set -euo pipefail
mkdir -p "$OUT"
"$TK" import "$ROOT/models/ppocr_cls/model.onnx" -o "$OUT/ppocr_cls.mlir" --input-shape x=1x3x48x192
"$TK" validate "$OUT/ppocr_cls.mlir"
"$TK" run "$OUT/ppocr_cls.mlir" --inputs "$ROOT/models/ppocr_cls/input.npz" -o "$OUT/ppocr_cls.out.npz"
/usr/bin/python3 "$ROOT/models/compare.py" "$OUT/ppocr_cls.out.npz" "$ROOT/models/ppocr_cls/ort_output.npz"
