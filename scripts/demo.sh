#!/usr/bin/env bash
# The main job on the bundled default model: set up, build, then take a real ONNX model (PaddleOCR's mobile
# text-direction classifier, real weights) to TOSA, run it on the fast backend (the default) and check it against
# ONNX Runtime's output; quantize it to INT8 as the README's quantization flow does; then run the bundled
# hand-written int8 TOSA model against an independent calculation.
#
# Only what this needs is installed (scripts/install-deps.sh --demo) and built (the `tosakit` target, tests and
# benchmarks not configured); each stage's time is printed at the end. scripts/test.sh installs and builds the rest.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build}"
STAGES=()
START=$(date +%s)
stage_start=$START
stage_cpu=0
TIMES="$(mktemp)"
trap 'rm -f "$TIMES"' EXIT
# Sets CPU_NOW to the CPU seconds (user + system) of every child process so far: bash's `times`, run in this
# shell (in a command substitution it would count the subshell's children only).
cpu_now() {
  times >"$TIMES"
  CPU_NOW=$(tail -1 "$TIMES" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, p, /[ms]/); t += p[1] * 60 + p[2] } printf "%d", t }')
}
# Records the wall time (and the CPU time, which a machine shared with other jobs does not inflate) since the
# previous stage ended under the name $1.
stage_done() {
  local now
  now=$(date +%s)
  cpu_now
  STAGES+=("$(printf '%-8s %4d s  (CPU %d s)' "$1" $((now - stage_start)) $((CPU_NOW - stage_cpu)))")
  stage_start=$now
  stage_cpu=$CPU_NOW
}

"$ROOT/scripts/install-deps.sh" --demo
stage_done packages
LAUNCHER=()
if command -v ccache >/dev/null 2>&1; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOSAKIT_BUILD_TESTS=OFF \
  -DTOSAKIT_BUILD_BENCH=OFF "${LAUNCHER[@]}"
ninja -C "$BUILD" -j "${JOBS:-$(nproc)}" tosakit
stage_done build
TK="$BUILD/tools/tosakit/tosakit"
OUT="$BUILD/demo"
mkdir -p "$OUT"

echo "== tosakit import models/ppocr_cls/model.onnx (verified against ONNX Runtime on the bundled input)"
"$TK" import "$ROOT/models/ppocr_cls/model.onnx" -o "$OUT/ppocr_cls.mlir" --input-shape x=1x3x48x192 \
  --test-input "$ROOT/models/ppocr_cls/input.npz" --test-reference "$ROOT/models/ppocr_cls/ort_output.npz" \
  --tolerance 0.99999,0.999
echo "== tosakit validate"
"$TK" validate "$OUT/ppocr_cls.mlir"
echo "== tosakit run (every layer's output kept in $OUT/ppocr_cls.layers.npz)"
"$TK" run "$OUT/ppocr_cls.mlir" --inputs "$ROOT/models/ppocr_cls/input.npz" -o "$OUT/ppocr_cls.out.npz" \
  --dump-intermediates "$OUT/ppocr_cls.layers.npz"
echo "== compare with ONNX Runtime"
/usr/bin/python3 "$ROOT/models/compare.py" "$OUT/ppocr_cls.out.npz" "$ROOT/models/ppocr_cls/ort_output.npz"

echo "== quantization flow (README): import with preprocessing, calibrate on 16 text lines, INT8, compare"
CLS="$ROOT/models/ppocr_cls"
"$TK" import "$CLS/model.onnx" --input-shape x=1x3x48x192 \
  --mean 127.5,127.5,127.5 --scale 0.0078431,0.0078431,0.0078431 --pixel-format rgb -o "$OUT/q_cls.mlir"
"$TK" calibrate "$OUT/q_cls.mlir" --dataset "$CLS/calib" -o "$OUT/q_cali.txt"
"$TK" quantize "$OUT/q_cls.mlir" --quantize INT8 --calibration-table "$OUT/q_cali.txt" \
  --test-input "$CLS/test_line.png" --test-reference "$CLS/test_line_ort.npz" --tolerance 0.98,0.9 -o "$OUT/q_cls_int8.mlir"
"$TK" run "$OUT/q_cls.mlir" --input "x=$CLS/test_line.png" -o "$OUT/q_f.npz" --dump-intermediates "$OUT/q_f_layers.npz"
"$TK" run "$OUT/q_cls_int8.mlir" --input "x=$CLS/test_line.png" -o "$OUT/q_q.npz" --dump-intermediates "$OUT/q_q_layers.npz"
"$TK" compare "$OUT/q_f_layers.npz" "$OUT/q_q_layers.npz" --dequantize "$OUT/q_cls_int8.mlir" --tolerance 0.95,0.6 \
  --html "$OUT/q_report.html"

echo "== int8 TOSA model: tosakit run models/default/model.mlir"
"$TK" validate "$ROOT/models/default/model.mlir"
"$TK" run "$ROOT/models/default/model.mlir" --inputs "$ROOT/models/default/inputs.npz" -o "$OUT/default.out.npz"
/usr/bin/python3 "$ROOT/models/default/check.py" "$OUT/default.out.npz" "$ROOT/models/default/expected.npz"
stage_done run
echo "demo: time per stage"
printf '  %s\n' "${STAGES[@]}"
cpu_now
printf '  %-8s %4d s  (CPU %d s)\n' total $(($(date +%s) - START)) "$CPU_NOW"
echo "demo: PASS"
