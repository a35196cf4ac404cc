# quantize INT8 writes a conv whose only consumer is a ReLU/ReLU6 on that clamp's unsigned grid (TPU-MLIR
# 6.1.2), codes checked against numpy (tests/quantize/test_quant_fused_relu.sh / .py).
add_test(NAME quantize_fused_relu_unsigned_grid
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/quantize-tests
          bash ${CMAKE_SOURCE_DIR}/tests/quantize/test_quant_fused_relu.sh)
set_tests_properties(quantize_fused_relu_unsigned_grid PROPERTIES TIMEOUT 300 LABELS quantize)
