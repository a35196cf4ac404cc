// The fast backend's fp32 exp, sigmoid, tanh and erf (src/fast/kernels/f32/vmath.cpp: fp32 vector code, one
// copy per ISA level — this file runs once per level, tests/scripts/isa_levels.cmake) against the TOSA 1.0
// accuracy bounds, with the fp64 value of libm as out_ref (the spec's "fp64_t reference implementation") and
// the spec's tosa_reference_check_fp / calcAbsErrorBound written out below. Inputs: a sweep over the whole
// fp32 bit space (every sign and exponent, subnormals, large |x|), a dense sweep of the interesting range, and
// the specials (±0, ±inf, NaN, ±min subnormal, ±FLT_MAX), whose results the spec's tables fix exactly.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "fast/isa_dispatch.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

constexpr double kInf = std::numeric_limits<double>::infinity();

// tosa_reference_check_fp_bnd<fp32_t> (spec 4.5.3): NaN needs NaN; otherwise within err_bnd of the fp64
// reference, a bound beyond normal_max reaching infinity, and 0 allowed where the reference's lower end is
// below normal_min (subnormal results may be flushed).
bool checkFpBnd(float test, double ref, double errBnd) {
  if (std::isnan(ref)) return std::isnan(test);
  if (!std::isfinite(errBnd)) return true;
  double t = test;
  if (ref < 0) {
    ref = -ref;
    t = -t;
  }
  double refMax = ref + errBnd, refMin = ref - errBnd;
  if (refMax > FLT_MAX) refMax = kInf;
  if (refMin > FLT_MAX) refMin = kInf;
  if (refMin < -FLT_MAX) refMin = -kInf;
  if (t == 0) return refMin < FLT_MIN;
  return t >= refMin && t <= refMax;
}

// calcAbsErrorBound<fp32_t>(bound_magnitude, bounds_value, lower_bound, 1).
double calcAbsErrorBound(double magnitude, double boundsValue, double lowerBound) {
  if (!std::isfinite(boundsValue) && magnitude == 0) return 0;
  double valueBound = std::max(std::fabs(magnitude), double(FLT_MIN));
  if (lowerBound > 0) valueBound = std::max(lowerBound / boundsValue, valueBound);
  return std::exp2(-23) * valueBound * boundsValue;
}

// tosa_reference_check_fp<fp32_t>(test, ref, num_ulp).
bool checkFpUlp(float test, double ref, double ulps) {
  double errBnd = 0;
  if (std::isnormal(ref) && ref != 0) {
    const double pow2 = std::max(std::exp2(std::ilogb(std::fabs(ref))), double(FLT_MIN));
    errBnd = pow2 * std::exp2(-23) * ulps;
  }
  return checkFpBnd(test, ref, errBnd);
}

struct Transcendental {
  const char* op;
  double (*ref)(double);
  bool (*check)(float test, double x, double ref);
};

const Transcendental kOps[] = {
    {"tosa.exp", [](double x) { return std::exp(x); },
     [](float t, double x, double r) { return checkFpBnd(t, r, calcAbsErrorBound(r, 1 + std::fabs(x), 0)); }},
    {"tosa.sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); },
     [](float t, double x, double r) { return checkFpBnd(t, r, calcAbsErrorBound(r, 2 * (1 + std::fabs(x)), 0)); }},
    {"tosa.tanh", [](double x) { return std::tanh(x); },
     [](float t, double x, double r) { return checkFpBnd(t, r, calcAbsErrorBound(r, 4 * (1 + std::fabs(x)), 0.5)); }},
    {"tosa.erf", [](double x) { return std::erf(x); }, [](float t, double, double r) { return checkFpUlp(t, r, 5); }},
};

float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

const std::vector<float> kSpecials = {0.0f,
                                      -0.0f,
                                      INFINITY,
                                      -INFINITY,
                                      NAN,
                                      -NAN,
                                      fromBits(0x7fa00001),  // a signalling NaN
                                      FLT_MAX,
                                      -FLT_MAX,
                                      FLT_MIN,
                                      -FLT_MIN,
                                      FLT_TRUE_MIN,
                                      -FLT_TRUE_MIN,
                                      1e-30f,
                                      -1e-30f,
                                      1e30f,
                                      -1e30f,
                                      88.72f,
                                      88.73f,
                                      -87.34f,
                                      -87.33651f,  // around the last normal sigmoid (-87.33654)
                                      -87.33654f,
                                      -87.33655f,
                                      -87.33f,
                                      -103.97f,
                                      -104.0f,
                                      -110.0f,
                                      89.0f,
                                      0.625f,
                                      -0.625f,
                                      0.62499f,
                                      1.0f,
                                      -1.0f,
                                      0.99999f,
                                      3.92f,
                                      4.0f,
                                      -4.0f,
                                      9.0f,
                                      -9.1f,
                                      1.1920929e-7f};

// Every 4099th fp32 bit pattern (all signs and exponents), specials, a dense sweep of [-12, 12] and random
// values in [-100, 100]; shape [n, 1] so the kernel takes the flat tiled path, split over threads.
std::vector<float> sweepInputs() {
  std::vector<float> v;
  for (uint64_t u = 0; u < (uint64_t(1) << 32); u += 4099) v.push_back(fromBits(uint32_t(u)));
  for (int i = -120000; i <= 120000; ++i) v.push_back(float(i) * 1e-4f);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-100, 100);
  for (int i = 0; i < 50000; ++i) v.push_back(d(rng));
  v.insert(v.end(), kSpecials.begin(), kSpecials.end());
  return v;
}

Tensor fp32Tensor(const std::vector<float>& v, const Shape& s) {
  Tensor t(DType::FP32, s);
  std::memcpy(t.data(), v.data(), v.size() * sizeof(float));
  return t;
}

std::unique_ptr<ir::Module> unaryModel(const std::string& op, const Shape& shape) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ValueType t = ValueType::tensor(DType::FP32, shape);
  b.output({b.op1(op, {b.input(t, "x")}, t)}, {"y"});
  return m;
}

TEST(FastTranscendental, WithinSpecBoundsOverTheFloatRange) {
  const std::vector<float> v = sweepInputs();
  const Shape shape{int64_t(v.size()), 1};
  const Tensor x = fp32Tensor(v, shape);
  for (const Transcendental& f : kOps) {
    for (int threads : {1, 2}) {
      RunOutcome fast = runOn(unaryModel(f.op, shape), "fast", {{"x", x}}, threads);
      ASSERT_TRUE(fast.status.isOk()) << f.op << ": " << fast.status.toString();
      for (const OpProfile& p : fast.stats.steps) EXPECT_EQ(p.impl, fast::withVectorIsa("fast:eltwise_f32")) << f.op;
      const float* y = reinterpret_cast<const float*>(fast.outputs[0].second.data());
      int failures = 0;
      for (size_t i = 0; i < v.size() && failures < 5; ++i) {
        const double r = f.ref(double(v[i]));
        if (f.check(y[i], double(v[i]), r)) continue;
        ++failures;
        ADD_FAILURE() << f.op << "(" << std::hexfloat << v[i] << ") = " << y[i] << ", fp64 reference " << r
                      << std::defaultfloat << " (threads " << threads << ")";
      }
    }
  }
}

// The spec's tables for infinities and zeros are exact; NaN gives NaN.
TEST(FastTranscendental, InfinitiesZerosAndNaNExact) {
  const std::vector<float> v = {INFINITY, -INFINITY, 0.0f, -0.0f, NAN};
  const Shape shape{int64_t(v.size())};
  const Tensor x = fp32Tensor(v, shape);
  struct Want {
    const char* op;
    float posInf, negInf, posZero, negZero;
  };
  for (const Want& w : {Want{"tosa.exp", INFINITY, 0.0f, 1.0f, 1.0f}, Want{"tosa.sigmoid", 1.0f, 0.0f, 0.5f, 0.5f},
                        Want{"tosa.tanh", 1.0f, -1.0f, 0.0f, -0.0f}, Want{"tosa.erf", 1.0f, -1.0f, 0.0f, -0.0f}}) {
    RunOutcome fast = runOn(unaryModel(w.op, shape), "fast", {{"x", x}}, 1);
    ASSERT_TRUE(fast.status.isOk()) << w.op;
    const float* y = reinterpret_cast<const float*>(fast.outputs[0].second.data());
    const float want[] = {w.posInf, w.negInf, w.posZero, w.negZero};
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(y[i], want[i]) << w.op << "(" << v[size_t(i)] << ")";
      EXPECT_EQ(std::signbit(y[i]), std::signbit(want[i])) << w.op << "(" << v[size_t(i)] << ") sign";
    }
    EXPECT_TRUE(std::isnan(y[4])) << w.op << "(NaN)";
  }
}

// x * sigmoid(x) (SiLU, as ONNX exports of PyTorch's SiLU give it) runs as one fused step; each result must
// be what a compliant sigmoid followed by an exact-rounded mul can give: fl(x * s) for some s within the
// sigmoid's bound (s = 0 too where the sigmoid's reference is subnormal) — by monotonicity, between the
// products with the bound's two ends. Rows of odd length (the row path, vector tails) and the flat path.
TEST(FastTranscendental, SiluIsOneStepWithinTheSigmoidBound) {
  std::vector<float> v = sweepInputs();
  for (const Shape& shape : {Shape{int64_t(v.size()), 1}, Shape{3, 7, 13}}) {
    std::vector<float> in(v.begin(), v.begin() + numElements(shape));
    if (shape.size() == 3)  // the row path: values from the interesting range
      for (size_t i = 0; i < in.size(); ++i) in[i] = float(int(i) - 130) * 0.37f;
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      ValueType t = ValueType::tensor(DType::FP32, shape);
      ir::Value* xv = b.input(t, "x");
      ir::Value* s = b.op1("tosa.sigmoid", {xv}, t);
      b.output({b.op1("tosa.mul", {xv, s, b.constant(Tensor::fromInts(DType::I8, {1}, {0}))}, t)}, {"y"});
      return m;
    };
    RunOutcome fast = runOn(make(), "fast", {{"x", fp32Tensor(in, shape)}}, 2);
    ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
    ASSERT_EQ(fast.stats.steps.size(), 1u);
    EXPECT_EQ(fast.stats.steps[0].impl, fast::withVectorIsa("fast:eltwise_f32"));
    const float* y = reinterpret_cast<const float*>(fast.outputs[0].second.data());
    int failures = 0;
    for (size_t i = 0; i < in.size() && failures < 5; ++i) {
      const double xd = in[i], r = 1.0 / (1.0 + std::exp(-xd));
      const double eb = calcAbsErrorBound(r, 2 * (1 + std::fabs(xd)), 0);
      if (std::isnan(xd)) {
        EXPECT_TRUE(std::isnan(y[i]));
        continue;
      }
      float lo = float(xd * (r - eb)), hi = float(xd * (r + eb));
      if (lo > hi) std::swap(lo, hi);
      if (r - eb < FLT_MIN) {  // the sigmoid may be flushed to zero: x * 0
        lo = std::min(lo, 0.0f);
        hi = std::max(hi, 0.0f);
      }
      const bool ok = (std::isinf(xd) && y[i] == float(xd * r)) || (y[i] >= lo && y[i] <= hi) ||
          (std::isinf(xd) && xd < 0 && std::isnan(y[i]));  // -inf * sigmoid(-inf) = -inf * 0
      if (ok) continue;
      ++failures;
      ADD_FAILURE() << "silu(" << std::hexfloat << in[i] << ") = " << y[i] << ", allowed [" << lo << ", " << hi << "]";
    }
  }
}

// GELU as the ONNX importer builds it (x * 0.5 * (1 + erf(x / sqrt 2))): the whole chain on the fast kernel,
// no reference fallback, each step compliant, so the result is close to the reference backend's.
TEST(FastTranscendental, GeluChainRunsOnTheFastKernel) {
  const Shape shape{4, 300};
  std::vector<float> in(1200);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(int(i) - 600) * 0.01f;
  auto make = [&]() {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    ValueType t = ValueType::tensor(DType::FP32, shape);
    auto scalar = [&](double c) { return b.constant(Tensor::fromDoubles(DType::FP32, {1, 1}, {c})); };
    ir::Value* shift = b.constant(Tensor::fromInts(DType::I8, {1}, {0}));
    ir::Value* xv = b.input(t, "x");
    ir::Value* v = b.op1("tosa.mul", {xv, scalar(M_SQRT1_2), shift}, t);
    v = b.op1("tosa.erf", {v}, t);
    v = b.op1("tosa.add", {v, scalar(1.0)}, t);
    v = b.op1("tosa.mul", {v, xv, shift}, t);
    b.output({b.op1("tosa.mul", {v, scalar(0.5), shift}, t)}, {"y"});
    return m;
  };
  const Tensor x = fp32Tensor(in, shape);
  RunOutcome ref = runOn(make(), "ref", {{"x", x}}, 1), fast = runOn(make(), "fast", {{"x", x}}, 1);
  ASSERT_TRUE(ref.status.isOk() && fast.status.isOk()) << ref.status.toString() << " / " << fast.status.toString();
  for (const OpProfile& p : fast.stats.steps) {
    EXPECT_EQ(p.impl, fast::withVectorIsa("fast:eltwise_f32")) << p.opType;
    EXPECT_FALSE(p.fallback) << p.opType;
  }
  const float* r = reinterpret_cast<const float*>(ref.outputs[0].second.data());
  const float* y = reinterpret_cast<const float*>(fast.outputs[0].second.data());
  for (size_t i = 0; i < in.size(); ++i)  // 5 ulp of erf, carried through 1 + erf and the products
    EXPECT_NEAR(y[i], r[i], 1e-6 * (1 + std::fabs(in[i]))) << "x = " << in[i];
}

}  // namespace
}  // namespace tosakit::testing
