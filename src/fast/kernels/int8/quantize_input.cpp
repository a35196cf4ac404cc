// The quantization of a float network input as `tosakit quantize` writes it — MUL by the input's scale (one
// fp32 constant), CAST to i8/i16 — and, when it follows, the NCHW -> NHWC TRANSPOSE the ONNX importer puts in
// front of the first convolution, computed in one pass: each input value is read once and its integer written
// straight to its NHWC place. On int8 mobilenet_v2 the three steps took 0.10 ms of 2.6 (the cast alone 0.04:
// a scalar round per value; the transpose 0.05: one byte written every third byte).
//
// Exact: fp32 * fp32 rounded once to fp32 is the reference's MUL (fp64 product, one rounding); CAST's
// round_to_nearest_int (ties to even) then the clip to the integer type equals the clip to the type's (integer)
// bounds in fp32 followed by the round, which is what the vector path computes. A NaN product (NaN input, or
// infinity times a zero scale) makes CAST unpredictable (a REQUIRE): the step reruns on the reference kernels.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include <omp.h>

#include "fast/cpu_features.h"
#include "fast/isa_dispatch.h"
#include "fast/kernel_factories.h"
#include "fast/kernels/common.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

// out[(n * P + p) * C + c] = quantize(x[(n * C + c) * P + p]): C = 1 is the plain elementwise case.
struct QuantizeInputShape {
  int64_t N = 1, C = 1, P = 0;
};

template <typename OutT>
bool quantizeScalar(const float* x, OutT* y, float scale, float lo, float hi, int64_t count, int64_t xStride,
                    int64_t yStride) {
  bool nan = false;
  for (int64_t i = 0; i < count; ++i) {
    const float v = x[i * xStride] * scale;
    nan |= std::isnan(v);
    y[i * yStride] = OutT(std::nearbyint(std::min(std::max(v, lo), hi)));
  }
  return !nan;
}

// GCC 12 reports the intrinsics' deliberately undefined pass-through operands (_mm512_undefined_*) as maybe
// uninitialized once they are inlined here (GCC bug 105593); nothing in this file reads an undefined value.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define TK_AVX512_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))

// The 48 bytes of 16 positions x 3 channels in NHWC order from three 16-byte channel vectors held in lanes
// 0..2 of one register: byte j of the result is channel j % 3 of position j / 3.
struct Interleave3 {
  alignas(64) uint8_t idx[64] = {};
  Interleave3() {
    for (int j = 0; j < 48; ++j) idx[j] = uint8_t((j % 3) * 16 + j / 3);
  }
};
TK_AVX512_VBMI inline __m512i interleave3Index() {
  static const Interleave3 t;  // built once
  return _mm512_load_si512(t.idx);
}

// 16 values (mask m) times the scale, NaN lanes flagged, clipped to [lo, hi] in fp32, rounded to nearest even.
TK_AVX512_VBMI inline __m512i quantize16(const float* src, __mmask16 m, __m512 scale, __m512 lo, __m512 hi,
                                         __mmask16& nan) {
  __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, src), scale);
  nan |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
  v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
  return _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// Positions [p0, p1) of image n, i8 result, C = 1 (elementwise) or C = 3 (NCHW -> NHWC): 16 positions per
// step, the clip in fp32, the round by the conversion (round to nearest even), the narrowing in the store.
TK_AVX512_VBMI bool quantizeI8Avx512(const float* x, int8_t* y, const QuantizeInputShape& s, int64_t n, int64_t p0,
                                     int64_t p1, float scale, float lo, float hi) {
  const __m512 vs = _mm512_set1_ps(scale), vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
  const __m512i idx = interleave3Index();
  __mmask16 nan = 0;
  for (int64_t p = p0; p < p1; p += 16) {
    const int64_t m = std::min<int64_t>(16, p1 - p);
    const __mmask16 mask = __mmask16((1u << m) - 1);
    if (s.C == 1) {
      _mm512_mask_cvtepi32_storeu_epi8(y + n * s.P + p, mask, quantize16(x + n * s.P + p, mask, vs, vlo, vhi, nan));
      continue;
    }
    const float* src = x + n * 3 * s.P + p;
    __m512i z = _mm512_zextsi128_si512(_mm512_cvtepi32_epi8(quantize16(src, mask, vs, vlo, vhi, nan)));
    z = _mm512_inserti32x4(z, _mm512_cvtepi32_epi8(quantize16(src + s.P, mask, vs, vlo, vhi, nan)), 1);
    z = _mm512_inserti32x4(z, _mm512_cvtepi32_epi8(quantize16(src + 2 * s.P, mask, vs, vlo, vhi, nan)), 2);
    const __mmask64 bytes = (__mmask64(1) << (3 * m)) - 1;
    _mm512_mask_storeu_epi8(y + (n * s.P + p) * 3, bytes, _mm512_permutexvar_epi8(idx, z));
  }
  return nan == 0;
}

#pragma GCC diagnostic pop

// The AVX2 form (no VBMI byte permute): 8 values per conversion (cvtps rounds to nearest even in the default
// MXCSR mode, as std::nearbyint), 16 positions per step; three channels' 16 bytes interleaved by byte shuffles,
// each of the 48 result bytes taken from its channel's vector (-1 in the other two shuffles' index: zero).
struct Interleave3Avx2 {
  alignas(16) int8_t idx[3][3][16];  // [result vector][channel][byte]
  Interleave3Avx2() {
    for (int v = 0; v < 3; ++v)
      for (int c = 0; c < 3; ++c)
        for (int b = 0; b < 16; ++b) {
          const int j = 16 * v + b;
          idx[v][c][b] = int8_t(j % 3 == c ? j / 3 : -1);
        }
  }
};

// 16 values times the scale, NaN lanes flagged, clipped to [lo, hi] in fp32, rounded, narrowed to 16 bytes.
TK_TARGET_AVX2 inline __m128i quantize16Avx2(const float* src, __m256 scale, __m256 lo, __m256 hi, __m256& nan) {
  __m256 a = _mm256_mul_ps(_mm256_loadu_ps(src), scale), b = _mm256_mul_ps(_mm256_loadu_ps(src + 8), scale);
  nan = _mm256_or_ps(nan, _mm256_or_ps(_mm256_cmp_ps(a, a, _CMP_UNORD_Q), _mm256_cmp_ps(b, b, _CMP_UNORD_Q)));
  a = _mm256_min_ps(_mm256_max_ps(a, lo), hi), b = _mm256_min_ps(_mm256_max_ps(b, lo), hi);
  // packs works per 128-bit half: a0 b0 a1 b1 as i16, then the 64-bit quarters put back in order.
  const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(_mm256_cvtps_epi32(a), _mm256_cvtps_epi32(b)), 0xd8);
  return _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

// quantizeI8Avx512's work on AVX2: positions [p0, p1) of image n, C = 1 or 3; the last 1-15 positions scalar.
TK_TARGET_AVX2 bool quantizeI8Avx2(const float* x, int8_t* y, const QuantizeInputShape& s, int64_t n, int64_t p0,
                                   int64_t p1, float scale, float lo, float hi) {
  static const Interleave3Avx2 t;
  const __m256 vs = _mm256_set1_ps(scale), vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  __m256 nan = _mm256_setzero_ps();
  int64_t p = p0;
  for (; p + 16 <= p1; p += 16) {
    if (s.C == 1) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + n * s.P + p), quantize16Avx2(x + n * s.P + p, vs, vlo, vhi, nan));
      continue;
    }
    const float* src = x + n * 3 * s.P + p;
    const __m128i c[3] = {quantize16Avx2(src, vs, vlo, vhi, nan), quantize16Avx2(src + s.P, vs, vlo, vhi, nan),
                          quantize16Avx2(src + 2 * s.P, vs, vlo, vhi, nan)};
    int8_t* dst = y + (n * s.P + p) * 3;
    for (int v = 0; v < 3; ++v) {
      const auto idx = [&](int ch) { return _mm_load_si128(reinterpret_cast<const __m128i*>(t.idx[v][ch])); };
      const __m128i r = _mm_or_si128(_mm_or_si128(_mm_shuffle_epi8(c[0], idx(0)), _mm_shuffle_epi8(c[1], idx(1))),
                                     _mm_shuffle_epi8(c[2], idx(2)));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 16 * v), r);
    }
  }
  bool ok = _mm256_movemask_ps(nan) == 0;
  for (int64_t ch = 0; ch < s.C; ++ch)
    ok &= quantizeScalar(x + (n * s.C + ch) * s.P + p, y + (n * s.P + p) * s.C + ch, scale, lo, hi, p1 - p, 1, s.C);
  return ok;
}

bool hasAvx512Vbmi() { return cpu::features().avx512Vbmi; }

class QuantizeInputKernel : public OpKernel {
 public:
  QuantizeInputKernel(QuantizeInputShape s, bool nhwc, DType out, float scale, int xOperand)
      : s_(s), nhwc_(nhwc), out_(out), scale_(scale), xOperand_(xOperand) {}
  std::string implName() const override { return nhwc_ ? "fast:quantize_nhwc" : "fast:quantize"; }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const float* x = in[0][size_t(xOperand_)].as<const float>();
    const int64_t total = s_.N * s_.C * s_.P;
    // Blocks of positions of one image, split over the threads when the tensor is large.
    const int64_t block = 4096, perImage = (s_.P + block - 1) / block, blocks = s_.N * perImage;
    const bool ok = parallelItems(blocks, total > 65536, [&](int64_t b) {
      const int64_t n = b / perImage, p0 = (b % perImage) * block, p1 = std::min(s_.P, p0 + block);
      return runBlock(x, out[0].data, n, p0, p1);
    });
    return ok ? Status::ok() : rerunOnReference();
  }

 private:
  bool runBlock(const float* x, void* y, int64_t n, int64_t p0, int64_t p1) const {
    if (out_ == DType::I8) {
      int8_t* y8 = static_cast<int8_t*>(y);
      if ((s_.C == 1 || s_.C == 3) && hasAvx512Vbmi()) return quantizeI8Avx512(x, y8, s_, n, p0, p1, scale_, -128, 127);
      if ((s_.C == 1 || s_.C == 3) && cpu::has(cpu::Isa::Avx2))
        return quantizeI8Avx2(x, y8, s_, n, p0, p1, scale_, -128, 127);
      return scalarBlock(x, y8, n, p0, p1, -128.f, 127.f);
    }
    return scalarBlock(x, static_cast<int16_t*>(y), n, p0, p1, -32768.f, 32767.f);
  }

  template <typename OutT>
  bool scalarBlock(const float* x, OutT* y, int64_t n, int64_t p0, int64_t p1, float lo, float hi) const {
    bool ok = true;
    for (int64_t c = 0; c < s_.C; ++c)
      ok &= quantizeScalar(x + (n * s_.C + c) * s_.P + p0, y + (n * s_.P + p0) * s_.C + c, scale_, lo, hi, p1 - p0, 1,
                           s_.C);
    return ok;
  }

  QuantizeInputShape s_;
  bool nhwc_;
  DType out_;
  float scale_;
  int xOperand_;
};

bool isNchwToNhwc(const ir::Operation& t) {
  const Shape& in = t.operands[0]->type.dims;
  return t.name == "tosa.transpose" && in.size() == 4 && t.intArrayAttr("perms") == std::vector<int64_t>{0, 2, 3, 1} &&
      t.results[0]->type.dims == Shape{in[0], in[2], in[3], in[1]};
}

}  // namespace

Result<CompiledKernel> compileQuantizeInput(const OpChain& chain) {
  if (chain.ops.size() < 2) return CompiledKernel{};
  const ir::Operation& mul = *chain.ops[0];
  const ir::Operation& cast = *chain.ops[1];
  if (mul.name != "tosa.mul" || mul.operands.size() != 3 || cast.name != "tosa.cast") return CompiledKernel{};
  const Shape& shape = mul.results[0]->type.dims;
  const DType outT = cast.results[0]->type.dtype;
  if (mul.results[0]->type.dtype != DType::FP32 || (outT != DType::I8 && outT != DType::I16) ||
      cast.results[0]->type.dims != shape)
    return CompiledKernel{};
  // The scale: the one-element fp32 constant operand; the other operand has the result's shape.
  const Tensor* shift = chain.constants[0][2];
  if (!shift || shift->size() != 1 || shift->toInts()[0] != 0) return CompiledKernel{};
  int xOperand = -1;
  for (int j : {0, 1}) {
    const Tensor* c = chain.constants[0][size_t(1 - j)];
    const ir::Value* v = mul.operands[size_t(j)];
    if (c && c->dtype() == DType::FP32 && c->size() == 1 && v->type.dtype == DType::FP32 && v->type.dims == shape &&
        mul.operands[size_t(1 - j)]->type.dims.size() == shape.size())
      xOperand = j;
  }
  if (xOperand < 0) return CompiledKernel{};
  const float scale = float(chain.constants[0][size_t(1 - xOperand)]->getFloat(0));

  QuantizeInputShape s;
  s.P = numElements(shape);
  CompiledKernel ck;
  ck.opsAbsorbed = 2;
  if (chain.ops.size() > 2 && isNchwToNhwc(*chain.ops[2])) {
    s = {shape[0], shape[1], shape[2] * shape[3]};
    ck.opsAbsorbed = 3;
  }
  ck.kernel = std::make_unique<QuantizeInputKernel>(s, ck.opsAbsorbed == 3, outT, scale, xOperand);
  return ck;
}

// ---- Regions: an fp32 elementwise graph quantized to an integer (compileQuantizeRegion) ----
//
// The plan offers a region (plan_compile.cpp, collectRegion) when a value is read by several ops: the import's
// QuantizeLinear of a float graph input is clamp, mul, add, sub (a rounding by a magic constant), three
// mul/sub pairs (the residual), mul, add, cast to i32 and an i32 -> i8 rescale adding the zero point, with the
// NCHW -> NHWC transpose in front of the first convolution before or after it: 7 steps as linear chains, each
// writing and reading a full-size fp32 tensor. Here it is one pass over tiles of kTile positions, each op a loop
// over the tile in L1 (one buffer per value), the last value written as integers to its (NHWC) place.
//
// Exact (this file is built with -ffp-contract=off): fp32 + - * are single IEEE operations, which is what the
// reference's fp64 arithmetic rounded once to fp32 gives (a product of two floats is exact in fp64; for a sum
// the double rounding is innocuous, 53 >= 2 * 24 + 2). clamp/maximum/minimum give the reference's value for
// every non-NaN operand up to the sign of a zero, and a zero's sign cannot change the integer the region ends
// in: + - * of a signed zero only carry its sign into other zeros (no division, no sign-dependent op follows).
// NaN: + - * propagate it, so a NaN made anywhere reaches a clamp/maximum/minimum or the cast, whose operands are
// checked; a NaN, or a value outside i32 at a cast to i32, reruns the step on the reference kernels (CAST of
// NaN is unpredictable: a REQUIRE), as does any of the rescale's REQUIREs (value range, i32 result).
namespace {

constexpr int64_t kTile = 512;  // 13 values of the input QuantizeLinear: 26 KB, in L1

enum class RegionOp { Add, Sub, Mul, Clamp, Max, Min };

struct RegionFloatOp {
  RegionOp op;
  int a = 0, b = 0;  // operand buffers: region values 0.., the input (kInput) or constants (kConstBase + index)
  float lo = 0, hi = 0;
};
constexpr int kConstBase = 1 << 16;
constexpr int kInput = -1;  // the region's run-time input

TK_VECTOR_BODY bool floatOpBody(RegionOp op, const float* __restrict a, const float* __restrict b, float* __restrict o,
                                float lo, float hi) {
  int32_t nan = 0;  // an int flag, not bool: a bool reduction blocks the vectorizer
  switch (op) {
    case RegionOp::Add:
      for (int64_t t = 0; t < kTile; ++t) o[t] = a[t] + b[t];
      break;
    case RegionOp::Sub:
      for (int64_t t = 0; t < kTile; ++t) o[t] = a[t] - b[t];
      break;
    case RegionOp::Mul:
      for (int64_t t = 0; t < kTile; ++t) o[t] = a[t] * b[t];
      break;
    case RegionOp::Clamp:
      for (int64_t t = 0; t < kTile; ++t) {
        nan |= a[t] != a[t];
        const float v = a[t] < lo ? lo : a[t];
        o[t] = v > hi ? hi : v;
      }
      break;
    case RegionOp::Max:
      for (int64_t t = 0; t < kTile; ++t) {
        nan |= (a[t] != a[t]) | (b[t] != b[t]);
        o[t] = a[t] < b[t] ? b[t] : a[t];
      }
      break;
    case RegionOp::Min:
      for (int64_t t = 0; t < kTile; ++t) {
        nan |= (a[t] != a[t]) | (b[t] != b[t]);
        o[t] = b[t] < a[t] ? b[t] : a[t];
      }
      break;
  }
  return nan == 0;
}
bool floatOp(RegionOp op, const float* a, const float* b, float* o, float lo, float hi) {
  TK_ISA_DISPATCH(floatOpBody(op, a, b, o, lo, hi));
}

// CAST fp32 -> integer (round half to even) of a tile into i32: values clipped to [lo, hi] first (i8/i16: the
// cast's saturation), or (i32) a value outside (-2^31, 2^31) flagged with the NaNs.
TK_VECTOR_BODY bool castBody(const float* __restrict v, int32_t* __restrict r, float lo, float hi, bool flagRange) {
  int32_t bad = 0;
  for (int64_t t = 0; t < kTile; ++t) {
    const float x = v[t];
    bad |= (x != x) | (flagRange & ((x >= 2147483648.0f) | (x < -2147483648.0f)));
    const float c = x < lo ? lo : x > hi ? hi : x;
    r[t] = int32_t(std::nearbyint(c));
  }
  return bad == 0;
}
bool castTile(const float* v, int32_t* r, float lo, float hi, bool flagRange) {
  TK_ISA_DISPATCH(castBody(v, r, lo, hi, flagRange));
}

// apply_scale_32 (per tensor) of a tile of i32 values, + output zero point, saturated to [lo, hi].
struct RegionRescale {
  int64_t multiplier = 0, shift = 0, roundPos = 0, roundNeg = 0, lowest = 0, highest = 0, outputZp = 0;
  int64_t lo = 0, hi = 0;
  // multiplier == 2^shift with shift <= 31 (the import's zero-point add): apply_scale_32 gives v itself for every
  // v in range ((v * 2^s + 2^(s-1)) >> s; double rounding adds nothing below shift 32), so v + zp in i32 lanes.
  bool identity = false;
};
// The identity rescale: the range check, + zp (|v| < 2^30 and |zp| < 2^15: no i32 overflow), the saturation.
TK_VECTOR_BODY bool rescaleIdentityBody(int32_t* __restrict r, const RegionRescale& p) {
  int32_t bad = 0;
  const int32_t lw = int32_t(p.lowest), hg = int32_t(p.highest), ozp = int32_t(p.outputZp);
  const int32_t lo = int32_t(p.lo), hi = int32_t(p.hi);
  for (int64_t t = 0; t < kTile; ++t) {
    const int32_t v = r[t];
    bad |= (v < lw) | (v >= hg);
    const int32_t x = v + ozp;
    r[t] = x < lo ? lo : x > hi ? hi : x;
  }
  return bad == 0;
}
TK_VECTOR_BODY bool rescaleBody(int32_t* __restrict r, const RegionRescale& p) {
  int64_t bad = 0;
  const int64_t m = p.multiplier, sh = p.shift, rp = p.roundPos, rn = p.roundNeg, lw = p.lowest, hg = p.highest;
  const int64_t ozp = p.outputZp, lo = p.lo, hi = p.hi;
  for (int64_t t = 0; t < kTile; ++t) {
    const int64_t v = r[t];
    bad |= (v < lw) | (v >= hg);
    int64_t x = int64_t(int32_t((v * m + (v >= 0 ? rp : rn)) >> sh)) + ozp;
    bad |= (x < std::numeric_limits<int32_t>::min()) | (x > std::numeric_limits<int32_t>::max());
    x = x < lo ? lo : x;
    r[t] = int32_t(x > hi ? hi : x);
  }
  return bad == 0;
}
bool rescaleTile(int32_t* r, const RegionRescale& p) {
  if (p.identity) { TK_ISA_DISPATCH(rescaleIdentityBody(r, p)); }
  TK_ISA_DISPATCH(rescaleBody(r, p));
}

template <typename OutT>
void storeTile(const int32_t* r, OutT* y, int64_t n, int64_t stride) {
  for (int64_t t = 0; t < n; ++t) y[t * stride] = OutT(r[t]);
}

// count values (i8 range) of three channels as 3 * count interleaved bytes (NHWC), 16 positions per permute.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
TK_AVX512_VBMI void interleave3I8(const int32_t (*r)[kTile], int8_t* y, int64_t count) {
  const __m512i idx = interleave3Index();
  for (int64_t p = 0; p < count; p += 16) {
    const int64_t m = std::min<int64_t>(16, count - p);
    __m512i z = _mm512_zextsi128_si512(_mm512_cvtepi32_epi8(_mm512_load_si512(r[0] + p)));
    z = _mm512_inserti32x4(z, _mm512_cvtepi32_epi8(_mm512_load_si512(r[1] + p)), 1);
    z = _mm512_inserti32x4(z, _mm512_cvtepi32_epi8(_mm512_load_si512(r[2] + p)), 2);
    _mm512_mask_storeu_epi8(y + p * 3, (__mmask64(1) << (3 * m)) - 1, _mm512_permutexvar_epi8(idx, z));
  }
}
#pragma GCC diagnostic pop

class QuantizeRegionKernel : public OpKernel {
 public:
  std::string implName() const override { return nhwc_ ? "fast:quantize_region_nhwc" : "fast:quantize_region"; }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const float* x = in[size_t(inputOp_)][size_t(inputOperand_)].as<const float>();
    const int64_t perPlane = (P_ + kTile - 1) / kTile;
    const bool parallel = N_ * C_ * P_ > 65536;
    bool ok = true;
    if (interleave3_) {  // an image's three channels per tile, stored interleaved 16 positions at a time
      ok = parallelItems(N_ * perPlane, parallel, [&](int64_t i) {
        const int64_t n = i / perPlane, p0 = (i % perPlane) * kTile, count = std::min(kTile, P_ - p0);
        alignas(64) int32_t r[3][kTile];
        bool good = true;
        for (int64_t c = 0; c < 3; ++c) good &= evaluate(x, n * 3 + c, p0, count, r[c]);
        interleave3I8(r, static_cast<int8_t*>(out[0].data) + (n * P_ + p0) * 3, count);
        return good;
      });
    } else {
      ok = parallelItems(N_ * C_ * perPlane, parallel, [&](int64_t i) {
        const int64_t plane = i / perPlane, p0 = (i % perPlane) * kTile;
        return runTile(x, out[0].data, plane, p0, std::min(kTile, P_ - p0));
      });
    }
    return ok ? Status::ok() : rerunOnReference();
  }

  bool runTile(const float* x, void* y, int64_t plane, int64_t p0, int64_t count) const {
    alignas(64) int32_t r[kTile];
    const bool ok = evaluate(x, plane, p0, count, r);
    // NCHW plane (n, c) -> NHWC: position p of channel c at (n * P + p) * C + c.
    const int64_t n = plane / C_, c = plane % C_;
    const int64_t first = nhwc_ ? (n * P_ + p0) * C_ + c : plane * P_ + p0, stride = nhwc_ ? C_ : 1;
    switch (outT_) {
      case DType::I8: storeTile(r, static_cast<int8_t*>(y) + first, count, stride); break;
      case DType::I16: storeTile(r, static_cast<int16_t*>(y) + first, count, stride); break;
      default: storeTile(r, static_cast<int32_t*>(y) + first, count, stride); break;
    }
    return ok;
  }

  // The region's integers for positions [p0, p0 + count) of one plane into r (kTile values; false: rerun).
  bool evaluate(const float* x, int64_t plane, int64_t p0, int64_t count, int32_t* r) const {
    alignas(64) float xs[kTile];
    alignas(64) float vals[kMaxValues][kTile];
    const float* src = x + plane * P_ + p0;
    if (count < kTile) {  // the last tile of a plane: padded (the padding's results are not stored)
      std::fill(std::copy(src, src + count, xs), xs + kTile, 0.f);
      src = xs;
    }
    auto buf = [&](int k) -> const float* {
      return k == kInput ? src : k >= kConstBase ? consts_[size_t(k - kConstBase)].data() : vals[k];
    };
    bool ok = true;
    for (size_t k = 0; k < ops_.size(); ++k)
      ok &= floatOp(ops_[k].op, buf(ops_[k].a), buf(ops_[k].b), vals[k], ops_[k].lo, ops_[k].hi);
    ok &= castTile(vals[ops_.size() - 1], r, castLo_, castHi_, outCastI32_);
    if (rescale_) ok &= rescaleTile(r, *rescale_);
    return ok;
  }

  static constexpr size_t kMaxValues = 32;
  std::vector<RegionFloatOp> ops_;
  std::vector<std::vector<float>> consts_;  // kTile copies of each scalar constant
  int inputOp_ = 0, inputOperand_ = 0;      // where the run-time input is in `in`
  int64_t N_ = 1, C_ = 1, P_ = 0;           // planes N * C of P positions (C = 1 without a transpose)
  bool nhwc_ = false;
  bool interleave3_ = false;  // NHWC, C = 3, i8, VBMI: interleave3I8
  float castLo_ = 0, castHi_ = 0;
  bool outCastI32_ = false;
  std::optional<RegionRescale> rescale_;
  DType outT_ = DType::I8;
};

std::optional<RegionOp> regionOpKind(const std::string& name) {
  if (name == "tosa.add") return RegionOp::Add;
  if (name == "tosa.sub") return RegionOp::Sub;
  if (name == "tosa.mul") return RegionOp::Mul;
  if (name == "tosa.clamp") return RegionOp::Clamp;
  if (name == "tosa.maximum") return RegionOp::Max;
  if (name == "tosa.minimum") return RegionOp::Min;
  return std::nullopt;
}

// The rescale's parameters when it is one this kernel computes: i32 -> i8/i16, scale32, per tensor, constant.
std::optional<RegionRescale> regionRescale(const ir::Operation& op, const std::vector<const Tensor*>& c) {
  if (op.operands.size() != 5 || op.boolAttr("input_unsigned") || op.boolAttr("output_unsigned") ||
      op.boolAttr("per_channel") || !op.boolAttr("scale32", true))
    return std::nullopt;
  for (size_t j = 1; j < 5; ++j)
    if (!c[j] || c[j]->size() != 1) return std::nullopt;
  const std::string mode = op.strAttr("rounding_mode", "SINGLE_ROUND");
  if (mode != "SINGLE_ROUND" && mode != "DOUBLE_ROUND") return std::nullopt;
  const DType outT = op.results[0]->type.dtype;
  if (op.operands[0]->type.dtype != DType::I32 || (outT != DType::I8 && outT != DType::I16)) return std::nullopt;
  RegionRescale p;
  p.multiplier = c[1]->getInt(0);
  p.shift = c[2]->getInt(0);
  if (c[3]->getInt(0) != 0 || (outT != DType::I8 && c[4]->getInt(0) != 0)) return std::nullopt;
  if (p.multiplier < 0 || p.multiplier > std::numeric_limits<int32_t>::max() || p.shift < 2 || p.shift > 62)
    return std::nullopt;  // the reference's REQUIREs say so
  p.roundPos = p.roundNeg = int64_t(1) << (p.shift - 1);
  if (mode == "DOUBLE_ROUND" && p.shift > 31) {
    p.roundPos += int64_t(1) << 30;
    p.roundNeg -= int64_t(1) << 30;
  }
  p.lowest = -(int64_t(1) << (p.shift - 1));
  p.highest = int64_t(1) << (p.shift - 1);
  p.outputZp = c[4]->getInt(0);
  p.identity = p.shift <= 30 && p.multiplier == int64_t(1) << p.shift && std::abs(p.outputZp) < (1 << 15);
  p.lo = dtypeMin(outT);
  p.hi = dtypeMax(outT);
  return p;
}

}  // namespace

// A region (plan_compile.cpp, collectRegion) of fp32 add/sub/mul/clamp/maximum/minimum ops of one shape, each
// operand a value of the region, a one-element fp32 constant or the one run-time fp32 input, then a cast to
// i8/i16/i32 of the last value, an optional rescale of it and an optional NCHW -> NHWC transpose first or last.
Result<CompiledKernel> compileQuantizeRegion(const OpChain& chain) {
  const std::vector<const ir::Operation*>& ops = chain.ops;
  auto k = std::make_unique<QuantizeRegionKernel>();
  // The prefix this kernel takes: [transpose,] fp32 ops, cast[, rescale][, transpose].
  const size_t n = ops.size();
  const bool leading = n > 0 && isNchwToNhwc(*ops[0]);
  size_t first = leading ? 1 : 0, end = first;
  while (end < n && end - first < QuantizeRegionKernel::kMaxValues && regionOpKind(ops[end]->name)) ++end;
  auto readsPrevious = [&](size_t i) { return i < n && i > 0 && ops[i]->operands[0] == ops[i - 1]->results[0]; };
  if (end == first || !readsPrevious(end) || ops[end]->name != "tosa.cast") return CompiledKernel{};
  const ir::Operation& cast = *ops[end];
  const DType castT = cast.results[0]->type.dtype;
  if (castT != DType::I8 && castT != DType::I16 && castT != DType::I32) return CompiledKernel{};
  size_t taken = end + 1;
  if (castT == DType::I32 && readsPrevious(taken) && ops[taken]->name == "tosa.rescale") {
    k->rescale_ = regionRescale(*ops[taken], chain.constants[taken]);
    if (k->rescale_) ++taken;
  }
  const ir::Operation* transpose = leading ? ops[0] : nullptr;
  if (!leading && readsPrevious(taken) && isNchwToNhwc(*ops[taken])) transpose = ops[taken++];
  const Shape& shape = cast.results[0]->type.dims;
  const ir::Value* input = transpose && first == 1 ? transpose->operands[0] : nullptr;
  std::map<const ir::Value*, int> valueOf;  // region float values -> their buffers
  if (transpose && first == 1) valueOf[transpose->results[0]] = kInput;
  for (size_t i = first; i < end; ++i) {
    const ir::Operation& op = *ops[i];
    auto kind = regionOpKind(op.name);
    if (!kind || op.results.size() != 1 || op.results[0]->type.dtype != DType::FP32 ||
        op.results[0]->type.dims != shape)
      return CompiledKernel{};
    if (op.strAttr("nan_mode", "PROPAGATE") != "PROPAGATE") return CompiledKernel{};
    RegionFloatOp r;
    r.op = *kind;
    const size_t data = *kind == RegionOp::Clamp ? 1 : 2;
    if (op.operands.size() < data) return CompiledKernel{};
    if (*kind == RegionOp::Mul &&
        (op.operands.size() != 3 || !chain.constants[i][2] || chain.constants[i][2]->getInt(0) != 0))
      return CompiledKernel{};
    if (*kind == RegionOp::Clamp) {
      const ir::Attribute* a = op.attr("min_val");
      const ir::Attribute* b = op.attr("max_val");
      if (!a || !b || a->kind != ir::Attribute::Kind::Float || b->kind != ir::Attribute::Kind::Float)
        return CompiledKernel{};
      r.lo = float(a->f);
      r.hi = float(b->f);
      if (!(r.lo <= r.hi)) return CompiledKernel{};
    }
    int refs[2] = {kInput, kInput};  // a clamp's second is never read
    for (size_t j = 0; j < data; ++j) {
      const ir::Value* v = op.operands[j];
      if (v->type.dtype != DType::FP32) return CompiledKernel{};
      if (auto it = valueOf.find(v); it != valueOf.end()) {
        refs[j] = it->second;
      } else if (const Tensor* c = chain.constants[i][j]) {
        if (c->size() != 1 || v->type.dims.size() > shape.size()) return CompiledKernel{};
        refs[j] = kConstBase + int(k->consts_.size());
        k->consts_.emplace_back(size_t(kTile), float(c->getFloat(0)));
      } else if (first == 0 && (!input || input == v) && v->type.dims == shape) {  // no transpose in front
        input = v;
        k->inputOp_ = int(i);
        k->inputOperand_ = int(j);
        refs[j] = kInput;
      } else {
        return CompiledKernel{};
      }
    }
    r.a = refs[0];
    r.b = refs[1];
    valueOf[op.results[0]] = int(k->ops_.size());
    k->ops_.push_back(r);
  }
  if (k->ops_.empty() || !input) return CompiledKernel{};
  if (transpose && first == 1) k->inputOp_ = 0, k->inputOperand_ = 0;
  k->outCastI32_ = castT == DType::I32;
  k->castLo_ = castT == DType::I32 ? -2147483648.0f : float(dtypeMin(castT));
  k->castHi_ = castT == DType::I32 ? 2147483520.0f : float(dtypeMax(castT));
  k->outT_ = (transpose && !leading ? ops[taken - 2] : ops[taken - 1])->results[0]->type.dtype;
  const Shape& xShape = input->type.dims;
  if (transpose) {
    if (xShape.size() != 4) return CompiledKernel{};
    k->N_ = xShape[0], k->C_ = xShape[1], k->P_ = xShape[2] * xShape[3];
    k->nhwc_ = true;
    k->interleave3_ = k->C_ == 3 && k->outT_ == DType::I8 && hasAvx512Vbmi();
  } else {
    k->N_ = 1, k->C_ = 1, k->P_ = numElements(xShape);
  }
  CompiledKernel ck;
  ck.opsAbsorbed = int(taken);
  ck.kernel = std::move(k);
  return ck;
}

}  // namespace tosakit::fast
