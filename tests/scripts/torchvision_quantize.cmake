# INT8 quantization of torchvision resnet18 with BatchNorm statistics recomputed on real photos
# (tests/scripts/torchvision_quantize.sh, issue 10): all-INT8 held-out output cosine >= 0.98, and
# `qtable --expected-cos 0.995` reaches 0.995 on held-out photos with at most 15% of the layers in float.
# Reduced for ctest (one model, 32 calibration and 8 held-out crops); the full run of both models:
#   TK=build/tools/tosakit/tosakit ROOT=. OUT=/tmp/q bash tests/scripts/torchvision_quantize.sh mobilenet_v2
# Skipped (77) without python3-torch/torchvision/skimage/sklearn/pil.
add_test(NAME quantize_torchvision_resnet18_accuracy
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/quantize-tests
          CALIB_CROPS=4 HELDOUT_CROPS=2 TUNE_NUM=2 QTABLE_NUM=8
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/torchvision_quantize.sh resnet18)
set_tests_properties(quantize_torchvision_resnet18_accuracy PROPERTIES TIMEOUT 1800 LABELS quantize
                     SKIP_RETURN_CODE 77)
