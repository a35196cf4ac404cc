# `tosakit check` without --mode on randomized single-op graphs (every float operator, f32/f16/bf16, fixed
# seeds): tosakit's and upstream MLIR 22's results are compliant, results moved to 8x the spec bound are not
# (tests/compliance/check_random_ops.py; docs/COMPLIANCE.md). Needs mlir-22-tools and /usr/bin/python3.
find_program(TOSAKIT_CHECK_MLIR_RUNNER_22 mlir-runner-22)
if(TOSAKIT_CHECK_MLIR_RUNNER_22 AND EXISTS /usr/bin/python3)
  add_test(NAME check_random_ops
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/compliance/check_random_ops.py --tosakit $<TARGET_FILE:tosakit>
            --seed 20261125 --per-op 2)
  set_tests_properties(check_random_ops PROPERTIES TIMEOUT 1800 LABELS oracle
                       FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed")
endif()
# One inexact operator followed by 1-3 data-movement ops (pad, concat, reshape, slice, transpose, tile, reverse,
# gather, scatter, identity): compliant as computed, NOT compliant moved past the source element's bound
# (tests/compliance/check_movement_diff.py).
if(TOSAKIT_CHECK_MLIR_RUNNER_22 AND EXISTS /usr/bin/python3)
  add_test(NAME check_movement_diff
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/compliance/check_movement_diff.py --tosakit $<TARGET_FILE:tosakit>
            --seed 20261129 --cases 40)
  set_tests_properties(check_movement_diff PROPERTIES TIMEOUT 1800 LABELS oracle
                       FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed")
endif()
# FFT2D/RFFT2D on more seeds (local_bound true and false): upstream MLIR 22's results, which calculate the
# RFFT2D imaginary terms at a = pi the pseudocode leaves out, are compliant; moved past the bound they are not
# (docs/COMPLIANCE.md, "FFT2D and RFFT2D bounds").
if(TOSAKIT_CHECK_MLIR_RUNNER_22 AND EXISTS /usr/bin/python3)
  add_test(NAME check_fft_mlir22
    COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/compliance/check_random_ops.py --tosakit $<TARGET_FILE:tosakit>
            --seed 20261129 --per-op 8 --ops rfft2d,fft2d --types f32)
  set_tests_properties(check_fft_mlir22 PROPERTIES TIMEOUT 1200 LABELS oracle
                       FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed")
endif()
