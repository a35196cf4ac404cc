// fp32 TRANSPOSE_CONV2D with kernel == stride (kernels_transpose_conv.h). An input pixel's T = KH*KW*OC
// outputs are accumulated in V = ceil(T / 16) AVX-512 vectors: for each input channel, x[ic] broadcast times
// the packed weight row W[ic][0..T) (V loads reused by a block of P pixels). oneDNN 2.6 ran these layers as
// KH*KW strided matmuls at 1.8 GFLOP/s (PP-OCRv4 det's 24 -> 1 channel head: N = 1) and 22 GFLOP/s
// (24 -> 24 channels). The epilogue runs over an input row's KH output rows while they are in cache. Work is
// split over input rows; CPUs without AVX-512 run a plain loop the compiler vectorizes.
//
// Built with -ffp-contract=off (src/fast/CMakeLists.txt): the epilogue's ADD/MUL/CLAMP are each one fp32
// rounding, as TOSA rounds them; the dot product's fused multiply-adds are explicit intrinsics.
#include "fast/kernels_transpose_conv.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tosakit::fast {
namespace {

using Kind = FloatEpilogueOp::Kind;
using Operand = FloatEpilogueOp::Operand;

int64_t paddedTaps(const TransposeConvF32Geometry& g) { return (g.KH * g.KW * g.OC + 15) / 16 * 16; }

// The raw result of one input pixel (T values, bias added) stored to its KH rows of KW*OC output values.
inline void scatterPixel(const TransposeConvF32Geometry& g, const float* t, float* yRow, int64_t ix) {
  const int64_t OW = g.IW * g.KW, run = g.KW * g.OC;
  for (int64_t ky = 0; ky < g.KH; ++ky)
    std::memcpy(yRow + (ky * OW + ix * g.KW) * g.OC, t + ky * run, size_t(run) * sizeof(float));
}

// ---- AVX-512 ----
#define TOSAKIT_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))

// P pixels from ix: acc = sum over ic of x * W (fused multiply-adds in ic order), + bias, scattered.
template <int V, int P>
TOSAKIT_AVX512 inline void pixelBlock(const TransposeConvF32Geometry& g, const float* xRow, const float* W,
                                      const float* biasT, float* yRow, int64_t ix) {
  constexpr int64_t Tp = V * 16;
  __m512 acc[P][V];
  for (int p = 0; p < P; ++p)
    for (int v = 0; v < V; ++v) acc[p][v] = _mm512_setzero_ps();
  const float* x = xRow + ix * g.IC;
  for (int64_t ic = 0; ic < g.IC; ++ic) {
    __m512 w[V];
    for (int v = 0; v < V; ++v) w[v] = _mm512_loadu_ps(W + ic * Tp + v * 16);
    for (int p = 0; p < P; ++p) {
      const __m512 xb = _mm512_set1_ps(x[p * g.IC + ic]);
      for (int v = 0; v < V; ++v) acc[p][v] = _mm512_fmadd_ps(xb, w[v], acc[p][v]);
    }
  }
  alignas(64) float t[Tp];
  for (int p = 0; p < P; ++p) {
    for (int v = 0; v < V; ++v) _mm512_store_ps(t + v * 16, _mm512_add_ps(acc[p][v], _mm512_loadu_ps(biasT + v * 16)));
    scatterPixel(g, t, yRow, ix + p);
  }
}

template <int V>
TOSAKIT_AVX512 void rowAvx512(const TransposeConvF32Geometry& g, const float* xRow, const float* W, const float* biasT,
                              float* yRow) {
  constexpr int P = V == 1 ? 12 : V == 2 ? 8 : V <= 4 ? 6 : 4;  // P*V accumulators + V weights <= 32 registers
  int64_t ix = 0;
  for (; ix + P <= g.IW; ix += P) pixelBlock<V, P>(g, xRow, W, biasT, yRow, ix);
  for (; ix < g.IW; ++ix) pixelBlock<V, 1>(g, xRow, W, biasT, yRow, ix);
}

void rowAvx512(const TransposeConvF32Geometry& g, const float* xRow, const float* W, const float* biasT, float* yRow) {
  switch (paddedTaps(g) / 16) {
    case 1: return rowAvx512<1>(g, xRow, W, biasT, yRow);
    case 2: return rowAvx512<2>(g, xRow, W, biasT, yRow);
    case 3: return rowAvx512<3>(g, xRow, W, biasT, yRow);
    case 4: return rowAvx512<4>(g, xRow, W, biasT, yRow);
    case 5: return rowAvx512<5>(g, xRow, W, biasT, yRow);
    default: return rowAvx512<6>(g, xRow, W, biasT, yRow);
  }
}

// ---- portable (AVX2 / baseline): plain loops over the taps, vectorized by the compiler ----
#define TOSAKIT_PORTABLE __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("O3")))

TOSAKIT_PORTABLE void rowPortable(const TransposeConvF32Geometry& g, const float* xRow, const float* W,
                                  const float* biasT, float* yRow) {
  const int64_t Tp = paddedTaps(g);
  float t[kTransposeConvMaxTaps + 16];
  for (int64_t ix = 0; ix < g.IW; ++ix) {
    std::fill(t, t + Tp, 0.f);
    const float* x = xRow + ix * g.IC;
    for (int64_t ic = 0; ic < g.IC; ++ic) {
      const float xv = x[ic];
      const float* w = W + ic * Tp;
      for (int64_t i = 0; i < Tp; ++i) t[i] += xv * w[i];  // two roundings: within the dot-product bound
    }
    for (int64_t i = 0; i < Tp; ++i) t[i] += biasT[i];
    scatterPixel(g, t, yRow, ix);
  }
}

// ---- the epilogue over `n` consecutive output values starting at flat index `offset` (channel offset % C) ----
TOSAKIT_PORTABLE void epilogueRange(float* y, int64_t n, int64_t offset, int64_t channels,
                                    const std::vector<FloatEpilogueOp>& ops, const std::vector<const float*>& operands) {
  for (size_t o = 0; o < ops.size(); ++o) {
    const FloatEpilogueOp& op = ops[o];
    if (op.kind == Kind::Clamp) {
      const float lo = op.lo, hi = op.hi;
      for (int64_t i = 0; i < n; ++i) {
        const float v = y[i], c = std::min(std::max(v, lo), hi);  // apply_clip_f: NaN stays NaN
        y[i] = v != v ? (op.ignoreNan ? lo : v) : c;
      }
      continue;
    }
    const float* q = operands[o];
    const bool add = op.kind == Kind::Add;
    if (op.operand == Operand::Scalar || (op.operand == Operand::PerChannel && channels == 1)) {
      const float s = q[0];
      if (add) for (int64_t i = 0; i < n; ++i) y[i] += s;
      else for (int64_t i = 0; i < n; ++i) y[i] *= s;
    } else if (op.operand == Operand::Full) {
      const float* s = q + offset;
      if (add) for (int64_t i = 0; i < n; ++i) y[i] += s[i];
      else for (int64_t i = 0; i < n; ++i) y[i] *= s[i];
    } else {  // per channel; the range starts at a pixel boundary (offset % channels == 0)
      for (int64_t p = 0; p < n; p += channels) {
        if (add) for (int64_t c = 0; c < channels; ++c) y[p + c] += q[c];
        else for (int64_t c = 0; c < channels; ++c) y[p + c] *= q[c];
      }
    }
  }
}

}  // namespace

bool transposeConvF32Applies(const TransposeConvF32Geometry& g) {
  return g.N > 0 && g.IH > 0 && g.IW > 0 && g.IC > 0 && g.OC > 0 && g.KH > 0 && g.KW > 0 &&
         g.KH * g.KW * g.OC <= kTransposeConvMaxTaps;
}

std::vector<float> packTransposeConvF32Weights(const TransposeConvF32Geometry& g, const float* w) {
  const int64_t Tp = paddedTaps(g);
  std::vector<float> packed(size_t(g.IC * Tp), 0.f);
  for (int64_t oc = 0; oc < g.OC; ++oc)
    for (int64_t ky = 0; ky < g.KH; ++ky)
      for (int64_t kx = 0; kx < g.KW; ++kx)
        for (int64_t ic = 0; ic < g.IC; ++ic)
          packed[size_t(ic * Tp + (ky * g.KW + kx) * g.OC + oc)] = w[((oc * g.KH + ky) * g.KW + kx) * g.IC + ic];
  return packed;
}

void transposeConvF32(const TransposeConvF32Geometry& g, const float* x, const float* packedW, const float* bias,
                      float* y, const std::vector<FloatEpilogueOp>& epilogue,
                      const std::vector<const float*>& operands) {
  static const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                             __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  const int64_t T = g.KH * g.KW * g.OC;
  alignas(64) float biasT[kTransposeConvMaxTaps + 16] = {};
  for (int64_t t = 0; t < T; ++t) biasT[t] = bias[t % g.OC];
  const int64_t rows = g.N * g.IH, OW = g.IW * g.KW;
  const int64_t rowOut = g.KH * OW * g.OC;  // the output values of one input row (KH whole output rows)
  const double work = double(rows) * double(g.IW) * double(g.IC) * double(T);
#pragma omp parallel for schedule(static) if (work > 2e6)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xRow = x + r * g.IW * g.IC;
    float* yRow = y + r * rowOut;
    if (avx512) rowAvx512(g, xRow, packedW, biasT, yRow);
    else rowPortable(g, xRow, packedW, biasT, yRow);
    if (!epilogue.empty()) epilogueRange(yRow, rowOut, r * rowOut, g.OC, epilogue, operands);
  }
}

}  // namespace tosakit::fast
