// fp32 TRANSPOSE_CONV2D with kernel == stride (kernels/f32/transpose_conv.h). An input pixel's T = KH*KW*OC
// outputs are accumulated in V = ceil(T / 16) AVX-512 vectors: for each input channel, x[ic] broadcast times
// the packed weight row W[ic][0..T) (V loads reused by a block of P pixels). oneDNN 2.6 ran these layers as
// KH*KW strided matmuls at 1.8 GFLOP/s (PP-OCRv4 det's 24 -> 1 channel head: N = 1) and 22 GFLOP/s
// (24 -> 24 channels). The epilogue (per-channel or one-value mul/add, clamp) runs on the accumulators and the
// pixel is stored from them; a full-size operand is a pass over an input row's KH output rows while they are in
// cache. Work is split over input rows; CPUs without AVX-512 run a plain loop the compiler vectorizes.
//
// Built with -ffp-contract=off (src/fast/CMakeLists.txt): the epilogue's ADD/MUL/CLAMP are each one fp32
// rounding, as TOSA rounds them; the dot product's fused multiply-adds are explicit intrinsics.
#include "fast/kernels/f32/transpose_conv.h"
#include "fast/isa_dispatch.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fast/parallel_items.h"

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

// An epilogue op applied in registers: ADD/MUL with its operand repeated to the taps (lane t: channel
// t % OC, or the one value), or CLAMP.
struct LaneOp {
  Kind kind = Kind::Clamp;
  const float* lanes = nullptr;  // Tp values (ADD/MUL)
  float lo = 0, hi = 0;
  bool ignoreNan = false;
};

// The epilogue in registers, the pixels stored straight from them when a run of KW*OC outputs is whole vectors.
struct RowPlan {
  const float* W;
  const float* biasT;
  const LaneOp* ops = nullptr;
  int nOps = 0;
  bool inRegisters = false;  // ops apply to the accumulators (else: a pass over the rows afterwards)
  bool direct = false;       // (KW*OC) % 16 == 0: vector v goes to vecOffset[v] + the pixel's offset
  int64_t vecOffset[kTransposeConvMaxTaps / 16] = {};
};

// ---- AVX-512 ----
#define TOSAKIT_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))

TOSAKIT_AVX512 inline __m512 laneEpilogue(__m512 v, const RowPlan& rp, int vec) {
  for (int o = 0; o < rp.nOps; ++o) {
    const LaneOp& op = rp.ops[o];
    if (op.kind == Kind::Clamp) {  // min(max(v, lo), hi) as apply_clip_f: vmaxps/vminps return v on NaN
      const __m512 lo = _mm512_set1_ps(op.lo);
      const __m512 c =
          _mm512_maskz_min_ps(__mmask16(0xFFFF), _mm512_set1_ps(op.hi), _mm512_maskz_max_ps(__mmask16(0xFFFF), lo, v));
      v = op.ignoreNan ? _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), c, lo) : c;
      continue;
    }
    const __m512 q = _mm512_loadu_ps(op.lanes + vec * 16);
    v = op.kind == Kind::Add ? _mm512_add_ps(v, q) : _mm512_mul_ps(v, q);
  }
  return v;
}

// P pixels from ix: acc = sum over ic of x * W (fused multiply-adds in ic order), + bias, [epilogue,] stored.
template <int V, int P>
TOSAKIT_AVX512 inline void pixelBlock(const TransposeConvF32Geometry& g, const float* xRow, const RowPlan& rp,
                                      float* yRow, int64_t ix) {
  const float* W = rp.W;
  const float* biasT = rp.biasT;
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
    const int64_t pixelOffset = (ix + p) * g.KW * g.OC;
    for (int v = 0; v < V; ++v) {
      __m512 r = _mm512_add_ps(acc[p][v], _mm512_loadu_ps(biasT + v * 16));
      if (rp.inRegisters) r = laneEpilogue(r, rp, v);
      if (rp.direct)
        _mm512_storeu_ps(yRow + rp.vecOffset[v] + pixelOffset, r);
      else
        _mm512_store_ps(t + v * 16, r);
    }
    if (!rp.direct) scatterPixel(g, t, yRow, ix + p);
  }
}

template <int V>
TOSAKIT_AVX512 void rowAvx512(const TransposeConvF32Geometry& g, const float* xRow, const RowPlan& rp, float* yRow) {
  constexpr int P = V == 1 ? 12 : V == 2 ? 8 : V <= 4 ? 6 : 4;  // P*V accumulators + V weights <= 32 registers
  int64_t ix = 0;
  for (; ix + P <= g.IW; ix += P) pixelBlock<V, P>(g, xRow, rp, yRow, ix);
  for (; ix < g.IW; ++ix) pixelBlock<V, 1>(g, xRow, rp, yRow, ix);
}

void rowAvx512(const TransposeConvF32Geometry& g, const float* xRow, const RowPlan& rp, float* yRow) {
  switch (paddedTaps(g) / 16) {
    case 1: return rowAvx512<1>(g, xRow, rp, yRow);
    case 2: return rowAvx512<2>(g, xRow, rp, yRow);
    case 3: return rowAvx512<3>(g, xRow, rp, yRow);
    case 4: return rowAvx512<4>(g, xRow, rp, yRow);
    case 5: return rowAvx512<5>(g, xRow, rp, yRow);
    default: return rowAvx512<6>(g, xRow, rp, yRow);
  }
}

// ---- portable (AVX2 / baseline): plain loops over the taps, vectorized by the compiler ----

TK_VECTOR_BODY void rowPortableBody(const TransposeConvF32Geometry& g, const float* xRow, const float* W,
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
void rowPortable(const TransposeConvF32Geometry& g, const float* xRow, const float* W, const float* biasT,
                 float* yRow) {
  TK_ISA_DISPATCH(rowPortableBody(g, xRow, W, biasT, yRow));
}

// ---- the epilogue over `n` consecutive output values starting at flat index `offset` (channel offset % C) ----
TK_VECTOR_BODY void epilogueRangeBody(float* y, int64_t n, int64_t offset, int64_t channels,
                                      const std::vector<FloatEpilogueOp>& ops,
                                      const std::vector<const float*>& operands) {
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
      if (add)
        for (int64_t i = 0; i < n; ++i) y[i] += s;
      else
        for (int64_t i = 0; i < n; ++i) y[i] *= s;
    } else if (op.operand == Operand::Full) {
      const float* s = q + offset;
      if (add)
        for (int64_t i = 0; i < n; ++i) y[i] += s[i];
      else
        for (int64_t i = 0; i < n; ++i) y[i] *= s[i];
    } else {  // per channel; the range starts at a pixel boundary (offset % channels == 0)
      for (int64_t p = 0; p < n; p += channels) {
        if (add)
          for (int64_t c = 0; c < channels; ++c) y[p + c] += q[c];
        else
          for (int64_t c = 0; c < channels; ++c) y[p + c] *= q[c];
      }
    }
  }
}
void epilogueRange(float* y, int64_t n, int64_t offset, int64_t channels, const std::vector<FloatEpilogueOp>& ops,
                   const std::vector<const float*>& operands) {
  TK_ISA_DISPATCH(epilogueRangeBody(y, n, offset, channels, ops, operands));
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
  const bool avx512 = cpu::has(cpu::Isa::Avx512);
  const int64_t T = g.KH * g.KW * g.OC, Tp = paddedTaps(g);
  alignas(64) float biasT[kTransposeConvMaxTaps + 16] = {};
  for (int64_t t = 0; t < T; ++t) biasT[t] = bias[t % g.OC];
  // The epilogue in registers when every op is a clamp or takes one value / one value per channel (lanes
  // repeated to the taps once per run); a full-size operand leaves it to the pass over each row.
  RowPlan rp{packedW, biasT};
  std::vector<LaneOp> laneOps;
  std::vector<float> lanes(epilogue.size() * size_t(Tp), 0.f);
  rp.inRegisters = true;
  for (size_t o = 0; o < epilogue.size(); ++o) {
    const FloatEpilogueOp& op = epilogue[o];
    LaneOp l;
    l.kind = op.kind, l.lo = op.lo, l.hi = op.hi, l.ignoreNan = op.ignoreNan;
    if (op.kind != Kind::Clamp) {
      if (op.operand == Operand::Full) rp.inRegisters = false;
      float* dst = lanes.data() + o * size_t(Tp);
      for (int64_t t = 0; t < T; ++t) dst[t] = operands[o][op.operand == Operand::PerChannel ? t % g.OC : 0];
      l.lanes = dst;
    }
    laneOps.push_back(l);
  }
  rp.ops = laneOps.data(), rp.nOps = int(laneOps.size());
  const int64_t OWc = g.IW * g.KW * g.OC, run = g.KW * g.OC;
  rp.direct = run % 16 == 0;
  for (int64_t v = 0; rp.direct && v < Tp / 16; ++v) rp.vecOffset[v] = (v * 16 / run) * OWc + (v * 16) % run;
  const bool passAfter = !epilogue.empty() && !(avx512 && rp.inRegisters);
  const int64_t rows = g.N * g.IH, OW = g.IW * g.KW;
  const int64_t rowOut = g.KH * OW * g.OC;  // the output values of one input row (KH whole output rows)
  const double work = double(rows) * double(g.IW) * double(g.IC) * double(T);
  parallelItems(rows, work > 2e6, [&](int64_t r) {
    const float* xRow = x + r * g.IW * g.IC;
    float* yRow = y + r * rowOut;
    if (avx512)
      rowAvx512(g, xRow, rp, yRow);
    else
      rowPortable(g, xRow, packedW, biasT, yRow);
    if (passAfter) epilogueRange(yRow, rowOut, r * rowOut, g.OC, epilogue, operands);
  });
}

}  // namespace tosakit::fast
