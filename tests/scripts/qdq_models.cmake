# Pre-quantized QDQ ONNX models (PyTorch eager-mode PTQ, torch.onnx.export) folded to integer TOSA at import,
# checked against live ONNX Runtime on a real photograph (tests/qdq/qdq_vs_ort.sh; exit 77 = skipped).
foreach(qdq_model small_cnn resnet18 mobilenet_v2)
  add_test(NAME qdq_${qdq_model}_vs_onnxruntime
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/model-tests
            bash ${CMAKE_SOURCE_DIR}/tests/qdq/qdq_vs_ort.sh ${qdq_model})
  set_tests_properties(qdq_${qdq_model}_vs_onnxruntime PROPERTIES TIMEOUT 1200 LABELS models SKIP_RETURN_CODE 77)
endforeach()
