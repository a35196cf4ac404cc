// The exact integer epilogue (kernels/int8/int8.h) on 16 i32 lanes in AVX-512 registers, shared by the epilogue pass
// after oneDNN (kernels/int8/epilogue.cpp), the int8 depthwise kernel (kernels/int8/depthwise.cpp) and the VNNI
// 1x1/matmul kernel (kernels/int8/pointwise_vnni.cpp). Only for
// functions compiled with TK_AVX512 and called after hasAvx512Epilogue().
#pragma once
#include <immintrin.h>

#include "fast/kernels/int8/int8.h"

#define TK_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

namespace tosakit::fast::dnn {

// The lanes of channels cb..cb+15 that exist among C channels.
inline __mmask16 laneMask(int64_t C, int64_t cb) {
  return C - cb >= 16 ? __mmask16(0xffff) : __mmask16((1u << (C - cb)) - 1);
}

// The narrowing in a register, then a plain store (a full vector) or a masked one: the memory forms of
// vpmovdb/vpmovdw are slow on some CPUs (AMD Zen 4).
template <typename OutT>
TK_AVX512 inline void storeNarrow(OutT* out, __m512i v, __mmask16 m) {
  if constexpr (sizeof(OutT) == 1) {
    const __m128i b = _mm512_cvtepi32_epi8(v);
    if (m == 0xffff)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out), b);
    else
      _mm_mask_storeu_epi8(out, m, b);
  } else if constexpr (sizeof(OutT) == 2) {
    const __m256i h = _mm512_cvtepi32_epi16(v);
    if (m == 0xffff)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), h);
    else
      _mm256_mask_storeu_epi16(out, m, h);
  } else {
    _mm512_mask_storeu_epi32(out, m, v);
  }
}

// floor(x * m + r) as i32 for 16 lanes held as two halves of 8 doubles: the last steps of a rescale in fp64,
// exact when every x * m + r is an integer times a power of two below 2^53 (the callers' bounds: the FMA's one
// rounding then leaves it exact, and the conversion rounding towards -inf is the arithmetic shift).
TK_AVX512 inline __m512i floorFma16(__m512d xLo, __m512d xHi, __m512d mLo, __m512d mHi, __m512d rLo, __m512d rHi) {
  constexpr int kFloor = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
  const __m256i lo = _mm512_maskz_cvt_roundpd_epi32(0xff, _mm512_fmadd_pd(xLo, mLo, rLo), kFloor);
  const __m256i hi = _mm512_maskz_cvt_roundpd_epi32(0xff, _mm512_fmadd_pd(xHi, mHi, rHi), kFloor);
  return _mm512_inserti64x4(_mm512_zextsi256_si512(lo), hi, 1);
}

// The parameters of channels cb..cb+15 (bias of the given class row).
struct EpiRegs {
  __m512i bias, rlo, rhi, mE, mO, shE, shO, rpE, rpO, rnE, rnO, zp, lo, hi;
};
TK_AVX512 inline EpiRegs loadEpi(const IntEpilogueLanes& e, const int32_t* biasRow, int64_t cb) {
  EpiRegs r;
  const int64_t h = cb / 2;
  r.bias = _mm512_loadu_si512(biasRow + cb);
  r.rlo = _mm512_loadu_si512(e.rangeLo.data() + cb), r.rhi = _mm512_loadu_si512(e.rangeHi.data() + cb);
  r.mE = _mm512_loadu_si512(e.multE.data() + h), r.mO = _mm512_loadu_si512(e.multO.data() + h);
  r.shE = _mm512_loadu_si512(e.shiftE.data() + h), r.shO = _mm512_loadu_si512(e.shiftO.data() + h);
  r.rpE = _mm512_loadu_si512(e.roundPosE.data() + h), r.rpO = _mm512_loadu_si512(e.roundPosO.data() + h);
  r.rnE = _mm512_loadu_si512(e.roundNegE.data() + h), r.rnO = _mm512_loadu_si512(e.roundNegO.data() + h);
  r.zp = _mm512_set1_epi32(e.zp), r.lo = _mm512_set1_epi32(e.lo), r.hi = _mm512_set1_epi32(e.hi);
  return r;
}

// Sign bits of `ovf`: some acc + bias overflowed i32; `outside`: some value outside apply_scale_32's range.
struct EpiFlags {
  __m512i ovf;
  __mmask16 outside;
};

// The shared epilogue's arithmetic (onednn/common.cpp epilogueRow) on 16 lanes (mask m: the channels that
// exist): acc + bias wrapping in i32 (kOverflow: an overflow sets a sign bit in f.ovf), apply_scale_32's value range (kRange:
// with every shift >= 32 it is all of i32), the 32x32 -> 64-bit product plus the rounding term (kDouble: the
// negative one for negative values), the arithmetic shift, the low 32 bits plus the output zero point, then the
// clip to [lo, hi]. Even and odd lanes go through the 64-bit steps separately (vpmuldq takes the low halves)
// and are merged back by a blend: no lane shuffles.
template <typename OutT, bool kRescale, bool kDouble, bool kRange, bool kOverflow>
TK_AVX512 inline void epilogue16(__m512i acc, const EpiRegs& r, OutT* out, __mmask16 m, EpiFlags& f) {
  __m512i v = _mm512_add_epi32(acc, r.bias);
  // ovf |= (acc ^ v) & (bias ^ v): the sum's sign differs from both operands' signs. Not needed (kOverflow
  // false) when the accumulator's bound and the biases cannot reach it.
  if constexpr (kOverflow)
    f.ovf = _mm512_ternarylogic_epi32(f.ovf, _mm512_xor_si512(acc, v), _mm512_xor_si512(r.bias, v), 0xf8);
  if constexpr (kRescale) {
    if constexpr (kRange)
      f.outside |= _mm512_mask_cmplt_epi32_mask(m, v, r.rlo) | _mm512_mask_cmpgt_epi32_mask(m, v, r.rhi);
    const __m512i vO = _mm512_srli_epi64(v, 32);  // odd lanes down; vpmuldq sign-extends the low halves
    __m512i roundE = r.rpE, roundO = r.rpO;
    if constexpr (kDouble) {  // the sign of the even lane is bit 31 of the 64-bit lane, the odd one's bit 63
      roundE = _mm512_mask_blend_epi64(_mm512_movepi64_mask(_mm512_slli_epi64(v, 32)), r.rpE, r.rnE);
      roundO = _mm512_mask_blend_epi64(_mm512_movepi64_mask(v), r.rpO, r.rnO);
    }
    const __m512i e = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(v, r.mE), roundE), r.shE);
    const __m512i o = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(vO, r.mO), roundO), r.shO);
    v = _mm512_mask_blend_epi32(__mmask16(0xaaaa), e, _mm512_slli_epi64(o, 32));
    v = _mm512_add_epi32(v, r.zp);
  }
  v = _mm512_min_epi32(_mm512_max_epi32(v, r.lo), r.hi);
  storeNarrow(out, v, m);
}

struct ScaleRegs {
  __m512i mult, round, roundNeg, shift;
};
TK_AVX512 inline ScaleRegs scaleRegs(int64_t m, int64_t rp, int64_t rn, int64_t sh) {
  return {_mm512_set1_epi64(m), _mm512_set1_epi64(rp), _mm512_set1_epi64(rn), _mm512_set1_epi64(sh)};
}
// apply_scale_32 of 16 i32 lanes with one scale (the value range known to hold): even and odd lanes through
// vpmuldq separately, the rounding term by each value's sign (equal terms unless double rounding), merged by a
// blend.
TK_AVX512 inline __m512i scale16(__m512i v, const ScaleRegs& r) {
  const __m512i vO = _mm512_srli_epi64(v, 32);
  const __m512i roundE = _mm512_mask_blend_epi64(_mm512_movepi64_mask(_mm512_slli_epi64(v, 32)), r.round, r.roundNeg);
  const __m512i roundO = _mm512_mask_blend_epi64(_mm512_movepi64_mask(v), r.round, r.roundNeg);
  const __m512i e = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(v, r.mult), roundE), r.shift);
  const __m512i o = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(vO, r.mult), roundO), r.shift);
  return _mm512_mask_blend_epi32(__mmask16(0xaaaa), e, _mm512_slli_epi64(o, 32));
}

TK_AVX512 inline bool epiFlagsOk(const EpiFlags& f) { return _mm512_movepi32_mask(f.ovf) == 0 && f.outside == 0; }

}  // namespace tosakit::fast::dnn
