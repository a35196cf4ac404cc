# INT8 quantized PaddleOCR classifier (symmetric and asymmetric): `run --backend fast` and `--backend ref` give
# byte-identical outputs and intermediates (tests/scripts/quantize_fast_exact.sh).
add_test(NAME quantize_fast_exact
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/quantize-tests
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/quantize_fast_exact.sh)
set_tests_properties(quantize_fast_exact PROPERTIES TIMEOUT 900 LABELS quantize)
