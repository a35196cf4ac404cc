// int8 DEPTHWISE_CONV2D on AVX2 (no AVX-512): the AVX-512 kernel's exact fp32 tap sums (kernels/int8/depthwise.cpp,
// whose top comment gives the exactness argument) on 8 lanes, with the epilogue's 8-lane form.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "fast/cpu_features.h"
#include "fast/isa_dispatch.h"
#include "fast/kernels/common.h"
#include "fast/kernels/int8/depthwise_int8.h"
#include "fast/kernels/int8/simd_avx2.h"
#include "fast/onednn/common.h"
#include "fast/parallel_items.h"

// GCC 12 reports the intrinsics' deliberately undefined pass-through operands as uninitialized once inlined into
// these loops (GCC bug 105593); no undefined value is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tosakit::fast {
namespace {

using namespace dnn;
using namespace dwint8;

// ---- AVX2 (no AVX-512): the same exact fp32 tap sums on 8 lanes, converted to i32 in registers and through the
// epilogue's 8-lane form (kernels/int8/simd_avx2.h: bias with its overflow check, RESCALE with its range check,
// CLAMP). Any stride, dilation and padding; one band of output rows per
// thread (per image when there are enough images).

// The kernel rows [ky0, ky1) an output row reads (RowPlan: the others read only padding rows and are skipped).
struct KyRange {
  int64_t ky0 = 0, ky1 = 0;
};

// Padded row py of image n as fp32 (as convertRow: input_zp outside the input, 0 in the channel padding).
TK_TARGET_AVX2 void convertRowAvx2(const Geometry& g, const int8_t* x, int64_t n, int64_t py, float zp, float* row) {
  const int64_t iy = py - g.padTop, Cp = g.Cp, C = g.C;
  if (iy < 0 || iy >= g.IH) {
    std::fill(row, row + g.IWp * Cp, zp);
    return;
  }
  std::fill(row, row + g.padLeft * Cp, zp);
  std::fill(row + (g.padLeft + g.IW) * Cp, row + g.IWp * Cp, zp);
  const int8_t* src = x + ((n * g.IH + iy) * g.IW) * C;
  float* dst = row + g.padLeft * Cp;
  for (int64_t ix = 0; ix < g.IW; ++ix) {
    const int8_t* s = src + ix * C;
    float* d = dst + ix * Cp;
    int64_t c = 0;
    for (; c + 8 <= C; c += 8) {
      int64_t eight;
      std::memcpy(&eight, s + c, 8);
      _mm256_storeu_ps(d + c, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(eight))));
    }
    for (; c < C; ++c) d[c] = float(s[c]);
    for (; c < Cp; ++c) d[c] = 0.0f;
  }
}

// The epilogue of 8 exact fp32 sums, two forms with the same interface (load the parameters of channels c..c+7,
// apply them to one accumulator vector). IntEpi8: converted to i32 (exact: they are integers) and through the
// integer epilogue (kernels/int8/simd_avx2.h) with its checks; ScaledEpi8: the bias already in the sums, the
// rescale in fp64 as the AVX-512 form's kScaled paths (ScaledRescale: one FMA per 4 lanes and a floor, exact
// under the compile-time bounds, which also prove every REQUIRE: no flags).
template <typename OutT, bool kRescale, bool kDouble = true, bool kRange = true, bool kOverflow = true>
struct IntEpi8 {
  const IntEpilogueLanes& l;
  TK_TARGET_AVX2 EpiRegs8 load(int64_t c) const { return loadEpi8(l, l.bias.data(), c); }
  TK_TARGET_AVX2 void apply(__m256 acc, const EpiRegs8& r, OutT* out, int n, EpiFlags8& f) const {
    epilogue8<OutT, kRescale, kDouble, kRange, kOverflow>(_mm256_cvtps_epi32(acc), r, out, n, f);
  }
  // Two pixels' 8 channels (i8 results): packed into one 16-byte vector and clipped as bytes.
  TK_TARGET_AVX2 void applyPair(__m256 a, __m256 b, const EpiRegs8& r, int8_t* outA, int8_t* outB, EpiFlags8& f) const {
    const __m256i va = rescale8<kRescale, kDouble, kRange, kOverflow>(_mm256_cvtps_epi32(a), r, f);
    const __m256i vb = rescale8<kRescale, kDouble, kRange, kOverflow>(_mm256_cvtps_epi32(b), r, f);
    storeClippedPair(packBytes16(va, vb), l.lo, l.hi, outA, outB);
  }
};
struct ScaledRegs8 {
  __m256d mLo, mHi, rpLo, rpHi, rnLo, rnHi;
  __m256i lo, hi;
};
template <typename OutT, bool kDouble>
struct ScaledEpi8 {
  const ScaledRescale& sr;
  int32_t lo, hi;
  TK_TARGET_AVX2 ScaledRegs8 load(int64_t c) const {
    const double *m = sr.mult.data() + c, *rp = sr.roundPos.data() + c, *rn = sr.roundNeg.data() + c;
    return {_mm256_loadu_pd(m),  _mm256_loadu_pd(m + 4),  _mm256_loadu_pd(rp),   _mm256_loadu_pd(rp + 4),
            _mm256_loadu_pd(rn), _mm256_loadu_pd(rn + 4), _mm256_set1_epi32(lo), _mm256_set1_epi32(hi)};
  }
  TK_TARGET_AVX2 void apply(__m256 acc, const ScaledRegs8& r, OutT* out, int n, EpiFlags8&) const {
    __m128i h[2];
    rescaleHalves(acc, r, h);
    const __m256i y = _mm256_setr_m128i(h[0], h[1]);
    storeNarrow8(out, _mm256_min_epi32(_mm256_max_epi32(y, r.lo), r.hi), n);
  }
  // Two pixels' 8 channels (i8 results): the four halves packed into one 16-byte vector and clipped as bytes.
  TK_TARGET_AVX2 void applyPair(__m256 a, __m256 b, const ScaledRegs8& r, int8_t* outA, int8_t* outB,
                                EpiFlags8&) const {
    __m128i ya[2], yb[2];
    rescaleHalves(a, r, ya), rescaleHalves(b, r, yb);
    storeClippedPair(_mm_packs_epi16(_mm_packs_epi32(ya[0], ya[1]), _mm_packs_epi32(yb[0], yb[1])), lo, hi, outA, outB);
  }
  // The rescaled lanes 0-3 and 4-7 (the rounding term of the value's sign with double rounding; floor, then an
  // exact truncation: the output zero point is in the rounding term).
  TK_TARGET_AVX2 void rescaleHalves(__m256 acc, const ScaledRegs8& r, __m128i (&y)[2]) const {
    const __m256d vLo = _mm256_cvtps_pd(_mm256_castps256_ps128(acc)),
                  vHi = _mm256_cvtps_pd(_mm256_extractf128_ps(acc, 1));
    __m256d rLo = r.rpLo, rHi = r.rpHi;
    if constexpr (kDouble) {
      rLo = _mm256_blendv_pd(r.rpLo, r.rnLo, _mm256_cmp_pd(vLo, _mm256_setzero_pd(), _CMP_LT_OQ));
      rHi = _mm256_blendv_pd(r.rpHi, r.rnHi, _mm256_cmp_pd(vHi, _mm256_setzero_pd(), _CMP_LT_OQ));
    }
    y[0] = _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_fmadd_pd(vLo, r.mLo, rLo)));
    y[1] = _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_fmadd_pd(vHi, r.mHi, rHi)));
  }
};

// B adjacent output pixels from ox, 16 channels from cb: the taps' exact sums, through the epilogue E into the
// output row y (the channels that exist).
template <int B, typename OutT, typename E>
TK_TARGET_AVX2 inline void pixelBlockAvx2(const Geometry& g, const float* const* rows, const float* w,
                                          const float* start, const E& e, KyRange kr, int64_t ox, int64_t cb, OutT* y,
                                          EpiFlags8& f) {
  const int64_t Cp = g.Cp, stepX = g.strideX * Cp, stepK = g.dilationX * Cp;
  __m256 a[B][2];
#pragma GCC unroll 8
  for (int i = 0; i < B; ++i) a[i][0] = _mm256_loadu_ps(start + cb), a[i][1] = _mm256_loadu_ps(start + cb + 8);
  for (int64_t ky = kr.ky0; ky < kr.ky1; ++ky) {
    const float* xr = rows[ky] + ox * stepX + cb;
    const float* wr = w + ky * g.KW * Cp + cb;
    for (int64_t kx = 0; kx < g.KW; ++kx) {
      const float* p = xr + kx * stepK;
      const __m256 w0 = _mm256_loadu_ps(wr + kx * Cp), w1 = _mm256_loadu_ps(wr + kx * Cp + 8);
#pragma GCC unroll 8
      for (int i = 0; i < B; ++i) {
        a[i][0] = _mm256_fmadd_ps(_mm256_loadu_ps(p + i * stepX), w0, a[i][0]);
        a[i][1] = _mm256_fmadd_ps(_mm256_loadu_ps(p + i * stepX + 8), w1, a[i][1]);
      }
    }
  }
  const int n0 = int(std::min<int64_t>(8, g.C - cb)), n1 = int(std::min<int64_t>(8, g.C - cb - 8));
  const auto r0 = e.load(cb);
#pragma GCC unroll 8
  for (int i = 0; i < B; ++i) e.apply(a[i][0], r0, y + (ox + i) * g.C + cb, n0, f);
  if (n1 <= 0) return;
  const auto r1 = e.load(cb + 8);  // the parameters are padded to 16 channels
#pragma GCC unroll 8
  for (int i = 0; i < B; ++i) e.apply(a[i][1], r1, y + (ox + i) * g.C + cb + 8, n1, f);
}

// Stride and dilation 1 along x, a K x K kernel: B adjacent output pixels from ox, the 8 channels from c. Output
// pixel i's tap kx reads input pixel i + kx, so each kernel row's B + K - 1 input vectors are loaded once and
// each feeds the taps that read it (the general block loads B * K); the same FMAs in the same order per output.
template <int B, int K, typename OutT, typename E>
TK_TARGET_AVX2 inline void unitBlockAvx2(const Geometry& g, const float* const* rows, const float* w,
                                         const float* start, const E& e, KyRange kr, int64_t ox, int64_t c, OutT* y,
                                         EpiFlags8& f) {
  const int64_t Cp = g.Cp;
  __m256 a[B];
#pragma GCC unroll 8
  for (int i = 0; i < B; ++i) a[i] = _mm256_loadu_ps(start + c);
  for (int64_t ky = kr.ky0; ky < kr.ky1; ++ky) {
    const float* xr = rows[ky] + ox * Cp + c;
    const float* wr = w + ky * K * Cp + c;
    __m256 wv[K];
#pragma GCC unroll 8
    for (int kx = 0; kx < K; ++kx) wv[kx] = _mm256_loadu_ps(wr + kx * Cp);
      // Taps in the order kx = 0..K-1 for every output (input j feeds output j - kx through tap kx).
#pragma GCC unroll 8
    for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 8
      for (int i = 0; i < B; ++i) a[i] = _mm256_fmadd_ps(_mm256_loadu_ps(xr + (i + kx) * Cp), wv[kx], a[i]);
    }
  }
  const int n = int(std::min<int64_t>(8, g.C - c));
  const auto r = e.load(c);
  if constexpr (std::is_same_v<OutT, int8_t> && B % 2 == 0) {
    if (n == 8) {  // pixels in pairs: one pack and one clip per 16 values
#pragma GCC unroll 4
      for (int i = 0; i < B; i += 2)
        e.applyPair(a[i], a[i + 1], r, y + (ox + i) * g.C + c, y + (ox + i + 1) * g.C + c, f);
      return;
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < B; ++i) e.apply(a[i], r, y + (ox + i) * g.C + c, n, f);
}

// One output row: chunks of kChunk channels (their input pixels stay in L1), blocks of 4 pixels (8 with the
// unit-step 3x3/5x5 blocks); false: a REQUIRE of the epilogue failed.
template <typename OutT, typename E>
TK_TARGET_AVX2 bool outputRowAvx2(const Geometry& g, const float* const* rows, const float* w, const float* start,
                                  const E& e, KyRange kr, OutT* y) {
  EpiFlags8 f = epiFlags8();
  const bool unit = g.strideX == 1 && g.dilationX == 1 && g.KH == g.KW && (g.KW == 3 || g.KW == 5);
  for (int64_t c0 = 0; c0 < g.C; c0 += kChunk) {
    const int64_t c1 = std::min(g.C, c0 + kChunk);
    int64_t ox = 0;
    if (unit) {
      for (; ox + 8 <= g.OW; ox += 8)
        for (int64_t c = c0; c < c1; c += 8) {
          if (g.KW == 3)
            unitBlockAvx2<8, 3>(g, rows, w, start, e, kr, ox, c, y, f);
          else
            unitBlockAvx2<8, 5>(g, rows, w, start, e, kr, ox, c, y, f);
        }
    }
    for (; ox + 4 <= g.OW; ox += 4)
      for (int64_t cb = c0; cb < c1; cb += 16) pixelBlockAvx2<4>(g, rows, w, start, e, kr, ox, cb, y, f);
    for (; ox < g.OW; ++ox)
      for (int64_t cb = c0; cb < c1; cb += 16) pixelBlockAvx2<1>(g, rows, w, start, e, kr, ox, cb, y, f);
  }
  return epiFlags8Ok(f);
}

class DepthwiseInt8Avx2Kernel : public OpKernel {
 public:
  std::string implName() const override { return "fast:depthwise_int8_avx2"; }
  double flops() const override { return 2.0 * double(g_.N * g_.OH * g_.OW * g_.C) * double(g_.KH * g_.KW); }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int8_t* x = in[0][0].as<const int8_t>();
    const bool parallel = flops() >= kParallelFlops && omp_get_max_threads() > 1;
    const int64_t threads = parallel ? omp_get_max_threads() : 1;
    // One band per image when the images keep the threads busy, else each image in bands of rows.
    const int64_t perImage = g_.N >= threads ? 1 : std::min(g_.OH, (threads + g_.N - 1) / g_.N);
    const int64_t rowsPerBand = (g_.OH + perImage - 1) / perImage;
    const bool ok = parallelItems(g_.N * perImage, parallel, [&](int64_t item) {
      const int64_t n = item / perImage, oy0 = item % perImage * rowsPerBand;
      return oy0 >= g_.OH || band(x, n, oy0, std::min(g_.OH, oy0 + rowsPerBand), out[0].data);
    });
    return ok ? Status::ok() : rerunOnReference();
  }

  bool build(const OpChain& c, const Geometry& g, const Tensor& w, int64_t inputZp, int64_t weightZp,
             const Tensor& bias) {
    g_ = g;
    zp_ = float(inputZp);
    std::optional<TapWeights> tw = tapWeights(g, w, inputZp, weightZp);
    if (!tw) return false;
    weights_ = std::move(tw->weights);
    epi_ = planIntEpilogue(c, g.C, &bias);
    // planIntEpilogue assumes no zero points (2^14 per product); the bound with them, from the weights.
    epi_.accBound = *std::max_element(tw->accBound.begin(), tw->accBound.end());
    if (epi_.runtimeBias || !epi_.rowClass.empty()) return false;
    prepareIntEpilogue(epi_);
    const std::vector<int64_t> b = bias.toInts();
    // An i32 result keeps the integer epilogue (its rescale may need the range checks).
    if (epi_.rescale && epi_.outType != DType::I32) scaled_ = planScaled(epi_, g, *tw, b);
    // The accumulators' start; the fp64 rescale's includes the bias (the integer epilogue adds it).
    start_.assign(size_t(g.Cp), 0.0f);
    std::vector<int64_t> startInt(size_t(g.Cp), 0);
    bool skipRows = true;  // the bound of the AVX-512 kernel's build
    for (int64_t ch = 0; ch < g.C; ++ch) {
      startInt[size_t(ch)] = (scaled_ ? b[b.size() == 1 ? 0 : size_t(ch)] : 0) + tw->zpStart[size_t(ch)];
      start_[size_t(ch)] = float(startInt[size_t(ch)]);
      if (std::abs(startInt[size_t(ch)]) + 2 * tw->partialBound[size_t(ch)] >= kExactLimit) skipRows = false;
    }
    if (skipRows) rowSkip_ = planRowSkips(g, startInt, tw->rowSums, inputZp);
    buildIntEpilogueLanes(epi_, epi_.biasTable.data(), 1);  // also under setIntEpilogueGenericForTesting
    return true;
  }

  int absorbed() const { return epi_.absorbed; }

 private:
  // Output rows [oy0, oy1) of image n on the calling thread (the ring as in the AVX-512 band); false: a REQUIRE
  // of the epilogue failed.
  bool band(const int8_t* x, int64_t n, int64_t oy0, int64_t oy1, void* y) const {
    const RowSkip skip = rowSkip_.view();
    const int64_t rowFloats = g_.rowFloats();
    float* ring = ringScratch(g_.ring * rowFloats);
    std::vector<const float*> rows(size_t(g_.KH));
    int64_t next = 0;
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const int64_t top = oy * g_.strideY, bottom = top + (g_.KH - 1) * g_.dilationY;
      // With RowSkip the padding rows are never read: not filled.
      for (int64_t py = std::max(next, top); py <= bottom; ++py) {
        const bool padding = py < g_.padTop || py >= g_.padTop + g_.IH;
        if (!(skip.rows && padding)) convertRowAvx2(g_, x, n, py, zp_, ring + (py % g_.ring) * rowFloats);
      }
      next = bottom + 1;
      for (int64_t ky = 0; ky < g_.KH; ++ky)
        rows[size_t(ky)] = ring + ((top + ky * g_.dilationY) % g_.ring) * rowFloats;
      const RowPlan plan = skip.rows ? skip.rows[oy] : RowPlan{0, g_.KH, -1};
      const float* start = start_.data();
      if (plan.start >= 0) {
        start = skip.partialStarts[plan.start].data();
        countSkippedRow();
      }
      if (!row(rows.data(), start, {plan.ky0, plan.ky1}, y, ((n * g_.OH + oy) * g_.OW) * g_.C)) return false;
    }
    return true;
  }

  // One output row's sums through the epilogue into y (typed by the result) from element `first`: the fp64
  // rescale where its bounds hold (scaled_), else the integer epilogue, the i8 results of the quantized graph
  // without the checks and rounding terms that cannot matter.
  bool row(const float* const* rows, const float* st, KyRange kr, void* y, int64_t first) const {
    switch (epi_.outType) {
      case DType::I8: return rowAs(rows, st, kr, static_cast<int8_t*>(y) + first);
      case DType::I16: return rowAs(rows, st, kr, static_cast<int16_t*>(y) + first);
      default:
        int32_t* o = static_cast<int32_t*>(y) + first;
        const IntEpilogueLanes& l = epi_.simd;
        const float* w = weights_.data();
        return epi_.rescale ? outputRowAvx2(g_, rows, w, st, IntEpi8<int32_t, true>{l}, kr, o)
                            : outputRowAvx2(g_, rows, w, st, IntEpi8<int32_t, false>{l}, kr, o);
    }
  }
  template <typename OutT>
  bool rowAs(const float* const* rows, const float* st, KyRange kr, OutT* o) const {
    const IntEpilogueLanes& l = epi_.simd;
    const float* w = weights_.data();
    if (scaled_)
      return epi_.doubleRound ? outputRowAvx2(g_, rows, w, st, ScaledEpi8<OutT, true>{*scaled_, l.lo, l.hi}, kr, o)
                              : outputRowAvx2(g_, rows, w, st, ScaledEpi8<OutT, false>{*scaled_, l.lo, l.hi}, kr, o);
    if (!std::is_same_v<OutT, int8_t>) return outputRowAvx2(g_, rows, w, st, IntEpi8<OutT, true>{l}, kr, o);
    const bool dbl = epi_.doubleRound, range = epi_.rangeCheck, ovf = !l.noOverflow;
    if (dbl) return outputRowAvx2(g_, rows, w, st, IntEpi8<OutT, true>{l}, kr, o);
    if (range) return outputRowAvx2(g_, rows, w, st, IntEpi8<OutT, true, false, true, true>{l}, kr, o);
    return ovf ? outputRowAvx2(g_, rows, w, st, IntEpi8<OutT, true, false, false, true>{l}, kr, o)
               : outputRowAvx2(g_, rows, w, st, IntEpi8<OutT, true, false, false, false>{l}, kr, o);
  }

  Geometry g_;
  float zp_ = 0;
  Aligned64<float> weights_, start_;  // start_: the bias in it too with scaled_
  RowSkipPlan rowSkip_;               // empty when no row is skipped
  IntEpilogue epi_;
  std::optional<ScaledRescale> scaled_;  // the fp64 rescale, when its bounds hold
};

}  // namespace

// depthwise_conv2d on AVX2 (and at the AVX-512 levels for the layers the kernels before it decline): the same
// form as compileDepthwiseInt8, any stride.
Result<CompiledKernel> compileDepthwiseInt8Avx2(const OpChain& c) {
  if (!cpu::has(cpu::Isa::Avx2)) return CompiledKernel{};
  const std::optional<Int8Depthwise> d = parseInt8Depthwise(c);
  if (!d) return CompiledKernel{};
  const Geometry* g = &d->g;
  auto k = std::make_unique<DepthwiseInt8Avx2Kernel>();
  if (!k->build(c, *g, *d->w, d->inputZp, d->weightZp, *d->bias)) return CompiledKernel{};
  return compiledKernel(std::move(k));
}

}  // namespace tosakit::fast

#pragma GCC diagnostic pop
