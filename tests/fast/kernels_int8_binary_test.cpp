// The fused quantized binary op (src/fast/kernels/int8/binary.cpp): rescale(a8) and rescale(b8) to i32,
// add/sub/mul, rescale to the output [and clamp] — the graph `tosakit quantize` emits for a residual add or
// a squeeze-and-excitation gate — on the fast backend vs the reference backend. Random shapes, broadcasts,
// scales (per tensor and per channel, single and double rounding), zero points and data (fixed seeds):
// bit-identical results, the fused kernel in use, and values that break a REQUIRE (i32 overflow of the sum,
// apply_scale_32's shift range, the shifted product) give the reference's verdict on both backends.
// The first operand's rescale (held back by the plan: not a linear predecessor) and an i8 table in front of
// the second operand's rescale are computed by the same step: the whole graph is then one step, which the
// tests assert; a first-operand rescale with a second user stays its own step.
#include <gtest/gtest.h>

#include <random>

#include "fast/kernels/int8/int8.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

struct Case {
  std::string op = "add";      // add, sub, mul
  bool rescaledFirst = false;  // the fused operand (the second rescale) is the op's first operand
  bool aRaw = false;           // a is an i32 input used as it is (no rescale in front of the op)
  Shape aShape, bShape, outShape;
  DType aT = DType::I8, bT = DType::I8, outT = DType::I8;
  ir::RescaleAttrs ra, rb, ro;
  int mulShift = 0;
  bool clamp = false;
  int64_t clampLo = -100, clampHi = 90;
  bool aShared = false;  // a's rescale result is also a second output (two users: not absorbed)
  bool aConst = false;   // a is a constant (aValues), not an input
  Tensor aValues;
  bool sameInput = false;  // both rescales read the same input ("a"; bShape == aShape, bT == aT)
  int table = 0;           // 8: an i8 table (tableValues) in front of b's rescale; 16: an i16 -> i32 one
  Tensor tableValues;
};

// The fused step computes the first operand's rescale when it rescales an i8/i16 value with no other user,
// and an i8 table in front of b's rescale unless b is full-size with per-channel scales (then the table's
// lookups cannot be composed with one rescale; the tests' scales keep every table value inside the REQUIRE).
bool absorbsA(const Case& c) { return !c.aRaw && !c.aShared; }
bool absorbsTable(const Case& c) { return c.table == 8 && (c.bShape != c.outShape || c.rb.multiplier.size() == 1); }

std::unique_ptr<ir::Module> build(const Case& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* a = c.aConst ? b.constant(c.aValues) : b.input(ValueType::tensor(c.aT, c.aShape), "a");
  ir::Value* x = c.sameInput ? a : b.input(ValueType::tensor(c.bT, c.bShape), "b");
  ir::Value* a32 = c.aRaw ? a : b.rescale(a, DType::I32, c.ra, "in0");
  if (c.table == 8)
    x = b.op1("tosa.table", {x, b.constant(c.tableValues)}, ValueType::tensor(DType::I8, c.bShape), {}, "table");
  if (c.table == 16)
    x = b.op1("tosa.table", {x, b.constant(c.tableValues)}, ValueType::tensor(DType::I32, c.bShape), {}, "table");
  ir::Value* b32 = b.rescale(x, DType::I32, c.rb, "in1");
  ir::Value* lhs = c.rescaledFirst ? b32 : a32;
  ir::Value* rhs = c.rescaledFirst ? a32 : b32;
  ir::Value* s = c.op == "add" ? b.add(lhs, rhs) : c.op == "sub" ? b.sub(lhs, rhs) : b.mul(lhs, rhs, c.mulShift);
  ir::Value* y = b.rescale(s, c.outT, c.ro, "out");
  if (c.clamp) y = b.clamp(y, double(c.clampLo), double(c.clampHi));
  if (c.aShared)
    b.output({y, a32}, {"y", "a32"});
  else
    b.output({y}, {"y"});
  return m;
}

// Inputs of a case: "a" unless it is a constant, "b" unless both rescales read "a".
NamedTensors inputsOf(const Case& c, Tensor a, Tensor x) {
  NamedTensors in;
  if (!c.aConst) in.push_back({"a", std::move(a)});
  if (!c.sameInput) in.push_back({"b", std::move(x)});
  return in;
}

Tensor randomTensor(DType t, const Shape& s, std::mt19937& rng, int64_t lo, int64_t hi) {
  Tensor x(t, s);
  std::uniform_int_distribution<int64_t> d(std::max(lo, dtypeMin(t)), std::min(hi, dtypeMax(t)));
  for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, d(rng));
  return x;
}

// Scales like a quantizer's: shift 20..40 for i8 -> i32 headroom (the add's 2^20 common scale), 30..45 out.
void randomScale(ir::RescaleAttrs& r, int64_t channels, std::mt19937& rng, int shiftLo, int shiftHi, bool perChannel) {
  r.perChannel = perChannel;
  r.roundingMode = rng() % 3 == 0 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
  const int64_t n = perChannel ? channels : 1;
  for (int64_t c = 0; c < n; ++c) {
    r.multiplier.push_back(int64_t(1u << 30) + int64_t(rng() % (1u << 30)));
    r.shift.push_back(shiftLo + int64_t(rng() % uint32_t(shiftHi - shiftLo + 1)));
  }
}

// expectFused: the fused kernel ran, absorbing exactly the ops absorbsA/absorbsTable say, and the plan has no
// other steps than the ones left (so a test cannot pass by not fusing).
void expectSame(const Case& c, const NamedTensors& in, const std::string& what, bool expectFused = true,
                int threads = 0) {
  RunOutcome ref = runOn(build(c), "ref", in), fast = runOn(build(c), "fast", in, threads);
  ASSERT_EQ(ref.status.code(), fast.status.code())
      << what << ": " << ref.status.toString() << " / " << fast.status.toString();
  if (ref.status.isOk()) {
    ASSERT_EQ(ref.outputs.size(), fast.outputs.size()) << what;
    for (size_t i = 0; i < ref.outputs.size(); ++i)
      EXPECT_TRUE(ref.outputs[i].second.identical(fast.outputs[i].second)) << what << " output " << i;
  }
  if (!expectFused) return;
  const OpProfile* fused = nullptr;
  for (const auto& s : fast.stats.steps)
    if (s.impl == "fast:quant_binary") fused = &s;
  ASSERT_TRUE(fused) << what << ": the fused kernel was not used";
  const std::string opName = c.op == "add" ? "tosa.add" : c.op == "sub" ? "tosa.sub" : "tosa.mul";
  std::string ops = "tosa.rescale+" + opName + "+tosa.rescale" + (c.clamp ? "+tosa.clamp" : "");
  if (absorbsTable(c)) ops = "tosa.table+" + ops;
  if (absorbsA(c)) ops = "tosa.rescale+" + ops;
  EXPECT_EQ(fused->opType, ops) << what;
  // The rest: the table's own step, the shared first operand's rescale.
  const size_t steps = 1 + (c.table != 0 && !absorbsTable(c)) + c.aShared;
  EXPECT_EQ(fast.stats.steps.size(), steps) << what;
}

// Both row kernels: the AVX-512 one (per-tensor scales, an i8 operand or a broadcast one) and the
// compiler-vectorized one (every case; the only one on CPUs without AVX-512).
void randomChains(uint32_t seed) {
  std::mt19937 rng(seed);
  const char* ops[] = {"add", "sub", "mul"};
  for (int trial = 0; trial < 120; ++trial) {
    Case c;
    c.op = ops[trial % 3];
    c.rescaledFirst = rng() % 2;
    const int64_t C = 1 + int64_t(rng() % 24);
    c.outShape = {1 + int64_t(rng() % 2), 1 + int64_t(rng() % 6), 1 + int64_t(rng() % 40), C};
    c.aShape = c.bShape = c.outShape;
    // Broadcast one operand (the SE gate is [1, 1, 1, C]) in a third of the trials.
    const int bc = int(rng() % 6);
    Shape perChannel{1, 1, 1, C}, scalar{1, 1, 1, 1};
    if (bc == 0) c.aShape = perChannel;
    if (bc == 1) c.bShape = perChannel;
    if (bc == 2) c.bShape = scalar;
    c.aRaw = rng() % 6 == 0;
    c.aT = c.aRaw ? DType::I32 : rng() % 5 ? DType::I8 : DType::I16;
    c.bT = rng() % 5 ? DType::I8 : DType::I16;
    // The first operand's rescale with a second user, a constant first operand, both rescales of one input.
    c.aShared = !c.aRaw && rng() % 8 == 0;
    c.aConst = !c.aRaw && rng() % 8 == 0;
    c.sameInput = !c.aRaw && !c.aConst && c.aShape == c.bShape && rng() % 8 == 0;
    if (c.sameInput) c.bT = c.aT;
    // An i8 table in front of b's rescale (the hard-sigmoid of an SE gate), random entries.
    if (c.bT == DType::I8 && rng() % 4 == 0) {
      c.table = 8;
      c.tableValues = randomTensor(DType::I8, {256}, rng, -128, 127);
    }
    const DType outs[] = {DType::I8, DType::I8, DType::I16, DType::I32};
    c.outT = outs[rng() % 4];
    const bool isMul = c.op == "mul";
    c.ra.inputZp = c.aT == DType::I8 && !isMul ? int64_t(rng() % 256) - 128 : 0;
    c.rb.inputZp = c.bT == DType::I8 && !isMul ? int64_t(rng() % 256) - 128 : 0;
    c.ro.outputZp = c.outT == DType::I8 ? int64_t(rng() % 256) - 128 : 0;
    // Operands rescaled to at most ~2^26 (add/sub) or ~2^12 (mul); output shifts from saturating to exact.
    randomScale(c.ra, c.aShape.back(), rng, isMul ? 30 : 16, isMul ? 31 : 22, rng() % 4 == 0);
    randomScale(c.rb, c.bShape.back(), rng, isMul ? 30 : 16, isMul ? 31 : 22, rng() % 4 == 0);
    randomScale(c.ro, C, rng, 36, 50, rng() % 4 == 0);
    if (isMul) c.mulShift = rng() % 2 ? 0 : int(rng() % 20);
    c.clamp = c.outT != DType::I32 && rng() % 2;
    const int64_t aRange = c.aRaw ? (int64_t(1) << 26) : 2000;
    Tensor a = randomTensor(c.aT, c.aShape, rng, -aRange, aRange);
    if (c.aConst) c.aValues = a;
    NamedTensors in = inputsOf(c, a, randomTensor(c.bT, c.bShape, rng, -2000, 2000));
    expectSame(c, in, "trial " + std::to_string(trial) + " " + c.op, true, trial % 2 ? 1 : 2);
  }
}

TEST(FastQuantBinary, RandomChainsAreBitIdenticalToReference) { randomChains(20261125); }

TEST(FastQuantBinary, RandomChainsOnTheGenericRowsAreBitIdenticalToReference) {
  fast::dnn::setIntEpilogueGenericForTesting(true);
  randomChains(20261127);
  fast::dnn::setIntEpilogueGenericForTesting(false);
}

TEST(FastQuantBinary, LargeTensorsRunInParallelChunksBitIdentically) {
  std::mt19937 rng(7);
  Case c;
  c.outShape = c.aShape = c.bShape = {1, 56, 56, 64};
  randomScale(c.ra, 64, rng, 14, 16, false);
  randomScale(c.rb, 64, rng, 14, 16, true);
  randomScale(c.ro, 64, rng, 34, 36, false);
  c.ra.inputZp = -3;
  c.rb.inputZp = 17;
  c.ro.outputZp = -5;
  c.clamp = true;
  c.clampLo = -5;
  c.clampHi = 127;
  NamedTensors in{{"a", randomTensor(DType::I8, c.aShape, rng, -128, 127)},
                  {"b", randomTensor(DType::I8, c.bShape, rng, -128, 127)}};
  expectSame(c, in, "residual add 56x56x64");
}

// Large tensors split over two threads with the first operand's rescale absorbed: per-channel (each thread
// rescales its rows into its own buffer), i16, and an i8 table in front of a full-size b (looked up per row).
TEST(FastQuantBinary, LargeTensorsWithAbsorbedProducersRunInParallelBitIdentically) {
  std::mt19937 rng(11);
  for (int variant = 0; variant < 3; ++variant) {
    Case c;
    c.op = variant == 1 ? "mul" : "add";
    c.outShape = c.aShape = c.bShape = {1, 40, 40, 48};
    c.aT = variant == 1 ? DType::I16 : DType::I8;
    randomScale(c.ra, 48, rng, 30, 31, variant == 0);
    randomScale(c.rb, 48, rng, 30, 31, false);
    randomScale(c.ro, 48, rng, 36, 40, false);
    c.ra.inputZp = c.aT == DType::I8 && c.op != "mul" ? -7 : 0;
    c.ro.outputZp = 3;
    if (variant == 2) {
      c.table = 8;
      c.tableValues = randomTensor(DType::I8, {256}, rng, -128, 127);
    }
    NamedTensors in{{"a", randomTensor(c.aT, c.aShape, rng, -3000, 3000)},
                    {"b", randomTensor(DType::I8, c.bShape, rng, -128, 127)}};
    expectSame(c, in, "large, variant " + std::to_string(variant), true, 2);
  }
}

// An i16 table (i16 -> i32, interpolated) in front of b's rescale: b's rescale then reads i32, which the fused
// kernel does not take; the first operand's rescale, held back for it, runs as its own step before the add.
TEST(FastQuantBinary, I16TableInFrontIsDeclinedAndHeldBackRescaleStillRuns) {
  std::mt19937 rng(13);
  Case c;
  c.outShape = c.aShape = c.bShape = {1, 3, 5, 8};
  c.bT = DType::I16;
  c.table = 16;
  c.tableValues = randomTensor(DType::I16, {513}, rng, -3000, 3000);
  randomScale(c.ra, 8, rng, 16, 20, false);
  randomScale(c.rb, 8, rng, 40, 44, false);
  randomScale(c.ro, 8, rng, 36, 40, false);
  NamedTensors in{{"a", randomTensor(DType::I8, c.aShape, rng, -128, 127)},
                  {"b", randomTensor(DType::I16, c.bShape, rng, -32768, 32767)}};
  expectSame(c, in, "i16 table", false);
  RunOutcome fast = runOn(build(c), "fast", in);
  bool loneRescale = false;
  for (const auto& s : fast.stats.steps) loneRescale |= s.opType == "tosa.rescale" && s.location == "in0";
  EXPECT_TRUE(loneRescale) << "the held-back first rescale did not run as its own step";
}

// The squeeze-and-excitation gate's mul as `tosakit quantize` emits it: the feature map a8's rescale a whole
// power of two ((a8 - zp) * F: multiplier 2^30, shift 30 - log2 F), the gate [1, 1, 1, C] (or one value)
// through a table and its rescale, mul with shift 0, one output scale [+ clamp]. Per run the kernel computes it
// in fp64 (scaledMulRowAvx512, or scaledMulRowAvx2 at the AVX2 levels) when the gate's products stay inside i32 and the output rescale's range and its
// sums below 2^53; otherwise, and with double rounding of a shift > 31, the general row runs. Both kinds here,
// bit-identical to the reference, the fp64 row counted exactly when it must run.
TEST(FastQuantBinary, GateMulInFp64IsBitIdenticalAndFallsBackOutsideItsBounds) {
  std::mt19937 rng(20261128);
  for (int trial = 0; trial < 16; ++trial) {
    Case c;
    c.op = "mul";
    c.rescaledFirst = trial % 2;
    const int64_t C = trial % 3 == 0 ? 200 : 1 + int64_t(rng() % 40);
    c.outShape = c.aShape = {1, 1 + int64_t(rng() % 3), 8 + int64_t(rng() % 90), C};
    c.bShape = trial % 5 == 4 ? Shape{1, 1, 1, 1} : Shape{1, 1, 1, C};
    c.table = 8;
    c.tableValues = randomTensor(DType::I8, {256}, rng, -128, 127);
    const int64_t log2F = trial % 4;  // F = 1, 2, 4, 8
    c.ra.multiplier = {int64_t(1) << 30}, c.ra.shift = {30 - log2F};
    c.ra.inputZp = trial % 3 == 1 ? int64_t(rng() % 256) - 128 : 0;
    c.rb.multiplier = {int64_t(1) << 30}, c.rb.shift = {30}, c.rb.inputZp = -128;  // the gate: 0..255
    randomScale(c.ro, C, rng, 34, 40, false);
    c.ro.roundingMode = "SINGLE_ROUND";
    c.ro.outputZp = int64_t(rng() % 41) - 20;
    c.clamp = trial % 2;
    c.clampLo = c.ro.outputZp;
    // Expected path: the fp64 row, except where a bound fails (by construction below).
    bool fp64 = true;
    if (trial == 13) {  // double rounding with shift > 31: the rounding term follows each product's sign
      c.ro.roundingMode = "DOUBLE_ROUND";
      fp64 = false;
    }
    if (trial == 14) {   // F = 2^21: products up to 128 * 255 * 2^21 leave i32 (MUL keeps the low 32 bits:
      c.ra.shift = {9};  // the general row); shift 9 takes every a8 - 0 (apply_scale_32's range [-256, 256))
      c.ra.inputZp = 0;
      fp64 = false;
    }
    if (trial == 15) {    // output shift 20 < 32: apply_scale_32 takes only |P| < 2^19; with F = 2^8 and the gate
      c.ra.shift = {22};  // at 255, any |a8| >= 9 breaks it: the general row, the reference's REQUIRE verdict
      c.ro.shift = {20};
      fp64 = false;
    }
    NamedTensors in{{"a", randomTensor(DType::I8, c.aShape, rng, -128, 127)},
                    {"b", randomTensor(DType::I8, c.bShape, rng, -128, 127)}};
    // Trial 15's gate must reach beyond the range: table entries of 127 (gate 255) on every input.
    if (trial == 15) c.tableValues = Tensor::fromInts(DType::I8, {256}, std::vector<int64_t>(256, 127));
    const int64_t before = fast::quantBinaryScaledMulRunsForTesting();
    const std::string what = "trial " + std::to_string(trial);
    expectSame(c, in, what, true, trial % 2 ? 1 : 2);
    if (trial == 15) { EXPECT_EQ(runOn(build(c), "ref", in).status.code(), StatusCode::Unpredictable) << what; }
    if (fast::dnn::hasAvx512Epilogue() || fast::dnn::hasAvx2Epilogue()) {
      EXPECT_EQ(fast::quantBinaryScaledMulRunsForTesting() - before, fp64 ? 1 : 0) << what;
    }
  }
}

TEST(FastQuantBinary, RequireViolationsGiveTheReferenceVerdict) {
  {
    // apply_scale_32's value range: shift 2 allows [-2, 2); 5 is outside.
    Case c;
    c.outShape = c.aShape = c.bShape = {1, 1, 2, 3};
    c.aT = c.bT = DType::I16;
    c.ra.multiplier = c.rb.multiplier = {1 << 30};
    c.ra.shift = c.rb.shift = {2};
    c.ro.multiplier = {1 << 30};
    c.ro.shift = {40};
    NamedTensors ok{{"a", Tensor::fromInts(DType::I16, c.aShape, {1, -1, 0, 1, -2, 0})},
                    {"b", Tensor::fromInts(DType::I16, c.bShape, {1, -2, 1, 0, -2, 1})}};
    expectSame(c, ok, "in range");
    NamedTensors range{{"a", Tensor::fromInts(DType::I16, c.aShape, {1, -1, 0, 1, -2, 0})},
                       {"b", Tensor::fromInts(DType::I16, c.bShape, {1, -2, 1, 5, -2, 1})}};
    expectSame(c, range, "apply_scale_32 range REQUIRE (5 outside [-2, 2))");
    EXPECT_EQ(runOn(build(c), "fast", range).status.code(), StatusCode::Unpredictable);
    // The same REQUIRE in the first operand's rescale, which the fused step computes (absorbed: the step
    // reruns on the reference kernels, that rescale first, which gives the verdict).
    NamedTensors rangeA{{"a", Tensor::fromInts(DType::I16, c.aShape, {1, -1, 0, -3, -2, 0})},
                        {"b", Tensor::fromInts(DType::I16, c.bShape, {1, -2, 1, 0, -2, 1})}};
    expectSame(c, rangeA, "apply_scale_32 range REQUIRE in the absorbed rescale (-3 outside [-2, 2))");
    EXPECT_EQ(runOn(build(c), "fast", rangeA).status.code(), StatusCode::Unpredictable);
    // Broadcast first operand (rescaled once per run): same verdict.
    Case bc = c;
    bc.aShape = {1, 1, 1, 3};
    NamedTensors rangeBc{{"a", Tensor::fromInts(DType::I16, bc.aShape, {1, 2, 0})},
                         {"b", Tensor::fromInts(DType::I16, bc.bShape, {1, -2, 1, 0, -2, 1})}};
    expectSame(bc, rangeBc, "apply_scale_32 range REQUIRE in the absorbed broadcast rescale (2 outside [-2, 2))");
    EXPECT_EQ(runOn(build(bc), "fast", rangeBc).status.code(), StatusCode::Unpredictable);
  }
  {
    // i32 overflow of the sum / difference: two rescaled values stay within [-2^30, 2^30], so the other
    // operand is a raw i32 input near the limit: 2^31 - 10 + (1 << 28) overflows.
    Case c;
    c.aRaw = true;
    c.outShape = c.aShape = c.bShape = {1, 1, 1, 4};
    c.aT = DType::I32;
    c.bT = DType::I16;
    c.rb.multiplier = {1 << 30};
    c.rb.shift = {4};  // v * 2^26, v in [-8, 8)
    c.ro.multiplier = {1 << 30};
    c.ro.shift = {45};
    const int64_t big = (int64_t(1) << 31) - 10;
    NamedTensors ok{{"a", Tensor::fromInts(DType::I32, c.aShape, {big, -big, 5, 0})},
                    {"b", Tensor::fromInts(DType::I16, c.bShape, {0, -1, 7, -8})}};
    expectSame(c, ok, "sum in range");
    NamedTensors over{{"a", Tensor::fromInts(DType::I32, c.aShape, {big, -big, 5, 0})},
                      {"b", Tensor::fromInts(DType::I16, c.bShape, {1, 0, 7, -8})}};
    expectSame(c, over, "sum overflows i32");
    EXPECT_EQ(runOn(build(c), "fast", over).status.code(), StatusCode::Unpredictable);
    c.op = "sub";
    NamedTensors under{{"a", Tensor::fromInts(DType::I32, c.aShape, {big, -big, 5, 0})},
                       {"b", Tensor::fromInts(DType::I16, c.bShape, {0, 1, 7, -8})}};
    expectSame(c, under, "difference overflows i32");
    EXPECT_EQ(runOn(build(c), "fast", under).status.code(), StatusCode::Unpredictable);
  }
  {
    // The shifted product: (a * b + 2^(s-1)) >> s beyond i32 with shift 1.
    Case c;
    c.op = "mul";
    c.mulShift = 1;
    c.outShape = c.aShape = c.bShape = {1, 1, 1, 2};
    c.aT = c.bT = DType::I16;
    c.ra.multiplier = c.rb.multiplier = {1 << 30};
    c.ra.shift = c.rb.shift = {16};  // v * 2^14
    c.ro.multiplier = {1 << 30};
    c.ro.shift = {50};
    NamedTensors ok{{"a", Tensor::fromInts(DType::I16, c.aShape, {2, -3})},
                    {"b", Tensor::fromInts(DType::I16, c.bShape, {5, 7})}};
    expectSame(c, ok, "product in range");
    NamedTensors over{{"a", Tensor::fromInts(DType::I16, c.aShape, {2, 30000})},
                      {"b", Tensor::fromInts(DType::I16, c.bShape, {5, 30000})}};
    expectSame(c, over, "shifted product overflows i32");
    EXPECT_EQ(runOn(build(c), "fast", over).status.code(), StatusCode::Unpredictable);
  }
}

}  // namespace
}  // namespace tosakit::testing
