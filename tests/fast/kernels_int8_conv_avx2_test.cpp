// The exact AVX2 int8 convolution and matmul (src/fast/kernels/int8/conv_avx2.cpp: i16 x i16 -> i32 `vpmaddwd`
// sums, the epilogue on the registers) through the Session as users run it, vs the reference backend: random
// layers (1x1, 3x3, 5x5, 1x7, 7x1; strides 1-2, dilations 1-2, any padding; input channels odd and even, output
// channels with and without a 16-channel tail, 8 or fewer; pixel counts not a multiple of the 4-pixel block;
// N > 1; input zero points (the padding holds them); per-channel / per-tensor, single / double rounding
// rescales, shifts <= 31 (the range check); i8/i16/i32 results; clamps; 1 and 2 threads; few-pixel layers split
// by channels), bit-identical. At a level with AVX2 and without VNNI (tests/scripts/isa_levels.cmake runs these
// at avx2 and avx512) the layer must have been taken by the kernel with its epilogue fused; with VNNI oneDNN or
// the VNNI kernel come first (kernel_list.cpp) and the kernel must not have run; below AVX2 it cannot.
#include <gtest/gtest.h>

#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"
#include "isa_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

constexpr const char* kConv = "fast:conv_int8_avx2";
constexpr const char* kMatmul = "fast:matmul_int8_avx2";

// The levels whose implementation lists give int8 convolutions and matmuls to this kernel.
bool avx2Int8Level() { return levelHas(fast::cpu::Isa::Avx2) && !oneDnnInt8Exact(); }

struct ConvCase {
  int64_t N = 1, IH = 8, IW = 8, IC = 8, OC = 16, KH = 3, KW = 3, OH = 8, OW = 8;
  std::vector<int64_t> pad{1, 1, 1, 1}, stride{1, 1}, dilation{1, 1};
  int64_t inputZp = 0;
  Tensor w, bias;
  bool rescale = true, clamp = false;
  DType outT = DType::I8;
  ir::RescaleAttrs ra;
  std::string describe() const {
    return "N" + std::to_string(N) + " " + std::to_string(IH) + "x" + std::to_string(IW) + "x" + std::to_string(IC) +
        " -> " + std::to_string(OC) + " k" + std::to_string(KH) + "x" + std::to_string(KW) + " s" +
        std::to_string(stride[0]) + "," + std::to_string(stride[1]) + " d" + std::to_string(dilation[0]) + "," +
        std::to_string(dilation[1]) + " pad " + std::to_string(pad[0]) + std::to_string(pad[1]) +
        std::to_string(pad[2]) + std::to_string(pad[3]) + " zp " + std::to_string(inputZp);
  }
};

std::unique_ptr<ir::Module> build(const ConvCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Conv2dAttrs a;
  a.pad = c.pad, a.stride = c.stride, a.dilation = c.dilation, a.inputZp = c.inputZp;
  ir::Value* y = b.conv2d(b.input(ValueType::tensor(DType::I8, {c.N, c.IH, c.IW, c.IC}), "x"), b.constant(c.w),
                          b.constant(c.bias), a);
  if (c.rescale) y = b.rescale(y, c.outT, c.ra);
  if (c.clamp) y = b.clamp(y, -100, 110);
  b.output({y}, {"y"});
  return m;
}

// The input size that gives OH/OW exactly (the spec's ERROR_IF: (IH - 1 + pads - (KH - 1) * d) % stride == 0).
void fitInput(ConvCase& c) {
  c.IH = (c.OH - 1) * c.stride[0] + (c.KH - 1) * c.dilation[0] + 1 - c.pad[0] - c.pad[1];
  c.IW = (c.OW - 1) * c.stride[1] + (c.KW - 1) * c.dilation[1] + 1 - c.pad[2] - c.pad[3];
}

// Both backends: same status code (expectOk: the reference's), identical outputs; the fast plan's steps.
std::vector<OpProfile> expectSame(const ConvCase& c, const Tensor& x, int threads, const std::string& what,
                                  bool expectOk = true) {
  RunOutcome ref = runOn(build(c), "ref", {{"x", x}}, threads), fast = runOn(build(c), "fast", {{"x", x}}, threads);
  EXPECT_EQ(ref.status.code(), fast.status.code())
      << what << ": " << ref.status.toString() << " / " << fast.status.toString();
  EXPECT_EQ(ref.status.isOk(), expectOk) << what << ": " << ref.status.toString();
  if (ref.status.isOk() && fast.status.isOk()) {
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what;
  }
  return fast.stats.steps;
}

// The kernel ran the whole chain as one step where the level gives it the layer, and nowhere else.
// The AVX2 kernel where the level has AVX2 (and oneDNN's int8 is not exact), its compiler-vectorized form
// ("fast:conv_int8", no "_avx2") at the baseline; oneDNN with VNNI.
void expectKernel(const std::vector<OpProfile>& steps, const char* impl, const std::string& what) {
  ASSERT_FALSE(steps.empty()) << what;
  const bool baseline = !levelHas(fast::cpu::Isa::Avx2);
  if (!avx2Int8Level() && !baseline) {
    EXPECT_NE(steps[0].impl, impl) << what;
    return;
  }
  const std::string want = baseline ? std::string(impl).substr(0, std::string(impl).size() - 5) : impl;
  EXPECT_EQ(steps[0].impl, want) << what;
  EXPECT_EQ(steps.size(), 1u) << what << ": the epilogue was not fused";
}

void randomRescale(ConvCase& c, std::mt19937& rng, int trial) {
  c.rescale = trial % 7 != 6;
  const DType outs[] = {DType::I8, DType::I8, DType::I16, DType::I8, DType::I32};
  c.outT = outs[trial % 5];
  c.clamp = c.rescale && c.outT == DType::I8 && trial % 3 != 2;
  c.ra = {};
  c.ra.perChannel = trial % 4 != 1;
  c.ra.roundingMode = trial % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
  // Shifts <= 31 with small multipliers (the per-value range check runs and passes) or 34..44.
  const bool smallShift = trial % 6 == 5;
  for (int64_t ch = 0; ch < (c.ra.perChannel ? c.OC : 1); ++ch) {
    c.ra.multiplier.push_back(smallShift ? uniform(rng, 1, 64)
                                         : uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
    c.ra.shift.push_back(smallShift ? uniform(rng, 30, 31) : uniform(rng, 34, 44));
  }
  c.ra.outputZp = c.outT == DType::I8 ? uniform(rng, -30, 30) : 0;
}

ConvCase randomCase(std::mt19937& rng, int trial) {
  ConvCase c;
  const int64_t kernels[][2] = {{1, 1}, {3, 3}, {5, 5}, {1, 7}, {7, 1}, {3, 3}, {1, 1}, {2, 3}};
  c.KH = kernels[trial % 8][0], c.KW = kernels[trial % 8][1];
  c.N = trial % 5 == 3 ? 2 : 1;
  const int64_t ics[] = {1, 3, 8, 16, 17, 32, 64, 5};
  const int64_t ocs[] = {1, 8, 16, 24, 33, 64, 100, 7};
  c.IC = ics[uniform(rng, 0, 7)], c.OC = ocs[uniform(rng, 0, 7)];
  c.stride = {uniform(rng, 1, 2), uniform(rng, 1, 2)};
  c.dilation =
      trial % 3 == 2 ? std::vector<int64_t>{uniform(rng, 1, 2), uniform(rng, 1, 2)} : std::vector<int64_t>{1, 1};
  c.pad = {uniform(rng, 0, c.KH - 1), uniform(rng, 0, c.KH - 1), uniform(rng, 0, c.KW - 1), uniform(rng, 0, c.KW - 1)};
  if (trial % 8 == 6) c.pad = {0, 0, 0, 0}, c.stride = {1, 1}, c.dilation = {1, 1};  // the direct 1x1 rows
  c.OH = uniform(rng, 1, 15), c.OW = uniform(rng, 1, 23);
  fitInput(c);
  while (c.IH < 1) ++c.OH, fitInput(c);
  while (c.IW < 1) ++c.OW, fitInput(c);
  c.inputZp = trial % 4 == 0 ? 0 : trial % 4 == 1 ? -128 : uniform(rng, -128, 127);
  c.w = randomInts(DType::I8, {c.OC, c.KH, c.KW, c.IC}, rng, -128, 127);
  c.bias = randomInts(DType::I32, {trial % 5 == 4 ? 1 : c.OC}, rng, -300000, 300000);
  randomRescale(c, rng, trial);
  return c;
}

TEST(FastInt8ConvAvx2, RandomLayersAreBitIdenticalToReference) {
  std::mt19937 rng(7500);
  for (int trial = 0; trial < 48; ++trial) {
    const ConvCase c = randomCase(rng, trial);
    const Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.IC}, rng, -128, 127);
    const std::string what = "trial " + std::to_string(trial) + " " + c.describe();
    expectKernel(expectSame(c, x, 1 + trial % 2, what), kConv, what);
  }
}

// Layers large enough for threads: many bands (split by bands of pixels) and a 7x7 map with many channels (few
// bands: split by panels of channels, one epilogue after), 1 and 2 threads.
TEST(FastInt8ConvAvx2, ThreadedLayersAreBitIdenticalToReference) {
  std::mt19937 rng(7510);
  struct Shape4 {
    int64_t OH, OW, IC, OC, K;
  };
  const Shape4 shapes[] = {{40, 40, 16, 48, 3}, {7, 7, 256, 200, 1}, {14, 14, 96, 96, 3}, {28, 28, 33, 70, 5}};
  int trial = 0;
  for (const Shape4& s : shapes)
    for (int threads : {1, 2}) {
      ConvCase c;
      c.OH = s.OH, c.OW = s.OW, c.IC = s.IC, c.OC = s.OC, c.KH = c.KW = s.K;
      c.pad = std::vector<int64_t>(4, s.K / 2);
      fitInput(c);
      c.inputZp = uniform(rng, -128, 127);
      c.w = randomInts(DType::I8, {c.OC, c.KH, c.KW, c.IC}, rng, -128, 127);
      c.bias = randomInts(DType::I32, {c.OC}, rng, -300000, 300000);
      randomRescale(c, rng, trial++);
      const Tensor x = randomInts(DType::I8, {c.N, c.IH, c.IW, c.IC}, rng, -128, 127);
      const std::string what = c.describe() + " threads " + std::to_string(threads);
      expectKernel(expectSame(c, x, threads, what), kConv, what);
    }
}

// Hand calculation: 64 input channels and weights of 127 over a 3x3 window give 9 * 64 * 127 * 127 = 9290304 at
// every inner position; a bias of 2^31 - 9000000 takes acc + bias past 2^31 - 1 (the REQUIRE): both backends
// report it. With input_zp -1 every tap adds (127 + 1) * 127, the padding's taps 0: the folded bias is checked
// on the true sum.
TEST(FastInt8ConvAvx2, BiasOverflowGivesTheReferenceVerdict) {
  for (int64_t zp : {0, -1}) {
    ConvCase c;
    c.OH = c.OW = 10, c.IC = 64, c.OC = 16;
    fitInput(c);
    c.inputZp = zp;
    c.w = Tensor::fromInts(DType::I8, {16, 3, 3, 64}, std::vector<int64_t>(16 * 9 * 64, 127));
    c.bias = Tensor::fromInts(DType::I32, {1}, {int64_t(2147483647) - 9000000});
    c.rescale = false;
    const Tensor x =
        Tensor::fromInts(DType::I8, {1, c.IH, c.IW, 64}, std::vector<int64_t>(size_t(c.IH * c.IW * 64), 127));
    const std::string what = "bias overflow zp " + std::to_string(zp);
    expectSame(c, x, 2, what, false);
  }
}

// tosa.matmul [1, H, C] x constant [1, C, W] -> rescale [-> clamp] -> i8: A's zero point folded, random sizes
// (the classifier's fully connected layer: H = 1, C = 1280, W = 1000), bit-identical, the kernel ran. B's zero
// point other than 0: declined, still exact.
TEST(FastInt8ConvAvx2, MatmulByConstantIsBitIdenticalToReference) {
  std::mt19937 rng(7520);
  const int64_t hs[] = {1, 1, 3, 40, 9}, cs[] = {1280, 7, 120, 120, 33}, ws[] = {1000, 5, 360, 97, 17};
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
    for (const int threads : {1, 2}) {
      const std::string what = "trial " + std::to_string(trial) + " threads " + std::to_string(threads);
      RunOutcome fast = runOn(build(), "fast", {{"x", x}}, threads);
      ASSERT_TRUE(fast.status.isOk()) << what << ": " << fast.status.toString();
      EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what;
      ASSERT_FALSE(fast.stats.steps.empty()) << what;
      if (bZp != 0) {
        EXPECT_NE(fast.stats.steps[0].impl, kMatmul) << what;
      } else {
        expectKernel(fast.stats.steps, kMatmul, what);
      }
    }
  }
}

}  // namespace
}  // namespace tosakit::testing
