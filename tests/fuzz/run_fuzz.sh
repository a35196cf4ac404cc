#!/bin/sh
# Bounded libFuzzer runs of tosakit's readers (docs/FUZZING.md).
#   tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR] [FUZZER...]   build tests/fuzz standalone with clang, then run
#       each FUZZER (npy spirv mlir onnx compliance tosafb; default: all that were built) for SECONDS (default 300),
#       one after the other, single process.
#   tests/fuzz/run_fuzz.sh --smoke BIN_DIR FUZZER                no build: a short run of BIN_DIR/FUZZER_fuzz
#       (ctest's fuzz_smoke_* tests, scripts/fuzz_smoke.sh; SMOKE_SECONDS, default 15); exit 77 when not built.
# Each run starts from a scratch copy of the seed corpus corpus/FUZZER/ plus the regression inputs in
# regressions/ (crashers of earlier findings and the hostile inputs of issue 13). Crash inputs land in
# BUILD_DIR/artifacts/. Exits non-zero when any fuzzer finds a crash, leak, sanitizer report, timeout or
# RSS/malloc-limit hit.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZ="$ROOT/tests/fuzz"

# run_one BIN_DIR NAME SECONDS WORK_DIR [ARTIFACT_DIR (default WORK_DIR/artifacts)]
run_one() {
  bin="$1/$2_fuzz"
  [ -x "$bin" ] || { echo "run_fuzz: $bin not built, skipped"; return 0; }
  artifacts="${5:-$4/artifacts}"
  case "$2" in
    mlir) maxlen=8192 ;;
    onnx|tflite) maxlen=16384 ;;
    *) maxlen=4096 ;;
  esac
  dict=""
  case "$2" in npy|compliance) dict="-dict=$FUZZ/npy.dict" ;; esac
  corpus="$4/corpus_$2"
  mkdir -p "$corpus" "$artifacts"
  cp "$FUZZ/corpus/$2"/* "$corpus/"
  echo "run_fuzz: $2 for $3 s"
  # The harnesses set a 64 MiB memory budget: any single allocation above 256 MB (malloc_limit) was not
  # checked against it, and the process must stay under 2 GB (rss_limit) including ASan's overhead.
  # shellcheck disable=SC2086
  "$bin" "$corpus" "$FUZZ/regressions" -max_total_time="$3" -max_len="$maxlen" -rss_limit_mb=2048 \
    -malloc_limit_mb=256 -timeout=20 -print_final_stats=1 -artifact_prefix="$artifacts/$2-" $dict
}

if [ "${1:-}" = "--smoke" ]; then
  [ -x "$2/$3_fuzz" ] || { echo "run_fuzz: $2/$3_fuzz not built (clang, MLIR or ONNX missing?): skipped"; exit 77; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # The corpus copy is scratch; crash inputs are kept in BIN_DIR/artifacts/ for the CI log's reproducer.
  run_one "$2" "$3" "${SMOKE_SECONDS:-15}" "$work" "$2/artifacts"
  exit $?
fi

SECONDS_TO_RUN=${1:-300}
BUILD=${2:-$ROOT/build-fuzz}
[ $# -ge 2 ] && shift 2 || shift $#
FUZZERS=${*:-npy spirv mlir onnx compliance tflite tosafb}
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$FUZZ" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=""
for f in $FUZZERS; do  # targets whose dependencies (MLIR, ONNX) were not found are not defined
  ninja -C "$BUILD" -t query "${f}_fuzz" >/dev/null 2>&1 && targets="$targets ${f}_fuzz"
done
# shellcheck disable=SC2086
ninja -C "$BUILD" -j"${JOBS:-2}" $targets
status=0
for f in $FUZZERS; do
  run_one "$BUILD" "$f" "$SECONDS_TO_RUN" "$BUILD" || { echo "run_fuzz: $f FAILED"; status=1; }
done
exit $status
