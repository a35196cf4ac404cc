// The integer arithmetic of a quantized binary op, rescale(x8) -> add/sub/mul(a32, .) -> rescale [-> clamp],
// shared by its own pass (kernels/int8/binary.cpp) and the VNNI 1x1 kernel, which computes a residual add in its
// epilogue (kernels/int8/pointwise_vnni.cpp). Every step is the reference's: apply_scale_32 with single or double
// rounding, apply_add_s/apply_sub_s with their i32 REQUIRE, apply_mul_s. Private to src/fast.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "fast/kernels/int8/simd.h"
#include "fast/op_kernel.h"

namespace tosakit::fast {

enum class BinOp { Add, SubAB, SubBA, Mul, MulShift };  // SubAB: a - b (b = the rescaled operand); SubBA: b - a

// One tosa.rescale with constant parameters, per channel (one value for a per-tensor scale).
struct RescaleSpec {
  std::vector<int64_t> multiplier, shift;
  int64_t inputZp = 0, outputZp = 0;
  bool doubleRound = false;
};
// A signed scale32 rescale whose parameters are constants within the REQUIREs' ranges; nullopt otherwise.
std::optional<RescaleSpec> parseRescale(const ir::Operation& op, const std::vector<const Tensor*>& consts);
// An i8 operand with one scale: its 256 rescaled values at v + 128 (through `table` first, if any), or empty
// when one of them breaks apply_scale_32's range.
std::vector<int32_t> rescaleLut(const RescaleSpec& s, const std::vector<int8_t>& table);
// apply_scale_32 of one value in channel ch (its REQUIRE on the value's range checked: nullopt when it fails).
inline std::optional<int32_t> scaleValue(const RescaleSpec& s, size_t ch, int64_t value) {
  const int64_t sh = s.shift[ch];
  if (value < -(int64_t(1) << (sh - 1)) || value >= (int64_t(1) << (sh - 1))) return std::nullopt;
  int64_t round = int64_t(1) << (sh - 1);
  if (s.doubleRound && sh > 31) round += value >= 0 ? (int64_t(1) << 30) : -(int64_t(1) << 30);
  return int32_t((value * s.multiplier[ch] + round) >> sh);
}
// A held-back first operand's rescale (OpChain::Producer) a kernel can compute: i8/i16 -> i32, exact.
std::optional<RescaleSpec> absorbableRescale(const OpChain::Producer& p);
// The bounds of a tosa.clamp after the output rescale: integer bounds inside [lo, hi] of type t, or nullopt.
std::optional<std::pair<int64_t, int64_t>> quantClampBounds(const ir::Operation& clamp, DType t, int64_t lo,
                                                            int64_t hi);

// apply_scale_32's parameters of channel c: the multiplier, the rounding terms for values >= 0 and < 0 (equal
// unless double rounding with a shift > 31), the shift.
struct ScaleParams {
  int64_t mult = 0, roundPos = 0, roundNeg = 0, shift = 0;
};
inline ScaleParams scaleParams(const RescaleSpec& s, size_t c) {
  const int64_t sh = s.shift[c];
  int64_t rp = int64_t(1) << (sh - 1), rn = rp;
  if (s.doubleRound && sh > 31) rp += int64_t(1) << 30, rn -= int64_t(1) << 30;
  return {s.multiplier[c], rp, rn, sh};
}

TK_AVX512 inline dnn::ScaleRegs scaleRegs(const ScaleParams& p) {
  return dnn::scaleRegs(p.mult, p.roundPos, p.roundNeg, p.shift);
}

// apply_scale_32 of 16 lanes with one scale (kernels/int8/simd.h scale16). kSignedRound false: the rounding term
// is the same for both signs (single rounding, or a shift <= 31), and no lane needs its sign looked at.
template <bool kSignedRound>
TK_AVX512 inline __m512i scaleLanes(__m512i v, const dnn::ScaleRegs& r) {
  if constexpr (kSignedRound) {
    return dnn::scale16(v, r);
  } else {
    const __m512i e = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(v, r.mult), r.round), r.shift);
    const __m512i vO = _mm512_srli_epi64(v, 32);
    const __m512i o = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(vO, r.mult), r.round), r.shift);
    return _mm512_mask_blend_epi32(__mmask16(0xaaaa), e, _mm512_slli_epi64(o, 32));
  }
}

// The op and the output rescale (one scale) in AVX-512 registers.
struct BinaryTailRegs {
  dnn::ScaleRegs out;
  __m512i rlo, rhi, ozp, lo, hi;  // apply_scale_32's value range as inclusive i32 bounds; zero point; clip
};
TK_AVX512 inline BinaryTailRegs binaryTailRegs(const ScaleParams& out, int64_t outZp, int64_t lo, int64_t hi) {
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min(), kMax = std::numeric_limits<int32_t>::max();
  const int64_t half = int64_t(1) << (out.shift - 1);  // the range is every i32 once shift >= 32
  return {scaleRegs(out),
          _mm512_set1_epi32(int32_t(std::max(-half, kMin))),
          _mm512_set1_epi32(int32_t(std::min(half - 1, kMax))),
          _mm512_set1_epi32(int32_t(outZp)),
          _mm512_set1_epi32(int32_t(lo)),
          _mm512_set1_epi32(int32_t(hi))};
}

// 16 lanes (m: those that exist) of clamp(rescale(op(a, b)) + zp): sums and differences wrap in i32 and flag an
// overflow by the operands' and the result's signs in ovf's sign bits (the reference's i32 REQUIRE); mul keeps
// the low 32 bits (apply_mul_s). The output rescale's value range is checked per lane (outside); its result has
// |r| <= 2^30 under that REQUIRE, so adding the output zero point cannot overflow.
template <BinOp kOp, bool kSignedRound = true>
TK_AVX512 inline __m512i binaryTail16(__m512i a, __m512i b, const BinaryTailRegs& r, __mmask16 m, __m512i& ovf,
                                      __mmask16& outside) {
  __m512i v;
  if constexpr (kOp == BinOp::Add) {
    v = _mm512_add_epi32(a, b);  // overflow: the sum's sign differs from both operands'
    ovf = _mm512_mask_ternarylogic_epi32(ovf, m, _mm512_xor_si512(a, v), _mm512_xor_si512(b, v), 0xf8);
  } else if constexpr (kOp == BinOp::SubAB) {
    v = _mm512_sub_epi32(a, b);  // overflow: operands of different signs and the result's differs from a's
    ovf = _mm512_mask_ternarylogic_epi32(ovf, m, _mm512_xor_si512(a, b), _mm512_xor_si512(a, v), 0xf8);
  } else if constexpr (kOp == BinOp::SubBA) {
    v = _mm512_sub_epi32(b, a);
    ovf = _mm512_mask_ternarylogic_epi32(ovf, m, _mm512_xor_si512(b, a), _mm512_xor_si512(b, v), 0xf8);
  } else {  // Mul (a MulShift row is computed in 64 bits by fusedRow, never here)
    v = _mm512_mullo_epi32(a, b);
  }
  outside |= _mm512_mask_cmplt_epi32_mask(m, v, r.rlo) | _mm512_mask_cmpgt_epi32_mask(m, v, r.rhi);
  v = _mm512_add_epi32(scaleLanes<kSignedRound>(v, r.out), r.ozp);
  return _mm512_min_epi32(_mm512_max_epi32(v, r.lo), r.hi);
}

}  // namespace tosakit::fast
