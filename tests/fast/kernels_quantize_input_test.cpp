// The quantized network input (src/fast/kernels/int8/quantize_input.cpp): MUL by a constant fp32 scale -> CAST to
// i8/i16 [-> NCHW -> NHWC TRANSPOSE] as one step. Hand-computed values for CAST's round-to-nearest-even and
// saturation, then random data vs the reference backend (bit-identical), a NaN's REQUIRE verdict, and the
// fused step actually chosen (a test that passed through the unfused kernels would prove nothing).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

// x [N, C, H, W] fp32 -> x * scale -> cast outT -> (transpose to NHWC when `nhwc`).
std::unique_ptr<ir::Module> quantizeInput(const Shape& s, float scale, DType outT, bool nhwc) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::FP32, s), "x");
  Tensor c(DType::FP32, Shape(s.size(), 1));
  c.setFloat(0, scale);
  ir::Value* q = b.op1("tosa.cast", {b.mul(x, b.constant(c))}, ValueType::tensor(outT, s));
  if (nhwc) q = b.transpose(q, {0, 2, 3, 1});
  b.output({q}, {"y"});
  return m;
}

TEST(FastQuantizeInput, HandComputedRoundingAndSaturationInNhwcOrder) {
  // scale 0.5 is exact: x * 0.5 = 1.25, 2.5, -2.5, 3.5, 300, -1e30 | 0.5, -0.5, 126.5, -128.5, inf, -inf.
  // round to nearest, ties to even, then clip to [-128, 127]: 1, 2, -2, 4, 127, -128 | 0, -0, 126, -128, 127, -128.
  const float inf = std::numeric_limits<float>::infinity();
  Tensor x(DType::FP32, {1, 2, 1, 6});
  const float v[12] = {2.5f, 5, -5, 7, 600, -2e30f, 1, -1, 253, -257, inf, -inf};
  for (int i = 0; i < 12; ++i) x.setFloat(i, v[i]);
  SingleOutcome f = runSingle(quantizeInput({1, 2, 1, 6}, 0.5f, DType::I8, true), "fast", x, 1);
  ASSERT_TRUE(f.status.isOk()) << f.status.toString();
  EXPECT_EQ(f.impl, "fast:quantize_nhwc");
  // NHWC: position p's two channels side by side.
  const int64_t want[12] = {1, 0, 2, 0, -2, 126, 4, -128, 127, 127, -128, -128};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(f.output.getInt(i), want[i]) << i;
}

struct Case {
  Shape shape;
  DType out;
  bool nhwc;
  const char* impl;
};

TEST(FastQuantizeInput, RandomDataIdenticalToReference) {
  std::mt19937 rng(2027);
  const Case cases[] = {
      {{1, 3, 224, 224}, DType::I8, true, "fast:quantize_nhwc"},  // mobilenet_v2's input, split over threads
      {{2, 3, 17, 19}, DType::I8, true, "fast:quantize_nhwc"},    // 323 positions: a masked tail per image
      {{1, 4, 9, 7}, DType::I8, true, "fast:quantize_nhwc"},      // C = 4: the portable interleave
      {{1, 1, 5, 33}, DType::I8, true, "fast:quantize_nhwc"},     {{3, 5, 7, 11}, DType::I8, false, "fast:quantize"},
      {{2, 3, 150, 230}, DType::I16, true, "fast:quantize_nhwc"}, {{1, 3, 8, 8}, DType::I16, false, "fast:quantize"},
  };
  for (const Case& c : cases) {
    // Scales as calibration writes them (127 / threshold) and values over the whole range and beyond it, with
    // some exact halves (ties) through a power-of-two scale.
    for (float scale : {27.7754955f, 0.5f, 3.0e-3f}) {
      Tensor x(DType::FP32, c.shape);
      std::normal_distribution<float> d(0.f, 3.f);
      std::uniform_int_distribution<int> halves(-700, 700);
      for (int64_t i = 0; i < x.size(); ++i)
        x.setFloat(i, i % 5 == 0 ? halves(rng) * 0.5f / scale : d(rng) * (scale == 0.5f ? 90.f : 1.f / scale * 40.f));
      SingleOutcome r = runSingle(quantizeInput(c.shape, scale, c.out, c.nhwc), "ref", x, 1);
      ASSERT_TRUE(r.status.isOk()) << r.status.toString();
      for (int threads : {1, 2}) {
        SingleOutcome f = runSingle(quantizeInput(c.shape, scale, c.out, c.nhwc), "fast", x, threads);
        ASSERT_TRUE(f.status.isOk()) << f.status.toString();
        EXPECT_EQ(f.impl, c.impl);
        EXPECT_TRUE(f.output.identical(r.output))
            << shapeToString(c.shape) << " scale " << scale << " threads " << threads;
      }
    }
  }
}

TEST(FastQuantizeInput, NanIsUnpredictableOnBothBackends) {
  // CAST of a NaN is a REQUIRE ("the result is unpredictable"): the fused step reruns on the reference kernels.
  const Shape s{1, 3, 4, 20};
  Tensor x(DType::FP32, s);
  for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, 0.25 * double(i % 9));
  x.setFloat(77, std::numeric_limits<double>::quiet_NaN());
  for (bool nhwc : {true, false}) {
    SingleOutcome r = runSingle(quantizeInput(s, 2.f, DType::I8, nhwc), "ref", x, 1);
    SingleOutcome f = runSingle(quantizeInput(s, 2.f, DType::I8, nhwc), "fast", x, 1);
    EXPECT_EQ(r.status.code(), StatusCode::Unpredictable) << r.status.toString();
    EXPECT_EQ(f.status.code(), StatusCode::Unpredictable) << f.status.toString();
  }
}

}  // namespace
}  // namespace tosakit::testing
