#!/usr/bin/env bash
# qdq_ops_vs_ort.sh: one small QDQ model per folded op pattern (tests/qdq/make_qdq_op_models.py: lookup-table
# activations, Mul, Concat, AveragePool, Relu/Clip alone, uint8 and int8) is imported with QDQ folding and its
# fast and reference backend outputs are compared with live ONNX Runtime's within each case's MAX_LSB
# (docs/ONNX.md "Pre-quantized QDQ models"); `--qdq-integer-io` must give a graph `validate --profile pro_int`
# accepts (the op was folded: nothing float is left). Exit 77 (ctest: skipped) without python3-onnx or
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
while IFS=$'\t' read -r file max_lsb; do
  M="$DIR/${file%.onnx}"
  node "$ROOT/tools/ort/run_ort.js" "$M.onnx" "$M.ort.npz" "$M.input.npz"
  "$TK" import "$M.onnx" -o "$M.mlir"
  "$TK" import "$M.onnx" -o "$M.int-io.mlir" --qdq-integer-io
  if ! "$TK" validate "$M.int-io.mlir" --profile pro_int >/dev/null; then
    echo "FAIL: $file: --qdq-integer-io graph is not PRO-INT (the op was not folded)"; fail=1
  fi
  for backend in fast ref; do
    "$TK" run "$M.mlir" --backend "$backend" --inputs "$M.input.npz" -o "$M.$backend.npz" >/dev/null
    echo -n "$file ($backend): "
    "$PY" "$ROOT/tests/qdq/qdq_compare.py" "$M.onnx" "$M.$backend.npz" "$M.ort.npz" --max-lsb "$max_lsb" || fail=1
  done
done <"$DIR/cases.txt"
exit $fail
