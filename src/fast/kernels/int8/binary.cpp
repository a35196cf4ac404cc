// Quantized binary ops in one pass. `tosakit quantize` lowers a residual add to
//     a32 = rescale(a8), b32 = rescale(b8), s = add(a32, b32), y8 = rescale(s) [, clamp]
// (sub and mul alike; mul's operands carry no zero point). The plan offers the chain starting at the second
// operand's rescale: [rescale(b8), add/sub/mul(a32, .), rescale, clamp?]; this kernel computes it in one pass
// over b8 and a32, writing y8 directly (no i32 intermediates in memory). The other operand (a32) is whatever
// i32 tensor the graph has there; when it is the result of a rescale(a8) used by nothing else, which the plan
// held back (OpChain::Producer: it is not a linear predecessor), the kernel computes that rescale too and
// reads a8 instead (a32 never exists). A tosa.table (i8) in front of b8's rescale (hard-sigmoid on an SE gate)
// is absorbed as well: the chain then starts at the table. Either operand may be broadcast along the last axis
// (one value per channel or a single value: the squeeze-and-excitation gate of a mul), the other must have the
// result's shape.
//
// Exactness: every step is the reference's integer arithmetic in int64 (apply_scale_32 with single or double
// rounding, per channel or per tensor; apply_add_s/apply_sub_s; MUL's shifted or truncating product). Every
// REQUIRE (a value outside apply_scale_32's shift range, an i32 overflow of the sum, of the shifted product or
// of the output zero-point addition) is watched; when one trips, the kernel returns rerunOnReference() and the
// plan reruns the ops on their reference kernels, which give the verdict.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "fast/isa_dispatch.h"
#include "fast/kernels/common.h"
#include "fast/kernels/int8/binary.h"
#include "fast/kernels/int8/simd.h"
#include "fast/kernels/int8/simd_avx2.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {
std::atomic<int64_t> scaledMulRuns{0};  // quantBinaryScaledMulRunsForTesting
constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min(), kI32Max = std::numeric_limits<int32_t>::max();

// apply_scale_32's parameters for every lane of a row of L = k * C elements (lane i is channel i % C).
struct ScaleLanes {
  std::vector<int32_t> mult;
  std::vector<int64_t> roundPos, roundNeg, shift, lowest, highest;

  void build(const RescaleSpec& s, int64_t C, int64_t L) {
    for (int64_t i = 0; i < L; ++i) {
      const ScaleParams p = scaleParams(s, s.multiplier.size() == 1 ? 0 : size_t(i % C));
      const int64_t sh = p.shift;
      mult.push_back(int32_t(p.mult));
      roundPos.push_back(p.roundPos);
      roundNeg.push_back(p.roundNeg);
      shift.push_back(sh);
      lowest.push_back(-(int64_t(1) << (sh - 1)));
      highest.push_back(int64_t(1) << (sh - 1));
    }
  }
};

// One row of L values rescaled to i32 (the held-back first operand's rescale, when it is not done in
// registers): per-lane parameters, the REQUIRE on the value range flagged. Returns false when it would fail.
template <typename AT>
TK_VECTOR_BODY bool rescaleRowBody(const AT* __restrict a, int32_t* __restrict out, int64_t L, const ScaleLanes& p,
                                   int64_t zp) {
  int64_t bad = 0;
  const int32_t* m = p.mult.data();
  const int64_t *rp = p.roundPos.data(), *rn = p.roundNeg.data(), *sh = p.shift.data();
  const int64_t *lw = p.lowest.data(), *hg = p.highest.data();
  for (int64_t i = 0; i < L; ++i) {
    const int64_t v = int64_t(a[i]) - zp;
    bad |= (v < lw[i]) | (v >= hg[i]);
    const int64_t r = v >= 0 ? rp[i] : rn[i];
    out[i] = int32_t((int64_t(int32_t(v)) * int64_t(m[i]) + r) >> sh[i]);
  }
  return !bad;
}
template <typename AT>
bool rescaleRow(const AT* __restrict a, int32_t* __restrict out, int64_t L, const ScaleLanes& p, int64_t zp) {
  TK_ISA_DISPATCH(rescaleRowBody<AT>(a, out, L, p, zp));
}

struct FusedParams {
  ScaleLanes in, out;  // the operand's rescale (to i32) and the result's rescale
  ScaleLanes a;        // the held-back first operand's rescale, when the kernel computes it
  int64_t inZp = 0, outZp = 0, aZp = 0, lo = 0, hi = 0;
  int64_t mulShift = 0, mulRound = 0;
  std::vector<int32_t> inLut;  // i8 operand, one scale, no value breaking a REQUIRE: rescale(v) at v + 128
};

enum class XMode { Rescale, Lookup, Ready };  // x is rescaled here, looked up in inLut, or already rescaled

// One row of L elements: out = clamp(rescale(op(a, rescale(x)))). kX: x is rescaled here, looked up in the
// operand's 256-entry table (i8, one scale), or already holds the rescaled i32 values (a broadcast operand,
// rescaled once per run). Branch-free for the vectorizer; the REQUIRE
// flag is an int64 (a bool reduction blocks it). Returns false when a REQUIRE would fail.
// kScalar: both rescales per tensor (the usual case): their parameters stay in registers.
template <typename XT, typename OutT, BinOp kOp, XMode kX, bool kScalar>
TK_VECTOR_BODY bool fusedRowBody(const int32_t* __restrict a, const XT* __restrict x, OutT* __restrict out, int64_t L,
                                 const FusedParams& p) {
  int64_t bad = 0;
  const int64_t izp = p.inZp, ozp = p.outZp, lo = p.lo, hi = p.hi, msh = p.mulShift, mrnd = p.mulRound;
  const int32_t *im = p.in.mult.data(), *om = p.out.mult.data();
  const int64_t *irp = p.in.roundPos.data(), *irn = p.in.roundNeg.data(), *ish = p.in.shift.data();
  const int64_t *ilw = p.in.lowest.data(), *ihg = p.in.highest.data();
  const int64_t *orp = p.out.roundPos.data(), *orn = p.out.roundNeg.data(), *osh = p.out.shift.data();
  const int64_t *olw = p.out.lowest.data(), *ohg = p.out.highest.data();
  const int64_t im0 = im[0], irp0 = irp[0], irn0 = irn[0], ish0 = ish[0], ilw0 = ilw[0], ihg0 = ihg[0];
  const int64_t om0 = om[0], orp0 = orp[0], orn0 = orn[0], osh0 = osh[0], olw0 = olw[0], ohg0 = ohg[0];
  const int32_t* lut = p.inLut.data();
  for (int64_t i = 0; i < L; ++i) {
    int64_t b;
    if constexpr (kX == XMode::Lookup) {
      b = lut[uint8_t(x[i]) ^ 0x80];
    } else if constexpr (kX == XMode::Rescale) {
      const int64_t v = int64_t(x[i]) - izp;
      bad |= (v < (kScalar ? ilw0 : ilw[i])) | (v >= (kScalar ? ihg0 : ihg[i]));
      const int64_t rp = kScalar ? irp0 : irp[i], rn = kScalar ? irn0 : irn[i];  // both loaded: no conditional load
      const int64_t m = kScalar ? im0 : int64_t(im[i]);
      b = int64_t(int32_t((int64_t(int32_t(v)) * m + (v >= 0 ? rp : rn)) >> (kScalar ? ish0 : ish[i])));
    } else {
      b = x[i];
    }
    const int64_t av = a[i];
    int64_t s;
    if constexpr (kOp == BinOp::Add) {
      s = av + b;
      bad |= (s < kI32Min) | (s > kI32Max);
    } else if constexpr (kOp == BinOp::SubAB) {
      s = av - b;
      bad |= (s < kI32Min) | (s > kI32Max);
    } else if constexpr (kOp == BinOp::SubBA) {
      s = b - av;
      bad |= (s < kI32Min) | (s > kI32Max);
    } else if constexpr (kOp == BinOp::Mul) {
      s = int64_t(int32_t(av * b));  // apply_mul_s: the low 32 bits (|av * b| <= 2^62 fits int64)
    } else {
      s = (av * b + mrnd) >> msh;
      bad |= (s < kI32Min) | (s > kI32Max);
    }
    bad |= (s < (kScalar ? olw0 : olw[i])) | (s >= (kScalar ? ohg0 : ohg[i]));
    const int64_t rp = kScalar ? orp0 : orp[i], rn = kScalar ? orn0 : orn[i];
    const int64_t m = kScalar ? om0 : int64_t(om[i]);
    int64_t r = int64_t(int32_t((int64_t(int32_t(s)) * m + (s >= 0 ? rp : rn)) >> (kScalar ? osh0 : osh[i]))) + ozp;
    bad |= (r < kI32Min) | (r > kI32Max);
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    out[i] = OutT(r);
  }
  return !bad;
}
template <typename XT, typename OutT, BinOp kOp, XMode kX, bool kScalar>
bool fusedRow(const int32_t* __restrict a, const XT* __restrict x, OutT* __restrict out, int64_t L,
              const FusedParams& p) {
  TK_ISA_DISPATCH(fusedRowBody<XT, OutT, kOp, kX, kScalar>(a, x, out, L, p));
}

// The same row in AVX-512 registers, 16 lanes at a time, for the usual case: both rescales per tensor, x an i8
// operand looked up (no value of it breaks apply_scale_32's range) or an already rescaled broadcast row, and
// add/sub/mul without a shift. Instead of the 256-entry table, x's rescale is computed: (x - zp) * m + round,
// shifted, as apply_scale_32 does (the table holds exactly these values). The op and the output rescale:
// binaryTail16 (kernels/int8/binary.h). Even and odd lanes go through the 64-bit products separately (vpmuldq)
// and are merged by a blend (kernels/int8/simd.h scale16).
// GCC 12 reports the intrinsics' deliberately undefined pass-through operands (_mm512_undefined_*, under an
// all-ones mask) as maybe uninitialized once inlined into this row (GCC bug 105593); no undefined value is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
// AT = int8_t: a is the held-back first operand's i8 input (one scale, no value of it breaking the REQUIRE),
// rescaled here the same way.
template <typename XT, typename AT, typename OutT, BinOp kOp, bool kReady>
TK_AVX512 bool fusedRowAvx512(const AT* __restrict a, const XT* __restrict x, OutT* __restrict out, int64_t L,
                              const FusedParams& p) {
  const dnn::ScaleRegs in = dnn::scaleRegs(p.in.mult[0], p.in.roundPos[0], p.in.roundNeg[0], p.in.shift[0]);
  const dnn::ScaleRegs as =
      std::is_same_v<AT, int8_t> ? dnn::scaleRegs(p.a.mult[0], p.a.roundPos[0], p.a.roundNeg[0], p.a.shift[0]) : in;
  const __m512i azp = _mm512_set1_epi32(int32_t(p.aZp));
  const BinaryTailRegs tail =
      binaryTailRegs({p.out.mult[0], p.out.roundPos[0], p.out.roundNeg[0], p.out.shift[0]}, p.outZp, p.lo, p.hi);
  const __m512i izp = _mm512_set1_epi32(int32_t(p.inZp));
  __m512i ovf = _mm512_setzero_si512();
  __mmask16 outside = 0;
  for (int64_t i = 0; i < L; i += 16) {
    const __mmask16 m = dnn::laneMask(L, i);
    __m512i b;
    if constexpr (kReady) {
      b = _mm512_maskz_loadu_epi32(m, x + i);
    } else {
      const __m512i xv = _mm512_maskz_cvtepi8_epi32(m, _mm_maskz_loadu_epi8(m, x + i));
      b = dnn::scale16(_mm512_sub_epi32(xv, izp), in);
    }
    __m512i av;
    if constexpr (std::is_same_v<AT, int8_t>)
      av = dnn::scale16(_mm512_sub_epi32(_mm512_maskz_cvtepi8_epi32(m, _mm_maskz_loadu_epi8(m, a + i)), azp), as);
    else
      av = _mm512_maskz_loadu_epi32(m, a + i);
    const __m512i v = binaryTail16<kOp>(av, b, tail, m, ovf, outside);
    dnn::storeNarrow(out + i, v, m);
  }
  return _mm512_movepi32_mask(ovf) == 0 && outside == 0;
}

// The same row on AVX2 (CPUs without AVX-512), 8 lanes at a time. AVX2 shifts 64-bit lanes only logically: as
// in kernels/int8/simd_avx2.h the rounding terms carry 2^62, which makes every v * m + round + 2^62 positive (|v *
// m| < 2^62, round >= 0) and below 2^64, so the logical shift is the arithmetic shift of the true sum plus 2^62 >>
// shift, taken off again (modulo 2^32: only the low 32 bits are kept). The last L % 8 lanes go through a zeroed
// copy, their flags masked off.
struct ScaleRegs8 {
  __m256i mult, roundPos, roundNeg, shift, off;
};
TK_TARGET_AVX2 inline ScaleRegs8 scaleRegs8(const ScaleLanes& p) {
  const int64_t bias62 = int64_t(1) << 62;
  return {_mm256_set1_epi64x(p.mult[0]), _mm256_set1_epi64x(p.roundPos[0] + bias62),
          _mm256_set1_epi64x(p.roundNeg[0] + bias62), _mm256_set1_epi64x(p.shift[0]),
          _mm256_set1_epi32(int32_t(bias62 >> p.shift[0]))};
}
// apply_scale_32 of 8 i32 lanes with one scale (the value range known to hold), the rounding term by each value's
// sign; even and odd lanes through vpmuldq separately, merged by a blend.
TK_TARGET_AVX2 inline __m256i scale8(__m256i v, const ScaleRegs8& r) {
  const __m256i neg = _mm256_srai_epi32(v, 31);
  const __m256i roundE = _mm256_blendv_epi8(r.roundPos, r.roundNeg, _mm256_shuffle_epi32(neg, _MM_SHUFFLE(2, 2, 0, 0)));
  const __m256i roundO = _mm256_blendv_epi8(r.roundPos, r.roundNeg, _mm256_shuffle_epi32(neg, _MM_SHUFFLE(3, 3, 1, 1)));
  const __m256i e = _mm256_srlv_epi64(_mm256_add_epi64(_mm256_mul_epi32(v, r.mult), roundE), r.shift);
  const __m256i vO = _mm256_srli_epi64(v, 32);
  const __m256i o = _mm256_srlv_epi64(_mm256_add_epi64(_mm256_mul_epi32(vO, r.mult), roundO), r.shift);
  return _mm256_sub_epi32(_mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xaa), r.off);
}

// 8 lanes of T (i8 sign-extended, or i32) from p; n < 8: the first n, zeros after.
template <typename T>
TK_TARGET_AVX2 inline __m256i load8Lanes(const T* p, int64_t n) {
  if constexpr (sizeof(T) == 1) {
    int64_t eight = 0;
    std::memcpy(&eight, p, size_t(std::min<int64_t>(n, 8)));
    return _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight));
  } else {
    if (n >= 8) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    alignas(32) int32_t tmp[8] = {};
    std::memcpy(tmp, p, size_t(n) * 4);
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(tmp));
  }
}

template <typename XT, typename AT, typename OutT, BinOp kOp, bool kReady>
TK_TARGET_AVX2 bool fusedRowAvx2(const AT* __restrict a, const XT* __restrict x, OutT* __restrict out, int64_t L,
                                 const FusedParams& p) {
  const ScaleRegs8 in = scaleRegs8(p.in), as = std::is_same_v<AT, int8_t> ? scaleRegs8(p.a) : in;
  const ScaleRegs8 os = scaleRegs8(p.out);
  constexpr int64_t kMin = kI32Min, kMax = kI32Max;
  const int64_t half = int64_t(1) << (p.out.shift[0] - 1);  // the range is every i32 once shift >= 32
  const __m256i rlo = _mm256_set1_epi32(int32_t(std::max(-half, kMin)));
  const __m256i rhi = _mm256_set1_epi32(int32_t(std::min(half - 1, kMax)));
  const __m256i ozp = _mm256_set1_epi32(int32_t(p.outZp)), lo = _mm256_set1_epi32(int32_t(p.lo));
  const __m256i hi = _mm256_set1_epi32(int32_t(p.hi));
  const __m256i izp = _mm256_set1_epi32(int32_t(p.inZp)), azp = _mm256_set1_epi32(int32_t(p.aZp));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i bad = _mm256_setzero_si256();  // sign bits: an i32 overflow of the op, or a value outside the range
  for (int64_t i = 0; i < L; i += 8) {
    const int64_t n = std::min<int64_t>(8, L - i);
    const __m256i b = kReady ? load8Lanes(x + i, n) : scale8(_mm256_sub_epi32(load8Lanes(x + i, n), izp), in);
    __m256i av = load8Lanes(a + i, n);
    if constexpr (std::is_same_v<AT, int8_t>) av = scale8(_mm256_sub_epi32(av, azp), as);
    __m256i v, flags;
    if constexpr (kOp == BinOp::Add) {
      v = _mm256_add_epi32(av, b);  // overflow: the sum's sign differs from both operands'
      flags = _mm256_and_si256(_mm256_xor_si256(av, v), _mm256_xor_si256(b, v));
    } else if constexpr (kOp == BinOp::SubAB) {
      v = _mm256_sub_epi32(av, b);  // overflow: operands of different signs and the result's differs from a's
      flags = _mm256_and_si256(_mm256_xor_si256(av, b), _mm256_xor_si256(av, v));
    } else if constexpr (kOp == BinOp::SubBA) {
      v = _mm256_sub_epi32(b, av);
      flags = _mm256_and_si256(_mm256_xor_si256(b, av), _mm256_xor_si256(b, v));
    } else {  // Mul: apply_mul_s's low 32 bits
      v = _mm256_mullo_epi32(av, b);
      flags = _mm256_setzero_si256();
    }
    flags = _mm256_or_si256(flags, _mm256_or_si256(_mm256_cmpgt_epi32(rlo, v), _mm256_cmpgt_epi32(v, rhi)));
    if (n < 8) flags = _mm256_and_si256(flags, _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(n)), lane));
    bad = _mm256_or_si256(bad, flags);
    v = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(scale8(v, os), ozp), lo), hi);
    dnn::storeNarrow8(out + i, v, int(n));
  }
  return _mm256_movemask_ps(_mm256_castsi256_ps(bad)) == 0;
}

// The squeeze-and-excitation gate's mul in fp64 (FusedQuantBinaryKernel::prepareScaledMul): y = clamp(floor(a8 *
// K + R)) with K, R per lane (one value per channel, replicated over the row). Each FMA's exact result is an
// integer times 2^-shift below 2^53 in magnitude (checked per run): dnn::floorFma16.
template <typename OutT>
TK_AVX512 void scaledMulRowAvx512(const int8_t* __restrict a, const double* __restrict K, const double* __restrict R,
                                  OutT* __restrict out, int64_t L, int64_t lo, int64_t hi) {
  const __m512i vlo = _mm512_set1_epi32(int32_t(lo)), vhi = _mm512_set1_epi32(int32_t(hi));
  for (int64_t i = 0; i < L; i += 16) {
    const __mmask16 m = dnn::laneMask(L, i);
    const __mmask8 mLo = __mmask8(m), mHi = __mmask8(m >> 8);
    const __m512i v = _mm512_maskz_cvtepi8_epi32(m, _mm_maskz_loadu_epi8(m, a + i));
    const __m512d dLo = _mm512_maskz_cvtepi32_pd(mLo, _mm512_castsi512_si256(v));
    const __m512d dHi = _mm512_maskz_cvtepi32_pd(mHi, _mm512_maskz_extracti64x4_epi64(0xf, v, 1));
    const __m512i y =
        dnn::floorFma16(dLo, dHi, _mm512_maskz_loadu_pd(mLo, K + i), _mm512_maskz_loadu_pd(mHi, K + i + 8),
                        _mm512_maskz_loadu_pd(mLo, R + i), _mm512_maskz_loadu_pd(mHi, R + i + 8));
    dnn::storeNarrow(out + i, _mm512_min_epi32(_mm512_max_epi32(y, vlo), vhi), m);
  }
}

#pragma GCC diagnostic pop

// The same on AVX2 (CPUs without AVX-512): 4 doubles per vector, the floor before an exact truncation; the last
// L % 8 lanes with std::fma, the same single rounding as the vector FMA.
template <typename OutT>
TK_TARGET_AVX2 void scaledMulRowAvx2(const int8_t* __restrict a, const double* __restrict K, const double* __restrict R,
                                     OutT* __restrict out, int64_t L, int64_t lo, int64_t hi) {
  const __m256i vlo = _mm256_set1_epi32(int32_t(lo)), vhi = _mm256_set1_epi32(int32_t(hi));
  auto floorFma4 = [&](__m128i v, int64_t i) __attribute__((always_inline, target("arch=x86-64-v3"))) {
    const __m256d f = _mm256_fmadd_pd(_mm256_cvtepi32_pd(v), _mm256_loadu_pd(K + i), _mm256_loadu_pd(R + i));
    return _mm256_cvttpd_epi32(_mm256_floor_pd(f));
  };
  int64_t i = 0;
  if constexpr (std::is_same_v<OutT, int8_t>) {  // 16 at a time: one pack and one clip as bytes
    const __m128i lo8 = _mm_set1_epi8(int8_t(lo)), hi8 = _mm_set1_epi8(int8_t(hi));
    for (; i + 16 <= L; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
      const __m128i q0 = floorFma4(_mm_cvtepi8_epi32(x), i),
                    q1 = floorFma4(_mm_cvtepi8_epi32(_mm_srli_si128(x, 4)), i + 4);
      const __m128i q2 = floorFma4(_mm_cvtepi8_epi32(_mm_srli_si128(x, 8)), i + 8);
      const __m128i q3 = floorFma4(_mm_cvtepi8_epi32(_mm_srli_si128(x, 12)), i + 12);
      const __m128i bytes = _mm_packs_epi16(_mm_packs_epi32(q0, q1), _mm_packs_epi32(q2, q3));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_min_epi8(_mm_max_epi8(bytes, lo8), hi8));
    }
  }
  for (; i + 8 <= L; i += 8) {
    int64_t eight;
    std::memcpy(&eight, a + i, 8);
    const __m256i v = _mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight));
    const __m256i y =
        _mm256_setr_m128i(floorFma4(_mm256_castsi256_si128(v), i), floorFma4(_mm256_extracti128_si256(v, 1), i + 4));
    dnn::storeNarrow8(out + i, _mm256_min_epi32(_mm256_max_epi32(y, vlo), vhi), 8);
  }
  for (; i < L; ++i) {
    const int64_t y = int64_t(std::floor(std::fma(double(a[i]), K[i], R[i])));
    out[i] = OutT(std::min(hi, std::max(lo, y)));
  }
}

// How an operand meets the result: the result's shape, or one value per channel (last axis) / one value.
enum class Bcast { Full, PerChannel, Scalar };

std::optional<Bcast> broadcastOf(const Shape& operand, const Shape& out) {
  if (operand == out) return Bcast::Full;
  if (operand.size() != out.size() || out.empty()) return std::nullopt;
  const int64_t n = numElements(operand);
  if (n == 1) return Bcast::Scalar;
  if (operand.back() == out.back() && n == out.back()) return Bcast::PerChannel;
  return std::nullopt;
}

bool hasVbmi() { return cpu::features().avx512Vbmi; }

// A row of i8 values through a 256-entry i8 table, 64 at a time with AVX512-VBMI byte permutes (as
// kernels/int8/table.cpp): u = x ^ 0x80 indexes the table, vpermi2b looks up 128-byte halves by u's low 7 bits, u's
// top bit picks the half. Into a row buffer that stays in L1 for the fused row right after it (the row kernel
// itself cannot carry the VBMI target: its other instantiations run on CPUs without it).
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookupRowVbmi(const int8_t* x, int8_t* out, int64_t n,
                                                                          const int8_t* table) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i bias = _mm512_set1_epi8(char(0x80));
  for (int64_t i = 0; i < n; i += 64) {
    const __mmask64 m = n - i >= 64 ? ~__mmask64(0) : (__mmask64(1) << (n - i)) - 1;
    const __m512i u = _mm512_xor_si512(_mm512_maskz_loadu_epi8(m, x + i), bias);
    const __m512i low = _mm512_permutex2var_epi8(t0, u, t1), high = _mm512_permutex2var_epi8(t2, u, t3);
    _mm512_mask_storeu_epi8(out + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(u), low, high));
  }
}

class FusedQuantBinaryKernel : public OpKernel {
 public:
  std::string implName() const override { return "fast:quant_binary"; }

  // in: [rescale(a8) when absorbed], [table when absorbed], rescale(x), the op, the output rescale[, clamp].
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const size_t base = aAbsorbed_ ? 1 : 0, opRow = base + (table_.empty() ? 1 : 2);
    const TensorView &x = in[base][0], &a = aAbsorbed_ ? in[0][0] : in[opRow][aIndex_];
    bool ok = false;
    switch (xT_) {
      case DType::I8: ok = dispatchOut(x.as<const int8_t>(), a.data, out[0]); break;
      case DType::I16: ok = dispatchOut(x.as<const int16_t>(), a.data, out[0]); break;
      default: break;
    }
    return ok ? Status::ok() : rerunOnReference();
  }

  DType xT_ = DType::I8, outT_ = DType::I8;
  DType aT_ = DType::I32;   // a's element type: i32 (used as it is) or i8/i16 (aAbsorbed_: rescaled here)
  bool aAbsorbed_ = false;  // the held-back rescale(a8) is computed here
  BinOp op_ = BinOp::Add;
  size_t aIndex_ = 0;
  Bcast xB_ = Bcast::Full, aB_ = Bcast::Full;
  int64_t n_ = 0, C_ = 1, L_ = 1;
  bool scalar_ = false;  // both rescales per tensor
  RescaleSpec inSpec_, aSpec_;
  FusedParams p_;
  std::vector<int8_t> table_;               // the absorbed table in front of x's rescale (256 entries), or empty
  std::vector<int32_t> aLut_;               // a8's 256 rescaled values (one scale, none breaking the REQUIRE), or empty
  std::vector<int32_t> aRow_, xRow_;        // per-run replicated rows of a broadcast operand (L_ values)
  std::vector<int32_t> xValues_, aValues_;  // the broadcast operand rescaled (C_ values or one)
  // Per-thread rows: a rescaled to i32, x looked up in the table (allocated on the first run).
  std::vector<std::vector<int32_t>> aScratch_;
  std::vector<std::vector<int8_t>> xScratch_;
  // The squeeze-and-excitation gate's mul (a full-size a8, x broadcast, one output scale) in fp64
  // (scaledMulRowAvx512), set at compile time: a's rescale is exactly (a8 - aZp) * aFactor_ (0: it is not, or
  // the path does not apply). Per run: K, R per channel, then per lane of a row (prepareScaledMul).
  int64_t aFactor_ = 0;
  RescaleSpec outSpec_;
  Aligned64<double> mulK_, mulR_;

 private:
  template <typename XT>
  bool dispatchOut(const XT* x, const void* a, const TensorView& out) {
    switch (outT_) {
      case DType::I8: return dispatchOp(x, a, out.as<int8_t>());
      case DType::I16: return dispatchOp(x, a, out.as<int16_t>());
      case DType::I32: return dispatchOp(x, a, out.as<int32_t>());
      default: return false;
    }
  }

  template <typename XT, typename OutT>
  bool dispatchOp(const XT* x, const void* a, OutT* out) {
    switch (op_) {
      case BinOp::Add: return runRows<XT, OutT, BinOp::Add>(x, a, out);
      case BinOp::SubAB: return runRows<XT, OutT, BinOp::SubAB>(x, a, out);
      case BinOp::SubBA: return runRows<XT, OutT, BinOp::SubBA>(x, a, out);
      case BinOp::Mul: return runRows<XT, OutT, BinOp::Mul>(x, a, out);
      case BinOp::MulShift: return runRows<XT, OutT, BinOp::MulShift>(x, a, out);
    }
    return false;
  }

  // A broadcast operand's C values (or one) repeated over a row of L lanes (L is a multiple of C): whole copies
  // of the C values, no division per lane (`i % count` per lane cost as much as the SE gate's whole mul).
  template <typename T>
  static void replicate(const T* v, int64_t count, int64_t L, T* row) {
    if (count == 1) {
      std::fill(row, row + L, v[0]);
      return;
    }
    for (int64_t i = 0; i < L; i += count) std::copy(v, v + std::min(count, L - i), row + i);
  }
  static void replicate(const int32_t* v, int64_t count, int64_t L, std::vector<int32_t>& row) {
    row.resize(size_t(L));
    replicate(v, count, L, row.data());
  }

  // A broadcast operand (count values) rescaled once (apply_scale_32 with its REQUIRE) into `values`; through
  // the table first when one is given.
  template <typename T>
  static bool rescaleBroadcast(const T* x, int64_t count, const RescaleSpec& spec, const std::vector<int8_t>& table,
                               std::vector<int32_t>& values) {
    values.resize(static_cast<size_t>(count));  // kept between runs: no allocation per run
    for (int64_t c = 0; c < count; ++c) {
      const int64_t v = table.empty() ? int64_t(x[c]) : int64_t(table[size_t(int64_t(x[c]) + 128)]);
      std::optional<int32_t> r = scaleValue(spec, spec.multiplier.size() == 1 ? 0 : size_t(c), v - spec.inputZp);
      if (!r) return false;
      values[size_t(c)] = *r;
    }
    return true;
  }

  // a's i32 values of the row starting at element b (m values): a itself, its broadcast row, or (absorbed
  // rescale) the row rescaled into this thread's scratch. Null when a value breaks the rescale's REQUIRE.
  const int32_t* aRowAt(const void* a, int64_t b, int64_t m) {
    if (aB_ != Bcast::Full) return aRow_.data();
    if (!aAbsorbed_) return static_cast<const int32_t*>(a) + b;
    std::vector<int32_t>& row = aScratch_[size_t(omp_get_thread_num())];
    const bool ok = aT_ == DType::I8 ? rescaleRow(static_cast<const int8_t*>(a) + b, row.data(), m, p_.a, p_.aZp)
                                     : rescaleRow(static_cast<const int16_t*>(a) + b, row.data(), m, p_.a, p_.aZp);
    return ok ? row.data() : nullptr;
  }

  template <typename XT, typename OutT, BinOp kOp>
  bool runRows(const XT* x, const void* a, OutT* out) {
    const bool xFull = xB_ == Bcast::Full, aFull = aB_ == Bcast::Full;
    const int64_t aCount = aB_ == Bcast::Scalar ? 1 : C_, xCount = xB_ == Bcast::Scalar ? 1 : C_;
    if (!aFull && !aAbsorbed_) replicate(static_cast<const int32_t*>(a), aCount, L_, aRow_);
    if (!aFull && aAbsorbed_) {
      const bool ok = aT_ == DType::I8 ? rescaleBroadcast(static_cast<const int8_t*>(a), aCount, aSpec_, {}, aValues_)
                                       : rescaleBroadcast(static_cast<const int16_t*>(a), aCount, aSpec_, {}, aValues_);
      if (!ok) return false;
      replicate(aValues_.data(), aCount, L_, aRow_);
    }
    const int64_t chunks = (n_ + L_ - 1) / L_;
    if (!xFull) {
      if (!rescaleBroadcast(x, xCount, inSpec_, table_, xValues_)) return false;
      if (kOp == BinOp::Mul && aFactor_ != 0 && prepareScaledMul()) {
        const int8_t* a8 = static_cast<const int8_t*>(a);
        parallelItems(chunks, n_ > 65536, [&](int64_t k) {
          const int64_t b = k * L_;
          const int64_t m = std::min(L_, n_ - b);
          if (dnn::hasAvx512Epilogue())
            scaledMulRowAvx512(a8 + b, mulK_.data(), mulR_.data(), out + b, m, p_.lo, p_.hi);
          else
            scaledMulRowAvx2(a8 + b, mulK_.data(), mulR_.data(), out + b, m, p_.lo, p_.hi);
        });
        scaledMulRuns.fetch_add(1, std::memory_order_relaxed);
        return true;
      }
      replicate(xValues_.data(), xCount, L_, xRow_);
    }
    // The AVX-512 row: per-tensor scales, x an i8 operand with its lookup table (no REQUIRE in its values) or a
    // rescaled broadcast row, no shifted product; a full-size i8 a rescaled in registers likewise when it has
    // one scale and no value breaking the REQUIRE (else its row is rescaled first, in L1). A table in front of
    // a full-size x: looked up into a row (VBMI) first.
    const bool avx = dnn::hasAvx512Epilogue() && scalar_ && kOp != BinOp::MulShift &&
        (!xFull || (std::is_same_v<XT, int8_t> && !p_.inLut.empty() && (table_.empty() || hasVbmi())));
    // The same row on AVX2, where the CPU has no AVX-512 (a table in front of a full-size x stays generic).
    const bool avx2 = !avx && dnn::hasAvx2Epilogue() && scalar_ && kOp != BinOp::MulShift &&
        (!xFull || (std::is_same_v<XT, int8_t> && !p_.inLut.empty() && table_.empty()));
    const bool aInRegs = (avx || avx2) && aFull && aAbsorbed_ && !aLut_.empty();
    const int threads = omp_get_max_threads();
    if (aAbsorbed_ && aFull && !aInRegs && aScratch_.size() < size_t(threads))
      aScratch_.resize(size_t(threads), std::vector<int32_t>(size_t(L_)));
    const bool xLookedUp = avx && xFull && !table_.empty();
    if (xLookedUp && xScratch_.size() < size_t(threads))
      xScratch_.resize(size_t(threads), std::vector<int8_t>(size_t(L_)));
    return parallelItems(chunks, n_ > 65536, [&](int64_t k) {
      const int64_t b = k * L_, m = std::min(L_, n_ - b);
      if (avx2) return rowAvx2<XT, OutT, kOp>(a, x, out, b, m, aInRegs);
      if (aInRegs) {
        const int8_t* ab = static_cast<const int8_t*>(a) + b;
        return xFull ? rowAvxA8<XT, OutT, kOp>(ab, x + b, out + b, m, xLookedUp)
                     : fusedRowAvx512<int32_t, int8_t, OutT, kOp, true>(ab, xRow_.data(), out + b, m, p_);
      }
      const int32_t* ar = aRowAt(a, b, m);
      if (!ar) return false;
      bool ok;
      if (avx && !xFull)
        ok = fusedRowAvx512<int32_t, int32_t, OutT, kOp, true>(ar, xRow_.data(), out + b, m, p_);
      else if (xLookedUp)
        ok = fusedRowAvx512<int8_t, int32_t, OutT, kOp, false>(ar, lookedUp(x, b, m), out + b, m, p_);
      else if (avx && std::is_same_v<XT, int8_t>)
        ok = fusedRowAvx512<int8_t, int32_t, OutT, kOp, false>(ar, reinterpret_cast<const int8_t*>(x) + b, out + b, m,
                                                               p_);
      else if (!xFull && scalar_)
        ok = fusedRow<int32_t, OutT, kOp, XMode::Ready, true>(ar, xRow_.data(), out + b, m, p_);
      else if (!xFull)
        ok = fusedRow<int32_t, OutT, kOp, XMode::Ready, false>(ar, xRow_.data(), out + b, m, p_);
      else if (!p_.inLut.empty() && scalar_)
        ok = fusedRow<XT, OutT, kOp, XMode::Lookup, true>(ar, x + b, out + b, m, p_);
      else if (!p_.inLut.empty())
        ok = fusedRow<XT, OutT, kOp, XMode::Lookup, false>(ar, x + b, out + b, m, p_);
      else if (scalar_)
        ok = fusedRow<XT, OutT, kOp, XMode::Rescale, true>(ar, x + b, out + b, m, p_);
      else
        ok = fusedRow<XT, OutT, kOp, XMode::Rescale, false>(ar, x + b, out + b, m, p_);
      return ok;
    });
  }

  // K and R of scaledMulRowAvx512 for this run's gate, when the fp64 form is exact for it: per channel, with
  // G = aFactor_ * gate (the rescaled broadcast value), the product P = (a8 - aZp) * G is an i32 inside the
  // output rescale's value range for every i8 a8 (MUL's low 32 bits are then P itself, and the REQUIRE holds),
  // and N = P * m + round + outZp * 2^shift, apply_scale_32's sum with the zero point moved in front of the
  // shift, stays below 2^53 in magnitude. P is bilinear in a8 and G, N and the terms below linear in P or G:
  // the ends of a8's range and the smallest and largest G bound them all (checked in __int128).
  // K = G * m * 2^-shift and R = (round + outZp * 2^shift) * 2^-shift - aZp * K are then exact doubles (each
  // operation's exact result is an integer below 2^53 times a power of two), with a8 * K + R = N * 2^-shift,
  // and floor(N * 2^-shift) = (P * m + round >> shift) + outZp. False: the general row runs (and checks the
  // REQUIREs).
  bool prepareScaledMul() {
    const int64_t count = int64_t(xValues_.size());
    const auto [gMin, gMax] = std::minmax_element(xValues_.begin(), xValues_.end());
    const int64_t m = outSpec_.multiplier[0], sh = outSpec_.shift[0];
    const __int128 round = __int128(1) << (sh - 1), zpTerm = __int128(p_.outZp) << sh;
    const __int128 lowest = std::max<int64_t>(kI32Min, -(int64_t(1) << (sh - 1)));
    const __int128 highest = std::min<int64_t>(kI32Max, (int64_t(1) << (sh - 1)) - 1);
    const __int128 exact = __int128(1) << 53;
    const auto inExact = [&](__int128 v) { return v > -exact && v < exact; };
    if (!inExact(__int128(aFactor_) * m) || !inExact(round + zpTerm)) return false;
    for (const int64_t g : {int64_t(*gMin), int64_t(*gMax)}) {
      const __int128 G = __int128(aFactor_) * g, H = G * m;
      if (!inExact(H) || !inExact(p_.aZp * H) || !inExact(round + zpTerm - p_.aZp * H)) return false;
      for (const int64_t v : {int64_t(-128), int64_t(127)}) {
        const __int128 P = (v - p_.aZp) * G;
        if (P < lowest || P > highest || !inExact(P * m + round + zpTerm)) return false;
      }
    }
    if (mulK_.size() != size_t(L_)) mulK_.assign(size_t(L_), 0.0), mulR_.assign(size_t(L_), 0.0);
    double *K = mulK_.data(), *R = mulR_.data();
    const double km = double(aFactor_) * double(m) * std::ldexp(1.0, -int(sh));  // exact: |F * m| < 2^53
    const double r0 = double(int64_t(round + zpTerm)) * std::ldexp(1.0, -int(sh)), zp = double(p_.aZp);
    for (int64_t c = 0; c < count; ++c) {
      K[c] = double(xValues_[size_t(c)]) * km;
      R[c] = r0 - zp * K[c];
    }
    replicate(K, count, L_ - count, K + count);  // L_ is a multiple of count
    replicate(R, count, L_ - count, R + count);
    return true;
  }

  // x's row through the table into this thread's byte row (VBMI; only called when the CPU has it).
  template <typename XT>
  const int8_t* lookedUp(const XT* x, int64_t b, int64_t m) {
    std::vector<int8_t>& row = xScratch_[size_t(omp_get_thread_num())];
    lookupRowVbmi(reinterpret_cast<const int8_t*>(x) + b, row.data(), m, table_.data());
    return row.data();
  }

  // The AVX2 row at element b (m values): a8 rescaled in registers (aInRegs) or a's i32 row; x an i8 operand
  // rescaled in registers or the rescaled broadcast row.
  template <typename XT, typename OutT, BinOp kOp>
  bool rowAvx2(const void* a, const XT* x, OutT* out, int64_t b, int64_t m, bool aInRegs) {
    if constexpr (!std::is_same_v<XT, int8_t>) {
      if (xB_ == Bcast::Full) return false;  // not reached: avx2 with a full-size x needs an i8 x
    }
    const bool xFull = xB_ == Bcast::Full;
    const int8_t* x8 = reinterpret_cast<const int8_t*>(x) + b;
    if (aInRegs) {
      const int8_t* ab = static_cast<const int8_t*>(a) + b;
      return xFull ? fusedRowAvx2<int8_t, int8_t, OutT, kOp, false>(ab, x8, out + b, m, p_)
                   : fusedRowAvx2<int32_t, int8_t, OutT, kOp, true>(ab, xRow_.data(), out + b, m, p_);
    }
    const int32_t* ar = aRowAt(a, b, m);
    if (!ar) return false;
    return xFull ? fusedRowAvx2<int8_t, int32_t, OutT, kOp, false>(ar, x8, out + b, m, p_)
                 : fusedRowAvx2<int32_t, int32_t, OutT, kOp, true>(ar, xRow_.data(), out + b, m, p_);
  }

  // A full-size i8 x (looked up in the table first when there is one) and a full-size a8, both in registers.
  template <typename XT, typename OutT, BinOp kOp>
  bool rowAvxA8(const int8_t* a, const XT* x, OutT* out, int64_t m, bool xLookedUp) {
    if constexpr (!std::is_same_v<XT, int8_t>) {
      return false;  // not reached: aInRegs with a full-size x needs an i8 x (avx)
    } else {
      const int8_t* xs = xLookedUp ? lookedUp(x, 0, m) : x;
      return fusedRowAvx512<int8_t, int8_t, OutT, kOp, false>(a, xs, out, m, p_);
    }
  }
};

// The absorbed table in front of x's rescale: i8 -> i8, 256 constant entries, same shape.
std::optional<std::vector<int8_t>> tableOf(const ir::Operation& op, const std::vector<const Tensor*>& consts) {
  if (op.operands.size() != 2 || op.results.size() != 1 || !consts[1]) return std::nullopt;
  const Tensor& t = *consts[1];
  if (op.operands[0]->type.dtype != DType::I8 || op.results[0]->type.dtype != DType::I8 || t.dtype() != DType::I8 ||
      t.rank() != 1 || t.size() != 256 || op.operands[0]->type.dims != op.results[0]->type.dims)
    return std::nullopt;
  std::vector<int8_t> table;
  for (int64_t i = 0; i < 256; ++i) table.push_back(int8_t(t.getInt(i)));
  return table;
}

// F when an i8 operand's 256 rescaled values (at v + 128) are exactly (v - zp) * F, else 0: a rescale by a
// whole power of two, as `tosakit quantize` gives a mul's feature-map operand (1 << 30 >> 30).
int64_t linearFactor(const std::vector<int32_t>& lut, int64_t zp) {
  const int64_t v1 = zp < 127 ? zp + 1 : zp - 1;
  const int64_t F = (v1 - zp) * int64_t(lut[size_t(v1 + 128)]);  // v1 - zp is +-1
  for (int64_t v = -128; v < 128; ++v)
    if (int64_t(lut[size_t(v + 128)]) != (v - zp) * F) return 0;
  return F;
}

}  // namespace

Result<CompiledKernel> compileFusedQuantBinary(const OpChain& chain) {
  const size_t t = chain.ops[0]->name == "tosa.table" ? 1 : 0;  // a table in front of x's rescale
  if (chain.ops.size() < t + 3) return CompiledKernel{};
  const ir::Operation &r0 = *chain.ops[t], &bin = *chain.ops[t + 1], &r1 = *chain.ops[t + 2];
  auto inSpec = parseRescale(r0, chain.constants[t]);
  auto outSpec = parseRescale(r1, chain.constants[t + 2]);
  if (!inSpec || !outSpec) return CompiledKernel{};
  const DType xT = r0.operands[0]->type.dtype, outT = r1.results[0]->type.dtype;
  if ((xT != DType::I8 && xT != DType::I16) || r0.results[0]->type.dtype != DType::I32) return CompiledKernel{};
  if ((xT != DType::I8 && inSpec->inputZp != 0) || inSpec->outputZp != 0) return CompiledKernel{};  // ERROR_IFs
  if (bin.results.size() != 1 || bin.results[0]->type.dtype != DType::I32) return CompiledKernel{};
  if (r1.operands[0] != bin.results[0] || outSpec->inputZp != 0) return CompiledKernel{};
  if (outT != DType::I8 && outT != DType::I16 && outT != DType::I32) return CompiledKernel{};
  if (outT != DType::I8 && outSpec->outputZp != 0) return CompiledKernel{};

  auto k = std::make_unique<FusedQuantBinaryKernel>();
  if (t) {
    auto table = tableOf(*chain.ops[0], chain.constants[0]);
    if (!table) return CompiledKernel{};
    k->table_ = std::move(*table);
  }
  const ir::Value* b32 = r0.results[0];
  if (bin.operands.size() < 2 || bin.operands[0]->type.dtype != DType::I32 || bin.operands[1]->type.dtype != DType::I32)
    return CompiledKernel{};
  const size_t bIndex = bin.operands[0] == b32 ? 0 : 1;
  if (bin.operands[bIndex] != b32 || bin.operands[1 - bIndex] == b32) return CompiledKernel{};
  k->aIndex_ = 1 - bIndex;
  if (bin.name == "tosa.add" && bin.operands.size() == 2) {
    k->op_ = BinOp::Add;
  } else if (bin.name == "tosa.sub" && bin.operands.size() == 2) {
    k->op_ = bIndex == 1 ? BinOp::SubAB : BinOp::SubBA;
  } else if (bin.name == "tosa.mul" && bin.operands.size() == 3) {
    const Tensor* shift = chain.constants[t + 1][2];
    if (!shift || shift->size() != 1) return CompiledKernel{};
    const int64_t sh = shift->getInt(0);
    if (sh < 0 || sh > 63) return CompiledKernel{};  // a REQUIRE: the reference's verdict
    k->op_ = sh == 0 ? BinOp::Mul : BinOp::MulShift;
    k->p_.mulShift = sh;
    k->p_.mulRound = sh > 0 ? int64_t(1) << (sh - 1) : 0;
  } else {
    return CompiledKernel{};
  }

  const Shape& outShape = bin.results[0]->type.dims;
  if (!bin.results[0]->type.isStatic() || r1.results[0]->type.dims != outShape) return CompiledKernel{};
  auto xB = broadcastOf(r0.operands[0]->type.dims, outShape);
  auto aB = broadcastOf(bin.operands[k->aIndex_]->type.dims, outShape);
  if (!xB || !aB || (*xB != Bcast::Full && *aB != Bcast::Full)) return CompiledKernel{};
  k->xB_ = *xB;
  k->aB_ = *aB;
  k->xT_ = xT;
  k->outT_ = outT;
  k->n_ = numElements(outShape);
  k->C_ = std::max<int64_t>(1, outShape.empty() ? 1 : outShape.back());
  if (k->n_ == 0) return CompiledKernel{};
  // Rows of whole channel groups, long enough to vectorize well and to amortize the per-row call.
  k->L_ = k->C_ * std::max<int64_t>(1, 1024 / k->C_);
  k->inSpec_ = *inSpec;
  k->scalar_ = inSpec->multiplier.size() == 1 && outSpec->multiplier.size() == 1;
  k->p_.in.build(*inSpec, k->C_, k->L_);
  k->p_.out.build(*outSpec, k->C_, k->L_);
  k->p_.inZp = inSpec->inputZp;
  k->p_.outZp = outSpec->outputZp;
  k->p_.lo = dtypeMin(outT);
  k->p_.hi = dtypeMax(outT);
  // An i8 operand with one scale: its 256 rescaled values (through the table, if any), unless one of them
  // breaks apply_scale_32's range.
  if (xT == DType::I8) k->p_.inLut = rescaleLut(*inSpec, k->table_);
  // A table in front of a full-size x: its lookups composed with x's rescale (the 256 values above), or in
  // registers (VBMI) before the AVX-512 row. Declined where neither pays: values breaking the REQUIRE, or an
  // AVX-512 CPU without VBMI (the table's own step and the AVX-512 row are faster than composed lookups).
  if (t && k->xB_ == Bcast::Full && (k->p_.inLut.empty() || (dnn::hasAvx512Epilogue() && !hasVbmi())))
    return CompiledKernel{};

  CompiledKernel ck;
  // The first operand's rescale when the plan held it back for this op (its result has no other user).
  const OpChain::Producer* producer = chain.producers.size() > t + 1 ? &chain.producers[t + 1][k->aIndex_] : nullptr;
  if (std::optional<RescaleSpec> aSpec = producer ? absorbableRescale(*producer) : std::nullopt) {
    k->aAbsorbed_ = true;
    k->aT_ = producer->op->operands[0]->type.dtype;
    k->aSpec_ = *aSpec;
    k->p_.a.build(*aSpec, k->C_, k->L_);
    k->p_.aZp = aSpec->inputZp;
    if (k->aT_ == DType::I8) k->aLut_ = rescaleLut(*aSpec, {});
    ck.producers.push_back({int(t + 1), int(k->aIndex_)});
    const bool outSignedRound = outSpec->doubleRound && outSpec->shift[0] > 31;
    if (k->op_ == BinOp::Mul && k->aB_ == Bcast::Full && k->xB_ != Bcast::Full && k->aLut_.size() == 256 &&
        outSpec->multiplier.size() == 1 && !outSignedRound && (dnn::hasAvx512Epilogue() || dnn::hasAvx2Epilogue()))
      k->aFactor_ = linearFactor(k->aLut_, k->p_.aZp);
    k->outSpec_ = *outSpec;
  }

  ck.opsAbsorbed = int(t) + 3;
  // A following clamp on the result narrows the saturation bounds (integer bounds inside the type).
  if (chain.ops.size() > t + 3 && outT != DType::I32) {
    if (auto b = quantClampBounds(*chain.ops[t + 3], outT, k->p_.lo, k->p_.hi)) {
      k->p_.lo = b->first;
      k->p_.hi = b->second;
      ck.opsAbsorbed = int(t) + 4;
    }
  }
  ck.kernel = std::move(k);
  return ck;
}

int64_t quantBinaryScaledMulRunsForTesting() { return scaledMulRuns.load(); }

}  // namespace tosakit::fast
