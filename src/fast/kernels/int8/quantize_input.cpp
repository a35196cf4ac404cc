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

}  // namespace tosakit::fast
