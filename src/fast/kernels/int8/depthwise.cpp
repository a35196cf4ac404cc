// int8 DEPTHWISE_CONV2D (multiplier 1, constant weights and bias, constant zero points) with its exact integer
// epilogue (bias, RESCALE, CLAMP: kernels/int8/int8.h) in registers, on AVX-512: the int8 counterpart of the fp32
// kernel in kernels/f32/depthwise.cpp. oneDNN 2.6's jit_int8 ran mobilenet_v2's depthwise layers at ~45 GFLOP/s
// and wrote a s32 tensor the epilogue pass then read back from memory.
//
// Exactness: an output is bias + the sum over the in-bounds taps of (x - input_zp) * (w - weight_zp). The
// kernel sums x * (w - weight_zp) over all taps, the padding holding input_zp, from a start of
// -input_zp * sum(w - weight_zp) (+ the bias when the rescale runs in fp64): the same integer. Each product is
// an integer, and a layer is taken only when, for every channel, |start| + 128 * sum over taps of
// |w - weight_zp| < 2^24 (the real constant weights): every partial sum is then an integer below 2^24 in
// magnitude, which fp32 represents exactly, so fp32 fused multiply-adds give the exact integer sum. The sum
// then goes through the rescale in fp64 (ScaledRescale: exact under compile-time bounds) or, when those bounds
// do not hold, converted to i32, through the shared epilogue (kernels/int8/simd.h), whose REQUIRE checks (acc
// + bias overflowing i32, apply_scale_32's value range) send the step back to the reference kernels for their
// verdict, as the other int8 kernels do.
//
// Layout: the input rows a block of output rows needs are converted once to fp32 into a small ring of rows
// per thread (L1/L2), with input_zp in the padding columns and rows and the channels padded to a multiple of 16
// with zeros. TOSA skips the taps outside the input; input_zp there adds an exact 0 after the start's
// correction, so every output pixel is computed without bounds checks. 16 channels of up to 8 adjacent output
// pixels accumulate in registers (one weight vector per tap), as in the fp32 kernel.
// The work is split over the threads in bands of output rows, or of channels when the rows are few (each thread
// then converts only its channels of the rows); one band per image when there are enough images.
// CPUs without AVX-512 (F/BW/DQ/VL) leave the layer to oneDNN.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "fast/cpu_features.h"
#include "fast/isa_dispatch.h"
#include "fast/kernels/common.h"
#include "fast/kernels/int8/simd.h"
#include "fast/kernels/int8/simd_avx2.h"
#include "fast/onednn/common.h"
#include "fast/parallel_items.h"

// GCC 12 reports the intrinsics' deliberately undefined pass-through operands (_mm512_undefined_*, under an
// all-ones mask) as uninitialized once inlined into these loops (GCC bug 105593); no undefined value is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tosakit::fast {
namespace {

using namespace dnn;

// Below 200K multiply-accumulates an OpenMP region costs more than it saves (docs/FAST.md, Threads; the plan's
// small-step bound). A depthwise layer does few operations per byte: mobilenet_v2's 28x28x192 layer (1.35M)
// takes ~50 us on one thread, which two halve.
constexpr double kParallelFlops = 4e5;
constexpr int64_t kChunk = 64;       // channels per sweep of a row (4 vectors)
constexpr int64_t kMinBandRows = 8;  // fewer output rows per thread: bands of channels (DepthwiseInt8Kernel::split)
constexpr int64_t kExactLimit = int64_t(1) << 24;    // fp32 represents every integer of smaller magnitude
constexpr int64_t kExactLimit64 = int64_t(1) << 53;  // fp64 likewise

struct Geometry {
  int64_t N = 0, IH = 0, IW = 0, C = 0, KH = 0, KW = 0, OH = 0, OW = 0;
  int64_t strideY = 1, strideX = 1, dilationY = 1, dilationX = 1, padTop = 0, padLeft = 0;
  int64_t Cp = 0;    // channels rounded up to 16 (the fp32 rows and weights)
  int64_t IWp = 0;   // padded row width in pixels: padLeft + IW + padRight
  int64_t ring = 0;  // rows of the ring: the rows one output row reads, (KH - 1) * dilationY + 1
  int64_t rowFloats() const { return IWp * Cp; }
};

// Pixels [px0, px1) of a padded fp32 row, channels [c0, c1) (multiples of 16): zp.
TK_AVX512 void fillZp(float* row, int64_t Cp, int64_t px0, int64_t px1, int64_t c0, int64_t c1, float zp) {
  const __m512 v = _mm512_set1_ps(zp);
  for (int64_t px = px0; px < px1; ++px)
    for (int64_t cb = c0; cb < c1; cb += 16) _mm512_storeu_ps(row + px * Cp + cb, v);
}

// Channels [c0, c1) (c0 a multiple of 16) of padded row py of image n as fp32: x inside the input, input_zp
// outside it (a zero contribution once the accumulators' start subtracts input_zp * sum(w): see the top), 0 in
// the channel padding (zero weights there). A band of channels converts only its own.
TK_AVX512 void convertRow(const Geometry& g, const int8_t* x, int64_t n, int64_t py, int64_t c0, int64_t c1, float zp,
                          float* row) {
  const int64_t iy = py - g.padTop, Cp = g.Cp, C = g.C;
  const int64_t cp1 = std::min(Cp, (c1 + 15) / 16 * 16);  // the range's end in the padded channels
  if (iy < 0 || iy >= g.IH) {
    fillZp(row, Cp, 0, g.IWp, c0, cp1, zp);
    return;
  }
  fillZp(row, Cp, 0, g.padLeft, c0, cp1, zp);
  fillZp(row, Cp, g.padLeft + g.IW, g.IWp, c0, cp1, zp);
  const int8_t* src = x + ((n * g.IH + iy) * g.IW) * C;
  float* dst = row + g.padLeft * Cp;
  // The all-lanes zero-masking forms are the plain instructions; GCC 12's unmasked intrinsics pass an
  // "undefined" vector that -Wmaybe-uninitialized reports.
  const __mmask16 all = 0xffff;
  if (C == Cp && c0 == 0 && c1 == C) {  // the row's values are contiguous in both: one stream
    const int64_t total = g.IW * C;
    for (int64_t i = 0; i < total; i += 16) {
      const __m512i v = _mm512_maskz_cvtepi8_epi32(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
      _mm512_storeu_ps(dst + i, _mm512_maskz_cvtepi32_ps(all, v));
    }
    return;
  }
  for (int64_t ix = 0; ix < g.IW; ++ix)
    for (int64_t cb = c0; cb < c1; cb += 16) {
      const __mmask16 m = laneMask(std::min(C, c1), cb);
      const __m512i v = _mm512_maskz_cvtepi8_epi32(m, _mm_maskz_loadu_epi8(m, src + ix * C + cb));
      _mm512_storeu_ps(dst + ix * Cp + cb, _mm512_maskz_cvtepi32_ps(m, v));
    }
}

// The calling thread's ring of fp32 rows (reused by every layer).
// 64-byte aligned: every vector of a row (Cp floats per pixel) then sits in one cache line. With malloc's
// 16-byte alignment a run got 0, 16, 32 or 48 bytes of offset by chance, and an offset split every load in two
// lines: mobilenet_v2's stride-1 layers took ~0.45 or ~0.59 ms at one thread depending on the process.
float* ringScratch(int64_t floats) {
  thread_local std::vector<float> buf;
  if (int64_t(buf.size()) < floats + 16) buf.resize(size_t(floats + 16));
  const uintptr_t p = reinterpret_cast<uintptr_t>(buf.data());
  return buf.data() + (64 - p % 64) % 64 / sizeof(float);
}

// The rescale in fp64 (kScaled paths): with the bias in the fp32 accumulator (exact: |bias| + the sum's bound
// < 2^24), v = acc. v * m + round is an integer N with |N| < 2^53 (checked per channel at compile time), and
// scaling by 2^-shift is exact, so one fp64 FMA v * (m * 2^-shift) + round * 2^-shift gives N * 2^-shift
// exactly and a conversion rounding towards -inf gives N >> shift, apply_scale_32/16's result (|result| <= 2^30
// under the rescale's REQUIREs, which the compile-time bounds prove: no check is needed at run time).
struct ScaledRescale {
  // per channel (Cp): m * 2^-shift, (round + output_zp * 2^shift) * 2^-shift
  Aligned64<double> mult, roundPos, roundNeg;
};

struct RowArgs {
  const Geometry& g;
  const float* const* rows;  // the KH input rows of this output row (padded coordinates, fp32)
  const float* w;            // [KH * KW][Cp] fp32 (w - weight_zp)
  const float* start;        // [Cp] the accumulators' start (see DepthwiseInt8Kernel::build)
  const IntEpilogueLanes& epi;
  const ScaledRescale& sr;
  int64_t c0 = 0, c1 = 0;    // the channels of this band: c0 a multiple of 16, c1 <= C
  int64_t ky0 = 0, ky1 = 0;  // the kernel rows that read input rows (the others read only padding: skipped)
};

// kInteger: the accumulators start at 0 and the shared integer epilogue (bias with its overflow check, the
// rescale with its range check) runs on the i32 sums; kIntegerNoRescale the same without a rescale (an i32
// result); kScaled/kScaledDouble: the bias in the accumulators, the fp64 rescale (single/double rounding).
enum Path { kIntegerNoRescale, kInteger, kScaled, kScaledDouble };

struct ScaledRegs {
  __m512d mLo, mHi, rpLo, rpHi, rnLo, rnHi;
  __m512i lo, hi;
};
TK_AVX512 inline ScaledRegs loadScaled(const RowArgs& a, int64_t cb) {
  const ScaledRescale& s = a.sr;
  return {_mm512_loadu_pd(s.mult.data() + cb),
          _mm512_loadu_pd(s.mult.data() + cb + 8),
          _mm512_loadu_pd(s.roundPos.data() + cb),
          _mm512_loadu_pd(s.roundPos.data() + cb + 8),
          _mm512_loadu_pd(s.roundNeg.data() + cb),
          _mm512_loadu_pd(s.roundNeg.data() + cb + 8),
          _mm512_set1_epi32(a.epi.lo),
          _mm512_set1_epi32(a.epi.hi)};
}

// 16 exact sums (bias included) -> rescale, output zero point, clip, narrowing store. The all-lanes
// zero-masking forms are the plain instructions (GCC 12's unmasked intrinsics trip -Wmaybe-uninitialized).
template <bool kDouble, typename OutT>
TK_AVX512 inline void scaledEpilogue16(__m512 acc, const ScaledRegs& r, OutT* out, __mmask16 m) {
  const __m512d lo = _mm512_maskz_cvtps_pd(0xff, _mm512_castps512_ps256(acc));
  const __m512d hi =
      _mm512_maskz_cvtps_pd(0xff, _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xf, _mm512_castps_pd(acc), 1)));
  __m512d rLo = r.rpLo, rHi = r.rpHi;
  if constexpr (kDouble) {  // the rounding term of the value's sign
    const __mmask16 neg = _mm512_cmp_ps_mask(acc, _mm512_setzero_ps(), _CMP_LT_OQ);
    rLo = _mm512_mask_blend_pd(__mmask8(neg), r.rpLo, r.rnLo);
    rHi = _mm512_mask_blend_pd(__mmask8(neg >> 8), r.rpHi, r.rnHi);
  }
  const __m512i v = floorFma16(lo, hi, r.mLo, r.mHi, rLo, rHi);  // the output zp included
  storeNarrow(out, _mm512_min_epi32(_mm512_max_epi32(v, r.lo), r.hi), m);
}

// B adjacent output pixels from ox, NV vectors of 16 channels from cb: the taps' exact sums in registers, then
// the epilogue. (B = 1 with NV = 4 keeps four independent FMA chains for the pixels left after the blocks of
// 8 and 4: one chain waits on each FMA's latency.) kUnitX (stride and dilation 1 along x, K unrolled, NV = 1):
// output pixel i's tap kx reads input pixel i + kx, so each row's B + K - 1 input vectors are loaded once into
// registers and reused by the K taps (the general form loads B * K vectors per row: the loads, not the FMAs,
// bounded the 3x3 layers; mobilenet_v2's 13 stride-1 layers ~0.70 -> ~0.61 ms at one thread).
template <int B, int NV, int K, typename OutT, Path P, bool kUnitX = false>
TK_AVX512 inline void pixelBlock(const RowArgs& a, int64_t ox, int64_t cb, OutT* out, EpiFlags& f) {
  const Geometry& g = a.g;
  const int64_t KW = K ? K : g.KW, Cp = g.Cp;
  const int64_t stepX = g.strideX * Cp, stepK = g.dilationX * Cp;
  __m512 acc[B * NV];
  for (int v = 0; v < NV; ++v) {
    const __m512 start = _mm512_loadu_ps(a.start + cb + 16 * v);
    for (int i = 0; i < B; ++i) acc[i * NV + v] = start;
  }
  if constexpr (kUnitX && K != 0 && NV == 1) {
    // A constant trip count (the rows skipped by a test) keeps the K kernel rows unrolled: a loop over
    // [ky0, ky1) made mobilenet_v2's stride-1 layers ~15% slower.
    for (int ky = 0; ky < K; ++ky) {
      if (ky < a.ky0 || ky >= a.ky1) continue;
      const float* xr = a.rows[ky] + ox * Cp + cb;
      const float* wr = a.w + ky * K * Cp + cb;
      __m512 xv[B + K - 1];
      for (int j = 0; j < B + K - 1; ++j) xv[j] = _mm512_loadu_ps(xr + j * Cp);
      // Taps outer, pixels inner: each accumulator's FMAs are B apart (no wait on the previous one's latency).
      for (int kx = 0; kx < K; ++kx) {
        const __m512 wv = _mm512_loadu_ps(wr + kx * Cp);
        for (int i = 0; i < B; ++i) acc[i] = _mm512_fmadd_ps(xv[i + kx], wv, acc[i]);
      }
    }
  } else {
    for (int64_t ky = a.ky0; ky < a.ky1; ++ky) {
      const float* xr = a.rows[ky] + ox * stepX + cb;
      const float* wr = a.w + ky * KW * Cp + cb;
      for (int64_t kx = 0; kx < KW; ++kx) {
        const float* p = xr + kx * stepK;
        for (int v = 0; v < NV; ++v) {
          const __m512 wv = _mm512_loadu_ps(wr + kx * Cp + 16 * v);
          for (int i = 0; i < B; ++i)
            acc[i * NV + v] = _mm512_fmadd_ps(_mm512_loadu_ps(p + i * stepX + 16 * v), wv, acc[i * NV + v]);
        }
      }
    }
  }
  for (int v = 0; v < NV; ++v) {
    const int64_t c = cb + 16 * v;
    const __mmask16 m = laneMask(g.C, c);
    if constexpr (P == kScaled || P == kScaledDouble) {
      const ScaledRegs r = loadScaled(a, c);
      for (int i = 0; i < B; ++i) scaledEpilogue16<P == kScaledDouble>(acc[i * NV + v], r, out + (ox + i) * g.C + c, m);
    } else {
      // The sums are integers: the conversion is exact in any rounding mode. Double rounding's sign-dependent
      // term and the range check are always on: with single rounding both rounding terms are equal, and
      // without a shift <= 31 the range is all of i32, so they change nothing then.
      constexpr bool kRescale = P == kInteger;
      const EpiRegs r = loadEpi(a.epi, a.epi.bias.data(), c);
      for (int i = 0; i < B; ++i)
        epilogue16<OutT, kRescale, true, kRescale, true>(_mm512_maskz_cvtps_epi32(0xffff, acc[i * NV + v]), r,
                                                         out + (ox + i) * g.C + c, m, f);
    }
  }
}

// x step 1: the 1-3 pixels left after the blocks of 8 and 4 as one block of B pixels x NV channel vectors
// (B * NV >= 4 independent FMA chains), each input vector loaded once per kernel row. mobilenet_v2's 7- and
// 14-pixel rows ran these pixels one by one, reloading every tap's weights per pixel.
template <int B, int NV, int K, typename OutT, Path P>
TK_AVX512 void unitTailBlock(const RowArgs& a, int64_t ox, int64_t cb, OutT* out) {
  const int64_t Cp = a.g.Cp;
  __m512 acc[B * NV];
  for (int v = 0; v < NV; ++v)
    for (int i = 0; i < B; ++i) acc[i * NV + v] = _mm512_loadu_ps(a.start + cb + 16 * v);
  for (int ky = 0; ky < K; ++ky) {
    if (ky < a.ky0 || ky >= a.ky1) continue;  // constant trip count: see pixelBlock
    const float* xr = a.rows[ky] + ox * Cp + cb;
    const float* wr = a.w + ky * K * Cp + cb;
    for (int v = 0; v < NV; ++v) {
      __m512 xv[B + K - 1];
      for (int j = 0; j < B + K - 1; ++j) xv[j] = _mm512_loadu_ps(xr + j * Cp + 16 * v);
      for (int kx = 0; kx < K; ++kx) {
        const __m512 wv = _mm512_loadu_ps(wr + kx * Cp + 16 * v);
        for (int i = 0; i < B; ++i) acc[i * NV + v] = _mm512_fmadd_ps(xv[i + kx], wv, acc[i * NV + v]);
      }
    }
  }
  for (int v = 0; v < NV; ++v) {
    const int64_t c = cb + 16 * v;
    const ScaledRegs r = loadScaled(a, c);
    for (int i = 0; i < B; ++i)
      scaledEpilogue16<P == kScaledDouble>(acc[i * NV + v], r, out + (ox + i) * a.g.C + c, laneMask(a.g.C, c));
  }
}

// The tail block over channels [c0, c1) in groups of NV vectors, the last ones one by one: a group never reaches
// past c1's vector, where another thread's band of channels may begin (not converted by this one). Not inlined:
// inlined into outputRow it made GCC compile the blocks of 8 slower (mobilenet_v2's 56x56 layers ~1.4x).
template <int B, int NV, int K, typename OutT, Path P>
__attribute__((noinline)) TK_AVX512 void unitTail(const RowArgs& a, int64_t ox, int64_t c0, int64_t c1, OutT* out) {
  const int64_t end = (c1 + 15) / 16 * 16;
  int64_t cb = c0;
  for (; cb + 16 * NV <= end; cb += 16 * NV) unitTailBlock<B, NV, K, OutT, P>(a, ox, cb, out);
  for (; cb < end; cb += 16) unitTailBlock<B, 1, K, OutT, P>(a, ox, cb, out);
}

// The row in chunks of kChunk channels, each swept by blocks of pixels: a chunk's input pixels stay in L1
// across the blocks (a whole row of mobilenet_v2's 960 channels did not).
template <int K, typename OutT, Path P, bool kUnitX = false>
TK_AVX512 void outputRow(const RowArgs& a, OutT* out, EpiFlags& f) {
  const Geometry& g = a.g;
  for (int64_t c0 = a.c0; c0 < a.c1; c0 += kChunk) {
    const int64_t c1 = std::min(a.c1, c0 + kChunk);
    int64_t ox = 0;
    for (; ox + 8 <= g.OW; ox += 8)
      for (int64_t cb = c0; cb < c1; cb += 16) pixelBlock<8, 1, K, OutT, P, kUnitX>(a, ox, cb, out, f);
    for (; ox + 4 <= g.OW; ox += 4)
      for (int64_t cb = c0; cb < c1; cb += 16) pixelBlock<4, 1, K, OutT, P, kUnitX>(a, ox, cb, out, f);
    if constexpr (kUnitX && K != 0 && (P == kScaled || P == kScaledDouble)) {
      if (g.OW - ox == 1)
        unitTail<1, 4, K, OutT, P>(a, ox, c0, c1, out);
      else if (g.OW - ox == 2)
        unitTail<2, 2, K, OutT, P>(a, ox, c0, c1, out);
      else if (g.OW - ox == 3)
        unitTail<3, 2, K, OutT, P>(a, ox, c0, c1, out);
      continue;
    }
    for (; ox < g.OW; ++ox) {
      if (c1 - c0 == kChunk) {
        pixelBlock<1, 4, K, OutT, P>(a, ox, c0, out, f);
        continue;
      }
      for (int64_t cb = c0; cb < c1; cb += 16) pixelBlock<1, 1, K, OutT, P>(a, ox, cb, out, f);
    }
  }
}

// 3x3 and 5x5 (mobilenet, PP-LCNet) with the taps unrolled on the fast paths (input vectors reused across the
// taps when the x step is 1); the rest with loops.
template <typename OutT, Path P>
TK_AVX512 void outputRowAnyK(const RowArgs& a, OutT* out, EpiFlags& f) {
  constexpr bool kScaledPath = P == kScaled || P == kScaledDouble;
  const bool unitX = a.g.strideX == 1 && a.g.dilationX == 1;
  if (kScaledPath && unitX && a.g.KH == 3 && a.g.KW == 3)
    outputRow<3, OutT, P, true>(a, out, f);
  else if (kScaledPath && unitX && a.g.KH == 5 && a.g.KW == 5)
    outputRow<5, OutT, P, true>(a, out, f);
  else if (kScaledPath && a.g.KH == 3 && a.g.KW == 3)
    outputRow<3, OutT, P>(a, out, f);
  else if (kScaledPath && a.g.KH == 5 && a.g.KW == 5)
    outputRow<5, OutT, P>(a, out, f);
  else
    outputRow<0, OutT, P>(a, out, f);
}

// The weights as the fp32 sums use them and the bounds that prove the sums exact (see the top), per channel
// with the real weights: the largest |sum| of (x - input_zp) * (w - weight_zp) (any input), the accumulators'
// start without the bias, -input_zp * sum(w - weight_zp) (the padding holds input_zp), and the bound on what
// the x * (w - weight_zp) terms add to it (|x| <= 128). Nothing when some partial sum could leave fp32's exact
// integers.
struct TapWeights {
  Aligned64<float> weights;                              // [KH * KW][Cp] w - weight_zp, zeros in the channel padding
  std::vector<int64_t> accBound, zpStart, partialBound;  // per channel
  std::vector<int64_t> rowSums;                          // [KH][Cp] sum over kx of (w - weight_zp)
};
std::optional<TapWeights> tapWeights(const Geometry& g, const Tensor& w, int64_t inputZp, int64_t weightZp) {
  const int64_t maxAbsX = std::max(std::abs(-128 - inputZp), std::abs(127 - inputZp));
  const int8_t* wp = reinterpret_cast<const int8_t*>(w.data());
  const int64_t taps = g.KH * g.KW;
  TapWeights t;
  t.weights.assign(size_t(taps * g.Cp), 0.0f);
  t.accBound.resize(size_t(g.C)), t.zpStart.resize(size_t(g.C)), t.partialBound.resize(size_t(g.C));
  t.rowSums.assign(size_t(g.KH * g.Cp), 0);
  for (int64_t ch = 0; ch < g.C; ++ch) {
    int64_t absSum = 0, sum = 0;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t v = int64_t(wp[k * g.C + ch]) - weightZp;  // TOSA [KH, KW, C, 1]
      absSum += std::abs(v), sum += v;
      t.weights[size_t(k * g.Cp + ch)] = float(v);
      t.rowSums[size_t(k / g.KW * g.Cp + ch)] += v;
    }
    const size_t i = size_t(ch);
    t.accBound[i] = absSum * maxAbsX;
    t.zpStart[i] = -inputZp * sum;
    t.partialBound[i] = 128 * absSum;
    if (std::abs(t.zpStart[i]) + t.partialBound[i] >= kExactLimit) return std::nullopt;
  }
  return t;
}

// Whether the compile-time bounds prove the fp64 rescale exact for every channel (see ScaledRescale) and every
// REQUIRE of the bias add and the rescale satisfied (the accumulators starting at bias - input_zp * sum(w)); the
// parameters when they do.
std::optional<ScaledRescale> planScaled(const IntEpilogue& epi, const Geometry& g, const TapWeights& tw,
                                        const std::vector<int64_t>& bias) {
  const int64_t C = g.C, Cp = g.Cp;
  ScaledRescale sr;
  sr.mult.assign(size_t(Cp), 0.0), sr.roundPos.assign(size_t(Cp), 0.0);
  sr.roundNeg.assign(size_t(Cp), 0.0);
  for (int64_t ch = 0; ch < C; ++ch) {
    const size_t i = size_t(ch);
    const int64_t bc = bias[bias.size() == 1 ? 0 : i], vBound = std::abs(bc) + tw.accBound[i];
    // The accumulators start at bias - input_zp * sum(w): exact partial sums, and acc + bias far inside i32.
    if (std::abs(bc + tw.zpStart[i]) + tw.partialBound[i] >= kExactLimit || vBound >= kExactLimit) return std::nullopt;
    const int64_t m = epi.multiplier[i], sh = epi.shift[i];
    const int64_t round = std::max(std::abs(epi.roundPos[i]), std::abs(epi.roundNeg[i]));
    // vBound < 2^24, m < 2^31, round <= 2^61 + 2^30: no int64 overflow.
    const int64_t top = vBound * m + round;
    if (top >= kExactLimit64 || (top >> sh) >= (int64_t(1) << 30)) return std::nullopt;
    if (epi.scale32 && sh <= 31 && vBound > (int64_t(1) << (sh - 1)) - 1)
      return std::nullopt;  // apply_scale_32's range
    // The output zero point joins the rounding term as zp * 2^shift: floor((N + zp * 2^shift) * 2^-shift) =
    // (N >> shift) + zp, exact while |v * m + round + zp * 2^shift| < 2^53 too.
    const __int128 zpTerm = __int128(epi.outputZp) * (__int128(1) << sh), vm = __int128(vBound) * m;
    const __int128 rp = epi.roundPos[i] + zpTerm, rn = epi.roundNeg[i] + zpTerm;
    if (vm + (rp < 0 ? -rp : rp) >= kExactLimit64 || vm + (rn < 0 ? -rn : rn) >= kExactLimit64) return std::nullopt;
    const double scale = std::ldexp(1.0, -int(sh));
    sr.mult[i] = double(m) * scale;
    sr.roundPos[i] = double(int64_t(rp)) * scale;
    sr.roundNeg[i] = double(int64_t(rn)) * scale;
  }
  return sr;
}

// One thread's share of a layer: output rows [oy0, oy1), channels [c0, c1) of image n.
struct Work {
  int64_t n = 0, oy0 = 0, oy1 = 0, c0 = 0, c1 = 0;
};

// Kernel rows whose input rows lie wholly in the padding add input_zp * (w - weight_zp) over their taps:
// skipping them, an output row starts from start + input_zp * those rows' weight sums instead. The short
// feature maps of PP-LCNet (2-3 rows under a 5x5 kernel padded by 2) spent over half their taps there. Both are
// planned at compile time (planRowSkips): per output row its live kernel rows and, when
// some are skipped, which of the partial starts (one per distinct live range) it begins from.
struct RowPlan {
  int64_t ky0 = 0, ky1 = 0;  // the live kernel rows
  int start = -1;            // index of the row's partial start; -1: every kernel row is live (the full start)
};
struct RowSkip {
  const RowPlan* rows = nullptr;                    // per output row; null: no row is skipped
  const Aligned64<float>* partialStarts = nullptr;  // [Cp] each
};

// The kernel rows [ky0, ky1) of output row oy that read input rows.
inline std::pair<int64_t, int64_t> liveKernelRows(const Geometry& g, int64_t oy) {
  const int64_t iy0 = oy * g.strideY - g.padTop, d = g.dilationY;  // the input row of ky = 0
  const int64_t ky0 = iy0 >= 0 ? 0 : (-iy0 + d - 1) / d;
  const int64_t ky1 = g.IH - 1 - iy0 < 0 ? 0 : std::min(g.KH, (g.IH - 1 - iy0) / d + 1);
  return {std::min(ky0, ky1), ky1};
}

std::atomic<int64_t> skippedRows{0};  // depthwiseInt8SkippedRowsForTesting

// The row skipping of a layer (RowSkip), planned at compile time: per output row its live kernel rows, and the
// partial start of each distinct live range that leaves rows out: startInt + input_zp * the skipped rows' sums, an
// integer below 2^24 (the callers' bound), so exact as a float.
struct RowSkipPlan {
  std::vector<RowPlan> rows;                    // per output row
  std::vector<Aligned64<float>> partialStarts;  // [Cp] each (RowPlan::start)
  RowSkip view() const { return {rows.empty() ? nullptr : rows.data(), partialStarts.data()}; }
};
RowSkipPlan planRowSkips(const Geometry& g, const std::vector<int64_t>& startInt, const std::vector<int64_t>& rowSums,
                         int64_t inputZp) {
  RowSkipPlan p;
  const int64_t Cp = g.Cp;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // the live range of p.partialStarts[i]
  for (int64_t oy = 0; oy < g.OH; ++oy) {
    const auto [ky0, ky1] = liveKernelRows(g, oy);
    RowPlan plan{ky0, ky1, -1};
    if (ky1 - ky0 != g.KH) {
      const auto found = std::find(ranges.begin(), ranges.end(), std::pair(ky0, ky1));
      plan.start = int(found - ranges.begin());
      if (found == ranges.end()) {
        Aligned64<float> start;
        start.assign(size_t(Cp), 0.0f);
        for (int64_t c = 0; c < Cp; ++c) {
          int64_t v = startInt[size_t(c)];
          for (int64_t ky = 0; ky < g.KH; ++ky)
            if (ky < ky0 || ky >= ky1) v += inputZp * rowSums[size_t(ky * Cp + c)];
          start[size_t(c)] = float(v);
        }
        ranges.emplace_back(ky0, ky1);
        p.partialStarts.push_back(std::move(start));
      }
    }
    p.rows.push_back(plan);
  }
  return p;
}

// The work item on the calling thread; false: a REQUIRE of the epilogue failed.
template <typename OutT, Path P>
TK_AVX512 bool band(const RowArgs& proto, const RowSkip& skip, const int8_t* x, float zp, const Work& w, OutT* y) {
  const int64_t n = w.n, oy0 = w.oy0, oy1 = w.oy1;
  const Geometry& g = proto.g;
  const int64_t rowFloats = g.rowFloats();
  float* ring = ringScratch(g.ring * rowFloats);
  std::vector<const float*> rows(size_t(g.KH));
  EpiFlags f{_mm512_setzero_si512(), 0};
  int64_t next = 0;  // the first padded row not yet converted
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    const int64_t top = oy * g.strideY, bottom = top + (g.KH - 1) * g.dilationY;
    // Rows below `top` are not read again; the slot of row py is py % ring, so the rows converted here only
    // replace rows before `top`. With RowSkip the padding rows are never read: not filled.
    for (int64_t py = std::max(next, top); py <= bottom; ++py) {
      const bool padding = py < g.padTop || py >= g.padTop + g.IH;
      if (!(skip.rows && padding)) convertRow(g, x, n, py, w.c0, w.c1, zp, ring + (py % g.ring) * rowFloats);
    }
    next = bottom + 1;
    for (int64_t ky = 0; ky < g.KH; ++ky) rows[size_t(ky)] = ring + ((top + ky * g.dilationY) % g.ring) * rowFloats;
    const RowPlan plan = skip.rows ? skip.rows[oy] : RowPlan{0, g.KH, -1};
    const float* start = proto.start;
    if (plan.start >= 0) {
      start = skip.partialStarts[plan.start].data();
      skippedRows.fetch_add(1, std::memory_order_relaxed);
    }
    const RowArgs a{g, rows.data(), proto.w, start, proto.epi, proto.sr, w.c0, w.c1, plan.ky0, plan.ky1};
    outputRowAnyK<OutT, P>(a, y + (n * g.OH + oy) * g.OW * g.C, f);
  }
  return epiFlagsOk(f);
}

class DepthwiseInt8Kernel : public OpKernel {
 public:
  std::string implName() const override { return "fast:depthwise_int8"; }
  double flops() const override { return 2.0 * double(g_.N * g_.OH * g_.OW * g_.C) * double(g_.KH * g_.KW); }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int8_t* x = in[0][0].as<const int8_t>();
    const bool parallel = flops() >= kParallelFlops && omp_get_max_threads() > 1;
    const int64_t threads = parallel ? omp_get_max_threads() : 1;
    const Split sp = split(threads);
    const int64_t items = g_.N * sp.rowBands * sp.chanBands, vectors = g_.Cp / 16;
    const bool ok = parallelItems(items, parallel, [&](int64_t item) {
      const int64_t n = item / (sp.rowBands * sp.chanBands), rb = item / sp.chanBands % sp.rowBands;
      const int64_t cb = item % sp.chanBands;
      Work w;
      w.n = n, w.oy0 = rb * sp.rowsPerBand, w.oy1 = std::min(g_.OH, w.oy0 + sp.rowsPerBand);
      w.c0 = cb * vectors / sp.chanBands * 16, w.c1 = std::min(g_.C, (cb + 1) * vectors / sp.chanBands * 16);
      return w.oy0 >= w.oy1 || w.c0 >= w.c1 || runBand(x, w, out[0].data);
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
    const std::vector<int64_t>&accBound = tw->accBound, &zpStart = tw->zpStart, &partialBound = tw->partialBound;
    const std::vector<int64_t>& rowSums = tw->rowSums;
    epi_ = planIntEpilogue(c, g.C, &bias);
    // planIntEpilogue assumes no zero points (2^14 per product); the bound with them, from the weights.
    epi_.accBound = *std::max_element(accBound.begin(), accBound.end());
    if (!epi_.rescale && epi_.outType != DType::I32) return false;
    prepareIntEpilogue(epi_);
    const std::vector<int64_t> b = bias.toInts();
    start_.assign(size_t(g.Cp), 0.0f);
    std::vector<int64_t> startInt(size_t(g.Cp), 0);  // the accumulators' start as an integer
    std::optional<ScaledRescale> sr;
    if (epi_.rescale) sr = planScaled(epi_, g, *tw, b);
    const bool scaled = sr.has_value();
    if (scaled) scaled_ = std::move(*sr);
    path_ = scaled ? (epi_.doubleRound ? kScaledDouble : kScaled) : epi_.rescale ? kInteger : kIntegerNoRescale;
    // The scaled paths start from the bias too; the integer ones add it in their epilogue.
    for (int64_t ch = 0; ch < g.C; ++ch)
      startInt[size_t(ch)] = (scaled ? b[b.size() == 1 ? 0 : size_t(ch)] : 0) + zpStart[size_t(ch)];
    for (int64_t ch = 0; ch < g.Cp; ++ch) start_[size_t(ch)] = float(startInt[size_t(ch)]);
    // Skipping rows keeps every partial sum exact when the row's start, startInt - input_zp * (the sums of the
    // rows kept) moved by input_zp * (the sums skipped), stays exact too: |startInt| + 2 * 128 * sum |w -
    // weight_zp| bounds both it and the partial sums.
    bool skipRows = true;
    for (int64_t ch = 0; ch < g.C; ++ch)
      if (std::abs(startInt[size_t(ch)]) + 2 * partialBound[size_t(ch)] >= kExactLimit) skipRows = false;
    if (skipRows) rowSkip_ = planRowSkips(g, startInt, rowSums, inputZp);
    return true;
  }

  int absorbed() const { return epi_.absorbed; }

 private:
  struct Split {
    int64_t rowBands = 1, rowsPerBand = 1, chanBands = 1;
  };
  // One band per image when the images keep the threads busy. Otherwise each image in `threads` bands: of
  // output rows, or of channels when the bands of rows would be short (under kMinBandRows rows: each band
  // converts KH - 1 rows more than it outputs, and 3 rows over 2 threads give one 2 rows, the other 1) and the
  // channels make at least one vector per thread.
  Split split(int64_t threads) const {
    Split s;
    s.rowsPerBand = g_.OH;
    if (g_.N >= threads) return s;
    const int64_t perImage = (threads + g_.N - 1) / g_.N;
    if (g_.OH < kMinBandRows * perImage && g_.Cp / 16 >= perImage) {
      s.chanBands = perImage;
      return s;
    }
    s.rowBands = std::min(g_.OH, perImage);
    s.rowsPerBand = (g_.OH + s.rowBands - 1) / s.rowBands;
    return s;
  }

  template <Path P>
  bool runBandAs(const RowArgs& a, const int8_t* x, const Work& w, void* y) const {
    switch (epi_.outType) {
      case DType::I8: return band<int8_t, P>(a, skip(), x, zp_, w, static_cast<int8_t*>(y));
      case DType::I16: return band<int16_t, P>(a, skip(), x, zp_, w, static_cast<int16_t*>(y));
      default: return band<int32_t, P>(a, skip(), x, zp_, w, static_cast<int32_t*>(y));
    }
  }

  bool runBand(const int8_t* x, const Work& w, void* y) const {
    const RowArgs a{g_, nullptr, weights_.data(), start_.data(), epi_.simd, scaled_, 0, 0, 0, g_.KH};
    switch (path_) {
      case kIntegerNoRescale: return band<int32_t, kIntegerNoRescale>(a, skip(), x, zp_, w, static_cast<int32_t*>(y));
      case kInteger: return runBandAs<kInteger>(a, x, w, y);
      case kScaled: return runBandAs<kScaled>(a, x, w, y);
      default: return runBandAs<kScaledDouble>(a, x, w, y);
    }
  }

  RowSkip skip() const { return rowSkip_.view(); }

  Geometry g_;
  float zp_ = 0;         // input_zp: the padding's value
  RowSkipPlan rowSkip_;  // empty when no row is skipped
  Aligned64<float> weights_;
  IntEpilogue epi_;
  Path path_ = kInteger;
  Aligned64<float> start_;  // per channel (Cp): the accumulators' start
  ScaledRescale scaled_;
};

// The geometry of a depthwise_conv2d this kernel takes, from the op's static types and attributes.
std::optional<Geometry> parseGeometry(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  const ir::ValueType &in = operandType(c, 0, 0), &wt = operandType(c, 0, 1), &out = resultType(c, 0);
  if (!isStatic(in) || !isStatic(wt) || !isStatic(out) || in.rank() != 4 || wt.rank() != 4 || out.rank() != 4)
    return std::nullopt;
  const std::optional<ConvWindow> win = convWindow(op);
  if (!win) return std::nullopt;
  const std::vector<int64_t>&pad = win->pad, &st = win->stride, &dil = win->dilation;
  Geometry g;
  g.N = in.dims[0], g.IH = in.dims[1], g.IW = in.dims[2], g.C = in.dims[3];
  g.KH = wt.dims[0], g.KW = wt.dims[1];
  g.OH = out.dims[1], g.OW = out.dims[2];
  if (wt.dims[2] != g.C || wt.dims[3] != 1 || out.dims[0] != g.N || out.dims[3] != g.C) return std::nullopt;
  if (g.N < 1 || g.C < 1 || g.KH < 1 || g.KW < 1 || g.OH < 1 || g.OW < 1) return std::nullopt;
  // OH/OW exactly as the spec's ERROR_IFs require (otherwise the reference kernel reports the error).
  const int64_t nh = g.IH - 1 + pad[0] + pad[1] - (g.KH - 1) * dil[0];
  const int64_t nw = g.IW - 1 + pad[2] + pad[3] - (g.KW - 1) * dil[1];
  if (nh < 0 || nw < 0 || nh % st[0] != 0 || nw % st[1] != 0 || g.OH != nh / st[0] + 1 || g.OW != nw / st[1] + 1)
    return std::nullopt;
  g.strideY = st[0], g.strideX = st[1], g.dilationY = dil[0], g.dilationX = dil[1];
  g.padTop = pad[0], g.padLeft = pad[2];
  g.Cp = (g.C + 15) / 16 * 16;
  g.IWp = pad[2] + g.IW + pad[3];
  g.ring = (g.KH - 1) * g.dilationY + 1;
  return g;
}

// The operands of an int8 depthwise_conv2d (i8 x i8 -> i32, constant weights and bias, zero points in range) the
// kernels here take, with its geometry.
struct Int8Depthwise {
  Geometry g;
  const Tensor *w = nullptr, *bias = nullptr;
  int64_t inputZp = 0, weightZp = 0;
};
std::optional<Int8Depthwise> parseInt8Depthwise(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.size() != 5 || op.results.size() != 1) return std::nullopt;
  if (operandType(c, 0, 0).dtype != DType::I8 || operandType(c, 0, 1).dtype != DType::I8 ||
      resultType(c, 0).dtype != DType::I32)
    return std::nullopt;
  auto acc = accType(op);
  const Tensor *w = constOperand(c, 0, 1), *bias = constOperand(c, 0, 2);
  auto izp = zeroPoint(c, 0, 3), wzp = zeroPoint(c, 0, 4);
  if (!acc || *acc != DType::I32 || !w || !bias || bias->dtype() != DType::I32 || !izp || !wzp) return std::nullopt;
  if (*izp < -128 || *izp > 127 || *wzp < -128 || *wzp > 127) return std::nullopt;
  auto g = parseGeometry(c);
  if (!g || (bias->size() != g->C && bias->size() != 1)) return std::nullopt;
  return Int8Depthwise{*g, w, bias, *izp, *wzp};
}

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
    const __m256d vLo = _mm256_cvtps_pd(_mm256_castps256_ps128(acc)),
                  vHi = _mm256_cvtps_pd(_mm256_extractf128_ps(acc, 1));
    __m256d rLo = r.rpLo, rHi = r.rpHi;
    if constexpr (kDouble) {  // the rounding term of the value's sign
      rLo = _mm256_blendv_pd(r.rpLo, r.rnLo, _mm256_cmp_pd(vLo, _mm256_setzero_pd(), _CMP_LT_OQ));
      rHi = _mm256_blendv_pd(r.rpHi, r.rnHi, _mm256_cmp_pd(vHi, _mm256_setzero_pd(), _CMP_LT_OQ));
    }
    // floor, then an exact truncation (the output zero point is in the rounding term)
    const __m128i yLo = _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_fmadd_pd(vLo, r.mLo, rLo)));
    const __m128i yHi = _mm256_cvttpd_epi32(_mm256_floor_pd(_mm256_fmadd_pd(vHi, r.mHi, rHi)));
    const __m256i y = _mm256_setr_m128i(yLo, yHi);
    storeNarrow8(out, _mm256_min_epi32(_mm256_max_epi32(y, r.lo), r.hi), n);
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
        skippedRows.fetch_add(1, std::memory_order_relaxed);
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

// ---- Any level (the baseline's int8 depthwise, and the layers the exact-fp32 forms decline): the sums in i32
// (exact: |x - input_zp| <= 255 and |w - weight_zp| <= 255 per tap, the taps bounded below), a loop over the
// channels written for the auto-vectorizer, then the shared integer epilogue (its checks: a REQUIRE reruns the
// step on the reference). The padding holds input_zp, so its taps add (input_zp - input_zp) * w = 0: skipped.

// acc[c] += (x[c] - zp) * w[c] over C channels.
TK_VECTOR_BODY void tapRowBody(int32_t* __restrict acc, const int8_t* __restrict x, const int32_t* __restrict w,
                               int32_t zp, int64_t C) {
  for (int64_t c = 0; c < C; ++c) acc[c] += (int32_t(x[c]) - zp) * w[c];
}
void tapRow(int32_t* acc, const int8_t* x, const int32_t* w, int32_t zp, int64_t C) {
  TK_ISA_DISPATCH(tapRowBody(acc, x, w, zp, C));
}

class DepthwiseInt8GenericKernel : public OpKernel {
 public:
  std::string implName() const override { return withVectorIsa("fast:depthwise_int8_generic"); }
  double flops() const override { return 2.0 * double(g_.N * g_.OH * g_.OW * g_.C) * double(g_.KH * g_.KW); }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int8_t* x = in[0][0].as<const int8_t>();
    const bool ok = parallelItems(g_.N * g_.OH, flops() >= kParallelFlops && omp_get_max_threads() > 1,
                                  [&](int64_t item) { return outputRow(x, item / g_.OH, item % g_.OH, out[0].data); });
    return ok ? Status::ok() : rerunOnReference();
  }

  bool build(const OpChain& c, const Geometry& g, const Tensor& w, int64_t inputZp, int64_t weightZp,
             const Tensor& bias) {
    g_ = g;
    zp_ = int32_t(inputZp);
    const int64_t taps = g.KH * g.KW;
    if (taps * 255 * 255 >= (int64_t(1) << 31)) return false;  // the i32 sums' bound
    const int8_t* wp = reinterpret_cast<const int8_t*>(w.data());
    const int64_t maxAbsX = std::max(std::abs(-128 - inputZp), std::abs(127 - inputZp));
    weights_.assign(size_t(taps * g.C), 0);
    int64_t accBound = 0;
    for (int64_t ch = 0; ch < g.C; ++ch) {
      int64_t absSum = 0;
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t v = int64_t(wp[k * g.C + ch]) - weightZp;  // TOSA [KH, KW, C, 1]
        weights_[size_t(k * g.C + ch)] = int32_t(v);
        absSum += std::abs(v);
      }
      accBound = std::max(accBound, absSum * maxAbsX);
    }
    epi_ = planIntEpilogue(c, g.C, &bias);
    epi_.accBound = accBound;  // planIntEpilogue assumes no zero points
    if (epi_.runtimeBias || !epi_.rowClass.empty()) return false;
    prepareIntEpilogue(epi_);
    return true;
  }

  int absorbed() const { return epi_.absorbed; }

 private:
  // Output row oy of image n: the i32 sums of its OW pixels, then the epilogue into the result.
  bool outputRow(const int8_t* x, int64_t n, int64_t oy, void* y) const {
    const int64_t C = g_.C, rowElems = g_.OW * C;
    int32_t* acc = accScratch(rowElems);
    std::fill(acc, acc + rowElems, 0);
    for (int64_t ky = 0; ky < g_.KH; ++ky) {
      const int64_t iy = oy * g_.strideY - g_.padTop + ky * g_.dilationY;
      if (iy < 0 || iy >= g_.IH) continue;
      const int8_t* xr = x + ((n * g_.IH + iy) * g_.IW) * C;
      for (int64_t ox = 0; ox < g_.OW; ++ox)
        for (int64_t kx = 0; kx < g_.KW; ++kx) {
          const int64_t ix = ox * g_.strideX - g_.padLeft + kx * g_.dilationX;
          if (ix >= 0 && ix < g_.IW) tapRow(acc + ox * C, xr + ix * C, weights_.data() + (ky * g_.KW + kx) * C, zp_, C);
        }
    }
    return runIntEpilogueRows(epi_, acc, g_.OW, y, (n * g_.OH + oy) * g_.OW);
  }

  Geometry g_;
  int32_t zp_ = 0;
  std::vector<int32_t> weights_;  // [KH * KW][C] w - weight_zp
  IntEpilogue epi_;
};

bool stridedForTesting = false;

}  // namespace

Result<CompiledKernel> compileDepthwiseInt8(const OpChain& c) {
  if (!hasAvx512Epilogue()) return CompiledKernel{};
  const std::optional<Int8Depthwise> d = parseInt8Depthwise(c);
  if (!d) return CompiledKernel{};
  const Geometry* g = &d->g;
  // A strided layer converts stride^2 input pixels per output: mobilenet_v2's four stride-2 layers ran at
  // 0.88-1.02x oneDNN jit_int8 + the epilogue pass at one thread (stride 1: 1.07-1.36x), so they stay on oneDNN.
  if (g->strideX != 1 && !stridedForTesting) return CompiledKernel{};
  auto k = std::make_unique<DepthwiseInt8Kernel>();
  if (!k->build(c, *g, *d->w, d->inputZp, d->weightZp, *d->bias)) return CompiledKernel{};
  return compiledKernel(std::move(k));
}

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

// depthwise_conv2d int8 on any level (the layers the kernels before it decline): DepthwiseInt8GenericKernel.
Result<CompiledKernel> compileDepthwiseInt8Generic(const OpChain& c) {
  const std::optional<Int8Depthwise> d = parseInt8Depthwise(c);
  if (!d) return CompiledKernel{};
  const Geometry* g = &d->g;
  auto k = std::make_unique<DepthwiseInt8GenericKernel>();
  if (!k->build(c, *g, *d->w, d->inputZp, d->weightZp, *d->bias)) return CompiledKernel{};
  return compiledKernel(std::move(k));
}

void setDepthwiseInt8StridedForTesting(bool on) { stridedForTesting = on; }
int64_t depthwiseInt8SkippedRowsForTesting() { return skippedRows.load(); }

}  // namespace tosakit::fast

#pragma GCC diagnostic pop
