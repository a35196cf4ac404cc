// tosa.table (i8 256-entry, i16 513-entry interpolated) and tosa.cast (fp32 <-> i8/i16/i32, integer widths) on
// the fast backend vs the reference backend: random tables and data, fixed seeds, bit-identical results, the
// fast kernel (not the fallback) ran; a table breaking apply_lookup_s's slope REQUIRE and a NaN cast input get
// the reference's verdict on both backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"
#include "isa_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

// One-op graph: x (inT, shape) -> op -> outT; `table` (if any) as a constant second operand.
std::unique_ptr<ir::Module> oneOp(const std::string& name, DType inT, DType outT, const Shape& shape,
                                  const Tensor* table) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(inT, shape), "x");
  std::vector<ir::Value*> operands{x};
  if (table) operands.push_back(b.constant(*table));
  ir::Value* y = b.op1(name, operands, ValueType::tensor(outT, shape));
  b.output({y}, {"y"});
  return m;
}

void expectSameOnBothBackends(const std::string& name, DType inT, DType outT, const Shape& shape, const Tensor* table,
                              const Tensor& x, const std::string& impl, int trial) {
  NamedTensors in{{"x", x}};
  RunOutcome ref = runOn(oneOp(name, inT, outT, shape, table), "ref", in);
  RunOutcome fast = runOn(oneOp(name, inT, outT, shape, table), "fast", in);
  ASSERT_EQ(ref.status.code(), fast.status.code())
      << "trial " << trial << ": " << ref.status.toString() << " / " << fast.status.toString();
  if (ref.status.isOk()) { EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "trial " << trial; }
  ASSERT_FALSE(fast.stats.steps.empty());
  EXPECT_EQ(fast.stats.steps[0].impl, impl) << "trial " << trial;
}

Shape randomShape(std::mt19937& rng) {
  // Sizes on both sides of the kernels' 16384-element chunks and 65536-element parallel threshold.
  return {1 + int64_t(rng() % 3), 1 + int64_t(rng() % 40), 1 + int64_t(rng() % 700)};
}

TEST(FastTable, RandomI8TablesAreBitIdenticalToReference) {
  std::mt19937 rng(8101);
  for (int trial = 0; trial < 12; ++trial) {
    Shape shape = randomShape(rng);
    Tensor table(DType::I8, Shape{256});
    for (int64_t i = 0; i < 256; ++i) table.setInt(i, int64_t(rng() % 256) - 128);
    Tensor x(DType::I8, shape);
    for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, int64_t(rng() % 256) - 128);
    expectSameOnBothBackends("tosa.table", DType::I8, DType::I8, shape, &table, x, "fast:table_i8", trial);
  }
}

// Every one of the 256 inputs at every position of a 32-byte vector (the AVX2 lookup covers the table with two
// cascades of row differences: each row and each half must come out), plus a 5-byte tail, with random tables and
// tables holding the row index (a wrong row shows as a wrong high nibble); tables with rows equal to the row
// before (the lookup leaves their steps out): random rows repeated, a hard-swish-like table (a constant stretch,
// then rising, then saturated), a constant table.
TEST(FastTable, EveryI8InputAtEveryLaneIsBitIdenticalToReference) {
  std::mt19937 rng(8102);
  const Shape shape{1, 32 + 1, 256 + 5};
  Tensor x(DType::I8, shape);
  for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, (i % 256 + i / 256) % 256 - 128);
  for (int trial = 0; trial < 7; ++trial) {
    Tensor table(DType::I8, Shape{256});
    for (int64_t i = 0; i < 256; ++i)
      table.setInt(i, trial == 0 ? i / 16 * 16 + 15 - i % 16 - 128 : int64_t(rng() % 256) - 128);
    if (trial == 4)  // rows 1-3, 6, 9, 10, 15 repeat the row before
      for (int64_t h : {1, 2, 3, 6, 9, 10, 15})
        for (int64_t j = 0; j < 16; ++j) table.setInt(h * 16 + j, table.getInt((h - 1) * 16 + j));
    for (int64_t i = 0; i < 256 && trial == 5; ++i)
      table.setInt(i, i < 90 ? -3 : std::min<int64_t>(127, (i - 90) * 3 / 2 - 3));
    for (int64_t i = 0; i < 256 && trial == 6; ++i) table.setInt(i, 42);
    expectSameOnBothBackends("tosa.table", DType::I8, DType::I8, shape, &table, x, "fast:table_i8", trial);
  }
}

TEST(FastTable, RandomI16InterpolatedTablesAreBitIdenticalToReference) {
  std::mt19937 rng(8102);
  for (int trial = 0; trial < 12; ++trial) {
    Shape shape = randomShape(rng);
    // A random walk whose steps keep every slope within i16 (the REQUIRE), clipped to i16.
    Tensor table(DType::I16, Shape{513});
    int64_t v = int64_t(rng() % 65536) - 32768;
    for (int64_t i = 0; i < 513; ++i) {
      table.setInt(i, v);
      v = std::clamp<int64_t>(v + int64_t(rng() % 32768) - 16384, -32768, 32767);
    }
    Tensor x(DType::I16, shape);
    for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, int64_t(rng() % 65536) - 32768);
    x.setInt(0, 32767);  // the last interval: index 511, fraction 127
    x.setInt(x.size() - 1, -32768);
    expectSameOnBothBackends("tosa.table", DType::I16, DType::I32, shape, &table, x, "fast:table_i16", trial);
  }
}

TEST(FastTable, SlopeOutsideI16IsLeftToTheReferenceVerdict) {
  // table[0] = -32768, table[1] = 32767: slope 65535 breaks apply_lookup_s's REQUIRE for inputs in [-32768,
  // -32641]; the fast backend runs the reference kernel, so both backends give the same verdict.
  Tensor table(DType::I16, Shape{513});
  table.setInt(0, -32768);
  for (int64_t i = 1; i < 513; ++i) table.setInt(i, 32767);
  Tensor x(DType::I16, Shape{1, 4});
  for (int64_t i = 0; i < 4; ++i) x.setInt(i, -32768 + i);
  NamedTensors in{{"x", x}};
  RunOutcome ref = runOn(oneOp("tosa.table", DType::I16, DType::I32, {1, 4}, &table), "ref", in);
  RunOutcome fast = runOn(oneOp("tosa.table", DType::I16, DType::I32, {1, 4}, &table), "fast", in);
  EXPECT_FALSE(ref.status.isOk());
  EXPECT_EQ(ref.status.code(), fast.status.code()) << ref.status.toString() << " / " << fast.status.toString();
  EXPECT_EQ(fast.stats.steps[0].impl, "ref (fallback)");
}

// An i8 table after another step's i8 result (its only user) is looked up in place by that step
// (withTrailingTable): rescale -> table, conv2d -> rescale -> table (a quantized hard-swish after a conv), at
// sizes on both sides of the parallel threshold, 1 and 2 threads. One step, bit-identical; a table whose input
// has a second user stays its own step; a REQUIRE in the inner kernel reruns both ops on the reference.
struct TrailingCase {
  bool conv = false;         // x i8 [1, H, W, 4] -> conv2d 3x3 -> rescale, else x i32 -> rescale
  bool sharedInput = false;  // the table's input is also an output
  Shape shape;               // the table's shape
  ir::RescaleAttrs rescale;
  Tensor table, weights, bias;
};

std::unique_ptr<ir::Module> trailing(const TrailingCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* acc;
  if (c.conv) {
    auto* x = b.input(ValueType::tensor(DType::I8, {1, c.shape[1], c.shape[2], 4}), "x");
    ir::Conv2dAttrs ca;
    ca.pad = {1, 1, 1, 1};
    ca.inputZp = 3;
    acc = b.conv2d(x, b.constant(c.weights), b.constant(c.bias), ca, "conv");
  } else {
    acc = b.input(ValueType::tensor(DType::I32, c.shape), "x");
  }
  auto* q = b.rescale(acc, DType::I8, c.rescale, "rescale");
  auto* y = b.op1("tosa.table", {q, b.constant(c.table)}, q->type, {}, "table");
  if (c.sharedInput)
    b.output({y, q}, {"y", "q"});
  else
    b.output({y}, {"y"});
  return m;
}

TEST(FastTable, TableAfterAStepIsLookedUpInPlaceByThatStep) {
  std::mt19937 rng(8105);
  for (int trial = 0; trial < 16; ++trial) {
    TrailingCase c;
    c.conv = trial % 4 == 1;
    c.sharedInput = trial % 4 == 3;
    const int64_t C = c.conv ? 8 : 1 + int64_t(rng() % 40);
    c.shape = {1, 1 + int64_t(rng() % 60), 1 + int64_t(rng() % 60), C};
    c.rescale.perChannel = rng() % 2;
    for (int64_t ch = 0; ch < (c.rescale.perChannel ? C : 1); ++ch) {
      c.rescale.multiplier.push_back(int64_t(1u << 30) + int64_t(rng() % (1u << 30)));
      c.rescale.shift.push_back(c.conv ? 38 : 32 + int64_t(rng() % 4));  // >= 32: every i32 inside the REQUIRE
    }
    c.rescale.outputZp = int64_t(rng() % 50) - 25;
    c.table = randomInts(DType::I8, {256}, rng, -128, 127);
    c.weights = randomInts(DType::I8, {C, 3, 3, 4}, rng, -127, 127);
    c.bias = randomInts(DType::I32, {C}, rng, -5000, 5000);
    Tensor x = c.conv ? randomInts(DType::I8, {1, c.shape[1], c.shape[2], 4}, rng, -128, 127)
                      : randomInts(DType::I32, c.shape, rng, -(int64_t(1) << 31), (int64_t(1) << 31) - 1);
    NamedTensors in{{"x", x}};
    const int threads = 1 + trial % 2;
    RunOutcome ref = runOn(trailing(c), "ref", in), fast = runOn(trailing(c), "fast", in, threads);
    ASSERT_TRUE(ref.status.isOk() && fast.status.isOk()) << ref.status.toString() << " / " << fast.status.toString();
    ASSERT_EQ(ref.outputs.size(), fast.outputs.size());
    for (size_t i = 0; i < ref.outputs.size(); ++i)
      EXPECT_TRUE(ref.outputs[i].second.identical(fast.outputs[i].second)) << "trial " << trial << " output " << i;
    const std::string what = "trial " + std::to_string(trial);
    if (c.sharedInput) {
      ASSERT_EQ(fast.stats.steps.size(), 2u) << what;
      EXPECT_EQ(fast.stats.steps[1].impl, "fast:table_i8") << what;
      continue;
    }
    // The conv2d is part of the step at every level (oneDNN with VNNI, else kernels/int8/conv_avx2.cpp: its
    // AVX2 form, or its compiler-vectorized one at the baseline).
    const bool convFused = c.conv;
    ASSERT_EQ(fast.stats.steps.size(), c.conv && !convFused ? 2u : 1u) << what;
    const OpProfile& last = fast.stats.steps.back();
    EXPECT_EQ(last.opType, convFused ? "tosa.conv2d+tosa.rescale+tosa.table" : "tosa.rescale+tosa.table") << what;
    EXPECT_TRUE(last.impl.size() > 9 && last.impl.substr(last.impl.size() - 9) == "+table_i8")
        << what << ": " << last.impl;
    if (!convFused) { EXPECT_EQ(last.impl, "fast:rescale+table_i8") << what; }
  }
}

TEST(FastTable, RequireInTheStepBeforeATableGivesTheReferenceVerdict) {
  // apply_scale_32's value range with shift 2: [-2, 2); 7 is outside. The rescale's kernel leaves it to the
  // reference, which reruns the step's ops (rescale, table) and gives the verdict.
  TrailingCase c;
  c.shape = {1, 1, 2, 2};
  c.rescale.multiplier = {1 << 30};
  c.rescale.shift = {2};
  std::mt19937 rng(8106);
  c.table = randomInts(DType::I8, {256}, rng, -128, 127);
  NamedTensors ok{{"x", Tensor::fromInts(DType::I32, c.shape, {1, -2, 0, 1})}};
  NamedTensors bad{{"x", Tensor::fromInts(DType::I32, c.shape, {1, -2, 7, 1})}};
  RunOutcome refOk = runOn(trailing(c), "ref", ok), fastOk = runOn(trailing(c), "fast", ok);
  ASSERT_TRUE(refOk.status.isOk() && fastOk.status.isOk());
  EXPECT_TRUE(refOk.outputs[0].second.identical(fastOk.outputs[0].second));
  ASSERT_EQ(fastOk.stats.steps.size(), 1u);
  EXPECT_EQ(fastOk.stats.steps[0].impl, "fast:rescale+table_i8");
  RunOutcome refBad = runOn(trailing(c), "ref", bad), fastBad = runOn(trailing(c), "fast", bad);
  EXPECT_FALSE(refBad.status.isOk());
  EXPECT_EQ(refBad.status.code(), fastBad.status.code())
      << refBad.status.toString() << " / " << fastBad.status.toString();
}

TEST(FastCast, FloatToIntRoundsToEvenAndSaturatesLikeReference) {
  std::mt19937 rng(8103);
  const DType outs[] = {DType::I8, DType::I16, DType::I32};
  for (int trial = 0; trial < 12; ++trial) {
    DType outT = outs[trial % 3];
    Shape shape = randomShape(rng);
    Tensor x(DType::FP32, shape);
    std::uniform_real_distribution<float> wide(-3e9f, 3e9f), narrow(-200.f, 200.f);
    for (int64_t i = 0; i < x.size(); ++i) {
      switch (rng() % 4) {
        case 0: x.setFloat(i, wide(rng)); break;
        case 1: x.setFloat(i, narrow(rng)); break;
        case 2: x.setFloat(i, double(int64_t(rng() % 601) - 300) + 0.5); break;  // ties: to even
        default: x.setFloat(i, narrow(rng) * 1e-3); break;
      }
    }
    // Edges: infinities, the float just below 2^31, 2^31 itself, -2^31, -0.
    const double edges[] = {INFINITY, -INFINITY, 2147483520.0, 2147483648.0, -2147483648.0,
                            -0.0,     127.5,     -128.5,       32767.5,      -32768.5};
    for (size_t e = 0; e < std::size(edges) && int64_t(e) < x.size(); ++e) x.setFloat(int64_t(e), edges[e]);
    expectSameOnBothBackends("tosa.cast", DType::FP32, outT, shape, nullptr, x, "fast:cast", trial);
  }
}

TEST(FastCast, IntegerToFloatAndBetweenWidthsAreBitIdentical) {
  std::mt19937 rng(8104);
  const DType ints[] = {DType::I8, DType::I16, DType::I32};
  int trial = 0;
  for (DType inT : ints) {
    for (DType outT : {DType::I8, DType::I16, DType::I32, DType::FP32}) {
      if (inT == outT) continue;
      Shape shape = randomShape(rng);
      Tensor x(inT, shape);
      std::uniform_int_distribution<int64_t> d(dtypeMin(inT), dtypeMax(inT));
      for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, d(rng));
      expectSameOnBothBackends("tosa.cast", inT, outT, shape, nullptr, x, "fast:cast", trial++);
    }
  }
}

TEST(FastCast, NanInputGivesTheReferenceVerdict) {
  Tensor x(DType::FP32, Shape{2, 3});
  for (int64_t i = 0; i < 6; ++i) x.setFloat(i, double(i));
  x.setFloat(4, std::numeric_limits<double>::quiet_NaN());
  NamedTensors in{{"x", x}};
  RunOutcome ref = runOn(oneOp("tosa.cast", DType::FP32, DType::I8, {2, 3}, nullptr), "ref", in);
  RunOutcome fast = runOn(oneOp("tosa.cast", DType::FP32, DType::I8, {2, 3}, nullptr), "fast", in);
  EXPECT_FALSE(ref.status.isOk());  // "If any input is a NaN, the result is unpredictable."
  EXPECT_EQ(ref.status.code(), fast.status.code()) << ref.status.toString() << " / " << fast.status.toString();
}

}  // namespace
}  // namespace tosakit::testing
