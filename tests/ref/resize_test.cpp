// RESIZE (spec 2.12.1). Expected values are hand calculations of the spec pseudocode.
//
// Most cases use the spec's "power of two upscale [OH,OW] = 2*[IH,IW]" setting along x (k = 1):
// scale_x = 4/2, offset_x = -1, border_x = 1, and a 1-row image with scale_y = 2/2, offset_y = 0, border_y = 0.
//   OW = ((IW - 1) * 4 - (-1) + 1) / 2 + 1 = (4 + 2) / 2 + 1 = 4 for IW = 2;  OH = (0 * 2 - 0 + 0) / 2 + 1 = 1.
//   x = ox * 2 - 1 = -1, 1, 3, 5;  ix = idiv_floor(x, 4) = -1, 0, 0, 1;  rx = x - ix * 4 = 3, 1, 3, 1
//   ix0 = max(ix, 0) = 0, 0, 0, 1;  ix1 = min(ix + 1, 1) = 0, 1, 1, 1;  y = 0, iy = 0, ry = 0, iy0 = iy1 = 0.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

std::map<std::string, ir::Attribute> modeAttr(const char* mode) { return {{"mode", ir::Attribute::enumCase(mode)}}; }

using Runner = OpRunner;

OpRun resize(Runner run, Tensor input, DType outType, Shape outShape, std::vector<int64_t> scale,
             std::vector<int64_t> offset, std::vector<int64_t> border, const char* mode,
             const ir::TargetEnv& target = ir::TargetEnv::all()) {
  return run("tosa.resize", {Arg(std::move(input)), ShapeConst(scale), ShapeConst(offset), ShapeConst(border)},
             {TT(outType, std::move(outShape))}, modeAttr(mode), target);
}

OpRun upscale(Tensor input, DType outType, const char* mode) {
  return resize(kValidatedPath, std::move(input), outType, {1, 1, 4, 1}, {2, 2, 4, 2}, {0, -1}, {0, 1}, mode);
}

TEST(ResizeTest, Int8BilinearToInt32) {
  // Integer bilinear, unit_y = 2, unit_x = 4, dy = 0, dx = rx; v = [10, 20]:
  //   ox0: v00 = v01 = 10, dx = 3: 10*2*(4-3) + 10*2*3 = 20 + 60 = 80
  //   ox1: v00 = 10, v01 = 20, dx = 1: 10*2*3 + 20*2*1 = 60 + 40 = 100
  //   ox2: dx = 3: 10*2*1 + 20*2*3 = 20 + 120 = 140
  //   ox3: v00 = v01 = 20, dx = 1: 20*2*3 + 20*2*1 = 160      (all scaled by unit_y*unit_x = 8)
  // (A truncating division, as upstream MLIR lowers it, would give ix = 0, rx = -1 at ox0: 10*2*5 + 20*2*(-1) = 60.)
  auto r = upscale(Tensor::fromInts(DType::I8, {1, 1, 2, 1}, {10, 20}), DType::I32, "BILINEAR");
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{80, 100, 140, 160}));
}

TEST(ResizeTest, Int8Nearest) {
  // 2*dx >= scale_x_n (4)? rx = 3 -> ix1, rx = 1 -> ix0: ix = 0, 0, 1, 1
  auto r = upscale(Tensor::fromInts(DType::I8, {1, 1, 2, 1}, {-7, 9}), DType::I8, "NEAREST_NEIGHBOR");
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-7, -7, 9, 9}));
}

TEST(ResizeTest, Int8Nearest2D) {
  // Both axes with the 2x setting: rows and columns each pick input index 0, 0, 1, 1.
  auto r = resize(kValidatedPath, Tensor::fromInts(DType::I8, {1, 2, 2, 1}, {1, 2, 3, 4}), DType::I8, {1, 4, 4, 1},
                  {4, 2, 4, 2}, {-1, -1}, {1, 1}, "NEAREST_NEIGHBOR");
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(ResizeTest, Int16BilinearToInt48) {
  // As Int8BilinearToInt32 with v = [1000, 2000]: 8000, 10000, 14000, 16000
  auto r = upscale(Tensor::fromInts(DType::I16, {1, 1, 2, 1}, {1000, 2000}), DType::I48, "BILINEAR");
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{8000, 10000, 14000, 16000}));
}

TEST(ResizeTest, Int16Nearest) {
  auto r = upscale(Tensor::fromInts(DType::I16, {1, 1, 2, 1}, {-1000, 2000}), DType::I16, "NEAREST_NEIGHBOR");
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-1000, -1000, 2000, 2000}));
}

// Float bilinear: dy = 0, dx = rx / 4 = 0.75, 0.25, 0.75, 0.25; acc = v00*(1-dx) + v01*dx:
//   ox0: 10*0.25 + 10*0.75 = 10; ox1: 10*0.75 + 20*0.25 = 12.5; ox2: 10*0.25 + 20*0.75 = 17.5; ox3: 20
// (every intermediate is exact in fp16, bf16 and fp32).
TEST(ResizeTest, FloatBilinearAllTypes) {
  for (DType t : {DType::FP16, DType::BF16, DType::FP32}) {
    auto r = upscale(Tensor::fromDoubles(t, {1, 1, 2, 1}, {10, 20}), t, "BILINEAR");
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{10, 12.5, 17.5, 20})) << dtypeName(t);
  }
}

// Float nearest: dx >= 0.5 -> ix1: ox0 (0.75) ix1 = 0; ox1 (0.25) ix0 = 0; ox2 (0.75) ix1 = 1; ox3 (0.25) ix0 = 1.
TEST(ResizeTest, FloatNearestAllTypes) {
  for (DType t : {DType::FP16, DType::BF16, DType::FP32}) {
    auto r = upscale(Tensor::fromDoubles(t, {1, 1, 2, 1}, {1.5, -2.25}), t, "NEAREST_NEIGHBOR");
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1.5, 1.5, -2.25, -2.25})) << dtypeName(t);
  }
}

TEST(ResizeTest, Fp32DownscaleWithBatchAndChannels) {
  // N=2, C=2, IW=4 -> OW=2 with scale_x = 1/2: OW = ((4-1)*1 - 0 + 0) / 2 + 1 = 2 (3/2 would not be exact:
  // use border_x = -1: (3 - 0 - 1) / 2 + 1 = 2). x = ox * 2 = 0, 2; ix = 0, 2; rx = 0: picks columns 0 and 2.
  std::vector<double> in;
  for (int n = 0; n < 2; ++n)
    for (int x = 0; x < 4; ++x)
      for (int c = 0; c < 2; ++c) in.push_back(100 * n + 10 * x + c);
  auto r = resize(kValidatedPath, Tensor::fromDoubles(DType::FP32, {2, 1, 4, 2}, in), DType::FP32, {2, 1, 2, 2},
                  {1, 1, 1, 2}, {0, 0}, {0, -1}, "BILINEAR");
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{0, 1, 20, 21, 100, 101, 120, 121}));
}

// ---- ERROR_IF / LEVEL_CHECK ----

Tensor small(DType t = DType::I8) { return Tensor(t, {1, 2, 2, 1}); }

// Every negative case runs twice: through Session (static validation, then kernels) and on the reference
// backend directly (the kernel's own checks).
class ResizeErrorTest : public ::testing::TestWithParam<Runner> {};
INSTANTIATE_TEST_SUITE_P(ValidatedAndKernel, ResizeErrorTest, ::testing::Values(kValidatedPath, kKernelPath));

TEST_P(ResizeErrorTest, ImageSizeAtLeast16384IsError) {
  // ERROR_IF(max(OH,OW,IH,IW) >= 16384): IW = OW = 16384 with scale 1/1.
  auto r = resize(GetParam(), Tensor(DType::I8, {1, 1, 16384, 1}), DType::I8, {1, 1, 16384, 1}, {1, 1, 1, 1}, {0, 0},
                  {0, 0}, "NEAREST_NEIGHBOR");
  EXPECT_SPEC_ERROR(r);
}

TEST_P(ResizeErrorTest, NonPositiveScaleIsError) {
  // ERROR_IF(scale_y_n <= 0 || scale_y_d <= 0 || ...): scale_x_d = 0
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 1, 0}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {-1, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, ScaleNumeratorAbove2048IsError) {
  // ERROR_IF(scale_y_n > (1 << 11)): 4096/32 = 128 passes the MAX_SCALE level check first.
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {4096, 32, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, DownscaleBelowOneSixteenthIsError) {
  // ERROR_IF(scale_y_d >= 16 * scale_y_n): 16 >= 16 * 1
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 1, 2, 1}, {1, 16, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 1, 1}, {1, 1, 1, 16}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, OffsetOutOfRangeIsError) {
  // ERROR_IF(offset_y < -scale_y_n || offset_y >= 16 * scale_y_n), same for x
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {2, 2, 1, 1}, {-3, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 1, 1}, {16, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 2, 2}, {0, -3}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 16}, {0, 0}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, BorderOutOfRangeIsError) {
  // ERROR_IF(border_y < -16 * scale_y_n || border_y >= scale_y_n), same for x
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {-17, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {2, 2, 1, 1}, {0, 0}, {2, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, -17}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 1}, {1, 1, 2, 2}, {0, 0}, {0, 2}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, OutputSizeMismatchIsError) {
  // ERROR_IF(OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1): (2-1)*1/1 + 1 = 2, not 3
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 3, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 3, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, NonIntegerOutputSizeIsError) {
  // idiv_check: ERROR_IF(input1 % input2 != 0): (2-1)*1 - 0 + 0 = 1 is not a multiple of scale_y_d = 2
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 1, 2, 1}, {1, 2, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
}

TEST_P(ResizeErrorTest, ScaleAboveMaxScaleIsLevelError) {
  // LEVEL_CHECK(scale_y_n / scale_y_d <= MAX_SCALE): 512/1 > 256 at level 8K; passes at level none
  // (OH = (2-1)*512 / 1 + 1 = 513).
  auto r = resize(GetParam(), small(), DType::I8, {1, 513, 2, 1}, {512, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR");
  EXPECT_SPEC_ERROR(r);
  EXPECT_NE(r.status.toString().find("LEVEL_CHECK"), std::string::npos);
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  EXPECT_RUN_OK(
      resize(GetParam(), small(), DType::I8, {1, 513, 2, 1}, {512, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR", none));
}

TEST_P(ResizeErrorTest, ShapeAndTypeErrors) {
  // Output must be [N,OH,OW,C] of the row's out_t; input rank 4.
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {2, 2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I8, {1, 2, 2, 3}, {1, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(resize(GetParam(), small(), DType::I16, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0}, "BILINEAR"));
  EXPECT_SPEC_ERROR(
      resize(GetParam(), small(), DType::I32, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0}, "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(resize(GetParam(), small(DType::I32), DType::I32, {1, 2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0},
                           "NEAREST_NEIGHBOR"));
  EXPECT_SPEC_ERROR(resize(GetParam(), Tensor(DType::I8, {2, 2, 1}), DType::I8, {2, 2, 1}, {1, 1, 1, 1}, {0, 0}, {0, 0},
                           "NEAREST_NEIGHBOR"));
}

}  // namespace
}  // namespace tosakit::testing
