// The integer epilogue after oneDNN's s32 accumulators (bias, RESCALE, CLAMP: onednn/common.cpp runIntEpilogue,
// its AVX-512 pass in kernels/int8/epilogue.cpp and the compiler-vectorized one) through the Session as users run
// it, vs the reference backend: random int8 conv2d / matmul -> rescale [-> clamp] chains (channel counts with
// tails, input zero points whose compensation differs per border class, per-channel and per-tensor scales,
// single and double rounding, shifts below 32 whose value range is checked per value, i8/i16/i32 results, row
// counts over several parallel chunks, 1 and 2 threads), fixed seeds: bit-identical, and the rescale fused into
// the convolution's step. REQUIRE cases (acc + bias overflowing i32, apply_scale_32's value range) give the
// reference's verdict.
#include <gtest/gtest.h>

#include <random>

#include "fast/kernels/int8/int8.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "isa_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

struct ConvCase {
  int64_t N = 1, H = 6, W = 6, IC = 8, OC = 5, K = 1, pad = 0, inputZp = 0;
  Tensor w, bias;
  bool rescale = true, clamp = false;
  DType outT = DType::I8;
  ir::RescaleAttrs ra;
  int64_t clampLo = -100, clampHi = 90;
};

std::unique_ptr<ir::Module> build(const ConvCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Conv2dAttrs a;
  a.pad = {c.pad, c.pad, c.pad, c.pad};
  a.inputZp = c.inputZp;
  ir::Value* y = b.conv2d(b.input(ValueType::tensor(DType::I8, {c.N, c.H, c.W, c.IC}), "x"), b.constant(c.w),
                          b.constant(c.bias), a);
  if (c.rescale) y = b.rescale(y, c.outT, c.ra);
  if (c.clamp) y = b.clamp(y, double(c.clampLo), double(c.clampHi));
  b.output({y}, {"y"});
  return m;
}

void expectSame(const ConvCase& c, const Tensor& x, int threads, const std::string& what, bool expectOk = true) {
  RunOutcome ref = runOn(build(c), "ref", {{"x", x}}, threads), fast = runOn(build(c), "fast", {{"x", x}}, threads);
  ASSERT_EQ(ref.status.code(), fast.status.code())
      << what << ": " << ref.status.toString() << " / " << fast.status.toString();
  EXPECT_EQ(ref.status.isOk(), expectOk) << what << ": " << ref.status.toString();
  if (ref.status.isOk()) { EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what; }
  ASSERT_FALSE(fast.stats.steps.empty());
  const std::string& impl = fast.stats.steps[0].impl;
  // The path under test is a fast int8 convolution with the epilogue fused (oneDNN + our epilogue, or the VNNI 1x1
  // kernel); below VNNI the level has no int8 convolution kernel and the reference computed the result.
  if (!oneDnnInt8Exact()) GTEST_SKIP() << noOneDnnKernelReason(DType::I8);
  EXPECT_FALSE(fast.stats.steps[0].fallback) << what << ": " << impl;
  EXPECT_EQ(fast.stats.steps.size(), 1u) << what << ": the epilogue was not fused";
}

ConvCase randomCase(std::mt19937& rng, int trial) {
  ConvCase c;
  c.N = uniform(rng, 1, 2);
  c.K = trial % 3 == 0 ? 3 : 1;
  c.pad = c.K == 3 ? 1 : 0;
  c.H = uniform(rng, 1, 14), c.W = uniform(rng, 1, 20);
  c.IC = uniform(rng, 1, 40);
  c.OC = trial % 4 == 0 ? 16 * uniform(rng, 1, 3) : uniform(rng, 1, 70);
  c.inputZp = trial % 2 ? uniform(rng, -128, 127) : 0;
  c.w = randomInts(DType::I8, {c.OC, c.K, c.K, c.IC}, rng, -128, 127);
  c.bias = randomInts(DType::I32, {trial % 5 == 3 ? 1 : c.OC}, rng, -400000, 400000);
  c.rescale = trial % 7 != 6;
  const DType outs[] = {DType::I8, DType::I8, DType::I16, DType::I32};
  c.outT = outs[trial % 4];
  c.clamp = c.rescale && c.outT != DType::I32 && trial % 3 != 1;
  c.ra.perChannel = trial % 5 != 1;
  c.ra.roundingMode = trial % 2 ? "SINGLE_ROUND" : "DOUBLE_ROUND";
  // Shifts as a quantizer writes them (32..45), and 28..31 where apply_scale_32's range is checked per value
  // (|acc| <= 9 * 40 * 255 * 128 + 400000 < 2^27: inside it).
  for (int64_t ch = 0; ch < (c.ra.perChannel ? c.OC : 1); ++ch) {
    c.ra.multiplier.push_back(uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
    c.ra.shift.push_back(trial % 6 == 2 ? uniform(rng, 28, 31) : uniform(rng, 32, 45));
  }
  c.ra.outputZp = c.outT == DType::I8 ? uniform(rng, -40, 40) : 0;
  return c;
}

class IntEpiloguePaths : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { fast::dnn::setIntEpilogueGenericForTesting(GetParam()); }
  void TearDown() override { fast::dnn::setIntEpilogueGenericForTesting(false); }
};

TEST_P(IntEpiloguePaths, RandomConvChainsAreBitIdenticalToReference) {
  std::mt19937 rng(GetParam() ? 5101 : 5100);
  for (int trial = 0; trial < 60; ++trial) {
    ConvCase c = randomCase(rng, trial);
    Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.IC}, rng, -128, 127);
    expectSame(c, x, 1 + trial % 2, "trial " + std::to_string(trial));
  }
}

// Many rows (several 64-row chunks split over the threads, a partial last one) and a channel tail.
TEST_P(IntEpiloguePaths, LargeConvsAreBitIdenticalToReference) {
  std::mt19937 rng(GetParam() ? 6101 : 6100);
  for (int trial = 0; trial < 3; ++trial) {
    ConvCase c;
    c.N = 1, c.H = 23 + trial, c.W = 37, c.IC = 24, c.OC = 40 + 13 * trial, c.K = trial == 1 ? 3 : 1;
    c.pad = c.K == 3 ? 1 : 0;
    c.inputZp = trial == 1 ? -128 : 0;
    c.w = randomInts(DType::I8, {c.OC, c.K, c.K, c.IC}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.OC}, rng, -100000, 100000);
    c.clamp = true, c.clampLo = -128, c.clampHi = 127;
    c.ra.perChannel = true;
    c.ra.roundingMode = trial == 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    for (int64_t ch = 0; ch < c.OC; ++ch) {
      c.ra.multiplier.push_back(uniform(rng, int64_t(1) << 30, (int64_t(1) << 31) - 1));
      c.ra.shift.push_back(uniform(rng, 36, 42));
    }
    c.ra.outputZp = -128;
    Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.IC}, rng, -128, 127);
    for (int threads : {1, 2}) expectSame(c, x, threads, "large trial " + std::to_string(trial));
  }
}

// REQUIREs: acc + bias overflowing i32; apply_scale_32's value range with shift 20 (|value| < 2^19). Hand
// calculation: every input and weight 127, 1x1 kernel over 64 channels: acc = 64 * 127 * 127 = 1032256.
TEST_P(IntEpiloguePaths, RequireCasesGiveTheReferenceVerdict) {
  ConvCase c;
  c.H = c.W = 3, c.IC = 64, c.OC = 8;
  c.w = Tensor::fromInts(DType::I8, {8, 1, 1, 64}, std::vector<int64_t>(8 * 64, 127));
  Tensor x = Tensor::fromInts(DType::I8, {1, 3, 3, 64}, std::vector<int64_t>(9 * 64, 127));
  c.ra.multiplier = {int64_t(1) << 30}, c.ra.shift = {20};
  c.bias = Tensor::fromInts(DType::I32, {1}, {int64_t(2147483647) - 1000000});  // acc + bias > 2^31 - 1
  expectSame(c, x, 1, "bias overflow", false);
  c.bias = Tensor::fromInts(DType::I32, {1}, {0});  // 1032256 >= 2^19: outside apply_scale_32's range
  expectSame(c, x, 1, "scale range", false);
  c.bias = Tensor::fromInts(DType::I32, {1}, {-1000000});  // 32256: inside
  expectSame(c, x, 1, "scale range ok");
  c.ra.shift = {22};  // 2^21 = 2097152 > 1032256: inside with bias 0 too
  c.bias = Tensor::fromInts(DType::I32, {1}, {0});
  expectSame(c, x, 1, "shift 22");
}

INSTANTIATE_TEST_SUITE_P(FastIntEpilogue, IntEpiloguePaths, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Generic" : "Native"; });

}  // namespace
}  // namespace tosakit::testing
