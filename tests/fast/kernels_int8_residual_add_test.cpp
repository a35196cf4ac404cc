// The residual add computed by the VNNI 1x1 kernel's step (src/fast/kernels/int8/pointwise_vnni.cpp): a
// MobileNetV2 block as `tosakit quantize` lowers it,
//     h8   = clamp(rescale(conv1x1(s8)))                       expansion (s8 has two users: not fused)
//     p8   = rescale(conv1x1(h8))                              projection: the step that absorbs the add
//     a32  = rescale(s8), b32 = rescale(p8)                    the add's operands (a32: a held-back producer)
//     y8   = [clamp](rescale(add(a32, b32) | sub))
// through the Session as users run it, vs the reference backend: random shapes (channels not a multiple of 16 or
// 48, pixels not a multiple of 8), per-channel conv rescales, single / double rounding, zero points, both operand
// orders, add and both subs, operand rescale shifts <= 22 and above (the kernel's two ways), scales fine enough
// that every rounded bit reaches the i8 result, a skip tensor made in the graph or a function input, 1 and 2
// threads, fixed seeds: bit-identical, and the fused step ran (no separate quantized-binary step). An output
// rescale whose value range REQUIRE fails gives the reference's verdict; a projection result with a second user, a
// skip rescale right before the add, or a CPU path without the AVX-512 passes: not fused, and exact.
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

enum class Op { Add, Sub };

struct BlockCase {
  int64_t N = 1, H = 7, W = 9, C = 24, Cmid = 40;
  bool skipIsInput = false;  // s8 is the function's input "s" (else clamp(x) made in the graph)
  bool convFirst = false;    // the projection's value is the add's first operand
  Op op = Op::Add;
  bool outClamp = true;
  bool secondUser = false;       // p8 is also a function result
  bool skipRescaleLast = false;  // "Add/in0" emitted after "Add/in1", right before the add (not held back)
  Tensor w1, b1, w2, b2;
  int64_t zp1 = 0, zp2 = 0;     // input zero points of the two convolutions
  ir::RescaleAttrs r1, r2;      // the convolutions' rescales (per channel)
  ir::RescaleAttrs ra, rb, ry;  // the add's: skip operand, projection operand, result
};

std::unique_ptr<ir::Module> build(const BlockCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::I8, {c.N, c.H, c.W, c.C}), "x");
  ir::Value* s8 = c.skipIsInput ? x : b.clamp(x, -100, 120);
  ir::Conv2dAttrs a1, a2;
  a1.inputZp = c.zp1, a2.inputZp = c.zp2;
  ir::Value* acc1 = b.conv2d(s8, b.constant(c.w1), b.constant(c.b1), a1);
  ir::Value* h8 = b.clamp(b.rescale(acc1, DType::I8, c.r1), -128, 110);
  ir::Value* p8 = b.rescale(b.conv2d(h8, b.constant(c.w2), b.constant(c.b2), a2), DType::I8, c.r2);
  ir::Value *a32 = nullptr, *b32 = nullptr;
  if (c.skipRescaleLast) {
    b32 = b.rescale(p8, DType::I32, c.rb);
    a32 = b.rescale(s8, DType::I32, c.ra);
  } else {
    a32 = b.rescale(s8, DType::I32, c.ra);  // "Add/in0": before "Add/in1", as the quantizer emits them
    b32 = b.rescale(p8, DType::I32, c.rb);
  }
  ir::Value* first = c.convFirst ? b32 : a32;
  ir::Value* second = c.convFirst ? a32 : b32;
  ir::Value* s = c.op == Op::Add ? b.add(first, second) : b.sub(first, second);
  ir::Value* y = b.rescale(s, DType::I8, c.ry);
  if (c.outClamp) y = b.clamp(y, -128, 90);
  if (c.secondUser)
    b.output({y, p8}, {"y", "p"});
  else
    b.output({y}, {"y"});
  return m;
}

bool hasVnni() { return levelHas(fast::cpu::Isa::Avx512Vnni); }

// The fast step that computes the add (its op types include tosa.add/tosa.sub), or "".
std::string addStep(const PlanStats& stats) {
  for (const OpProfile& p : stats.steps)
    if (p.opType.find("tosa.add") != std::string::npos || p.opType.find("tosa.sub") != std::string::npos)
      return p.impl + " [" + p.opType + "]";
  return "";
}

// Runs the block on both backends: same status code, identical outputs. Returns the add's step.
std::string expectSame(const BlockCase& c, const Tensor& x, int threads, const std::string& what,
                       bool expectOk = true) {
  RunOutcome ref = runOn(build(c), "ref", {{"x", x}}, threads), fast = runOn(build(c), "fast", {{"x", x}}, threads);
  EXPECT_EQ(ref.status.code(), fast.status.code())
      << what << ": " << ref.status.toString() << " / " << fast.status.toString();
  EXPECT_EQ(ref.status.isOk(), expectOk) << what << ": " << ref.status.toString();
  if (ref.status.isOk() && fast.status.isOk()) {
    EXPECT_EQ(ref.outputs.size(), fast.outputs.size()) << what;
    for (size_t i = 0; i < ref.outputs.size() && i < fast.outputs.size(); ++i)
      EXPECT_TRUE(ref.outputs[i].second.identical(fast.outputs[i].second)) << what << ": output " << i;
  }
  return addStep(fast.stats);
}

ir::RescaleAttrs convRescale(std::mt19937& rng, int64_t channels, bool doubleRound) {
  ir::RescaleAttrs r;
  r.perChannel = true;
  r.roundingMode = doubleRound ? "DOUBLE_ROUND" : "SINGLE_ROUND";
  for (int64_t ch = 0; ch < channels; ++ch) {
    r.multiplier.push_back(uniform(rng, int64_t(1) << 29, (int64_t(1) << 31) - 1));
    r.shift.push_back(uniform(rng, 34, 42));
  }
  r.outputZp = uniform(rng, -20, 20);
  return r;
}

// An operand rescale i8 -> i32 as the quantizer writes it: the value times ~2^20 (shift 10..12, multiplier
// 2^30..2^31), or a shift as small as 9 (every i8 value minus zero point still within apply_scale_32's range);
// `big`: shifts 23..27 (the kernel's other way to compute it: > 22). `fine`: a scale below 4 (multiplier below
// 2^(shift + 2)), so that the rounded low bits of every operand reach the i8 result.
ir::RescaleAttrs operandRescale(std::mt19937& rng, int64_t inputZp, bool doubleRound, bool big, bool fine) {
  ir::RescaleAttrs r;
  r.shift = {big ? uniform(rng, 23, 27) : uniform(rng, 9, 12)};
  r.multiplier = {fine ? uniform(rng, 1, (int64_t(1) << (r.shift[0] + 2)) - 1)
                       : uniform(rng, int64_t(1) << 30, (int64_t(1) << 31) - 1)};
  r.inputZp = inputZp;
  r.roundingMode = doubleRound ? "DOUBLE_ROUND" : "SINGLE_ROUND";
  return r;
}

BlockCase randomBlock(std::mt19937& rng, int trial) {
  const int64_t cs[] = {5, 16, 24, 40, 47, 100};
  BlockCase c;
  c.N = 1 + trial % 2;
  c.H = uniform(rng, 1, 13), c.W = uniform(rng, 1, 13);
  c.C = cs[trial % 6], c.Cmid = uniform(rng, 3, 130);
  c.skipIsInput = trial % 4 == 3;
  c.convFirst = trial % 2 == 1;
  c.op = trial % 5 == 2 ? Op::Sub : Op::Add;
  c.outClamp = trial % 3 != 0;
  c.w1 = randomInts(DType::I8, {c.Cmid, 1, 1, c.C}, rng, -128, 127);
  c.b1 = randomInts(DType::I32, {c.Cmid}, rng, -200000, 200000);
  c.w2 = randomInts(DType::I8, {c.C, 1, 1, c.Cmid}, rng, -128, 127);
  c.b2 = randomInts(DType::I32, {trial % 7 == 6 ? 1 : c.C}, rng, -200000, 200000);
  const bool dbl = trial % 3 == 1;
  c.zp1 = trial % 2 ? uniform(rng, -128, 127) : 0;
  c.r1 = convRescale(rng, c.Cmid, dbl);
  c.zp2 = c.r1.outputZp;  // the projection reads h8 on its grid
  c.r2 = convRescale(rng, c.C, !dbl);
  const bool big = trial % 4 == 2, fine = trial % 3 == 0;
  c.ra = operandRescale(rng, trial % 3 ? uniform(rng, -30, 30) : 0, dbl, big, fine);
  c.rb = operandRescale(rng, c.r2.outputZp, trial % 4 == 0, big, fine);
  // The result back to i8: the sum is about 2^28 (2^15 with `big` operand shifts): shift 48..52 (34..38), every
  // i32 within apply_scale_32's range; or shift 30..31 with a small multiplier: the per-value range check runs
  // and passes (operands of shift 12: |a32|, |b32| <= 255 * 2^31 >> 12 < 2^28, so |sum| < 2^29); `fine`
  // operands: |sum| < 2048, shift 30..33 (a scale of 1/8..2).
  const bool smallShift = trial % 6 == 5;
  if (smallShift) c.ra.shift = c.rb.shift = {12};
  c.ry.multiplier = {smallShift ? uniform(rng, 1, 4) : uniform(rng, int64_t(1) << 30, (int64_t(1) << 31) - 1)};
  c.ry.shift = {smallShift ? uniform(rng, 30, 31) : uniform(rng, 48, 52) - (big ? 14 : 0)};
  if (fine) c.ry.shift = {uniform(rng, 30, 33)};
  c.ry.outputZp = uniform(rng, -10, 10);
  c.ry.roundingMode = trial % 4 == 1 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
  return c;
}

std::string describe(const BlockCase& c, int trial) {
  return "trial " + std::to_string(trial) + " C " + std::to_string(c.C) + " Cmid " + std::to_string(c.Cmid) + " " +
      std::to_string(c.N) + "x" + std::to_string(c.H) + "x" + std::to_string(c.W) +
      (c.op == Op::Sub ? " sub" : " add") + (c.convFirst ? " conv-first" : " skip-first") +
      (c.skipIsInput ? " skip=input" : " skip=clamp");
}

TEST(FastInt8ResidualAdd, RandomBlocksAreBitIdenticalToReference) {
  std::mt19937 rng(7400);
  for (int trial = 0; trial < 36; ++trial) {
    const BlockCase c = randomBlock(rng, trial);
    const Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.C}, rng, -128, 127);
    const std::string what = describe(c, trial);
    const std::string step = expectSame(c, x, 1 + trial % 2, what);
    if (hasVnni()) {
      const std::string want = c.op == Op::Add ? "fast:pointwise_int8_vnni+add" : "fast:pointwise_int8_vnni+sub";
      EXPECT_EQ(step.rfind(want + " [tosa.rescale+tosa.conv2d+tosa.rescale+tosa.rescale+tosa.", 0), 0u)
          << what << ": " << step;
    }
  }
}

// A projection result that the function also returns has a second user: the add is not fused (its own
// quantized-binary step runs) and everything stays exact.
TEST(FastInt8ResidualAdd, SecondUserIsNotFused) {
  std::mt19937 rng(7410);
  for (int trial = 0; trial < 4; ++trial) {
    BlockCase c = randomBlock(rng, trial);
    c.secondUser = true;
    const Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.C}, rng, -128, 127);
    const std::string what = describe(c, trial) + " second user";
    const std::string step = expectSame(c, x, 2, what);
    EXPECT_EQ(step.find("vnni"), std::string::npos) << what << ": " << step;
    if (hasVnni()) { EXPECT_EQ(step.rfind("fast:quant_binary", 0), 0u) << what << ": " << step; }
  }
}

// Without the AVX-512 passes (the VNNI kernel declines too) nothing is fused: the add is its own quantized-binary
// step, exact. With the skip operand's rescale emitted right before the add (its user is the next op: not held
// back, so it ends the convolution's chain) the add is not fused either, and stays exact.
TEST(FastInt8ResidualAdd, OtherwiseTheAddIsItsOwnStep) {
  std::mt19937 rng(7415);
  for (int trial = 0; trial < 6; ++trial) {
    BlockCase c = randomBlock(rng, trial);
    const bool generic = trial % 2 == 0;
    c.skipRescaleLast = !generic;
    const Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.C}, rng, -128, 127);
    const std::string what = describe(c, trial) + (generic ? " generic passes" : " skip rescale last");
    fast::dnn::setIntEpilogueGenericForTesting(generic);
    const std::string step = expectSame(c, x, 1 + trial % 2, what);
    fast::dnn::setIntEpilogueGenericForTesting(false);
    EXPECT_EQ(step.find("vnni"), std::string::npos) << what << ": " << step;
    EXPECT_EQ(step.rfind("fast:quant_binary", 0), 0u) << what << ": " << step;
  }
}

// The output rescale's REQUIRE: shift 20 requires the sum in [-2^19, 2^19). Hand calculation: the operands are
// (v - zp) * 2^30 >> 10 = (v - zp) * 2^20, so any sum of two nonzero i8 values of one sign is outside. Skip
// inputs all 100 (zero point 0): a32 = 100 * 2^20 = 104857600 at every element; the projection's values are
// in [-128, 127], so |b32| <= 128 * 2^20 and the sum a32 + b32 is outside [-2^19, 2^19) unless b32 = -a32
// exactly, impossible for all elements at once. The fused step computes it, sees the failed REQUIRE, and the
// rerun on the reference kernels gives the reference's verdict. With shift 40 the same block passes.
TEST(FastInt8ResidualAdd, OutputRescaleRequireGivesTheReferenceVerdict) {
  for (int64_t shift : {20, 40}) {
    std::mt19937 rng(7420);
    BlockCase c = randomBlock(rng, 0);
    c.skipIsInput = true;
    c.ra.multiplier = {1 << 30}, c.ra.shift = {10}, c.ra.inputZp = 0;
    c.rb.multiplier = {1 << 30}, c.rb.shift = {10};
    c.ry.multiplier = {1 << 30}, c.ry.shift = {shift};
    const Shape shape{c.N, c.H, c.W, c.C};
    const Tensor x = Tensor::fromInts(DType::I8, shape, std::vector<int64_t>(size_t(numElements(shape)), 100));
    const std::string what = "output shift " + std::to_string(shift);
    const std::string step = expectSame(c, x, 1, what, shift == 40);
    if (hasVnni()) { EXPECT_EQ(step.rfind("fast:pointwise_int8_vnni+add", 0), 0u) << what << ": " << step; }
  }
}

// The projection's own REQUIRE (acc + bias overflowing i32) inside the fused step: a bias of 2^31 - 1000 and
// weights and inputs that make acc >= 1000 at every position (h8 clamped to 110 >= ... : all h8 are 110 when
// the expansion's bias is large, and weights of 127 over Cmid channels give acc = Cmid * 110 * 127 > 1000).
TEST(FastInt8ResidualAdd, ProjectionOverflowGivesTheReferenceVerdict) {
  std::mt19937 rng(7430);
  BlockCase c = randomBlock(rng, 0);
  c.b1 = Tensor::fromInts(DType::I32, {c.Cmid}, std::vector<int64_t>(size_t(c.Cmid), 2000000000));
  c.zp2 = 0, c.r1.outputZp = 0;
  c.w2 = Tensor::fromInts(DType::I8, {c.C, 1, 1, c.Cmid}, std::vector<int64_t>(size_t(c.C * c.Cmid), 127));
  c.b2 = Tensor::fromInts(DType::I32, {1}, {int64_t(2147483647) - 1000});
  const Tensor x = randomInts(DType::I8, {c.N, c.H, c.W, c.C}, rng, -128, 127);
  const std::string step = expectSame(c, x, 2, "projection overflow", false);
  if (hasVnni()) { EXPECT_EQ(step.rfind("fast:pointwise_int8_vnni+add", 0), 0u) << step; }
}

}  // namespace
}  // namespace tosakit::testing
