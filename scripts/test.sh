#!/usr/bin/env bash
# Set up, build and run the whole test suite (ctest), printing its summary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"
# The Python tests exercise the installed package (docs/API.md, "Python").
if ls "${BUILD_DIR:-$ROOT/build}"/python/tosakit/_tosakit*.so >/dev/null 2>&1; then "$ROOT/scripts/install-python.sh"; fi
cd "${BUILD_DIR:-$ROOT/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 3000 "$@"
