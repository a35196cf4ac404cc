// FPN's upsample-and-add (PP-OCR det): an fp32 NEAREST_NEIGHBOR resize whose only user is a tosa.add with a
// full-size operand runs as one step (src/fast/kernels/data/resize.cpp) — vs the reference backend, identical:
// 2x upsampling and a non-integer scale, the resize's result as either operand of the add, infinities, zeros
// of both signs, NaN in the added operand and (the unfused path inside the step) in the resized input;
// 1 and 2 threads. A broadcast operand is not absorbed.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

Tensor valuesWithSpecials(const Shape& s, std::mt19937& rng, bool withNaN) {
  Tensor x(DType::FP32, s);
  std::uniform_real_distribution<double> d(-3, 3);
  const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
  for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, rng() % 9 == 0 ? sp[rng() % (withNaN ? 5 : 4)] : d(rng));
  return x;
}

struct Case {
  Shape in, out;
  std::vector<int64_t> scale, offset, border;
  bool resizedFirst;
  Shape addShape;  // the other operand's shape (the output's, or a broadcast)
};

std::unique_ptr<ir::Module> makeGraph(const Case& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::FP32, c.in), "x");
  ir::Value* a = b.input(ValueType::tensor(DType::FP32, c.addShape), "a");
  ir::Value* y = b.op1("tosa.resize", {x, b.constShape(c.scale), b.constShape(c.offset), b.constShape(c.border)},
                       ValueType::tensor(DType::FP32, c.out), {{"mode", Attribute::enumCase("NEAREST_NEIGHBOR")}});
  ir::Value* z = b.op1("tosa.add", c.resizedFirst ? std::vector<ir::Value*>{y, a} : std::vector<ir::Value*>{a, y},
                       ValueType::tensor(DType::FP32, c.out));
  b.output({z}, {"z"});
  return m;
}

TEST(FastResizeAdd, NearestUpsampleAndAddIsOneStepIdenticalToReference) {
  std::mt19937 rng(303);
  const std::vector<Case> cases = {
      // 2x: scale 2/1 (TOSA: scale_y_n/d = 4/2), offset -1 and border 1 as ONNX's nearest upsample imports.
      {{1, 40, 40, 24}, {1, 80, 80, 24}, {4, 2, 4, 2}, {-1, -1}, {1, 1}, true, {1, 80, 80, 24}},
      {{2, 7, 9, 5}, {2, 14, 18, 5}, {4, 2, 4, 2}, {-1, -1}, {1, 1}, false, {2, 14, 18, 5}},
      // 3/2 along H (offset 0, border chosen so the output size is exact), 1 along W.
      {{1, 9, 6, 16}, {1, 13, 6, 16}, {3, 2, 2, 2}, {0, 0}, {0, 0}, true, {1, 13, 6, 16}},
  };
  for (size_t k = 0; k < cases.size(); ++k)
    for (bool nanInInput : {false, true}) {
      const Case& c = cases[k];
      NamedTensors in{{"x", valuesWithSpecials(c.in, rng, nanInInput)},
                      {"a", valuesWithSpecials(c.addShape, rng, true)}};
      RunOutcome ref = runOn(makeGraph(c), "ref", in, 1);
      ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
      for (int threads : {1, 2}) {
        RunOutcome fast = runOn(makeGraph(c), "fast", in, threads);
        ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
        EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second))
            << "case " << k << " NaN input " << nanInInput << " threads " << threads;
        ASSERT_EQ(fast.stats.steps.size(), 1u) << "case " << k;
        EXPECT_EQ(fast.stats.steps[0].impl, "fast:resize_nearest+add");
      }
    }
}

TEST(FastResizeAdd, BroadcastOperandIsNotAbsorbed) {
  std::mt19937 rng(304);
  const Case c{{1, 5, 5, 8}, {1, 10, 10, 8}, {4, 2, 4, 2}, {-1, -1}, {1, 1}, true, {1, 1, 1, 8}};
  NamedTensors in{{"x", valuesWithSpecials(c.in, rng, false)}, {"a", valuesWithSpecials(c.addShape, rng, false)}};
  RunOutcome ref = runOn(makeGraph(c), "ref", in, 1), fast = runOn(makeGraph(c), "fast", in, 1);
  ASSERT_TRUE(ref.status.isOk() && fast.status.isOk());
  EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second));
  ASSERT_EQ(fast.stats.steps.size(), 2u);
  EXPECT_EQ(fast.stats.steps[0].impl, "fast:resize_nearest");
}

}  // namespace
}  // namespace tosakit::testing
