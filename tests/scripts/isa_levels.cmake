# The fast backend once per ISA level this machine has (docs/FAST.md, "ISA levels"): the default runs of
# fast_tests, conformance_fast and quantize_fast_exact use the machine's own level; here every lower level the
# CPU supports runs them again with TOSAKIT_ISA forcing it (labels isa and isa_<level>), so the AVX2 and
# baseline kernels are tested on an AVX-512 machine. A level this CPU lacks is one skipped test saying so
# (tests/allowed_skips.txt: "ISA:").
set(_isa_levels baseline avx2 avx2_vnni avx512 avx512_vnni)
# What each level needs, as /proc/cpuinfo names the flags (src/fast/cpu_features.cpp detects the same).
set(_isa_needs_baseline "")
set(_isa_needs_avx2 avx2 fma f16c bmi2)
set(_isa_needs_avx2_vnni avx2 fma f16c bmi2 avx_vnni)
set(_isa_needs_avx512 avx2 fma f16c bmi2 avx512f avx512bw avx512vl avx512dq avx512cd)
set(_isa_needs_avx512_vnni ${_isa_needs_avx512} avx512_vnni)

set(_cpu_flags "")
if(EXISTS /proc/cpuinfo)
  file(STRINGS /proc/cpuinfo _flag_lines REGEX "^flags" LIMIT_COUNT 1)
  string(REGEX REPLACE "^flags[ \t]*:[ \t]*" "" _cpu_flags "${_flag_lines}")
  string(REPLACE " " ";" _cpu_flags "${_cpu_flags}")
endif()

set(_isa_available "")
foreach(level IN LISTS _isa_levels)
  set(ok TRUE)
  foreach(flag IN LISTS _isa_needs_${level})
    if(NOT flag IN_LIST _cpu_flags)
      set(ok FALSE)
    endif()
  endforeach()
  if(ok)
    list(APPEND _isa_available ${level})
  endif()
endforeach()
# The machine's own level: the highest available of the two top levels, else avx2_vnni, avx2, baseline.
set(_isa_top baseline)
foreach(level avx2 avx2_vnni avx512 avx512_vnni)
  if(level IN_LIST _isa_available)
    set(_isa_top ${level})
  endif()
endforeach()
message(STATUS "ISA levels of this CPU: ${_isa_available} (tests run at each; default ${_isa_top})")

foreach(level IN LISTS _isa_levels)
  if(level STREQUAL _isa_top)
    continue()
  endif()
  if(NOT level IN_LIST _isa_available)
    add_test(NAME isa_${level}_unavailable
      COMMAND ${CMAKE_COMMAND} -E echo "ISA: this CPU has no ${level} (flags: ${_isa_needs_${level}}): its kernels are not run here")
    set_tests_properties(isa_${level}_unavailable PROPERTIES LABELS "isa;isa_${level}" SKIP_REGULAR_EXPRESSION "ISA: ")
    continue()
  endif()
  gtest_discover_tests(fast_tests TEST_PREFIX "isa_${level}." DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT 600 ENVIRONMENT "TOSAKIT_ISA=${level}" LABELS "isa;isa_${level}")
  add_test(NAME isa_${level}.conformance_fast
    COMMAND run_conformance --backend fast --log ${CMAKE_BINARY_DIR}/conformance_fast_${level}_failures.log)
  add_test(NAME isa_${level}.quantize_fast_exact
    COMMAND ${CMAKE_COMMAND} -E env TK=$<TARGET_FILE:tosakit> ROOT=${CMAKE_SOURCE_DIR}
            OUT=${CMAKE_BINARY_DIR}/quantize-tests-${level} bash ${CMAKE_SOURCE_DIR}/tests/scripts/quantize_fast_exact.sh)
  set_tests_properties(isa_${level}.conformance_fast isa_${level}.quantize_fast_exact PROPERTIES
    TIMEOUT 5400 ENVIRONMENT "TOSAKIT_ISA=${level}" LABELS "isa;isa_${level}")
endforeach()
