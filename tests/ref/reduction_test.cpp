// REDUCE_ALL/ANY/MAX/MIN/PRODUCT/SUM (spec 2.9). Expected values are hand calculations from the pseudocode.
#include <cmath>
#include <limits>

#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

OpRun reduce(const std::string& op, Tensor in, int64_t axis, Shape outShape, const char* nanMode = nullptr) {
  DType t = in.dtype();
  std::map<std::string, ir::Attribute> attrs = {{"axis", ir::Attribute::integer(axis, DType::I32)}};
  if (nanMode) attrs["nan_mode"] = ir::Attribute::enumCase(nanMode);
  return runBoth(op, {Arg(std::move(in))}, {TT(t, std::move(outShape))}, attrs);
}

void expectNaNAware(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else
      EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

TEST(ReduceAllAnyTest, BoolBothAxes) {
  // [[T, T, F], [T, T, T]]: all over axis 1 = [F, T], any = [T, T]; axis 0: all = [T, T, F], any = [T, T, T]
  Tensor in = Ints(DType::Bool, {2, 3}, {1, 1, 0, 1, 1, 1});
  auto r = reduce("tosa.reduce_all", in, 1, {2, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 1}));
  r = reduce("tosa.reduce_any", in, 1, {2, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 1}));
  r = reduce("tosa.reduce_all", in, 0, {1, 3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 1, 0}));
  r = reduce("tosa.reduce_any", Ints(DType::Bool, {2, 3}, {0, 0, 0, 0, 1, 0}), 0, {1, 3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 1, 0}));
}

TEST(ReduceAllAnyTest, MiddleAxisOfRank3) {
  // shape [2,2,2] = [[[T,F],[T,T]], [[F,F],[F,T]]], axis 1: all = [[T,F],[F,F]], any = [[T,T],[F,T]]
  Tensor in = Ints(DType::Bool, {2, 2, 2}, {1, 0, 1, 1, 0, 0, 0, 1});
  auto r = reduce("tosa.reduce_all", in, 1, {2, 1, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 0, 0}));
  r = reduce("tosa.reduce_any", in, 1, {2, 1, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 1, 0, 1}));
}

TEST(ReduceMaxMinTest, EveryType) {
  // [[1, -3], [2, 5]]: max axis 0 = [2, 5], axis 1 = [1, 5]; min axis 0 = [1, -3], axis 1 = [-3, 2]
  for (DType t : {DType::FP16, DType::FP32, DType::I16, DType::I32, DType::I8, DType::BF16}) {
    Tensor in = Reals(t, {2, 2}, {1, -3, 2, 5});
    auto r = reduce("tosa.reduce_max", in, 0, {1, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{2, 5})) << dtypeName(t);
    r = reduce("tosa.reduce_max", in, 1, {2, 1});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 5})) << dtypeName(t);
    r = reduce("tosa.reduce_min", in, 0, {1, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, -3})) << dtypeName(t);
    r = reduce("tosa.reduce_min", in, 1, {2, 1});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{-3, 2})) << dtypeName(t);
  }
}

TEST(ReduceMaxMinTest, IntegerExtremes) {
  // acc starts at minimum_s / maximum_s of in_out_t, so all-extreme inputs come back unchanged.
  auto r = reduce("tosa.reduce_max", Ints(DType::I8, {2}, {-128, -128}), 0, {1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-128}));
  r = reduce("tosa.reduce_min", Ints(DType::I32, {2}, {2147483647, 2147483647}), 0, {1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2147483647}));
}

TEST(ReduceMaxMinTest, NanModes) {
  // rows: [1, NaN, 3], [NaN, NaN, NaN], [-inf, -inf, -inf]
  // PROPAGATE: max [NaN, NaN, -inf], min [NaN, NaN, -inf]
  // IGNORE:    max [3, NaN, -inf],   min [1, NaN, -inf] (acc starts NaN; an all-NaN row stays NaN)
  Tensor in = Reals(DType::FP32, {3, 3}, {1, kNaN, 3, kNaN, kNaN, kNaN, -kInf, -kInf, -kInf});
  auto r = reduce("tosa.reduce_max", in, 1, {3, 1});
  EXPECT_RUN_OK(r);
  expectNaNAware(r.outputs[0].toDoubles(), {kNaN, kNaN, -kInf});
  r = reduce("tosa.reduce_max", in, 1, {3, 1}, "PROPAGATE");
  EXPECT_RUN_OK(r);
  expectNaNAware(r.outputs[0].toDoubles(), {kNaN, kNaN, -kInf});
  r = reduce("tosa.reduce_max", in, 1, {3, 1}, "IGNORE");
  EXPECT_RUN_OK(r);
  expectNaNAware(r.outputs[0].toDoubles(), {3, kNaN, -kInf});
  r = reduce("tosa.reduce_min", in, 1, {3, 1}, "PROPAGATE");
  EXPECT_RUN_OK(r);
  expectNaNAware(r.outputs[0].toDoubles(), {kNaN, kNaN, -kInf});
  r = reduce("tosa.reduce_min", in, 1, {3, 1}, "IGNORE");
  EXPECT_RUN_OK(r);
  expectNaNAware(r.outputs[0].toDoubles(), {1, kNaN, -kInf});
}

TEST(ReduceProductTest, FloatTypes) {
  // [[1, 2, 3], [-1, 0.5, 4]] over axis 1: [6, -2]; axis 0: [-1, 1, 12]
  for (DType t : {DType::FP16, DType::FP32, DType::BF16}) {
    Tensor in = Reals(t, {2, 3}, {1, 2, 3, -1, 0.5, 4});
    auto r = reduce("tosa.reduce_product", in, 1, {2, 1});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{6, -2})) << dtypeName(t);
    r = reduce("tosa.reduce_product", in, 0, {1, 3});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{-1, 1, 12})) << dtypeName(t);
  }
}

TEST(ReduceProductTest, Fp16OverflowsToInf) {
  // 300 * 300 = 90000 > 65504 -> inf in in_out_t = fp16
  auto r = reduce("tosa.reduce_product", Reals(DType::FP16, {2}, {300, 300}), 0, {1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{kInf}));
}

TEST(ReduceSumTest, EveryType) {
  // [[1, 2, 3], [-1, 0.5, 4]] over axis 1: [6, 3.5] (i32 uses [-1, 1, 4] -> [6, 4])
  for (DType t : {DType::FP16, DType::FP32, DType::BF16}) {
    auto r = reduce("tosa.reduce_sum", Reals(t, {2, 3}, {1, 2, 3, -1, 0.5, 4}), 1, {2, 1});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{6, 3.5})) << dtypeName(t);
  }
  auto r = reduce("tosa.reduce_sum", Ints(DType::I32, {2, 3}, {1, 2, 3, -1, 1, 4}), 1, {2, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{6, 4}));
  r = reduce("tosa.reduce_sum", Ints(DType::I32, {2, 3}, {1, 2, 3, -1, 1, 4}), 0, {1, 3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 3, 7}));
}

TEST(ReduceSumTest, AccumulatorTypes) {
  // bf16 accumulates in acc_t = fp32: 256 + 1 + 1 = 258, representable in bf16 (spacing 2 in [256, 512)).
  // (A bf16 accumulator would round 257 to 256 twice and give 256.)
  auto r = reduce("tosa.reduce_sum", Reals(DType::BF16, {3}, {256, 1, 1}), 0, {1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{258}));
  // fp16 accumulates in fp16: 2048 + 1 = 2049 ties to 2048 (spacing 2), twice -> 2048 (not 2050).
  r = reduce("tosa.reduce_sum", Reals(DType::FP16, {3}, {2048, 1, 1}), 0, {1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{2048}));
}

TEST(ReduceSumTest, Int32OverflowIsUnpredictable) {
  // apply_add_s<i32_t>: 2147483647 + 1 > maximum_s<i32_t>
  EXPECT_UNPREDICTABLE(reduce("tosa.reduce_sum", Ints(DType::I32, {2}, {2147483647, 1}), 0, {1}));
}

TEST(ReductionErrors, AxisOutOfRange) {
  // ERROR_IF(axis < 0 || axis >= rank(shape1))
  for (const char* op : {"tosa.reduce_all", "tosa.reduce_any"}) {
    EXPECT_SPEC_ERROR(reduce(op, Ints(DType::Bool, {2, 2}, {1, 1, 1, 1}), 2, {2, 1})) << op;
    EXPECT_SPEC_ERROR(reduce(op, Ints(DType::Bool, {2, 2}, {1, 1, 1, 1}), -1, {2, 1})) << op;
  }
  for (const char* op : {"tosa.reduce_max", "tosa.reduce_min", "tosa.reduce_product", "tosa.reduce_sum"}) {
    EXPECT_SPEC_ERROR(reduce(op, Reals(DType::FP32, {2, 2}, {1, 1, 1, 1}), 2, {2, 1})) << op;
    EXPECT_SPEC_ERROR(reduce(op, Reals(DType::FP32, {2, 2}, {1, 1, 1, 1}), -1, {2, 1})) << op;
  }
}

TEST(ReductionErrors, ReducedDimensionNotOne) {
  // ERROR_IF(shape[axis] != 1)
  for (const char* op : {"tosa.reduce_all", "tosa.reduce_any"})
    EXPECT_SPEC_ERROR(reduce(op, Ints(DType::Bool, {2, 2}, {1, 1, 1, 1}), 1, {2, 2})) << op;
  for (const char* op : {"tosa.reduce_max", "tosa.reduce_min", "tosa.reduce_product", "tosa.reduce_sum"})
    EXPECT_SPEC_ERROR(reduce(op, Reals(DType::FP32, {2, 2}, {1, 1, 1, 1}), 0, {2, 2})) << op;
}

TEST(ReductionErrors, OutputShapeMustKeepOtherDims) {
  // Output has the input's rank and its dimensions other than axis.
  EXPECT_SPEC_ERROR(reduce("tosa.reduce_sum", Reals(DType::FP32, {2, 2}, {1, 1, 1, 1}), 1, {2}));
  EXPECT_SPEC_ERROR(reduce("tosa.reduce_sum", Reals(DType::FP32, {2, 2}, {1, 1, 1, 1}), 1, {3, 1}));
}

TEST(ReductionErrors, TypeNotInTable) {
  // REDUCE_PRODUCT has no integer rows; REDUCE_SUM has no i8 row; REDUCE_ALL is bool only.
  EXPECT_SPEC_ERROR(reduce("tosa.reduce_product", Ints(DType::I32, {2}, {1, 2}), 0, {1}));
  EXPECT_SPEC_ERROR(reduce("tosa.reduce_sum", Ints(DType::I8, {2}, {1, 2}), 0, {1}));
  EXPECT_SPEC_ERROR(reduce("tosa.reduce_all", Ints(DType::I8, {2}, {1, 2}), 0, {1}));
}

}  // namespace
}  // namespace tosakit::testing
