#!/usr/bin/env bash
# qdq_ops_vs_ort.sh: one small QDQ model per folded op pattern (tests/qdq/make_qdq_op_models.py: lookup-table
# activations, Mul, Concat, AveragePool, Softmax, linear Resize, Relu/Clip alone, uint8 and int8) is imported
# with QDQ folding and its fast and reference backend outputs are compared with live ONNX Runtime's within each
# case's MAX_LSB (docs/ONNX.md "Pre-quantized QDQ models"); cases with an ORT_MAX_LSB are also imported with
# `--qdq fold-ort` and compared within it. `--qdq-integer-io` must give a graph `validate --profile pro_int`
# (plus the case's EXTENSION, int16) accepts (the op was folded: nothing float is left). Exit 77 (ctest: skipped) without python3-onnx or
# onnxruntime-node.
set -euo pipefail
PY=/usr/bin/python3
DIR="$OUT/qdq-ops"
if ! "$PY" -c "import onnx, numpy" 2>/dev/null; then echo "SKIP: python3-onnx not installed"; exit 77; fi
if ! (cd "$ROOT/tools/ort" && node -e "require('onnxruntime-node')") 2>/dev/null; then
  echo "SKIP: onnxruntime-node not installed (scripts/install-deps.sh runs npm ci in tools/ort)"; exit 77
fi
rm -rf "$DIR"
"$PY" "$ROOT/tests/qdq/make_qdq_op_models.py" "$DIR"
fail=0
while IFS=$'\t' read -r file max_lsb ort_max_lsb extension; do
  M="$DIR/${file%.onnx}"
  node "$ROOT/tools/ort/run_ort.js" "$M.onnx" "$M.ort.npz" "$M.input.npz"
  "$TK" import "$M.onnx" -o "$M.mlir"
  "$TK" import "$M.onnx" -o "$M.int-io.mlir" --qdq-integer-io
  ext=()
  if [ "$extension" != "-" ]; then ext=(--extension "$extension"); fi
  if ! "$TK" validate "$M.int-io.mlir" --profile pro_int "${ext[@]}" >/dev/null; then
    echo "FAIL: $file: --qdq-integer-io graph is not PRO-INT (the op was not folded)"; fail=1
  fi
  for backend in fast ref; do
    "$TK" run "$M.mlir" --backend "$backend" --inputs "$M.input.npz" -o "$M.$backend.npz" >/dev/null
    echo -n "$file ($backend): "
    "$PY" "$ROOT/tests/qdq/qdq_compare.py" "$M.onnx" "$M.$backend.npz" "$M.ort.npz" --max-lsb "$max_lsb" || fail=1
  done
  if [ "$ort_max_lsb" != "-" ]; then  # --qdq fold-ort: ONNX Runtime's formula
    "$TK" import "$M.onnx" -o "$M.fold-ort.mlir" --qdq fold-ort
    for backend in fast ref; do
      "$TK" run "$M.fold-ort.mlir" --backend "$backend" --inputs "$M.input.npz" -o "$M.fold-ort.$backend.npz" >/dev/null
      echo -n "$file (fold-ort, $backend): "
      "$PY" "$ROOT/tests/qdq/qdq_compare.py" "$M.onnx" "$M.fold-ort.$backend.npz" "$M.ort.npz" \
        --max-lsb "$ort_max_lsb" || fail=1
    done
  fi
done <"$DIR/cases.txt"
exit $fail
