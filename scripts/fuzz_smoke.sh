#!/usr/bin/env bash
# CI fuzz smoke (issue 13; docs/FUZZING.md "CI"): the libFuzzer harnesses of tests/fuzz, built with Debian's
# clang (ASan + UBSan, -O0 for a quick build) in a build directory of their own, each run for a short time over
# its seed corpus and tests/fuzz/regressions. ctest runs it as `fuzz_build` + `fuzz_smoke_<name>` (label fuzz,
# tests/scripts/fuzz_smoke.cmake); `ctest -LE fuzz` leaves it out.
#   scripts/fuzz_smoke.sh build BUILD_DIR        configure + build every harness whose dependencies exist
#   scripts/fuzz_smoke.sh run BUILD_DIR NAME     run NAME_fuzz for SMOKE_SECONDS (default 20)
#   scripts/fuzz_smoke.sh [BUILD_DIR]            both, for npy spirv mlir onnx compliance tosafb
# Exit 77 (ctest: skipped) when clang with libFuzzer is not installed (Debian: clang-14, libclang-rt-14-dev) or
# the harness was not built; non-zero on any crash, leak, sanitizer report, timeout or RSS/malloc-limit hit.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FUZZERS=(npy spirv mlir onnx compliance tflite tosafb)

# The first clang++ that links a libFuzzer target (clang++-14 is Debian 12's), or nothing.
find_fuzz_cxx() {
  local probe
  probe="$(mktemp -d)"
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cpp"
  for cxx in ${FUZZ_CXX:-} clang++-14 clang++; do
    if command -v "$cxx" >/dev/null 2>&1 &&
       "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1; then
      rm -rf "$probe"
      echo "$cxx"
      return 0
    fi
  done
  rm -rf "$probe"
}

build() {
  local dir="$1" cxx cc launcher=()
  cxx="$(find_fuzz_cxx)"
  if [ -z "$cxx" ]; then
    echo "fuzz_smoke: skipped: no clang++ with libFuzzer (install clang-14 and libclang-rt-14-dev)"
    exit 77
  fi
  cc="${cxx/clang++/clang}"
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  echo "fuzz_smoke: building the harnesses with $cxx (-O0) in $dir"
  mkdir -p "$dir"
  CC="$cc" CXX="$cxx" cmake -S "$ROOT/tests/fuzz" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTOSAKIT_FUZZ_OPT=-O0 "${launcher[@]}" >"$dir/configure.log" 2>&1 || { cat "$dir/configure.log"; exit 1; }
  grep -i "warning" -A1 "$dir/configure.log" || true  # harnesses skipped for a missing dependency
  ninja -C "$dir" -j "${JOBS:-$(nproc)}"
}

run() {
  SMOKE_SECONDS="${SMOKE_SECONDS:-20}" exec "$ROOT/tests/fuzz/run_fuzz.sh" --smoke "$1" "$2"
}

case "${1:-}" in
  build) build "$2" ;;
  run) run "$2" "$3" ;;
  *)
    dir="${1:-$ROOT/build-fuzz-smoke}"
    build "$dir"
    status=0
    for f in "${FUZZERS[@]}"; do
      rc=0
      (run "$dir" "$f") || rc=$?
      if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; then echo "fuzz_smoke: $f FAILED"; status=1; fi
    done
    exit "$status"
    ;;
esac
