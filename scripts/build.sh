#!/usr/bin/env bash
# Configures and builds tosakit with Ninja into build/ (override with BUILD_DIR).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# Tests and benchmarks on (scripts/demo.sh configures the same directory without them); TOSAKIT_PYTHON is
# decided anew, so the Python package is built once pybind11-dev is installed.
cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOSAKIT_BUILD_TESTS=ON \
  -DTOSAKIT_BUILD_BENCH=ON -UTOSAKIT_PYTHON "${LAUNCHER[@]}"
ninja -C "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
