#!/usr/bin/env bash
# Set up, build and run the whole test suite (ctest), printing its summary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"
cd "${BUILD_DIR:-$ROOT/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 3000 "$@"
