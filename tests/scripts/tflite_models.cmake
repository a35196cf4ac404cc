# TFLite import (issue 25): MediaPipe's trained float models imported and run on both backends on a real
# photograph, against TensorFlow Lite 2.9 itself (tools/tflite, installed by scripts/install-deps.sh; skipped,
# exit 77, without it). Face detection takes inputs in [-1, 1], the landmark models in [0, 1].
set(TFLITE_MEDIAPIPE ${CMAKE_SOURCE_DIR}/tools/tflite/node_modules/@mediapipe)
foreach(spec face_detection/face_detection_short_range:-1,1 face_detection/face_detection_full_range:-1,1
             face_detection/face_detection_full_range_sparse:-1,1 hands/hand_landmark_lite:0,1
             hands/hand_landmark_full:0,1 pose/pose_landmark_lite:0,1 pose/pose_landmark_full:0,1
             pose/pose_landmark_heavy:0,1)
  string(REPLACE ":" ";" parts ${spec})
  list(GET parts 0 model)
  list(GET parts 1 range)
  get_filename_component(name ${model} NAME)
  add_test(NAME tflite_${name}_vs_tflite
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/tflite/check_model.py --tosakit $<TARGET_FILE:tosakit>
            --model ${TFLITE_MEDIAPIPE}/${model}.tflite --out ${CMAKE_BINARY_DIR}/tflite-tests --range=${range})
  set_tests_properties(tflite_${name}_vs_tflite PROPERTIES TIMEOUT 600 LABELS "tflite;models" SKIP_RETURN_CODE 77)
endforeach()
# Selfie segmentation ends in MediaPipe's custom Convolution2DTransposeBias, which TFLite 2.9 lacks: TFLite runs
# the model with it replaced by the builtin TRANSPOSE_CONV + bias (tests/tflite/selfie_decomposed.py).
foreach(name selfie_segmentation selfie_segmentation_landscape)
  add_test(NAME tflite_${name}_vs_tflite
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/tflite/check_model.py --tosakit $<TARGET_FILE:tosakit>
            --model ${TFLITE_MEDIAPIPE}/selfie_segmentation/${name}.tflite --out ${CMAKE_BINARY_DIR}/tflite-tests
            --range=0,1 --decompose-custom)
  set_tests_properties(tflite_${name}_vs_tflite PROPERTIES TIMEOUT 600 LABELS "tflite;models" SKIP_RETURN_CODE 77)
endforeach()
# Hostile and malformed .tflite files (truncated, garbage, absurd shapes, indices out of range, bad sparse
# indices): `tosakit import` exits 4 with one line and writes nothing.
add_test(NAME tflite_hostile_files
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/tflite/check_hostile.py --tosakit $<TARGET_FILE:tosakit>
          --out ${CMAKE_BINARY_DIR}/tflite-tests/hostile)
set_tests_properties(tflite_hostile_files PROPERTIES TIMEOUT 300 LABELS tflite)
# Pre-quantized INT8 models op by op (tests/tflite/gen_quant_ops.py): written here, run on TFLite 2.9, imported
# and run on both backends; the outputs must equal TFLite's bit for bit.
add_test(NAME tflite_int8_ops_vs_tflite
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/tflite/gen_quant_ops.py --tosakit $<TARGET_FILE:tosakit>
          --out ${CMAKE_BINARY_DIR}/tflite-tests/int8 --repeats 2)
set_tests_properties(tflite_int8_ops_vs_tflite PROPERTIES TIMEOUT 1800 LABELS tflite SKIP_RETURN_CODE 77)
# Float operators one by one (tests/tflite/gen_float_ops.py), against TFLite 2.9 on both backends.
add_test(NAME tflite_float_ops_vs_tflite
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/tflite/gen_float_ops.py --tosakit $<TARGET_FILE:tosakit>
          --out ${CMAKE_BINARY_DIR}/tflite-tests/float)
set_tests_properties(tflite_float_ops_vs_tflite PROPERTIES TIMEOUT 1800 LABELS tflite SKIP_RETURN_CODE 77)
