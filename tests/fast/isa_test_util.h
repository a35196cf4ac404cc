// What the fast backend's implementation lists (src/fast/kernel_list.cpp) promise at the ISA level this test
// process runs at: ctest runs tests/fast once per level the machine has (TOSAKIT_ISA, docs/FAST.md "ISA
// levels"). A test of one level's kernel asserts that the kernel ran where the level allows it and that it did
// not run below; a test that cannot run its path at this level skips with a reason starting "ISA:"
// (tests/allowed_skips.txt).
#pragma once
#include <string>

#include "core/dtype.h"
#include "fast/cpu_features.h"

namespace tosakit::testing {

inline bool levelHas(fast::cpu::Isa level) { return fast::cpu::has(level); }
inline std::string activeLevelName() { return std::string(fast::cpu::isaName(fast::cpu::activeIsa())); }

// oneDNN 2.6 sums int8 exactly in s32 only with vpdpbusd (AVX512-VNNI or AVX-VNNI): below, int8 convolutions and
// matmuls are not given to it.
inline bool oneDnnInt8Exact() { return levelHas(fast::cpu::Isa::Avx512Vnni) || levelHas(fast::cpu::Isa::Avx2Vnni); }

// With AVX-VNNI but not AVX512-VNNI (the avx2_vnni level) oneDNN 2.6's int8 kernels (jit_uni_int8:avx2_vnni) take
// plain convolutions, matmuls and the common depthwise layers, but decline depthwise forms its AVX512-VNNI kernels
// take (seen on this suite's random cases: channel multipliers, strides of 3, dilations, banded layers); those go to
// our exact AVX2 depthwise kernel where it takes them, else to the reference kernel, as at the avx2 level.
inline bool oneDnnInt8Partial() { return levelHas(fast::cpu::Isa::Avx2Vnni) && !levelHas(fast::cpu::Isa::Avx512Vnni); }

// Why the fast backend has no oneDNN convolution or matmul for `t` at this level, or "" when it has one (asked after
// a form did not compile): int8 needs VNNI (all forms only with AVX512-VNNI),
// bf16 AVX-512 (oneDNN 2.6's avx512_core bf16 emulation), fp16 AVX512-FP16 (no CPU level of ours).
inline std::string noOneDnnKernelReason(DType t) {
  if (t == DType::I8 && !oneDnnInt8Exact())
    return "ISA: oneDNN int8 kernels need VNNI; this run is at " + activeLevelName();
  if (t == DType::I8 && oneDnnInt8Partial())
    return "ISA: oneDNN 2.6 at avx2_vnni declines this int8 form (its AVX512-VNNI kernels take it); this run is at " +
        activeLevelName();
  if (t == DType::BF16 && !levelHas(fast::cpu::Isa::Avx512))
    return "ISA: oneDNN bf16 kernels need AVX-512; this run is at " + activeLevelName();
  if (t == DType::FP16) return "ISA: oneDNN 2.6 has fp16 kernels only on AVX512-FP16 CPUs";
  return "";
}

}  // namespace tosakit::testing

// Skips the test (with the "ISA:" reason) unless the active level allows `level`'s kernels.
#define TK_SKIP_UNLESS_LEVEL(level)                                                            \
  if (!::tosakit::testing::levelHas(level))                                                    \
  GTEST_SKIP() << "ISA: needs " << ::tosakit::fast::cpu::isaName(level) << "; this run is at " \
               << ::tosakit::testing::activeLevelName()
