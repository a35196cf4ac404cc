# Quantization end to end on a CNN trained on sklearn's digits (tests/scripts/digits_quantize.sh): held-out
# accuracy of INT8 sym/asym, INT16 and BF16 against float. Skipped (77) without python3-torch/sklearn.
add_test(NAME quantize_digits_accuracy
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/quantize-tests
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/digits_quantize.sh)
set_tests_properties(quantize_digits_accuracy PROPERTIES TIMEOUT 1200 LABELS quantize SKIP_RETURN_CODE 77)
# compare --html rendered by headless Chromium (tests/quantize/test_compare_html.sh); skipped without chromium.
add_test(NAME quantize_compare_html_renders
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> OUT=${CMAKE_BINARY_DIR}/quantize-tests
          bash ${CMAKE_SOURCE_DIR}/tests/quantize/test_compare_html.sh)
set_tests_properties(quantize_compare_html_renders PROPERTIES TIMEOUT 300 LABELS quantize SKIP_RETURN_CODE 77)
