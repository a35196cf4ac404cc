#!/usr/bin/env bash
# bench/vs_tflite.sh — median latency of tosakit's fast backend vs TensorFlow Lite 2.9 on MediaPipe's .tflite models,
# measured alternately in one run (TFLite, tosakit fp32, tosakit INT8, TFLite, ... per round) at 1 and 2 threads,
# printed as a table of medians and ratios (tosakit / TFLite; below 1 means tosakit is faster).
#
#   bench/vs_tflite.sh [--models "face_detection_short_range hand_landmark_lite ..."] [--threads "1 2"]
#                      [--rounds 3] [--warmup 3] [--iterations 20] [--tosakit build/tools/tosakit/tosakit]
#                      [--work /tmp/tosakit-vs-tflite] [--no-int8]   (environment: CALIBRATE_ARGS)
#
# TFLite is libtensorflowlite_c.so of tools/tflite (scripts/install-deps.sh) driven by tools/tflite/run_tflite.py
# --bench, with its XNNPACK delegate (TFLite's fast float kernels; the library's default kernels re-run every
# fp16 DEQUANTIZE per invocation and are ~50x slower on these models). tosakit runs `tosakit bench IMPORTED.mlir
# --backend fast --json` on `tosakit import` of the same file. The input is scikit-image's astronaut photograph
# at the model's size, in the model's range. Selfie segmentation: TFLite runs the model with the custom
# Convolution2DTransposeBias replaced by the builtin TRANSPOSE_CONV (tests/tflite/selfie_decomposed.py).
# INT8 (off with --no-int8): the documented flow for these models (docs/QUANTIZATION.md, "Trained MediaPipe
# networks"): `tosakit calibrate` on four other scikit-image photographs with $CALIBRATE_ARGS (default the
# recipe, `--method percentile9999 --equalize-activations --bc`) writing the rewritten model, and `tosakit
# quantize --quantize INT8` of that model (fp32 in/out), timed in the same rounds; its ratio is to TFLite's fp32.
# Nothing is written inside the source tree.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODELS="face_detection_short_range face_detection_full_range hand_landmark_lite hand_landmark_full pose_landmark_lite pose_landmark_full selfie_segmentation"
THREADS="1 2"
ROUNDS=3
WARMUP=3
ITERATIONS=20
TK="${TK:-$ROOT/build/tools/tosakit/tosakit}"
WORK="${WORK:-/tmp/tosakit-vs-tflite}"
INT8=1
CALIBRATE_ARGS="${CALIBRATE_ARGS:---method percentile9999 --equalize-activations --bc}"
PY=/usr/bin/python3
MP="$ROOT/tools/tflite/node_modules/@mediapipe"

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --models) MODELS="$2"; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --iterations) ITERATIONS="$2"; shift 2 ;;
    --tosakit) TK="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --no-int8) INT8=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "vs_tflite: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -x "$TK" ] || { echo "vs_tflite: tosakit binary not found at $TK (build it or pass --tosakit)" >&2; exit 4; }
[ -d "$MP" ] || { echo "vs_tflite: $MP missing: run scripts/install-deps.sh" >&2; exit 4; }
mkdir -p "$WORK"
LOG="$WORK/log.txt"
: > "$LOG"

declare -A FILE ORACLE RANGE SKIP SKIP_INT8
prepare() {
  local m="$1" dir
  case "$m" in
    face_detection_*) dir=face_detection; RANGE[$m]=-1,1 ;;
    hand_landmark_*) dir=hands; RANGE[$m]=0,1 ;;
    pose_landmark_*) dir=pose; RANGE[$m]=0,1 ;;
    selfie_segmentation*) dir=selfie_segmentation; RANGE[$m]=0,1 ;;
    *) SKIP[$m]="unknown model"; return ;;
  esac
  FILE[$m]="$MP/$dir/$m.tflite"
  [ -f "${FILE[$m]}" ] || { SKIP[$m]="${FILE[$m]} not found"; return; }
  ORACLE[$m]="${FILE[$m]}"
  if [[ "$m" == selfie_segmentation* ]]; then
    ORACLE[$m]="$WORK/$m.decomposed.tflite"
    "$PY" "$ROOT/tests/tflite/selfie_decomposed.py" "${FILE[$m]}" "${ORACLE[$m]}" >>"$LOG" 2>&1 || { SKIP[$m]="decomposition failed"; return; }
  fi
  "$TK" import "${FILE[$m]}" -o "$WORK/$m.mlir" >>"$LOG" 2>&1 || { SKIP[$m]="tosakit import failed (see $LOG)"; return; }
  # The bench input (astronaut) and four calibration photographs, at the model's input size and range.
  "$PY" - "$ROOT" "${ORACLE[$m]}" "$WORK/$m" "${RANGE[$m]}" <<'PYEOF' >>"$LOG" 2>&1 || { SKIP[$m]="input generation failed (see $LOG)"; return; }
import os, sys
import numpy as np
root, model, base, rng = sys.argv[1:5]
sys.path[:0] = [os.path.join(root, "tests", "tflite"), os.path.join(root, "tools", "tflite")]
from check_model import photo
import run_tflite
lo, hi = (float(v) for v in rng.split(","))
lib = run_tflite.load_library()
m = lib.TfLiteModelCreateFromFile(model.encode())
o = lib.TfLiteInterpreterOptionsCreate()
it = lib.TfLiteInterpreterCreate(m, o)
name, _, shape, _ = run_tflite.describe(lib, lib.TfLiteInterpreterGetInputTensor(it, 0))
np.savez(base + ".input.npz", **{name: photo("astronaut", shape, lo, hi)})
os.makedirs(base + ".calib", exist_ok=True)
for img in ("coffee", "chelsea", "rocket", "immunohistochemistry"):
    np.savez(f"{base}.calib/{img}.npz", **{name: photo(img, shape, lo, hi)})
PYEOF
  if [ "$INT8" = 1 ]; then
    # --bc / --equalize-activations rewrite the weights: the table belongs to the rewritten model, quantized here
    rm -f "$WORK/$m.calibrated.mlir"
    # shellcheck disable=SC2086
    if ! "$TK" calibrate "$WORK/$m.mlir" --dataset "$WORK/$m.calib" $CALIBRATE_ARGS \
         --output-model "$WORK/$m.calibrated.mlir" -o "$WORK/$m.cali.txt" >>"$LOG" 2>&1; then
      SKIP_INT8[$m]="calibrate failed"
    elif ! "$TK" quantize "$([ -f "$WORK/$m.calibrated.mlir" ] && echo "$WORK/$m.calibrated.mlir" || echo "$WORK/$m.mlir")" \
         --quantize INT8 --calibration-table "$WORK/$m.cali.txt" -o "$WORK/$m.int8.mlir" >>"$LOG" 2>&1; then
      SKIP_INT8[$m]="quantize failed"
    fi
  fi
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR==0) print ""; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
json_median() { tail -n 1 | "$PY" -c "import json,sys; print(round(json.loads(sys.stdin.read())['latency_ms']['median'], 3))" 2>/dev/null; }
run_tflite() {  # model threads
  "$PY" "$ROOT/tools/tflite/run_tflite.py" "${ORACLE[$1]}" --inputs "$WORK/$1.input.npz" --threads "$2" --xnnpack \
    --warmup "$WARMUP" --bench "$ITERATIONS" 2>>"$LOG" | tee -a "$LOG" | json_median
}
run_tosakit() {  # model threads [model file]
  "$TK" bench "${3:-$WORK/$1.mlir}" --backend fast --threads "$2" --inputs "$WORK/$1.input.npz" \
    --warmup "$WARMUP" --iterations "$ITERATIONS" --json 2>>"$LOG" | tee -a "$LOG" | json_median
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}' || echo "n/a"; }

echo "tosakit: $("$TK" version | sed -n 's/^fast backend ISA: /fast backend ISA /p'); TFLite 2.9 with XNNPACK"
echo "| model | threads | TFLite fp32 (ms) | tosakit fp32 (ms) | fp32 / TFLite | tosakit INT8 (ms) | INT8 / TFLite fp32 |"
echo "|---|---|---|---|---|---|---|"
for m in $MODELS; do
  prepare "$m"
  if [ -n "${SKIP[$m]:-}" ]; then echo "| $m | | skipped: ${SKIP[$m]} | | | | |"; continue; fi
  for t in $THREADS; do
    tfl=(); tk=(); q=()
    for ((r = 0; r < ROUNDS; r++)); do
      v=$(run_tflite "$m" "$t"); [ -n "$v" ] && tfl+=("$v")
      v=$(run_tosakit "$m" "$t"); [ -n "$v" ] && tk+=("$v")
      if [ "$INT8" = 1 ] && [ -z "${SKIP_INT8[$m]:-}" ]; then
        v=$(run_tosakit "$m" "$t" "$WORK/$m.int8.mlir"); [ -n "$v" ] && q+=("$v")
      fi
    done
    mt=$(median "${tfl[@]}"); mk=$(median "${tk[@]}"); mq=$(median "${q[@]}")
    qcell="$mq"; [ -n "${SKIP_INT8[$m]:-}" ] && qcell="skipped: ${SKIP_INT8[$m]}"
    echo "| $m | $t | $mt | $mk | $(ratio "$mk" "$mt") | $qcell | $(ratio "$mq" "$mt") |"
  done
done
