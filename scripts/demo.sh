#!/usr/bin/env bash
# The main job on the bundled default model: set up, build, run it, and check the result.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"
TK="${BUILD_DIR:-$ROOT/build}/tools/tosakit/tosakit"
MODEL="$ROOT/models/default/model.mlir"
OUT="${OUT:-$ROOT/build/default-model-output.npz}"
echo "== tosakit validate $MODEL"
"$TK" validate "$MODEL"
echo "== tosakit run $MODEL"
"$TK" run "$MODEL" --inputs "$ROOT/models/default/inputs.npz" -o "$OUT" \
  --dump-intermediates "${OUT%.npz}.layers.npz"
echo "== compare with the independently computed expected output"
/usr/bin/python3 "$ROOT/models/default/check.py" "$OUT" "$ROOT/models/default/expected.npz"
