# One whole-model test: tests/qdq/SCRIPT MODEL LIMIT, labelled models, skipped on exit 77.
function(tosakit_qdq_model_test name script model limit)
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/model-tests
            bash ${CMAKE_SOURCE_DIR}/tests/qdq/${script} ${model} ${limit})
  set_tests_properties(${name} PROPERTIES TIMEOUT 1200 LABELS models SKIP_RETURN_CODE 77)
endfunction()
# Pre-quantized QDQ ONNX models (PyTorch eager-mode PTQ; _qat: quantization-aware training; _fx: FX graph mode
# PTQ; torch.onnx.export) folded to integer TOSA at import, checked against live ONNX Runtime on a real photograph (tests/qdq/qdq_vs_ort.sh; exit 77 = skipped).
# Largest output difference of the integer-only fold, in output LSB (docs/ONNX.md): ORT's float requantization
# is off by one step near rounding ties, and mobilenet_v2's 52 layers carry such steps on (FX resnet18: its
# float QLinearAdd differs from the exact integer add near ties too).
foreach(qdq_case small_cnn:1 resnet18:1 mobilenet_v2:4 small_cnn_qat:1 small_cnn_fx:1 mobilenet_v2_qat:1
        resnet18_fx:2)
  string(REPLACE ":" ";" qdq_pair ${qdq_case})
  list(GET qdq_pair 0 qdq_model)
  list(GET qdq_pair 1 qdq_lsb)
  tosakit_qdq_model_test(qdq_${qdq_model}_vs_onnxruntime qdq_vs_ort.sh ${qdq_model} ${qdq_lsb})
endforeach()
# Malformed QDQ parameters: one-line error, exit 4, no output (tests/qdq/malformed_qdq.sh).
add_test(NAME qdq_malformed_cli
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/model-tests
          bash ${CMAKE_SOURCE_DIR}/tests/qdq/malformed_qdq.sh)
set_tests_properties(qdq_malformed_cli PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
# One small QDQ model per folded op pattern (tables, Mul, Concat, AveragePool, Softmax, Resize, int16), against live ONNX
# Runtime (tests/qdq/qdq_ops_vs_ort.sh).
add_test(NAME qdq_ops_vs_onnxruntime
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/model-tests
          bash ${CMAKE_SOURCE_DIR}/tests/qdq/qdq_ops_vs_ort.sh)
set_tests_properties(qdq_ops_vs_onnxruntime PROPERTIES TIMEOUT 1200 SKIP_RETURN_CODE 77)
# QDQ export round trip: tosakit calibrate + export-qdq of a float PyTorch model, run by live ONNX Runtime and
# re-imported (tests/qdq/export_qdq_vs_ort.sh). Second field: the largest output difference of `--qdq fold` vs
# ONNX Runtime relative to the output's range (measured: 0 on both, the last layer's float scaling aside).
foreach(qdq_case small_cnn:1e-5 resnet18:1e-5)
  string(REPLACE ":" ";" qdq_pair ${qdq_case})
  list(GET qdq_pair 0 qdq_model)
  list(GET qdq_pair 1 qdq_rel)
  tosakit_qdq_model_test(qdq_export_${qdq_model}_vs_onnxruntime export_qdq_vs_ort.sh ${qdq_model} ${qdq_rel})
endforeach()
