# Every C++ source is formatted as .clang-format says (scripts/check-format.sh; --fix rewrites).
add_test(NAME format_check COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-format.sh)
