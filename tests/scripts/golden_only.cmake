# The golden model builds and is tested without the fast backend (CMake option TOSAKIT_FAST=OFF, no oneDNN):
# tests/scripts/golden_only.sh in a scratch directory of the build tree.
add_test(NAME golden_only COMMAND ${CMAKE_SOURCE_DIR}/tests/scripts/golden_only.sh ${CMAKE_SOURCE_DIR}
                                  ${CMAKE_BINARY_DIR}/golden_only)
set_tests_properties(golden_only PROPERTIES TIMEOUT 3000)
