// Our own fp32 depthwise kernel's affine epilogue (conv -> mul -> add [-> clamp], the unfolded BatchNorm of
// every PP-OCR depthwise): the mul and the add are two fp32 roundings, as TOSA rounds them, never one fused
// multiply-add. Hand-calculated values where the two differ. And the kernel's accumulation order (the bias,
// then each in-bounds tap, ky then kx ascending), computed here tap by tap: it is what makes the AVX2 and
// AVX-512 copies give the same bits.
#include <cmath>
#include <random>

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

// Stride 2 (the 3x3 and 5x5 rows that load each input vector once for the two pixels it feeds, and the other
// sizes), rows wide enough for whole blocks, half blocks and borders, channel counts with tails: each output is
// bias[c] then + x * w per in-bounds tap in (ky, kx) order, one fused multiply-add per tap where the level has
// FMA (AVX2, AVX-512), a rounded product and a rounded sum at the baseline. Random values, so any other order
// or grouping changes bits.
TEST(DepthwiseF32Affine, StridedRowsAccumulateTapsInOrder) {
  const bool fma = fast::cpu::vectorIsa() != fast::cpu::VectorIsa::Baseline;
  struct Case {
    int64_t K, C, IW, sy, sx;
  };
  for (const Case& k : {Case{3, 21, 45, 2, 2}, Case{5, 21, 45, 2, 2}, Case{3, 32, 61, 2, 2}, Case{5, 40, 53, 1, 2},
                        Case{4, 19, 47, 2, 2}, Case{3, 9, 39, 2, 1}}) {
    const int64_t IH = 9, pad = k.K / 2, padEnd = k.K - 1 - pad;
    const int64_t OH = (IH - 1 + pad + padEnd - (k.K - 1)) / k.sy + 1,
                  OW = (k.IW - 1 + pad + padEnd - (k.K - 1)) / k.sx + 1;
    std::mt19937 rng(uint32_t(k.K * 1000 + k.C));
    std::uniform_real_distribution<float> d(-1, 1);
    auto randomTensor = [&](Shape s) {
      Tensor t(DType::FP32, std::move(s));
      for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, d(rng));
      return t;
    };
    const Tensor x = randomTensor({1, IH, k.IW, k.C}), w = randomTensor({k.K, k.K, k.C, 1}), bias = randomTensor({k.C});
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* xv = b.input(ValueType::tensor(DType::FP32, x.shape()), "x");
      b.output({b.op1("tosa.depthwise_conv2d", {xv, cst(w), cst(bias), cst(filled({1}, 0)), cst(filled({1}, 0))},
                      ValueType::tensor(DType::FP32, {1, OH, OW, k.C}),
                      {{"acc_type", Attribute::type(DType::FP32)},
                       {"pad", Attribute::intArray({pad, padEnd, pad, padEnd})},
                       {"stride", Attribute::intArray({k.sy, k.sx})},
                       {"dilation", Attribute::intArray({1, 1})}})},
               {"y"});
    };
    const FastResult f = runFast(g, {{"x", x}});
    ASSERT_TRUE(f.compiled);
    EXPECT_EQ(f.impl, fast::withVectorIsa("fast:depthwise_f32"));
    const std::string what = "K " + std::to_string(k.K) + " C " + std::to_string(k.C) + " stride " +
        std::to_string(k.sy) + "x" + std::to_string(k.sx);
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t c = 0; c < k.C; ++c) {
          float acc = bias.getFloat(c);
          for (int64_t ky = 0; ky < k.K; ++ky)
            for (int64_t kx = 0; kx < k.K; ++kx) {
              const int64_t iy = oy * k.sy - pad + ky, ix = ox * k.sx - pad + kx;
              if (iy < 0 || iy >= IH || ix < 0 || ix >= k.IW) continue;
              const float xv = x.getFloat((iy * k.IW + ix) * k.C + c), wv = w.getFloat((ky * k.K + kx) * k.C + c);
              if (fma) {
                acc = std::fma(xv, wv, acc);
              } else {
                const volatile float product = xv * wv;  // rounded to fp32 before the sum
                acc = acc + product;
              }
            }
          const float got = float(f.output.getFloat((oy * OW + ox) * k.C + c));
          ASSERT_EQ(got, acc) << what << " at (" << oy << ", " << ox << ", " << c << ")";
        }
  }
}

}  // namespace
}  // namespace tosakit::testing
