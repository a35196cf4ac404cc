// CLAMP / ERF / SIGMOID / TANH (spec 2.4). Expected values are hand calculations from the pseudocode; for the
// transcendental functions, the fp64 value (known constants) rounded by hand to the element format.
#include <cmath>
#include <limits>

#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

std::map<std::string, ir::Attribute> clampAttrs(ir::Attribute minV, ir::Attribute maxV, const char* nanMode = nullptr) {
  std::map<std::string, ir::Attribute> a{{"min_val", minV}, {"max_val", maxV}};
  if (nanMode) a["nan_mode"] = ir::Attribute::enumCase(nanMode);
  return a;
}

// ---- CLAMP, one case per Supported Data Types row ----

TEST(ClampTest, Fp16) {
  // clip(-2, 0, 1) = 0; clip(0.5) = 0.5; clip(3) = 1
  auto r = runOp("tosa.clamp", {Arg(Tensor::fromDoubles(DType::FP16, {3}, {-2, 0.5, 3}))}, {TT(DType::FP16, {3})},
                 clampAttrs(ir::Attribute::floating(0, DType::FP16), ir::Attribute::floating(1, DType::FP16)));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{0, 0.5, 1}));
}

TEST(ClampTest, Fp32NanPropagateAndIgnore) {
  // PROPAGATE: NaN stays NaN. IGNORE: max(NaN, min) = min, then min(min, max) = min = -1.
  auto attrsP = clampAttrs(ir::Attribute::floating(-1), ir::Attribute::floating(1), "PROPAGATE");
  auto rp = runOp("tosa.clamp", {Arg(Tensor::fromDoubles(DType::FP32, {3}, {kNaN, -kInf, 0.25}))},
                  {TT(DType::FP32, {3})}, attrsP);
  EXPECT_RUN_OK(rp);
  auto vp = rp.outputs[0].toDoubles();
  EXPECT_TRUE(std::isnan(vp[0]));
  EXPECT_EQ(vp[1], -1);
  EXPECT_EQ(vp[2], 0.25);
  auto attrsI = clampAttrs(ir::Attribute::floating(-1), ir::Attribute::floating(1), "IGNORE");
  auto ri =
      runOp("tosa.clamp", {Arg(Tensor::fromDoubles(DType::FP32, {2}, {kNaN, kInf}))}, {TT(DType::FP32, {2})}, attrsI);
  EXPECT_RUN_OK(ri);
  EXPECT_EQ(ri.outputs[0].toDoubles(), (std::vector<double>{-1, 1}));
}

TEST(ClampTest, Bf16) {
  auto r = runOp("tosa.clamp", {Arg(Tensor::fromDoubles(DType::BF16, {3}, {-1.5, 2.5, 0.75}))}, {TT(DType::BF16, {3})},
                 clampAttrs(ir::Attribute::floating(-1, DType::BF16), ir::Attribute::floating(2, DType::BF16)));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{-1, 2, 0.75}));
}

TEST(ClampTest, Int8) {
  // clip(-128, -10, 10) = -10, clip(5) = 5, clip(127) = 10
  auto r = runOp("tosa.clamp", {Arg(Tensor::fromInts(DType::I8, {3}, {-128, 5, 127}))}, {TT(DType::I8, {3})},
                 clampAttrs(ir::Attribute::integer(-10, DType::I8), ir::Attribute::integer(10, DType::I8)));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-10, 5, 10}));
}

TEST(ClampTest, Int16) {
  auto r =
      runOp("tosa.clamp", {Arg(Tensor::fromInts(DType::I16, {2, 2}, {-1000, 300, -500, 0}))}, {TT(DType::I16, {2, 2})},
            clampAttrs(ir::Attribute::integer(-500, DType::I16), ir::Attribute::integer(200, DType::I16)));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-500, 200, -500, 0}));
}

TEST(ClampTest, MaxBelowMinIsError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    // ERROR_IF(max_val < min_val)
    auto ri = run("tosa.clamp", {Arg(Tensor::fromInts(DType::I16, {1}, {0}))}, {TT(DType::I16, {1})},
                  clampAttrs(ir::Attribute::integer(5, DType::I16), ir::Attribute::integer(4, DType::I16)));
    EXPECT_SPEC_ERROR(ri);
    auto rf = run("tosa.clamp", {Arg(Tensor::fromDoubles(DType::FP32, {1}, {0}))}, {TT(DType::FP32, {1})},
                  clampAttrs(ir::Attribute::floating(1), ir::Attribute::floating(-1)));
    EXPECT_SPEC_ERROR(rf);
  }
}

TEST(ClampTest, NanBoundIsError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    // ERROR_IF(isNaN(min_val) || isNaN(max_val))
    auto r = run("tosa.clamp", {Arg(Tensor::fromDoubles(DType::FP32, {1}, {0}))}, {TT(DType::FP32, {1})},
                 clampAttrs(ir::Attribute::floating(kNaN), ir::Attribute::floating(1)));
    EXPECT_SPEC_ERROR(r);
  }
}

TEST(ClampTest, UnsupportedTypeAndShapeMismatchAreErrors) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    // i32 and fp8e4m3 are not rows of CLAMP's Supported Data Types; output shape must equal input shape.
    auto r32 = run("tosa.clamp", {Arg(Tensor::fromInts(DType::I32, {1}, {0}))}, {TT(DType::I32, {1})},
                   clampAttrs(ir::Attribute::integer(0, DType::I32), ir::Attribute::integer(1, DType::I32)));
    EXPECT_SPEC_ERROR(r32);
    auto r8 = run("tosa.clamp", {Arg(Tensor::fromDoubles(DType::FP8E4M3, {1}, {0}))}, {TT(DType::FP8E4M3, {1})},
                  clampAttrs(ir::Attribute::floating(0, DType::FP8E4M3), ir::Attribute::floating(1, DType::FP8E4M3)));
    EXPECT_SPEC_ERROR(r8);
    auto rs = run("tosa.clamp", {Arg(Tensor::fromInts(DType::I8, {2}, {0, 0}))}, {TT(DType::I8, {3})},
                  clampAttrs(ir::Attribute::integer(0, DType::I8), ir::Attribute::integer(1, DType::I8)));
    EXPECT_SPEC_ERROR(rs);
  }
}

TEST(ClampTest, RankAboveMaxRankIsLevelError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    // LEVEL_CHECK(rank(shape) <= MAX_RANK): rank 7 > 6 at level 8K.
    Shape s(7, 1);
    auto r = run("tosa.clamp", {Arg(Tensor::fromInts(DType::I8, s, {3}))}, {TT(DType::I8, s)},
                 clampAttrs(ir::Attribute::integer(0, DType::I8), ir::Attribute::integer(1, DType::I8)));
    EXPECT_SPEC_ERROR(r);
    EXPECT_NE(r.status.toString().find("LEVEL_CHECK"), std::string::npos);
  }
}

// ---- ERF ----

TEST(ErfTest, Fp32) {
  // erf(0) = 0; erf(1) = 0.84270079294971487 -> nearest fp32; erf(-inf) = -1
  auto r = runOp("tosa.erf", {Arg(Tensor::fromDoubles(DType::FP32, {3}, {0, 1, -kInf}))}, {TT(DType::FP32, {3})});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], double(0.84270079294971487f));
  EXPECT_EQ(v[2], -1);
}

TEST(ErfTest, Fp16) {
  // erf(0.5) = 0.52049987781; fp16 spacing in [0.5,1) is 2^-11: 0.52049987781 * 2048 = 1065.98 -> 1066/2048
  auto r = runOp("tosa.erf", {Arg(Tensor::fromDoubles(DType::FP16, {1}, {0.5}))}, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles()[0], 1066.0 / 2048);
}

TEST(ErfTest, Bf16) {
  // erf(1) = 0.84270079; bf16 spacing in [0.5,1) is 2^-8: 0.84270079 * 256 = 215.73 -> 216/256 = 0.84375
  auto r = runOp("tosa.erf", {Arg(Tensor::fromDoubles(DType::BF16, {1}, {1}))}, {TT(DType::BF16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles()[0], 0.84375);
}

TEST(ErfTest, IntegerInputIsError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    auto r = run("tosa.erf", {Arg(Tensor::fromInts(DType::I8, {1}, {1}))}, {TT(DType::I8, {1})});
    EXPECT_SPEC_ERROR(r);
    auto r2 = run("tosa.erf", {Arg(Tensor::fromDoubles(DType::FP32, {1}, {1}))}, {TT(DType::FP16, {1})});
    EXPECT_SPEC_ERROR(r2);
  }
}

// ---- SIGMOID ----

TEST(SigmoidTest, Fp32SpecialValues) {
  // Spec table: -inf -> 0, +inf -> 1, -0 -> 0.5, +0 -> 0.5, NaN -> NaN; 1/(1+e^-2) = 0.88079707797788231
  auto r = runOp("tosa.sigmoid", {Arg(Tensor::fromDoubles(DType::FP32, {6}, {-kInf, kInf, -0.0, 0.0, kNaN, 2}))},
                 {TT(DType::FP32, {6})});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 1);
  EXPECT_EQ(v[2], 0.5);
  EXPECT_EQ(v[3], 0.5);
  EXPECT_TRUE(std::isnan(v[4]));
  EXPECT_EQ(v[5], double(0.88079707797788231f));
}

TEST(SigmoidTest, Fp16) {
  // 1/(1+e^-1) = 0.73105857863; * 2048 = 1497.21 -> 1497/2048
  auto r = runOp("tosa.sigmoid", {Arg(Tensor::fromDoubles(DType::FP16, {1}, {1}))}, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles()[0], 1497.0 / 2048);
}

TEST(SigmoidTest, Bf16) {
  // 1/(1+e^1) = 0.26894142137; bf16 spacing in [0.25,0.5) is 2^-9: * 512 = 137.70 -> 138/512 = 0.26953125
  auto r = runOp("tosa.sigmoid", {Arg(Tensor::fromDoubles(DType::BF16, {1}, {-1}))}, {TT(DType::BF16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles()[0], 0.26953125);
}

TEST(SigmoidTest, IntegerInputIsError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    auto r = run("tosa.sigmoid", {Arg(Tensor::fromInts(DType::I16, {1}, {1}))}, {TT(DType::I16, {1})});
    EXPECT_SPEC_ERROR(r);
  }
}

// ---- TANH ----

TEST(TanhTest, Fp32SpecialValues) {
  // Spec table: -inf -> -1, +inf -> 1, -0 -> -0, +0 -> 0, NaN -> NaN; tanh(0.5) = 0.46211715726000974
  auto r = runOp("tosa.tanh", {Arg(Tensor::fromDoubles(DType::FP32, {6}, {-kInf, kInf, -0.0, 0.0, kNaN, 0.5}))},
                 {TT(DType::FP32, {6})});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_EQ(v[0], -1);
  EXPECT_EQ(v[1], 1);
  EXPECT_EQ(v[2], 0);
  EXPECT_TRUE(std::signbit(v[2]));
  EXPECT_EQ(v[3], 0);
  EXPECT_FALSE(std::signbit(v[3]));
  EXPECT_TRUE(std::isnan(v[4]));
  EXPECT_EQ(v[5], double(0.46211715726000974f));
}

TEST(TanhTest, Fp16) {
  // tanh(1) = 0.76159415596; * 2048 = 1559.74 -> 1560/2048 = 0.76171875
  auto r = runOp("tosa.tanh", {Arg(Tensor::fromDoubles(DType::FP16, {1}, {1}))}, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles()[0], 0.76171875);
}

TEST(TanhTest, Bf16) {
  // tanh(-2) = -0.96402758; * 256 = -246.79 -> -247/256 = -0.96484375
  auto r = runOp("tosa.tanh", {Arg(Tensor::fromDoubles(DType::BF16, {1}, {-2}))}, {TT(DType::BF16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles()[0], -0.96484375);
}

TEST(TanhTest, WrongOutputTypeIsError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    auto r = run("tosa.tanh", {Arg(Tensor::fromDoubles(DType::BF16, {1}, {1}))}, {TT(DType::FP32, {1})});
    EXPECT_SPEC_ERROR(r);
  }
}

}  // namespace
}  // namespace tosakit::testing
