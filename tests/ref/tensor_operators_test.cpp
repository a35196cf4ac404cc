// Spec 2.3 tensor operators: ARGMAX, AVG_POOL2D, CONV2D, CONV3D, DEPTHWISE_CONV2D, FFT2D, MATMUL, MAX_POOL2D,
// RFFT2D, TRANSPOSE_CONV2D. Expected values are hand calculations from the pseudocode, shown next to each test.
// The integer cases Int8ZeroPointsPaddingAndRounding, Int16NegativeAverageRoundsHalfUp, Int8PadStrideDilation,
// Int8PadStrideZeroPoints (depthwise) and OverlapAndNegativeOutPad were also cross-checked with upstream MLIR 22
// (mlir-opt-22 lowering + mlir-runner-22), which gave the same values.
// Every case runs twice (kernel_test_util.h runBoth): through a Session (static validation, then the
// interpreter) and through the kernel alone, so the kernel's own ERROR_IF / REQUIRE checks are exercised.
#include <cmath>
#include <limits>

#include "kernel_test_util.h"
#include "ref/tensor_operators_helpers.h"

namespace tosakit::testing {
namespace {

using A = ir::Attribute;
using Attrs = std::map<std::string, ir::Attribute>;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

Tensor T(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }
// A rank-1 one-element zero point of type t.
OpInput Zp(DType t, double v = 0) { return Const(T(t, {1}, {v})); }
A arr(std::vector<int64_t> v) { return A::intArray(std::move(v)); }

std::vector<double> vals(const OpRun& r, size_t i = 0) { return r.outputs.at(i).toDoubles(); }

// The nine rows of the CONV2D / CONV3D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D Supported Data Types table.
struct ConvRow {
  const char* name;
  DType in, weight, out, acc;
};
const ConvRow kConvRows[] = {
    {"fp16_acc_fp16", DType::FP16, DType::FP16, DType::FP16, DType::FP16},
    {"fp16_acc_fp32", DType::FP16, DType::FP16, DType::FP16, DType::FP32},
    {"fp32", DType::FP32, DType::FP32, DType::FP32, DType::FP32},
    {"i8xi8", DType::I8, DType::I8, DType::I32, DType::I32},
    {"bf16", DType::BF16, DType::BF16, DType::BF16, DType::FP32},
    {"fp8e4m3", DType::FP8E4M3, DType::FP8E4M3, DType::FP16, DType::FP16},
    {"fp8e5m2", DType::FP8E5M2, DType::FP8E5M2, DType::FP16, DType::FP16},
    {"i16xi8", DType::I16, DType::I8, DType::I48, DType::I48},
    {"i8xi4", DType::I8, DType::I4, DType::I32, DType::I32},
};
class ConvRowTest : public ::testing::TestWithParam<ConvRow> {};
std::string rowName(const ::testing::TestParamInfo<ConvRow>& i) { return i.param.name; }

// ============================== ARGMAX ==============================

OpRun argmax(Tensor in, Shape outShape, int64_t axis, const char* nanMode = nullptr) {
  Attrs a{{"axis", A::integer(axis, DType::I32)}};
  if (nanMode) a["nan_mode"] = A::enumCase(nanMode);
  return runBoth("tosa.argmax", {Arg(std::move(in))}, {TT(DType::I32, std::move(outShape))}, a);
}

TEST(ArgmaxTest, Int8FirstMatchAlongAxis1) {
  // [[1,5,5],[-128,-128,-3]] along axis 1: first 5 at 1; -3 at 2.
  auto r = argmax(T(DType::I8, {2, 3}, {1, 5, 5, -128, -128, -3}), {2}, 1);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 2}));
}

TEST(ArgmaxTest, Int8Axis0) {
  // Column maxima of [[1,5,5],[-128,-128,-3]] are all in row 0.
  auto r = argmax(T(DType::I8, {2, 3}, {1, 5, 5, -128, -128, -3}), {3}, 0);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 0, 0}));
}

TEST(ArgmaxTest, Int8AllMinimumGivesIndex0) {
  // max_value starts at minimum_s<i8> = -128; -128 never replaces it, so the index stays 0.
  auto r = argmax(T(DType::I8, {3}, {-128, -128, -128}), {}, 0);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0}));
}

TEST(ArgmaxTest, Int16RankOneToRankZero) {
  auto r = argmax(T(DType::I16, {3}, {-32768, 300, 300}), {}, 0);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1}));
}

TEST(ArgmaxTest, Fp32NanPropagateVsIgnore) {
  // PROPAGATE: NaN compares greater than everything -> index 1. IGNORE: NaN smaller -> 3 at index 2.
  auto p = argmax(T(DType::FP32, {4}, {1, kNaN, 3, 2}), {}, 0, "PROPAGATE");
  auto i = argmax(T(DType::FP32, {4}, {1, kNaN, 3, 2}), {}, 0, "IGNORE");
  EXPECT_RUN_OK(p);
  EXPECT_RUN_OK(i);
  EXPECT_EQ(p.outputs[0].toInts(), (std::vector<int64_t>{1}));
  EXPECT_EQ(i.outputs[0].toInts(), (std::vector<int64_t>{2}));
}

TEST(ArgmaxTest, Fp32SignedZerosAreEqualAndAllNanIgnoreGivesZero) {
  // -0.0 then +0.0: equal, first wins. All NaN with IGNORE: max_value stays NaN, index 0.
  auto z = argmax(T(DType::FP32, {2}, {-0.0, 0.0}), {}, 0);
  auto n = argmax(T(DType::FP32, {3}, {kNaN, kNaN, kNaN}), {}, 0, "IGNORE");
  EXPECT_RUN_OK(z);
  EXPECT_RUN_OK(n);
  EXPECT_EQ(z.outputs[0].toInts(), (std::vector<int64_t>{0}));
  EXPECT_EQ(n.outputs[0].toInts(), (std::vector<int64_t>{0}));
}

TEST(ArgmaxTest, Fp16) {
  auto r = argmax(T(DType::FP16, {2, 3}, {0.5, 2, -kInf, -kInf, -kInf, -1}), {2}, 1);
  EXPECT_RUN_OK(r);
  // Row 1: -inf equals the initial minimum (-inf) twice, then -1 is larger at index 2.
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 2}));
}

TEST(ArgmaxTest, Bf16InfinitiesOfSameSignAreEqual) {
  auto r = argmax(T(DType::BF16, {3}, {kInf, kInf, 1}), {}, 0);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0}));
}

TEST(ArgmaxTest, Fp8e4m3) {
  // fp8e4m3 range is +-448; the first 448 is at index 1.
  auto r = argmax(T(DType::FP8E4M3, {3}, {-448, 448, 448}), {}, 0);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1}));
}

TEST(ArgmaxTest, Fp8e5m2NanModes) {
  // [inf, NaN]: PROPAGATE -> the NaN (index 1); IGNORE -> inf (index 0).
  auto p = argmax(T(DType::FP8E5M2, {2}, {kInf, kNaN}), {}, 0);
  auto i = argmax(T(DType::FP8E5M2, {2}, {kInf, kNaN}), {}, 0, "IGNORE");
  EXPECT_RUN_OK(p);
  EXPECT_RUN_OK(i);
  EXPECT_EQ(p.outputs[0].toInts(), (std::vector<int64_t>{1}));
  EXPECT_EQ(i.outputs[0].toInts(), (std::vector<int64_t>{0}));
}

TEST(ArgmaxTest, AxisOutOfRangeIsError) {
  // ERROR_IF(axis < 0 || axis >= rank(shape1))
  EXPECT_SPEC_ERROR(argmax(T(DType::I8, {2, 3}, {}), {2}, -1));
  EXPECT_SPEC_ERROR(argmax(T(DType::I8, {2, 3}, {}), {2}, 2));
}

TEST(ArgmaxTest, OutputShapeMismatchIsError) {
  // ERROR_IF(flatten(left_shape, right_shape) != shape): [2] expected, [3] declared; rank mismatch too.
  EXPECT_SPEC_ERROR(argmax(T(DType::I8, {2, 3}, {}), {3}, 1));
  EXPECT_SPEC_ERROR(argmax(T(DType::I8, {2, 3}, {}), {2, 1}, 1));
}

TEST(ArgmaxTest, UnsupportedTypesAreErrors) {
  // i32 input and i8 output are not rows of the Supported Data Types table.
  EXPECT_SPEC_ERROR(argmax(T(DType::I32, {2}, {}), {}, 0));
  auto r = runBoth("tosa.argmax", {Arg(T(DType::I8, {2}, {}))}, {TT(DType::I8, {})}, {{"axis", A::integer(0)}});
  EXPECT_SPEC_ERROR(r);
}

TEST(ArgmaxTest, RankAboveLevelIsError) {
  // LEVEL_CHECK(rank(shape1) <= MAX_RANK): rank 7 > 6 at level 8K.
  EXPECT_SPEC_ERROR(argmax(T(DType::I8, {1, 1, 1, 1, 1, 1, 2}, {}), {1, 1, 1, 1, 1, 1}, 6));
}

// ============================== AVG_POOL2D ==============================

OpRun avgPool(Tensor in, DType accT, Shape outShape, std::vector<int64_t> kernel, std::vector<int64_t> stride,
              std::vector<int64_t> pad, double inZp = 0, double outZp = 0,
              const ir::TargetEnv& target = ir::TargetEnv::all()) {
  DType t = in.dtype();
  return runBoth("tosa.avg_pool2d", {Arg(std::move(in)), Zp(t, inZp), Zp(t, outZp)}, {TT(t, std::move(outShape))},
                 {{"kernel", arr(kernel)}, {"stride", arr(stride)}, {"pad", arr(pad)}, {"acc_type", A::type(accT)}},
                 target);
}

TEST(AvgPool2dTest, Int8ExactAverages) {
  // 3x3 input 1..9, 2x2 windows: (1+2+4+5)/4=3, (2+3+5+6)/4=4, (4+5+7+8)/4=6, (5+6+8+9)/4=7.
  // reciprocal_scale(4): multiplier 1073741825, shift 32; (12*1073741825 + 2^31) >> 32 = 3.
  auto r = avgPool(T(DType::I8, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), DType::I32, {1, 2, 2, 1}, {2, 2}, {1, 1},
                   {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{3, 4, 6, 7}));
}

TEST(AvgPool2dTest, Int8ZeroPointsPaddingAndRounding) {
  // input [[1,2],[3,4]], input_zp -1 -> values [[2,3],[4,5]]; output_zp 2; pad top/left 1, kernel 2x2.
  // (0,0): only 2, count 1: rs(1) = (1073741825, 30): (2*1073741825 + 2^29) >> 30 = 2 -> +2 = 4
  // (0,1): 2+3=5, count 2: rs(2) = (1073741825, 31): (5*1073741825 + 2^30) >> 31 = 3 (2.5 rounds up) -> 5
  // (1,0): 2+4=6, count 2 -> 3 -> 5
  // (1,1): 14, count 4: (14*1073741825 + 2^31) >> 32 = 4 -> 6
  auto r =
      avgPool(T(DType::I8, {1, 2, 2, 1}, {1, 2, 3, 4}), DType::I32, {1, 2, 2, 1}, {2, 2}, {1, 1}, {1, 0, 1, 0}, -1, 2);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{4, 5, 5, 6}));
}

TEST(AvgPool2dTest, Int8ClipsToOutputRange) {
  // average 100, output_zp 100 -> 200 clipped to maximum_s<i8> = 127.
  auto r =
      avgPool(T(DType::I8, {1, 1, 2, 1}, {100, 100}), DType::I32, {1, 1, 1, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0}, 0, 100);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{127}));
}

TEST(AvgPool2dTest, Int16NegativeAverageRoundsHalfUp) {
  // sum -201, count 4: (-201*1073741825 + 2^31) >> 32 = floor(-49.75...) = -50.
  auto r =
      avgPool(T(DType::I16, {1, 2, 2, 1}, {-100, -101, 0, 0}), DType::I32, {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{-50}));
}

TEST(AvgPool2dTest, Fp32PaddingNotCounted) {
  // 3x3 input 1..9, kernel 3x3, stride 2, pad 1: OH = (3+2-3)/2+1 = 2. Each window covers 4 real values:
  // (1+2+4+5)/4=3, (2+3+5+6)/4=4, (4+5+7+8)/4=6, (5+6+8+9)/4=7.
  auto r = avgPool(T(DType::FP32, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), DType::FP32, {1, 2, 2, 1}, {3, 3}, {2, 2},
                   {1, 1, 1, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{3, 4, 6, 7}));
}

TEST(AvgPool2dTest, Fp16AccumulatorFp16VsFp32) {
  // [2048,1,1,1] in one 1x4 window. fp16 acc: 2048+1 = 2049 ties to 2048 (spacing 2) each time -> 2048/4 = 512.
  // fp32 acc: 2051/4 = 512.75, a tie between fp16 512.5 and 513 (spacing 0.5) -> even mantissa 513.
  Tensor in = T(DType::FP16, {1, 1, 4, 1}, {2048, 1, 1, 1});
  auto h = avgPool(in, DType::FP16, {1, 1, 1, 1}, {1, 4}, {1, 1}, {0, 0, 0, 0});
  auto f = avgPool(in, DType::FP32, {1, 1, 1, 1}, {1, 4}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(h);
  EXPECT_RUN_OK(f);
  EXPECT_EQ(vals(h), (std::vector<double>{512}));
  EXPECT_EQ(vals(f), (std::vector<double>{513}));
}

TEST(AvgPool2dTest, Bf16RoundsQuotient) {
  // (1+2+4)/3 = 2.3333333 in fp32, then to bf16 (spacing 2^-6 in [2,4)): 149 * 2^-6 = 2.328125.
  auto r = avgPool(T(DType::BF16, {1, 1, 3, 1}, {1, 2, 4}), DType::FP32, {1, 1, 1, 1}, {1, 3}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{2.328125}));
}

TEST(AvgPool2dTest, Fp8e4m3) {
  // (1+1+2)/3 = 1.3333 (fp16 1.333008) -> fp8e4m3 spacing 0.125 in [1,2): 11 * 0.125 = 1.375.
  auto r = avgPool(T(DType::FP8E4M3, {1, 1, 3, 1}, {1, 1, 2}), DType::FP16, {1, 1, 1, 1}, {1, 3}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{1.375}));
}

TEST(AvgPool2dTest, Fp8e5m2) {
  // (1+1+2)/3 = 1.3333 -> fp8e5m2 spacing 0.25 in [1,2): 1.25.
  auto r = avgPool(T(DType::FP8E5M2, {1, 1, 3, 1}, {1, 1, 2}), DType::FP16, {1, 1, 1, 1}, {1, 3}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{1.25}));
}

TEST(AvgPool2dTest, Fp8e5m2DivisorIsTheExactCount) {
  // Nine 3.0 values: 27 / 9 = 3. The pseudocode's static_cast<in_out_t>(count) would round 9 to 8 in fp8e5m2
  // (27/8 = 3.375 -> 3.5); the precision rules define the output as the dot product with 1/KS, so tosakit
  // divides by the count in acc_t (see tensor_operators.cpp).
  Tensor in = T(DType::FP8E5M2, {1, 3, 3, 1}, std::vector<double>(9, 3.0));
  auto r = avgPool(in, DType::FP16, {1, 1, 1, 1}, {3, 3}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{3}));
}

TEST(AvgPool2dTest, ZeroPointNonZeroForNonInt8IsError) {
  // ERROR_IF(!is_same<in_out_t,i8_t>() && input_zp != 0) / (... && output_zp != 0)
  Tensor in = T(DType::I16, {1, 2, 2, 1}, {});
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 1, 0));
  Tensor f = T(DType::FP32, {1, 2, 2, 1}, {});
  EXPECT_SPEC_ERROR(avgPool(f, DType::FP32, {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}, 0, 0.5));
}

TEST(AvgPool2dTest, KernelStridePadRangesAreErrors) {
  Tensor in = T(DType::I8, {1, 4, 4, 1}, {});
  // kernel_y < 1
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 4, 4, 1}, {0, 1}, {1, 1}, {0, 0, 0, 0}));
  // stride_x < 1
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 3, 3, 1}, {2, 2}, {1, 0}, {0, 0, 0, 0}));
  // pad_left < 0
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 3, 2, 1}, {2, 2}, {1, 1}, {0, 0, -1, 0}));
  // pad_right >= kernel_x: pad 2 with kernel 2 (OW = 4+2-2+1 = 5 matches, so only this ERROR_IF fires)
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 3, 5, 1}, {2, 2}, {1, 1}, {0, 0, 0, 2}));
  // pad_top >= kernel_y
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 5, 3, 1}, {2, 2}, {1, 1}, {2, 0, 0, 0}));
}

TEST(AvgPool2dTest, OutputShapeErrors) {
  Tensor in = T(DType::I8, {1, 4, 4, 1}, {});
  // OH != idiv_check(4 - 2, 1) + 1 = 3
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 2, 3, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));
  // idiv_check(4 - 3, 2): 1 % 2 != 0
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 1, 1, 1}, {3, 3}, {2, 2}, {0, 0, 0, 0}));
}

TEST(AvgPool2dTest, WrongAccumulatorTypeIsError) {
  // i16 in_out_t requires acc_t i32; fp16 accepts fp16 or fp32 but not i32.
  EXPECT_SPEC_ERROR(avgPool(T(DType::I16, {1, 2, 2, 1}, {}), DType::I48, {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));
  EXPECT_SPEC_ERROR(avgPool(T(DType::FP16, {1, 2, 2, 1}, {}), DType::I32, {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));
}

TEST(AvgPool2dTest, LevelChecks) {
  // LEVEL_CHECK(kernel_y <= MAX_KERNEL) / (stride_x <= MAX_STRIDE) at level 8K; level none accepts both.
  Tensor in = T(DType::I8, {1, 1, 1, 1}, {5});
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 1, 1, 1}, {1, 1}, {1, 9000}, {0, 0, 0, 0}));
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  auto ok = avgPool(in, DType::I32, {1, 1, 1, 1}, {1, 1}, {1, 9000}, {0, 0, 0, 0}, 0, 0, none);
  EXPECT_RUN_OK(ok);
  EXPECT_EQ(vals(ok), (std::vector<double>{5}));
  // kernel 8193 > MAX_KERNEL: checked before the padding and shape rules.
  EXPECT_SPEC_ERROR(avgPool(in, DType::I32, {1, 1, 1, 1}, {8193, 1}, {1, 1}, {0, 0, 0, 0}));
}

// ============================== MAX_POOL2D ==============================

OpRun maxPool(Tensor in, Shape outShape, std::vector<int64_t> kernel, std::vector<int64_t> stride,
              std::vector<int64_t> pad, const char* nanMode = nullptr) {
  DType t = in.dtype();
  Attrs a{{"kernel", arr(kernel)}, {"stride", arr(stride)}, {"pad", arr(pad)}};
  if (nanMode) a["nan_mode"] = A::enumCase(nanMode);
  return runBoth("tosa.max_pool2d", {Arg(std::move(in))}, {TT(t, std::move(outShape))}, a);
}

TEST(MaxPool2dTest, Int8) {
  // [[-5,2,-3],[4,-128,6],[7,8,-9]], 2x2 windows: max(-5,2,4,-128)=4, max(2,-3,-128,6)=6, max(4,-128,7,8)=8,
  // max(-128,6,8,-9)=8.
  auto r = maxPool(T(DType::I8, {1, 3, 3, 1}, {-5, 2, -3, 4, -128, 6, 7, 8, -9}), {1, 2, 2, 1}, {2, 2}, {1, 1},
                   {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{4, 6, 8, 8}));
}

TEST(MaxPool2dTest, Int16PaddingIgnored) {
  // pad 1 all round, kernel 2, stride 2: OH = (2+2-2)/2+1 = 2; each window sees exactly one real value.
  auto r = maxPool(T(DType::I16, {1, 2, 2, 1}, {-300, -200, -100, -32768}), {1, 2, 2, 1}, {2, 2}, {2, 2}, {1, 1, 1, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{-300, -200, -100, -32768}));
}

TEST(MaxPool2dTest, Fp32NanModes) {
  // 1x4 row [1, NaN, 3, 2], kernel 1x2: PROPAGATE [NaN, NaN, 3]; IGNORE [1, 3, 3].
  Tensor in = T(DType::FP32, {1, 1, 4, 1}, {1, kNaN, 3, 2});
  auto p = maxPool(in, {1, 1, 3, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0});
  auto i = maxPool(in, {1, 1, 3, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0}, "IGNORE");
  EXPECT_RUN_OK(p);
  EXPECT_RUN_OK(i);
  auto pv = vals(p);
  EXPECT_TRUE(std::isnan(pv[0]) && std::isnan(pv[1]));
  EXPECT_EQ(pv[2], 3);
  EXPECT_EQ(vals(i), (std::vector<double>{1, 3, 3}));
}

TEST(MaxPool2dTest, Fp32AllNanWindowIgnoreGivesNan) {
  auto r = maxPool(T(DType::FP32, {1, 1, 2, 1}, {kNaN, kNaN}), {1, 1, 1, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0}, "IGNORE");
  EXPECT_RUN_OK(r);
  EXPECT_TRUE(std::isnan(vals(r)[0]));
}

TEST(MaxPool2dTest, Fp16NegativeInfinity) {
  auto r = maxPool(T(DType::FP16, {1, 1, 2, 1}, {-kInf, -kInf}), {1, 1, 1, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{-kInf}));
}

TEST(MaxPool2dTest, Bf16) {
  auto r = maxPool(T(DType::BF16, {1, 2, 2, 1}, {1.5, -2.5, 0.25, 3}), {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{3}));
}

TEST(MaxPool2dTest, Fp8e4m3AndFp8e5m2) {
  auto a = maxPool(T(DType::FP8E4M3, {1, 1, 2, 1}, {-448, -2}), {1, 1, 1, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0});
  auto b = maxPool(T(DType::FP8E5M2, {1, 1, 2, 1}, {-kInf, -57344}), {1, 1, 1, 1}, {1, 2}, {1, 1}, {0, 0, 0, 0});
  EXPECT_RUN_OK(a);
  EXPECT_RUN_OK(b);
  EXPECT_EQ(vals(a), (std::vector<double>{-2}));
  EXPECT_EQ(vals(b), (std::vector<double>{-57344}));
}

TEST(MaxPool2dTest, ErrorIfs) {
  Tensor in = T(DType::I8, {1, 4, 4, 1}, {});
  EXPECT_SPEC_ERROR(maxPool(in, {1, 4, 5, 1}, {1, 0}, {1, 1}, {0, 0, 0, 0}));   // kernel_x < 1
  EXPECT_SPEC_ERROR(maxPool(in, {1, 3, 3, 1}, {2, 2}, {0, 1}, {0, 0, 0, 0}));   // stride_y < 1
  EXPECT_SPEC_ERROR(maxPool(in, {1, 2, 3, 1}, {2, 2}, {1, 1}, {-1, 0, 0, 0}));  // pad_top < 0
  EXPECT_SPEC_ERROR(maxPool(in, {1, 3, 5, 1}, {2, 2}, {1, 1}, {0, 0, 2, 0}));   // pad_left >= kernel_x
  EXPECT_SPEC_ERROR(maxPool(in, {1, 3, 5, 1}, {2, 2}, {1, 1}, {0, 2, 0, 0}));   // pad_bottom >= kernel_y
  EXPECT_SPEC_ERROR(maxPool(in, {1, 3, 2, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));   // OW != 3
  EXPECT_SPEC_ERROR(maxPool(in, {1, 1, 1, 1}, {3, 3}, {2, 2}, {0, 0, 0, 0}));   // idiv_check(1, 2)
  EXPECT_SPEC_ERROR(maxPool(T(DType::I32, {1, 2, 2, 1}, {}), {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));  // type
  EXPECT_SPEC_ERROR(maxPool(in, {1, 3, 3, 1}, {2, 2}, {9000, 1}, {0, 0, 0, 0}));  // LEVEL stride_y
  EXPECT_SPEC_ERROR(maxPool(in, {1, 3, 3, 1}, {2, 2}, {1, 1}, {0, 0, 0, 9000}));  // LEVEL pad_right
}

TEST(MaxPool2dTest, BatchMismatchIsError) {
  // Output [N,OH,OW,C] must have the input's N and C.
  EXPECT_SPEC_ERROR(maxPool(T(DType::I8, {2, 2, 2, 1}, {}), {1, 1, 1, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));
  EXPECT_SPEC_ERROR(maxPool(T(DType::I8, {1, 2, 2, 1}, {}), {1, 1, 1, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}));
}

// Every LEVEL_CHECK of both pools: fails at level 8K, the same graph runs at level none. (The pad LEVEL_CHECKs
// cannot fail alone: pad < kernel <= MAX_KERNEL already holds; MaxPool2dTest.ErrorIfs covers one.)
TEST(PoolLevelTest, EveryKernelAndStrideLevelCheck) {
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  struct Case {
    Shape in, out;
    std::vector<int64_t> kernel, stride;
  };
  const Case cases[] = {
      {{1, 8193, 1, 1}, {1, 1, 1, 1}, {8193, 1}, {1, 1}},  // kernel_y
      {{1, 1, 8193, 1}, {1, 1, 1, 1}, {1, 8193}, {1, 1}},  // kernel_x
      {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1}, {8193, 1}},     // stride_y
      {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1}, {1, 8193}},     // stride_x
  };
  for (const Case& c : cases) {
    Tensor in = T(DType::I8, c.in, {});
    EXPECT_SPEC_ERROR(maxPool(in, c.out, c.kernel, c.stride, {0, 0, 0, 0}));
    EXPECT_SPEC_ERROR(avgPool(in, DType::I32, c.out, c.kernel, c.stride, {0, 0, 0, 0}));
    EXPECT_RUN_OK(avgPool(in, DType::I32, c.out, c.kernel, c.stride, {0, 0, 0, 0}, 0, 0, none));
    auto r = runBoth("tosa.max_pool2d", {Arg(in)}, {TT(DType::I8, c.out)},
                     {{"kernel", arr(c.kernel)}, {"stride", arr(c.stride)}, {"pad", arr({0, 0, 0, 0})}}, none);
    EXPECT_RUN_OK(r);
  }
}

TEST(AvgPool2dTest, OutputWidthMismatchIsError) {
  // OW != idiv_check(4 - 2, 1) + 1 = 3
  EXPECT_SPEC_ERROR(avgPool(T(DType::I8, {1, 4, 4, 1}, {}), DType::I32, {1, 3, 2, 1}, {2, 2}, {1, 1}, {0, 0, 0, 0}));
}

// ============================== CONV2D ==============================

struct ConvArgs {
  Tensor input, weight, bias;
  double inZp = 0, wZp = 0;
  DType acc = DType::I32;
  DType out = DType::I32;
  Shape outShape;
  std::vector<int64_t> pad{0, 0, 0, 0}, stride{1, 1}, dilation{1, 1};
};

OpRun conv2d(const ConvArgs& c, const ir::TargetEnv& target = ir::TargetEnv::all()) {
  return runBoth(
      "tosa.conv2d",
      {Arg(c.input), Arg(c.weight), Arg(c.bias), Zp(c.input.dtype(), c.inZp), Zp(c.weight.dtype(), c.wZp)},
      {TT(c.out, c.outShape)},
      {{"pad", arr(c.pad)}, {"stride", arr(c.stride)}, {"dilation", arr(c.dilation)}, {"acc_type", A::type(c.acc)}},
      target);
}

// 3x3 input 1..9, 2x2 weight [1,2,3,4], bias 10, no padding:
// (0,0): 1*1+2*2+4*3+5*4 = 37 -> 47; (0,1): 2+6+15+24 = 47 -> 57; (1,0): 4+10+21+32 = 67 -> 77;
// (1,1): 5+12+24+36 = 77 -> 87. Exact in every type of the table.
ConvArgs baseConv2d(const ConvRow& row) {
  ConvArgs c;
  c.input = T(row.in, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  c.weight = T(row.weight, {1, 2, 2, 1}, {1, 2, 3, 4});
  c.bias = T(row.out, {1}, {10});
  c.acc = row.acc;
  c.out = row.out;
  c.outShape = {1, 2, 2, 1};
  return c;
}

TEST_P(ConvRowTest, Conv2dHandComputed) {
  // As baseConv2d but the last input is 0 instead of 9, which fp8e5m2 cannot hold (8 or 10):
  // (1,1) becomes 5*1+6*2+8*3+0*4 = 41 -> 51.
  ConvArgs c = baseConv2d(GetParam());
  c.input = T(GetParam().in, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 0});
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{47, 57, 77, 51}));
}

TEST(Conv2dTest, Int8NoPadding) {
  auto r = conv2d(baseConv2d(kConvRows[3]));
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{47, 57, 77, 87}));
}

TEST(Conv2dTest, Int8ZeroPoints) {
  // input_zp 1 -> input 0..8; weight_zp -1 -> weight [2,3,4,5]; bias 10:
  // (0,0): 0*2+1*3+3*4+4*5 = 35 -> 45; (0,1): 1*2+2*3+4*4+5*5 = 49 -> 59;
  // (1,0): 3*2+4*3+6*4+7*5 = 77 -> 87; (1,1): 4*2+5*3+7*4+8*5 = 91 -> 101.
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.inZp = 1;
  c.wZp = -1;
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{45, 59, 87, 101}));
}

TEST(Conv2dTest, Int8PadStrideDilation) {
  // pad 1, stride 2, dilation 2: OH = (3-1+2-1*2)/2+1 = 2. Each output sees exactly one real input (the
  // centre 5): (0,0) with w[1][1]=4 -> 20; (0,1) with w[1][0]=3 -> 15; (1,0) with w[0][1]=2 -> 10;
  // (1,1) with w[0][0]=1 -> 5. Bias 0.
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.bias = T(DType::I32, {1}, {0});
  c.pad = {1, 1, 1, 1};
  c.stride = {2, 2};
  c.dilation = {2, 2};
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{20, 15, 10, 5}));
}

TEST(Conv2dTest, Int8PerChannelBias) {
  // Two output channels: weights [1,2,3,4] and [-1,-1,-1,-1], bias [10, 100]. Channel 1: -(window sum):
  // -(1+2+4+5) = -12 -> 88, -16 -> 84, -24 -> 76, -28 -> 72.
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.weight = T(DType::I8, {2, 2, 2, 1}, {1, 2, 3, 4, -1, -1, -1, -1});
  c.bias = T(DType::I32, {2}, {10, 100});
  c.outShape = {1, 2, 2, 2};
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{47, 88, 57, 84, 77, 76, 87, 72}));
}

TEST(Conv2dTest, Int8xInt4FullRange) {
  // weight [7,-8,1,-1] (i4 extremes): (0,0): 7-16+4-5 = -10; (0,1): 14-24+5-6 = -11; (1,0): 28-40+7-8 = -13;
  // (1,1): 35-48+8-9 = -14.
  ConvArgs c = baseConv2d(kConvRows[8]);
  c.weight = T(DType::I4, {1, 2, 2, 1}, {7, -8, 1, -1});
  c.bias = T(DType::I32, {1}, {0});
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{-10, -11, -13, -14}));
}

TEST(Conv2dTest, Int16xInt8AccumulatesBeyondInt32) {
  // 2 * 32767 * 127 = 8322818, plus bias 2^40 = 1099511627776 -> 1099519950594 (needs i48).
  ConvArgs c;
  c.input = T(DType::I16, {1, 1, 2, 1}, {32767, 32767});
  c.weight = T(DType::I8, {1, 1, 2, 1}, {127, 127});
  c.bias = Tensor::fromInts(DType::I48, {1}, {int64_t(1) << 40});
  c.acc = c.out = DType::I48;
  c.outShape = {1, 1, 1, 1};
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1099519950594}));
}

TEST(Conv2dTest, Fp32) {
  // weight [0.5,0.25,-1,2], bias 0.125: (0,0): 0.5+0.5-4+10 = 7 -> 7.125; (0,1): 1+0.75-5+12 = 8.75 -> 8.875;
  // (1,0): 2+1.25-7+16 = 12.25 -> 12.375; (1,1): 2.5+1.5-8+18 = 14 -> 14.125.
  ConvArgs c = baseConv2d(kConvRows[2]);
  c.weight = T(DType::FP32, {1, 2, 2, 1}, {0.5, 0.25, -1, 2});
  c.bias = T(DType::FP32, {1}, {0.125});
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{7.125, 8.875, 12.375, 14.125}));
}

TEST(Conv2dTest, Fp16AccumulatorRoundsEachStep) {
  // [2048,1,1,1] . [1,1,1,1]: fp16 acc: 2048+1 ties to 2048 three times -> 2048.
  // fp32 acc: 2051, converted to fp16 out: tie between 2050 and 2052 -> even 2052.
  ConvArgs c;
  c.input = T(DType::FP16, {1, 1, 4, 1}, {2048, 1, 1, 1});
  c.weight = T(DType::FP16, {1, 1, 4, 1}, {1, 1, 1, 1});
  c.bias = T(DType::FP16, {1}, {0});
  c.out = DType::FP16;
  c.outShape = {1, 1, 1, 1};
  c.acc = DType::FP16;
  auto h = conv2d(c);
  c.acc = DType::FP32;
  auto f = conv2d(c);
  EXPECT_RUN_OK(h);
  EXPECT_RUN_OK(f);
  EXPECT_EQ(vals(h), (std::vector<double>{2048}));
  EXPECT_EQ(vals(f), (std::vector<double>{2052}));
}

TEST(Conv2dTest, Bf16AccumulatesInFp32) {
  // [256,1,1] . [1,1,1] in fp32 = 258 (a bf16 accumulator would stay at 256: spacing 2, ties to even);
  // to bf16 258, plus bias 0.5 = 258.5 -> bf16 258.
  ConvArgs c;
  c.input = T(DType::BF16, {1, 1, 3, 1}, {256, 1, 1});
  c.weight = T(DType::BF16, {1, 1, 3, 1}, {1, 1, 1});
  c.bias = T(DType::BF16, {1}, {0.5});
  c.acc = DType::FP32;
  c.out = DType::BF16;
  c.outShape = {1, 1, 1, 1};
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{258}));
}

TEST(Conv2dTest, Fp8e4m3OutputsFp16) {
  // [448,448,-2,2^-6] . [1,1,1,0.5] = 894 + 2^-7 in fp16 (spacing 0.5 in [512,1024)) -> 894.
  ConvArgs c;
  c.input = T(DType::FP8E4M3, {1, 1, 4, 1}, {448, 448, -2, 0.015625});
  c.weight = T(DType::FP8E4M3, {1, 1, 4, 1}, {1, 1, 1, 0.5});
  c.bias = T(DType::FP16, {1}, {0});
  c.acc = c.out = DType::FP16;
  c.outShape = {1, 1, 1, 1};
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{894}));
}

TEST(Conv2dTest, Fp8e5m2Fp16AccumulatorOverflowsToInf) {
  // 57344 + 57344 = 114688 > fp16 max 65504 -> +inf.
  ConvArgs c;
  c.input = T(DType::FP8E5M2, {1, 1, 2, 1}, {57344, 57344});
  c.weight = T(DType::FP8E5M2, {1, 1, 2, 1}, {1, 1});
  c.bias = T(DType::FP16, {1}, {0});
  c.acc = c.out = DType::FP16;
  c.outShape = {1, 1, 1, 1};
  auto r = conv2d(c);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{kInf}));
}

TEST(Conv2dTest, Int32BiasOverflowIsUnpredictable) {
  // out = apply_add_s<i32>(47, 2147483647): REQUIRE(c <= maximum_s<i32>) fails.
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.bias = T(DType::I32, {1}, {2147483647});
  EXPECT_UNPREDICTABLE(conv2d(c));
}

TEST(Conv2dTest, Int32AccumulatorOverflowIsUnpredictable) {
  // 131072 products of (-128)*(-128) = 2^14 sum to 2^31 > maximum_s<i32>: apply_add_s REQUIRE fails.
  const int64_t IC = 131072;
  ConvArgs c;
  c.input = Tensor::fromInts(DType::I8, {1, 1, 1, IC}, std::vector<int64_t>(IC, -128));
  c.weight = Tensor::fromInts(DType::I8, {1, 1, 1, IC}, std::vector<int64_t>(IC, -128));
  c.bias = T(DType::I32, {1}, {0});
  c.outShape = {1, 1, 1, 1};
  EXPECT_UNPREDICTABLE(conv2d(c));
}

TEST(Conv2dTest, Int48BiasOverflowIsUnpredictable) {
  // 1 * 1 + (2^47 - 1) > maximum_s<i48>.
  ConvArgs c;
  c.input = T(DType::I16, {1, 1, 1, 1}, {1});
  c.weight = T(DType::I8, {1, 1, 1, 1}, {1});
  c.bias = Tensor::fromInts(DType::I48, {1}, {(int64_t(1) << 47) - 1});
  c.acc = c.out = DType::I48;
  c.outShape = {1, 1, 1, 1};
  EXPECT_UNPREDICTABLE(conv2d(c));
}

TEST(Conv2dTest, ZeroPointErrors) {
  // ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0): i16 input with zp 1.
  ConvArgs c16;
  c16.input = T(DType::I16, {1, 1, 1, 1}, {1});
  c16.weight = T(DType::I8, {1, 1, 1, 1}, {1});
  c16.bias = T(DType::I48, {1}, {0});
  c16.acc = c16.out = DType::I48;
  c16.outShape = {1, 1, 1, 1};
  c16.inZp = 1;
  EXPECT_SPEC_ERROR(conv2d(c16));
  // ERROR_IF(!is_same<weight_t,int8_t>() && weight_zp != 0): i4 weights with zp 1; fp32 with zp 1.
  ConvArgs c4 = baseConv2d(kConvRows[8]);
  c4.wZp = 1;
  EXPECT_SPEC_ERROR(conv2d(c4));
  ConvArgs cf = baseConv2d(kConvRows[2]);
  cf.inZp = 1;
  EXPECT_SPEC_ERROR(conv2d(cf));
}

TEST(Conv2dTest, AttributeRangeErrors) {
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.pad = {0, 0, -1, 0};  // pad_left < 0
  c.outShape = {1, 2, 1, 1};
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.stride = {0, 1};  // stride_y < 1
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.dilation = {1, 0};  // dilation_x < 1
  EXPECT_SPEC_ERROR(conv2d(c));
}

TEST(Conv2dTest, OutputShapeErrors) {
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.outShape = {1, 3, 2, 1};  // OH != (3-1-1)/1+1 = 2
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.stride = {2, 2};  // idiv_check(3 - 1 - 1, 2): 1 % 2 != 0
  c.outShape = {1, 1, 1, 1};
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.outShape = {2, 2, 2, 1};  // batch differs from the input's
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.outShape = {1, 2, 2, 2};  // OC differs from the weight's
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.weight = T(DType::I8, {1, 2, 2, 2}, {});  // weight IC differs from the input's
  EXPECT_SPEC_ERROR(conv2d(c));
}

TEST(Conv2dTest, BiasErrors) {
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.bias = T(DType::I32, {2}, {0, 0});  // ERROR_IF(BC != OC && BC != 1)
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.bias = T(DType::I8, {1}, {0});  // bias must be out_t
  EXPECT_SPEC_ERROR(conv2d(c));
}

TEST(Conv2dTest, TypeTableErrors) {
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.acc = DType::I48;  // i8 x i8 accumulates in i32 only
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[4]);
  c.acc = DType::BF16;  // bf16 accumulates in fp32 only
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.weight = T(DType::I16, {1, 2, 2, 1}, {1, 2, 3, 4});  // i8 x i16 is not a row
  EXPECT_SPEC_ERROR(conv2d(c));
  c = baseConv2d(kConvRows[3]);
  c.out = DType::I16;  // wrong output type (bias follows so only the table check fails)
  c.bias = T(DType::I16, {1}, {10});
  EXPECT_SPEC_ERROR(conv2d(c));
}

TEST(Conv2dTest, LevelChecks) {
  // LEVEL_CHECK(dilation_y * KH <= MAX_KERNEL): 2 * 4097 > 8192 at level 8K.
  ConvArgs c;
  c.input = T(DType::I8, {1, 8200, 1, 1}, {});
  c.weight = T(DType::I8, {1, 2, 1, 1}, {});
  c.bias = T(DType::I32, {1}, {0});
  c.dilation = {4097, 1};
  c.outShape = {1, 8200 - 4097, 1, 1};
  EXPECT_SPEC_ERROR(conv2d(c));
  // LEVEL_CHECK(stride_x <= MAX_STRIDE): 9000 fails at 8K; level none runs it (OW = 0/9000 + 1 = 1).
  ConvArgs s;
  s.input = T(DType::I8, {1, 1, 1, 1}, {3});
  s.weight = T(DType::I8, {1, 1, 1, 1}, {2});
  s.bias = T(DType::I32, {1}, {1});
  s.stride = {1, 9000};
  s.outShape = {1, 1, 1, 1};
  EXPECT_SPEC_ERROR(conv2d(s));
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  auto ok = conv2d(s, none);
  EXPECT_RUN_OK(ok);
  EXPECT_EQ(vals(ok), (std::vector<double>{7}));
  // LEVEL_CHECK(pad_top <= MAX_KERNEL)
  ConvArgs p = s;
  p.stride = {1, 1};
  p.pad = {8193, 0, 0, 0};
  p.outShape = {1, 8194, 1, 1};
  EXPECT_SPEC_ERROR(conv2d(p));
}

// Every LEVEL_CHECK of CONV2D and DEPTHWISE_CONV2D on a 1x1 kernel: fails at level 8K, runs at level none.
TEST(Conv2dTest, EveryLevelCheck) {
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  struct Case {
    int64_t IH, IW, KH, KW;
    std::vector<int64_t> pad, stride, dilation;
    int64_t OH, OW;
  };
  const Case cases[] = {
      {4098, 1, 2, 1, {0, 0, 0, 0}, {1, 1}, {4097, 1}, 1, 1},  // dilation_y * KH = 8194
      {1, 4098, 1, 2, {0, 0, 0, 0}, {1, 1}, {1, 4097}, 1, 1},  // dilation_x * KW = 8194
      {1, 1, 1, 1, {8193, 0, 0, 0}, {1, 1}, {1, 1}, 8194, 1},  // pad_top
      {1, 1, 1, 1, {0, 8193, 0, 0}, {1, 1}, {1, 1}, 8194, 1},  // pad_bottom
      {1, 1, 1, 1, {0, 0, 8193, 0}, {1, 1}, {1, 1}, 1, 8194},  // pad_left
      {1, 1, 1, 1, {0, 0, 0, 8193}, {1, 1}, {1, 1}, 1, 8194},  // pad_right
      {1, 1, 1, 1, {0, 0, 0, 0}, {8193, 1}, {1, 1}, 1, 1},     // stride_y
      {1, 1, 1, 1, {0, 0, 0, 0}, {1, 8193}, {1, 1}, 1, 1},     // stride_x
  };
  for (const Case& k : cases) {
    ConvArgs c;
    c.input = T(DType::I8, {1, k.IH, k.IW, 1}, {});
    c.weight = T(DType::I8, {1, k.KH, k.KW, 1}, {});
    c.bias = T(DType::I32, {1}, {0});
    c.pad = k.pad;
    c.stride = k.stride;
    c.dilation = k.dilation;
    c.outShape = {1, k.OH, k.OW, 1};
    EXPECT_SPEC_ERROR(conv2d(c));
    EXPECT_RUN_OK(conv2d(c, none));
    Tensor dw = T(DType::I8, {k.KH, k.KW, 1, 1}, {});
    auto d = [&](const ir::TargetEnv& t) {
      return runBoth("tosa.depthwise_conv2d", {Arg(c.input), Arg(dw), Arg(c.bias), Zp(DType::I8), Zp(DType::I8)},
                     {TT(DType::I32, c.outShape)},
                     {{"pad", arr(c.pad)},
                      {"stride", arr(c.stride)},
                      {"dilation", arr(c.dilation)},
                      {"acc_type", A::type(DType::I32)}},
                     t);
    };
    EXPECT_SPEC_ERROR(d(ir::TargetEnv::all()));
    EXPECT_RUN_OK(d(none));
  }
}

TEST(Conv2dTest, AttributeOutsideI32IsError) {
  // pad/stride/dilation are T<i32_t> attributes: 2^40 does not meet the argument requirement, even at level
  // none (where LEVEL_CHECK(stride_y <= MAX_STRIDE) would accept it).
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  ConvArgs c;
  c.input = T(DType::I8, {1, 1, 1, 1}, {1});
  c.weight = T(DType::I8, {1, 1, 1, 1}, {1});
  c.bias = T(DType::I32, {1}, {0});
  c.stride = {int64_t(1) << 40, 1};
  c.outShape = {1, 1, 1, 1};
  EXPECT_SPEC_ERROR(conv2d(c, none));
}

TEST(Conv2dTest, OutputWidthMismatchIsError) {
  ConvArgs c = baseConv2d(kConvRows[3]);
  c.outShape = {1, 2, 3, 1};  // OW != 2
  EXPECT_SPEC_ERROR(conv2d(c));
}

TEST(Conv2dTest, WrongOperandCountIsError) {
  ConvArgs c = baseConv2d(kConvRows[3]);
  auto r =
      runBoth("tosa.conv2d", {Arg(c.input), Arg(c.weight), Arg(c.bias), Zp(DType::I8)}, {TT(DType::I32, c.outShape)},
              {{"pad", arr(c.pad)},
               {"stride", arr(c.stride)},
               {"dilation", arr(c.dilation)},
               {"acc_type", A::type(DType::I32)}});
  EXPECT_SPEC_ERROR(r);
}

// ============================== CONV3D ==============================

OpRun conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, DType acc, DType out, Shape outShape,
             std::vector<int64_t> pad = {0, 0, 0, 0, 0, 0}, std::vector<int64_t> stride = {1, 1, 1},
             std::vector<int64_t> dilation = {1, 1, 1}, double inZp = 0, double wZp = 0) {
  return runBoth("tosa.conv3d", {Arg(input), Arg(weight), Arg(bias), Zp(input.dtype(), inZp), Zp(weight.dtype(), wZp)},
                 {TT(out, std::move(outShape))},
                 {{"pad", arr(pad)}, {"stride", arr(stride)}, {"dilation", arr(dilation)}, {"acc_type", A::type(acc)}});
}

TEST_P(ConvRowTest, Conv3dHandComputed) {
  // input 1x2x2x2x1 = 1..8 (depth 0: 1..4, depth 1: 5..8), weight KD=2 [2,-1], bias 3:
  // out(y,x) = 2*in(0,y,x) - in(1,y,x) + 3 = [2-5, 4-6, 6-7, 8-8] + 3 = [0, 1, 2, 3].
  const ConvRow& row = GetParam();
  auto r = conv3d(T(row.in, {1, 2, 2, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8}), T(row.weight, {1, 2, 1, 1, 1}, {2, -1}),
                  T(row.out, {1}, {3}), row.acc, row.out, {1, 1, 2, 2, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{0, 1, 2, 3}));
}

TEST(Conv3dTest, Int8DepthPaddingStrideAndZeroPoint) {
  // input 1x3x1x1x1 = [1,2,3], input_zp 1 -> [0,1,2]; weight KD=2 [1,1]; pad_d0 = pad_d1 = 1, stride 1:
  // OD = (3-1+2-1)/1+1 = 4. od=0: d=-1 (pad),0 -> 0; od=1: d=0,1 -> 0+1 = 1; od=2: 1+2 = 3; od=3: d=2,3 -> 2.
  auto r =
      conv3d(T(DType::I8, {1, 3, 1, 1, 1}, {1, 2, 3}), T(DType::I8, {1, 2, 1, 1, 1}, {1, 1}), T(DType::I32, {1}, {0}),
             DType::I32, DType::I32, {1, 4, 1, 1, 1}, {1, 1, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 1, 0);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{0, 1, 3, 2}));
}

TEST(Conv3dTest, DilationD) {
  // input depth 3 [1,2,3], weight KD=2 [1,10], dilation_d 2: OD = (3-1-2)/1+1 = 1: 1*1 + 3*10 = 31.
  auto r =
      conv3d(T(DType::I8, {1, 3, 1, 1, 1}, {1, 2, 3}), T(DType::I8, {1, 2, 1, 1, 1}, {1, 10}), T(DType::I32, {1}, {0}),
             DType::I32, DType::I32, {1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {2, 1, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{31}));
}

TEST(Conv3dTest, ErrorIfs) {
  Tensor in = T(DType::I8, {1, 2, 2, 2, 1}, {});
  Tensor w = T(DType::I8, {1, 2, 1, 1, 1}, {});
  Tensor b = T(DType::I32, {1}, {0});
  Shape os{1, 1, 2, 2, 1};
  EXPECT_RUN_OK(conv3d(in, w, b, DType::I32, DType::I32, os));
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, os, {-1, 1, 0, 0, 0, 0}));            // pad_d0 < 0
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, os, {0, 0, 0, 0, 0, 0}, {0, 1, 1}));  // stride_d
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, os, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {0, 1, 1}));
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, {1, 2, 2, 2, 1}));  // OD != 1
  EXPECT_SPEC_ERROR(
      conv3d(in, w, b, DType::I32, DType::I32, {1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 2, 2}));  // idiv_check(1, 2)
  EXPECT_SPEC_ERROR(conv3d(in, w, T(DType::I32, {3}, {}), DType::I32, DType::I32, os));           // BC
  Tensor f = T(DType::FP32, {1, 2, 2, 2, 1}, {});
  Tensor fw = T(DType::FP32, {1, 2, 1, 1, 1}, {});
  EXPECT_SPEC_ERROR(conv3d(f, fw, T(DType::FP32, {1}, {}), DType::FP32, DType::FP32, os, {0, 0, 0, 0, 0, 0}, {1, 1, 1},
                           {1, 1, 1}, 0, 1));                        // weight_zp != 0 for fp32
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::FP32, DType::I32, os));  // acc type
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, os, {0, 0, 0, 0, 0, 0}, {9000, 1, 1}));  // LEVEL
}

TEST(Conv3dTest, OutputHeightWidthMismatch) {
  Tensor in = T(DType::I8, {1, 2, 2, 2, 1}, {});
  Tensor w = T(DType::I8, {1, 2, 1, 1, 1}, {});
  Tensor b = T(DType::I32, {1}, {0});
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, {1, 1, 3, 2, 1}));  // OH != 2
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, {1, 1, 2, 1, 1}));  // OW != 2
  EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, {2, 1, 2, 2, 1}));  // N
  EXPECT_SPEC_ERROR(conv3d(in, T(DType::I8, {1, 2, 1, 1, 2}, {}), b, DType::I32, DType::I32, {1, 1, 2, 2, 1}));  // IC
  EXPECT_SPEC_ERROR(conv3d(T(DType::I16, {1, 2, 2, 2, 1}, {}), w, T(DType::I48, {1}, {}), DType::I48, DType::I48,
                           {1, 1, 2, 2, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, {1, 1, 1}, 3, 0));  // input_zp for i16
}

// Every LEVEL_CHECK of CONV3D on a 1x1x1 kernel: fails at level 8K, runs at level none.
TEST(Conv3dTest, EveryLevelCheck) {
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  struct Case {
    Shape in, w;
    std::vector<int64_t> pad, stride, dilation;
    Shape out;
  };
  const std::vector<int64_t> p0{0, 0, 0, 0, 0, 0}, s1{1, 1, 1};
  const Case cases[] = {
      {{1, 4098, 1, 1, 1}, {1, 2, 1, 1, 1}, p0, s1, {4097, 1, 1}, {1, 1, 1, 1, 1}},           // dilation_d * KD
      {{1, 1, 4098, 1, 1}, {1, 1, 2, 1, 1}, p0, s1, {1, 4097, 1}, {1, 1, 1, 1, 1}},           // dilation_y * KH
      {{1, 1, 1, 4098, 1}, {1, 1, 1, 2, 1}, p0, s1, {1, 1, 4097}, {1, 1, 1, 1, 1}},           // dilation_x * KW
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {8193, 0, 0, 0, 0, 0}, s1, s1, {1, 8194, 1, 1, 1}},  // pad_d0
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 8193, 0, 0, 0, 0}, s1, s1, {1, 8194, 1, 1, 1}},  // pad_d1
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 0, 8193, 0, 0, 0}, s1, s1, {1, 1, 8194, 1, 1}},  // pad_top
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 0, 0, 8193, 0, 0}, s1, s1, {1, 1, 8194, 1, 1}},  // pad_bottom
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 0, 0, 0, 8193, 0}, s1, s1, {1, 1, 1, 8194, 1}},  // pad_left
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 8193}, s1, s1, {1, 1, 1, 8194, 1}},  // pad_right
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, p0, {8193, 1, 1}, s1, {1, 1, 1, 1, 1}},              // stride_d
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, p0, {1, 8193, 1}, s1, {1, 1, 1, 1, 1}},              // stride_y
      {{1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, p0, {1, 1, 8193}, s1, {1, 1, 1, 1, 1}},              // stride_x
  };
  for (const Case& c : cases) {
    Tensor in = T(DType::I8, c.in, {}), w = T(DType::I8, c.w, {}), b = T(DType::I32, {1}, {0});
    EXPECT_SPEC_ERROR(conv3d(in, w, b, DType::I32, DType::I32, c.out, c.pad, c.stride, c.dilation));
    auto r = runBoth("tosa.conv3d", {Arg(in), Arg(w), Arg(b), Zp(DType::I8), Zp(DType::I8)}, {TT(DType::I32, c.out)},
                     {{"pad", arr(c.pad)},
                      {"stride", arr(c.stride)},
                      {"dilation", arr(c.dilation)},
                      {"acc_type", A::type(DType::I32)}},
                     none);
    EXPECT_RUN_OK(r);
  }
}

// ============================== DEPTHWISE_CONV2D ==============================

OpRun depthwise(const Tensor& input, const Tensor& weight, const Tensor& bias, DType acc, DType out, Shape outShape,
                std::vector<int64_t> pad = {0, 0, 0, 0}, std::vector<int64_t> stride = {1, 1},
                std::vector<int64_t> dilation = {1, 1}, double inZp = 0, double wZp = 0) {
  return runBoth("tosa.depthwise_conv2d",
                 {Arg(input), Arg(weight), Arg(bias), Zp(input.dtype(), inZp), Zp(weight.dtype(), wZp)},
                 {TT(out, std::move(outShape))},
                 {{"pad", arr(pad)}, {"stride", arr(stride)}, {"dilation", arr(dilation)}, {"acc_type", A::type(acc)}});
}

TEST_P(ConvRowTest, DepthwiseConv2dHandComputed) {
  // 2x2 input, C=2: channel 0 = [1,2,3,4], channel 1 = [5,6,7,8] (NHWC: 1,5,2,6,3,7,4,8).
  // weight [KH,KW,C,M=1]: channel 0 all 1, channel 1 [1,0,0,-1] -> [1,1, 1,0, 1,0, 1,-1]. bias [0,1]:
  // channel 0: 1+2+3+4 = 10; channel 1: 5 - 8 + 1 = -2.
  const ConvRow& row = GetParam();
  auto r = depthwise(T(row.in, {1, 2, 2, 2}, {1, 5, 2, 6, 3, 7, 4, 8}),
                     T(row.weight, {2, 2, 2, 1}, {1, 1, 1, 0, 1, 0, 1, -1}), T(row.out, {2}, {0, 1}), row.acc, row.out,
                     {1, 1, 1, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{10, -2}));
}

TEST(DepthwiseConv2dTest, ChannelMultiplierOrder) {
  // input [3,5] (C=2), weight 1x1x2x2 [1,2,3,4]: output channel c*M+m = [3*1, 3*2, 5*3, 5*4].
  auto r = depthwise(T(DType::I8, {1, 1, 1, 2}, {3, 5}), T(DType::I8, {1, 1, 2, 2}, {1, 2, 3, 4}),
                     T(DType::I32, {1}, {0}), DType::I32, DType::I32, {1, 1, 1, 4});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{3, 6, 15, 20}));
}

TEST(DepthwiseConv2dTest, Int8PadStrideZeroPoints) {
  // 1x3x3x1 input 1..9 with input_zp 1 -> 0..8; weight [2,2,2,2] with weight_zp 1 -> [1,1,1,1].
  // pad top/left 1, stride 2: OH = (3-1+1-1)/2+1 = 2.
  // (0,0): rows -1..0, cols -1..0 -> 0; (0,1): row 0, cols 1..2 -> 1+2 = 3; (1,0): rows 1..2, col 0 -> 3+6 = 9;
  // (1,1): rows 1..2, cols 1..2 -> 4+5+7+8 = 24.
  auto r = depthwise(T(DType::I8, {1, 3, 3, 1}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), T(DType::I8, {2, 2, 1, 1}, {2, 2, 2, 2}),
                     T(DType::I32, {1}, {0}), DType::I32, DType::I32, {1, 2, 2, 1}, {1, 0, 1, 0}, {2, 2}, {1, 1}, 1, 1);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{0, 3, 9, 24}));
}

TEST(DepthwiseConv2dTest, ErrorIfs) {
  Tensor in = T(DType::I8, {1, 3, 3, 1}, {});
  Tensor w = T(DType::I8, {2, 2, 1, 1}, {});
  Tensor b = T(DType::I32, {1}, {});
  Shape os{1, 2, 2, 1};
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, os, {0, -1, 0, 0}));                   // pad < 0
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, os, {0, 0, 0, 0}, {1, 0}));            // stride
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, os, {0, 0, 0, 0}, {1, 1}, {0, 1}));    // dilation
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, {1, 2, 3, 1}));                        // OW
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, {1, 1, 1, 1}, {0, 0, 0, 0}, {2, 2}));  // idiv
  EXPECT_SPEC_ERROR(depthwise(in, w, T(DType::I32, {2}, {}), DType::I32, DType::I32, os));             // BC != C*M
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, {1, 2, 2, 2}));  // output channels != C*M
  EXPECT_SPEC_ERROR(depthwise(in, T(DType::I8, {2, 2, 2, 1}, {}), b, DType::I32, DType::I32, os));  // weight C
  Tensor i16 = T(DType::I16, {1, 3, 3, 1}, {});
  EXPECT_SPEC_ERROR(depthwise(i16, w, T(DType::I48, {1}, {}), DType::I48, DType::I48, os, {0, 0, 0, 0}, {1, 1}, {1, 1},
                              2, 0));  // input_zp for i16
  EXPECT_SPEC_ERROR(depthwise(in, T(DType::I4, {2, 2, 1, 1}, {}), b, DType::I32, DType::I32, os, {0, 0, 0, 0}, {1, 1},
                              {1, 1}, 0, 1));                          // weight_zp for i4
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I48, DType::I32, os));  // acc type
  EXPECT_SPEC_ERROR(depthwise(in, w, b, DType::I32, DType::I32, os, {0, 0, 0, 0}, {1, 1}, {5000, 1}));  // LEVEL
}

TEST(DepthwiseConv2dTest, AccumulatorOverflowIsUnpredictable) {
  // bias 2147483647 + 1*1 overflows i32.
  auto r = depthwise(T(DType::I8, {1, 1, 1, 1}, {1}), T(DType::I8, {1, 1, 1, 1}, {1}), T(DType::I32, {1}, {2147483647}),
                     DType::I32, DType::I32, {1, 1, 1, 1});
  EXPECT_UNPREDICTABLE(r);
}

// ============================== TRANSPOSE_CONV2D ==============================

OpRun transposeConv(const Tensor& input, const Tensor& weight, const Tensor& bias, DType acc, DType out, Shape outShape,
                    std::vector<int64_t> outPad = {0, 0, 0, 0}, std::vector<int64_t> stride = {1, 1}, double inZp = 0,
                    double wZp = 0) {
  return runBoth(
      "tosa.transpose_conv2d", {Arg(input), Arg(weight), Arg(bias), Zp(input.dtype(), inZp), Zp(weight.dtype(), wZp)},
      {TT(out, std::move(outShape))}, {{"out_pad", arr(outPad)}, {"stride", arr(stride)}, {"acc_type", A::type(acc)}});
}

TEST_P(ConvRowTest, TransposeConv2dHandComputed) {
  // input 2x2 [1,2,3,4], weight 2x2 [1,2,3,4], stride 2, no padding: OH = (2-1)*2+2 = 4 and
  // out[oy][ox] = in[oy/2][ox/2] * w[oy%2][ox%2] (no overlap), plus bias 1:
  // row 0: 1,2,2,4 / row 1: 3,4,6,8 / row 2: 3,6,4,8 / row 3: 9,12,12,16, each + 1.
  const ConvRow& row = GetParam();
  auto r = transposeConv(T(row.in, {1, 2, 2, 1}, {1, 2, 3, 4}), T(row.weight, {1, 2, 2, 1}, {1, 2, 3, 4}),
                         T(row.out, {1}, {1}), row.acc, row.out, {1, 4, 4, 1}, {0, 0, 0, 0}, {2, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{2, 3, 3, 5, 4, 5, 7, 9, 4, 7, 5, 9, 10, 13, 13, 17}));
}

TEST(TransposeConv2dTest, OverlapAndNegativeOutPad) {
  // 1D: input [1,2], weight [1,10], stride 1. Full output [1*1, 1*10+2*1, 2*10] = [1,12,20];
  // out_pad_left = -1 crops the first column: OW = (2-1)+(-1)+0+2 = 2 -> [12, 20].
  auto r = transposeConv(T(DType::I8, {1, 1, 2, 1}, {1, 2}), T(DType::I8, {1, 1, 2, 1}, {1, 10}),
                         T(DType::I32, {1}, {0}), DType::I32, DType::I32, {1, 1, 2, 1}, {0, 0, -1, 0});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{12, 20}));
}

TEST(TransposeConv2dTest, PositiveOutPadAndZeroPoints) {
  // input [3] with input_zp 1 -> 2; weight [5] with weight_zp 2 -> 3; out_pad top 1, right 1:
  // OH = 0+1+0+1 = 2, OW = 0+0+1+1 = 2; only (1,0) lands on the input: 2*3 = 6; others 0. Bias 7.
  auto r = transposeConv(T(DType::I8, {1, 1, 1, 1}, {3}), T(DType::I8, {1, 1, 1, 1}, {5}), T(DType::I32, {1}, {7}),
                         DType::I32, DType::I32, {1, 2, 2, 1}, {1, 0, 0, 1}, {1, 1}, 1, 2);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{7, 7, 13, 7}));
}

TEST(TransposeConv2dTest, ErrorIfs) {
  Tensor in = T(DType::I8, {1, 2, 2, 1}, {});
  Tensor w = T(DType::I8, {1, 2, 2, 1}, {});
  Tensor b = T(DType::I32, {1}, {});
  EXPECT_RUN_OK(transposeConv(in, w, b, DType::I32, DType::I32, {1, 3, 3, 1}));
  // out_pad_top <= -KH: -2 (OH = 1 + -2 + 0 + 2 = 1)
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 1, 3, 1}, {-2, 0, 0, 0}));
  // out_pad_right <= -KW
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 3, 1, 1}, {0, 0, 0, -2}));
  // stride_x < 1
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 3, 2, 1}, {0, 0, 0, 0}, {1, 0}));
  // OH != (IH-1)*stride_y + KH = 3
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 4, 3, 1}));
  // OW != 3
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 3, 2, 1}));
  // BC != OC && BC != 1
  EXPECT_SPEC_ERROR(transposeConv(in, w, T(DType::I32, {2}, {}), DType::I32, DType::I32, {1, 3, 3, 1}));
  // zero points: fp16 input_zp, i4 weight_zp
  EXPECT_SPEC_ERROR(transposeConv(T(DType::FP16, {1, 2, 2, 1}, {}), T(DType::FP16, {1, 2, 2, 1}, {}),
                                  T(DType::FP16, {1}, {}), DType::FP16, DType::FP16, {1, 3, 3, 1}, {0, 0, 0, 0}, {1, 1},
                                  1, 0));
  EXPECT_SPEC_ERROR(transposeConv(in, T(DType::I4, {1, 2, 2, 1}, {}), b, DType::I32, DType::I32, {1, 3, 3, 1},
                                  {0, 0, 0, 0}, {1, 1}, 0, -1));
  // batch mismatch, acc type
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {2, 3, 3, 1}));
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::FP32, DType::I32, {1, 3, 3, 1}));
  // LEVEL_CHECK(stride_y <= MAX_STRIDE) and (out_pad_bottom <= MAX_KERNEL)
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 9002, 3, 1}, {0, 0, 0, 0}, {9000, 1}));
  EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, 8196, 3, 1}, {0, 8193, 0, 0}));
}

// Every LEVEL_CHECK of TRANSPOSE_CONV2D: fails at level 8K, runs at level none.
TEST(TransposeConv2dTest, EveryLevelCheck) {
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  struct Case {
    int64_t KH, KW;
    std::vector<int64_t> outPad, stride;
    int64_t OH, OW;
  };
  const Case cases[] = {
      {8193, 1, {0, 0, 0, 0}, {1, 1}, 8193, 1},  // KH
      {1, 8193, {0, 0, 0, 0}, {1, 1}, 1, 8193},  // KW
      {1, 1, {8193, 0, 0, 0}, {1, 1}, 8194, 1},  // out_pad_top
      {1, 1, {0, 8193, 0, 0}, {1, 1}, 8194, 1},  // out_pad_bottom
      {1, 1, {0, 0, 8193, 0}, {1, 1}, 1, 8194},  // out_pad_left
      {1, 1, {0, 0, 0, 8193}, {1, 1}, 1, 8194},  // out_pad_right
      {1, 1, {0, 0, 0, 0}, {8193, 1}, 8194, 1},  // stride_y: OH = (2-1)*8193 + 1
      {1, 1, {0, 0, 0, 0}, {1, 8193}, 1, 8194},  // stride_x
  };
  for (const Case& c : cases) {
    // input 1x2x1x1 for the stride_y case (OH = 8194), 1x1x2x1 for stride_x; 1x1x1x1 otherwise.
    Shape inShape{1, c.stride[0] > 1 ? 2 : 1, c.stride[1] > 1 ? 2 : 1, 1};
    Tensor in = T(DType::I8, inShape, {}), w = T(DType::I8, {1, c.KH, c.KW, 1}, {}), b = T(DType::I32, {1}, {0});
    EXPECT_SPEC_ERROR(transposeConv(in, w, b, DType::I32, DType::I32, {1, c.OH, c.OW, 1}, c.outPad, c.stride));
    auto r = runBoth("tosa.transpose_conv2d", {Arg(in), Arg(w), Arg(b), Zp(DType::I8), Zp(DType::I8)},
                     {TT(DType::I32, {1, c.OH, c.OW, 1})},
                     {{"out_pad", arr(c.outPad)}, {"stride", arr(c.stride)}, {"acc_type", A::type(DType::I32)}}, none);
    EXPECT_RUN_OK(r);
  }
}

TEST(TransposeConv2dTest, BiasOverflowIsUnpredictable) {
  auto r = transposeConv(T(DType::I8, {1, 1, 1, 1}, {-1}), T(DType::I8, {1, 1, 1, 1}, {1}),
                         Tensor::fromInts(DType::I32, {1}, {-2147483648LL}), DType::I32, DType::I32, {1, 1, 1, 1});
  EXPECT_UNPREDICTABLE(r);  // -1 + (-2^31) < minimum_s<i32>
}

INSTANTIATE_TEST_SUITE_P(AllTypeRows, ConvRowTest, ::testing::ValuesIn(kConvRows), rowName);

// ============================== MATMUL ==============================

OpRun matmul(const Tensor& a, const Tensor& b, DType out, Shape outShape, double aZp = 0, double bZp = 0) {
  return runBoth("tosa.matmul", {Arg(a), Arg(b), Zp(a.dtype(), aZp), Zp(b.dtype(), bZp)},
                 {TT(out, std::move(outShape))});
}

struct MatmulRow {
  const char* name;
  DType in, out;
};
const MatmulRow kMatmulRows[] = {
    {"fp16_acc_fp16", DType::FP16, DType::FP16}, {"fp16_acc_fp32", DType::FP16, DType::FP32},
    {"fp32", DType::FP32, DType::FP32},          {"i8", DType::I8, DType::I32},
    {"bf16", DType::BF16, DType::FP32},          {"fp8e4m3", DType::FP8E4M3, DType::FP16},
    {"fp8e5m2", DType::FP8E5M2, DType::FP16},    {"i16", DType::I16, DType::I48},
};
class MatmulRowTest : public ::testing::TestWithParam<MatmulRow> {};

TEST_P(MatmulRowTest, HandComputed) {
  // [[1,2,3],[4,5,6]] x [[1,0],[0,1],[2,-1]] = [[1+6, 2-3], [4+12, 5-6]] = [[7,-1],[16,-1]].
  const MatmulRow& row = GetParam();
  auto r =
      matmul(T(row.in, {1, 2, 3}, {1, 2, 3, 4, 5, 6}), T(row.in, {1, 3, 2}, {1, 0, 0, 1, 2, -1}), row.out, {1, 2, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{7, -1, 16, -1}));
}

INSTANTIATE_TEST_SUITE_P(AllTypeRows, MatmulRowTest, ::testing::ValuesIn(kMatmulRows),
                         [](const ::testing::TestParamInfo<MatmulRow>& i) { return std::string(i.param.name); });

TEST(MatmulTest, Int8ZeroPointsAreAllowed) {
  // The spec text reads ERROR_IF(is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)), a slip for !is_same (its
  // comment says "Zero point only for i8_t"). A - 1 = [[0,1,2],[3,4,5]], B + 1 = [[2,1],[1,2],[3,0]]:
  // [[0+1+6, 0+2+0], [6+4+15, 3+8+0]] = [[7,2],[25,11]].
  auto r = matmul(T(DType::I8, {1, 2, 3}, {1, 2, 3, 4, 5, 6}), T(DType::I8, {1, 3, 2}, {1, 0, 0, 1, 2, -1}), DType::I32,
                  {1, 2, 2}, 1, -1);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{7, 2, 25, 11}));
}

TEST(MatmulTest, Batched) {
  // N=2: [1,2]x[[3],[4]] = 11; [-1,1]x[[5],[6]] = 1.
  auto r = matmul(T(DType::I8, {2, 1, 2}, {1, 2, -1, 1}), T(DType::I8, {2, 2, 1}, {3, 4, 5, 6}), DType::I32, {2, 1, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{11, 1}));
}

TEST(MatmulTest, Int16AccumulatesInInt48) {
  // 32767^2 + (-32768)^2 = 1073676289 + 1073741824 = 2147418113 > maximum_s<i32>.
  auto r = matmul(T(DType::I16, {1, 1, 2}, {32767, -32768}), T(DType::I16, {1, 2, 1}, {32767, -32768}), DType::I48,
                  {1, 1, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2147418113}));
}

TEST(MatmulTest, Fp16OutputIsTheAccumulator) {
  // [2048,1,1,1] . [1,1,1,1]: fp16 out_t: each +1 ties back to 2048; fp32 out_t: 2051 exactly.
  Tensor a = T(DType::FP16, {1, 1, 4}, {2048, 1, 1, 1});
  Tensor b = T(DType::FP16, {1, 4, 1}, {1, 1, 1, 1});
  auto h = matmul(a, b, DType::FP16, {1, 1, 1});
  auto f = matmul(a, b, DType::FP32, {1, 1, 1});
  EXPECT_RUN_OK(h);
  EXPECT_RUN_OK(f);
  EXPECT_EQ(vals(h), (std::vector<double>{2048}));
  EXPECT_EQ(vals(f), (std::vector<double>{2051}));
}

TEST(MatmulTest, Bf16ProductsExactInFp32) {
  // bf16 1.0078125 (1 + 2^-7) squared = 1 + 2^-6 + 2^-14: exact in fp32 (a bf16 result would lose 2^-14).
  auto r =
      matmul(T(DType::BF16, {1, 1, 1}, {1.0078125}), T(DType::BF16, {1, 1, 1}, {1.0078125}), DType::FP32, {1, 1, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(vals(r), (std::vector<double>{1.0 + 1.0 / 64 + 1.0 / 16384}));
}

TEST(MatmulTest, Int32OverflowIsUnpredictable) {
  // 131072 products (-128)*(-128) = 2^14 sum to 2^31 > maximum_s<i32>.
  const int64_t C = 131072;
  auto r = matmul(Tensor::fromInts(DType::I8, {1, 1, C}, std::vector<int64_t>(C, -128)),
                  Tensor::fromInts(DType::I8, {1, C, 1}, std::vector<int64_t>(C, -128)), DType::I32, {1, 1, 1});
  EXPECT_UNPREDICTABLE(r);
}

TEST(MatmulTest, ZeroPointNonZeroForNonInt8IsError) {
  EXPECT_SPEC_ERROR(matmul(T(DType::I16, {1, 1, 1}, {1}), T(DType::I16, {1, 1, 1}, {1}), DType::I48, {1, 1, 1}, 1, 0));
  EXPECT_SPEC_ERROR(
      matmul(T(DType::FP32, {1, 1, 1}, {1}), T(DType::FP32, {1, 1, 1}, {1}), DType::FP32, {1, 1, 1}, 0, 2));
}

TEST(MatmulTest, ShapeAndTypeErrors) {
  Tensor a = T(DType::I8, {1, 2, 3}, {});
  Tensor b = T(DType::I8, {1, 3, 2}, {});
  EXPECT_RUN_OK(matmul(a, b, DType::I32, {1, 2, 2}));
  EXPECT_SPEC_ERROR(matmul(a, T(DType::I8, {2, 3, 2}, {}), DType::I32, {1, 2, 2}));   // N mismatch
  EXPECT_SPEC_ERROR(matmul(a, T(DType::I8, {1, 4, 2}, {}), DType::I32, {1, 2, 2}));   // C mismatch
  EXPECT_SPEC_ERROR(matmul(a, b, DType::I32, {1, 2, 3}));                             // W mismatch
  EXPECT_SPEC_ERROR(matmul(a, b, DType::I32, {1, 2}));                                // output rank
  EXPECT_SPEC_ERROR(matmul(a, b, DType::I48, {1, 2, 2}));                             // i8 -> i48 not a row
  EXPECT_SPEC_ERROR(matmul(a, T(DType::I16, {1, 3, 2}, {}), DType::I32, {1, 2, 2}));  // A, B types differ
}

// ============================== FFT2D / RFFT2D ==============================

OpRun fft2d(const Tensor& re, const Tensor& im, bool inverse, Shape outShape) {
  return runBoth("tosa.fft2d", {Arg(re), Arg(im)}, {TT(DType::FP32, outShape), TT(DType::FP32, outShape)},
                 {{"inverse", A::boolean(inverse)}});
}

void expectNear(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(Fft2dTest, Forward2x2) {
  // Real [[1,2],[3,4]], imag 0: X00 = 10, X01 = (1-2)+(3-4) = -2, X10 = (1+2)-(3+4) = -4, X11 = 1-2-3+4 = 0;
  // imaginary parts all 0 (every angle is a multiple of pi).
  auto r = fft2d(T(DType::FP32, {1, 2, 2}, {1, 2, 3, 4}), T(DType::FP32, {1, 2, 2}, {0, 0, 0, 0}), false, {1, 2, 2});
  EXPECT_RUN_OK(r);
  expectNear(vals(r, 0), {10, -2, -4, 0});
  expectNear(vals(r, 1), {0, 0, 0, 0});
}

TEST(Fft2dTest, ForwardAndInverseComplex) {
  // x = [1, i, 0, 0] (H=1, W=4). Forward X(k) = 1 + i*e^{-i*pi*k/2}: [1+i, 2, 1-i, 0].
  // Inverse (no normalization) X(k) = 1 + i*e^{+i*pi*k/2}: [1+i, 0, 1-i, 2].
  Tensor re = T(DType::FP32, {1, 1, 4}, {1, 0, 0, 0});
  Tensor im = T(DType::FP32, {1, 1, 4}, {0, 1, 0, 0});
  auto f = fft2d(re, im, false, {1, 1, 4});
  auto i = fft2d(re, im, true, {1, 1, 4});
  EXPECT_RUN_OK(f);
  EXPECT_RUN_OK(i);
  expectNear(vals(f, 0), {1, 2, 1, 0});
  expectNear(vals(f, 1), {1, 0, -1, 0});
  expectNear(vals(i, 0), {1, 0, 1, 2});
  expectNear(vals(i, 1), {1, 0, -1, 0});
}

TEST(Fft2dTest, ErrorIfs) {
  Tensor a = T(DType::FP32, {1, 3, 2}, {});
  EXPECT_SPEC_ERROR(fft2d(a, a, false, {1, 3, 2}));  // !power_of_two(H)
  Tensor b = T(DType::FP32, {1, 2, 6}, {});
  EXPECT_SPEC_ERROR(fft2d(b, b, false, {1, 2, 6}));  // !power_of_two(W)
  Tensor c = T(DType::FP32, {1, 2, 2}, {});
  EXPECT_SPEC_ERROR(fft2d(c, T(DType::FP32, {1, 2, 4}, {}), false, {1, 2, 2}));  // input shapes differ
  EXPECT_SPEC_ERROR(fft2d(c, c, false, {1, 2, 4}));                              // output shape
  EXPECT_SPEC_ERROR(fft2d(T(DType::FP16, {1, 2, 2}, {}), T(DType::FP16, {1, 2, 2}, {}), false, {1, 2, 2}));  // type
  Tensor big = T(DType::FP32, {1, 16384, 1}, {});
  EXPECT_SPEC_ERROR(fft2d(big, big, false, {1, 16384, 1}));  // LEVEL_CHECK(H <= MAX_KERNEL)
  Tensor wide = T(DType::FP32, {1, 1, 16384}, {});
  EXPECT_SPEC_ERROR(fft2d(wide, wide, false, {1, 1, 16384}));  // LEVEL_CHECK(W <= MAX_KERNEL)
}

OpRun rfft2d(const Tensor& re, Shape outShape) {
  return runBoth("tosa.rfft2d", {Arg(re)}, {TT(DType::FP32, outShape), TT(DType::FP32, outShape)});
}

TEST(Rfft2dTest, HalfSpectrum) {
  // x = [1,2,3,4]: X0 = 10, X1 = 1 - 2i - 3 + 4i = -2 + 2i, X2 = 1-2+3-4 = -2; outputs W/2+1 = 3 columns.
  auto r = rfft2d(T(DType::FP32, {1, 1, 4}, {1, 2, 3, 4}), {1, 1, 3});
  EXPECT_RUN_OK(r);
  expectNear(vals(r, 0), {10, -2, -2});
  // The skipped imaginary terms (angles 0 and pi) leave exact zeros.
  EXPECT_EQ(vals(r, 1)[0], 0);
  EXPECT_NEAR(vals(r, 1)[1], 2, 1e-5);
  EXPECT_EQ(vals(r, 1)[2], 0);
}

TEST(Rfft2dTest, TwoDimensions) {
  // [[1,0],[0,0]] -> every coefficient is 1 + 0i; [[0,1],[0,0]] -> X(k,l) = e^{-i*pi*l}: [[1,-1],[1,-1]].
  auto a = rfft2d(T(DType::FP32, {2, 2, 2}, {1, 0, 0, 0, 0, 1, 0, 0}), {2, 2, 2});
  EXPECT_RUN_OK(a);
  expectNear(vals(a, 0), {1, 1, 1, 1, 1, -1, 1, -1});
  expectNear(vals(a, 1), {0, 0, 0, 0, 0, 0, 0, 0});
}

TEST(Rfft2dTest, ErrorIfs) {
  EXPECT_SPEC_ERROR(rfft2d(T(DType::FP32, {1, 2, 6}, {}), {1, 2, 4}));          // !power_of_two(W)
  EXPECT_SPEC_ERROR(rfft2d(T(DType::FP32, {1, 5, 4}, {}), {1, 5, 3}));          // !power_of_two(H)
  EXPECT_SPEC_ERROR(rfft2d(T(DType::FP32, {1, 2, 4}, {}), {1, 2, 4}));          // output must be [N,H,W/2+1]
  EXPECT_SPEC_ERROR(rfft2d(T(DType::BF16, {1, 2, 4}, {}), {1, 2, 3}));          // type
  EXPECT_SPEC_ERROR(rfft2d(T(DType::FP32, {1, 1, 16384}, {}), {1, 1, 8193}));   // LEVEL_CHECK(W <= MAX_KERNEL)
  EXPECT_SPEC_ERROR(rfft2d(T(DType::FP32, {1, 16384, 1}, {}), {1, 16384, 1}));  // LEVEL_CHECK(H <= MAX_KERNEL)
}

}  // namespace
}  // namespace tosakit::testing

// The kernels' fast rounding (tensor_operators_helpers.h) must agree with core's roundToFloat (an independent
// bit-level encoder) everywhere: ties, subnormals, the overflow threshold, both signs.
namespace tosakit::testing {
namespace {
TEST(TensorOpsRoundingTest, FastRoundingMatchesRoundToFloat) {
  const DType types[] = {DType::FP16, DType::BF16, DType::FP8E4M3, DType::FP8E5M2, DType::FP32};
  std::vector<double> probes = {0.0,         -0.0,    1.0,     1.5,
                                2049.0,      2051.0,  65504.0, 65519.99,
                                65520.0,     448.0,   464.0,   480.0,
                                57344.0,     61440.0, 1e-8,    5.960464477539063e-8,
                                2.98e-8,     1e-40,   1e300,   std::numeric_limits<double>::infinity(),
                                std::nan("")};
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 20000; ++i) {  // pseudo-random doubles over a wide exponent range
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    double m = double(x >> 11) / double(uint64_t(1) << 53) + 0.5;
    probes.push_back(std::ldexp(m, int(x % 300) - 150) * ((x >> 9) & 1 ? -1 : 1));
  }
  for (int k = -30; k <= 20; ++k)  // exact ties between neighbouring fp16/fp8 values
    for (int j = 0; j < 64; ++j) probes.push_back(std::ldexp(2 * j + 1, k));
  for (DType t : types)
    for (double v : probes) {
      double want = roundToFloat(t, v), got = ref::tensorops::roundTo(t, v);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << dtypeName(t) << " " << v;
      } else {
        EXPECT_EQ(got, want) << dtypeName(t) << " " << v;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << dtypeName(t) << " " << v;
      }
    }
}
}  // namespace
}  // namespace tosakit::testing
