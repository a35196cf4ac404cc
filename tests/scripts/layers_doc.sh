#!/usr/bin/env bash
# docs/ARCHITECTURE.md's library graph is CMake's: configures the tree into a scratch directory with
# `cmake --graphviz` (no tests, benchmarks or Python package: only the libraries matter) and compares the
# tosakit_* libraries' direct dependencies with the doc's block (tests/scripts/layers_doc.py).
#   tests/scripts/layers_doc.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
SRC="$1"
mkdir -p "$2"
DIR="$(cd "$2" && pwd)"
printf 'set(GRAPHVIZ_GENERATE_PER_TARGET OFF)\nset(GRAPHVIZ_GENERATE_DEPENDERS OFF)\n' >"$DIR/CMakeGraphVizOptions.cmake"
if ! cmake -S "$SRC" -B "$DIR" -G Ninja -DTOSAKIT_BUILD_TESTS=OFF -DTOSAKIT_BUILD_BENCH=OFF -DTOSAKIT_PYTHON=OFF \
     --graphviz="$DIR/libraries.dot" >"$DIR/configure.log" 2>&1; then
  tail -30 "$DIR/configure.log"
  echo "layers_doc: configuring failed (log: $DIR/configure.log)" >&2
  exit 1
fi
exec /usr/bin/python3 "$SRC/tests/scripts/layers_doc.py" "$DIR/libraries.dot" "$SRC/docs/ARCHITECTURE.md"
