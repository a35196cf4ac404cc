// tosa.avg_pool2d and tosa.max_pool2d in NHWC.
//  - fp32 AVG_POOL2D: our own loop in the reference's order (bit-identical); bf16/fp16 (acc fp32): oneDNN
//    pooling_avg_exclude_padding (padding does not count, as TOSA defines).
//  - int8/int16 AVG_POOL2D: our own loop, bit-exact with the spec (sum of (x - input_zp) in i32, then
//    reciprocal_scale(count) and apply_scale_32, + output_zp, clip).
//  - MAX_POOL2D (fp32, bf16, i8, i16): our own loop, because TOSA's nan_mode (PROPAGATE: any NaN in the window
//    gives NaN; IGNORE: NaN only when the whole window is NaN) differs from oneDNN's max, which drops NaNs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "fast/isa_dispatch.h"
#include "fast/kernel_factories.h"
#include "fast/kernels/int8/simd.h"
#include "fast/onednn/common.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

struct PoolGeom {
  DType t = DType::FP32;
  int64_t N = 0, IH = 0, IW = 0, C = 0, OH = 0, OW = 0;
  int64_t KY = 0, KX = 0, SY = 0, SX = 0, PT = 0, PB = 0, PL = 0, PR = 0;
  // Over the threads (one item per output row) from 64K window taps on: an SE block's global pool (one row)
  // or a small pool is not worth waking them.
  bool parallel() const { return N * OH * OW * C * KY * KX > (int64_t(1) << 16); }
};

// Shapes and attributes with the spec's ERROR_IF conditions; nullopt leaves the op to the reference kernel.
std::optional<PoolGeom> parsePool(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.empty() || op.results.size() != 1) return std::nullopt;
  const ir::ValueType &in = operandType(c, 0, 0), &out = resultType(c, 0);
  if (!isStatic(in) || !isStatic(out) || in.rank() != 4 || out.rank() != 4 || in.dtype != out.dtype)
    return std::nullopt;
  const std::vector<int64_t> k = op.intArrayAttr("kernel"), s = op.intArrayAttr("stride"), p = op.intArrayAttr("pad");
  if (k.size() != 2 || s.size() != 2 || p.size() != 4) return std::nullopt;
  PoolGeom g{in.dtype, in.dims[0], in.dims[1], in.dims[2], in.dims[3], out.dims[1], out.dims[2], k[0],
             k[1],     s[0],       s[1],       p[0],       p[1],       p[2],        p[3]};
  if (out.dims[0] != g.N || out.dims[3] != g.C) return std::nullopt;
  if (g.KY < 1 || g.KX < 1 || g.SY < 1 || g.SX < 1) return std::nullopt;
  if (g.PT < 0 || g.PB < 0 || g.PL < 0 || g.PR < 0 || g.PT >= g.KY || g.PB >= g.KY || g.PL >= g.KX || g.PR >= g.KX)
    return std::nullopt;
  const int64_t nh = g.IH + g.PT + g.PB - g.KY, nw = g.IW + g.PL + g.PR - g.KX;
  if (nh < 0 || nw < 0 || nh % g.SY || nw % g.SX || g.OH != nh / g.SY + 1 || g.OW != nw / g.SX + 1) return std::nullopt;
  return g;
}

// ---- float AVG_POOL2D on oneDNN ----

class DnnlAvgPool : public OpKernel {
 public:
  std::string implName() const override { return impl_; }
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    src_.set_data_handle(in[0][0].data);
    dst_.set_data_handle(out[0].data);
    try {
      prim_.execute(stream(), {{DNNL_ARG_SRC, src_}, {DNNL_ARG_DST, dst_}});
      stream().wait();
    } catch (const dnnl::error& e) { return Status::internal(impl_ + ": " + e.what()); }
    return Status::ok();
  }
  bool build(const PoolGeom& g) {
    const dt t = *toDnnl(g.t);
    const dnnl::memory::desc srcMd({g.N, g.C, g.IH, g.IW}, t, tag::nhwc), dstMd({g.N, g.C, g.OH, g.OW}, t, tag::nhwc);
    try {
      dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_avg_exclude_padding,
                                    srcMd, dstMd, {g.SY, g.SX}, {g.KY, g.KX}, {g.PT, g.PL}, {g.PB, g.PR});
      dnnl::pooling_forward::primitive_desc pd(d, engine());
      if (isReference(pd)) return false;
      impl_ = dnn::implName(pd);
      prim_ = dnnl::pooling_forward(pd);
      src_ = dnnl::memory(srcMd, engine(), nullptr);
      dst_ = dnnl::memory(dstMd, engine(), nullptr);
    } catch (const dnnl::error&) { return false; }
    return true;
  }

 private:
  dnnl::primitive prim_;
  dnnl::memory src_, dst_;
  std::string impl_;
};

// ---- integer AVG_POOL2D ----

template <typename T>
TK_VECTOR_BODY void accumulateRowBody(int32_t* acc, const T* row, int32_t zp, int64_t C) {
  for (int64_t ch = 0; ch < C; ++ch) acc[ch] += int32_t(row[ch]) - zp;
}
template <typename T>
void accumulateRow(int32_t* acc, const T* row, int32_t zp, int64_t C) {
  TK_ISA_DISPATCH(accumulateRowBody<T>(acc, row, zp, C));
}

// apply_scale_32(acc, multiplier, shift, false) + output_zp, clipped to T.
template <typename T>
TK_VECTOR_BODY void scaleRowBody(const int32_t* acc, T* out, int64_t multiplier, int64_t shift, int64_t outZp,
                                 int64_t C) {
  const int64_t round = int64_t(1) << (shift - 1);
  const int64_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  for (int64_t ch = 0; ch < C; ++ch) {
    int64_t v = int64_t(int32_t((int64_t(acc[ch]) * multiplier + round) >> shift)) + outZp;
    out[ch] = T(std::min(std::max(v, lo), hi));
  }
}
template <typename T>
void scaleRow(const int32_t* acc, T* out, int64_t multiplier, int64_t shift, int64_t outZp, int64_t C) {
  TK_ISA_DISPATCH(scaleRowBody<T>(acc, out, multiplier, shift, outZp, C));
}

struct Reciprocal {
  int64_t multiplier, shift;
};
// The spec's reciprocal_scale(count).
Reciprocal reciprocalScale(uint32_t value) {
  const int32_t k = 32 - (value - 1 == 0 ? 32 : __builtin_clz(value - 1));
  const int64_t numerator = ((int64_t(1) << 30) + 1) << k;
  return {numerator / value, 30 + k};
}

// The window sums of accumulateRow for int8 on AVX-512, 64 channels of i32 sums in registers over the whole
// window: the compiled loop kept them in memory and was called once per pixel (PP-OCR cls's squeeze-and-excite
// global pools over 192 pixels x 200 channels). sum(x - zp) is computed as sum(x) - count * zp, the same
// integer (|sum| <= 255 * count, far inside i32).
TK_AVX512 void windowSumsI8Avx512(const int8_t* x, int64_t rowStride, int64_t y0, int64_t y1, int64_t x0, int64_t x1,
                                  int64_t C, int32_t zp, int32_t* acc) {
  const __m512i zpTimesCount = _mm512_set1_epi32(zp * int32_t((y1 - y0) * (x1 - x0)));
  for (int64_t c0 = 0; c0 < C; c0 += 64) {
    const __mmask64 m = C - c0 >= 64 ? ~__mmask64(0) : (__mmask64(1) << (C - c0)) - 1;
    __m512i sum[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (int64_t yy = y0; yy < y1; ++yy)
      for (int64_t xx = x0; xx < x1; ++xx) {
        const __m512i v = _mm512_maskz_loadu_epi8(m, x + yy * rowStride + xx * C + c0);
#pragma GCC unroll 4
        for (int q = 0; q < 4; ++q)
          // All-lanes masked forms: GCC 12's unmasked intrinsics trip -Wmaybe-uninitialized (bug 105593).
          sum[q] =
              _mm512_add_epi32(sum[q], _mm512_maskz_cvtepi8_epi32(0xffff, _mm512_maskz_extracti32x4_epi32(0xf, v, q)));
      }
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q)
      if (c0 + 16 * q < C)
        _mm512_mask_storeu_epi32(acc + c0 + 16 * q, laneMask(C, c0 + 16 * q), _mm512_sub_epi32(sum[q], zpTimesCount));
  }
}

template <typename T>
class IntAvgPool : public OpKernel {
 public:
  IntAvgPool(PoolGeom g, int64_t inZp, int64_t outZp) : g_(g), inZp_(inZp), outZp_(outZp) {}
  std::string implName() const override {
    return std::is_same_v<T, int8_t> && useAvx512_ ? "fast:avg_pool2d_int8_avx512" : "fast:avg_pool2d_int";
  }
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const T* x = in[0][0].as<T>();
    T* y = out[0].as<T>();
    const PoolGeom& g = g_;
    parallelItems(g.N * g.OH, g.parallel(), [&](int64_t item) {
      const int64_t n = item / g.OH, oy = item % g.OH;
      std::vector<int32_t> acc(size_t(g.C));
      for (int64_t ox = 0; ox < g.OW; ++ox) {
        const int64_t y0 = std::max<int64_t>(oy * g.SY - g.PT, 0), y1 = std::min(oy * g.SY - g.PT + g.KY, g.IH);
        const int64_t x0 = std::max<int64_t>(ox * g.SX - g.PL, 0), x1 = std::min(ox * g.SX - g.PL + g.KX, g.IW);
        if constexpr (std::is_same_v<T, int8_t>) {
          if (useAvx512_) {
            windowSumsI8Avx512(x + n * g.IH * g.IW * g.C, g.IW * g.C, y0, y1, x0, x1, g.C, int32_t(inZp_), acc.data());
            const Reciprocal r = reciprocalScale(uint32_t((y1 - y0) * (x1 - x0)));
            scaleRow(acc.data(), y + ((n * g.OH + oy) * g.OW + ox) * g.C, r.multiplier, r.shift, outZp_, g.C);
            continue;
          }
        }
        std::fill(acc.begin(), acc.end(), 0);
        for (int64_t yy = y0; yy < y1; ++yy)
          for (int64_t xx = x0; xx < x1; ++xx) {
            accumulateRow(acc.data(), x + ((n * g.IH + yy) * g.IW + xx) * g.C, int32_t(inZp_), g.C);
          }
        const Reciprocal r = reciprocalScale(uint32_t((y1 - y0) * (x1 - x0)));
        scaleRow(acc.data(), y + ((n * g.OH + oy) * g.OW + ox) * g.C, r.multiplier, r.shift, outZp_, g.C);
      }
    });
    return Status::ok();
  }

 private:
  PoolGeom g_;
  int64_t inZp_, outZp_;
  const bool useAvx512_ = hasAvx512Epilogue();
};

// fp32 AVG_POOL2D as the reference computes it: per channel, the window's inputs summed in fp32 in row-major
// window order starting from +0, then divided by the count in fp32; channels vectorized, so the results are
// bit-identical to the reference at every ISA level (oneDNN sums in its own order: within the bound, not
// identical; and its AVX2 global pool was slow: efficientnet_b0's squeeze-and-excite pools took ~3 ms of its
// ~80 at avx2, 0.4 at avx512).
TK_VECTOR_BODY void windowAverageF32Body(const float* __restrict x, int64_t rowStride, int64_t y0, int64_t y1,
                                         int64_t x0, int64_t x1, int64_t C, float* __restrict acc,
                                         float* __restrict y) {
  for (int64_t c = 0; c < C; ++c) acc[c] = 0.0f;
  for (int64_t yy = y0; yy < y1; ++yy)
    for (int64_t xx = x0; xx < x1; ++xx) {
      const float* p = x + yy * rowStride + xx * C;
      for (int64_t c = 0; c < C; ++c) acc[c] += p[c];
    }
  const float count = float((y1 - y0) * (x1 - x0));
  for (int64_t c = 0; c < C; ++c) y[c] = acc[c] / count;
}
void windowAverageF32(const float* x, int64_t rowStride, int64_t y0, int64_t y1, int64_t x0, int64_t x1, int64_t C,
                      float* acc, float* y) {
  TK_ISA_DISPATCH(windowAverageF32Body(x, rowStride, y0, y1, x0, x1, C, acc, y));
}

class FloatAvgPool : public OpKernel {
 public:
  explicit FloatAvgPool(PoolGeom g) : g_(g) {}
  std::string implName() const override { return withVectorIsa("fast:avg_pool2d_f32"); }
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const float* x = in[0][0].as<float>();
    float* y = out[0].as<float>();
    const PoolGeom& g = g_;
    parallelItems(g.N * g.OH, g.parallel(), [&](int64_t item) {
      const int64_t n = item / g.OH, oy = item % g.OH;
      std::vector<float> acc(size_t(g.C));
      const int64_t y0 = std::max<int64_t>(oy * g.SY - g.PT, 0), y1 = std::min(oy * g.SY - g.PT + g.KY, g.IH);
      for (int64_t ox = 0; ox < g.OW; ++ox) {
        const int64_t x0 = std::max<int64_t>(ox * g.SX - g.PL, 0), x1 = std::min(ox * g.SX - g.PL + g.KX, g.IW);
        windowAverageF32(x + n * g.IH * g.IW * g.C, g.IW * g.C, y0, y1, x0, x1, g.C, acc.data(),
                         y + ((n * g.OH + oy) * g.OW + ox) * g.C);
      }
    });
    return Status::ok();
  }

 private:
  PoolGeom g_;
};

}  // namespace

Result<CompiledKernel> compileAvgPool(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  auto g = parsePool(c);
  if (!g || op.operands.size() != 3) return CompiledKernel{};
  auto acc = accType(op);
  auto inZp = zeroPoint(c, 0, 1), outZp = zeroPoint(c, 0, 2);
  if (!acc || !inZp || !outZp) return CompiledKernel{};
  CompiledKernel ck;
  if ((g->t == DType::I8 || g->t == DType::I16) && *acc == DType::I32) {
    if (g->t != DType::I8 && (*inZp != 0 || *outZp != 0)) return CompiledKernel{};  // an ERROR_IF
    if (g->t == DType::I8)
      ck.kernel = std::make_unique<IntAvgPool<int8_t>>(*g, *inZp, *outZp);
    else
      ck.kernel = std::make_unique<IntAvgPool<int16_t>>(*g, *inZp, *outZp);
    return ck;
  }
  const bool floatRow = (g->t == DType::FP32 || g->t == DType::BF16 || g->t == DType::FP16) && *acc == DType::FP32;
  if (!floatRow || *inZp != 0 || *outZp != 0) return CompiledKernel{};
  if (g->t == DType::FP32) {
    ck.kernel = std::make_unique<FloatAvgPool>(*g);
    return ck;
  }
  auto k = std::make_unique<DnnlAvgPool>();
  if (!k->build(*g)) return CompiledKernel{};
  ck.kernel = std::move(k);
  return ck;
}

namespace {

// ---- MAX_POOL2D ----

// Element access as float for bf16 (bit pattern in a uint16).
inline float bf16ToFloat(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint16_t floatToBf16Exact(float f) {  // f came from a bf16 value: the low half is zero
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return uint16_t(u >> 16);
}

// acc = max(acc, row) per channel: apply_max_s, or apply_max_f with the op's nan_mode. A NaN under PROPAGATE
// becomes the reference's canonical quiet NaN (0x7fc00000), whatever the input's sign and payload, on every ISA.
template <typename T>
TK_VECTOR_BODY void maxRowIntBody(T* acc, const T* row, int64_t C) {
  for (int64_t ch = 0; ch < C; ++ch) acc[ch] = std::max(acc[ch], row[ch]);
}
template <typename T>
void maxRowInt(T* acc, const T* row, int64_t C) {
  TK_ISA_DISPATCH(maxRowIntBody<T>(acc, row, C));
}
TK_VECTOR_BODY void maxRowPropagateBody(float* acc, const float* row, int64_t C) {
  for (int64_t ch = 0; ch < C; ++ch) {
    const float m = acc[ch], v = row[ch];
    acc[ch] = (m != m || v != v) ? std::numeric_limits<float>::quiet_NaN() : std::max(m, v);
  }
}
void maxRowPropagate(float* acc, const float* row, int64_t C) { TK_ISA_DISPATCH(maxRowPropagateBody(acc, row, C)); }
TK_VECTOR_BODY void maxRowIgnoreBody(float* acc, const float* row, int64_t C) {
  for (int64_t ch = 0; ch < C; ++ch) {
    const float m = acc[ch], v = row[ch];
    acc[ch] = m != m ? v : (v != v ? m : std::max(m, v));
  }
}
void maxRowIgnore(float* acc, const float* row, int64_t C) { TK_ISA_DISPATCH(maxRowIgnoreBody(acc, row, C)); }
TK_VECTOR_BODY void bf16RowToFloatBody(const uint16_t* in, float* out, int64_t C) {
  for (int64_t ch = 0; ch < C; ++ch) out[ch] = bf16ToFloat(in[ch]);
}
void bf16RowToFloat(const uint16_t* in, float* out, int64_t C) { TK_ISA_DISPATCH(bf16RowToFloatBody(in, out, C)); }

// One output row of an fp32 max pool, every pixel and tap in one call: a call per tap and pixel (9 per pixel
// of resnet18's 3x3 pool over 64 channels) cost more than the comparisons (0.375 ms of a 16 ms run).
template <bool kIgnoreNan>
inline void maxPoolRowF32(const PoolGeom& g, const float* x, float* y, int64_t n, int64_t oy, float* acc) {
  const int64_t C = g.C;
  const int64_t y0 = std::max<int64_t>(oy * g.SY - g.PT, 0), y1 = std::min(oy * g.SY - g.PT + g.KY, g.IH);
  for (int64_t ox = 0; ox < g.OW; ++ox) {
    const int64_t x0 = std::max<int64_t>(ox * g.SX - g.PL, 0), x1 = std::min(ox * g.SX - g.PL + g.KX, g.IW);
    const float init = kIgnoreNan ? std::numeric_limits<float>::quiet_NaN() : -INFINITY;
    for (int64_t ch = 0; ch < C; ++ch) acc[ch] = init;
    for (int64_t yy = y0; yy < y1; ++yy)
      for (int64_t xx = x0; xx < x1; ++xx) {
        const float* row = x + ((n * g.IH + yy) * g.IW + xx) * C;
        for (int64_t ch = 0; ch < C; ++ch) {
          const float m = acc[ch], v = row[ch];
          if (kIgnoreNan)
            acc[ch] = m != m ? v : (v != v ? m : std::max(m, v));
          else
            acc[ch] = (m != m || v != v) ? std::numeric_limits<float>::quiet_NaN() : std::max(m, v);
        }
      }
    float* o = y + ((n * g.OH + oy) * g.OW + ox) * C;
    for (int64_t ch = 0; ch < C; ++ch) o[ch] = acc[ch];
  }
}
TK_VECTOR_BODY void maxPoolRowF32PropagateBody(const PoolGeom& g, const float* x, float* y, int64_t n, int64_t oy,
                                               float* acc) {
  maxPoolRowF32<false>(g, x, y, n, oy, acc);
}
void maxPoolRowF32Propagate(const PoolGeom& g, const float* x, float* y, int64_t n, int64_t oy, float* acc) {
  TK_ISA_DISPATCH(maxPoolRowF32PropagateBody(g, x, y, n, oy, acc));
}
TK_VECTOR_BODY void maxPoolRowF32IgnoreBody(const PoolGeom& g, const float* x, float* y, int64_t n, int64_t oy,
                                            float* acc) {
  maxPoolRowF32<true>(g, x, y, n, oy, acc);
}
void maxPoolRowF32Ignore(const PoolGeom& g, const float* x, float* y, int64_t n, int64_t oy, float* acc) {
  TK_ISA_DISPATCH(maxPoolRowF32IgnoreBody(g, x, y, n, oy, acc));
}

// maxPoolRowF32<false> (nan_mode PROPAGATE) on AVX-512, up to 4 vectors of 16 channels per pass over a window:
// the compiled loop above kept the running maximum in memory and blended NaN cases on every tap (resnet18's
// 112x112x64 pool took 0.29 ms at one thread, ONNX Runtime's 0.07 at two). The same function of the same
// values per tap: max_ps(v, acc) is v if v > acc, else acc — std::max(acc, v), ties (+0/-0) included — and
// keeps a NaN acc; a NaN v (rare: one mask test per tap) makes the lane the reference's canonical quiet NaN
// (0x7fc00000, whatever the input's sign and payload), which max_ps then keeps.
TK_AVX512 void maxPoolRowF32PropagateAvx512(const PoolGeom& g, const float* x, float* y, int64_t n, int64_t oy) {
  const int64_t C = g.C;
  const int64_t y0 = std::max<int64_t>(oy * g.SY - g.PT, 0), y1 = std::min(oy * g.SY - g.PT + g.KY, g.IH);
  for (int64_t ox = 0; ox < g.OW; ++ox) {
    const int64_t x0 = std::max<int64_t>(ox * g.SX - g.PL, 0), x1 = std::min(ox * g.SX - g.PL + g.KX, g.IW);
    float* o = y + ((n * g.OH + oy) * g.OW + ox) * C;
    const __m512 canonicalNan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fc00000));
    for (int64_t c0 = 0; c0 < C; c0 += 64) {
      __mmask16 m[4];
      __m512 acc[4];
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        m[v] = c0 + 16 * v < C ? laneMask(C, c0 + 16 * v) : __mmask16(0);
        acc[v] = _mm512_set1_ps(-INFINITY);
      }
      for (int64_t yy = y0; yy < y1; ++yy)
        for (int64_t xx = x0; xx < x1; ++xx) {
          const float* row = x + ((n * g.IH + yy) * g.IW + xx) * C + c0;
          __m512 val[4];
          __mmask16 nan = 0;
#pragma GCC unroll 4
          for (int v = 0; v < 4; ++v) {
            val[v] = _mm512_maskz_loadu_ps(m[v], row + 16 * v);
            nan |= _mm512_cmp_ps_mask(val[v], val[v], _CMP_UNORD_Q);
          }
#pragma GCC unroll 4
          for (int v = 0; v < 4; ++v) {
            // The all-lanes zero-masking form is the plain instruction; GCC 12's unmasked intrinsic passes an
            // "undefined" vector that -Wmaybe-uninitialized reports (GCC bug 105593).
            const __m512 r = _mm512_maskz_max_ps(0xffff, val[v], acc[v]);
            acc[v] = nan ? _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(val[v], val[v], _CMP_UNORD_Q), canonicalNan) : r;
          }
        }
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v)
        if (m[v]) _mm512_mask_storeu_ps(o + c0 + 16 * v, m[v], acc[v]);
    }
  }
}

template <typename T, bool kFloat, bool kIgnoreNan>
class MaxPool : public OpKernel {
 public:
  explicit MaxPool(PoolGeom g) : g_(g) {}
  std::string implName() const override {
    return std::is_same_v<T, float> && !kIgnoreNan && useAvx512_ ? "fast:max_pool2d_avx512" : "fast:max_pool2d";
  }
  double resultAbsBound(double inputBound) const override { return inputBound; }  // maxima of bounded values
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const T* x = in[0][0].as<T>();
    T* y = out[0].as<T>();
    const PoolGeom& g = g_;
    if constexpr (std::is_same_v<T, float>) {
      if (!kIgnoreNan && useAvx512_) {
        parallelItems(g.N * g.OH, g.parallel(),
                      [&](int64_t item) { maxPoolRowF32PropagateAvx512(g, x, y, item / g.OH, item % g.OH); });
        return Status::ok();
      }
      parallelItems(g.N * g.OH, g.parallel(), [&](int64_t item) {
        const int64_t n = item / g.OH, oy = item % g.OH;
        thread_local std::vector<float> acc;
        acc.resize(size_t(g.C));
        if (kIgnoreNan)
          maxPoolRowF32Ignore(g, x, y, n, oy, acc.data());
        else
          maxPoolRowF32Propagate(g, x, y, n, oy, acc.data());
      });
      return Status::ok();
    }
    parallelItems(g.N * g.OH, g.parallel(), [&](int64_t item) {
      const int64_t n = item / g.OH, oy = item % g.OH;
      using Acc = std::conditional_t<kFloat, float, T>;
      std::vector<Acc> acc(size_t(g.C));
      std::vector<float> tmp(std::is_same_v<T, uint16_t> ? size_t(g.C) : 0);
      for (int64_t ox = 0; ox < g.OW; ++ox) {
        const int64_t y0 = std::max<int64_t>(oy * g.SY - g.PT, 0), y1 = std::min(oy * g.SY - g.PT + g.KY, g.IH);
        const int64_t x0 = std::max<int64_t>(ox * g.SX - g.PL, 0), x1 = std::min(ox * g.SX - g.PL + g.KX, g.IW);
        Acc init;
        if constexpr (kFloat)
          init = kIgnoreNan ? std::numeric_limits<float>::quiet_NaN() : -INFINITY;
        else
          init = std::numeric_limits<T>::min();
        std::fill(acc.begin(), acc.end(), init);
        for (int64_t yy = y0; yy < y1; ++yy)
          for (int64_t xx = x0; xx < x1; ++xx) {
            const T* row = x + ((n * g.IH + yy) * g.IW + xx) * g.C;
            if constexpr (!kFloat) {
              maxRowInt(acc.data(), row, g.C);
            } else {
              const float* frow;
              if constexpr (std::is_same_v<T, uint16_t>) {
                bf16RowToFloat(row, tmp.data(), g.C);
                frow = tmp.data();
              } else {
                frow = row;
              }
              if constexpr (kIgnoreNan)
                maxRowIgnore(acc.data(), frow, g.C);
              else
                maxRowPropagate(acc.data(), frow, g.C);
            }
          }
        T* o = y + ((n * g.OH + oy) * g.OW + ox) * g.C;
        for (int64_t ch = 0; ch < g.C; ++ch) o[ch] = store(acc[size_t(ch)]);
      }
    });
    return Status::ok();
  }

 private:
  template <typename A>
  static T store(A v) {
    if constexpr (std::is_same_v<T, uint16_t>)
      return floatToBf16Exact(v);
    else
      return T(v);
  }
  PoolGeom g_;
  const bool useAvx512_ = hasAvx512Epilogue();
};

template <typename T>
std::unique_ptr<OpKernel> floatMaxPool(const PoolGeom& g, bool ignoreNan) {
  if (ignoreNan) return std::make_unique<MaxPool<T, true, true>>(g);
  return std::make_unique<MaxPool<T, true, false>>(g);
}

}  // namespace

Result<CompiledKernel> compileMaxPool(const OpChain& c) {
  auto g = parsePool(c);
  if (!g || c.ops[0]->operands.size() != 1) return CompiledKernel{};
  const bool ignoreNan = c.ops[0]->strAttr("nan_mode", "PROPAGATE") == "IGNORE";
  CompiledKernel ck;
  switch (g->t) {
    case DType::FP32: ck.kernel = floatMaxPool<float>(*g, ignoreNan); break;
    case DType::BF16: ck.kernel = floatMaxPool<uint16_t>(*g, ignoreNan); break;
    case DType::I8: ck.kernel = std::make_unique<MaxPool<int8_t, false, false>>(*g); break;
    case DType::I16: ck.kernel = std::make_unique<MaxPool<int16_t, false, false>>(*g); break;
    default: return CompiledKernel{};
  }
  return ck;
}

}  // namespace tosakit::fast
