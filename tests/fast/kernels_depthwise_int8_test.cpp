// The int8 depthwise kernel (src/fast/kernels/int8/depthwise.cpp: exact fp32 tap sums, the integer epilogue in
// registers on AVX-512; on AVX2 without VNNI its 8-lane form with the shared epilogue pass) through the Session as users run it, vs the reference backend: random layers (3x3, 5x5, 1x7, 7x1,
// strides 1-3, dilations 1-2, any padding, channel counts with and without a 16-lane tail, N > 1, input and
// weight zero points, per-channel / per-tensor scale32 and scale16 rescales, single / double rounding, i8/i16/
// i32 results, clamps, 1 and 2 threads, fixed seeds): bit-identical, and the layer was taken by the kernel with
// its epilogue fused (it cannot pass by falling back). The REQUIREs (acc + bias overflowing i32, a value
// outside apply_scale_32's range) give the reference's verdict; a kernel whose sums could leave fp32's exact
// integers is declined.
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

constexpr const char* kImpl = "fast:depthwise_int8";

struct DwCase {
  int64_t N = 1, IH = 8, IW = 8, C = 16, KH = 3, KW = 3, OH = 8, OW = 8;
  std::vector<int64_t> pad{1, 1, 1, 1}, stride{1, 1}, dilation{1, 1};
  int64_t inputZp = 0, weightZp = 0;
  Tensor w, bias;
  bool rescale = true, clamp = false;
  int64_t clampLo = -128, clampHi = 127;
  DType outT = DType::I8;
  ir::RescaleAttrs ra;
  std::string describe() const {
    return "N" + std::to_string(N) + " " + std::to_string(IH) + "x" + std::to_string(IW) + "x" + std::to_string(C) +
        " k" + std::to_string(KH) + "x" + std::to_string(KW) + " s" + std::to_string(stride[0]) + "," +
        std::to_string(stride[1]) + " d" + std::to_string(dilation[0]) + "," + std::to_string(dilation[1]) + " pad " +
        std::to_string(pad[0]) + std::to_string(pad[1]) + std::to_string(pad[2]) + std::to_string(pad[3]) + " zp " +
        std::to_string(inputZp) + "/" + std::to_string(weightZp);
  }
};

std::unique_ptr<ir::Module> build(const DwCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::I8, {c.N, c.IH, c.IW, c.C}), "x");
  ir::Value* y = b.op1("tosa.depthwise_conv2d",
                       {x, b.constant(c.w), b.constant(c.bias), b.scalar1(DType::I8, double(c.inputZp)),
                        b.scalar1(DType::I8, double(c.weightZp))},
                       ValueType::tensor(DType::I32, {c.N, c.OH, c.OW, c.C}),
                       {{"acc_type", Attribute::type(DType::I32)},
                        {"pad", Attribute::intArray(c.pad)},
                        {"stride", Attribute::intArray(c.stride)},
                        {"dilation", Attribute::intArray(c.dilation)}});
  if (c.rescale) y = b.rescale(y, c.outT, c.ra);
  if (c.clamp) y = b.clamp(y, double(c.clampLo), double(c.clampHi));
  b.output({y}, {"y"});
  return m;
}

// The input size that gives OH/OW exactly (the spec's ERROR_IF: (IH - 1 + pads - (KH - 1) * d) % stride == 0).
void fitInput(DwCase& c) {
  c.IH = (c.OH - 1) * c.stride[0] + (c.KH - 1) * c.dilation[0] + 1 - c.pad[0] - c.pad[1];
  c.IW = (c.OW - 1) * c.stride[1] + (c.KW - 1) * c.dilation[1] + 1 - c.pad[2] - c.pad[3];
}

// A 3x3 layer of C channels and OH x OW outputs whose weights are all `weight` and whose bias is one value, and
// its input of all `value`: the hand-calculated REQUIRE cases below.
DwCase uniformLayer(int64_t C, int64_t OH, int64_t OW, int64_t weight, int64_t bias) {
  DwCase c;
  c.C = C, c.OH = OH, c.OW = OW;
  fitInput(c);
  c.w = Tensor::fromInts(DType::I8, {3, 3, C, 1}, std::vector<int64_t>(size_t(9 * C), weight));
  c.bias = Tensor::fromInts(DType::I32, {1}, {bias});
  return c;
}
Tensor uniformInput(const DwCase& c, int64_t value) {
  return Tensor::fromInts(DType::I8, {1, c.IH, c.IW, c.C}, std::vector<int64_t>(size_t(c.IH * c.IW * c.C), value));
}

struct Outcome {
  std::string impl;
  size_t steps = 0;
  Tensor ref, fast;
};

// Both backends on x; the statuses must agree (expectOk: the reference's). Returns the fast plan's first step.
Outcome expectSame(const DwCase& c, const Tensor& x, int threads, const std::string& what, bool expectOk = true) {
  RunOutcome ref = runOn(build(c), "ref", {{"x", x}}, threads), fast = runOn(build(c), "fast", {{"x", x}}, threads);
  EXPECT_EQ(ref.status.code(), fast.status.code())
      << what << ": " << ref.status.toString() << " / " << fast.status.toString();
  EXPECT_EQ(ref.status.isOk(), expectOk) << what << ": " << ref.status.toString();
  Outcome o;
  if (ref.status.isOk() && fast.status.isOk()) {
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what;
    o.ref = ref.outputs[0].second, o.fast = fast.outputs[0].second;
  }
  o.steps = fast.stats.steps.size();
  if (o.steps) o.impl = fast.stats.steps[0].impl;
  return o;
}

// The kernel needs AVX-512 (F/BW/DQ/VL); elsewhere oneDNN or the reference computes the layer.
bool avx512() { return levelHas(fast::cpu::Isa::Avx512); }
// Its AVX2 form (the same file) runs where the level has AVX2 and no VNNI (with VNNI oneDNN's exact int8 comes
// first), and at the AVX-512 levels the layers the AVX-512 form declines.
constexpr const char* kImplAvx2 = "fast:depthwise_int8_avx2";
bool avx2Int8() { return levelHas(fast::cpu::Isa::Avx2) && !oneDnnInt8Exact(); }

// Below AVX2 the generic form (i32 sums, compiler-vectorized) takes every layer.
bool baselineLevel() { return !levelHas(fast::cpu::Isa::Avx2); }
const std::string kImplGeneric = "fast:depthwise_int8_generic:baseline";

// The kernel runs the layer where the level allows it (and only there: kernel_list.cpp).
void expectTaken(const Outcome& o, const std::string& what) {
  if (!avx512() && oneDnnInt8Partial()) {  // oneDNN's avx2_vnni kernel or, for the forms it declines, ours
    EXPECT_TRUE(o.impl == kImplAvx2 || o.impl.rfind("onednn:", 0) == 0) << what << ": " << o.impl;
    EXPECT_EQ(o.steps, 1u) << what << ": the epilogue was not fused";
    return;
  }
  const char* want = avx512() ? kImpl : avx2Int8() ? kImplAvx2 : baselineLevel() ? kImplGeneric.c_str() : nullptr;
  if (!want) {
    EXPECT_NE(o.impl, kImpl) << what;
    EXPECT_NE(o.impl, kImplAvx2) << what;
    return;
  }
  EXPECT_EQ(o.impl, want) << what;
  EXPECT_EQ(o.steps, 1u) << what << ": the epilogue was not fused";
}

DwCase randomCase(std::mt19937& rng, int trial) {
  DwCase c;
  const int64_t kernels[][2] = {{3, 3}, {5, 5}, {1, 7}, {7, 1}, {3, 3}, {2, 3}};
  c.KH = kernels[trial % 6][0], c.KW = kernels[trial % 6][1];
  c.N = trial % 4 == 3 ? 2 : 1;
  c.C = trial % 3 == 0 ? 16 * uniform(rng, 1, 3) : uniform(rng, 1, 70);  // whole vectors and 16-lane tails
  c.stride = {uniform(rng, 1, 3), uniform(rng, 1, 3)};
  c.dilation = {uniform(rng, 1, 2), uniform(rng, 1, 2)};
  c.pad = {uniform(rng, 0, c.KH - 1), uniform(rng, 0, c.KH - 1), uniform(rng, 0, c.KW - 1), uniform(rng, 0, c.KW - 1)};
  c.OH = uniform(rng, 1, 14), c.OW = uniform(rng, 1, 21);  // blocks of 8, 4 and single pixels
  fitInput(c);
  while (c.IH < 1) ++c.OH, fitInput(c);
  while (c.IW < 1) ++c.OW, fitInput(c);
  c.inputZp = trial % 2 ? uniform(rng, -128, 127) : -128;
  c.weightZp = trial % 3 == 1 ? uniform(rng, -128, 127) : 0;
  c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
  c.bias = randomInts(DType::I32, {trial % 5 == 4 ? 1 : c.C}, rng, -2000000, 2000000);
  return c;
}

// A random rescale: scale32 (shifts 34..44, multipliers up to 2^31 - 1) or scale16 (shifts 16..30).
void randomRescale(DwCase& c, std::mt19937& rng, int trial) {
  c.rescale = true;
  const DType outs[] = {DType::I8, DType::I16, DType::I8, DType::I32};
  c.outT = outs[trial % 4];
  c.ra = ir::RescaleAttrs{};
  c.ra.scale32 = trial % 5 != 2;
  c.ra.perChannel = trial % 3 != 1;
  c.ra.roundingMode = c.ra.scale32 && trial % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
  for (int64_t ch = 0; ch < (c.ra.perChannel ? c.C : 1); ++ch) {
    if (c.ra.scale32) {
      c.ra.multiplier.push_back(uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
      c.ra.shift.push_back(uniform(rng, 34, 44));
    } else {
      c.ra.multiplier.push_back(uniform(rng, 1, 32767));
      c.ra.shift.push_back(uniform(rng, 16, 30));
    }
  }
  c.ra.outputZp = c.outT == DType::I8 ? uniform(rng, -30, 30) : 0;
  c.clamp = c.outT == DType::I8 && trial % 3 != 2;
  c.clampLo = c.ra.outputZp, c.clampHi = 100;  // relu6-style: the zero point up
}

// Strided layers stay on oneDNN by default (as fast there); these tests let the kernel take them too, so its
// strided paths are checked as well.
class FastInt8Depthwise : public ::testing::Test {
 protected:
  void SetUp() override { fast::setDepthwiseInt8StridedForTesting(true); }
  void TearDown() override { fast::setDepthwiseInt8StridedForTesting(false); }
};

TEST_F(FastInt8Depthwise, RandomLayersAreBitIdenticalToReference) {
  std::mt19937 rng(8100);
  for (int trial = 0; trial < 36; ++trial) {
    DwCase c = randomCase(rng, trial);
    randomRescale(c, rng, trial);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    const std::string what = "trial " + std::to_string(trial) + " " + c.describe();
    expectTaken(expectSame(c, x, 1 + trial % 2, what), what);
  }
}

// Larger layers: several output rows per thread (the ring of converted rows wraps), both thread counts.
TEST_F(FastInt8Depthwise, LargeLayersOverThreads) {
  std::mt19937 rng(8101);
  for (int trial = 0; trial < 6; ++trial) {
    DwCase c = randomCase(rng, trial);
    c.OH = uniform(rng, 24, 40), c.OW = uniform(rng, 24, 40);
    c.C = trial % 2 ? 96 : 40;
    fitInput(c);
    c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.C}, rng, -2000000, 2000000);
    randomRescale(c, rng, trial);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    for (int threads : {1, 2}) {
      const std::string what =
          "trial " + std::to_string(trial) + " threads " + std::to_string(threads) + " " + c.describe();
      expectTaken(expectSame(c, x, threads, what), what);
    }
  }
}

// Layers with 1-3 output rows over 2 threads (PP-OCR cls's 5x5 layers: 2-3 rows of 96 pixels) are split by
// channels, each thread converting and computing only its own vectors of 16 channels (the kernel's split(): fewer
// than 8 output rows per thread and at least one vector per thread); with a single vector (C <= 16) they stay
// in bands of rows. Channel counts with and without a 16-lane tail, an odd number of vectors (the bands differ by
// one vector), stride 1 (the unrolled unit-step taps) and strided/dilated layers, N = 1 and 2. Each layer has
// at least 4e5 operations (the kernel's parallel threshold) so the 2-thread run does split.
TEST_F(FastInt8Depthwise, FewRowsSplitByChannelsAreBitIdentical) {
  std::mt19937 rng(8106);
  const int64_t channels[] = {88, 200, 40, 13, 64, 104, 33, 16};
  for (int trial = 0; trial < 16; ++trial) {
    DwCase c;
    c.KH = c.KW = trial % 4 == 3 ? 3 : 5;
    c.C = channels[trial % 8];
    c.N = trial % 5 == 4 ? 2 : 1;
    c.OH = 1 + trial % 3;  // 1-3 rows, at least 96 pixels wide, wider when the layer is small; blocks of 8 and 4
                           // and single pixels
    c.OW = std::max<int64_t>(96, 400000 / (2 * c.N * c.OH * c.C * c.KH * c.KW) + 1) + trial % 7;
    const bool strided = trial % 6 == 5;
    c.stride = {strided ? 2 : 1, strided ? 2 : 1};
    c.dilation = {trial % 8 == 6 ? 2 : 1, trial % 8 == 6 ? 2 : 1};
    const int64_t ph = c.KH / 2 * c.dilation[0], pw = c.KW / 2 * c.dilation[1];
    c.pad = {ph, ph, pw, pw};
    fitInput(c);
    if (c.IH < 1) c.pad = {0, 0, pw, pw}, fitInput(c);
    c.inputZp = trial % 2 ? uniform(rng, -128, 127) : -128;
    c.weightZp = trial % 3 == 1 ? uniform(rng, -128, 127) : 0;
    c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.C}, rng, -2000000, 2000000);
    randomRescale(c, rng, trial);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    ASSERT_GE(2 * c.N * c.OH * c.OW * c.C * c.KH * c.KW, 400000) << c.describe();
    for (int threads : {2, 1}) {
      const std::string what =
          "trial " + std::to_string(trial) + " threads " + std::to_string(threads) + " " + c.describe();
      expectTaken(expectSame(c, x, threads, what), what);
    }
  }
}

// Stride and dilation 1 along x with 3x3 and 5x5 kernels (the taps reusing each loaded input vector): rows of
// 1-17 pixels give every remainder after the blocks of 8 (a block of 4, then 1-3 pixels as one block with 4 or
// 2 channel vectors side by side), channel counts make whole groups, a lone last vector and a 16-lane tail; a
// dilation or stride along y changes nothing along x. 12 output rows over 2 threads split by channels when the
// layer reaches the parallel threshold (4e5 operations: at least 8 of the layers here), so a group of vectors
// must stop at the other thread's channels.
TEST_F(FastInt8Depthwise, UnitStepRowsOfEveryWidthAreBitIdentical) {
  std::mt19937 rng(8107);
  const int64_t channels[] = {13, 40, 88, 200, 100};
  int parallel = 0;
  for (int trial = 0; trial < 34; ++trial) {
    DwCase c;
    c.KH = c.KW = trial % 2 ? 5 : 3;
    c.OW = 1 + trial / 2, c.OH = 12;
    c.C = channels[trial % 5];
    c.stride = {trial % 7 == 3 ? 2 : 1, 1};
    c.dilation = {trial % 9 == 4 ? 2 : 1, 1};
    const int64_t ph = c.KH / 2 * c.dilation[0], pw = c.KW / 2;
    c.pad = {ph, trial % 3 == 0 ? 0 : ph, pw, trial % 4 == 1 ? 0 : pw};
    fitInput(c);
    while (c.IH < 1) ++c.OH, fitInput(c);
    while (c.IW < 1) ++c.OW, fitInput(c);
    c.inputZp = uniform(rng, -128, 127);
    c.weightZp = trial % 3 == 1 ? uniform(rng, -128, 127) : 0;
    c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.C}, rng, -2000000, 2000000);
    randomRescale(c, rng, trial);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    parallel += 2 * c.OH * c.OW * c.C * c.KH * c.KW >= 400000;
    for (int threads : {1, 2}) {
      const std::string what =
          "trial " + std::to_string(trial) + " threads " + std::to_string(threads) + " " + c.describe();
      expectTaken(expectSame(c, x, threads, what), what);
    }
  }
  EXPECT_GE(parallel, 8);
}

// The unit-step 3x3/5x5 rows through the integer epilogue (shifts 18..20, whose range the weights' bound does not
// prove: the fp64 rescale declines; inputs in [-8, 8] keep the values inside it and spread the results), i8
// results with and without a clamp: pixels stored in pairs (one pack per two pixels' 8 channels), channel counts
// with and without a tail of fewer than 8.
TEST_F(FastInt8Depthwise, UnitStepRowsThroughTheIntegerEpilogueAreBitIdentical) {
  std::mt19937 rng(8111);
  const int64_t channels[] = {8, 40, 13, 24};
  for (int trial = 0; trial < 8; ++trial) {
    DwCase c;
    c.KH = c.KW = trial % 2 ? 5 : 3;
    c.OW = 9 + trial, c.OH = 5;
    c.C = channels[trial % 4];
    const int64_t ph = c.KH / 2, pw = c.KW / 2;
    c.pad = {ph, ph, pw, pw};
    fitInput(c);
    c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
    randomRescale(c, rng, 0);  // scale32, i8, per channel, single rounding, clamp
    for (auto& sh : c.ra.shift) sh = uniform(rng, 18, 20);
    for (auto& m : c.ra.multiplier) m = uniform(rng, 1, 1 << 12);
    c.clamp = trial % 3 != 2;
    c.bias = randomInts(DType::I32, {c.C}, rng, -1000, 1000);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -8, 8);
    const std::string what = "trial " + std::to_string(trial) + " " + c.describe();
    expectTaken(expectSame(c, x, 1, what), what);
  }
}

// Epilogues without a rescale (i32 results), and rescales whose fp64 form the
// compile-time bounds cannot prove exact: biases beyond 2^24, or shifts 18..20 whose apply_scale_32 range
// [-2^(shift-1), 2^(shift-1)) the weights' bound (up to 25 * 128 * 128) does not prove but the inputs in
// [-8, 8] keep (|sum| <= 25 * 8 * 128 = 25600 < 2^17). The integer epilogue computes them: still identical.
TEST_F(FastInt8Depthwise, IntegerEpiloguePathsAreBitIdentical) {
  std::mt19937 rng(8102);
  for (int trial = 0; trial < 12; ++trial) {
    DwCase c = randomCase(rng, trial);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    if (trial % 3 == 0) {  // i32 result (CLAMP has no i32 form in TOSA 1.0)
      c.rescale = false;
    } else if (trial % 3 == 1) {  // |bias| up to 2^30: beyond fp32's exact integers
      randomRescale(c, rng, trial);
      c.bias = randomInts(DType::I32, {c.C}, rng, -(int64_t(1) << 30), int64_t(1) << 30);
    } else {
      randomRescale(c, rng, 0);  // scale32, i8, per channel, single rounding, clamp
      for (auto& s : c.ra.shift) s = uniform(rng, 18, 20);
      for (auto& m : c.ra.multiplier) m = uniform(rng, 1, 1 << 20);
      c.inputZp = 0;
      c.bias = randomInts(DType::I32, {c.C}, rng, -1000, 1000);
      x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -8, 8);
    }
    const std::string what = "trial " + std::to_string(trial) + " " + c.describe();
    expectTaken(expectSame(c, x, 1 + trial % 2, what), what);
  }
}

// Hand calculation at the exactness bound: x = -128 with input_zp 127 and w = -128 with weight_zp 127 make
// every tap (-255) * (-255) = 65025. A 15x15 kernel bounds the sum by 225 * 65025 = 14630625 < 2^24: taken, and
// an interior output (all 225 taps in bounds) is bias 7 + 14630625 = 14630632. A 17x17 kernel (289 taps,
// 18792225 >= 2^24) is declined and still computed exactly by the other kernels.
TEST_F(FastInt8Depthwise, SumsUpToTheExactLimit) {
  for (int64_t k : {15, 17}) {
    DwCase c;
    c.KH = c.KW = k, c.C = 20, c.OH = 4, c.OW = 9;
    c.pad = {1, 1, 1, 1};
    fitInput(c);
    c.inputZp = 127, c.weightZp = 127;
    c.w = Tensor::fromInts(DType::I8, {k, k, c.C, 1}, std::vector<int64_t>(size_t(k * k * c.C), -128));
    c.bias = Tensor::fromInts(DType::I32, {1}, {7});
    c.rescale = false;
    Tensor x = Tensor::fromInts(DType::I8, {1, c.IH, c.IW, c.C}, std::vector<int64_t>(size_t(c.IH * c.IW * c.C), -128));
    const Outcome o = expectSame(c, x, 1, "k" + std::to_string(k));
    if (k == 15) {
      expectTaken(o, "k15");
      ASSERT_EQ(o.fast.size(), c.OH * c.OW * c.C);
      const int64_t interior = (1 * c.OW + 1) * c.C;  // oy = 1, ox = 1: rows 0..14 and columns 0..14 of the input
      EXPECT_EQ(o.fast.getInt(interior), 14630632);
    } else {
      EXPECT_NE(o.impl, kImpl);
      EXPECT_NE(o.impl, kImplAvx2);
    }
  }
}

// acc + bias overflowing i32 (a REQUIRE of the convolution): 9 taps of 127 * 127 = 16129 with input 127 make
// 145161 at an interior pixel; a bias of 2^31 - 100000 takes it past 2^31 - 1. The reference reports the
// REQUIRE and so must the fast backend. The same layer with a bias of 2^31 - 200000 fits: identical results.
TEST_F(FastInt8Depthwise, BiasOverflowGivesTheReferenceVerdict) {
  for (int64_t margin : {100000, 200000}) {
    DwCase c = uniformLayer(24, 6, 10, 127, int64_t(2147483647) - margin);
    c.rescale = false;
    const Tensor x = uniformInput(c, 127);
    const Outcome o = expectSame(c, x, 1, "margin " + std::to_string(margin), margin == 200000);
    expectTaken(o, "margin " + std::to_string(margin));
  }
}

// apply_scale_32's REQUIRE: with shift 20 the value must be in [-2^19, 2^19). Inputs of 127 and weights of 64
// make 9 * 127 * 64 = 73152 at an interior pixel; a bias of 500000 takes it to 573152 >= 2^19 = 524288 (the
// reference's verdict), a bias of 400000 keeps every value in range (identical results).
TEST_F(FastInt8Depthwise, RescaleRangeGivesTheReferenceVerdict) {
  for (int64_t bias : {500000, 400000}) {
    DwCase c = uniformLayer(17, 5, 9, 64, bias);
    c.ra.multiplier = {1 << 20}, c.ra.shift = {20};
    const Tensor x = uniformInput(c, 127);
    c.outT = DType::I32;
    const Outcome o = expectSame(c, x, 2, "bias " + std::to_string(bias), bias == 400000);
    expectTaken(o, "bias " + std::to_string(bias));
  }
}

// Kernel rows that read only padding rows are skipped, the output row's start corrected by input_zp times
// their weight sums: PP-LCNet's 5x5 layers over 2-3 rows padded by 2 (stride 1 and stride (2, 1)), padding
// wider than the kernel (output rows reading no input row at all: the start alone, i.e. bias - input_zp *
// sum(w - weight_zp) over no taps = the bias), dilated rows, N = 2, and both thread counts. Bit-identical to
// the reference, and the skipping ran (depthwiseInt8SkippedRowsForTesting grew by at least the rows that
// must skip: every output row of these layers reads some padding row).
TEST_F(FastInt8Depthwise, PaddingRowsAreSkippedBitIdentically) {
  std::mt19937 rng(8108);
  struct Shape {
    int64_t K, IH, pad, strideY, dilation, C, N;
  };
  const Shape shapes[] = {{5, 2, 2, 1, 1, 200, 1}, {5, 3, 2, 1, 1, 88, 1}, {5, 3, 2, 2, 1, 104, 1},
                          {3, 2, 3, 1, 1, 24, 1},  {5, 3, 4, 1, 2, 40, 2}, {3, 1, 1, 2, 1, 17, 1}};
  for (size_t i = 0; i < std::size(shapes); ++i) {
    const Shape& sh = shapes[i];
    DwCase c;
    c.KH = c.KW = sh.K, c.C = sh.C, c.N = sh.N, c.IH = sh.IH, c.IW = 96;
    c.stride = {sh.strideY, 1}, c.dilation = {sh.dilation, 1};
    c.pad = {sh.pad, sh.pad, sh.K / 2, sh.K / 2};
    c.OH = (c.IH - 1 + 2 * sh.pad - (c.KH - 1) * sh.dilation) / sh.strideY + 1;
    c.OW = c.IW;
    ASSERT_EQ((c.IH - 1 + 2 * sh.pad - (c.KH - 1) * sh.dilation) % sh.strideY, 0);
    c.inputZp = uniform(rng, -128, 127);
    c.weightZp = i % 2 ? uniform(rng, -128, 127) : 0;
    c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.C}, rng, -2000000, 2000000);
    randomRescale(c, rng, int(i));
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    for (int threads : {1, 2}) {
      const std::string what =
          "shape " + std::to_string(i) + " threads " + std::to_string(threads) + " " + c.describe();
      const int64_t before = fast::depthwiseInt8SkippedRowsForTesting();
      expectTaken(expectSame(c, x, threads, what), what);
      if (avx512() || avx2Int8()) {
        EXPECT_GE(fast::depthwiseInt8SkippedRowsForTesting() - before, c.N * c.OH) << what;
      }
    }
  }
}

// The default policy: layers with stride 1 along x are taken (stride 1, and stride 2 along y only: PP-LCNet's
// downsampling of the rows), the others are left to oneDNN (each bit-identical to the reference).
TEST(FastInt8DepthwisePolicy, LayersStridedAlongXStayOnOneDnn) {
  std::mt19937 rng(8105);
  const std::vector<int64_t> strides[] = {{1, 1}, {2, 1}, {2, 2}, {1, 2}};
  for (const std::vector<int64_t>& s : strides) {
    DwCase c;
    c.C = 32, c.OH = 12, c.OW = 12, c.stride = s;
    fitInput(c);
    c.w = randomInts(DType::I8, {c.KH, c.KW, c.C, 1}, rng, -128, 127);
    c.bias = randomInts(DType::I32, {c.C}, rng, -2000000, 2000000);
    randomRescale(c, rng, 0);
    Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.C}, rng, -128, 127);
    const std::string what = "stride " + std::to_string(s[0]) + "," + std::to_string(s[1]);
    const Outcome o = expectSame(c, x, 1, what);
    if (avx512()) {
      if (s[1] == 1)
        EXPECT_EQ(o.impl, kImpl) << what;
      else
        EXPECT_NE(o.impl, kImpl) << what;
    }
    // Without VNNI oneDNN has no exact int8 depthwise: the AVX2 form takes what the AVX-512 one leaves.
    if (avx2Int8() && !(avx512() && s[1] == 1)) { EXPECT_EQ(o.impl, kImplAvx2) << what; }
  }
}

}  // namespace
}  // namespace tosakit::testing
