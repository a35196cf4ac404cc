// SELECT (spec 2.7.1). Expected values are hand calculations from the pseudocode.
#include <cmath>

#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

OpRun select(Tensor c, Tensor a, Tensor b, DType outT, Shape outShape) {
  return runBoth("tosa.select", {Arg(std::move(c)), Arg(std::move(a)), Arg(std::move(b))},
                 {TT(outT, std::move(outShape))});
}

TEST(SelectTest, EveryNumericTypeWithBroadcast) {
  // cond [[T],[F]] (2x1), input2 [[1,2],[3,4]] (2x2), input3 [[-1,-2]] (1x2) -> [[1,2],[-1,-2]]
  for (DType t : {DType::FP16, DType::FP32, DType::I16, DType::I32, DType::I8, DType::BF16}) {
    auto r = select(Ints(DType::Bool, {2, 1}, {1, 0}), Reals(t, {2, 2}, {1, 2, 3, 4}), Reals(t, {1, 2}, {-1, -2}), t,
                    {2, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 2, -1, -2})) << dtypeName(t);
  }
}

TEST(SelectTest, BoolValues) {
  // cond [T, F, T], input2 [F, F, T], input3 [T, T, F] -> [F, T, T]
  auto r = select(Ints(DType::Bool, {3}, {1, 0, 1}), Ints(DType::Bool, {3}, {0, 0, 1}),
                  Ints(DType::Bool, {3}, {1, 1, 0}), DType::Bool, {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 1, 1}));
}

TEST(SelectTest, CopiesFloatBitsExactly) {
  // NaN and -0 pass through unchanged (bit copies).
  auto r = select(Ints(DType::Bool, {2}, {1, 0}), Reals(DType::FP32, {2}, {-0.0, 1}),
                  Reals(DType::FP32, {2}, {2, -0.0}), DType::FP32, {2});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_TRUE(v[0] == 0 && std::signbit(v[0]));
  EXPECT_TRUE(v[1] == 0 && std::signbit(v[1]));
}

TEST(SelectTest, BroadcastMismatchIsError) {
  // ERROR_IF(shape != broadcast_shape(broadcast_shape(shape1, shape2), shape3)): 2 vs 3
  EXPECT_SPEC_ERROR(select(Ints(DType::Bool, {2}, {1, 0}), Ints(DType::I8, {3}, {1, 2, 3}), Ints(DType::I8, {1}, {0}),
                           DType::I8, {3}));
  // Broadcastable inputs but declared output shape differs.
  EXPECT_SPEC_ERROR(
      select(Ints(DType::Bool, {1}, {1}), Ints(DType::I8, {2}, {1, 2}), Ints(DType::I8, {1}, {0}), DType::I8, {1}));
}

TEST(SelectTest, RankAboveLevelIsError) {
  Shape s7 = {1, 1, 1, 1, 1, 1, 1};
  EXPECT_SPEC_ERROR(
      select(Ints(DType::Bool, s7, {1}), Ints(DType::I8, s7, {1}), Ints(DType::I8, s7, {0}), DType::I8, s7));
}

TEST(SelectTest, TypeErrors) {
  // input2 and input3 must share in_out_t; input1 must be bool_t; i64 is not a row.
  EXPECT_SPEC_ERROR(
      select(Ints(DType::Bool, {1}, {1}), Ints(DType::I8, {1}, {1}), Ints(DType::I16, {1}, {0}), DType::I8, {1}));
  EXPECT_SPEC_ERROR(
      select(Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {0}), DType::I8, {1}));
  EXPECT_SPEC_ERROR(
      select(Ints(DType::Bool, {1}, {1}), Ints(DType::I64, {1}, {1}), Ints(DType::I64, {1}, {0}), DType::I64, {1}));
}

}  // namespace
}  // namespace tosakit::testing
