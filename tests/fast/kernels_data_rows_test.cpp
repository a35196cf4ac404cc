// copyBox's row walk (src/fast/kernels/data/movement.cpp): each thread decomposes its first row's index once and then
// counts the outer axes up row by row. Boxes that stay rank 3 and 4 after merging contiguous axes, split over
// 2 threads in the middle of an axis, vs the reference backend: transposes of fp32 and i8, a slice and a
// concat along a middle axis; results identical (data movement changes no value).
#include <gtest/gtest.h>

#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"
#include "isa_test_util.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

Tensor randomOf(DType t, const Shape& s, std::mt19937& rng) {
  Tensor x(t, s);
  std::uniform_int_distribution<int> d(-100, 100);
  for (int64_t i = 0; i < x.size(); ++i) {
    if (t == DType::FP32)
      x.setFloat(i, d(rng) * 0.25);
    else
      x.setInt(i, d(rng));
  }
  return x;
}

TEST(FastDataRows, RankThreeAndFourBoxesSplitOverThreadsIdentical) {
  std::mt19937 rng(91);
  const Shape a{2, 33, 29, 41};  // 78K elements: above the size where copies split over threads
  auto make = [&]() {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    ir::Value* x = b.input(ValueType::tensor(DType::FP32, a), "x");
    ir::Value* q = b.input(ValueType::tensor(DType::I8, a), "q");
    ir::Value* t1 = b.transpose(x, {2, 0, 3, 1});  // no two axes contiguous on both sides: a rank-4 box
    ir::Value* t2 = b.transpose(q, {1, 0, 2, 3});  // [33, 2, 29*41]: rank 3
    ir::Value* sl = b.op1("tosa.slice", {x, b.constShape({1, 2, 3, 4}), b.constShape({1, 30, 25, 36})},
                          ValueType::tensor(DType::FP32, {1, 30, 25, 36}));
    ir::Value* cc = b.op1("tosa.concat", {x, x}, ValueType::tensor(DType::FP32, {2, 66, 29, 41}),
                          {{"axis", Attribute::integer(1, DType::I32)}});
    b.output({t1, t2, sl, cc}, {"t1", "t2", "s", "c"});
    return m;
  };
  NamedTensors in{{"x", randomOf(DType::FP32, a, rng)}, {"q", randomOf(DType::I8, a, rng)}};
  RunOutcome ref = runOn(make(), "ref", in, 1);
  ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
  for (int threads : {1, 2}) {
    RunOutcome fast = runOn(make(), "fast", in, threads);
    ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
    for (size_t i = 0; i < ref.outputs.size(); ++i)
      EXPECT_TRUE(ref.outputs[i].second.identical(fast.outputs[i].second))
          << ref.outputs[i].first << " threads " << threads;
    for (const OpProfile& p : fast.stats.steps) EXPECT_FALSE(p.fallback) << p.opType;
  }
}

// fp32 [N, 3, H, W] -> [N, H, W, 3] (an imported network's input) on its own interleaving path: sizes with a
// masked tail of positions, a multi-image batch, a tensor large enough to split over threads. Identical to the
// reference, and the path was taken.
TEST(FastDataRows, ThreeChannelImageToNhwcIdentical) {
  std::mt19937 rng(92);
  for (const Shape& s : {Shape{1, 3, 224, 224}, Shape{2, 3, 7, 9}, Shape{1, 3, 1, 1}, Shape{3, 3, 48, 19}}) {
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      ir::Value* x = b.input(ValueType::tensor(DType::FP32, s), "x");
      b.output({b.transpose(x, {0, 2, 3, 1})}, {"y"});
      return m;
    };
    const Tensor x = randomOf(DType::FP32, s, rng);
    SingleOutcome ref = runSingle(make(), "ref", x, 1);
    ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
    for (int threads : {1, 2}) {
      SingleOutcome fast = runSingle(make(), "fast", x, threads);
      ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
      EXPECT_EQ(fast.impl, levelHas(fast::cpu::Isa::Avx512) ? "fast:transpose_nhwc3" : "fast:transpose");
      EXPECT_TRUE(fast.output.identical(ref.output)) << shapeToString(s) << " threads " << threads;
    }
  }
}

}  // namespace
}  // namespace tosakit::testing
