// Compile-time targets of the fast kernels and the run-time choice between them, following the active ISA level
// (cpu_features.h) — unlike GCC's target_clones, whose resolver picks by the CPU alone and so would ignore a
// forced level.
//
// Hand-written intrinsic kernels mark their functions TK_TARGET_AVX512 / TK_TARGET_AVX2 and are chosen by the
// implementation lists (kernel_list.cpp) or by cpu::has(). Plain loops written for the auto-vectorizer are
// written once, as a TK_VECTOR_BODY function, and called through TK_ISA_DISPATCH, which runs a copy of the body
// compiled for AVX-512, AVX2 or the baseline:
//
//   template <typename T> TK_VECTOR_BODY void addRowBody(const T* __restrict a, T* __restrict b, int64_t n) {...}
//   template <typename T> void addRow(const T* a, T* b, int64_t n) { TK_ISA_DISPATCH(addRowBody<T>(a, b, n)); }
#pragma once
#include <string>
#include <string_view>

#include "fast/cpu_features.h"

// x86-64-v4 (AVX-512 F/BW/VL/DQ/CD over AVX2/FMA/BMI2) and x86-64-v3 (AVX2, FMA, F16C, BMI1/2, LZCNT, MOVBE).
#define TK_TARGET_AVX512 __attribute__((target("arch=x86-64-v4")))
#define TK_TARGET_AVX2 __attribute__((target("arch=x86-64-v3")))
// The copies are vectorized at -O3 whatever the file's level: -O2's "very cheap" cost model leaves such loops
// scalar. No fast-math: results do not change.
#define TK_TARGET_AVX512_O3 __attribute__((target("arch=x86-64-v4"), optimize("O3")))
#define TK_TARGET_AVX2_O3 __attribute__((target("arch=x86-64-v3"), optimize("O3")))
#define TK_BASELINE_O3 __attribute__((optimize("O3")))

// A body inlined into each ISA's copy (its own code is never emitted alone).
#define TK_VECTOR_BODY __attribute__((always_inline)) inline

namespace tosakit::fast::cpu {

// Which copy of a vectorized body runs: the widest vector ISA the active level allows.
enum class VectorIsa { Baseline, Avx2, Avx512 };

inline VectorIsa vectorIsa() {
  static const VectorIsa v = features().avx512 ? VectorIsa::Avx512
      : features().avx2                        ? VectorIsa::Avx2
                                               : VectorIsa::Baseline;
  return v;
}

inline std::string_view vectorIsaName(VectorIsa v) {
  return v == VectorIsa::Avx512 ? "avx512" : v == VectorIsa::Avx2 ? "avx2" : "baseline";
}

}  // namespace tosakit::fast::cpu

namespace tosakit::fast {
// A kernel's name with the copy of its loops that runs ("fast:depthwise_f32:avx2"): bench --profile and the tests
// see which one ran.
inline std::string withVectorIsa(std::string_view name) {
  return std::string(name) + ":" + std::string(cpu::vectorIsaName(cpu::vectorIsa()));
}
}  // namespace tosakit::fast

// `return call;` with `call` (an expression calling a TK_VECTOR_BODY function) compiled for the active ISA
// (variadic: template arguments may hold commas).
#define TK_ISA_DISPATCH(...)                                                                                  \
  switch (::tosakit::fast::cpu::vectorIsa()) {                                                                \
    case ::tosakit::fast::cpu::VectorIsa::Avx512: return [&]() TK_TARGET_AVX512_O3 { return __VA_ARGS__; }(); \
    case ::tosakit::fast::cpu::VectorIsa::Avx2: return [&]() TK_TARGET_AVX2_O3 { return __VA_ARGS__; }();     \
    default: return [&]() TK_BASELINE_O3 { return __VA_ARGS__; }();                                           \
  }
