#!/usr/bin/env bash
# MediaPipe's trained float models through the quantizer, strictly as a user runs it (issue 25 item 6;
# docs/QUANTIZATION.md, "Trained MediaPipe networks"): `tosakit import` with the model's preprocessing,
# `calibrate` on real photographs, `quantize --quantize INT8`, `run` float and INT8 on held-out photographs,
# and mediapipe_quantize_eval.py for the output cosine and the box / landmark pixel errors.
#
#   TK=build/tools/tosakit/tosakit ROOT=. OUT=/tmp/mp bash tests/scripts/mediapipe_quantize.sh MODEL...
#
# MODEL: face_detection_short_range face_detection_full_range hand_landmark_lite hand_landmark_full
# pose_landmark_lite pose_landmark_full (default: all six). Environment: CALIB (calibration photographs, 32),
# HELDOUT (12), CALIBRATE_ARGS (default "--method percentile9999 --equalize-activations --bc"),
# QUANTIZE_ARGS (extra `quantize` flags), QTABLE=1 runs `tosakit qtable --expected-cos $QTABLE_COS` (default
# 0.99, on the calibration photographs, the goal's outputs) for a model below the goal and quantizes again with
# its table, QTABLE_ARGS (more qtable flags, e.g. "--fp-type INT16 --max-float-layers 20"), MAX_PX
# (pixel error bound, default 3), EVAL_ARGS (more mediapipe_quantize_eval.py flags, e.g.
# "--min-cos-for classificators=0.96"). Exit 0 when every model meets the goal, 1 otherwise, 77 when the
# MediaPipe models (npm, tools/tflite) or the photographs' packages are missing.
set -uo pipefail
TK="${TK:?TK=path/to/tosakit}"
ROOT="${ROOT:-.}"
OUT="${OUT:?OUT=work directory}"
PY=/usr/bin/python3
MP="$ROOT/tools/tflite/node_modules/@mediapipe"
CALIB="${CALIB:-32}"
HELDOUT="${HELDOUT:-12}"
CALIBRATE_ARGS="${CALIBRATE_ARGS:---method percentile9999 --equalize-activations --bc}"
QUANTIZE_ARGS="${QUANTIZE_ARGS:-}"
QTABLE_ARGS="${QTABLE_ARGS:-}"
MAX_PX="${MAX_PX:-3}"
MODELS=("$@")
[ ${#MODELS[@]} -gt 0 ] || MODELS=(face_detection_short_range face_detection_full_range hand_landmark_lite
  hand_landmark_full pose_landmark_lite pose_landmark_full)

if [ ! -d "$MP/face_detection" ]; then
  echo "SKIP: the MediaPipe models are not installed (scripts/install-deps.sh: npm ci in tools/tflite)"
  exit 77
fi
if ! $PY -c "import skimage.data, sklearn.datasets, PIL" 2>/dev/null; then
  echo "SKIP: python3-skimage, python3-sklearn or python3-pil is missing (scripts/install-deps.sh)"
  exit 77
fi
mkdir -p "$OUT"

# package/file, photograph kind, input size, import preprocessing: face detection takes [-1, 1], the
# landmark models [0, 1] (MediaPipe's ImageToTensorCalculator ranges in their graphs); then the outputs the goal
# names (qtable --outputs): face detection both, landmark models the landmarks and the world landmarks.
spec() {
  case "$1" in
    face_detection_short_range) echo "face_detection face 128 127.5 0.0078431373 input regressors,classificators" ;;
    face_detection_full_range)
      echo "face_detection face 192 127.5 0.0078431373 input reshaped_regressor_face_4,reshaped_classifier_face_4" ;;
    hand_landmark_*) echo "hands hand 224 0 0.0039215686 input_1 Identity,Identity_3" ;;
    pose_landmark_*) echo "pose pose 256 0 0.0039215686 input_1 Identity,Identity_4" ;;
    *) return 1 ;;
  esac
}

status=0
for m in "${MODELS[@]}"; do
  read -r pkg kind size mean scale input goal <<<"$(spec "$m")" || { echo "unknown model $m"; exit 2; }
  W="$OUT/$m"
  mkdir -p "$W"
  photos="$OUT/photos_${kind}_$size"
  if [ ! -d "$photos/heldout" ]; then
    $PY "$ROOT/tests/scripts/mediapipe_photos.py" "$kind" "$size" "$photos" --calib "$CALIB" --heldout "$HELDOUT" ||
      exit 1
  fi
  "$TK" import "$MP/$pkg/$m.tflite" -o "$W/float.mlir" --mean "$mean,$mean,$mean" \
    --scale "$scale,$scale,$scale" --pixel-format rgb --channel-format nhwc >/dev/null || exit 1
  # Weight rewrites (--we, --bc, --equalize-activations) write the model to quantize; the float reference stays
  # the imported model.
  rm -f "$W/calibrated.mlir"
  # shellcheck disable=SC2086  # CALIBRATE_ARGS is a list of flags, split on purpose
  "$TK" calibrate "$W/float.mlir" --dataset "$photos/calib" $CALIBRATE_ARGS --output-model "$W/calibrated.mlir" \
    -o "$W/cali.txt" >"$W/calibrate.log" 2>&1 || { cat "$W/calibrate.log"; exit 1; }
  qsrc="$W/float.mlir"
  [ ! -f "$W/calibrated.mlir" ] || qsrc="$W/calibrated.mlir"
  qtable_args=()
  for round in 1 2; do
    # shellcheck disable=SC2086
    "$TK" quantize "$qsrc" --quantize INT8 --calibration-table "$W/cali.txt" "${qtable_args[@]}" \
      $QUANTIZE_ARGS -o "$W/int8.mlir" >/dev/null || exit 1
    rm -rf "$W/float_out" "$W/int8_out"
    mkdir -p "$W/float_out" "$W/int8_out"
    for img in "$photos"/heldout/*.png; do
      n=$(basename "$img" .png)
      "$TK" run "$W/float.mlir" --input "$input=$img" -o "$W/float_out/$n.npz" >/dev/null || exit 1
      "$TK" run "$W/int8.mlir" --input "$input=$img" -o "$W/int8_out/$n.npz" >/dev/null || exit 1
    done
    label="$m"
    [ "$round" = 1 ] || label="$m+qtable"
    # shellcheck disable=SC2086  # EVAL_ARGS is a list of flags, split on purpose
    if $PY "$ROOT/tests/scripts/mediapipe_quantize_eval.py" "$kind" "$W/float_out" "$W/int8_out" --label "$label" \
      --max-px "$MAX_PX" ${EVAL_ARGS:-}; then
      break
    fi
    if [ "$round" = 2 ] || [ "${QTABLE:-0}" != 1 ]; then
      status=1
      break
    fi
    # shellcheck disable=SC2086
    "$TK" qtable "$qsrc" --dataset "$photos/calib" --calibration-table "$W/cali.txt" --expected-cos "${QTABLE_COS:-0.99}" \
      --outputs "$goal" --input-num 8 $QTABLE_ARGS -o "$W/qtable.txt" >"$W/qtable.log" 2>&1 || { cat "$W/qtable.log"; exit 1; }
    grep "layers in" "$W/qtable.log"
    echo "$m qtable: $(grep -c -v '^#' "$W/qtable.txt") float layers: $(grep -v '^#' "$W/qtable.txt" | awk '{print $1}' | tr '\n' ' ')"
    qtable_args=(--quantize-table "$W/qtable.txt")
  done
done
exit $status
