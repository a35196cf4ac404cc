// The exact integer epilogue (kernels/int8/int8.h) on 8 i32 lanes in AVX2 registers: the 8-lane form of
// simd.h's epilogue16, for CPUs without AVX-512 (the AVX2 epilogue pass in kernels/int8/epilogue.cpp and the
// AVX2 convolution kernels, kernels/int8/conv_avx2.cpp and depthwise.cpp, which apply it to their accumulator
// registers). Same per-channel parameters (IntEpilogueLanes: channels padded to 16, the 64-bit ones split by
// parity, so the 4 even lanes of channels cb..cb+7 are entries cb/2..cb/2+3 of the E arrays). Only for functions
// compiled with TK_TARGET_AVX2 and called after hasAvx2Epilogue().
#pragma once
#include <immintrin.h>

#include <cstring>

#include "fast/isa_dispatch.h"
#include "fast/kernels/int8/int8.h"

namespace tosakit::fast::dnn {

// The parameters of channels cb..cb+7 (cb a multiple of 8; bias of the given class row).
struct EpiRegs8 {
  __m256i bias, rlo, rhi, mE, mO, shE, shO, rpE, rpO, rnE, rnO, zp, lo, hi;
};
TK_TARGET_AVX2 inline __m256i load8(const void* p) { return _mm256_loadu_si256(static_cast<const __m256i*>(p)); }
TK_TARGET_AVX2 inline __attribute__((always_inline)) EpiRegs8 loadEpi8(const IntEpilogueLanes& e,
                                                                       const int32_t* biasRow, int64_t cb) {
  EpiRegs8 r;
  const int64_t h = cb / 2;
  r.bias = load8(biasRow + cb), r.rlo = load8(e.rangeLo.data() + cb), r.rhi = load8(e.rangeHi.data() + cb);
  r.mE = load8(e.multE.data() + h), r.mO = load8(e.multO.data() + h);
  r.shE = load8(e.shiftE.data() + h), r.shO = load8(e.shiftO.data() + h);
  // AVX2 shifts 64-bit lanes only logically: the rounding terms carry 2^62, which makes every v * m + round
  // positive and below 2^64 (|v * m| < 2^62, 0 <= round <= 2^61 + 2^30), so the logical shift is the arithmetic
  // one of the true sum plus 2^62 >> shift, taken off again with the zero point (modulo 2^32: only the low 32
  // bits are kept). Both precomputed (buildIntEpilogueLanes).
  r.rpE = load8(e.roundPos62E.data() + h), r.rpO = load8(e.roundPos62O.data() + h);
  r.rnE = load8(e.roundNeg62E.data() + h), r.rnO = load8(e.roundNeg62O.data() + h);
  r.zp = load8(e.zp62.data() + cb), r.lo = _mm256_set1_epi32(e.lo), r.hi = _mm256_set1_epi32(e.hi);
  return r;
}

// Sign bits of `ovf`: some acc + bias overflowed i32; sign bits of `outside`: some value outside
// apply_scale_32's range.
struct EpiFlags8 {
  __m256i ovf, outside;
};
TK_TARGET_AVX2 inline EpiFlags8 epiFlags8() { return {_mm256_setzero_si256(), _mm256_setzero_si256()}; }
TK_TARGET_AVX2 inline bool epiFlags8Ok(const EpiFlags8& f) {
  return _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_or_si256(f.ovf, f.outside))) == 0;
}

// n (1..8) narrowed values to out (the lanes that exist).
template <typename OutT>
TK_TARGET_AVX2 inline void storeNarrow8(OutT* out, __m256i v, int n) {
  if constexpr (sizeof(OutT) == 4) {
    if (n == 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v);
      return;
    }
    alignas(32) int32_t tmp[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), v);
    std::memcpy(out, tmp, size_t(n) * 4);
  } else {
    // The values are clipped to the type's range: the saturating packs keep them. packs works per 128-bit
    // half, so the halves' 4 i16 each are brought together first.
    const __m256i p = _mm256_permute4x64_epi64(_mm256_packs_epi32(v, v), 0x08);
    const __m128i h = _mm256_castsi256_si128(p);  // 8 i16
    if constexpr (sizeof(OutT) == 2) {
      if (n == 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), h);
      else
        std::memcpy(out, &h, size_t(n) * 2);
    } else {
      const __m128i b = _mm_packs_epi16(h, h);
      if (n == 8)
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), b);
      else
        std::memcpy(out, &b, size_t(n));
    }
  }
}

// epilogue16's arithmetic (see simd.h) on 8 lanes, by default with the overflow and range checks and the
// rounding term by the value's sign (with single rounding both terms are equal; without a shift <= 31 the range
// is all of i32): acc + bias wrapping in i32, the range check, the 32x32 -> 64-bit product of the even and the odd
// lanes plus the rounding term, the arithmetic shift, the low 32 bits plus the output zero point, the clip to
// [lo, hi]. kRescale false: bias and clip only (an i32 result).
// Kernels that know more leave out what cannot matter, as epilogue16 does: kDouble false (single rounding: both
// rounding terms equal), kRange false (every shift >= 32: the range is all of i32), kOverflow false (the
// accumulators' bound and the biases cannot overflow: IntEpilogueLanes::noOverflow).
// rescale8: the value before the clip; epilogue8: clipped and stored.
template <bool kRescale = true, bool kDouble = true, bool kRange = true, bool kOverflow = true>
TK_TARGET_AVX2 inline __attribute__((always_inline)) __m256i rescale8(__m256i acc, const EpiRegs8& r, EpiFlags8& f) {
  __m256i v = _mm256_add_epi32(acc, r.bias);
  if constexpr (kOverflow)
    f.ovf = _mm256_or_si256(f.ovf, _mm256_and_si256(_mm256_xor_si256(acc, v), _mm256_xor_si256(r.bias, v)));
  if constexpr (kRescale) {
    if constexpr (kRange)
      f.outside =
          _mm256_or_si256(f.outside, _mm256_or_si256(_mm256_cmpgt_epi32(r.rlo, v), _mm256_cmpgt_epi32(v, r.rhi)));
    __m256i roundE = r.rpE, roundO = r.rpO;
    if constexpr (kDouble) {  // the 64-bit lanes' rounding terms by the sign of their even / odd i32
      const __m256i neg = _mm256_srai_epi32(v, 31);
      const __m256i negE = _mm256_shuffle_epi32(neg, _MM_SHUFFLE(2, 2, 0, 0));
      const __m256i negO = _mm256_shuffle_epi32(neg, _MM_SHUFFLE(3, 3, 1, 1));
      roundE = _mm256_blendv_epi8(r.rpE, r.rnE, negE), roundO = _mm256_blendv_epi8(r.rpO, r.rnO, negO);
    }
    // (the rounding terms carry 2^62: loadEpi8)
    const __m256i e = _mm256_srlv_epi64(_mm256_add_epi64(_mm256_mul_epi32(v, r.mE), roundE), r.shE);
    const __m256i o =
        _mm256_srlv_epi64(_mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), r.mO), roundO), r.shO);
    v = _mm256_blend_epi32(e, _mm256_slli_epi64(o, 32), 0xaa);
    v = _mm256_add_epi32(v, r.zp);
  }
  return v;
}

template <typename OutT, bool kRescale = true, bool kDouble = true, bool kRange = true, bool kOverflow = true>
TK_TARGET_AVX2 inline void epilogue8(__m256i acc, const EpiRegs8& r, OutT* out, int n, EpiFlags8& f) {
  const __m256i v = rescale8<kRescale, kDouble, kRange, kOverflow>(acc, r, f);
  storeNarrow8(out, _mm256_min_epi32(_mm256_max_epi32(v, r.lo), r.hi), n);
}

// The shorter form of the rescale (IntEpilogueLanes::hiForm: every shift in [32, 54], one rounding term r for both
// signs) on v = acc + bias, with the output zero point, before the clip. Why it is exact: P = v * m + r +
// output_zp * 2^shift is below 2^62 + 2^53 + 2^61 < 2^63 in magnitude (|v| <= 2^31, m < 2^31, r <= 2^53, |zp| <=
// 2^7, shift <= 54), so the 64-bit sum of vpmuldq's exact product and the precomputed term cannot wrap; its high
// 32 bits are floor(P / 2^32) (an i32 as |P| < 2^63), and the arithmetic 32-bit shift by shift - 32 >= 0 gives
// floor(P / 2^shift) = ((v * m + r) >> shift) + output_zp, output_zp * 2^shift being a multiple of 2^shift: the
// reference's apply_scale_32/16 plus the zero point (|result| <= 2^30 for shift >= 32: no i32 overflow). Against
// rescale8's single-rounding form: no 2^62 terms, no 64-bit shifts (vpsravd on the 8 high halves instead of two
// vpsrlvq, a shift and a blend), no zero-point add. The bias is expected in v already (the callers start their
// accumulators at it when IntEpilogueLanes::noOverflow says the sum cannot overflow).
struct EpiHiRegs8 {
  __m256i mE, mO, rE, rO, sh;
};
TK_TARGET_AVX2 inline __attribute__((always_inline)) EpiHiRegs8 loadEpiHi8(const IntEpilogueLanes& e, int64_t cb) {
  const int64_t h = cb / 2;
  return {load8(e.multE.data() + h), load8(e.multO.data() + h), load8(e.roundZpE.data() + h),
          load8(e.roundZpO.data() + h), load8(e.shiftHi.data() + cb)};
}
TK_TARGET_AVX2 inline __attribute__((always_inline)) __m256i rescaleHi8(__m256i v, const EpiHiRegs8& r) {
  const __m256i e = _mm256_add_epi64(_mm256_mul_epi32(v, r.mE), r.rE);
  const __m256i o = _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(v, 32), r.mO), r.rO);
  return _mm256_srav_epi32(_mm256_blend_epi32(_mm256_srli_epi64(e, 32), o, 0xaa), r.sh);
}

// 16 i32 (a: the first 8, b: the next 8) as 16 i8, saturated (one pack for 16 values instead of per 8).
TK_TARGET_AVX2 inline __attribute__((always_inline)) __m128i packBytes16(__m256i a, __m256i b) {
  // packs works per 128-bit half: [a0-3 b0-3 | a4-7 b4-7] as i16, reordered to [a | b] before the byte pack.
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), _MM_SHUFFLE(3, 1, 2, 0));
  return _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

// 16 values before the clip as 16 i8 clipped to [lo, hi] (within i8's range): the saturating packs give i8's
// range, the clamp is applied to the bytes.
TK_TARGET_AVX2 inline __attribute__((always_inline)) void storeClipped16(int8_t* out, __m256i a, __m256i b, __m128i lo,
                                                                         __m128i hi) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_min_epi8(_mm_max_epi8(packBytes16(a, b), lo), hi));
}

// Two rows of 16 values before the clip (a0, b0: row 0's channels 0-7 and 8-15; a1, b1: row 1's) as i8 clipped to
// [lo, hi] (bytes, within i8's range), to out0 and out1: both rows in one byte pack (storeClipped16 twice takes
// 12 operations, this 7). packs work per 128-bit half, so the bytes come out as the dwords [a0 0-3, b0 0-3, a1
// 0-3, b1 0-3 | a0 4-7, b0 4-7, a1 4-7, b1 4-7], put in row order by one dword permute.
TK_TARGET_AVX2 inline __attribute__((always_inline)) void storeClipped16x2(int8_t* out0, int8_t* out1, __m256i a0,
                                                                           __m256i b0, __m256i a1, __m256i b1,
                                                                           __m256i lo, __m256i hi) {
  const __m256i bytes = _mm256_packs_epi16(_mm256_packs_epi32(a0, b0), _mm256_packs_epi32(a1, b1));
  const __m256i rows = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
  const __m256i y = _mm256_min_epi8(_mm256_max_epi8(rows, lo), hi);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out0), _mm256_castsi256_si128(y));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out1), _mm256_extracti128_si256(y, 1));
}

// 16 bytes saturated to i8 (two rows' or pixels' 8 channels), clipped to [lo, hi] (within i8's range): the low 8
// to outA, the high 8 to outB.
TK_TARGET_AVX2 inline __attribute__((always_inline)) void storeClippedPair(__m128i bytes, int32_t lo, int32_t hi,
                                                                           int8_t* outA, int8_t* outB) {
  bytes = _mm_min_epi8(_mm_max_epi8(bytes, _mm_set1_epi8(int8_t(lo))), _mm_set1_epi8(int8_t(hi)));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(outA), bytes);
  _mm_storeh_pd(reinterpret_cast<double*>(outB), _mm_castsi128_pd(bytes));
}

}  // namespace tosakit::fast::dnn
