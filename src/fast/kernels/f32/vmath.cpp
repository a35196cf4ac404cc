// fp32 transcendentals written once over GCC vector types and compiled per ISA level, one register wide: 16
// lanes on AVX-512, 8 on AVX2, 4 (SSE) at the baseline, chosen as TK_ISA_DISPATCH does, four registers in
// lockstep (Pack). This file is built with -ffp-contract=fast: each `a * b + c` is one FMA on the AVX2 and
// AVX-512 levels (identical results on both) and a multiply and an add on the baseline (which has no FMA); the
// bounds below hold for both (tests/fast/kernels_eltwise_transcendental_test.cpp checks each level).
//
// exp(t): n = round(t / ln2) by the 1.5 * 2^23 shifter, r = t - n ln2 in two FMAs (ln2 split in a 24-bit head
// and its tail), exp(r) = 1 + (r + r^2 q(r)) with q of degree 4 (a Chebyshev-node least-squares fit of
// (e^r - 1 - r) / r^2 on [-ln2/2, ln2/2], made for this file with numpy: 0.09 ulp model error), then 2^n
// put into the exponent field, in two factors where n leaves the normal range (subnormal results, e^88.5).
// Error about 0.6 ulp against the spec's (1+|x|) * 2^-23 * |exp(x)|.
// sigmoid(x) = 1 / (1 + exp(-x)) with 1 + exp(-x) from a 2^(j/8) table and a degree-3 polynomial at AVX2 and
// AVX-512 (onePlusExpNegTable), from a shorter exp at the baseline (onePlusExpShort: one-constant reduction, q
// of degree 3; the sigmoid's bound is at least 2 ulp and grows with |x|); 0 below x = -87.34 (the reference's
// results there are subnormal; the spec lets an implementation flush them, and all of them are flushed), so
// sigmoid(-inf) = 0 exactly. SiLU x * sigmoid(x) = x / (1 + exp(-x)): the multiply folded into the one divide.
// tanh: |x| < 0.625: x + x^3 p(x^2) (p of degree 5, fitted as above: 0.005 ulp model error); else
// sign(x) (1 - 2 / (exp(2|x|) + 1)) with the shorter exp, 2|x| clamped to 40 (tanh is 1 in fp32 from 9.01 on).
// erf: |x| < 1: x p(x^2) (degree 6); 1 <= |x| < 4: sign(x) (1 - exp(-x^2) R(1/|x|)), R fitted to
// erfc(x) e^(x^2) (degree 7); |x| >= 4: sign(x) (erf is 1 in fp32 from 3.92 on).
// NaN in -> NaN out: the clamps pass NaN and every later step keeps it (its payload is not defined).
#include "fast/kernels/f32/vmath.h"

#include <cstring>
#include <type_traits>

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

// U vectors in lockstep: every operation below is issued for all U vectors of a pack before the next one, so
// the out-of-order core always sees U independent dependency chains side by side (a sigmoid's chain is ~50
// cycles long; one or two vectors at a time left the FMA pipes idle most of the time: docs/FAST.md
// "Transcendentals"). The functions are written once over packs; a pack's operators apply the vector operation
// member by member.
template <typename V, int U>
struct Pack {
  V v[U];
};
template <typename V>
using ElemOf = std::remove_cvref_t<decltype(V{}[0])>;

// (The scalar operand's type is not deduced: a float literal converts to the element type.)
#define TK_PACK_OP(op)                                                             \
  template <typename V, int U>                                                     \
  TK_VM auto operator op(const Pack<V, U>& a, const Pack<V, U>& b) {               \
    Pack<decltype(a.v[0] op b.v[0]), U> r;                                         \
    for (int u = 0; u < U; ++u) r.v[u] = a.v[u] op b.v[u];                         \
    return r;                                                                      \
  }                                                                                \
  template <typename V, int U>                                                     \
  TK_VM auto operator op(const Pack<V, U>& a, std::type_identity_t<ElemOf<V>> b) { \
    Pack<decltype(a.v[0] op b), U> r;                                              \
    for (int u = 0; u < U; ++u) r.v[u] = a.v[u] op b;                              \
    return r;                                                                      \
  }                                                                                \
  template <typename V, int U>                                                     \
  TK_VM auto operator op(std::type_identity_t<ElemOf<V>> a, const Pack<V, U>& b) { \
    Pack<decltype(a op b.v[0]), U> r;                                              \
    for (int u = 0; u < U; ++u) r.v[u] = a op b.v[u];                              \
    return r;                                                                      \
  }
TK_PACK_OP(+)
TK_PACK_OP(-)
TK_PACK_OP(*)
TK_PACK_OP(/)
TK_PACK_OP(&)
TK_PACK_OP(|)
TK_PACK_OP(<<)
TK_PACK_OP(>>)
TK_PACK_OP(<)
TK_PACK_OP(>)
#undef TK_PACK_OP

template <typename F, int U>
using IPack = Pack<IntOf<F>, U>;

template <typename F, int U>
TK_VM Pack<F, U> splat(float c) {
  Pack<F, U> r;
  for (int u = 0; u < U; ++u) r.v[u] = F{} + c;
  return r;
}
template <typename F, int U>
TK_VM IPack<F, U> asI(const Pack<F, U>& p) {
  IPack<F, U> r;
  for (int u = 0; u < U; ++u) r.v[u] = reinterpret_cast<IntOf<F>>(p.v[u]);
  return r;
}
template <typename F, int U>
TK_VM Pack<F, U> asF(const IPack<F, U>& p) {
  Pack<F, U> r;
  for (int u = 0; u < U; ++u) r.v[u] = reinterpret_cast<F>(p.v[u]);
  return r;
}
// m ? a : b per lane (m from a comparison: all ones or zero).
template <typename F, int U>
TK_VM Pack<F, U> select(const IPack<F, U>& m, const Pack<F, U>& a, const Pack<F, U>& b) {
  Pack<F, U> r;
  for (int u = 0; u < U; ++u) r.v[u] = m.v[u] ? a.v[u] : b.v[u];
  return r;
}
template <typename F, int U>
TK_VM Pack<F, U> absF(const Pack<F, U>& v) {
  return asF<F>(asI(v) & 0x7fffffff);
}
template <typename F, int U>
TK_VM Pack<F, U> copySign(const Pack<F, U>& magnitude, const Pack<F, U>& sign) {
  return asF<F>((asI(magnitude) & 0x7fffffff) | (asI(sign) & int32_t(0x80000000)));
}
// lo if x < lo, hi if x > hi, else x — NaN included (written as x86's maxps/minps compute it, which GCC then
// emits: vmaxps/vminps return their second operand when either is NaN). The bounds are opaque to GCC: with a
// known constant it emits a compare and a blend.
template <typename F, int U>
TK_VM Pack<F, U> clampF(const Pack<F, U>& x, float lo, float hi) {
  F l = F{} + lo, h = F{} + hi;
  asm("" : "+x"(l), "+x"(h));
  Pack<F, U> m;
  for (int u = 0; u < U; ++u) m.v[u] = l > x.v[u] ? l : x.v[u];
  for (int u = 0; u < U; ++u) m.v[u] = h < m.v[u] ? h : m.v[u];
  return m;
}
template <int W, int U>
TK_VM Pack<typename Vec<W>::F, U> load(const float* p) {
  Pack<typename Vec<W>::F, U> r;
  for (int u = 0; u < U; ++u) r.v[u] = *reinterpret_cast<const typename Vec<W>::Unaligned*>(p + u * W);
  return r;
}
template <int W, int U>
TK_VM void store(float* p, const Pack<typename Vec<W>::F, U>& v) {
  for (int u = 0; u < U; ++u) *reinterpret_cast<typename Vec<W>::Unaligned*>(p + u * W) = v.v[u];
}

// 1.5 * 2^23 + 127: t / ln 2 + this rounds to an integer whose low mantissa bits are n + 127, the biased exponent
// of 2^n (shifted left by 23 it is 2^n: the shifter's own bits above bit 8 shift out).
constexpr float kLog2e = 1.44269504088896341f, kShifterBiased = 12583039.0f;
constexpr int32_t kShifterBiasedBits = 0x4b40007f;

// e^t for t in [-104, 89] (callers clamp; a NaN t gives NaN: it reaches p, and NaN times any scale is NaN).
// `wide`: n may leave [-126, 127] (subnormal results, overflow to inf), so 2^n is applied as two factors;
// else t must keep n = round(t / ln 2) in [-126, 128] (128 gives the factor inf). About 0.6 ulp.
template <bool wide, typename F, int U>
TK_VM Pack<F, U> expClamped(const Pack<F, U>& t) {
  constexpr float kLn2Hi = 0.693145751953125f, kLn2Lo = 1.42860682030941723212e-6f;
  const Pack<F, U> k = t * kLog2e + kShifterBiased;
  const Pack<F, U> nf = k - kShifterBiased;
  Pack<F, U> r = t - nf * kLn2Hi;
  r = r - nf * kLn2Lo;
  Pack<F, U> q = r * 0.0013933644f + 0.008363175f;
  q = q * r + 0.041666467f;
  q = q * r + 0.16666576f;
  q = q * r + 0.5f;
  const Pack<F, U> p = (r * r * q + r) + 1.0f;
  if (!wide) return p * asF<F>(asI(k) << 23);
  const IPack<F, U> n = asI(k) - kShifterBiasedBits;
  const IPack<F, U> n1 = n >> 1, n2 = n - n1;
  return (p * asF<F>((n1 + 127) << 23)) * asF<F>((n2 + 127) << 23);
}

// 1 + e^(sign * t) for sigmoid, SiLU and tanh, whose bounds are at least 2 ulp and grow with |x|: two FMAs
// and a third of the latency less than expClamped. ln 2 as one fp32 constant (r off by at most |n| * 1.9e-9,
// i.e. 0.023 |t| ulp), q of degree 3 (1.06e-7 relative model error; our own fit: Lawson's weighted least
// squares for the relative error of 1 + r + r^2 q on [-ln2/2, ln2/2]) evaluated in Estrin's order, and the
// sign folded into the constants (sign * t is never formed). sign * t must keep n in [-126, 128] (128: inf).
template <int sign, typename F, int U>
TK_VM Pack<F, U> onePlusExpShort(const Pack<F, U>& t) {
  constexpr float kLn2 = 0.69314718f;
  const Pack<F, U> k = t * (sign * kLog2e) + kShifterBiased;
  const Pack<F, U> nf = k - kShifterBiased;
  const Pack<F, U> r = sign > 0 ? t - nf * kLn2 : nf * -kLn2 - t;
  Pack<F, U> q = r * 0.008312525f + 0.041890115f;
  q = q * r + 0.16667114f;
  q = q * r + 0.4999923f;
  const Pack<F, U> p = (r * r * q + r) + 1.0f;
  return p * asF<F>(asI(k) << 23) + 1.0f;
}

template <typename F, int U>
TK_VM Pack<F, U> expV(const Pack<F, U>& x) {
  return expClamped<true>(clampF(x, -104.0f, 89.0f));
}

// The least fp32 x whose sigmoid (fp64) is a normal fp32 (>= 2^-126); below it the results are subnormal.
constexpr float kSigmoidZeroBelow = -0x1.5d589ep+6f;  // -87.33654

// 1 + e^-x for sigmoid and SiLU where a vector has 8 or 16 lanes (AVX2, AVX-512: a lane permute from a register
// table, vpermd): e^-x = 2^(u/8) with u = -8 x log2(e) (one multiply: u off by at most half an ulp, i.e.
// |x| 2^-24 relative in e^-x), m = round(u) by the shifter, f = u - m in [-1/2, 1/2] exactly, m = 8n + j:
// e^-x = 2^n 2^(j/8) 2^(f/8), 2^(j/8) from an 8-entry table (fp32 nearest: 0.54 ulp at worst) and 2^(f/8) by
// 1 + f q(f), q of degree 2 (0.45 * 2^-24 relative model error; our own fit, Lawson's weighted least squares
// for the relative error on [-1/2, 1/2]). Against the 2^n of onePlusExpShort this takes three FMAs off the FMA
// pipes (the reduction's adds run on the FP add pipes) for a permute, a shift and an integer add: docs/FAST.md
// "Transcendentals". The scale 2^(n-1) 2^(j/8) is built in the integer domain: the shifter leaves m + 1016 in
// k's low 12 bits, and k << 20 is ((n + 127) << 23) | (j << 20), so table[j] = bits(2^(j/8)) - (128 << 23) -
// (j << 20) added to it gives bits(2^(j/8) 2^(n-1)), normal for n in [-125, 128]; the polynomial is doubled
// (p = 2 + f 2q, exact) to make up the -1, so n = 128 overflows to inf in the final FMA as e^-x does (x <=
// -88.72). u is clamped to [-1000, 1027.2] (n in [-125, 128]): below, 1 + e^-x rounds to 1 anyway.
// (The table repeats for 16 lanes: __builtin_shuffle takes the index modulo the lanes, so AVX-512 looks up
// the same 8 entries with k's low 4 bits, and both levels give the same bits.)
template <typename F, int U>
TK_VM Pack<F, U> onePlusExpNegTable(const Pack<F, U>& x) {
  using I = IntOf<F>;
  constexpr int32_t kBias = 128 << 23;
  constexpr int32_t t0 = 0x3f800000 - kBias, t1 = 0x3f8b95c2 - kBias - (1 << 20), t2 = 0x3f9837f0 - kBias - (2 << 20),
                    t3 = 0x3fa5fed7 - kBias - (3 << 20), t4 = 0x3fb504f3 - kBias - (4 << 20),
                    t5 = 0x3fc5672a - kBias - (5 << 20), t6 = 0x3fd744fd - kBias - (6 << 20),
                    t7 = 0x3feac0c7 - kBias - (7 << 20);
  I table;
  if constexpr (sizeof(F) == 32)
    table = I{t0, t1, t2, t3, t4, t5, t6, t7};
  else
    table = I{t0, t1, t2, t3, t4, t5, t6, t7, t0, t1, t2, t3, t4, t5, t6, t7};
  const Pack<F, U> u = clampF(x * (-8 * kLog2e), -1000.0f, 1027.2f);
  constexpr float kShifter8 = 12583928.0f;  // 1.5 * 2^23 + 8 * 127
  const Pack<F, U> k = u + kShifter8;
  const Pack<F, U> f = u - (k - kShifter8);
  Pack<F, U> q = f * 0.00021678212f + 0.007508051f;
  q = q * f + 0.17328681f;
  const Pack<F, U> p = q * f + 2.0f;
  IPack<F, U> scale = asI(k) << 20;
  for (int i = 0; i < U; ++i) scale.v[i] += __builtin_shuffle(table, asI(k).v[i]);
  return p * asF<F>(scale) + 1.0f;
}

// 1 + e^-x for sigmoid and SiLU: the table form above where the level has a lane permute; at the baseline (SSE,
// 4 lanes, no permute across 8 entries) onePlusExpShort with x clamped to [-88.5, 87] (from x = -88.37 on, n =
// 128 and the sum is inf).
template <typename F, int U>
TK_VM Pack<F, U> onePlusExpNeg(const Pack<F, U>& x) {
  if constexpr (sizeof(F) == 16)
    return onePlusExpShort<-1>(clampF(x, -88.5f, 87.0f));
  else
    return onePlusExpNegTable(x);
}

template <typename F, int U>
TK_VM Pack<F, U> sigmoidV(const Pack<F, U>& x) {
  return select(x < kSigmoidZeroBelow, splat<F, U>(0.0f), 1.0f / onePlusExpNeg(x));
}

// x * sigmoid(x) as x / (1 + e^-x): one rounding instead of two, the multiply folded into the divide. The
// result lies between x times the two ends of the sigmoid's bound, as a sigmoid and a multiply may give it.
// Below -88.37 the denominator is inf: x / inf = -0 (the sigmoid flushed, times x), -inf / inf = NaN (-inf * 0).
template <typename F, int U>
TK_VM Pack<F, U> siluV(const Pack<F, U>& x) {
  return x / onePlusExpNeg(x);
}

template <typename F, int U>
TK_VM Pack<F, U> tanhV(const Pack<F, U>& x) {
  const Pack<F, U> a = absF(x), x2 = x * x;
  Pack<F, U> p = x2 * 0.0022959905f - 0.008347141f;
  p = p * x2 + 0.021770023f;
  p = p * x2 - 0.053959418f;
  p = p * x2 + 0.13333304f;
  p = p * x2 - 0.33333334f;
  const Pack<F, U> small = (a * x2) * p + a;  // on |x|: the sign is x's, -0 included
  const Pack<F, U> large = 1.0f - 2.0f / onePlusExpShort<1>(clampF(a + a, 0.0f, 40.0f));
  return copySign(select(a < 0.625f, small, large), x);
}

template <typename F, int U>
TK_VM Pack<F, U> erfV(const Pack<F, U>& x) {
  const Pack<F, U> a = absF(x), x2 = x * x;
  Pack<F, U> p = x2 * 7.8824974e-05f - 0.0008018855f;
  p = p * x2 + 0.005189312f;
  p = p * x2 - 0.026854329f;
  p = p * x2 + 0.11283597f;
  p = p * x2 - 0.37612626f;
  p = p * x2 + 1.1283791f;
  const Pack<F, U> small = x * p;
  const Pack<F, U> ac = clampF(a, 1.0f, 4.0f), t = 1.0f / ac;
  Pack<F, U> q = t * -0.01869008f + 0.12443532f;
  q = q * t - 0.36112645f;
  q = q * t + 0.58254594f;
  q = q * t - 0.5096923f;
  q = q * t + 0.052210074f;
  q = q * t + 0.55753726f;
  q = q * t + 0.00036385292f;
  const Pack<F, U> large = copySign(1.0f - expClamped<false>(splat<F, U>(0.0f) - ac * ac) * q, x);
  return select(a < 1.0f, small, large);
}

enum class Fn { Exp, Sigmoid, Silu, Tanh, Erf };

template <Fn fn, typename F, int U>
TK_VM Pack<F, U> apply(const Pack<F, U>& x) {
  if constexpr (fn == Fn::Exp) return expV(x);
  if constexpr (fn == Fn::Sigmoid) return sigmoidV(x);
  if constexpr (fn == Fn::Silu) return siluV(x);
  if constexpr (fn == Fn::Tanh) return tanhV(x);
  if constexpr (fn == Fn::Erf) return erfV(x);
  return x;
}

// Packs of kU vectors, then whole vectors, then the last partial one through a padded copy (zeros: every
// function is defined there). `out` may be `x` (a pack is loaded whole before it is stored). Loads and stores
// through the may_alias unaligned vector type: memcpy into a vector variable made GCC bounce every vector
// through the stack (0.3 G elements/s).
template <Fn fn, int W>
TK_VECTOR_BODY void rowBody(const float* x, float* out, int64_t n) {
  // AVX2 has 16 registers: packs of 3 kept the sigmoid's temporaries in registers (1.1-1.2x over 4 on Zen 5);
  // AVX-512's 32 take 4.
  constexpr int kU = W == 8 ? 3 : 4;
  int64_t i = 0;
  for (; i + kU * W <= n; i += kU * W) store<W, kU>(out + i, apply<fn>(load<W, kU>(x + i)));
  for (; i + W <= n; i += W) store<W, 1>(out + i, apply<fn>(load<W, 1>(x + i)));
  if (i == n) return;
  float pad[W] = {};
  std::memcpy(pad, x + i, size_t(n - i) * sizeof(float));
  store<W, 1>(pad, apply<fn>(load<W, 1>(pad)));
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
