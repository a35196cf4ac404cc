// The blocked int8 1x1 convolution (src/fast/kernels/int8/pointwise.cpp: oneDNN matmuls over blocks of rows,
// the exact epilogue per block) through the Session as users run it, vs the reference backend: random layers
// large enough to be taken (s32 result >= 512 KB; several blocks and a partial last one), input zero points
// folded into the bias, per-channel / per-tensor rescales, single / double rounding, i8/i16/i32 results,
// clamps, 1 and 2 threads, both epilogue passes, fixed seeds: bit-identical. Weights that could bring an
// accumulator near f32's 2^24 are left to the convolution kernel (identical too); an acc + bias overflow gives
// the reference's verdict.
#include <gtest/gtest.h>

#include <random>

#include "fast/kernels/int8/int8.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "isa_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

struct PwCase {
  int64_t N = 1, H = 40, W = 40, IC = 16, OC = 96, inputZp = 0;
  Tensor w, bias;
  bool rescale = true, clamp = false;
  DType outT = DType::I8;
  ir::RescaleAttrs ra;
};

std::unique_ptr<ir::Module> build(const PwCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Conv2dAttrs a;
  a.inputZp = c.inputZp;
  ir::Value* y = b.conv2d(b.input(ValueType::tensor(DType::I8, {c.N, c.H, c.W, c.IC}), "x"), b.constant(c.w),
                          b.constant(c.bias), a);
  if (c.rescale) y = b.rescale(y, c.outT, c.ra);
  if (c.clamp) y = b.clamp(y, -128, 100);
  b.output({y}, {"y"});
  return m;
}

// The outcome on both backends; returns the fast step's implementation.
std::string expectSame(const PwCase& c, const Tensor& x, int threads, const std::string& what, bool expectOk = true) {
  RunOutcome ref = runOn(build(c), "ref", {{"x", x}}, threads), fast = runOn(build(c), "fast", {{"x", x}}, threads);
  EXPECT_EQ(ref.status.code(), fast.status.code())
      << what << ": " << ref.status.toString() << " / " << fast.status.toString();
  EXPECT_EQ(ref.status.isOk(), expectOk) << what << ": " << ref.status.toString();
  if (ref.status.isOk() && fast.status.isOk()) {
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what;
  }
  if (fast.stats.steps.empty()) return "";
  if (fast.stats.steps[0].impl.rfind("fast:pointwise_int8", 0) == 0) {
    EXPECT_EQ(fast.stats.steps.size(), 1u) << what << ": the epilogue was not fused";
  }
  return fast.stats.steps[0].impl;
}

// An int8 kernel of oneDNN at this level (VNNI): without, the AVX2 kernel (kernels_int8_conv_avx2_test.cpp) or
// the reference kernel runs every conv.
bool int8Kernels(const std::string& impl) { return oneDnnInt8Exact() && impl.rfind("ref", 0) != 0 && !impl.empty(); }

class PointwisePaths : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { fast::dnn::setIntEpilogueGenericForTesting(GetParam()); }
  void TearDown() override { fast::dnn::setIntEpilogueGenericForTesting(false); }
};

TEST_P(PointwisePaths, RandomLayersAreBitIdenticalToReference) {
  std::mt19937 rng(GetParam() ? 7301 : 7300);
  for (int trial = 0; trial < 10; ++trial) {
    PwCase c;
    c.N = 1 + trial % 2;
    c.H = uniform(rng, 40, 50), c.W = uniform(rng, 40, 56);  // with OC >= 96: s32 >= 600 KB, taken
    c.IC = uniform(rng, 3, 64);
    c.OC = trial % 3 == 0 ? 96 : uniform(rng, 97, 200);  // multiples of 16 and channel tails
    c.inputZp = trial % 2 ? uniform(rng, -128, 127) : 0;
    c.w = randomInts(DType::I8, {c.OC, 1, 1, c.IC}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {trial % 4 == 3 ? 1 : c.OC}, rng, -300000, 300000);
    c.rescale = trial % 5 != 4;
    const DType outs[] = {DType::I8, DType::I16, DType::I8, DType::I32};
    c.outT = outs[trial % 4];
    c.clamp = c.rescale && c.outT == DType::I8 && trial % 3 != 2;
    c.ra.perChannel = trial % 3 != 1;
    c.ra.roundingMode = trial % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    for (int64_t ch = 0; ch < (c.ra.perChannel ? c.OC : 1); ++ch) {
      c.ra.multiplier.push_back(uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
      c.ra.shift.push_back(uniform(rng, 34, 44));
    }
    c.ra.outputZp = c.outT == DType::I8 ? uniform(rng, -30, 30) : 0;
    Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.IC}, rng, -128, 127);
    const std::string impl = expectSame(c, x, 1 + trial % 2, "trial " + std::to_string(trial));
    if (int8Kernels(impl)) { EXPECT_EQ(impl.rfind("fast:pointwise_int8", 0), 0u) << "trial " << trial << ": " << impl; }
  }
}

INSTANTIATE_TEST_SUITE_P(FastInt8Pointwise, PointwisePaths, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Generic" : "Native"; });

// Hand calculation: IC = 512 weights of 127: 128 * (sum |w| + |sum w|) = 128 * 2 * 65024 >= 2^23, so an
// accumulator could reach f32's inexact range: the layer stays on the convolution kernel (which recomputes
// large accumulators); inputs of 127 give acc = 512 * 127 * 127 = 8258048 everywhere, identical on both.
TEST(FastInt8Pointwise, LargeWeightsAreLeftToTheConvolution) {
  PwCase c;
  c.H = c.W = 24, c.IC = 512, c.OC = 256;
  c.w = Tensor::fromInts(DType::I8, {256, 1, 1, 512}, std::vector<int64_t>(256 * 512, 127));
  c.bias = Tensor::fromInts(DType::I32, {1}, {0});
  c.rescale = false;
  Tensor x = Tensor::fromInts(DType::I8, {1, 24, 24, 512}, std::vector<int64_t>(24 * 24 * 512, 127));
  const std::string impl = expectSame(c, x, 1, "large weights");
  EXPECT_NE(impl.rfind("fast:pointwise_int8", 0), 0u) << impl;
}

// acc + bias overflowing i32: 64 inputs and weights of 127 give 64 * 127 * 127 = 1032256 at every position;
// a bias of 2^31 - 1000000 takes the sum past 2^31 - 1. The same with input_zp -1: (127 + 1) * 127 * 64.
TEST(FastInt8Pointwise, BiasOverflowGivesTheReferenceVerdict) {
  for (int64_t zp : {0, -1}) {
    PwCase c;
    c.H = c.W = 48, c.IC = 64, c.OC = 64, c.inputZp = zp;
    c.w = Tensor::fromInts(DType::I8, {64, 1, 1, 64}, std::vector<int64_t>(64 * 64, 127));
    c.bias = Tensor::fromInts(DType::I32, {1}, {int64_t(2147483647) - 1000000});
    c.rescale = false;
    Tensor x = Tensor::fromInts(DType::I8, {1, 48, 48, 64}, std::vector<int64_t>(48 * 48 * 64, 127));
    expectSame(c, x, 2, "bias overflow zp " + std::to_string(zp), false);
  }
}

// Our own VNNI micro-kernel (src/fast/kernels/int8/pointwise_vnni.cpp) for int8 1x1 conv -> rescale [-> clamp]
// -> i8 of any size: small and odd shapes (input channels not a multiple of 4: the partial last group; output
// channels not a multiple of 16: masked stores; pixel counts not a multiple of the 8-pixel block), input zero
// points folded into the bias (-128: the unsigned grid of a ReLU's output), per-channel / per-tensor and single /
// double rounding rescales, shifts <= 31 (the per-value range check), clamps, 1 and 2 threads (few pixels: the
// channels are split) — bit-identical to the reference, and the kernel was the one that ran.
bool hasVnni() { return levelHas(fast::cpu::Isa::Avx512Vnni); }

TEST(FastInt8PointwiseVnni, RandomLayersAreBitIdenticalToReference) {
  std::mt19937 rng(7310);
  const int64_t ics[] = {1, 2, 3, 5, 16, 17, 24, 64, 96, 160};
  const int64_t ocs[] = {1, 8, 16, 24, 40, 96, 100, 160};
  for (int trial = 0; trial < 40; ++trial) {
    PwCase c;
    c.N = 1 + trial % 2;
    c.H = uniform(rng, 1, 20), c.W = uniform(rng, 1, 20);
    c.IC = ics[trial % 10], c.OC = ocs[(trial * 7 + trial / 10) % 8];
    const int64_t zps[] = {0, -128, uniform(rng, -128, 127)};
    c.inputZp = zps[trial % 3];
    c.w = randomInts(DType::I8, {c.OC, 1, 1, c.IC}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {trial % 4 == 3 ? 1 : c.OC}, rng, -300000, 300000);
    c.clamp = trial % 3 != 2;
    c.ra.perChannel = trial % 4 != 1;
    c.ra.roundingMode = trial % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    // Shifts 34..44 (every i32 in apply_scale_32's range), or 24..31 with multipliers small enough that the
    // rescaled values stay in i8's neighbourhood: the per-value range check runs and passes.
    const bool smallShift = trial % 5 == 4;
    for (int64_t ch = 0; ch < (c.ra.perChannel ? c.OC : 1); ++ch) {
      c.ra.multiplier.push_back(smallShift ? uniform(rng, 1, 1 << 12)
                                           : uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
      c.ra.shift.push_back(smallShift ? uniform(rng, 28, 31) : uniform(rng, 34, 44));
    }
    c.ra.outputZp = uniform(rng, -30, 30);
    Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.IC}, rng, -128, 127);
    const std::string what = "trial " + std::to_string(trial) + " IC " + std::to_string(c.IC) + " OC " +
        std::to_string(c.OC) + " " + std::to_string(c.H) + "x" + std::to_string(c.W);
    const std::string impl = expectSame(c, x, 1 + trial % 2, what);
    if (hasVnni()) { EXPECT_EQ(impl, "fast:pointwise_int8_vnni") << what; }
  }
}

// The split of a layer over 2 threads: pixel counts of mobilenet's 7x7, 14x14 and 28x28 layers and odd ones
// around the chunking bounds (chunks evened out per thread; channel shares round robin when the pixels are few),
// large enough to run in parallel — bit-identical to the reference.
TEST(FastInt8PointwiseVnni, WorkSplitsOverTwoThreadsAreBitIdentical) {
  std::mt19937 rng(7311);
  const int64_t pixels[][2] = {{7, 7}, {14, 14}, {28, 28}, {1, 449}, {13, 77}, {3, 170}};
  for (int trial = 0; trial < 12; ++trial) {
    PwCase c;
    c.H = pixels[trial % 6][0], c.W = pixels[trial % 6][1];
    c.IC = 64, c.OC = trial % 2 ? 96 : 200;
    c.inputZp = -128;
    c.w = randomInts(DType::I8, {c.OC, 1, 1, c.IC}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.OC}, rng, -300000, 300000);
    c.clamp = true;
    c.ra.perChannel = true;
    for (int64_t ch = 0; ch < c.OC; ++ch) {
      c.ra.multiplier.push_back(uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
      c.ra.shift.push_back(uniform(rng, 34, 40));
    }
    Tensor x = randomInts(DType::I8, {1, c.H, c.W, c.IC}, rng, -128, 127);
    const std::string what = "trial " + std::to_string(trial) + " " + std::to_string(c.H) + "x" + std::to_string(c.W) +
        " OC " + std::to_string(c.OC);
    const std::string impl = expectSame(c, x, 2, what);
    if (hasVnni()) { EXPECT_EQ(impl, "fast:pointwise_int8_vnni") << what; }
  }
}

// The REQUIREs inside the fused epilogue give the reference's verdict (the step reruns on the reference
// kernels). Inputs and weights of 127 over 64 channels: acc = 64 * 127 * 127 = 1032256 everywhere.
// (a) a bias of 2^31 - 1000000 takes acc + bias past 2^31 - 1; (b) shift 20: apply_scale_32 requires the value
// in [-2^19, 2^19) = [-524288, 524288), and 1032256 is outside.
TEST(FastInt8PointwiseVnni, EpilogueRequiresGiveTheReferenceVerdict) {
  for (int which : {0, 1}) {
    PwCase c;
    c.H = 3, c.W = 5, c.IC = 64, c.OC = 20;
    c.w = Tensor::fromInts(DType::I8, {20, 1, 1, 64}, std::vector<int64_t>(20 * 64, 127));
    c.bias = Tensor::fromInts(DType::I32, {1}, {which == 0 ? int64_t(2147483647) - 1000000 : 0});
    c.ra.multiplier = {1 << 30};
    c.ra.shift = {which == 0 ? 40 : 20};
    Tensor x = Tensor::fromInts(DType::I8, {1, 3, 5, 64}, std::vector<int64_t>(3 * 5 * 64, 127));
    const std::string impl = expectSame(c, x, 1, which == 0 ? "bias overflow" : "scale range", false);
    if (hasVnni()) { EXPECT_EQ(impl, "fast:pointwise_int8_vnni"); }
  }
}

// tosa.matmul [1, H, C] x constant [1, C, W] -> rescale [-> clamp] -> i8 on the same kernel (the classifier's
// fully connected layer: H = 1; PP-OCR rec's projections: H = 40): A's zero point folded, random sizes,
// bit-identical to the reference, and the kernel was the one that ran. B's zero point other than 0: declined.
TEST(FastInt8PointwiseVnni, MatmulByConstantIsBitIdenticalToReference) {
  std::mt19937 rng(7320);
  const int64_t hs[] = {1, 1, 3, 40, 9}, cs[] = {1280, 7, 120, 120, 33}, ws[] = {1000, 5, 360, 6625, 17};
  for (int trial = 0; trial < 6; ++trial) {
    const int64_t H = hs[trial % 5], C = cs[trial % 5], W = ws[trial % 5];
    const int64_t aZp = trial % 2 ? -128 : uniform(rng, -128, 127), bZp = trial == 5 ? 3 : 0;
    ir::RescaleAttrs ra;
    ra.perChannel = trial % 3 != 2;
    ra.roundingMode = trial % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    for (int64_t ch = 0; ch < (ra.perChannel ? W : 1); ++ch) {
      ra.multiplier.push_back(uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
      ra.shift.push_back(uniform(rng, 36, 44));
    }
    ra.outputZp = uniform(rng, -20, 20);
    const Tensor bw = randomInts(DType::I8, {1, C, W}, rng, -128, 127);
    auto build = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      ir::Value* x = b.input(ValueType::tensor(DType::I8, {1, H, C}), "x");
      ir::Value* y = b.op1("tosa.matmul",
                           {x, b.constant(bw), b.constant(Tensor::fromInts(DType::I8, {1}, {aZp})),
                            b.constant(Tensor::fromInts(DType::I8, {1}, {bZp}))},
                           ValueType::tensor(DType::I32, {1, H, W}));
      y = b.rescale(y, DType::I8, ra);
      if (trial % 2) y = b.clamp(y, -100, 127);
      b.output({y}, {"y"});
      return m;
    };
    const Tensor x = randomInts(DType::I8, {1, H, C}, rng, -128, 127);
    RunOutcome ref = runOn(build(), "ref", {{"x", x}}, 1);
    ASSERT_TRUE(ref.status.isOk()) << "trial " << trial << ": " << ref.status.toString();
    // The classifier (trial 0: 1.3 MB of weights, 2.6M operations) on one thread and split by channels over two.
    const std::vector<int> threadCounts = trial == 0 ? std::vector<int>{1, 2} : std::vector<int>{1 + trial % 2};
    for (const int threads : threadCounts) {
      const std::string what = "trial " + std::to_string(trial) + " threads " + std::to_string(threads);
      RunOutcome fast = runOn(build(), "fast", {{"x", x}}, threads);
      ASSERT_TRUE(fast.status.isOk()) << what << ": " << fast.status.toString();
      EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what;
      if (hasVnni()) {
        ASSERT_FALSE(fast.stats.steps.empty());
        if (bZp == 0) {
          EXPECT_EQ(fast.stats.steps[0].impl, "fast:matmul_int8_vnni") << what;
        } else {
          EXPECT_NE(fast.stats.steps[0].impl, "fast:matmul_int8_vnni") << what;
        }
      }
    }
  }
}

}  // namespace
}  // namespace tosakit::testing
