# Fuzz smoke (issue 13; docs/FUZZING.md "CI"): scripts/fuzz_smoke.sh builds the libFuzzer harnesses of tests/fuzz
# with clang (ASan + UBSan, -O0) in BUILD/fuzz (fuzz_build, which takes both cores while it compiles), then each
# harness runs 20 s over its seed corpus and the regression inputs under -rss_limit_mb / -malloc_limit_mb.
# Skipped (exit 77) without clang + libFuzzer. `ctest -LE fuzz` leaves them out.
# A main build configured with -DTOSAKIT_FUZZ=ON (clang) defines its own fuzz_smoke_* tests (tests/fuzz).
if(NOT TOSAKIT_FUZZ)
  set(TOSAKIT_FUZZ_SMOKE_DIR ${CMAKE_BINARY_DIR}/fuzz)
  add_test(NAME fuzz_build COMMAND ${CMAKE_SOURCE_DIR}/scripts/fuzz_smoke.sh build ${TOSAKIT_FUZZ_SMOKE_DIR})
  set_tests_properties(fuzz_build PROPERTIES LABELS fuzz FIXTURES_SETUP fuzz_harnesses SKIP_RETURN_CODE 77
                       PROCESSORS 2 TIMEOUT 3000)
  foreach(name npy spirv mlir onnx compliance tflite)
    add_test(NAME fuzz_smoke_${name}
             COMMAND ${CMAKE_SOURCE_DIR}/scripts/fuzz_smoke.sh run ${TOSAKIT_FUZZ_SMOKE_DIR} ${name})
    set_tests_properties(fuzz_smoke_${name} PROPERTIES LABELS fuzz FIXTURES_REQUIRED fuzz_harnesses
                         SKIP_RETURN_CODE 77 TIMEOUT 600 ENVIRONMENT SMOKE_SECONDS=20)
  endforeach()
endif()
