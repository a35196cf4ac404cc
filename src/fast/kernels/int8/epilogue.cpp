// The AVX-512 form of the integer epilogue pass after oneDNN's s32 accumulators (onednn/common.cpp
// runIntEpilogue): bias, RESCALE, CLAMP on 16 channels per vector with the per-channel parameters held in
// registers over a block of rows (kernels/int8/simd.h). The auto-vectorized pass it replaces loaded five
// parameter arrays per element (three of them 64-bit) and widened every value to 64 bits; on mobilenet_v2 int8
// it took a third of the inference. Same arithmetic, same REQUIRE checks (see kernels/int8/int8.h).
#include <algorithm>
#include <cstdlib>

#include "fast/cpu_features.h"
#include "fast/kernels/int8/simd.h"
#include "fast/kernels/int8/simd_avx2.h"

// GCC 12 reports the intrinsics' deliberately undefined pass-through operands (_mm512_undefined_*, under an
// all-ones mask) as uninitialized once inlined (GCC bug 105593); no undefined value is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tosakit::fast::dnn {
namespace {

constexpr int64_t kRowBlock = 8;  // rows that share one load of the parameters

template <typename OutT, bool kRescale, bool kDouble, bool kRange, bool kOverflow>
TK_AVX512 bool rowsAvx512(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t r0, int64_t r1) {
  const IntEpilogueLanes& l = e.simd;
  const int64_t C = e.channels, Cp = (C + 15) / 16 * 16, perImage = int64_t(e.rowClass.size());
  EpiFlags f{_mm512_setzero_si512(), 0};
  for (int64_t rb = r0; rb < r1; rb += kRowBlock) {
    const int64_t re = std::min(r1, rb + kRowBlock);
    for (int64_t cb = 0; cb < C; cb += 16) {
      const __mmask16 m = laneMask(C, cb);
      EpiRegs r = loadEpi(l, l.bias.data(), cb);
      for (int64_t row = rb; row < re; ++row) {
        // Zero-point compensation: the bias vector of the position's class.
        if (perImage) r.bias = _mm512_loadu_si512(l.bias.data() + e.rowClass[size_t(row % perImage)] / C * Cp + cb);
        const __m512i a = _mm512_maskz_loadu_epi32(m, acc + row * C + cb);
        epilogue16<OutT, kRescale, kDouble, kRange, kOverflow>(a, r, out + row * C + cb, m, f);
      }
    }
  }
  return epiFlagsOk(f);
}

template <typename OutT, bool kOverflow>
bool dispatch(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t r0, int64_t r1) {
  if (!e.rescale) return rowsAvx512<OutT, false, false, false, kOverflow>(e, acc, out, r0, r1);
  if (e.doubleRound)
    return e.rangeCheck ? rowsAvx512<OutT, true, true, true, kOverflow>(e, acc, out, r0, r1)
                        : rowsAvx512<OutT, true, true, false, kOverflow>(e, acc, out, r0, r1);
  return e.rangeCheck ? rowsAvx512<OutT, true, false, true, kOverflow>(e, acc, out, r0, r1)
                      : rowsAvx512<OutT, true, false, false, kOverflow>(e, acc, out, r0, r1);
}

template <typename OutT>
bool dispatch(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t r0, int64_t r1) {
  return e.simd.noOverflow ? dispatch<OutT, false>(e, acc, out, r0, r1) : dispatch<OutT, true>(e, acc, out, r0, r1);
}

// The AVX2 pass (CPUs without AVX-512): the same on 8 channels per vector (kernels/int8/simd_avx2.h), always with
// the checks (a few operations per 8 values). The generic pass it replaces widened every value to 64 bits with
// five parameter arrays per element.
template <typename OutT, bool kRescale>
TK_TARGET_AVX2 bool rowsAvx2(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t r0, int64_t r1) {
  const IntEpilogueLanes& l = e.simd;
  const int64_t C = e.channels, Cp = (C + 15) / 16 * 16, perImage = int64_t(e.rowClass.size());
  EpiFlags8 f = epiFlags8();
  const __m256i laneIndex = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t rb = r0; rb < r1; rb += kRowBlock) {
    const int64_t re = std::min(r1, rb + kRowBlock);
    for (int64_t cb = 0; cb < C; cb += 8) {
      const int n = int(std::min<int64_t>(8, C - cb));
      const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), laneIndex);
      EpiRegs8 r = loadEpi8(l, l.bias.data(), cb);
      for (int64_t row = rb; row < re; ++row) {
        // Zero-point compensation: the bias vector of the position's class.
        if (perImage)
          r.bias = _mm256_loadu_si256(
              reinterpret_cast<const __m256i*>(l.bias.data() + e.rowClass[size_t(row % perImage)] / C * Cp + cb));
        const int32_t* a = acc + row * C + cb;
        const __m256i v =
            n == 8 ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)) : _mm256_maskload_epi32(a, m);
        epilogue8<OutT, kRescale>(v, r, out + row * C + cb, n, f);
      }
    }
  }
  return epiFlags8Ok(f);
}

template <typename OutT>
bool dispatchAvx2(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t r0, int64_t r1) {
  return e.rescale ? rowsAvx2<OutT, true>(e, acc, out, r0, r1) : rowsAvx2<OutT, false>(e, acc, out, r0, r1);
}

bool forceGeneric = false;

}  // namespace

bool hasAvx2Epilogue() {
  if (forceGeneric) return false;
  return cpu::has(cpu::Isa::Avx2);
}

bool runIntEpilogueAvx2(const IntEpilogue& e, const int32_t* acc, void* out, int64_t r0, int64_t r1) {
  switch (e.outType) {
    case DType::I8: return dispatchAvx2(e, acc, static_cast<int8_t*>(out), r0, r1);
    case DType::I16: return dispatchAvx2(e, acc, static_cast<int16_t*>(out), r0, r1);
    default: return dispatchAvx2(e, acc, static_cast<int32_t*>(out), r0, r1);
  }
}

void setIntEpilogueGenericForTesting(bool on) { forceGeneric = on; }

bool hasAvx512Epilogue() {
  if (forceGeneric) return false;
  return cpu::has(cpu::Isa::Avx512);
}

// The parameters of rescaleHi8 (simd_avx2.h, where its exactness is argued), when every channel allows it: a
// shift in [32, 54] (the sum v * m + round + output_zp * 2^shift then stays inside int64) and one rounding term for
// both signs.
static void buildHiForm(const IntEpilogue& e, IntEpilogueLanes& l) {
  const int64_t C = e.channels, Cp = (C + 15) / 16 * 16, H = Cp / 2;
  l.hiForm = false;
  if (!e.rescale) return;
  for (int64_t c = 0; c < C; ++c) {
    const int64_t sh = e.shift[size_t(c)];
    if (sh < 32 || sh > 54 || e.roundPos[size_t(c)] != e.roundNeg[size_t(c)]) return;
  }
  l.roundZpE.assign(size_t(H), 0), l.roundZpO.assign(size_t(H), 0);
  l.shiftHi.assign(size_t(Cp), 0);
  for (int64_t c = 0; c < C; ++c) {
    const int64_t sh = e.shift[size_t(c)];
    (c % 2 ? l.roundZpO : l.roundZpE)[size_t(c / 2)] = e.roundPos[size_t(c)] + e.outputZp * (int64_t(1) << sh);
    l.shiftHi[size_t(c)] = int32_t(sh - 32);
  }
  l.hiForm = true;
}

void buildIntEpilogueLanes(const IntEpilogue& e, const int32_t* bias, int64_t classes) {
  const int64_t C = e.channels, Cp = (C + 15) / 16 * 16, H = Cp / 2;
  IntEpilogueLanes& l = e.simd;
  l.bias.assign(size_t(classes * Cp), 0);
  int64_t maxBias = 0;
  for (int64_t k = 0; k < classes; ++k)
    for (int64_t c = 0; c < C; ++c) {
      l.bias[size_t(k * Cp + c)] = bias[k * C + c];
      maxBias = std::max<int64_t>(maxBias, std::abs(int64_t(bias[k * C + c])));
    }
  // |acc + bias| <= accBound + max|bias| <= 2^31 - 1: the sum cannot overflow (a run-time bias is checked).
  l.noOverflow = !e.runtimeBias && e.accBound <= int64_t(INT32_MAX) - maxBias;
  if (int64_t(l.rangeLo.size()) == Cp) return;  // the rest does not change between runs
  l.rangeLo.assign(size_t(Cp), INT32_MIN), l.rangeHi.assign(size_t(Cp), INT32_MAX);
  for (auto* v : {&l.multE, &l.multO, &l.shiftE, &l.shiftO, &l.roundPosE, &l.roundPosO, &l.roundNegE, &l.roundNegO})
    v->assign(size_t(H), 0);
  for (int64_t c = 0; c < C && e.rescale; ++c) {
    // apply_scale_32's REQUIRE: value in [-2^(shift-1), 2^(shift-1)), as an inclusive i32 range.
    const int64_t sh = e.shift[size_t(c)], half = int64_t(1) << std::min<int64_t>(sh - 1, 31);
    l.rangeLo[size_t(c)] = int32_t(std::max<int64_t>(-half, INT32_MIN));
    l.rangeHi[size_t(c)] = int32_t(std::min<int64_t>(half - 1, INT32_MAX));
    const size_t i = size_t(c / 2);
    const bool odd = c % 2;
    (odd ? l.multO : l.multE)[i] = e.multiplier[size_t(c)];
    (odd ? l.shiftO : l.shiftE)[i] = sh;
    (odd ? l.roundPosO : l.roundPosE)[i] = e.roundPos[size_t(c)];
    (odd ? l.roundNegO : l.roundNegE)[i] = e.roundNeg[size_t(c)];
  }
  // The clip: saturation to the result type after a rescale, then the clamp's bounds (inside the type's).
  int64_t lo = e.rescale ? dtypeMin(e.outType) : INT32_MIN, hi = e.rescale ? dtypeMax(e.outType) : INT32_MAX;
  if (e.clamp) lo = std::max(lo, e.clampLo), hi = std::min(hi, e.clampHi);
  l.lo = int32_t(std::max<int64_t>(lo, INT32_MIN)), l.hi = int32_t(std::min<int64_t>(hi, INT32_MAX));
  l.zp = int32_t(e.outputZp);
  const int64_t bias62 = int64_t(1) << 62;
  const auto plus62 = [&](const std::vector<int64_t>& v) {
    std::vector<int64_t> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) r[i] = v[i] + bias62;
    return r;
  };
  l.roundPos62E = plus62(l.roundPosE), l.roundPos62O = plus62(l.roundPosO);
  l.roundNeg62E = plus62(l.roundNegE), l.roundNeg62O = plus62(l.roundNegO);
  l.zp62.assign(size_t(Cp), 0);
  for (int64_t c = 0; c < Cp; ++c) {
    const int64_t sh = (c % 2 ? l.shiftO : l.shiftE)[size_t(c / 2)];
    l.zp62[size_t(c)] = int32_t(uint32_t(l.zp) - uint32_t(uint64_t(bias62) >> sh));
  }
  buildHiForm(e, l);
}

bool runIntEpilogueAvx512(const IntEpilogue& e, const int32_t* acc, void* out, int64_t r0, int64_t r1) {
  switch (e.outType) {
    case DType::I8: return dispatch(e, acc, static_cast<int8_t*>(out), r0, r1);
    case DType::I16: return dispatch(e, acc, static_cast<int16_t*>(out), r0, r1);
    default: return dispatch(e, acc, static_cast<int32_t*>(out), r0, r1);
  }
}

}  // namespace tosakit::fast::dnn

#pragma GCC diagnostic pop
