# tosakit info / cut / graph on real models (issue 26), ctest label `inspect`.
foreach(tv_model resnet50 mobilenet_v2)
  add_test(NAME inspect_info_torchvision_${tv_model}
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/inspect-tests
            bash ${CMAKE_SOURCE_DIR}/tests/scripts/inspect_torchvision.sh ${tv_model})
  set_tests_properties(inspect_info_torchvision_${tv_model} PROPERTIES TIMEOUT 900 LABELS inspect SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME inspect_cut_ppocr_cls
  COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/inspect-tests
          bash ${CMAKE_SOURCE_DIR}/tests/scripts/inspect_cut_ppocr.sh)
set_tests_properties(inspect_cut_ppocr_cls PROPERTIES TIMEOUT 900 LABELS inspect)
foreach(graph_model resnet50 ppocr_cls_int8)
  add_test(NAME inspect_graph_${graph_model}
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/inspect-tests
            bash ${CMAKE_SOURCE_DIR}/tests/scripts/inspect_graph.sh ${graph_model})
  set_tests_properties(inspect_graph_${graph_model} PROPERTIES TIMEOUT 900 LABELS inspect SKIP_RETURN_CODE 77)
endforeach()
foreach(visual_model ppocr_cls resnet50)
  add_test(NAME inspect_visual_${visual_model}_browser
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR} OUT=${CMAKE_BINARY_DIR}/inspect-tests
            bash ${CMAKE_SOURCE_DIR}/tests/scripts/inspect_visual.sh ${visual_model})
  set_tests_properties(inspect_visual_${visual_model}_browser PROPERTIES TIMEOUT 1200 LABELS inspect SKIP_RETURN_CODE 77)
endforeach()
