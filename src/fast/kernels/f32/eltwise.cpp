// Elementwise chains: a run of elementwise ops where each consumes the previous op's result (add -> clamp,
// mul -> add, HardSwish's mul/add/clamp/mul, ...) computed in one pass over rows of the output, with
// broadcasting of the other operands by a per-row base offset (inner stride 0 or 1), or — when every operand
// is full-size, a scalar or a per-channel vector — over flat tiles of whole rows. fp32 + - * are
// IEEE-correctly rounded exactly as the reference's fp64-then-round, max/min/clamp follow apply_max_f /
// apply_min_f (NaN -> canonical NaN, the tie order that decides a zero's sign): those float results are
// identical. exp, sigmoid, tanh and erf are fp32 vector code within the spec's accuracy bounds (vmath.h; not
// bit-identical to the reference's fp64 libm), a sigmoid whose result multiplies its own input (SiLU) one
// fused step. Integer results are computed in int64 and checked: any overflow (a REQUIRE of the spec) reruns
// the step on the reference kernels, which give the spec's verdict.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "fast/isa_dispatch.h"
#include "fast/kernel_factories.h"
#include "fast/kernels/common.h"
#include "fast/kernels/f32/vmath.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

// Silu is no TOSA op: a sigmoid and the multiply of its result by the sigmoid's input, fused (one pass).
enum class Ew { Add, Sub, Mul, Max, Min, Clamp, Abs, Negate, Reciprocal, Rsqrt, Exp, Sigmoid, Tanh, Erf, Silu };

struct EwStep {
  Ew op;
  int chainOperand = 0;   // which operand is the running value (0 or 1); unary ops: 0
  int other = -1;         // index of the other operand in the kernel's operand list, -1 for unary/clamp
  double lo = 0, hi = 0;  // clamp bounds
  int shift = 0;          // integer mul
};

// Per-row addressing of one operand broadcast to the output (rows = all but the last axis).
struct RowMap {
  std::vector<int64_t> base;
  int64_t innerStride = 1;
};

RowMap rowMapFor(const Shape& operand, const Shape& out) {
  RowMap m;
  const int r = int(out.size());
  Shape o = operand;
  while (int(o.size()) < r) o.insert(o.begin(), 1);
  int64_t inner = r ? out[size_t(r - 1)] : 1;
  int64_t rows = inner ? numElements(out) / inner : 0;
  m.innerStride = r && o[size_t(r - 1)] == 1 ? 0 : 1;
  std::vector<int64_t> strides(size_t(r), 0);
  int64_t s = 1;
  for (int d = r - 1; d >= 0; --d) {
    strides[size_t(d)] = o[size_t(d)] == 1 ? 0 : s;
    s *= o[size_t(d)];
  }
  m.base.resize(size_t(rows));
  std::vector<int64_t> idx(size_t(std::max(r - 1, 0)), 0);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t b = 0;
    for (int d = 0; d < r - 1; ++d) b += idx[size_t(d)] * strides[size_t(d)];
    m.base[size_t(row)] = b;
    for (int d = r - 2; d >= 0; --d) {
      if (++idx[size_t(d)] < out[size_t(d)]) break;
      idx[size_t(d)] = 0;
    }
  }
  return m;
}

std::optional<Ew> ewKind(const std::string& name) {
  static const std::map<std::string, Ew> kinds = {
      {"tosa.add", Ew::Add},     {"tosa.sub", Ew::Sub},         {"tosa.mul", Ew::Mul},
      {"tosa.maximum", Ew::Max}, {"tosa.minimum", Ew::Min},     {"tosa.clamp", Ew::Clamp},
      {"tosa.abs", Ew::Abs},     {"tosa.negate", Ew::Negate},   {"tosa.reciprocal", Ew::Reciprocal},
      {"tosa.exp", Ew::Exp},     {"tosa.sigmoid", Ew::Sigmoid}, {"tosa.tanh", Ew::Tanh},
      {"tosa.rsqrt", Ew::Rsqrt}, {"tosa.erf", Ew::Erf}};
  auto it = kinds.find(name);
  if (it == kinds.end()) return std::nullopt;
  return it->second;
}

bool isUnary(Ew e) {
  return e == Ew::Abs || e == Ew::Negate || e == Ew::Reciprocal || e == Ew::Rsqrt || e == Ew::Exp || e == Ew::Sigmoid ||
      e == Ew::Tanh || e == Ew::Erf || e == Ew::Silu || e == Ew::Clamp;
}

// fp32 kernel of one row: the chain applied to `inner` elements.
struct FloatChain {
  std::vector<EwStep> steps;
};

// max/min/clamp exactly as the reference's apply_max_f / apply_min_f (PROPAGATE): a NaN operand gives the
// canonical NaN, max keeps its first operand on ties (a >= b ? a : b) and min its second (a < b ? a : b) —
// which decides the sign of a zero result. `acc` is operand 0 when chainIsFirst, else operand 1.
inline float qNaN() { return std::numeric_limits<float>::quiet_NaN(); }

template <bool isMax>
inline float extremeOf(float a, float b) {
  const float m = isMax ? (a >= b ? a : b) : (a < b ? a : b);
  return (a != a) | (b != b) ? std::numeric_limits<float>::quiet_NaN() : m;
}

TK_VECTOR_BODY void applyFloatBinaryBody(Ew op, float* acc, const float* b, int64_t n, int64_t stride,
                                         bool chainIsFirst) {
  if (stride == 0) {
    const float v = b[0];
    switch (op) {
      case Ew::Add:
        for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] + v;
        return;
      case Ew::Sub:
        if (chainIsFirst)
          for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] - v;
        else
          for (int64_t i = 0; i < n; ++i) acc[i] = v - acc[i];
        return;
      case Ew::Mul:
        for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] * v;
        return;
      // A NaN operand makes every result NaN; otherwise only acc can be NaN (no loop-invariant NaN test left in
      // the loop: GCC would keep it as a branch and not vectorize).
      case Ew::Max:
        if (v != v)
          std::fill(acc, acc + n, std::numeric_limits<float>::quiet_NaN());
        else if (chainIsFirst)
          for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] != acc[i] ? qNaN() : (acc[i] >= v ? acc[i] : v);
        else
          for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] != acc[i] ? qNaN() : (v >= acc[i] ? v : acc[i]);
        return;
      case Ew::Min:
        if (v != v)
          std::fill(acc, acc + n, std::numeric_limits<float>::quiet_NaN());
        else if (chainIsFirst)
          for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] != acc[i] ? qNaN() : (acc[i] < v ? acc[i] : v);
        else
          for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] != acc[i] ? qNaN() : (v < acc[i] ? v : acc[i]);
        return;
      default: return;
    }
  }
  switch (op) {
    case Ew::Add:
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] + b[i];
      return;
    case Ew::Sub:
      if (chainIsFirst)
        for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] - b[i];
      else
        for (int64_t i = 0; i < n; ++i) acc[i] = b[i] - acc[i];
      return;
    case Ew::Mul:
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] * b[i];
      return;
    case Ew::Max:
      if (chainIsFirst)
        for (int64_t i = 0; i < n; ++i) acc[i] = extremeOf<true>(acc[i], b[i]);
      else
        for (int64_t i = 0; i < n; ++i) acc[i] = extremeOf<true>(b[i], acc[i]);
      return;
    case Ew::Min:
      if (chainIsFirst)
        for (int64_t i = 0; i < n; ++i) acc[i] = extremeOf<false>(acc[i], b[i]);
      else
        for (int64_t i = 0; i < n; ++i) acc[i] = extremeOf<false>(b[i], acc[i]);
      return;
    default: return;
  }
}
void applyFloatBinary(Ew op, float* acc, const float* b, int64_t n, int64_t stride, bool chainIsFirst) {
  TK_ISA_DISPATCH(applyFloatBinaryBody(op, acc, b, n, stride, chainIsFirst));
}

// apply_clip_f: max(value, lo) then min(that, hi), NaN -> the canonical NaN (the bounds are not NaN: the
// factory takes only lo <= hi).
TK_VECTOR_BODY void applyFloatClampBody(float* acc, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = acc[i], m = x >= lo ? x : lo;
    acc[i] = x != x ? qNaN() : (m < hi ? m : hi);
  }
}
void applyFloatClamp(float* acc, int64_t n, float lo, float hi) {
  TK_ISA_DISPATCH(applyFloatClampBody(acc, n, lo, hi));
}

bool isTranscendental(Ew e) {
  return e == Ew::Exp || e == Ew::Sigmoid || e == Ew::Silu || e == Ew::Tanh || e == Ew::Erf;
}

// out[0, n) = op(x[0, n)) for a transcendental op (x may be out).
void applyTranscendental(Ew op, const float* x, float* out, int64_t n) {
  switch (op) {
    case Ew::Exp: vmath::exp(x, out, n); return;
    case Ew::Sigmoid: vmath::sigmoid(x, out, n); return;
    case Ew::Silu: vmath::silu(x, out, n); return;
    case Ew::Tanh: vmath::tanh(x, out, n); return;
    case Ew::Erf: vmath::erf(x, out, n); return;
    default: return;
  }
}

void applyFloatUnary(Ew op, float* acc, int64_t n) {
  // reciprocal and rsqrt in fp64 rounded once to fp32, as the reference computes them; the transcendentals
  // in fp32 within the spec's bounds (vmath.h).
  switch (op) {
    case Ew::Abs:
      for (int64_t i = 0; i < n; ++i) acc[i] = std::fabs(acc[i]);
      return;
    case Ew::Negate:
      for (int64_t i = 0; i < n; ++i) acc[i] = -acc[i];
      return;
    case Ew::Reciprocal:
      for (int64_t i = 0; i < n; ++i) acc[i] = float(1.0 / double(acc[i]));
      return;
    case Ew::Rsqrt:  // the reference: a negative input gives the canonical NaN, -0 gives -inf
      for (int64_t i = 0; i < n; ++i)
        acc[i] = acc[i] < 0 ? std::numeric_limits<float>::quiet_NaN() : float(1.0 / std::sqrt(double(acc[i])));
      return;
    default: applyTranscendental(op, acc, acc, n); return;
  }
}

// ---- a whole chain of simple ops (+ - * max min clamp abs negate) per register (AVX-512, AVX2 below) ----
// The per-step passes above load and store the tile once per op; here 64 values at a time go through every
// step in registers (one load of each operand, one store). Each op is the same IEEE fp32 operation with the
// same NaN/tie rules as the scalar loops above (apply_max_f/apply_min_f/apply_clip_f), so results are identical.
#define TOSAKIT_EW_AVX512 __attribute__((target("avx512f,avx512dq,avx2,fma")))

bool isRegisterFusable(Ew e) {
  return e == Ew::Add || e == Ew::Sub || e == Ew::Mul || e == Ew::Max || e == Ew::Min || e == Ew::Clamp ||
      e == Ew::Abs || e == Ew::Negate;
}

bool cpuHasAvx512() { return cpu::has(cpu::Isa::Avx512); }

// a >= b ? a : b (isMax) or a < b ? a : b, the canonical NaN when either is NaN (extremeOf).
template <bool isMax>
TOSAKIT_EW_AVX512 __attribute__((always_inline)) inline __m512 extreme16(__m512 a, __m512 b) {
  const __mmask16 pickA = _mm512_cmp_ps_mask(a, b, isMax ? _CMP_GE_OQ : _CMP_LT_OQ);
  const __m512 m = _mm512_mask_blend_ps(pickA, b, a);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q), m, _mm512_set1_ps(qNaN()));
}

// One step on kV vectors; `o` is the other operand at this block (null for unary ops), stride 0: one value.
template <int kV>
TOSAKIT_EW_AVX512 __attribute__((always_inline)) inline __m512 operand16(const float* o, int64_t stride, int j,
                                                                         __mmask16 tail) {
  if (stride == 0) return _mm512_set1_ps(o[0]);
  return kV == 1 ? _mm512_maskz_loadu_ps(tail, o) : _mm512_loadu_ps(o + 16 * j);
}

template <int kV>
TOSAKIT_EW_AVX512 __attribute__((always_inline)) inline void step16(const EwStep& s, __m512* v, const float* o,
                                                                    int64_t stride, __mmask16 tail) {
#define TOSAKIT_EACH(expr)                    \
  for (int j = 0; j < kV; ++j) v[j] = (expr); \
  return
#define other(j) operand16<kV>(o, stride, j, tail)
  const bool first = s.chainOperand == 0;
  switch (s.op) {
    case Ew::Add: TOSAKIT_EACH(_mm512_add_ps(v[j], other(j)));
    case Ew::Mul: TOSAKIT_EACH(_mm512_mul_ps(v[j], other(j)));
    case Ew::Sub:
      if (first) { TOSAKIT_EACH(_mm512_sub_ps(v[j], other(j))); }
      TOSAKIT_EACH(_mm512_sub_ps(other(j), v[j]));
    case Ew::Max:
      if (first) { TOSAKIT_EACH(extreme16<true>(v[j], other(j))); }
      TOSAKIT_EACH(extreme16<true>(other(j), v[j]));
    case Ew::Min:
      if (first) { TOSAKIT_EACH(extreme16<false>(v[j], other(j))); }
      TOSAKIT_EACH(extreme16<false>(other(j), v[j]));
    case Ew::Clamp: {  // x >= lo ? x : lo, then m < hi ? m : hi; NaN -> the canonical NaN
      const __m512 lo = _mm512_set1_ps(float(s.lo)), hi = _mm512_set1_ps(float(s.hi)), nan = _mm512_set1_ps(qNaN());
      for (int j = 0; j < kV; ++j) {
        const __m512 m = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v[j], lo, _CMP_GE_OQ), lo, v[j]);
        const __m512 c = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(m, hi, _CMP_LT_OQ), hi, m);
        v[j] = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v[j], v[j], _CMP_UNORD_Q), c, nan);
      }
      return;
    }
    case Ew::Abs: TOSAKIT_EACH(_mm512_abs_ps(v[j]));
    case Ew::Negate: TOSAKIT_EACH(_mm512_xor_ps(v[j], _mm512_set1_ps(-0.0f)));
    default: return;
  }
#undef other
#undef TOSAKIT_EACH
}

// dst[0, n) = the chain applied to first[0, n) (stride 0: one value); others[i]/strides[i]: step i's operand.
TOSAKIT_EW_AVX512 void fusedChainTile(float* dst, const float* first, int64_t firstStride, int64_t n,
                                      const std::vector<EwStep>& steps, const float* const* others,
                                      const int64_t* strides) {
  const size_t ns = steps.size();
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    __m512 v[4];
    for (int j = 0; j < 4; ++j) v[j] = firstStride ? _mm512_loadu_ps(first + i + 16 * j) : _mm512_set1_ps(first[0]);
    for (size_t k = 0; k < ns; ++k)
      step16<4>(steps[k], v, others[k] ? others[k] + i * strides[k] : nullptr, strides[k], 0xffff);
    for (int j = 0; j < 4; ++j) _mm512_storeu_ps(dst + i + 16 * j, v[j]);
  }
  for (; i < n; i += 16) {
    const __mmask16 tail = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
    __m512 v[1] = {firstStride ? _mm512_maskz_loadu_ps(tail, first + i) : _mm512_set1_ps(first[0])};
    for (size_t k = 0; k < ns; ++k)
      step16<1>(steps[k], v, others[k] ? others[k] + i * strides[k] : nullptr, strides[k], tail);
    _mm512_mask_storeu_ps(dst + i, tail, v[0]);
  }
}

// ---- the same on AVX2: 8 values per register, 32 at a time (the same operations, so the same results) ----

// a >= b ? a : b (isMax) or a < b ? a : b, the canonical NaN when either is NaN (extremeOf).
template <bool isMax>
TK_TARGET_AVX2 __attribute__((always_inline)) inline __m256 extreme8(__m256 a, __m256 b) {
  const __m256 m = _mm256_blendv_ps(b, a, _mm256_cmp_ps(a, b, isMax ? _CMP_GE_OQ : _CMP_LT_OQ));
  return _mm256_blendv_ps(m, _mm256_set1_ps(qNaN()), _mm256_cmp_ps(a, b, _CMP_UNORD_Q));
}

template <int kV>
TK_TARGET_AVX2 __attribute__((always_inline)) inline __m256 operand8(const float* o, int64_t stride, int j,
                                                                     __m256i tail) {
  if (stride == 0) return _mm256_set1_ps(o[0]);
  return kV == 1 ? _mm256_maskload_ps(o, tail) : _mm256_loadu_ps(o + 8 * j);
}

template <int kV>
TK_TARGET_AVX2 __attribute__((always_inline)) inline void step8(const EwStep& s, __m256* v, const float* o,
                                                                int64_t stride, __m256i tail) {
#define TOSAKIT_EACH(expr)                    \
  for (int j = 0; j < kV; ++j) v[j] = (expr); \
  return
#define other(j) operand8<kV>(o, stride, j, tail)
  const bool first = s.chainOperand == 0;
  switch (s.op) {
    case Ew::Add: TOSAKIT_EACH(_mm256_add_ps(v[j], other(j)));
    case Ew::Mul: TOSAKIT_EACH(_mm256_mul_ps(v[j], other(j)));
    case Ew::Sub:
      if (first) { TOSAKIT_EACH(_mm256_sub_ps(v[j], other(j))); }
      TOSAKIT_EACH(_mm256_sub_ps(other(j), v[j]));
    case Ew::Max:
      if (first) { TOSAKIT_EACH(extreme8<true>(v[j], other(j))); }
      TOSAKIT_EACH(extreme8<true>(other(j), v[j]));
    case Ew::Min:
      if (first) { TOSAKIT_EACH(extreme8<false>(v[j], other(j))); }
      TOSAKIT_EACH(extreme8<false>(other(j), v[j]));
    case Ew::Clamp: {  // x >= lo ? x : lo, then m < hi ? m : hi; NaN -> the canonical NaN
      const __m256 lo = _mm256_set1_ps(float(s.lo)), hi = _mm256_set1_ps(float(s.hi)), nan = _mm256_set1_ps(qNaN());
      for (int j = 0; j < kV; ++j) {
        const __m256 m = _mm256_blendv_ps(lo, v[j], _mm256_cmp_ps(v[j], lo, _CMP_GE_OQ));
        const __m256 c = _mm256_blendv_ps(hi, m, _mm256_cmp_ps(m, hi, _CMP_LT_OQ));
        v[j] = _mm256_blendv_ps(c, nan, _mm256_cmp_ps(v[j], v[j], _CMP_UNORD_Q));
      }
      return;
    }
    case Ew::Abs: TOSAKIT_EACH(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), v[j]));
    case Ew::Negate: TOSAKIT_EACH(_mm256_xor_ps(v[j], _mm256_set1_ps(-0.0f)));
    default: return;
  }
#undef other
#undef TOSAKIT_EACH
}

TK_TARGET_AVX2 void fusedChainTileAvx2(float* dst, const float* first, int64_t firstStride, int64_t n,
                                       const std::vector<EwStep>& steps, const float* const* others,
                                       const int64_t* strides) {
  const size_t ns = steps.size();
  const __m256i all = _mm256_set1_epi32(-1);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 v[4];
    for (int j = 0; j < 4; ++j) v[j] = firstStride ? _mm256_loadu_ps(first + i + 8 * j) : _mm256_set1_ps(first[0]);
    for (size_t k = 0; k < ns; ++k)
      step8<4>(steps[k], v, others[k] ? others[k] + i * strides[k] : nullptr, strides[k], all);
    for (int j = 0; j < 4; ++j) _mm256_storeu_ps(dst + i + 8 * j, v[j]);
  }
  for (; i < n; i += 8) {
    const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(std::min<int64_t>(n - i, 8))),
                                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 v[1] = {firstStride ? _mm256_maskload_ps(first + i, tail) : _mm256_set1_ps(first[0])};
    for (size_t k = 0; k < ns; ++k)
      step8<1>(steps[k], v, others[k] ? others[k] + i * strides[k] : nullptr, strides[k], tail);
    _mm256_maskstore_ps(dst + i, tail, v[0]);
  }
}

// How an operand of a flat (tiled) chain is addressed: the output's own layout, one element, or one row of
// `inner` elements repeated for every row (a per-channel vector broadcast over NHW).
enum class Flat { Full, Scalar, Channel };

class FloatChainKernel : public OpKernel {
 public:
  FloatChainKernel(std::vector<EwStep> steps, Shape outShape, std::vector<RowMap> maps, int first,
                   std::vector<std::pair<int, int>> operandRefs)
      : steps_(std::move(steps)),
        out_(std::move(outShape)),
        maps_(std::move(maps)),
        first_(first),
        refs_(std::move(operandRefs)) {}
  std::string implName() const override { return withVectorIsa("fast:eltwise_f32"); }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    if (!flat_.empty()) return runFlat(in, out);
    const int64_t inner = out_.empty() ? 1 : out_.back();
    const int64_t rows = inner ? numElements(out_) / inner : 0;
    float* dst = out[0].as<float>();
    std::vector<const float*> ptrs;
    for (auto [k, j] : refs_) ptrs.push_back(in[size_t(k)][size_t(j)].as<const float>());
    parallelItems(rows, rows * inner > 65536, [&](int64_t r) {
      float* acc = dst + r * inner;
      const RowMap& m0 = maps_[size_t(first_)];
      const float* src = ptrs[size_t(first_)] + m0.base[size_t(r)];
      if (m0.innerStride)
        std::memcpy(acc, src, size_t(inner) * sizeof(float));
      else
        std::fill(acc, acc + inner, src[0]);
      for (const EwStep& s : steps_) {
        if (s.op == Ew::Clamp) {
          applyFloatClamp(acc, inner, float(s.lo), float(s.hi));
        } else if (s.other >= 0) {
          const RowMap& m = maps_[size_t(s.other)];
          applyFloatBinary(s.op, acc, ptrs[size_t(s.other)] + m.base[size_t(r)], inner, m.innerStride,
                           s.chainOperand == 0);
        } else {
          applyFloatUnary(s.op, acc, inner);
        }
      }
    });
    return Status::ok();
  }

  // Every operand is the output's shape, one element, or one channel vector: the tensor is processed as flat
  // tiles of whole rows that stay in L1 while the whole chain runs over them; a channel vector is repeated
  // once per run to the tile's length, so it is read like a full operand.
  Status runFlat(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) {
    const int64_t total = numElements(out_);
    const int64_t tiles = (total + tile_ - 1) / tile_;
    float* dst = out[0].as<float>();
    std::vector<const float*> ptrs;
    for (size_t m = 0; m < refs_.size(); ++m) {
      const float* p = in[size_t(refs_[m].first)][size_t(refs_[m].second)].as<const float>();
      if (flat_[m] == Flat::Channel) {
        const int64_t inner = out_.back();
        std::vector<float>& rep = repeated_[m];
        rep.resize(size_t(tile_));
        for (int64_t i = 0; i < tile_; i += inner) std::memcpy(rep.data() + i, p, size_t(inner) * sizeof(float));
        p = rep.data();
      }
      ptrs.push_back(p);
    }
    parallelItems(tiles, total > 65536, [&](int64_t t) {
      const int64_t begin = t * tile_, n = std::min(tile_, total - begin);
      float* acc = dst + begin;
      auto at = [&](int m) { return flat_[size_t(m)] == Flat::Full ? ptrs[size_t(m)] + begin : ptrs[size_t(m)]; };
      auto stride = [&](int m) { return flat_[size_t(m)] == Flat::Scalar ? 0 : 1; };
      if (registerFused_) {
        const float* others[kMaxFusedSteps];
        int64_t strides[kMaxFusedSteps];
        for (size_t k = 0; k < steps_.size(); ++k) {
          others[k] = steps_[k].other >= 0 ? at(steps_[k].other) : nullptr;
          strides[k] = steps_[k].other >= 0 ? stride(steps_[k].other) : 0;
        }
        if (cpuHasAvx512())
          fusedChainTile(acc, at(first_), stride(first_), n, steps_, others, strides);
        else
          fusedChainTileAvx2(acc, at(first_), stride(first_), n, steps_, others, strides);
        return;
      }
      size_t k = 0;
      if (stride(first_) && isTranscendental(steps_[0].op)) {  // the first step reads the operand itself
        applyTranscendental(steps_[0].op, at(first_), acc, n);
        k = 1;
      } else if (stride(first_)) {
        std::memcpy(acc, at(first_), size_t(n) * sizeof(float));
      } else {
        std::fill(acc, acc + n, at(first_)[0]);
      }
      for (; k < steps_.size(); ++k) {
        const EwStep& s = steps_[k];
        if (s.op == Ew::Clamp)
          applyFloatClamp(acc, n, float(s.lo), float(s.hi));
        else if (s.other >= 0)
          applyFloatBinary(s.op, acc, at(s.other), n, stride(s.other), s.chainOperand == 0);
        else
          applyFloatUnary(s.op, acc, n);
      }
    });
    return Status::ok();
  }

  // Chooses the flat path when every operand map allows it (see Flat); tiles are ~2048 elements of whole rows.
  void chooseFlat() {
    constexpr int64_t kTile = 2048;
    const int64_t inner = out_.empty() ? 1 : out_.back();
    std::vector<Flat> kinds;
    bool channel = false;
    for (const RowMap& m : maps_) {
      bool sameBase = std::all_of(m.base.begin(), m.base.end(), [&](int64_t b) { return b == m.base[0]; });
      bool full = m.innerStride == 1 || inner == 1;  // [..., 1]: one element per row, contiguous rows
      for (size_t r = 0; full && r < m.base.size(); ++r) full = m.base[r] == int64_t(r) * inner;
      if (full)
        kinds.push_back(Flat::Full);
      else if (m.innerStride == 0 && (m.base.empty() || (sameBase && m.base[0] == 0)))
        kinds.push_back(Flat::Scalar);
      else if (m.innerStride == 1 && sameBase && !m.base.empty() && m.base[0] == 0 && inner <= kTile) {
        kinds.push_back(Flat::Channel);
        channel = true;
      } else {
        return;
      }
    }
    flat_ = kinds;
    tile_ = channel ? std::max<int64_t>(1, kTile / inner) * inner : kTile;
    repeated_.assign(maps_.size(), {});
    registerFused_ = (cpuHasAvx512() || cpu::has(cpu::Isa::Avx2)) && steps_.size() <= kMaxFusedSteps &&
        std::all_of(steps_.begin(), steps_.end(), [](const EwStep& s) { return isRegisterFusable(s.op); });
  }

 private:
  static constexpr size_t kMaxFusedSteps = 32;
  std::vector<Flat> flat_;      // empty: the row path
  bool registerFused_ = false;  // flat, AVX-512 or AVX2 and only simple ops: fusedChainTile[Avx2]
  int64_t tile_ = 2048;
  std::vector<std::vector<float>> repeated_;  // channel operands repeated to the tile's length (per run)
  std::vector<EwStep> steps_;
  Shape out_;
  std::vector<RowMap> maps_;
  int first_;
  std::vector<std::pair<int, int>> refs_;  // operand list: (op index in chain, operand index)
};

// Reads a clamp's bounds; false when not plain float/int attributes.
bool clampBounds(const ir::Operation& op, double& lo, double& hi) {
  const ir::Attribute* a = op.attr("min_val");
  const ir::Attribute* b = op.attr("max_val");
  if (!a || !b) return false;
  lo = a->kind == ir::Attribute::Kind::Float ? a->f : double(a->i);
  hi = b->kind == ir::Attribute::Kind::Float ? b->f : double(b->i);
  return lo <= hi;
}

// Whether op k, a mul, multiplies the chain's first op — a sigmoid, the only step so far — by that sigmoid's
// own input: x * sigmoid(x), computed as one step (the mul's operand map stays unused).
bool fusesIntoSilu(const OpChain& chain, size_t k, const std::vector<EwStep>& steps) {
  if (k != 1 || steps.size() != 1 || steps[0].op != Ew::Sigmoid || chain.ops[1]->name != "tosa.mul") return false;
  const ir::Operation& mul = *chain.ops[1];
  const ir::Value* x = chain.ops[0]->operands[0];
  const ir::Value* sig = chain.ops[0]->results[0];
  return (mul.operands[0] == x && mul.operands[1] == sig) || (mul.operands[0] == sig && mul.operands[1] == x);
}

// The prefix of the chain this kernel can compute in fp32: every op elementwise over fp32 with the chain value
// keeping the output's shape after the first op.
Result<CompiledKernel> compileFloatChain(const OpChain& chain) {
  std::vector<EwStep> steps;
  std::vector<RowMap> maps;
  std::vector<std::pair<int, int>> refs;
  Shape outShape;
  int first = -1;
  size_t k = 0;
  for (; k < chain.ops.size(); ++k) {
    const ir::Operation& op = *chain.ops[k];
    auto kind = ewKind(op.name);
    if (!kind || op.results.size() != 1 || op.results[0]->type.dtype != DType::FP32) break;
    if (op.strAttr("nan_mode", "PROPAGATE") != "PROPAGATE") break;
    const Shape& rs = op.results[0]->type.dims;
    if (k == 0)
      outShape = rs;
    else if (rs != outShape)
      break;
    EwStep s;
    s.op = *kind;
    // Data operands are fp32 (mul's shift and negate's zero points are checked below).
    if (op.operands.empty() || op.operands[0]->type.dtype != DType::FP32) break;
    if (!isUnary(s.op) && (op.operands.size() < 2 || op.operands[1]->type.dtype != DType::FP32)) break;
    if (s.op == Ew::Mul) {
      const Tensor* shift = op.operands.size() > 2 ? chain.constants[k][2] : nullptr;
      if (op.operands.size() > 2 && (!shift || shift->getInt(0) != 0)) break;
    }
    if (s.op == Ew::Negate) {  // zero points must be constant zeros for float
      bool zeros = true;
      for (size_t j = 1; j < op.operands.size(); ++j)
        zeros = zeros && chain.constants[k][j] && chain.constants[k][j]->getFloat(0) == 0;
      if (!zeros) break;
    }
    if (s.op == Ew::Clamp && !clampBounds(op, s.lo, s.hi)) break;
    if (k == 0) {
      // The first op reads its operands from the views; operand 0 seeds the running value.
      maps.push_back(rowMapFor(op.operands[0]->type.dims, outShape));
      refs.push_back({0, 0});
      first = 0;
      if (!isUnary(s.op)) {
        maps.push_back(rowMapFor(op.operands[1]->type.dims, outShape));
        refs.push_back({0, 1});
        s.other = 1;
      }
      s.chainOperand = 0;
    } else {
      const ir::Value* prev = chain.ops[k - 1]->results[0];
      if (!isUnary(s.op)) {
        int chainIdx = op.operands[0] == prev ? 0 : 1;
        int otherIdx = 1 - chainIdx;
        if (op.operands[size_t(otherIdx)] == prev) break;  // x op x: keep it simple
        s.chainOperand = chainIdx;
        maps.push_back(rowMapFor(op.operands[size_t(otherIdx)]->type.dims, outShape));
        refs.push_back({int(k), otherIdx});
        s.other = int(maps.size()) - 1;
      } else if (op.operands[0] != prev) {
        break;
      }
    }
    if (fusesIntoSilu(chain, k, steps))
      steps.back().op = Ew::Silu;
    else
      steps.push_back(s);
  }
  if (k == 0) return CompiledKernel{};
  auto kernel = std::make_unique<FloatChainKernel>(std::move(steps), outShape, std::move(maps), first, std::move(refs));
  kernel->chooseFlat();
  CompiledKernel ck;
  ck.kernel = std::move(kernel);
  ck.opsAbsorbed = int(k);
  return ck;
}

// One row of an integer binary op with both operands contiguous (or the second a broadcast scalar, sy == 0):
// the op is chosen outside the loop so each loop vectorizes. Returns nonzero when a result left int32 (an int64
// flag rather than a bool reduction, which the vectorizer does not take).
template <typename T>
TK_VECTOR_BODY int64_t intRowBody(const T* __restrict x, const T* __restrict y, int64_t sy, int32_t* __restrict o,
                                  int64_t n, Ew op, int shift) {
  int64_t bad = 0;
  constexpr int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  const int64_t round = shift > 0 ? int64_t(1) << (shift - 1) : 0;
  auto loop = [&](auto f) {
    if (sy == 0) {
      const int64_t b = y[0];
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = f(int64_t(x[i]), b);
        bad |= (v < lo) | (v > hi);
        o[i] = int32_t(v);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t v = f(int64_t(x[i]), int64_t(y[i]));
        bad |= (v < lo) | (v > hi);
        o[i] = int32_t(v);
      }
    }
  };
  switch (op) {
    case Ew::Add: loop([](int64_t a, int64_t b) { return a + b; }); break;
    case Ew::Sub: loop([](int64_t a, int64_t b) { return a - b; }); break;
    case Ew::Max: loop([](int64_t a, int64_t b) { return a > b ? a : b; }); break;
    case Ew::Min: loop([](int64_t a, int64_t b) { return a < b ? a : b; }); break;
    case Ew::Mul:
      if (shift == 0)
        loop([](int64_t a, int64_t b) { return a * b; });
      else
        loop([&](int64_t a, int64_t b) { return (a * b + round) >> shift; });
      break;
    default: bad = 1; break;
  }
  return bad;
}
template <typename T>
int64_t intRow(const T* x, const T* y, int64_t sy, int32_t* o, int64_t n, Ew op, int shift) {
  TK_ISA_DISPATCH(intRowBody<T>(x, y, sy, o, n, op, shift));
}

// Integer binary ops (add/sub/mul with shift/max/min) on i32 (and mul on i8/i16 -> i32), computed in int64:
// an overflow or an out-of-range shift (REQUIREs of the spec) reruns the op on its reference kernel.
class IntBinaryKernel : public OpKernel {
 public:
  IntBinaryKernel(Ew op, DType inT, Shape out, RowMap a, RowMap b, int shift)
      : op_(op), inT_(inT), out_(std::move(out)), a_(std::move(a)), b_(std::move(b)), shift_(shift) {}
  std::string implName() const override { return "fast:eltwise_int"; }

  template <typename T>
  bool compute(const T* x, const T* y, int32_t* dst) const {
    const int64_t inner = out_.empty() ? 1 : out_.back();
    const int64_t rows = inner ? numElements(out_) / inner : 0;
    return parallelItems(rows, rows * inner > 65536, [&](int64_t r) {
      const T* xa = x + a_.base[size_t(r)];
      const T* yb = y + b_.base[size_t(r)];
      int32_t* o = dst + r * inner;
      if (a_.innerStride == 1)  // the common case: a contiguous row, the other operand contiguous or scalar
        return intRow(xa, yb, b_.innerStride, o, inner, op_, shift_) == 0;
      bool ovf = false;
      for (int64_t i = 0; i < inner; ++i) {
        int64_t v1 = xa[i * a_.innerStride], v2 = yb[i * b_.innerStride], v = 0;
        switch (op_) {
          case Ew::Add: v = v1 + v2; break;
          case Ew::Sub: v = v1 - v2; break;
          case Ew::Max: v = v1 > v2 ? v1 : v2; break;
          case Ew::Min: v = v1 < v2 ? v1 : v2; break;
          case Ew::Mul:
            v = v1 * v2;
            if (shift_ > 0) v = (v + (int64_t(1) << (shift_ - 1))) >> shift_;
            break;
          default: break;
        }
        ovf |= v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max();
        o[i] = int32_t(v);
      }
      return !ovf;
    });
  }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    bool ok = false;
    int32_t* dst = out[0].as<int32_t>();
    switch (inT_) {
      case DType::I32: ok = compute(in[0][0].as<const int32_t>(), in[0][1].as<const int32_t>(), dst); break;
      case DType::I16: ok = compute(in[0][0].as<const int16_t>(), in[0][1].as<const int16_t>(), dst); break;
      case DType::I8: ok = compute(in[0][0].as<const int8_t>(), in[0][1].as<const int8_t>(), dst); break;
      default: break;
    }
    return ok ? Status::ok() : rerunOnReference();
  }

 private:
  Ew op_;
  DType inT_;
  Shape out_;
  RowMap a_, b_;
  int shift_;
};

Result<CompiledKernel> compileIntBinary(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  auto kind = ewKind(op.name);
  if (!kind || isUnary(*kind) || op.results.size() != 1 || op.results[0]->type.dtype != DType::I32)
    return CompiledKernel{};
  DType inT = op.operands[0]->type.dtype;
  if (op.operands[1]->type.dtype != inT) return CompiledKernel{};
  if (inT != DType::I32 && !(*kind == Ew::Mul && (inT == DType::I8 || inT == DType::I16))) return CompiledKernel{};
  int shift = 0;
  if (*kind == Ew::Mul && op.operands.size() > 2) {
    const Tensor* s = chain.constants[0][2];
    if (!s || s->size() < 1) return CompiledKernel{};
    shift = int(s->getInt(0));
    if (shift < 0 || shift > 63 || (inT != DType::I32 && shift != 0)) return CompiledKernel{};
  }
  const Shape& out = op.results[0]->type.dims;
  CompiledKernel ck;
  ck.kernel = std::make_unique<IntBinaryKernel>(*kind, inT, out, rowMapFor(op.operands[0]->type.dims, out),
                                                rowMapFor(op.operands[1]->type.dims, out), shift);
  return ck;
}

}  // namespace

Result<CompiledKernel> compileElementwise(const OpChain& chain) {
  auto f = compileFloatChain(chain);
  if (!f || f->kernel) return f;
  return compileIntBinary(chain);
}

}  // namespace tosakit::fast
