// fp32 DEPTHWISE_CONV2D with a fused epilogue (kernels/f32/depthwise.h). NHWC keeps channels contiguous, so 16
// channels of one output pixel are one AVX-512 vector: a block of up to 8 output pixels of one row is
// accumulated in registers over the kernel taps (one weight vector per tap, reused by the block), the epilogue
// runs on the registers and the result is stored once. Pixels whose taps leave the input (the borders) take a
// checked path. Work is split over (output row, 64-channel chunk) across the OpenMP threads. The rows are
// written once (depthwise_rows.inc) for a vector of channels and compiled for AVX-512 (16 channels, blocks of
// 8 pixels) and AVX2 (8 channels, blocks of 6: 16 registers); the baseline runs a plain loop version.
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

struct RowContext {
  const DepthwiseF32Geometry& g;
  const float* x;  // image n
  const float* w;
  const float* bias;
  float* y;         // output row (n, oy)
  int64_t yOffset;  // flat index of the row's first element
  int64_t oy;
};

// Output pixels [oxA, oxB) have all taps inside the input row.
void interiorRange(const DepthwiseF32Geometry& g, int64_t& oxA, int64_t& oxB) {
  const int64_t span = (g.KW - 1) * g.dilationX;
  oxA = std::min(g.OW, (g.padLeft + g.strideX - 1) / g.strideX);
  const int64_t last = g.IW - 1 - span + g.padLeft;  // ox * strideX <= last
  oxB = last < 0 ? oxA : std::clamp(last / g.strideX + 1, oxA, g.OW);
}

// ---- the vector ISAs: depthwise_rows.inc once per width ----
// vmaxps/vminps return their second source when either is NaN: (lo, v) and (hi, t) propagate NaN, and on
// equal values (-0, +0) return v, as apply_clip_f's min(max(v, lo), hi). Loads/stores: plain when the vector
// is full (masked stores are slow on some CPUs), masked for the channel tail.
#define TOSAKIT_AVX512 __attribute__((target("avx512f,avx512dq,avx512vl,avx512bw,avx2,fma")))

struct Avx512Vec {
  using V = __m512;
  using M = __mmask16;
  static constexpr int kLanes = 16, kBlock = 8;  // 8 accumulators + up to 12 inputs of 32 registers
  static TOSAKIT_AVX512 inline M all() { return 0xFFFF; }
  static TOSAKIT_AVX512 inline M tailMask(int64_t n) { return M((1u << n) - 1); }
  template <bool kFull>
  static TOSAKIT_AVX512 inline V load(const float* p, M m) {
    if constexpr (kFull) return _mm512_loadu_ps(p);
    return _mm512_maskz_loadu_ps(m, p);
  }
  template <bool kFull>
  static TOSAKIT_AVX512 inline void store(float* p, V v, M m) {
    if constexpr (kFull)
      _mm512_storeu_ps(p, v);
    else
      _mm512_mask_storeu_ps(p, m, v);
  }
  static TOSAKIT_AVX512 inline V loadu(const float* p) { return _mm512_loadu_ps(p); }
  static TOSAKIT_AVX512 inline void storeu(float* p, V v) { _mm512_storeu_ps(p, v); }
  static TOSAKIT_AVX512 inline V set1(float v) { return _mm512_set1_ps(v); }
  static TOSAKIT_AVX512 inline V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static TOSAKIT_AVX512 inline V add(V a, V b) { return _mm512_add_ps(a, b); }
  static TOSAKIT_AVX512 inline V mul(V a, V b) { return _mm512_mul_ps(a, b); }
  // The all-lanes zero-masking forms are the same instructions; GCC 12's unmasked intrinsics pass an
  // "undefined" vector that -Wuninitialized reports.
  static TOSAKIT_AVX512 inline V clampPropagate(V v, V lo, V hi) {
    return _mm512_maskz_min_ps(all(), hi, _mm512_maskz_max_ps(all(), lo, v));
  }
  // t, or lo where v is NaN (a clamp with nan_mode IGNORE).
  static TOSAKIT_AVX512 inline V nanTo(V v, V t, V lo) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), t, lo);
  }
};

struct Avx2Vec {
  using V = __m256;
  using M = __m256i;  // lanes -1 (load/store) or 0
  // 6 accumulators + 8 inputs + 1 weight (3x3) of 16 registers: 1.12-1.16x over blocks of 4 on the 3x3 stride-1
  // and 5x5 28x28 layers (5x5 spills one input; still faster), the same elsewhere.
  static constexpr int kLanes = 8, kBlock = 6;
  static TK_TARGET_AVX2 inline M all() { return _mm256_set1_epi32(-1); }
  static TK_TARGET_AVX2 inline M tailMask(int64_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  template <bool kFull>
  static TK_TARGET_AVX2 inline V load(const float* p, M m) {
    if constexpr (kFull) return _mm256_loadu_ps(p);
    return _mm256_maskload_ps(p, m);
  }
  template <bool kFull>
  static TK_TARGET_AVX2 inline void store(float* p, V v, M m) {
    if constexpr (kFull)
      _mm256_storeu_ps(p, v);
    else
      _mm256_maskstore_ps(p, m, v);
  }
  static TK_TARGET_AVX2 inline V loadu(const float* p) { return _mm256_loadu_ps(p); }
  static TK_TARGET_AVX2 inline void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
  static TK_TARGET_AVX2 inline V set1(float v) { return _mm256_set1_ps(v); }
  static TK_TARGET_AVX2 inline V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static TK_TARGET_AVX2 inline V add(V a, V b) { return _mm256_add_ps(a, b); }
  static TK_TARGET_AVX2 inline V mul(V a, V b) { return _mm256_mul_ps(a, b); }
  static TK_TARGET_AVX2 inline V clampPropagate(V v, V lo, V hi) { return _mm256_min_ps(hi, _mm256_max_ps(lo, v)); }
  static TK_TARGET_AVX2 inline V nanTo(V v, V t, V lo) {
    return _mm256_blendv_ps(t, lo, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
  }
};

namespace avx512 {
using Vec = Avx512Vec;
#define TK_DW_TARGET TOSAKIT_AVX512
#include "fast/kernels/f32/depthwise_rows.inc"
#undef TK_DW_TARGET
}  // namespace avx512

namespace avx2 {
using Vec = Avx2Vec;
#define TK_DW_TARGET TK_TARGET_AVX2
#include "fast/kernels/f32/depthwise_rows.inc"
#undef TK_DW_TARGET
}  // namespace avx2

// The row of a vector ISA in the epilogue's mode.
template <typename Rows>
void rowVecInMode(Mode mode, const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
  if (mode == kGeneral)
    Rows::template row<kGeneral>(r, e, c0, c1);
  else if (mode == kAffine)
    Rows::template row<kAffine>(r, e, c0, c1);
  else
    Rows::template row<kClamp>(r, e, c0, c1);
}
struct Avx512Rows {
  template <int kMode>
  static void row(const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
    avx512::rowVec<kMode>(r, e, c0, c1);
  }
};
struct Avx2Rows {
  template <int kMode>
  static void row(const RowContext& r, const Epilogue& e, int64_t c0, int64_t c1) {
    avx2::rowVec<kMode>(r, e, c0, c1);
  }
};

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

// ---- baseline: plain loops over a chunk of channels, vectorized by the compiler ----

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
  const bool avx512 = cpu::has(cpu::Isa::Avx512), avx2 = cpu::has(cpu::Isa::Avx2);
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
    if (avx512)
      rowVecInMode<Avx512Rows>(mode, r, e, c0, c1);
    else if (avx2)
      rowVecInMode<Avx2Rows>(mode, r, e, c0, c1);
    else
      rowPortable(r, e, c0, c1);
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
