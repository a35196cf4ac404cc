#!/usr/bin/env bash
# Set up, build and run the whole test suite (ctest), printing its summary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/build.sh"
# The Python tests exercise the installed package (docs/API.md, "Python").
if ls "${BUILD_DIR:-$ROOT/build}"/python/tosakit/_tosakit*.so >/dev/null 2>&1; then "$ROOT/scripts/install-python.sh"; fi
BUILD="$(cd "${BUILD_DIR:-$ROOT/build}" && pwd)"
cd "$BUILD"
# The JUnit report keeps every test's output (passed ones too) for the skip count below.
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 3000 --output-junit "$BUILD/Testing/ctest-junit.xml" \
  --test-output-size-passed 1048576 --test-output-size-failed 1048576 "$@"
# A skip whose reason tests/allowed_skips.txt does not allow fails the run.
/usr/bin/python3 "$ROOT/scripts/check-skips.py" "$BUILD/Testing/ctest-junit.xml"
