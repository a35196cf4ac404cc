#!/bin/sh
# Bounded libFuzzer run of the .npy/.npz readers.
#   tests/fuzz/run_fuzz.sh [SECONDS] [BUILD_DIR]     (defaults: 300, build-fuzz in the repo root)
# Builds tests/fuzz standalone with clang, then fuzzes from a scratch copy of the seed corpus (the committed
# corpus stays small). Crash inputs land in BUILD_DIR/artifacts/. Exits non-zero on any crash or sanitizer report.
set -eu
SECONDS_TO_RUN=${1:-300}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${2:-$ROOT/build-fuzz}
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$ROOT/tests/fuzz" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$BUILD" npy_fuzz
mkdir -p "$BUILD/corpus" "$BUILD/artifacts"
cp "$ROOT"/tests/fuzz/corpus/npy/* "$BUILD/corpus/"
# rss_limit_mb guards the "never allocate absurd amounts" rule: any path allocating >256 MB (malloc_limit) is reported.
exec "$BUILD/npy_fuzz" "$BUILD/corpus" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -rss_limit_mb=1024 \
  -malloc_limit_mb=256 -timeout=10 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/" \
  -dict="$ROOT/tests/fuzz/npy.dict"
