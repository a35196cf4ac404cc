// int8 conv2d (any kernel size, strides, dilations, padding) and matmul by constant weights on AVX2 CPUs without
// VNNI, exact: oneDNN 2.6's non-VNNI int8 kernels sum through `vpmaddubsw`, whose i16 pair sums saturate, so
// the fast backend gives them int8 only with VNNI (onednn/conv.cpp). Here the input bytes and the weights are
// sign-extended to i16 and multiplied by `vpmaddwd`: each i32 lane gets x0 * w0 + x1 * w1, two products of
// magnitude <= 2^14, so no lane can saturate and every accumulator is the exact sum (|sum| <= 2^14 * K < 2^31
// for K <= 2^16; larger reductions are declined).
//
// The layer is a GEMM: one row per output pixel, K = KH * KW * IC columns in the order of TOSA's weights
// [OC, KH, KW, IC]. A band of output pixels is gathered into i16 rows (im2col; a 1x1 layer with stride 1 only
// widens its input rows), the padding holding the input zero point, and multiplied by the weights packed at
// compile time in panels of 16 output channels, 4 pixels x 16 channels of i32 accumulators in registers over
// the whole reduction. The input zero point is folded into the bias: sum (x - zp) * w = sum x * w - zp * sum w
// over every tap, padding included (it holds zp), computed in int64 at compile time (a bias that leaves i32
// declines the layer), so the epilogue's i32 overflow check of acc + bias is the reference's REQUIRE on the true
// sum, as in kernels/int8/pointwise_vnni.cpp. The accumulator registers then go through the exact epilogue
// (bias, RESCALE, CLAMP: kernels/int8/int8.h, on 8 lanes: kernels/int8/simd_avx2.h) and are stored narrowed: no
// i32 tensor is written (a pass over the band's i32 sums after the GEMM took about as long as the GEMM on the
// small layers of the PaddleOCR classifier).
//
// Threads: bands of output pixels; a layer with too few bands for the threads (7x7 and 14x14 maps) is split by
// panels of channels too.
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <type_traits>

#include "fast/cpu_features.h"
#include "fast/isa_dispatch.h"
#include "fast/kernel_factories.h"
#include "fast/kernels/common.h"
#include "fast/kernels/conv_geometry.h"
#include "fast/kernels/int8/int8.h"
#include "fast/kernels/int8/simd_avx2.h"
#include "fast/onednn/common.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

constexpr int kPixels = 4;      // 4 x 2 accumulators + 2 weight vectors + broadcasts (GCC 12 spilled a 6-pixel block)
constexpr int64_t kPanel = 16;  // output channels per panel: two vectors of 8 i32
constexpr int64_t kBandBytes = 64 * 1024;    // the i16 rows of one band (L2)
constexpr int64_t kMaxK = int64_t(1) << 16;  // |acc| <= 2^14 * K < 2^31
constexpr int64_t kInlinePairs = 16;         // reductions of at most 32 columns inline reduce4x2Body

std::atomic<int64_t> hiFormRuns{0};  // convInt8HiFormRunsForTesting

// Weights for `vpmaddwd`: panel j, pair g (columns 2g, 2g + 1) is 16 lanes of two i16, lane l for output channel
// 16j + l; zeros pad the channels and an odd last column.
struct PackedWeights {
  int64_t K = 0, pairs = 0, panels = 0, OC = 0;
  Aligned64<int16_t> w;  // [panels][pairs][16][2]
};

PackedWeights packWeights(const int8_t* w, int64_t OC, int64_t K) {
  PackedWeights p;
  p.K = K, p.OC = OC, p.pairs = (K + 1) / 2, p.panels = (OC + kPanel - 1) / kPanel;
  p.w.assign(size_t(p.panels * p.pairs * kPanel * 2), 0);
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t k = 0; k < K; ++k)
      p.w[size_t(((oc / kPanel) * p.pairs + k / 2) * kPanel * 2 + (oc % kPanel) * 2 + k % 2)] = w[oc * K + k];
  return p;
}

// Which input values make row m of the GEMM (output pixel m of the N * OH * OW).
struct Gather {
  int64_t IH = 0, IW = 0, IC = 0, OH = 0, OW = 0, KH = 1, KW = 1;
  int64_t strideY = 1, strideX = 1, dilationY = 1, dilationX = 1, padTop = 0, padLeft = 0;
  int16_t zp = 0;
  bool direct = true;  // row m is input pixel m (1x1, stride 1, no padding; matmul)
};

// n bytes sign-extended to i16.
TK_VECTOR_BODY void widenBody(const int8_t* __restrict src, int16_t* __restrict dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}
void widen(const int8_t* src, int16_t* dst, int64_t n) { TK_ISA_DISPATCH(widenBody(src, dst, n)); }

// The baseline's GEMM (no AVX2): rows x OC exact i32 sums of i16 products (|sum| <= 2^14 K < 2^31), written for
// the auto-vectorizer (pmaddwd at SSE4.2).
TK_VECTOR_BODY void dotRowsBody(const int16_t* __restrict a, int64_t lda, const int16_t* __restrict w, int64_t OC,
                                int64_t rows, int32_t* __restrict acc) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t oc = 0; oc < OC; ++oc) {
      const int16_t *ar = a + r * lda, *wr = w + oc * lda;
      int32_t sum = 0;
      for (int64_t k = 0; k < lda; ++k) sum += int32_t(ar[k]) * int32_t(wr[k]);
      acc[r * OC + oc] = sum;
    }
}
void dotRows(const int16_t* a, int64_t lda, const int16_t* w, int64_t OC, int64_t rows, int32_t* acc) {
  TK_ISA_DISPATCH(dotRowsBody(a, lda, w, OC, rows, acc));
}

// n bytes from s to d: a 3-channel first layer's kernel rows are 9-15 bytes, which a memcpy call of variable size
// costs more than the GEMM's share of them; below 16 bytes two overlapping fixed-size copies.
inline void copyBytes(int8_t* d, const int8_t* s, int64_t n) {
  if (n >= 16) {
    std::memcpy(d, s, size_t(n));
  } else if (n >= 8) {
    std::memcpy(d, s, 8), std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(d, s, 4), std::memcpy(d + n - 4, s + n - 4, 4);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = s[i];
  }
}

// Rows [m0, m1) of the GEMM's left operand as i16, lda apart (the columns past K zero): the input bytes of each
// row copied as bytes first (a 3-channel first layer's taps are 9 bytes each), then the whole band widened in one
// stream. `bytes`: scratch of (m1 - m0) * lda bytes. The output pixel (n, oy, ox) of row m is counted up from
// m0's (no divisions per row).
void gatherRows(const Gather& g, const int8_t* x, int64_t m0, int64_t m1, int64_t K, int64_t lda, int8_t* bytes,
                int16_t* a) {
  if (g.direct && K == lda) {  // the input rows are the band's bytes already
    widen(x + m0 * K, a, (m1 - m0) * K);
    return;
  }
  if (g.direct) {  // rows of K bytes padded to lda
    for (int64_t m = m0; m < m1; ++m) {
      int8_t* row = bytes + (m - m0) * lda;
      copyBytes(row, x + m * K, K);
      for (int64_t k = K; k < lda; ++k) row[k] = 0;
    }
    widen(bytes, a, (m1 - m0) * lda);
    return;
  }
  const int64_t rowTaps = g.KW * g.IC;
  const int8_t zp = int8_t(g.zp);
  int64_t n = m0 / (g.OH * g.OW), oy = m0 / g.OW % g.OH, ox = m0 % g.OW;
  for (int64_t m = m0; m < m1; ++m) {
    int8_t* row = bytes + (m - m0) * lda;
    for (int64_t k = K; k < lda; ++k) row[k] = 0;
    const int64_t iy0 = oy * g.strideY - g.padTop, ix0 = ox * g.strideX - g.padLeft;
    const int64_t ixLast = ix0 + (g.KW - 1) * g.dilationX;
    const bool rowInside = g.dilationX == 1 && ix0 >= 0 && ixLast < g.IW;  // each kernel row's taps contiguous
    for (int64_t ky = 0; ky < g.KH; ++ky) {
      const int64_t iy = iy0 + ky * g.dilationY;
      int8_t* dst = row + ky * rowTaps;
      if (iy < 0 || iy >= g.IH) {
        std::memset(dst, zp, size_t(rowTaps));
        continue;
      }
      const int8_t* src = x + ((n * g.IH + iy) * g.IW) * g.IC;
      if (rowInside) {
        copyBytes(dst, src + ix0 * g.IC, rowTaps);
        continue;
      }
      for (int64_t kx = 0; kx < g.KW; ++kx) {
        const int64_t ix = ix0 + kx * g.dilationX;
        if (ix < 0 || ix >= g.IW)
          std::memset(dst + kx * g.IC, zp, size_t(g.IC));
        else
          copyBytes(dst + kx * g.IC, src + ix * g.IC, g.IC);
      }
    }
    if (++ox == g.OW) {
      ox = 0;
      if (++oy == g.OH) oy = 0, ++n;
    }
  }
  widen(bytes, a, (m1 - m0) * lda);
}

// Columns 2g, 2g + 1 of a row as one i32 broadcast to 8 lanes.
TK_TARGET_AVX2 inline __m256i broadcastPair(const int16_t* p) {
  int32_t pair;
  std::memcpy(&pair, p, 4);
  return _mm256_set1_epi32(pair);
}

// The 4 rows x 16 channels reduction (the common block) with named accumulators: with an array, GCC 12 put each
// step's sums in fresh registers and copied all 8 back per step (8 moves to 16 vector operations; the loop is
// bound by its instructions, not by vpmaddwd's two pipes). Long reductions call it (reduce4x2): inside the block
// the epilogue's registers brought the copies back; the 8 sums go through memory once per block instead. Short
// ones (kInlinePairs) inline it: there the call and the sums' round trip through memory cost more (mobilenet_v2's
// 112x112 16->96 expansion 0.565 -> 0.51 ms at avx2; its 160->960 one 0.096 -> 0.103 ms when inlined).
// The sums start at init0 / init1 (zero, or the bias: see block).
TK_TARGET_AVX2 inline __attribute__((always_inline)) void reduce4x2Body(const int16_t* a, int64_t lda, const int16_t* w,
                                                                        int64_t pairs, __m256i (&acc)[4][2],
                                                                        __m256i init0, __m256i init1) {
  __m256i c00 = init0, c01 = init1, c10 = init0, c11 = init1, c20 = init0, c21 = init1, c30 = init0, c31 = init1;
  const int16_t *a0 = a, *a1 = a + lda, *a2 = a + 2 * lda, *a3 = a + 3 * lda;
  for (int64_t g = 0; g < pairs; ++g) {
    const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + g * 32));
    const __m256i w1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + g * 32 + 16));
    __m256i x = broadcastPair(a0 + 2 * g);
    c00 = _mm256_add_epi32(c00, _mm256_madd_epi16(x, w0)), c01 = _mm256_add_epi32(c01, _mm256_madd_epi16(x, w1));
    x = broadcastPair(a1 + 2 * g);
    c10 = _mm256_add_epi32(c10, _mm256_madd_epi16(x, w0)), c11 = _mm256_add_epi32(c11, _mm256_madd_epi16(x, w1));
    x = broadcastPair(a2 + 2 * g);
    c20 = _mm256_add_epi32(c20, _mm256_madd_epi16(x, w0)), c21 = _mm256_add_epi32(c21, _mm256_madd_epi16(x, w1));
    x = broadcastPair(a3 + 2 * g);
    c30 = _mm256_add_epi32(c30, _mm256_madd_epi16(x, w0)), c31 = _mm256_add_epi32(c31, _mm256_madd_epi16(x, w1));
  }
  acc[0][0] = c00, acc[0][1] = c01, acc[1][0] = c10, acc[1][1] = c11;
  acc[2][0] = c20, acc[2][1] = c21, acc[3][0] = c30, acc[3][1] = c31;
}
TK_TARGET_AVX2 __attribute__((noinline)) void reduce4x2(const int16_t* a, int64_t lda, const int16_t* w, int64_t pairs,
                                                        __m256i (&acc)[4][2], __m256i init0, __m256i init1) {
  reduce4x2Body(a, lda, w, pairs, acc, init0, init1);
}

// P rows of a (lda apart) x one panel of weights (output channels cb..cb+15; NV = 1: only cb..cb+7 exist, the
// last panel of a layer with 8 or fewer channels left): the reduction in registers, then the epilogue
// (kernels/int8/simd_avx2.h) on each accumulator, stored to y (rows OC apart; the channels that exist).
// kHi: the sums start at the bias (IntEpilogueLanes::noOverflow: no sum can overflow, so the order of the
// additions does not matter) and go through rescaleHi8 (IntEpilogueLanes::hiForm) instead of rescale8.
template <int P, int NV, typename OutT, bool kRescale, bool kDouble, bool kRange, bool kOverflow, bool kShort,
          bool kHi = false>
TK_TARGET_AVX2 inline void block(const int16_t* a, int64_t lda, const int16_t* w, int64_t pairs,
                                 const IntEpilogueLanes& l, OutT* y, int64_t OC, int64_t cb, EpiFlags8& f) {
  __m256i acc[P][NV], init[2] = {_mm256_setzero_si256(), _mm256_setzero_si256()};
  if constexpr (kHi) init[0] = load8(l.bias.data() + cb), init[1] = load8(l.bias.data() + cb + 8);
  if constexpr (P == 4 && NV == 2) {
    if constexpr (kShort)
      reduce4x2Body(a, lda, w, pairs, acc, init[0], init[1]);
    else
      reduce4x2(a, lda, w, pairs, acc, init[0], init[1]);
  } else {  // fully unrolled so the accumulators stay in registers
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) acc[p][v] = init[v];
    for (int64_t g = 0; g < pairs; ++g) {
      __m256i wv[NV];
#pragma GCC unroll 2
      for (int v = 0; v < NV; ++v) wv[v] = _mm256_load_si256(reinterpret_cast<const __m256i*>(w + g * 32 + 16 * v));
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) {
        const __m256i x = broadcastPair(a + p * lda + 2 * g);
#pragma GCC unroll 2
        for (int v = 0; v < NV; ++v) acc[p][v] = _mm256_add_epi32(acc[p][v], _mm256_madd_epi16(x, wv[v]));
      }
    }
  }
  if constexpr (std::is_same_v<OutT, int8_t> && NV == 2) {
    if (OC - cb >= 16) {  // a whole panel: each row's 16 channels packed and clipped at once
#pragma GCC unroll 2
      for (int v = 0; v < 2; ++v) {
        if constexpr (kHi) {
          const EpiHiRegs8 r = loadEpiHi8(l, cb + 8 * v);
#pragma GCC unroll 8
          for (int p = 0; p < P; ++p) acc[p][v] = rescaleHi8(acc[p][v], r);
        } else {
          const EpiRegs8 r = loadEpi8(l, l.bias.data(), cb + 8 * v);
#pragma GCC unroll 8
          for (int p = 0; p < P; ++p) acc[p][v] = rescale8<kRescale, kDouble, kRange, kOverflow>(acc[p][v], r, f);
        }
      }
      if constexpr (P % 2 == 0) {  // rows in pairs: one pack for both
        const __m256i lo = _mm256_set1_epi8(int8_t(l.lo)), hi = _mm256_set1_epi8(int8_t(l.hi));
#pragma GCC unroll 4
        for (int p = 0; p < P; p += 2)
          storeClipped16x2(y + p * OC + cb, y + (p + 1) * OC + cb, acc[p][0], acc[p][1], acc[p + 1][0], acc[p + 1][1],
                           lo, hi);
        return;
      }
      const __m128i lo = _mm_set1_epi8(int8_t(l.lo)), hi = _mm_set1_epi8(int8_t(l.hi));
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) storeClipped16(y + p * OC + cb, acc[p][0], acc[p][1], lo, hi);
      return;
    }
  }
#pragma GCC unroll 2
  for (int v = 0; v < NV; ++v) {
    const int n = int(std::min<int64_t>(8, OC - cb - 8 * v));
    if (n <= 0) return;
    if constexpr (kHi) {
      const EpiHiRegs8 r = loadEpiHi8(l, cb + 8 * v);
      const __m256i lo = _mm256_set1_epi32(l.lo), hi = _mm256_set1_epi32(l.hi);
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p)
        storeNarrow8(y + p * OC + cb + 8 * v, _mm256_min_epi32(_mm256_max_epi32(rescaleHi8(acc[p][v], r), lo), hi), n);
      continue;
    }
    const EpiRegs8 r = loadEpi8(l, l.bias.data(), cb + 8 * v);  // the lanes are padded to 16 channels
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p)
      epilogue8<OutT, kRescale, kDouble, kRange, kOverflow>(acc[p][v], r, y + p * OC + cb + 8 * v, n, f);
  }
}

// rows x one panel: blocks of kPixels rows, then the 1-3 rows left.
template <int NV, typename OutT, bool kRescale, bool kDouble, bool kRange, bool kOverflow, bool kShort, bool kHi>
TK_TARGET_AVX2 void panelRows(const int16_t* a, int64_t lda, const int16_t* w, int64_t pairs, const IntEpilogueLanes& l,
                              OutT* y, int64_t OC, int64_t cb, int64_t rows, EpiFlags8& f) {
  int64_t r = 0;
  for (; r + kPixels <= rows; r += kPixels)
    block<kPixels, NV, OutT, kRescale, kDouble, kRange, kOverflow, kShort, kHi>(a + r * lda, lda, w, pairs, l,
                                                                                y + r * OC, OC, cb, f);
  const int16_t* ar = a + r * lda;
  OutT* yr = y + r * OC;
  if (rows - r == 1)
    block<1, NV, OutT, kRescale, kDouble, kRange, kOverflow, kShort, kHi>(ar, lda, w, pairs, l, yr, OC, cb, f);
  if (rows - r == 2)
    block<2, NV, OutT, kRescale, kDouble, kRange, kOverflow, kShort, kHi>(ar, lda, w, pairs, l, yr, OC, cb, f);
  if (rows - r == 3)
    block<3, NV, OutT, kRescale, kDouble, kRange, kOverflow, kShort, kHi>(ar, lda, w, pairs, l, yr, OC, cb, f);
}

// rows x panels [j0, j1) of a band into y (its first row; rows OC apart), the epilogue applied; false: a
// REQUIRE of the epilogue failed.
// kShort: at most kInlinePairs pairs (reduce4x2Body inlined).
template <typename OutT, bool kRescale, bool kDouble = true, bool kRange = true, bool kOverflow = true,
          bool kShort = false, bool kHi = false>
TK_TARGET_AVX2 bool gemmBand(const PackedWeights& pw, const IntEpilogueLanes& l, const int16_t* a, int64_t lda,
                             int64_t rows, int64_t j0, int64_t j1, OutT* y) {
  static_assert(kPixels == 4, "panelRows handles the 1-3 rows after the blocks");
  const int64_t OC = pw.OC, panelSize = pw.pairs * kPanel * 2;
  EpiFlags8 f = epiFlags8();
  for (int64_t j = j0; j < j1; ++j) {
    const int16_t* w = pw.w.data() + j * panelSize;
    const int64_t cb = j * kPanel;
    if (OC - cb <= 8)
      panelRows<1, OutT, kRescale, kDouble, kRange, kOverflow, kShort, kHi>(a, lda, w, pw.pairs, l, y, OC, cb, rows, f);
    else
      panelRows<2, OutT, kRescale, kDouble, kRange, kOverflow, kShort, kHi>(a, lda, w, pw.pairs, l, y, OC, cb, rows, f);
  }
  return epiFlags8Ok(f);
}

// The calling thread's scratch (reused by every layer): the band's i16 rows and its gathered bytes.
int16_t* rowScratch(int64_t elements) {
  thread_local std::vector<int16_t> buf;
  if (int64_t(buf.size()) < elements) buf.resize(size_t(elements));
  return buf.data();
}

class Int8ConvAvx2Kernel : public OpKernel {
 public:
  Int8ConvAvx2Kernel(std::string name, PackedWeights pw, Gather g, int64_t M)
      : name_(std::move(name)), pw_(std::move(pw)), g_(g), M_(M), generic_(!cpu::has(cpu::Isa::Avx2)) {
    lda_ = pw_.pairs * 2;
    // Bands of whole register blocks whose i16 rows fill about kBandBytes.
    bandRows_ = std::clamp<int64_t>(kBandBytes / (lda_ * 2) / kPixels * kPixels, kPixels, 16 * kPixels);
  }
  std::string implName() const override { return name_; }
  double flops() const override { return 2.0 * double(M_ * pw_.K * pw_.OC); }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int8_t* x = in[0][0].as<const int8_t>();
    if (hiForm()) hiFormRuns.fetch_add(1, std::memory_order_relaxed);
    // Below ~2M multiply-accumulates one thread (docs/FAST.md, Threads).
    const int threads = flops() >= 4e6 ? omp_get_max_threads() : 1;
    const int64_t bands = (M_ + bandRows_ - 1) / bandRows_;
    // Few bands for the threads (7x7 and 14x14 maps): each also split by panels of channels, round robin.
    const int64_t splits =
        generic_ || threads == 1 || bands >= 2 * threads ? 1 : std::min<int64_t>(threads, pw_.panels);
    const auto item = [&](int64_t i) {
      const int64_t b = i / splits, s = i % splits;
      const int64_t m0 = b * bandRows_, m1 = std::min(M_, m0 + bandRows_);
      return computeBand(x, m0, m1, pw_.panels * s / splits, pw_.panels * (s + 1) / splits, out[0].data);
    };
    const bool ok =
        splits > 1 ? parallelItems<true>(bands * splits, true, item) : parallelItems(bands, threads > 1, item);
    return ok ? Status::ok() : rerunOnReference();
  }

  IntEpilogue epi_;
  Aligned64<int16_t> wRows_;  // the baseline's weights: OC rows of lda i16 (zeros past K)
  int absorbed() const { return epi_.absorbed; }
  bool generic() const { return generic_; }
  // The i8 results through rescaleHi8 (bandI8Form).
  bool hiForm() const {
    return !generic_ && epi_.outType == DType::I8 && epi_.rescale && epi_.simd.hiForm && epi_.simd.noOverflow;
  }

 private:
  bool computeBand(const int8_t* x, int64_t m0, int64_t m1, int64_t j0, int64_t j1, void* out) const {
    int16_t* a = rowScratch(bandRows_ * lda_ * 3 / 2);  // the i16 rows, then the bytes
    gatherRows(g_, x, m0, m1, pw_.K, lda_, reinterpret_cast<int8_t*>(a + bandRows_ * lda_), a);
    if (generic_) {  // the sums, then the shared epilogue over the band's rows
      int32_t* acc = accScratch((m1 - m0) * pw_.OC);
      dotRows(a, lda_, wRows_.data(), pw_.OC, m1 - m0, acc);
      return runIntEpilogueRows(epi_, acc, m1 - m0, out, m0);
    }
    const IntEpilogueLanes& l = epi_.simd;
    const int64_t first = m0 * pw_.OC, rows = m1 - m0;
    switch (epi_.outType) {
      case DType::I8: return bandI8(l, a, rows, j0, j1, static_cast<int8_t*>(out) + first);
      case DType::I16:
        return gemmBand<int16_t, true>(pw_, l, a, lda_, rows, j0, j1, static_cast<int16_t*>(out) + first);
      default:
        int32_t* y = static_cast<int32_t*>(out) + first;
        return epi_.rescale ? gemmBand<int32_t, true>(pw_, l, a, lda_, rows, j0, j1, y)
                            : gemmBand<int32_t, false>(pw_, l, a, lda_, rows, j0, j1, y);
    }
  }

  // The quantized graph's i8 results without the checks and the rounding terms that cannot matter (epilogue8).
  bool bandI8(const IntEpilogueLanes& l, const int16_t* a, int64_t rows, int64_t j0, int64_t j1, int8_t* y) const {
    return pw_.pairs <= kInlinePairs ? bandI8Form<true>(l, a, rows, j0, j1, y)
                                     : bandI8Form<false>(l, a, rows, j0, j1, y);
  }
  template <bool kShort>
  bool bandI8Form(const IntEpilogueLanes& l, const int16_t* a, int64_t rows, int64_t j0, int64_t j1, int8_t* y) const {
    const bool dbl = epi_.doubleRound, range = epi_.rangeCheck, ovf = !l.noOverflow;
    const PackedWeights& w = pw_;
    const int64_t d = lda_;
    if (l.hiForm && !ovf) return gemmBand<int8_t, true, false, false, false, kShort, true>(w, l, a, d, rows, j0, j1, y);
    if (dbl) return gemmBand<int8_t, true, true, true, true, kShort>(w, l, a, d, rows, j0, j1, y);
    if (range) return gemmBand<int8_t, true, false, true, true, kShort>(w, l, a, d, rows, j0, j1, y);
    return ovf ? gemmBand<int8_t, true, false, false, true, kShort>(w, l, a, d, rows, j0, j1, y)
               : gemmBand<int8_t, true, false, false, false, kShort>(w, l, a, d, rows, j0, j1, y);
  }

  std::string name_;
  PackedWeights pw_;
  Gather g_;
  int64_t M_ = 0, lda_ = 0, bandRows_ = 0;
  bool generic_ = false;  // no AVX2: dotRows and the shared epilogue
};

// The kernel for M rows of K gathered input bytes times constant weights w[OC][K] + bias (one value or one per
// channel), the chain's epilogue fused; null when the sizes or the folded bias do not fit (see the top).
Result<CompiledKernel> buildKernel(const std::string& name, const OpChain& c, const int8_t* w, int64_t M, int64_t K,
                                   int64_t OC, const std::vector<int64_t>& bias, const Gather& g) {
  if (K > kMaxK || M < 1 || OC < 1 || K < 1) return CompiledKernel{};
  std::vector<int32_t> folded(static_cast<size_t>(OC));
  for (int64_t oc = 0; oc < OC; ++oc) {
    int64_t sum = 0;
    for (int64_t i = 0; i < K; ++i) sum += w[oc * K + i];
    const int64_t f = bias[bias.size() == 1 ? 0 : size_t(oc)] - int64_t(g.zp) * sum;
    if (f < INT32_MIN || f > INT32_MAX) return CompiledKernel{};
    folded[size_t(oc)] = int32_t(f);
  }
  auto k = std::make_unique<Int8ConvAvx2Kernel>(name + (cpu::has(cpu::Isa::Avx2) ? "_avx2" : ""), packWeights(w, OC, K),
                                                g, M);
  if (k->generic()) {
    const int64_t lda = (K + 1) / 2 * 2;
    k->wRows_.assign(size_t(OC * lda), 0);
    for (int64_t oc = 0; oc < OC; ++oc)
      for (int64_t i = 0; i < K; ++i) k->wRows_[size_t(oc * lda + i)] = w[oc * K + i];
  }
  k->epi_ = planIntEpilogue(c, OC, nullptr);
  if (k->epi_.runtimeBias || !k->epi_.rowClass.empty()) return CompiledKernel{};
  k->epi_.biasTable = std::move(folded);
  prepareIntEpilogue(k->epi_);
  buildIntEpilogueLanes(k->epi_, k->epi_.biasTable.data(), 1);  // also under setIntEpilogueGenericForTesting
  return compiledKernel(std::move(k));
}

}  // namespace

int64_t convInt8HiFormRunsForTesting() { return hiFormRuns.load(); }

// conv2d [N, IH, IW, IC] x constant [OC, KH, KW, IC] + constant i32 bias, i8 -> i32 (conv_geometry.h).
Result<CompiledKernel> compileInt8ConvAvx2(const OpChain& c) {
  const std::optional<ConvGeom> geom = parseConv(c, ConvKind::Conv2d);
  if (!geom || !geom->isInt()) return CompiledKernel{};
  const ConvGeom& cg = *geom;
  const Tensor *w = constOperand(c, 0, 1), *bias = constOperand(c, 0, 2);
  if (!w || !bias || bias->dtype() != DType::I32 || cg.inputZp < -128 || cg.inputZp > 127) return CompiledKernel{};
  Gather g;
  g.IH = cg.IH, g.IW = cg.IW, g.IC = cg.IC, g.OH = cg.OH, g.OW = cg.OW, g.KH = cg.KH, g.KW = cg.KW;
  g.strideY = cg.strides[0], g.strideX = cg.strides[1];
  g.dilationY = cg.dilates[0] + 1, g.dilationX = cg.dilates[1] + 1;  // oneDNN's conventions: dilation - 1
  g.padTop = cg.padL[0], g.padLeft = cg.padL[1];
  g.zp = int16_t(cg.inputZp);
  const bool noPad = cg.padL == std::vector<int64_t>{0, 0} && cg.padR == std::vector<int64_t>{0, 0};
  g.direct = cg.KH == 1 && cg.KW == 1 && g.strideY == 1 && g.strideX == 1 && noPad;
  return buildKernel("fast:conv_int8", c, reinterpret_cast<const int8_t*>(w->data()), cg.N * cg.OH * cg.OW,
                     cg.KH * cg.KW * cg.IC, cg.OC, bias->toInts(), g);
}

// matmul [1, H, C] x constant [1, C, W] (B's zero point 0): H rows of C bytes, W output channels.
Result<CompiledKernel> compileInt8MatmulAvx2(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.size() != 4 || op.results.size() != 1) return CompiledKernel{};
  const ir::ValueType &a = operandType(c, 0, 0), &b = operandType(c, 0, 1), &out = resultType(c, 0);
  if (!isStatic(a) || !isStatic(b) || !isStatic(out) || a.rank() != 3 || b.rank() != 3 || out.rank() != 3)
    return CompiledKernel{};
  if (a.dtype != DType::I8 || b.dtype != DType::I8 || out.dtype != DType::I32) return CompiledKernel{};
  const Tensor* bw = constOperand(c, 0, 1);
  auto aZp = zeroPoint(c, 0, 2), bZp = zeroPoint(c, 0, 3);
  if (!bw || !aZp || !bZp || *bZp != 0 || *aZp < -128 || *aZp > 127) return CompiledKernel{};
  const int64_t H = a.dims[1], C = a.dims[2], W = b.dims[2];
  if (a.dims[0] != 1 || b.dims != Shape{1, C, W} || out.dims != Shape{1, H, W}) return CompiledKernel{};
  // B is [C, W]: the kernel wants one row of C weights per output channel.
  const int8_t* bp = reinterpret_cast<const int8_t*>(bw->data());
  std::vector<int8_t> w(size_t(W * C));
  for (int64_t k = 0; k < C; ++k)
    for (int64_t n = 0; n < W; ++n) w[size_t(n * C + k)] = bp[k * W + n];
  Gather g;
  g.zp = int16_t(*aZp);
  return buildKernel("fast:matmul_int8", c, w.data(), H, C, W, {0}, g);
}

}  // namespace tosakit::fast
