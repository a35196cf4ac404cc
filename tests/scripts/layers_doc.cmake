# docs/ARCHITECTURE.md's library dependency graph matches CMake's (tests/scripts/layers_doc.sh).
add_test(NAME layers_doc COMMAND ${CMAKE_SOURCE_DIR}/tests/scripts/layers_doc.sh ${CMAKE_SOURCE_DIR}
                                 ${CMAKE_BINARY_DIR}/layers_doc)
