# No file of the tree names a path outside the clone (scripts/check-outside-paths.sh).
add_test(NAME no_outside_paths COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-outside-paths.sh)
