#!/usr/bin/env bash
# The golden model alone (CMake option TOSAKIT_FAST=OFF): configures the tree without the fast backend into a
# scratch build directory, builds the tests of the layers below it (core, ir, ref and session over ref), checks
# that nothing there links oneDNN or OpenMP, and runs those tests.
#   tests/scripts/golden_only.sh SOURCE_DIR SCRATCH_BUILD_DIR
# ctest runs it as `golden_only` with the scratch directory inside the build tree; ccache keeps reruns cheap
# (the directory is not hashed, so the objects are reused wherever the scratch directory is).
set -euo pipefail
SRC="$1"
mkdir -p "$2"
DIR="$(cd "$2" && pwd)"
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then
  LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_NOHASHDIR=1
fi
if ! cmake -S "$SRC" -B "$DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOSAKIT_FAST=OFF -DTOSAKIT_BUILD_TESTS=ON \
     -DTOSAKIT_BUILD_BENCH=OFF "${LAUNCHER[@]}" >"$DIR/configure.log" 2>&1; then
  tail -30 "$DIR/configure.log"
  echo "golden_only: configuring with TOSAKIT_FAST=OFF failed (log: $DIR/configure.log)" >&2
  exit 1
fi
TARGETS=(core_tests ir_tests ref_tests)
if ninja -C "$DIR" -t targets all | grep -q '^tosakit_fast:'; then
  echo "golden_only: TOSAKIT_FAST=OFF still defines tosakit_fast" >&2
  exit 1
fi
if ! ninja -C "$DIR" -j "${JOBS:-$(nproc)}" "${TARGETS[@]}" >"$DIR/build.log" 2>&1; then
  tail -40 "$DIR/build.log"
  echo "golden_only: building ${TARGETS[*]} with TOSAKIT_FAST=OFF failed (log: $DIR/build.log)" >&2
  exit 1
fi
for t in "${TARGETS[@]}"; do
  if ldd "$DIR/tests/$t" | grep -E 'libdnnl|libgomp'; then
    echo "golden_only: $t links oneDNN or OpenMP without the fast backend" >&2
    exit 1
  fi
done
cd "$DIR"
if ! ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 600 >"$DIR/ctest.log" 2>&1; then
  grep -v ' Passed ' "$DIR/ctest.log" | tail -60
  echo "golden_only: tests failed without the fast backend (log: $DIR/ctest.log)" >&2
  exit 1
fi
tail -3 "$DIR/ctest.log"
echo "golden_only: the golden model built and tested without the fast backend (${TARGETS[*]})"
