# No file of the tree names a path outside the clone (scripts/check-outside-paths.sh).
add_test(NAME no_outside_paths COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-outside-paths.sh)
# scripts/check-skips.py (the skip count scripts/test.sh runs after ctest) on a hand-written ctest report.
add_test(NAME check_skips COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/scripts/check_skips_test.py)
