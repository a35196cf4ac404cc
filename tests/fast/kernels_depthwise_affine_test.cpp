// Our own fp32 depthwise kernel's affine epilogue (conv -> mul -> add [-> clamp], the unfolded BatchNorm of
// every PP-OCR depthwise): the mul and the add are two fp32 roundings, as TOSA rounds them, never one fused
// multiply-add. Hand-calculated values where the two differ.
#include <cmath>

#include "fast/isa_dispatch.h"
#include "fast_test_util.h"
#include "onednn_test_util.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

Tensor filled(Shape s, float v) {
  Tensor t(DType::FP32, std::move(s));
  for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, v);
  return t;
}

// x = 1 + 2^-12 through a 1x1 depthwise with weight 1 and bias 0 (exactly x), then * s (s = 1 + 2^-12, one
// value or one per channel) and + t (t = -1, one value or per channel), then an optional relu6-style clamp.
// TOSA: x * s = 1 + 2^-11 + 2^-24 is a tie at fp32 precision and rounds to even, 1 + 2^-11; + t = 2^-11
// exactly. A fused multiply-add would give 2^-11 + 2^-24.
TEST(DepthwiseF32Affine, MulAndAddAreSeparateRoundings) {
  const float x = 1.0f + std::ldexp(1.0f, -12), want = std::ldexp(1.0f, -11);
  for (int variant = 0; variant < 8; ++variant) {
    const bool mulPerChannel = variant & 1, addPerChannel = variant & 2, clamp = variant & 4;
    const int64_t C = 37, W = 21;  // 2 full vectors + a tail; blocks of 8, 4 and 1 pixels
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* xv = b.input(ValueType::tensor(DType::FP32, {1, 3, W, C}), "x");
      ir::Value* y =
          b.op1("tosa.depthwise_conv2d",
                {xv, cst(filled({1, 1, C, 1}, 1)), cst(filled({C}, 0)), cst(filled({1}, 0)), cst(filled({1}, 0))},
                ValueType::tensor(DType::FP32, {1, 3, W, C}),
                {{"acc_type", Attribute::type(DType::FP32)},
                 {"pad", Attribute::intArray({0, 0, 0, 0})},
                 {"stride", Attribute::intArray({1, 1})},
                 {"dilation", Attribute::intArray({1, 1})}});
      ir::Value* shift = b.constant(Tensor::fromInts(DType::I8, {1}, {0}));
      y = b.op1("tosa.mul", {y, cst(filled({1, 1, 1, mulPerChannel ? C : 1}, x)), shift}, y->type);
      y = b.op1("tosa.add", {cst(filled({1, 1, 1, addPerChannel ? C : 1}, -1)), y}, y->type);
      if (clamp)
        y = b.op1("tosa.clamp", {y}, y->type,
                  {{"min_val", Attribute::floating(0)}, {"max_val", Attribute::floating(6)}});
      b.output({y}, {"y"});
    };
    const NamedTensors inputs{{"x", filled({1, 3, W, C}, x)}};
    const FastResult f = runFast(g, inputs);
    ASSERT_TRUE(f.compiled);
    EXPECT_EQ(f.impl, fast::withVectorIsa("fast:depthwise_f32"));
    EXPECT_EQ(f.opsAbsorbed, clamp ? 4 : 3);
    for (int64_t i = 0; i < f.output.size(); ++i)
      ASSERT_EQ(float(f.output.getFloat(i)), want) << "variant " << variant << " element " << i;
    // The reference agrees (fp64 then one rounding per op).
    const Tensor ref = runReference(g, inputs, false);
    EXPECT_EQ(float(ref.getFloat(0)), want);
  }
}

}  // namespace
}  // namespace tosakit::testing
