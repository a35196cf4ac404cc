#!/usr/bin/env bash
# malformed_qdq.sh: QDQ models with a bad scale (0, negative, NaN, inf), a per-channel scale that does not
# match its axis, or a zero point of the wrong length or type (tests/qdq/malformed_qdq.py) are rejected by
# `tosakit import` with a one-line error naming the problem, exit 4, and no output file; the undamaged model
# imports. Exit 77 (ctest: skipped) without python3-onnx.
set -euo pipefail
PY=/usr/bin/python3
DIR="$OUT/qdq-malformed"
if ! "$PY" -c "import onnx, numpy" 2>/dev/null; then echo "SKIP: python3-onnx not installed"; exit 77; fi
rm -rf "$DIR"
"$PY" "$ROOT/tests/qdq/malformed_qdq.py" "$DIR"
fail=0
while IFS=$'\t' read -r file words code; do
  out="$DIR/${file%.onnx}.mlir"
  set +e
  "$TK" import "$DIR/$file" -o "$out" 2>"$DIR/err.txt"
  rc=$?
  set -e
  if [ "$code" = 0 ]; then
    [ "$rc" = 0 ] || { echo "FAIL: $file (valid) exit $rc: $(cat "$DIR/err.txt")"; fail=1; }
    continue
  fi
  lines=$(wc -l <"$DIR/err.txt")
  if [ "$rc" != "$code" ] || [ "$lines" != 1 ] || ! grep -qi "$words" "$DIR/err.txt" || [ -e "$out" ]; then
    echo "FAIL: $file: exit $rc, $lines line(s), output $( [ -e "$out" ] && echo written || echo absent ):"
    cat "$DIR/err.txt"
    fail=1
  else
    echo "ok: $file: $(cat "$DIR/err.txt")"
  fi
done <"$DIR/cases.txt"
exit $fail
