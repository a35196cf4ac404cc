#!/usr/bin/env bash
# qdq_vs_ort.sh MODEL MAX_LSB (small_cnn, resnet18, mobilenet_v2; NAME_qat quantization-aware trained, NAME_fx
# FX graph mode): a PyTorch eager-mode post-training-quantized model exported in QDQ form
# (tests/qdq/make_qdq_models.py) is imported with QDQ folding, and the fast and
# reference backends' outputs on a real photograph are compared with live ONNX Runtime's, in output LSB:
# - `--qdq fold` (integer-only: every conv/matmul takes i8, requantization by RESCALE): within MAX_LSB. ONNX
#   Runtime requantizes in float32 (round(float(acc) * scale)), which differs from the exact product by one
#   step when it lies within a float ulp of a rounding tie; deep networks carry such steps on
#   (docs/ONNX.md "Pre-quantized QDQ models" gives the measured counts);
# - `--qdq fold-ort` (the same requantization as ONNX Runtime, in float32): bit-identical (0 LSB);
# - `--qdq-integer-io` (uint8 input and output, `validate --profile pro_int`): like `--qdq fold`.
# Exit 77 (ctest: skipped) without python3-torch/torchvision/skimage/onnx or onnxruntime-node.
set -euo pipefail
MODEL="$1"
MAX_LSB="$2"
source "$ROOT/tests/qdq/model_setup.sh"
DIR="$OUT/qdq"
mkdir -p "$DIR"
M="$DIR/${MODEL}_qdq"
"$PY" "$ROOT/tests/qdq/make_qdq_models.py" "$DIR" "$MODEL"
"$PY" "$ROOT/tests/qdq/photo_input.py" "$M.input.npz" "$size"
node "$ROOT/tools/ort/run_ort.js" "$M.onnx" "$M.ort.npz" "$M.input.npz"
rm -f "$M.mlir" "$M.ort-mode.mlir"
"$TK" import "$M.onnx" -o "$M.mlir"
"$TK" validate "$M.mlir"
if grep -E "tosa\.(conv2d|depthwise_conv2d|matmul) .*xf32>" "$M.mlir"; then
  echo "FAIL: a float conv/matmul is left after QDQ folding"; exit 1
fi
"$TK" import "$M.onnx" -o "$M.ort-mode.mlir" --qdq fold-ort
# --qdq keep: the float graph (fake quantization around float convs), as before QDQ folding.
rm -f "$M.keep.mlir"
"$TK" import "$M.onnx" -o "$M.keep.mlir" --qdq keep
grep -qE "tosa\.conv2d .*xf32>" "$M.keep.mlir" || { echo "FAIL: --qdq keep left no float conv2d"; exit 1; }
for backend in fast ref; do
  "$TK" run "$M.mlir" --backend "$backend" --inputs "$M.input.npz" -o "$M.$backend.npz" >/dev/null
  echo "--qdq fold, $backend backend:"
  "$PY" "$ROOT/tests/qdq/qdq_compare.py" "$M.onnx" "$M.$backend.npz" "$M.ort.npz" --max-lsb "$MAX_LSB"
  "$TK" run "$M.ort-mode.mlir" --backend "$backend" --inputs "$M.input.npz" -o "$M.$backend.ort-mode.npz" >/dev/null
  echo "--qdq fold-ort, $backend backend:"
  "$PY" "$ROOT/tests/qdq/qdq_compare.py" "$M.onnx" "$M.$backend.ort-mode.npz" "$M.ort.npz" --max-lsb 0
done
# --qdq-integer-io: uint8 in, uint8 out, PRO-INT; the quantized photo gives the same integers.
rm -f "$M.int-io.mlir"
"$TK" import "$M.onnx" -o "$M.int-io.mlir" --qdq-integer-io
"$TK" validate "$M.int-io.mlir" --profile pro_int
"$PY" "$ROOT/tests/qdq/quantize_input.py" "$M.onnx" "$M.input.npz" "$M.input-q.npz"
for backend in fast ref; do
  "$TK" run "$M.int-io.mlir" --backend "$backend" --inputs "$M.input-q.npz" -o "$M.$backend.int-io.npz" >/dev/null
  echo "--qdq-integer-io, $backend backend:"
  "$PY" "$ROOT/tests/qdq/qdq_compare.py" "$M.onnx" "$M.$backend.int-io.npz" "$M.ort.npz" --max-lsb "$MAX_LSB"
done
echo "$MODEL: PASS"
