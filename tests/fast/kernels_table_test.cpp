// tosa.table (i8 256-entry, i16 513-entry interpolated) and tosa.cast (fp32 <-> i8/i16/i32, integer widths) on
// the fast backend vs the reference backend: random tables and data, fixed seeds, bit-identical results, the
// fast kernel (not the fallback) ran; a table breaking apply_lookup_s's slope REQUIRE and a NaN cast input get
// the reference's verdict on both backends.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"
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

void expectSameOnBothBackends(const std::string& name, DType inT, DType outT, const Shape& shape,
                              const Tensor* table, const Tensor& x, const std::string& impl, int trial) {
  NamedTensors in{{"x", x}};
  RunOutcome ref = runOn(oneOp(name, inT, outT, shape, table), "ref", in);
  RunOutcome fast = runOn(oneOp(name, inT, outT, shape, table), "fast", in);
  ASSERT_EQ(ref.status.code(), fast.status.code())
      << "trial " << trial << ": " << ref.status.toString() << " / " << fast.status.toString();
  if (ref.status.isOk()) {
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "trial " << trial;
  }
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
    const double edges[] = {INFINITY, -INFINITY, 2147483520.0, 2147483648.0, -2147483648.0, -0.0, 127.5, -128.5,
                            32767.5, -32768.5};
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
