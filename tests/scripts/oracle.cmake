# Differential tests against upstream MLIR 22 (mlir-opt-22 + mlir-runner-22, Debian mlir-22-tools) and against
# independent numpy references. See docs/ORACLE.md. The scripts need /usr/bin/python3 with python3-numpy.
find_program(TOSAKIT_MLIR_OPT_22 mlir-opt-22)
find_program(TOSAKIT_MLIR_RUNNER_22 mlir-runner-22)
if(NOT TOSAKIT_MLIR_OPT_22 OR NOT TOSAKIT_MLIR_RUNNER_22 OR NOT EXISTS /usr/bin/python3)
  message(WARNING "oracle tests disabled: need mlir-opt-22, mlir-runner-22 (apt: mlir-22-tools) and /usr/bin/python3")
  tosakit_add_skipped_test(oracle "mlir-opt-22, mlir-runner-22 (mlir-22-tools) or /usr/bin/python3 missing")
  return()
endif()

set(_oracle_dir ${CMAKE_SOURCE_DIR}/tests/oracle)

# The hand-written int8 conv -> rescale -> clamp (+ fp32 conv -> add) model vs its independent numpy expected
# values (bit-exact for int8, dot-product bound for fp32) and vs MLIR 22.
add_test(NAME oracle_int8_conv_chain
  COMMAND /usr/bin/python3 ${_oracle_dir}/diff_harness.py --tosakit $<TARGET_FILE:tosakit> --fixture int8_conv_chain)

# Random single-op and small multi-op graphs from a fixed seed (about 230 cases; a few minutes on 2 cores).
add_test(NAME oracle_random_graphs
  COMMAND /usr/bin/python3 ${_oracle_dir}/random_graphs.py --tosakit $<TARGET_FILE:tosakit> --seed 20261122 --per-op 3)

# The same random graphs on the reference backend (the default above is the fast backend).
add_test(NAME oracle_random_graphs_ref
  COMMAND /usr/bin/python3 ${_oracle_dir}/random_graphs.py --tosakit $<TARGET_FILE:tosakit> --seed 20261122 --per-op 3
          --backend ref)

# Cases where upstream MLIR 22 deviates from the spec: tosakit must follow the spec, upstream must still differ.
add_test(NAME oracle_known_deviations
  COMMAND /usr/bin/python3 ${_oracle_dir}/diff_harness.py --tosakit $<TARGET_FILE:tosakit> --known-deviations)

set_tests_properties(oracle_int8_conv_chain oracle_random_graphs oracle_random_graphs_ref oracle_known_deviations PROPERTIES
  TIMEOUT 1200 LABELS oracle FAIL_REGULAR_EXPRESSION "[1-9][0-9]* failed")
