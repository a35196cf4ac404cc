#!/usr/bin/env bash
# Issue 13's "done when", measured through the CLI: every hostile input of tests/fuzz/regressions (the issue's
# two files and the same trick through each reader), on both backends where a model runs, must exit 4 with one
# line "tosakit: <kind>: ..." in about a second and a few hundred MB. Prints one row per case: exit code, lines
# of output, wall seconds and peak RSS (/usr/bin/time), and the message; exits 1 when a case misses.
#   tests/fuzz/check_hostile_cli.sh [TOSAKIT]        (default: build/tools/tosakit/tosakit)
# Limits for a pass: MAX_SECONDS (default 3: a loaded shared machine runs ~2x slower) and MAX_RSS_MB (300).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
T="${1:-$ROOT/build/tools/tosakit/tosakit}"
R="$ROOT/tests/fuzz/regressions"
MAX_SECONDS="${MAX_SECONDS:-3}"
MAX_RSS_MB="${MAX_RSS_MB:-300}"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT

# Small well-formed inputs the hostile files are combined with.
cat >"$W/abs.mlir" <<'EOF'
func.func @main(%x: tensor<2x2xf32> loc("x")) -> tensor<2x2xf32> {
  %y = tosa.abs %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
EOF
# Three 400 KB results: each fits a 1 MiB budget, the fast plan's activation arena (1.2 MB) does not.
cat >"$W/arena.mlir" <<'EOF'
func.func @main(%x: tensor<100000xf32> loc("x")) -> (tensor<100000xf32>, tensor<100000xf32>, tensor<100000xf32>) {
  %a = tosa.abs %x : (tensor<100000xf32>) -> tensor<100000xf32>
  %b = tosa.floor %x : (tensor<100000xf32>) -> tensor<100000xf32>
  %c = tosa.add %a, %b : (tensor<100000xf32>, tensor<100000xf32>) -> tensor<100000xf32>
  return %a, %b, %c : tensor<100000xf32>, tensor<100000xf32>, tensor<100000xf32>
}
EOF
# An image input (TPU-MLIR preprocessing recorded on the argument) and a 74-byte PNG claiming 32768x32768 RGB.
cat >"$W/img.mlir" <<'EOF'
func.func @main(%x: tensor<1x3x5x6xf32> {tosakit.preprocess = "{\"pixel_format\":\"rgb\",\"channel_format\":\"nchw\"}"} loc("x")) -> tensor<1x3x5x6xf32> {
  %y = tosa.identity %x : (tensor<1x3x5x6xf32>) -> tensor<1x3x5x6xf32> loc("y")
  return %y : tensor<1x3x5x6xf32>
}
EOF
/usr/bin/python3 - "$W" <<'EOF'
import struct, sys, zlib, numpy as np
w = sys.argv[1]
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
ihdr = struct.pack(">IIBBBBB", 32768, 32768, 8, 2, 0, 0, 0)
open(w + "/huge.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 1000)) +
                                  chunk(b"IEND", b""))
np.save(w + "/x.npy", np.array([[1, -2], [3, -4]], np.float32))
np.save(w + "/x1.npy", np.array([1], np.float32))
np.save(w + "/x100k.npy", np.linspace(-1, 1, 100000, dtype=np.float32))
EOF

status=0
printf '%-4s %-5s %-7s %-8s %s\n' exit lines seconds RSS_MB "case: message"
# check EXPECTED_EXIT LABEL ARGS...
check() {
  local want="$1" label="$2"
  shift 2
  rm -f "$W"/out.*
  /usr/bin/time -f "%e %M" -o "$W/time" "$T" "$@" >"$W/out" 2>&1
  local rc=$? secs kb lines msg
  read -r secs kb < <(tail -1 "$W/time")  # time -o prepends "Command exited with non-zero status N"
  lines=$(grep -vc '^Command exited' "$W/out")
  msg=$(grep -v '^Command exited' "$W/out" | head -1 | cut -c1-150)
  local leftover
  leftover=$(find "$W" -maxdepth 1 -name "out.*" | head -1)
  printf '%-4s %-5s %-7s %-8s %s: %s\n' "$rc" "$lines" "$secs" "$((kb / 1024))" "$label" "$msg"
  # A failure is one line and leaves no output; a success (want 0) prints what it prints.
  if [ "$rc" != "$want" ] || { [ "$want" != 0 ] && { [ "$lines" != 1 ] || [ -n "$leftover" ]; }; } ||
     awk -v s="$secs" -v m="$MAX_SECONDS" 'BEGIN { exit !(s > m) }' || [ "$((kb / 1024))" -gt "$MAX_RSS_MB" ]; then
    echo "  ^ MISSED (want exit $want, one line, no output file, <= ${MAX_SECONDS}s, <= ${MAX_RSS_MB} MB)"
    status=1
  fi
}

check 0 "baseline: a well-formed model" validate "$W/abs.mlir"
check 4 "issue input 1, validate" validate "$R/splat_4tb.mlir"
for b in ref fast; do
  check 4 "issue input 1, run --backend $b" run "$R/splat_4tb.mlir" --backend "$b" -o "$W/out.npz"
  check 4 "npy header 4 TB, run --backend $b" run "$W/abs.mlir" --backend "$b" --input "x=$R/header_4tb.npy" -o "$W/out.npz"
  check 4 "npz member 4 MiB (1M budget), run --backend $b" run "$W/abs.mlir" --backend "$b" --max-memory 1M \
    --inputs "$R/deflated_4mb.npz" -o "$W/out.npz"
  check 4 "tile result 1e12 (--level none), run --backend $b" run "$R/tile_result_4tb.mlir" --backend "$b" --level none \
    --input "x=$W/x1.npy" -o "$W/out.npz"
  check 4 "variable 4 TB (--level none), run --backend $b" run "$R/variable_4tb.mlir" --backend "$b" --level none \
    --extension variable -o "$W/out.npz"
  check 4 "SPIR-V constant 4 TB, run --backend $b" run "$R/const_4tb.spv" --backend "$b" --input "x=$R/header_4tb.npy" \
    -o "$W/out.npz"
  check 4 "bench --backend $b" bench "$R/splat_4tb.mlir" --backend "$b"
done
check 4 "fast plan arena (1M budget)" run "$W/arena.mlir" --backend fast --max-memory 1M --input "x=$W/x100k.npy" \
  -o "$W/out.npz"
check 0 "  same on the ref backend (per-tensor budget)" run "$W/arena.mlir" --backend ref --max-memory 1M \
  --input "x=$W/x100k.npy" -o "$W/out.npz"
rm -f "$W"/out.*
check 4 "issue input 1, convert .mlir" convert "$R/splat_4tb.mlir" "$W/out.mlir"
check 4 "issue input 1, convert .spv" convert "$R/splat_4tb.mlir" "$W/out.spv"
check 4 "dense_resource 4 TB" validate "$R/resource_4tb.mlir"
check 4 "i1 splat 1e12" validate "$R/splat_bool_huge.mlir"
check 4 "SPIR-V constant 4 TB" validate "$R/const_4tb.spv"
check 4 "SPIR-V constant 4 TB, convert" convert "$R/const_4tb.spv" "$W/out.mlir"
check 4 "SPIR-V sidecar member 4 TB" validate "$R/sidecar_4tb.spv"
check 4 "PNG header 32768x32768, run" run "$W/img.mlir" --input "x=$W/huge.png" -o "$W/out.npz"
check 4 "gen-data input 4 TB" gen-data --model "$R/input_4tb.mlir" -o "$W/out.npz"
check 4 "check --model 4 TB" check --model "$R/splat_4tb.mlir" --result "$W/x.npy" --reference "$W/x.npy"
check 4 "compare, member header 4 TB" compare "$R/sidecar_4tb.spv.npz" "$R/sidecar_4tb.spv.npz"
for f in constantofshape_4tb expand_4tb tile_4tb range_1e12 resize_huge initializer_4tb expand_input_4tb; do
  check 4 "import $f.onnx" import "$R/$f.onnx" -o "$W/out.mlir"
done
exit $status
