// fp32 transcendentals written once over GCC vector types and compiled per ISA level, one register wide: 16
// lanes on AVX-512, 8 on AVX2, 4 (SSE) at the baseline, chosen as TK_ISA_DISPATCH does. This file is built with -ffp-contract=fast: each `a * b + c` is one FMA on the
// AVX2 and AVX-512 levels (identical results on both) and a multiply and an add on the baseline (which has no
// FMA); the bounds below hold for both (tests/fast/kernels_eltwise_transcendental_test.cpp checks each level).
//
// exp(t): n = round(t / ln2) by the 1.5 * 2^23 shifter, r = t - n ln2 in two FMAs (ln2 split in a 24-bit head
// and its tail), exp(r) = 1 + (r + r^2 q(r)) with q of degree 4 (a Chebyshev-node least-squares fit of
// (e^r - 1 - r) / r^2 on [-ln2/2, ln2/2], made for this file with numpy: 0.09 ulp model error), then 2^n
// put into the exponent field, in two factors where n leaves the normal range (subnormal results, e^88.5).
// Error about 0.6 ulp against the spec's (1+|x|) * 2^-23 * |exp(x)|.
// sigmoid(x) = 1 / (1 + exp(-x)); 0 below x = -87.34 (the reference's results there are subnormal; the spec
// lets an implementation flush them, and all of them are flushed), so sigmoid(-inf) = 0 exactly.
// tanh: |x| < 0.625: x + x^3 p(x^2) (p of degree 5, fitted as above: 0.005 ulp model error); else
// sign(x) (1 - 2 / (exp(2|x|) + 1)), 2|x| clamped to 40 (tanh is 1 in fp32 from 9.01 on).
// erf: |x| < 1: x p(x^2) (degree 6); 1 <= |x| < 4: sign(x) (1 - exp(-x^2) R(1/|x|)), R fitted to
// erfc(x) e^(x^2) (degree 7); |x| >= 4: sign(x) (erf is 1 in fp32 from 3.92 on).
// NaN in -> NaN out: the clamps pass NaN and every later step keeps it (its payload is not defined).
#include "fast/kernels/f32/vmath.h"

#include <cstring>

#include "fast/isa_dispatch.h"

namespace tosakit::fast::vmath {
namespace {

// Lanes per vector: one register of the level's ISA (GCC splits wider vector types into scalar code for some
// operations, not into several registers).
// (Spelled out per width: GCC drops vector_size on a type that depends on a template parameter.)
template <int W>
struct Vec;
template <>
struct Vec<4> {
  using F = float __attribute__((vector_size(16)));
  using I = int32_t __attribute__((vector_size(16)));
  using Unaligned = float __attribute__((vector_size(16), aligned(4), may_alias));
};
template <>
struct Vec<8> {
  using F = float __attribute__((vector_size(32)));
  using I = int32_t __attribute__((vector_size(32)));
  using Unaligned = float __attribute__((vector_size(32), aligned(4), may_alias));
};
template <>
struct Vec<16> {
  using F = float __attribute__((vector_size(64)));
  using I = int32_t __attribute__((vector_size(64)));
  using Unaligned = float __attribute__((vector_size(64), aligned(4), may_alias));
};
template <typename F>
using IntOf = typename Vec<int(sizeof(F) / 4)>::I;

#define TK_VM __attribute__((always_inline)) inline

template <typename F>
TK_VM F splat(float v) {
  return F{} + v;
}
// A constant GCC cannot see through: compared with a variable and selected, it becomes vmaxps/vminps (with a
// known constant GCC emits a compare and a blend).
template <typename F>
TK_VM F opaque(float v) {
  F r = splat<F>(v);
  asm("" : "+x"(r));
  return r;
}
template <int W>
TK_VM typename Vec<W>::F load(const float* p) {
  return *reinterpret_cast<const typename Vec<W>::Unaligned*>(p);
}
template <int W>
TK_VM void store(float* p, typename Vec<W>::F v) {
  *reinterpret_cast<typename Vec<W>::Unaligned*>(p) = v;
}
template <typename F>
TK_VM F asF(IntOf<F> v) {
  return reinterpret_cast<F>(v);
}
template <typename F>
TK_VM IntOf<F> asI(F v) {
  return reinterpret_cast<IntOf<F>>(v);
}
template <typename F>
TK_VM F absF(F v) {
  return asF<F>(asI(v) & 0x7fffffff);
}
template <typename F>
TK_VM F copySign(F magnitude, F sign) {
  return asF<F>((asI(magnitude) & 0x7fffffff) | (asI(sign) & int32_t(0x80000000)));
}
// lo if x < lo, hi if x > hi, else x — NaN included (written as x86's maxps/minps compute it, which GCC
// then emits: vmaxps/vminps return their second operand when either is NaN).
template <typename F>
TK_VM F clampF(F x, float lo, float hi) {
  const F l = opaque<F>(lo), h = opaque<F>(hi);
  const F m = l > x ? l : x;
  return h < m ? h : m;
}

// e^t for t in [-104, 89] (callers clamp; a NaN t gives NaN: it reaches p, and NaN times any scale is NaN).
// `wide`: n may leave [-126, 127] (subnormal results, overflow to inf), so 2^n is applied as two factors;
// else t must keep n = round(t / ln 2) in [-126, 128] (128 gives the factor inf).
template <bool wide, typename F>
TK_VM F expClamped(F t) {
  // 1.5 * 2^23 + 127: t / ln 2 + this rounds to an integer whose low mantissa bits are n + 127, the biased
  // exponent of 2^n (shifted left by 23 it is 2^n: the shifter's own bits above bit 8 shift out).
  constexpr float kLog2e = 1.44269504088896341f, kShifter = 12582912.0f, kShifterBiased = 12583039.0f;
  constexpr float kLn2Hi = 0.693145751953125f, kLn2Lo = 1.42860682030941723212e-6f;
  const F k = t * kLog2e + kShifterBiased;
  const F nf = k - kShifterBiased;
  F r = t - nf * kLn2Hi;
  r = r - nf * kLn2Lo;
  F q = splat<F>(0.0013933644f);
  q = q * r + 0.008363175f;
  q = q * r + 0.041666467f;
  q = q * r + 0.16666576f;
  q = q * r + 0.5f;
  const F p = (r * r * q + r) + 1.0f;
  if (!wide) return p * asF<F>(asI(k) << 23);
  const IntOf<F> n = asI(k) - asI(splat<F>(kShifter)) - 127;
  const IntOf<F> n1 = n >> 1, n2 = n - n1;
  return (p * asF<F>((n1 + 127) << 23)) * asF<F>((n2 + 127) << 23);
}

template <typename F>
TK_VM F expV(F x) {
  return expClamped<true>(clampF(x, -104.0f, 89.0f));
}

// The least fp32 x whose sigmoid (fp64) is a normal fp32 (>= 2^-126); below it the results are subnormal.
constexpr float kSigmoidZeroBelow = -0x1.5d589ep+6f;  // -87.33654

template <typename F>
TK_VM F sigmoidV(F x) {
  const F s = 1.0f / (1.0f + expClamped<false>(clampF(-x, -87.0f, -kSigmoidZeroBelow)));
  return x < kSigmoidZeroBelow ? splat<F>(0.0f) : s;
}

template <typename F>
TK_VM F tanhV(F x) {
  const F a = absF(x), x2 = x * x;
  F p = splat<F>(0.0022959905f);
  p = p * x2 - 0.008347141f;
  p = p * x2 + 0.021770023f;
  p = p * x2 - 0.053959418f;
  p = p * x2 + 0.13333304f;
  p = p * x2 - 0.33333334f;
  const F small = (a * x2) * p + a;  // on |x|: the sign is x's, -0 included
  const F e = expClamped<false>(clampF(a + a, 0.0f, 40.0f));
  const F large = 1.0f - 2.0f / (e + 1.0f);
  return copySign(a < 0.625f ? small : large, x);
}

template <typename F>
TK_VM F erfV(F x) {
  const F a = absF(x), x2 = x * x;
  F p = splat<F>(7.8824974e-05f);
  p = p * x2 - 0.0008018855f;
  p = p * x2 + 0.005189312f;
  p = p * x2 - 0.026854329f;
  p = p * x2 + 0.11283597f;
  p = p * x2 - 0.37612626f;
  p = p * x2 + 1.1283791f;
  const F small = x * p;
  const F ac = clampF(a, 1.0f, 4.0f), t = 1.0f / ac;
  F q = splat<F>(-0.01869008f);
  q = q * t + 0.12443532f;
  q = q * t - 0.36112645f;
  q = q * t + 0.58254594f;
  q = q * t - 0.5096923f;
  q = q * t + 0.052210074f;
  q = q * t + 0.55753726f;
  q = q * t + 0.00036385292f;
  const F large = copySign(1.0f - expClamped<false>(-(ac * ac)) * q, x);
  return a < 1.0f ? small : large;
}

enum class Fn { Exp, Sigmoid, Silu, Tanh, Erf };

template <Fn fn, typename F>
TK_VM F apply(F x) {
  if constexpr (fn == Fn::Exp) return expV(x);
  if constexpr (fn == Fn::Sigmoid) return sigmoidV(x);
  if constexpr (fn == Fn::Silu) return x * sigmoidV(x);
  if constexpr (fn == Fn::Tanh) return tanhV(x);
  if constexpr (fn == Fn::Erf) return erfV(x);
  return x;
}

// Two vectors per iteration (independent chains side by side: a few % on AVX2), then whole vectors, then the
// last partial one through a padded copy (zeros: every function is defined there). `out` may be `x`. Loads
// and stores through the may_alias unaligned vector type: memcpy into a vector variable made GCC bounce
// every vector through the stack (0.3 G elements/s).
template <Fn fn, int W>
TK_VECTOR_BODY void rowBody(const float* x, float* out, int64_t n) {
  using F = typename Vec<W>::F;
  constexpr int kU = 2;
  int64_t i = 0;
  for (; i + kU * W <= n; i += kU * W) {
    F v[kU];
    for (int u = 0; u < kU; ++u) v[u] = apply<fn>(load<W>(x + i + u * W));
    for (int u = 0; u < kU; ++u) store<W>(out + i + u * W, v[u]);
  }
  for (; i + W <= n; i += W) store<W>(out + i, apply<fn>(load<W>(x + i)));
  if (i == n) return;
  float pad[W] = {};
  std::memcpy(pad, x + i, size_t(n - i) * sizeof(float));
  store<W>(pad, apply<fn>(load<W>(pad)));
  std::memcpy(out + i, pad, size_t(n - i) * sizeof(float));
}

template <Fn fn>
void row(const float* x, float* out, int64_t n) {
  switch (cpu::vectorIsa()) {
    case cpu::VectorIsa::Avx512: return [&]() TK_TARGET_AVX512_O3 { rowBody<fn, 16>(x, out, n); }();
    case cpu::VectorIsa::Avx2: return [&]() TK_TARGET_AVX2_O3 { rowBody<fn, 8>(x, out, n); }();
    default: return [&]() TK_BASELINE_O3 { rowBody<fn, 4>(x, out, n); }();
  }
}

}  // namespace

void exp(const float* x, float* out, int64_t n) { row<Fn::Exp>(x, out, n); }
void sigmoid(const float* x, float* out, int64_t n) { row<Fn::Sigmoid>(x, out, n); }
void silu(const float* x, float* out, int64_t n) { row<Fn::Silu>(x, out, n); }
void tanh(const float* x, float* out, int64_t n) { row<Fn::Tanh>(x, out, n); }
void erf(const float* x, float* out, int64_t n) { row<Fn::Erf>(x, out, n); }

}  // namespace tosakit::fast::vmath
