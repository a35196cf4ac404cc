// ADD / SUB / MUL (spec 2.5.1, 2.5.16, 2.5.14). Expected values are hand calculations from the pseudocode.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

TEST(AddTest, Int32BroadcastHandComputed) {
  // [[1,2,3],[4,5,6]] + [[10],[20]] -> [[11,12,13],[24,25,26]]
  auto r = runOp("tosa.add",
                 {Arg(Tensor::fromInts(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6})),
                  Arg(Tensor::fromInts(DType::I32, {2, 1}, {10, 20}))},
                 {TT(DType::I32, {2, 3})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{11, 12, 13, 24, 25, 26}));
}

TEST(AddTest, Int32OverflowIsUnpredictable) {
  // apply_add_s: REQUIRE(c <= maximum_s<i32>); 2147483647 + 1 overflows.
  auto r = runOp("tosa.add",
                 {Arg(Tensor::fromInts(DType::I32, {1}, {2147483647})), Arg(Tensor::fromInts(DType::I32, {1}, {1}))},
                 {TT(DType::I32, {1})});
  EXPECT_UNPREDICTABLE(r);
}

TEST(AddTest, ShapeMismatchIsError) {
  // ERROR_IF(shape != broadcast_shape(shape1, shape2)): 2 vs 3 do not broadcast.
  auto r = runOp("tosa.add",
                 {Arg(Tensor::fromInts(DType::I32, {2}, {1, 2})), Arg(Tensor::fromInts(DType::I32, {3}, {1, 2, 3}))},
                 {TT(DType::I32, {3})});
  EXPECT_SPEC_ERROR(r);
}

TEST(AddTest, Fp16RoundsToNearestEven) {
  // 2048 + 1 = 2049 is a tie between fp16 neighbours 2048 and 2050 (spacing 2): ties-to-even gives 2048.
  // 2048 + 3 = 2051 ties between 2050 and 2052: even mantissa is 2052.
  auto r = runOp("tosa.add",
                 {Arg(Tensor::fromDoubles(DType::FP16, {2}, {2048, 2048})),
                  Arg(Tensor::fromDoubles(DType::FP16, {2}, {1, 3}))},
                 {TT(DType::FP16, {2})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{2048, 2052}));
}

TEST(SubTest, Int32HandComputed) {
  auto r = runOp("tosa.sub",
                 {Arg(Tensor::fromInts(DType::I32, {3}, {5, -7, 0})), Arg(Tensor::fromInts(DType::I32, {1}, {3}))},
                 {TT(DType::I32, {3})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2, -10, -3}));
}

TEST(MulTest, Int32ShiftRoundsHalfUp) {
  // (7 * 3 + (1 << 1)) >> 2 = 23 >> 2 = 5 ; (-7 * 3 + 2) >> 2 = -19 >> 2 = -5 (arithmetic shift floors)
  auto r = runOp("tosa.mul",
                 {Arg(Tensor::fromInts(DType::I32, {2}, {7, -7})), Arg(Tensor::fromInts(DType::I32, {2}, {3, 3})),
                  Const(Tensor::fromInts(DType::I8, {1}, {2}))},
                 {TT(DType::I32, {2})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{5, -5}));
}

TEST(MulTest, Int8WidensToInt32) {
  auto r = runOp("tosa.mul",
                 {Arg(Tensor::fromInts(DType::I8, {2}, {-128, 127})), Arg(Tensor::fromInts(DType::I8, {2}, {-128, 127})),
                  Const(Tensor::fromInts(DType::I8, {1}, {0}))},
                 {TT(DType::I32, {2})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{16384, 16129}));
}

TEST(MulTest, ShiftOnNonInt32IsUnpredictable) {
  // REQUIRE(is_same<in_t,int32_t>() || shift == 0)
  auto r = runOp("tosa.mul",
                 {Arg(Tensor::fromInts(DType::I8, {1}, {1})), Arg(Tensor::fromInts(DType::I8, {1}, {1})),
                  Const(Tensor::fromInts(DType::I8, {1}, {1}))},
                 {TT(DType::I32, {1})});
  EXPECT_UNPREDICTABLE(r);
}

}  // namespace
}  // namespace tosakit::testing
