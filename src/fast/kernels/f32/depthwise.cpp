// fp32 DEPTHWISE_CONV2D with a fused epilogue (kernels/f32/depthwise.h). NHWC keeps channels contiguous, so 16
// channels of one output pixel are one AVX-512 vector: a block of up to 8 output pixels of one row is
// accumulated in registers over the kernel taps (one weight vector per tap, reused by the block), the epilogue
// runs on the registers and the result is stored once. Pixels whose taps leave the input (the borders) take a
// checked path. Work is split over (output row, 64-channel chunk) across the OpenMP threads. CPUs without
// AVX-512 run a plain loop version the compiler vectorizes for AVX2 or baseline x86-64.
//
// oneDNN 2.6's brdgmm_dw ran these layers at 1-17 GFLOP/s on NHWC tensors (mobilenet_v2, PP-OCR); this pass
// reads the input once per tap row from L1/L2 and writes the output once, epilogue included.
#include "fast/kernels/f32/depthwise.h"
#include "fast/isa_dispatch.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

using Kind = FloatEpilogueOp::Kind;
using Operand = FloatEpilogueOp::Operand;

constexpr int64_t kChunk = 64;  // channels per work item

// How the epilogue runs: kClamp: at most one clamp with nan_mode PROPAGATE (lo/hi); kAffine: [mul] [add]
// [clamp PROPAGATE], each operand one value or one per channel (unfolded BatchNorm, PP-LCNet's learnable affine:
// every depthwise of PP-OCR) as two vector operations on the registers, no walk over the op list; kGeneral: the
// op list.
enum Mode { kClamp, kAffine, kGeneral };

struct Epilogue {
  const std::vector<FloatEpilogueOp>& ops;
  const std::vector<const float*>& operands;
  float lo = -INFINITY, hi = INFINITY;  // the clamp of kClamp/kAffine
  // kAffine: v * mul then + add. A missing mul is * 1 and a missing add is + -0: both give v bit for bit.
  const float* mul = nullptr;
  const float* add = nullptr;
  bool mulPerChannel = false, addPerChannel = false;
};

// ---- AVX-512 ----
#define TOSAKIT_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))

// Loads/stores of 16 channels: plain when the vector is full (masked stores are slow on some CPUs), masked
// for the channel tail.
template <bool kFull>
TOSAKIT_AVX512 inline __m512 load16(const float* p, __mmask16 m) {
  if constexpr (kFull) return _mm512_loadu_ps(p);
  return _mm512_maskz_loadu_ps(m, p);
}
template <bool kFull>
TOSAKIT_AVX512 inline void store16(float* p, __m512 v, __mmask16 m) {
  if constexpr (kFull)
    _mm512_storeu_ps(p, v);
  else
    _mm512_mask_storeu_ps(p, m, v);
}

// vmaxps/vminps return their second source when either is NaN: (lo, v) and (hi, t) propagate NaN, and on
// equal values (-0, +0) return v, as apply_clip_f's min(max(v, lo), hi). The all-lanes zero-masking forms are the
// same instructions; GCC 12's unmasked intrinsics pass an "undefined" vector that -Wuninitialized reports.
TOSAKIT_AVX512 inline __m512 clampPropagate(__m512 v, __m512 lo, __m512 hi) {
  return _mm512_maskz_min_ps(__mmask16(0xFFFF), hi, _mm512_maskz_max_ps(__mmask16(0xFFFF), lo, v));
}

// The epilogue on 16 channels starting at channel c; `offset` is the flat output index of lane 0. The clamp of
// kClamp/kAffine has nan_mode PROPAGATE, [lo, hi] = [-inf, inf] when there is none (every value, NaN and
// infinities included, passes unchanged). The mul and the add are separate roundings (this file is built
// with -ffp-contract=off: GCC would otherwise contract them into one FMA).
template <bool kFull, int kMode>
TOSAKIT_AVX512 inline __m512 epilogue16(__m512 v, const Epilogue& e, int64_t offset, int64_t c, __mmask16 m) {
  if constexpr (kMode == kClamp) return clampPropagate(v, _mm512_set1_ps(e.lo), _mm512_set1_ps(e.hi));
  if constexpr (kMode == kAffine) {
    const __m512 s = e.mulPerChannel ? load16<kFull>(e.mul + c, m) : _mm512_set1_ps(e.mul[0]);
    const __m512 t = e.addPerChannel ? load16<kFull>(e.add + c, m) : _mm512_set1_ps(e.add[0]);
    return clampPropagate(_mm512_add_ps(_mm512_mul_ps(v, s), t), _mm512_set1_ps(e.lo), _mm512_set1_ps(e.hi));
  }
  for (size_t i = 0; i < e.ops.size(); ++i) {
    const FloatEpilogueOp& op = e.ops[i];
    if (op.kind == Kind::Clamp) {
      const __m512 lo = _mm512_set1_ps(op.lo), t = clampPropagate(v, lo, _mm512_set1_ps(op.hi));
      v = op.ignoreNan ? _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), t, lo) : t;
      continue;
    }
    const float* q = e.operands[i];
    const __m512 o = op.operand == Operand::Full ? load16<kFull>(q + offset, m)
        : op.operand == Operand::PerChannel      ? load16<kFull>(q + c, m)
                                                 : _mm512_set1_ps(q[0]);
    v = op.kind == Kind::Add ? _mm512_add_ps(v, o) : _mm512_mul_ps(v, o);
  }
  return v;
}

struct RowContext {
  const DepthwiseF32Geometry& g;
  const float* x;  // image n
  const float* w;
  const float* bias;
  float* y;         // output row (n, oy)
  int64_t yOffset;  // flat index of the row's first element
  int64_t oy;
};

// B adjacent output pixels starting at ox whose taps are all inside the row (no checks on x). kUnitX (stride
// and dilation 1 along x, K unrolled): pixel i's tap kx reads input pixel i + kx, so a row's B + K - 1 input
// vectors are loaded once and reused by the K taps (the general form loads B * K: the loads, not the FMAs,
// bound the 3x3 layers, as in the int8 kernel). Each accumulator sees the same taps in the same order.
template <int B, int K, bool kFull, int kMode, bool kUnitX = false>
TOSAKIT_AVX512 inline void interiorBlock(const RowContext& r, const Epilogue& e, int64_t ox, int64_t c, __mmask16 m) {
  const DepthwiseF32Geometry& g = r.g;
  const int64_t KH = K ? K : g.KH, KW = K ? K : g.KW, C = g.C;
  __m512 acc[B];
  const __m512 b = load16<kFull>(r.bias + c, m);
  for (int i = 0; i < B; ++i) acc[i] = b;
  const int64_t stepX = g.strideX * C;
  for (int64_t ky = 0; ky < KH; ++ky) {
    const int64_t iy = r.oy * g.strideY - g.padTop + ky * g.dilationY;
    if (iy < 0 || iy >= g.IH) continue;
    const float* xr = r.x + (iy * g.IW + ox * g.strideX - g.padLeft) * C + c;
    const float* wr = r.w + ky * KW * C + c;
    if constexpr (kUnitX && K != 0) {
      __m512 xv[B + K - 1];
      for (int j = 0; j < B + K - 1; ++j) xv[j] = load16<kFull>(xr + j * C, m);
      for (int kx = 0; kx < K; ++kx) {
        const __m512 wv = load16<kFull>(wr + kx * C, m);
        for (int i = 0; i < B; ++i) acc[i] = _mm512_fmadd_ps(xv[i + kx], wv, acc[i]);
      }
      continue;
    }
    for (int64_t kx = 0; kx < KW; ++kx) {
      const __m512 wv = load16<kFull>(wr + kx * C, m);
      const float* p = xr + kx * g.dilationX * C;
      for (int i = 0; i < B; ++i) acc[i] = _mm512_fmadd_ps(load16<kFull>(p + i * stepX, m), wv, acc[i]);
    }
  }
  for (int i = 0; i < B; ++i) {
    const int64_t at = (ox + i) * C + c;
    store16<kFull>(r.y + at, epilogue16<kFull, kMode>(acc[i], e, r.yOffset + at, c, m), m);
  }
}

// One output pixel with every tap checked against the input's bounds.
template <bool kFull, int kMode>
TOSAKIT_AVX512 inline void borderPixel(const RowContext& r, const Epilogue& e, int64_t ox, int64_t c, __mmask16 m) {
  const DepthwiseF32Geometry& g = r.g;
  const int64_t C = g.C;
  __m512 acc = load16<kFull>(r.bias + c, m);
  for (int64_t ky = 0; ky < g.KH; ++ky) {
    const int64_t iy = r.oy * g.strideY - g.padTop + ky * g.dilationY;
    if (iy < 0 || iy >= g.IH) continue;
    for (int64_t kx = 0; kx < g.KW; ++kx) {
      const int64_t ix = ox * g.strideX - g.padLeft + kx * g.dilationX;
      if (ix < 0 || ix >= g.IW) continue;
      acc = _mm512_fmadd_ps(load16<kFull>(r.x + (iy * g.IW + ix) * C + c, m),
                            load16<kFull>(r.w + (ky * g.KW + kx) * C + c, m), acc);
    }
  }
  const int64_t at = ox * C + c;
  store16<kFull>(r.y + at, epilogue16<kFull, kMode>(acc, e, r.yOffset + at, c, m), m);
}

// One output pixel, NV full vectors of channels from c, every tap checked: NV independent accumulators (the
// single-accumulator form waits on each FMA's latency: 9 or 25 in a chain). Same taps in the same order per
// lane as borderPixel, so the same results.
template <int NV, int kMode>
TOSAKIT_AVX512 inline void borderPixelVectors(const RowContext& r, const Epilogue& e, int64_t ox, int64_t c) {
  const DepthwiseF32Geometry& g = r.g;
  const int64_t C = g.C;
  __m512 acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = _mm512_loadu_ps(r.bias + c + 16 * v);
  for (int64_t ky = 0; ky < g.KH; ++ky) {
    const int64_t iy = r.oy * g.strideY - g.padTop + ky * g.dilationY;
    if (iy < 0 || iy >= g.IH) continue;
    for (int64_t kx = 0; kx < g.KW; ++kx) {
      const int64_t ix = ox * g.strideX - g.padLeft + kx * g.dilationX;
      if (ix < 0 || ix >= g.IW) continue;
      const float* px = r.x + (iy * g.IW + ix) * C + c;
      const float* pw = r.w + (ky * g.KW + kx) * C + c;
      for (int v = 0; v < NV; ++v)
        acc[v] = _mm512_fmadd_ps(_mm512_loadu_ps(px + 16 * v), _mm512_loadu_ps(pw + 16 * v), acc[v]);
    }
  }
  const int64_t at = ox * C + c;
  for (int v = 0; v < NV; ++v)
    _mm512_storeu_ps(r.y + at + 16 * v,
                     epilogue16<true, kMode>(acc[v], e, r.yOffset + at + 16 * v, c + 16 * v, 0xffff));
}

// Output pixels [oxA, oxB) have all taps inside the input row.
void interiorRange(const DepthwiseF32Geometry& g, int64_t& oxA, int64_t& oxB) {
  const int64_t span = (g.KW - 1) * g.dilationX;
  oxA = std::min(g.OW, (g.padLeft + g.strideX - 1) / g.strideX);
  const int64_t last = g.IW - 1 - span + g.padLeft;  // ox * strideX <= last
  oxB = last < 0 ? oxA : std::clamp(last / g.strideX + 1, oxA, g.OW);
}

// The row in blocks of output pixels; within a block, every 16-channel vector of the chunk (the block's input
// pixels stay in L1 while their channels are swept; the tail vector masked).
template <int K, int kMode, bool kUnitX = false>
TOSAKIT_AVX512 void rowAvx512(const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
  int64_t oxA, oxB;
  interiorRange(r.g, oxA, oxB);
  const int64_t cFull = c0 + (c1 - c0) / 16 * 16;
  const __mmask16 tail = __mmask16((1u << ((c1 - c0) % 16)) - 1);
  auto border = [&](int64_t ox) {
    int64_t c = c0;
    for (; c + 64 <= cFull; c += 64) borderPixelVectors<4, kMode>(r, e, ox, c);
    for (; c + 32 <= cFull; c += 32) borderPixelVectors<2, kMode>(r, e, ox, c);
    for (; c < cFull; c += 16) borderPixel<true, kMode>(r, e, ox, c, 0xffff);
    if (cFull < c1) borderPixel<false, kMode>(r, e, ox, cFull, tail);
  };
  int64_t ox = 0;
  for (; ox < oxA; ++ox) border(ox);
  for (; ox + 8 <= oxB; ox += 8) {
    for (int64_t c = c0; c < cFull; c += 16) interiorBlock<8, K, true, kMode, kUnitX>(r, e, ox, c, 0xffff);
    if (cFull < c1) interiorBlock<8, K, false, kMode, kUnitX>(r, e, ox, cFull, tail);
  }
  for (; ox + 4 <= oxB; ox += 4) {
    for (int64_t c = c0; c < cFull; c += 16) interiorBlock<4, K, true, kMode, kUnitX>(r, e, ox, c, 0xffff);
    if (cFull < c1) interiorBlock<4, K, false, kMode, kUnitX>(r, e, ox, cFull, tail);
  }
  for (; ox < oxB; ++ox) border(ox);  // the last 1-3 interior pixels: the channel vectors side by side
  for (; ox < r.g.OW; ++ox) border(ox);
}

template <int kMode>
void rowAvx512(const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
  const bool unitX = r.g.strideX == 1 && r.g.dilationX == 1;
  if (unitX && r.g.KH == 3 && r.g.KW == 3)
    rowAvx512<3, kMode, true>(r, e, c0, c1);
  else if (unitX && r.g.KH == 5 && r.g.KW == 5)
    rowAvx512<5, kMode, true>(r, e, c0, c1);
  else if (r.g.KH == 3 && r.g.KW == 3)
    rowAvx512<3, kMode>(r, e, c0, c1);
  else if (r.g.KH == 5 && r.g.KW == 5)
    rowAvx512<5, kMode>(r, e, c0, c1);
  else
    rowAvx512<0, kMode>(r, e, c0, c1);
}

// The mode of an epilogue (see Mode), filling e's clamp bounds and affine operands.
Mode chooseMode(const std::vector<FloatEpilogueOp>& ops, const std::vector<const float*>& operands, Epilogue& e) {
  static const float kOne = 1.0f, kMinusZero = -0.0f;
  size_t i = 0;
  bool affine = false;
  e.mul = &kOne, e.add = &kMinusZero;
  auto perChannelOrScalar = [&](size_t k) {
    return ops[k].operand == FloatEpilogueOp::Operand::PerChannel || ops[k].operand == FloatEpilogueOp::Operand::Scalar;
  };
  if (i < ops.size() && ops[i].kind == Kind::Mul && perChannelOrScalar(i)) {
    e.mul = operands[i], e.mulPerChannel = ops[i].operand == FloatEpilogueOp::Operand::PerChannel, affine = true, ++i;
  }
  if (i < ops.size() && ops[i].kind == Kind::Add && perChannelOrScalar(i)) {
    e.add = operands[i], e.addPerChannel = ops[i].operand == FloatEpilogueOp::Operand::PerChannel, affine = true, ++i;
  }
  if (i < ops.size() && ops[i].kind == Kind::Clamp && !ops[i].ignoreNan) e.lo = ops[i].lo, e.hi = ops[i].hi, ++i;
  if (i != ops.size()) return kGeneral;
  return affine ? kAffine : kClamp;
}

// ---- portable (AVX2 / baseline): plain loops over a chunk of channels, vectorized by the compiler ----

TK_VECTOR_BODY void rowPortableBody(const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
  const DepthwiseF32Geometry& g = r.g;
  const int64_t C = g.C, n = c1 - c0;
  float acc[kChunk];
  for (int64_t ox = 0; ox < g.OW; ++ox) {
    for (int64_t i = 0; i < n; ++i) acc[i] = r.bias[c0 + i];
    for (int64_t ky = 0; ky < g.KH; ++ky) {
      const int64_t iy = r.oy * g.strideY - g.padTop + ky * g.dilationY;
      if (iy < 0 || iy >= g.IH) continue;
      for (int64_t kx = 0; kx < g.KW; ++kx) {
        const int64_t ix = ox * g.strideX - g.padLeft + kx * g.dilationX;
        if (ix < 0 || ix >= g.IW) continue;
        const float* px = r.x + (iy * g.IW + ix) * C + c0;
        const float* pw = r.w + (ky * g.KW + kx) * C + c0;
        for (int64_t i = 0; i < n; ++i) acc[i] += px[i] * pw[i];
      }
    }
    const int64_t at = ox * C + c0;
    for (size_t o = 0; o < e.ops.size(); ++o) {
      const FloatEpilogueOp& op = e.ops[o];
      const float* q = e.operands[o];
      if (op.kind == Kind::Clamp) {
        for (int64_t i = 0; i < n; ++i) {
          const float v = acc[i], t = std::min(std::max(v, op.lo), op.hi);  // NaN stays NaN
          acc[i] = op.ignoreNan && v != v ? op.lo : t;
        }
        continue;
      }
      const float* src = op.operand == Operand::Full ? q + r.yOffset + at
          : op.operand == Operand::PerChannel        ? q + c0
                                                     : q;
      const int64_t step = op.operand == Operand::Scalar ? 0 : 1;
      if (op.kind == Kind::Add)
        for (int64_t i = 0; i < n; ++i) acc[i] += src[i * step];
      else
        for (int64_t i = 0; i < n; ++i) acc[i] *= src[i * step];
    }
    for (int64_t i = 0; i < n; ++i) r.y[at + i] = acc[i];
  }
}
void rowPortable(const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
  TK_ISA_DISPATCH(rowPortableBody(r, e, c0, c1));
}

}  // namespace

void depthwiseF32(const DepthwiseF32Geometry& g, const float* x, const float* w, const float* bias, float* y,
                  const std::vector<FloatEpilogueOp>& epilogue, const std::vector<const float*>& operands) {
  const bool avx512 = cpu::has(cpu::Isa::Avx512);
  Epilogue e{epilogue, operands};
  // The common forms (nothing, relu6-style clamp with NaN propagation, BatchNorm's mul/add) run without the
  // general loop.
  const Mode mode = chooseMode(epilogue, operands, e);
  const int64_t rows = g.N * g.OH, chunks = (g.C + kChunk - 1) / kChunk;
  const double work = double(rows) * double(g.OW) * double(g.C) * double(g.KH * g.KW);
  parallelItems(rows * chunks, work > 100000, [&](int64_t item) {
    const int64_t row = item / chunks, chunk = item % chunks;
    const int64_t n = row / g.OH, oy = row % g.OH;
    const RowContext r{g, x + n * g.IH * g.IW * g.C, w, bias, y + row * g.OW * g.C, row * g.OW * g.C, oy};
    const int64_t c0 = chunk * kChunk, c1 = std::min(g.C, c0 + kChunk);
    if (!avx512)
      rowPortable(r, e, c0, c1);
    else if (mode == kGeneral)
      rowAvx512<kGeneral>(r, e, c0, c1);
    else if (mode == kAffine)
      rowAvx512<kAffine>(r, e, c0, c1);
    else
      rowAvx512<kClamp>(r, e, c0, c1);
  });
}

double epilogueAbsBound(const std::vector<FloatEpilogueOp>& epilogue, const std::vector<double>& operandMaxAbs,
                        double accBound) {
  // Below half of FLT_MAX no value or rounding reaches an infinity, so no NaN can arise (inf - inf, inf * 0);
  // each fp32 rounding grows a magnitude by at most a factor 1 + 2^-24, covered by the slack.
  constexpr double kLimit = 3.4e38 / 2, kSlack = 1 + 1e-5;
  double b = accBound < kLimit ? accBound * kSlack : INFINITY;
  for (size_t i = 0; i < epilogue.size(); ++i) {
    const FloatEpilogueOp& op = epilogue[i];
    if (op.kind == Kind::Clamp) {
      // IGNORE maps NaN to min_val: always within the bounds; PROPAGATE only while no NaN can reach it.
      if (b < INFINITY || op.ignoreNan) b = std::min(b, std::max(std::fabs(double(op.lo)), std::fabs(double(op.hi))));
      continue;
    }
    const double m = i < operandMaxAbs.size() ? operandMaxAbs[i] : INFINITY;
    b = op.kind == Kind::Add ? (b + m) * kSlack : b * m * kSlack;
    if (!(b < kLimit)) b = INFINITY;
  }
  return b < kLimit ? b : INFINITY;
}

}  // namespace tosakit::fast
