# The bundled models, as the README's main command runs them (scripts/demo.sh without the set-up steps).
add_test(NAME model_ppocr_cls_vs_onnxruntime
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/model-tests
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/model_ppocr_cls.sh)
set_tests_properties(model_ppocr_cls_vs_onnxruntime PROPERTIES TIMEOUT 600 LABELS models SKIP_RETURN_CODE 77)
add_test(NAME model_default_int8
  COMMAND bash -c "set -e; mkdir -p ${CMAKE_BINARY_DIR}/model-tests; $<TARGET_FILE:tosakit> run ${CMAKE_SOURCE_DIR}/models/default/model.mlir --inputs ${CMAKE_SOURCE_DIR}/models/default/inputs.npz -o ${CMAKE_BINARY_DIR}/model-tests/default.out.npz && /usr/bin/python3 ${CMAKE_SOURCE_DIR}/models/default/check.py ${CMAKE_BINARY_DIR}/model-tests/default.out.npz ${CMAKE_SOURCE_DIR}/models/default/expected.npz")
set_tests_properties(model_default_int8 PROPERTIES TIMEOUT 300 LABELS models)
# torchvision classifiers with random weights, exported by PyTorch and checked against live ONNX Runtime
# (skipped, exit 77, without python3-torch/torchvision or onnxruntime-node: scripts/install-deps.sh).
foreach(tv_model resnet18 mobilenet_v2)
  add_test(NAME model_torchvision_${tv_model}_vs_onnxruntime
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/model-tests
            bash ${CMAKE_SOURCE_DIR}/tests/scripts/torchvision_models.sh ${tv_model})
  set_tests_properties(model_torchvision_${tv_model}_vs_onnxruntime PROPERTIES TIMEOUT 1200 LABELS models
                       SKIP_RETURN_CODE 77)
endforeach()
