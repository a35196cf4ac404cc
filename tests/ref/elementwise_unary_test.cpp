// Elementwise unary operators (spec 2.6). Expected values are hand calculations from the pseudocode, the
// "Floating-point behavior" tables, or known constants rounded to the element type.
#include <cmath>
#include <limits>

#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

OpRun unary(const std::string& op, Tensor a) {
  Shape s = a.shape();
  DType t = a.dtype();
  return runBoth(op, {Arg(std::move(a))}, {TT(t, s)});
}

// Exact comparison where NaN matches NaN and the sign of zero matters.
void expectSameDoubles(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << " = " << got[i];
    } else {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
      EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of element " << i;
    }
  }
}

OpRun unaryF(const std::string& op, DType t, std::vector<double> v) {
  int64_t n = int64_t(v.size());
  return unary(op, Reals(t, {n}, std::move(v)));
}

const Shape kRank7 = {1, 1, 1, 1, 1, 1, 1};

// ---- 2.6.1 ABS ----

TEST(AbsTest, Fp32SpecialValues) {
  // Behavior table: -inf -> +inf, +inf -> +inf, -0 -> +0, +0 -> +0, NaN -> NaN; -0.5 -> 0.5
  auto r = unaryF("tosa.abs", DType::FP32, {-1.5, -0.0, 0.0, -kInf, kInf, kNaN, 2, -0.5});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1.5, 0.0, 0.0, kInf, kInf, kNaN, 2, 0.5});
}

TEST(AbsTest, Fp16Bf16Int32) {
  auto r = unaryF("tosa.abs", DType::FP16, {-65504, 0.5});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {65504, 0.5});
  r = unaryF("tosa.abs", DType::BF16, {-2, 3});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {2, 3});
  r = unary("tosa.abs", Ints(DType::I32, {3}, {-5, 7, -2147483647}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{5, 7, 2147483647}));
}

TEST(AbsTest, Int32MinimumIsUnpredictable) {
  // apply_sub_s<i32_t>(0, -2^31) = 2^31 > maximum_s<i32_t>
  EXPECT_UNPREDICTABLE(unary("tosa.abs", Ints(DType::I32, {1}, {-2147483648LL})));
}

TEST(AbsTest, ShapeLevelAndTypeErrors) {
  EXPECT_SPEC_ERROR(runBoth("tosa.abs", {Arg(Ints(DType::I32, {2}, {1, 2}))}, {TT(DType::I32, {3})}));
  EXPECT_SPEC_ERROR(unary("tosa.abs", Ints(DType::I32, kRank7, {1})));  // LEVEL_CHECK(rank(shape) <= MAX_RANK)
  EXPECT_SPEC_ERROR(unary("tosa.abs", Ints(DType::I8, {1}, {1})));      // i8 is not a row of ABS's table
}

// ---- 2.6.2 BITWISE_NOT ----

TEST(BitwiseNotTest, AllTypes) {
  // ~0 = -1, ~-1 = 0, ~127 = -128 ; i16: ~0x00FF = 0xFF00 = -256 ; i32: ~0x7FFFFFFF = 0x80000000
  auto r = unary("tosa.bitwise_not", Ints(DType::I8, {3}, {0, -1, 127}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-1, 0, -128}));
  r = unary("tosa.bitwise_not", Ints(DType::I16, {1}, {255}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-256}));
  r = unary("tosa.bitwise_not", Ints(DType::I32, {2}, {0, 2147483647}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-1, -2147483648LL}));
}

TEST(BitwiseNotTest, Errors) {
  EXPECT_SPEC_ERROR(runBoth("tosa.bitwise_not", {Arg(Ints(DType::I8, {2}, {1, 2}))}, {TT(DType::I8, {1})}));
  EXPECT_SPEC_ERROR(unary("tosa.bitwise_not", Ints(DType::I8, kRank7, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.bitwise_not", Ints(DType::Bool, {1}, {1})));
}

// ---- 2.6.3 CEIL ----

TEST(CeilTest, Fp32SpecialValues) {
  // ceil(1.5) = 2, ceil(-1.5) = -1, ceil(-0.5) = -0, table: -inf, +inf, -0, +0, NaN map to themselves
  auto r = unaryF("tosa.ceil", DType::FP32, {1.5, -1.5, -0.5, 2, -kInf, kInf, -0.0, 0.0, kNaN});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {2, -1, -0.0, 2, -kInf, kInf, -0.0, 0.0, kNaN});
}

TEST(CeilTest, Fp16Bf16) {
  // fp16(0.1) = 0.0999755859375 -> 1 ; bf16: ceil(-2.5) = -2
  auto r = unaryF("tosa.ceil", DType::FP16, {0.1, 65504});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, 65504});
  r = unaryF("tosa.ceil", DType::BF16, {-2.5});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {-2});
}

TEST(CeilTest, Errors) {
  EXPECT_SPEC_ERROR(runBoth("tosa.ceil", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {2, 1})}));
  EXPECT_SPEC_ERROR(unary("tosa.ceil", Reals(DType::FP32, kRank7, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.ceil", Ints(DType::I32, {1}, {1})));
}

// ---- 2.6.4 CLZ ----

TEST(ClzTest, Int32) {
  // 0 -> 32, 1 -> 31, -1 (sign bit set) -> 0, 65536 = 2^16 -> 15, 0x7FFFFFFF -> 1
  auto r = unary("tosa.clz", Ints(DType::I32, {5}, {0, 1, -1, 65536, 2147483647}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{32, 31, 0, 15, 1}));
}

TEST(ClzTest, Errors) {
  EXPECT_SPEC_ERROR(runBoth("tosa.clz", {Arg(Ints(DType::I32, {2}, {1, 2}))}, {TT(DType::I32, {1})}));
  EXPECT_SPEC_ERROR(unary("tosa.clz", Ints(DType::I32, kRank7, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.clz", Ints(DType::I8, {1}, {1})));
}

// ---- 2.6.5 COS / 2.6.13 SIN ----

TEST(CosTest, Fp32) {
  // cos(+-0) = 1, cos(inf) = NaN, cos(NaN) = NaN; fp32(pi) = 3.14159274...: cos = -1 + 4e-15 -> fp32 -1
  auto r = unaryF("tosa.cos", DType::FP32, {0.0, -0.0, kInf, -kInf, kNaN, 3.14159265358979});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, 1, kNaN, kNaN, kNaN, -1});
}

TEST(CosTest, Fp16Bf16) {
  // fp16(pi/3) = 1.046875: cos = 0.50136... ; fp16 spacing near 0.5 is 2^-11, so 0.5013 within 1e-3 of 0.5
  auto r = unaryF("tosa.cos", DType::FP16, {0, 1.0471975511965976});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_EQ(v[0], 1);
  EXPECT_NEAR(v[1], 0.5, 2e-3);
  r = unaryF("tosa.cos", DType::BF16, {0});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1});
}

TEST(SinTest, Fp32) {
  // sin(+0) = +0, sin(-0) = -0, sin(+-inf) = NaN; fp32(pi/2) = 1.5707963705: sin = 1 - 1e-15 -> fp32 1
  auto r = unaryF("tosa.sin", DType::FP32, {0.0, -0.0, kInf, -kInf, kNaN, 1.5707963267948966});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.0, -0.0, kNaN, kNaN, kNaN, 1});
}

TEST(SinTest, Fp16Bf16) {
  // fp16(pi/6) = 0.5234375: sin = 0.49977...
  auto r = unaryF("tosa.sin", DType::FP16, {0, 0.5235987755982988});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_EQ(v[0], 0);
  EXPECT_NEAR(v[1], 0.5, 2e-3);
  r = unaryF("tosa.sin", DType::BF16, {-0.0});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {-0.0});
}

TEST(CosSinTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.cos", Ints(DType::I32, {1}, {0})));
  EXPECT_SPEC_ERROR(unary("tosa.sin", Ints(DType::I32, {1}, {0})));
  EXPECT_SPEC_ERROR(unary("tosa.sin", Reals(DType::FP32, kRank7, {0})));
  EXPECT_SPEC_ERROR(runBoth("tosa.cos", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {1})}));
}

// ---- 2.6.6 EXP ----

TEST(ExpTest, Fp32) {
  // exp(0) = 1, e rounded to fp32 = 2.7182817459106445, exp(-inf) = +0, exp(inf) = inf, NaN -> NaN,
  // exp(89) = 4.49e38 > fp32 max 3.40e38 -> inf
  auto r = unaryF("tosa.exp", DType::FP32, {0, -0.0, 1, -kInf, kInf, kNaN, 89});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, 1, 2.7182817459106445, 0.0, kInf, kNaN, kInf});
}

TEST(ExpTest, Fp16Bf16) {
  // fp16: e -> 2.71875 (spacing 2^-9 in [2,4): 2 + 368 * 2^-9), exp(12) = 162754.8 > 65504 -> inf
  // bf16: e -> 2.71875 (spacing 2^-6 in [2,4): 2 + 46 * 2^-6)
  auto r = unaryF("tosa.exp", DType::FP16, {1, 12});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {2.71875, kInf});
  r = unaryF("tosa.exp", DType::BF16, {1});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {2.71875});
}

TEST(ExpTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.exp", Ints(DType::I32, {1}, {0})));
  EXPECT_SPEC_ERROR(unary("tosa.exp", Reals(DType::FP16, kRank7, {0})));
  EXPECT_SPEC_ERROR(runBoth("tosa.exp", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {1})}));
}

// ---- 2.6.7 FLOOR ----

TEST(FloorTest, AllTypes) {
  // floor(1.5) = 1, floor(-1.5) = -2, floor(-0) = -0, floor(0.5) = +0, inf and NaN unchanged
  auto r = unaryF("tosa.floor", DType::FP32, {1.5, -1.5, -0.0, 0.5, -kInf, kInf, kNaN});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, -2, -0.0, 0.0, -kInf, kInf, kNaN});
  r = unaryF("tosa.floor", DType::FP16, {2.5});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {2});
  r = unaryF("tosa.floor", DType::BF16, {-0.5});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {-1});
}

TEST(FloorTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.floor", Ints(DType::I32, {1}, {0})));
  EXPECT_SPEC_ERROR(unary("tosa.floor", Reals(DType::BF16, kRank7, {0})));
  EXPECT_SPEC_ERROR(runBoth("tosa.floor", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {1})}));
}

// ---- 2.6.8 LOG ----

TEST(LogTest, Fp32SpecialValues) {
  // log(1) = 0, log(+-0) = -inf, log(-1) = NaN, log(-inf) = NaN, log(inf) = inf, NaN -> NaN
  auto r = unaryF("tosa.log", DType::FP32, {1, 0.0, -0.0, -1, -kInf, kInf, kNaN});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0, -kInf, -kInf, kNaN, kNaN, kInf, kNaN});
}

TEST(LogTest, Values) {
  // fp32: log(fp32(e) = 2.7182817459) = 0.99999997 ; fp16: log(0.5) = -0.693147 ; bf16: log(1) = 0
  auto r = unaryF("tosa.log", DType::FP32, {2.718281828459045});
  EXPECT_RUN_OK(r);
  EXPECT_NEAR(r.outputs[0].toDoubles()[0], 1.0, 1.2e-7);
  r = unaryF("tosa.log", DType::FP16, {0.5});
  EXPECT_RUN_OK(r);
  EXPECT_NEAR(r.outputs[0].toDoubles()[0], -0.6931471805599453, 5e-4);
  r = unaryF("tosa.log", DType::BF16, {1});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0});
}

TEST(LogTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.log", Ints(DType::I32, {1}, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.log", Reals(DType::FP32, kRank7, {1})));
  EXPECT_SPEC_ERROR(runBoth("tosa.log", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {1})}));
}

// ---- 2.6.9 LOGICAL_NOT ----

TEST(LogicalNotTest, Bool) {
  auto r = unary("tosa.logical_not", Ints(DType::Bool, {2}, {0, 1}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0}));
}

TEST(LogicalNotTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.logical_not", Ints(DType::I8, {1}, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.logical_not", Ints(DType::Bool, kRank7, {1})));
  EXPECT_SPEC_ERROR(runBoth("tosa.logical_not", {Arg(Ints(DType::Bool, {2}, {1, 0}))}, {TT(DType::Bool, {1})}));
}

// ---- 2.6.10 NEGATE ----

OpRun negate(Tensor a, Tensor zpIn, Tensor zpOut) {
  Shape s = a.shape();
  DType t = a.dtype();
  return runBoth("tosa.negate", {Arg(std::move(a)), Const(std::move(zpIn)), Const(std::move(zpOut))}, {TT(t, s)});
}

TEST(NegateTest, FloatTypes) {
  // Behavior table: -inf -> +inf, +inf -> -inf, -0 -> +0, +0 -> -0, NaN -> NaN
  auto r = negate(Reals(DType::FP32, {6}, {1.5, -kInf, kInf, -0.0, 0.0, kNaN}), Reals(DType::FP32, {1}, {0}),
                  Reals(DType::FP32, {1}, {0}));
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {-1.5, kInf, -kInf, 0.0, -0.0, kNaN});
  r = negate(Reals(DType::FP16, {2}, {65504, -0.25}), Reals(DType::FP16, {1}, {0}), Reals(DType::FP16, {1}, {0}));
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {-65504, 0.25});
  r = negate(Reals(DType::BF16, {1}, {3}), Reals(DType::BF16, {1}, {0}), Reals(DType::BF16, {1}, {0}));
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {-3});
}

TEST(NegateTest, Int8WithZeroPoints) {
  // input1_zp = 10, output_zp = -5: v -> clip(-(v - 10) + -5, -128, 127)
  // 20 -> -10 - 5 = -15 ; -128 -> 138 - 5 = 133 -> 127 ; 127 -> -117 - 5 = -122 ; 10 -> -5
  auto r = negate(Ints(DType::I8, {4}, {20, -128, 127, 10}), Ints(DType::I8, {1}, {10}), Ints(DType::I8, {1}, {-5}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-15, 127, -122, -5}));
}

TEST(NegateTest, Int16Int32) {
  // i16: -(-32768) = 32768 clipped to 32767 ; -(5) = -5
  auto r = negate(Ints(DType::I16, {2}, {-32768, 5}), Ints(DType::I16, {1}, {0}), Ints(DType::I16, {1}, {0}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{32767, -5}));
  r = negate(Ints(DType::I32, {2}, {5, -2147483647}), Ints(DType::I32, {1}, {0}), Ints(DType::I32, {1}, {0}));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-5, 2147483647}));
}

TEST(NegateTest, Int32OverflowIsUnpredictable) {
  // apply_sub_s<i32_t>(0, -2^31) overflows acc_t = i32_t
  EXPECT_UNPREDICTABLE(
      negate(Ints(DType::I32, {1}, {-2147483648LL}), Ints(DType::I32, {1}, {0}), Ints(DType::I32, {1}, {0})));
}

TEST(NegateTest, ZeroPointErrors) {
  // ERROR_IF(!is_same<in_out_t,i8_t>() && input1_zp != 0) / (... && output_zp != 0)
  EXPECT_SPEC_ERROR(negate(Ints(DType::I16, {1}, {1}), Ints(DType::I16, {1}, {1}), Ints(DType::I16, {1}, {0})));
  EXPECT_SPEC_ERROR(negate(Ints(DType::I32, {1}, {1}), Ints(DType::I32, {1}, {0}), Ints(DType::I32, {1}, {1})));
  EXPECT_SPEC_ERROR(negate(Reals(DType::FP32, {1}, {1}), Reals(DType::FP32, {1}, {1}), Reals(DType::FP32, {1}, {0})));
  EXPECT_SPEC_ERROR(negate(Reals(DType::FP16, {1}, {1}), Reals(DType::FP16, {1}, {0}), Reals(DType::FP16, {1}, {-1})));
}

TEST(NegateTest, ShapeLevelAndTypeErrors) {
  EXPECT_SPEC_ERROR(
      runBoth("tosa.negate",
              {Arg(Ints(DType::I8, {2}, {1, 2})), Const(Ints(DType::I8, {1}, {0})), Const(Ints(DType::I8, {1}, {0}))},
              {TT(DType::I8, {3})}));
  EXPECT_SPEC_ERROR(negate(Ints(DType::I8, kRank7, {1}), Ints(DType::I8, {1}, {0}), Ints(DType::I8, {1}, {0})));
  EXPECT_SPEC_ERROR(negate(Ints(DType::Bool, {1}, {1}), Ints(DType::Bool, {1}, {0}), Ints(DType::Bool, {1}, {0})));
}

// ---- 2.6.11 RECIPROCAL ----

TEST(ReciprocalTest, Fp32) {
  // 1/2, 1/-4, 1/+0 = +inf, 1/-0 = -inf, 1/inf = +0, 1/-inf = -0, NaN, 1/3 -> fp32 0.3333333432674408
  auto r = unaryF("tosa.reciprocal", DType::FP32, {2, -4, 0.0, -0.0, kInf, -kInf, kNaN, 3});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.5, -0.25, kInf, -kInf, 0.0, -0.0, kNaN, 0.3333333432674408});
}

TEST(ReciprocalTest, Fp16Bf16) {
  // fp16: 1/3 in [0.25, 0.5) has spacing 2^-12: 1365 * 2^-12 = 0.333251953125 (1365.33 rounds down)
  auto r = unaryF("tosa.reciprocal", DType::FP16, {4, 3});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.25, 0.333251953125});
  r = unaryF("tosa.reciprocal", DType::BF16, {4});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.25});
}

TEST(ReciprocalTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.reciprocal", Ints(DType::I32, {1}, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.reciprocal", Reals(DType::FP32, kRank7, {1})));
  EXPECT_SPEC_ERROR(runBoth("tosa.reciprocal", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {1})}));
}

// ---- 2.6.12 RSQRT ----

TEST(RsqrtTest, Fp32) {
  // 1/sqrt(4) = 0.5, 1/sqrt(0.25) = 2, negative -> NaN, +0 -> +inf, -0 -> -inf, inf -> +0, -inf -> NaN,
  // 1/sqrt(2) = 0.70710678 -> fp32 0.7071067690849304
  auto r = unaryF("tosa.rsqrt", DType::FP32, {4, 0.25, -1, 0.0, -0.0, kInf, -kInf, kNaN, 2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.5, 2, kNaN, kInf, -kInf, 0.0, kNaN, kNaN, 0.7071067690849304});
}

TEST(RsqrtTest, Fp16Bf16) {
  auto r = unaryF("tosa.rsqrt", DType::FP16, {16});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.25});
  r = unaryF("tosa.rsqrt", DType::BF16, {4});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.5});
}

TEST(RsqrtTest, Errors) {
  EXPECT_SPEC_ERROR(unary("tosa.rsqrt", Ints(DType::I32, {1}, {1})));
  EXPECT_SPEC_ERROR(unary("tosa.rsqrt", Reals(DType::FP32, kRank7, {1})));
  EXPECT_SPEC_ERROR(runBoth("tosa.rsqrt", {Arg(Reals(DType::FP32, {2}, {1, 2}))}, {TT(DType::FP32, {1})}));
}

}  // namespace
}  // namespace tosakit::testing
