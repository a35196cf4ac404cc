// tosa.rescale (and rescale -> clamp) on the fast backend vs the reference backend: random types, per-channel
// and per-tensor scales, single and double rounding, zero points; fixed seeds; results bit-identical, and a
// value outside apply_scale_32's range gives the reference's REQUIRE verdict on both backends.
#include <gtest/gtest.h>

#include <random>

#include "fast/kernels/int8/int8.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

// An i8 input with one scale runs through its 256-entry table (compiler-vectorized rows) or, with AVX-512, the
// same values computed in registers; both are run.
void randomRescales(uint32_t seed) {
  std::mt19937 rng(seed);
  const DType ins[] = {DType::I8, DType::I16, DType::I32};
  const DType outs[] = {DType::I8, DType::I16, DType::I32};
  for (int trial = 0; trial < 60; ++trial) {
    DType inT = ins[rng() % 3], outT = outs[rng() % 3];
    Shape shape{1 + int64_t(rng() % 3), 1 + int64_t(rng() % 5), 1 + int64_t(rng() % 9)};
    ir::RescaleAttrs a;
    a.perChannel = rng() % 2;
    a.roundingMode = rng() % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    int64_t C = a.perChannel ? shape.back() : 1;
    for (int64_t c = 0; c < C; ++c) {
      a.multiplier.push_back(int64_t(rng() % (1u << 31)));
      a.shift.push_back(inT == DType::I32 ? 33 + int64_t(rng() % 20) : 2 + int64_t(rng() % 40));
    }
    a.inputZp = inT == DType::I8 ? int64_t(rng() % 256) - 128 : 0;
    a.outputZp = outT == DType::I8 ? int64_t(rng() % 256) - 128 : 0;
    bool clamp = outT == DType::I8 && rng() % 2;
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      auto* x = b.input(ValueType::tensor(inT, shape), "x");
      ir::Value* y = b.rescale(x, outT, a);
      if (clamp) y = b.clamp(y, -20, 100);
      b.output({y}, {"y"});
      return m;
    };
    Tensor x(inT, shape);
    std::uniform_int_distribution<int64_t> d(dtypeMin(inT), dtypeMax(inT));
    for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, d(rng));
    NamedTensors in{{"x", x}};
    RunOutcome ref = runOn(make(), "ref", in), fast = runOn(make(), "fast", in);
    ASSERT_EQ(ref.status.code(), fast.status.code())
        << "trial " << trial << ": " << ref.status.toString() << " / " << fast.status.toString();
    if (ref.status.isOk()) {
      EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "trial " << trial;
    }
    EXPECT_EQ(fast.stats.steps[0].impl, "fast:rescale");
  }
}

TEST(FastRescale, RandomRescalesAreBitIdenticalToReference) { randomRescales(31337); }

TEST(FastRescale, RandomRescalesOnTheGenericRowsAreBitIdenticalToReference) {
  fast::dnn::setIntEpilogueGenericForTesting(true);
  randomRescales(31338);
  fast::dnn::setIntEpilogueGenericForTesting(false);
}

TEST(FastRescale, LargeTensorsInBlocksOfRowsAreBitIdenticalToReference) {
  // Rows are processed in blocks of 1024 / C rows (a partial block at the end), in parallel above 65536
  // elements: per channel and per tensor, i8 -> i32 (a quantized add's operand) and i32 -> i8.
  std::mt19937 rng(4242);
  const Shape shape{2, 37, 53, 24};
  for (int trial = 0; trial < 4; ++trial) {
    const DType inT = trial % 2 ? DType::I32 : DType::I8, outT = trial % 2 ? DType::I8 : DType::I32;
    ir::RescaleAttrs a;
    a.perChannel = trial >= 2;
    for (int64_t c = 0; c < (a.perChannel ? shape.back() : 1); ++c) {
      a.multiplier.push_back(int64_t(1u << 30) + int64_t(rng() % (1u << 30)));
      a.shift.push_back(inT == DType::I32 ? 36 + int64_t(rng() % 6) : 12 + int64_t(rng() % 8));
    }
    a.inputZp = inT == DType::I8 ? -7 : 0;
    a.outputZp = outT == DType::I8 ? 5 : 0;
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      b.output({b.rescale(b.input(ValueType::tensor(inT, shape), "x"), outT, a)}, {"y"});
      return m;
    };
    Tensor x(inT, shape);
    std::uniform_int_distribution<int64_t> d(inT == DType::I8 ? -128 : -(int64_t(1) << 30),
                                             inT == DType::I8 ? 127 : (int64_t(1) << 30));
    for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, d(rng));
    NamedTensors in{{"x", x}};
    RunOutcome ref = runOn(make(), "ref", in), fast = runOn(make(), "fast", in);
    ASSERT_TRUE(ref.status.isOk() && fast.status.isOk()) << ref.status.toString() << " / " << fast.status.toString();
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "trial " << trial;
    EXPECT_EQ(fast.stats.steps[0].impl, "fast:rescale");
  }
}

TEST(FastRescale, ValueOutsideTheShiftRangeIsUnpredictableOnBothBackends) {
  // apply_scale_32 REQUIREs value in [-(1 << (shift - 1)), 1 << (shift - 1)): shift 4 allows [-8, 8); 100 is out.
  auto make = [] {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    auto* x = b.input(ValueType::tensor(DType::I16, {3}), "x");
    ir::RescaleAttrs a;
    a.multiplier = {1 << 30};
    a.shift = {4};
    b.output({b.rescale(x, DType::I8, a)}, {"y"});
    return m;
  };
  NamedTensors in{{"x", Tensor::fromInts(DType::I16, {3}, {1, 100, -2})}};
  EXPECT_EQ(runOn(make(), "ref", in).status.code(), StatusCode::Unpredictable);
  EXPECT_EQ(runOn(make(), "fast", in).status.code(), StatusCode::Unpredictable);
}

TEST(FastRescale, I8LookupTableKeepsTheRangeRequire) {
  // A per-tensor i8 rescale runs as a 256-entry lookup, except when some i8 value breaks apply_scale_32's
  // range (shift 4 allows [-8, 8)): then in-range inputs still match and an out-of-range one is unpredictable.
  for (int64_t shift : {int64_t(4), int64_t(20)}) {
    auto make = [&] {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      auto* x = b.input(ValueType::tensor(DType::I8, {2, 130}), "x");
      ir::RescaleAttrs a;
      a.multiplier = {(int64_t(1) << 30) + 12345};
      a.shift = {shift};
      a.inputZp = 3;
      b.output({b.rescale(x, DType::I32, a)}, {"y"});
      return m;
    };
    Tensor small(DType::I8, {2, 130}), all(DType::I8, {2, 130});
    for (int64_t i = 0; i < 260; ++i) small.setInt(i, 3 + (i % 16) - 8), all.setInt(i, (i % 256) - 128);
    for (const Tensor* x : {&small, &all}) {
      NamedTensors in{{"x", *x}};
      RunOutcome ref = runOn(make(), "ref", in), fast = runOn(make(), "fast", in);
      ASSERT_EQ(ref.status.code(), fast.status.code()) << "shift " << shift;
      if (ref.status.isOk()) {
        EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "shift " << shift;
      }
      if (shift == 4 && x == &all) { EXPECT_EQ(fast.status.code(), StatusCode::Unpredictable); }
    }
  }
}

}  // namespace
}  // namespace tosakit::testing
