// ADD / SUB / MUL (spec 2.5.1, 2.5.16, 2.5.14). Expected values are hand calculations from the pseudocode.
#include <cmath>
#include <limits>

#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

// Runs a two-operand elementwise op with both operands as function arguments.
OpRun binary(const std::string& op, Tensor a, Tensor b, DType outT, Shape outShape,
             const std::map<std::string, ir::Attribute>& attrs = {}) {
  return runBoth(op, {Arg(std::move(a)), Arg(std::move(b))}, {TT(outT, std::move(outShape))}, attrs);
}

// Exact comparison of doubles where NaN matches NaN and the sign of zero matters.
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
  auto r = runOp(
      "tosa.add",
      {Arg(Tensor::fromDoubles(DType::FP16, {2}, {2048, 2048})), Arg(Tensor::fromDoubles(DType::FP16, {2}, {1, 3}))},
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
                 {Arg(Tensor::fromInts(DType::I8, {2}, {-128, 127})),
                  Arg(Tensor::fromInts(DType::I8, {2}, {-128, 127})), Const(Tensor::fromInts(DType::I8, {1}, {0}))},
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

// ---- 2.5.2 ARITHMETIC_RIGHT_SHIFT ----

TEST(ArithmeticRightShiftTest, Int8NoRound) {
  // -128 >> 7 = -1 (sign fills), 127 >> 1 = 63, -7 >> 1 = -4 (floor), 5 >> 0 = 5
  auto r = binary("tosa.arithmetic_right_shift", Ints(DType::I8, {4}, {-128, 127, -7, 5}),
                  Ints(DType::I8, {4}, {7, 1, 1, 0}), DType::I8, {4}, {{"round", ir::Attribute::boolean(false)}});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-1, 63, -4, 5}));
}

TEST(ArithmeticRightShiftTest, Int16Round) {
  // round adds bit (value2 - 1) of value1: 7>>1=3, (7>>0)&1=1 -> 4; -7>>1=-4, (-7)&1=1 -> -3;
  // 6>>1=3, 6&1=0 -> 3; 32767>>15=0, (32767>>14)&1=1 -> 1; shift 0 never rounds: 9 -> 9
  auto r = binary("tosa.arithmetic_right_shift", Ints(DType::I16, {5}, {7, -7, 6, 32767, 9}),
                  Ints(DType::I16, {5}, {1, 1, 1, 15, 0}), DType::I16, {5}, {{"round", ir::Attribute::boolean(true)}});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{4, -3, 3, 1, 9}));
}

TEST(ArithmeticRightShiftTest, Int32RoundBroadcast) {
  // -2^31 >> 31 = -1, (-2^31 >> 30) & 1 = (-2) & 1 = 0 -> -1 ; 11 >> 2 = 2, (11 >> 1) & 1 = 1 -> 3
  auto r = binary("tosa.arithmetic_right_shift", Ints(DType::I32, {2, 1}, {-2147483648LL, 11}),
                  Ints(DType::I32, {1, 2}, {31, 2}), DType::I32, {2, 2}, {{"round", ir::Attribute::boolean(true)}});
  EXPECT_RUN_OK(r);
  // [[-2^31>>31, -2^31>>2], [11>>31, 11>>2]] with rounding:
  // -2^31 >> 2 = -536870912, bit 1 of -2^31 is 0 -> -536870912 ; 11 >> 31 = 0, bit 30 of 11 is 0 -> 0
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-1, -536870912, 0, 3}));
}

TEST(ArithmeticRightShiftTest, ShiftOutOfRangeIsUnpredictable) {
  // REQUIRE(is_same<in_out_t,i8_t>() && 0 <= value2 && value2 <= 7)
  EXPECT_UNPREDICTABLE(binary("tosa.arithmetic_right_shift", Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {8}),
                              DType::I8, {1}, {{"round", ir::Attribute::boolean(false)}}));
  EXPECT_UNPREDICTABLE(binary("tosa.arithmetic_right_shift", Ints(DType::I32, {1}, {1}), Ints(DType::I32, {1}, {-1}),
                              DType::I32, {1}, {{"round", ir::Attribute::boolean(false)}}));
  EXPECT_UNPREDICTABLE(binary("tosa.arithmetic_right_shift", Ints(DType::I16, {1}, {1}), Ints(DType::I16, {1}, {16}),
                              DType::I16, {1}, {{"round", ir::Attribute::boolean(false)}}));
}

TEST(ArithmeticRightShiftTest, BroadcastMismatchIsError) {
  EXPECT_SPEC_ERROR(binary("tosa.arithmetic_right_shift", Ints(DType::I8, {2}, {1, 2}), Ints(DType::I8, {3}, {1, 1, 1}),
                           DType::I8, {3}, {{"round", ir::Attribute::boolean(false)}}));
}

TEST(ArithmeticRightShiftTest, FloatTypeIsError) {
  // fp32 is not a row of the Supported Data Types table.
  EXPECT_SPEC_ERROR(binary("tosa.arithmetic_right_shift", Reals(DType::FP32, {1}, {1}), Reals(DType::FP32, {1}, {1}),
                           DType::FP32, {1}, {{"round", ir::Attribute::boolean(false)}}));
}

// ---- 2.5.3-2.5.5 BITWISE_AND / OR / XOR ----

TEST(BitwiseTest, AllOpsAllTypes) {
  // Two's complement: 12 = 0b1100, 10 = 0b1010, -1 = all ones, -128 = ...10000000, 127 = 0b01111111.
  // and: 8, 5, 0, 0 ; or: 14, -1, -1, -1 ; xor: 6, ~5 = -6, -1, -1 (same for every width)
  struct Case {
    const char* op;
    std::vector<int64_t> want;
  };
  for (Case c : {Case{"tosa.bitwise_and", {8, 5, 0, 0}}, Case{"tosa.bitwise_or", {14, -1, -1, -1}},
                 Case{"tosa.bitwise_xor", {6, -6, -1, -1}}}) {
    for (DType t : {DType::I8, DType::I16, DType::I32}) {
      auto r = binary(c.op, Ints(t, {4}, {12, -1, -128, 0}), Ints(t, {4}, {10, 5, 127, -1}), t, {4});
      EXPECT_RUN_OK(r);
      EXPECT_EQ(r.outputs[0].toInts(), c.want) << c.op << " " << dtypeName(t);
    }
  }
}

TEST(BitwiseTest, WidthSpecificValues) {
  // i16: 0x00F0 | 0x000F = 0x00FF = 255 ; 0x8000 | 1 = 0x8001 = -32767
  auto r =
      binary("tosa.bitwise_or", Ints(DType::I16, {2}, {240, -32768}), Ints(DType::I16, {2}, {15, 1}), DType::I16, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{255, -32767}));
  // i32: 0xFFFFFFFF ^ 0x0F0F0F0F = 0xF0F0F0F0 = -252645136 ; x ^ x = 0
  r = binary("tosa.bitwise_xor", Ints(DType::I32, {2}, {-1, 0x12345678}),
             Ints(DType::I32, {2}, {0x0F0F0F0F, 0x12345678}), DType::I32, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-252645136, 0}));
}

TEST(BitwiseTest, BroadcastMismatchAndTypeErrors) {
  EXPECT_SPEC_ERROR(
      binary("tosa.bitwise_and", Ints(DType::I8, {2}, {1, 2}), Ints(DType::I8, {3}, {1, 2, 3}), DType::I8, {3}));
  EXPECT_SPEC_ERROR(binary("tosa.bitwise_xor", Ints(DType::I8, {1}, {1}), Ints(DType::I16, {1}, {1}), DType::I8, {1}));
}

TEST(BitwiseTest, RankAboveLevelIsError) {
  // LEVEL_CHECK(rank(shape) <= MAX_RANK) with MAX_RANK = 6 at level 8K.
  Shape s7 = {1, 1, 1, 1, 1, 1, 1};
  EXPECT_SPEC_ERROR(binary("tosa.bitwise_or", Ints(DType::I8, s7, {1}), Ints(DType::I8, s7, {2}), DType::I8, s7));
}

TEST(BitwiseTest, RankMismatchIsError) {
  // broadcast_shape: ERROR_IF(rank(shape1) != rank(shape2)) ([2] vs [1, 2])
  EXPECT_SPEC_ERROR(
      binary("tosa.bitwise_and", Ints(DType::I8, {2}, {1, 2}), Ints(DType::I8, {1, 2}, {1, 2}), DType::I8, {1, 2}));
}

TEST(BitwiseTest, RankSevenRunsAtLevelNone) {
  // Level "none" lifts MAX_RANK, so the LEVEL_CHECK above no longer fails: 6 & 3 = 2.
  ir::TargetEnv none = ir::TargetEnv::all();
  none.level = "none";
  Shape s7 = {1, 1, 1, 1, 1, 1, 1};
  auto r = runBoth("tosa.bitwise_and", {Arg(Ints(DType::I8, s7, {6})), Arg(Ints(DType::I8, s7, {3}))},
                   {TT(DType::I8, s7)}, {}, none);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2}));
}

// ---- 2.5.6 INTDIV ----

TEST(IntdivTest, Int32TruncatesTowardZero) {
  // C++ division truncates: 7/2 = 3, -7/2 = -3, 7/-2 = -3, -7/-2 = 3, -2^31 / 1 = -2^31
  auto r = binary("tosa.intdiv", Ints(DType::I32, {5}, {7, -7, 7, -7, -2147483648LL}),
                  Ints(DType::I32, {5}, {2, 2, -2, -2, 1}), DType::I32, {5});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{3, -3, -3, 3, -2147483648LL}));
}

TEST(IntdivTest, DivideByZeroIsUnpredictable) {
  // REQUIRE(value2 != 0)
  EXPECT_UNPREDICTABLE(
      binary("tosa.intdiv", Ints(DType::I32, {2}, {4, 1}), Ints(DType::I32, {2}, {2, 0}), DType::I32, {2}));
}

TEST(IntdivTest, OverflowIsUnpredictable) {
  // apply_intdiv_s: -2^31 / -1 = 2^31 > maximum_s<i32_t>
  EXPECT_UNPREDICTABLE(
      binary("tosa.intdiv", Ints(DType::I32, {1}, {-2147483648LL}), Ints(DType::I32, {1}, {-1}), DType::I32, {1}));
}

TEST(IntdivTest, BroadcastMismatchIsError) {
  EXPECT_SPEC_ERROR(binary("tosa.intdiv", Ints(DType::I32, {2, 2}, {1, 2, 3, 4}), Ints(DType::I32, {3, 1}, {1, 1, 1}),
                           DType::I32, {2, 2}));
}

// ---- 2.5.7 / 2.5.10 / 2.5.11 LOGICAL_AND / OR / XOR ----

TEST(LogicalTest, TruthTables) {
  // a = [F, F, T, T], b = [F, T, F, T]
  struct Case {
    const char* op;
    std::vector<int64_t> want;
  };
  for (Case c : {Case{"tosa.logical_and", {0, 0, 0, 1}}, Case{"tosa.logical_or", {0, 1, 1, 1}},
                 Case{"tosa.logical_xor", {0, 1, 1, 0}}}) {
    auto r = binary(c.op, Ints(DType::Bool, {4}, {0, 0, 1, 1}), Ints(DType::Bool, {4}, {0, 1, 0, 1}), DType::Bool, {4});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toInts(), c.want) << c.op;
  }
}

TEST(LogicalTest, Broadcast) {
  // [[T],[F]] and [[T, F]] -> [[T, F], [F, F]]
  auto r = binary("tosa.logical_and", Ints(DType::Bool, {2, 1}, {1, 0}), Ints(DType::Bool, {1, 2}, {1, 0}), DType::Bool,
                  {2, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 0, 0}));
}

TEST(LogicalTest, ErrorsAndTypes) {
  EXPECT_SPEC_ERROR(
      binary("tosa.logical_or", Ints(DType::Bool, {2}, {1, 0}), Ints(DType::Bool, {3}, {1, 0, 1}), DType::Bool, {3}));
  // i8 is not a row of LOGICAL_XOR's table (bool_t only).
  EXPECT_SPEC_ERROR(binary("tosa.logical_xor", Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {1}), DType::I8, {1}));
}

// ---- 2.5.8 LOGICAL_LEFT_SHIFT ----

TEST(LogicalLeftShiftTest, AllTypesTruncate) {
  // i8: 1 << 7 = 128 -> low 8 bits 0x80 = -128 ; -1 << 1 = -2 ; 64 << 1 = 128 -> -128
  auto r = binary("tosa.logical_left_shift", Ints(DType::I8, {3}, {1, -1, 64}), Ints(DType::I8, {3}, {7, 1, 1}),
                  DType::I8, {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-128, -2, -128}));
  // i16: 1 << 15 = 0x8000 = -32768 ; 3 << 2 = 12
  r = binary("tosa.logical_left_shift", Ints(DType::I16, {2}, {1, 3}), Ints(DType::I16, {2}, {15, 2}), DType::I16, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-32768, 12}));
  // i32: 1 << 31 = 0x80000000 = -2^31 ; 5 << 3 = 40 ; 0x40000001 << 2 = 0x00000004 (high bits dropped)
  r = binary("tosa.logical_left_shift", Ints(DType::I32, {3}, {1, 5, 0x40000001}), Ints(DType::I32, {3}, {31, 3, 2}),
             DType::I32, {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-2147483648LL, 40, 4}));
}

TEST(LogicalLeftShiftTest, ShiftOutOfRangeIsUnpredictable) {
  EXPECT_UNPREDICTABLE(
      binary("tosa.logical_left_shift", Ints(DType::I16, {1}, {1}), Ints(DType::I16, {1}, {16}), DType::I16, {1}));
  EXPECT_UNPREDICTABLE(
      binary("tosa.logical_left_shift", Ints(DType::I32, {1}, {1}), Ints(DType::I32, {1}, {32}), DType::I32, {1}));
}

TEST(LogicalLeftShiftTest, BroadcastMismatchIsError) {
  EXPECT_SPEC_ERROR(
      binary("tosa.logical_left_shift", Ints(DType::I8, {2}, {1, 1}), Ints(DType::I8, {3}, {1, 1, 1}), DType::I8, {2}));
}

// ---- 2.5.9 LOGICAL_RIGHT_SHIFT ----

TEST(LogicalRightShiftTest, AllTypesShiftZeroExtended) {
  // i8: 0xFF >> 1 = 0x7F = 127 ; 0x80 >> 7 = 1 ; 64 >> 2 = 16
  auto r = binary("tosa.logical_right_shift", Ints(DType::I8, {3}, {-1, -128, 64}), Ints(DType::I8, {3}, {1, 7, 2}),
                  DType::I8, {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{127, 1, 16}));
  // i16: 0xFFFF >> 15 = 1 ; 0x8000 >> 1 = 0x4000 = 16384
  r = binary("tosa.logical_right_shift", Ints(DType::I16, {2}, {-1, -32768}), Ints(DType::I16, {2}, {15, 1}),
             DType::I16, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 16384}));
  // i32: 0xFFFFFFFF >> 1 = 0x7FFFFFFF ; 0x80000000 >> 31 = 1 ; 5 >> 0 = 5
  r = binary("tosa.logical_right_shift", Ints(DType::I32, {3}, {-1, -2147483648LL, 5}),
             Ints(DType::I32, {3}, {1, 31, 0}), DType::I32, {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2147483647, 1, 5}));
}

TEST(LogicalRightShiftTest, ShiftOutOfRangeIsUnpredictable) {
  EXPECT_UNPREDICTABLE(
      binary("tosa.logical_right_shift", Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {-1}), DType::I8, {1}));
  EXPECT_UNPREDICTABLE(
      binary("tosa.logical_right_shift", Ints(DType::I32, {1}, {1}), Ints(DType::I32, {1}, {32}), DType::I32, {1}));
}

TEST(LogicalRightShiftTest, BroadcastMismatchIsError) {
  EXPECT_SPEC_ERROR(
      binary("tosa.logical_right_shift", Ints(DType::I16, {2}, {1, 1}), Ints(DType::I16, {1}, {1}), DType::I16, {3}));
}

// ---- 2.5.12 MAXIMUM / 2.5.13 MINIMUM ----

TEST(MaximumTest, Fp32NanModes) {
  // apply_max_s: any NaN -> compare_nan: PROPAGATE gives NaN, IGNORE gives the other operand.
  Tensor a = Reals(DType::FP32, {4}, {1.5, -2, kNaN, 3}), b = Reals(DType::FP32, {4}, {1, -1, 1, kNaN});
  auto r = binary("tosa.maximum", a, b, DType::FP32, {4});  // nan_mode absent: PROPAGATE
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1.5, -1, kNaN, kNaN});
  r = binary("tosa.maximum", a, b, DType::FP32, {4}, {{"nan_mode", ir::Attribute::enumCase("IGNORE")}});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1.5, -1, 1, 3});
  r = binary("tosa.maximum", a, b, DType::FP32, {4}, {{"nan_mode", ir::Attribute::enumCase("PROPAGATE")}});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1.5, -1, kNaN, kNaN});
}

TEST(MaximumTest, OtherTypes) {
  // fp16: max(0.5, 0.25) = 0.5, max(65504, -inf) = 65504
  auto r = binary("tosa.maximum", Reals(DType::FP16, {2}, {0.5, 65504}), Reals(DType::FP16, {2}, {0.25, -kInf}),
                  DType::FP16, {2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.5, 65504});
  r = binary("tosa.maximum", Reals(DType::BF16, {2}, {1, -3}), Reals(DType::BF16, {2}, {2, -4}), DType::BF16, {2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {2, -3});
  r = binary("tosa.maximum", Ints(DType::I32, {2}, {-2147483648LL, 5}), Ints(DType::I32, {1}, {4}), DType::I32, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{4, 5}));
}

TEST(MinimumTest, Fp32NanModes) {
  Tensor a = Reals(DType::FP32, {4}, {1.5, -2, kNaN, 3}), b = Reals(DType::FP32, {4}, {1, -1, 1, kNaN});
  auto r = binary("tosa.minimum", a, b, DType::FP32, {4});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, -2, kNaN, kNaN});
  r = binary("tosa.minimum", a, b, DType::FP32, {4}, {{"nan_mode", ir::Attribute::enumCase("IGNORE")}});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, -2, 1, 3});
}

TEST(MinimumTest, OtherTypes) {
  auto r = binary("tosa.minimum", Reals(DType::FP16, {2}, {0.5, 65504}), Reals(DType::FP16, {2}, {0.25, -kInf}),
                  DType::FP16, {2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {0.25, -kInf});
  r = binary("tosa.minimum", Reals(DType::BF16, {2}, {1, -3}), Reals(DType::BF16, {2}, {2, -4}), DType::BF16, {2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1, -4});
  r = binary("tosa.minimum", Ints(DType::I32, {2}, {-2147483648LL, 5}), Ints(DType::I32, {1}, {4}), DType::I32, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{-2147483648LL, 4}));
}

TEST(MinMaxTest, ErrorsAndTypes) {
  EXPECT_SPEC_ERROR(
      binary("tosa.maximum", Ints(DType::I32, {2}, {1, 2}), Ints(DType::I32, {3}, {1, 2, 3}), DType::I32, {3}));
  EXPECT_SPEC_ERROR(
      binary("tosa.minimum", Ints(DType::I32, {2}, {1, 2}), Ints(DType::I32, {3}, {1, 2, 3}), DType::I32, {3}));
  // i8 is not a row of MAXIMUM's table.
  EXPECT_SPEC_ERROR(binary("tosa.maximum", Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {2}), DType::I8, {1}));
}

// ---- 2.5.15 POW ----

TEST(PowTest, Fp32) {
  // 2^3 = 8, 4^0.5 = 2, 9^-0.5 = 1/3 -> fp32 0.3333333432674408 (nearest fp32), 0^2 = 0
  auto r = binary("tosa.pow", Reals(DType::FP32, {4}, {2, 4, 9, 0}), Reals(DType::FP32, {4}, {3, 0.5, -0.5, 2}),
                  DType::FP32, {4});
  EXPECT_RUN_OK(r);
  auto v = r.outputs[0].toDoubles();
  EXPECT_EQ(v[0], 8);
  EXPECT_EQ(v[1], 2);
  EXPECT_NEAR(v[2], 0.3333333432674408, 6e-8);  // within 1 ulp of fp32 near 1/3
  EXPECT_EQ(v[3], 0);
}

TEST(PowTest, Fp16AndBf16) {
  // fp16: 2^10 = 1024, 1.5^2 = 2.25 (exact) ; bf16: 3^2 = 9, 2^-1 = 0.5
  auto r = binary("tosa.pow", Reals(DType::FP16, {2}, {2, 1.5}), Reals(DType::FP16, {2}, {10, 2}), DType::FP16, {2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {1024, 2.25});
  r = binary("tosa.pow", Reals(DType::BF16, {2}, {3, 2}), Reals(DType::BF16, {2}, {2, -1}), DType::BF16, {2});
  EXPECT_RUN_OK(r);
  expectSameDoubles(r.outputs[0].toDoubles(), {9, 0.5});
}

TEST(PowTest, RequiresAreUnpredictable) {
  auto pow1 = [](double x, double y) {
    return binary("tosa.pow", Reals(DType::FP32, {1}, {x}), Reals(DType::FP32, {1}, {y}), DType::FP32, {1});
  };
  EXPECT_UNPREDICTABLE(pow1(-2, 2));    // REQUIRE(value1 >= 0)
  EXPECT_UNPREDICTABLE(pow1(0, 0));     // REQUIRE(value1 > 0 || value2 > 0)
  EXPECT_UNPREDICTABLE(pow1(2, kNaN));  // REQUIRE(!isNaN(value1) && !isNaN(value2))
  EXPECT_UNPREDICTABLE(pow1(kInf, 1));  // REQUIRE(is_finite(value1) && is_finite(value2))
}

TEST(PowTest, ErrorsAndTypes) {
  EXPECT_SPEC_ERROR(
      binary("tosa.pow", Reals(DType::FP32, {2}, {1, 2}), Reals(DType::FP32, {3}, {1, 2, 3}), DType::FP32, {3}));
  EXPECT_SPEC_ERROR(binary("tosa.pow", Ints(DType::I32, {1}, {2}), Ints(DType::I32, {1}, {2}), DType::I32, {1}));
}

// ---- 2.5.17 TABLE ----

TEST(TableTest, Int8LooksUpValuePlus128) {
  // table[j] = 127 - j, so result = table[v + 128] = -1 - v: -128 -> 127, 0 -> -1, 127 -> -128
  std::vector<int64_t> table(256);
  for (int j = 0; j < 256; ++j) table[size_t(j)] = 127 - j;
  auto r = runBoth("tosa.table", {Arg(Ints(DType::I8, {3}, {-128, 0, 127})), Const(Ints(DType::I8, {256}, table))},
                   {TT(DType::I8, {3})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{127, -1, -128}));
}

TEST(TableTest, Int16InterpolatesTo32Bits) {
  // table[j] = (j - 256) * 64 is linear with slope 64 per entry, so apply_lookup_s gives
  // (base << 7) + 64 * fraction = 64 * v. E.g. v = -129: index = (32639 >> 7) = 254, fraction = -129 & 0x7f = 127,
  // base = -128: -128 * 128 + 64 * 127 = -8256 = 64 * -129. v = 32767: index 511, fraction 127, base 16320:
  // 2088960 + 8128 = 2097088.
  std::vector<int64_t> table(513);
  for (int j = 0; j < 513; ++j) table[size_t(j)] = (j - 256) * 64;
  auto r = runBoth("tosa.table",
                   {Arg(Ints(DType::I16, {5}, {0, 1, -32768, 32767, -129})), Const(Ints(DType::I16, {513}, table))},
                   {TT(DType::I32, {5})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 64, -2097152, 2097088, -8256}));
}

TEST(TableTest, Int16SlopeOverflowIsUnpredictable) {
  // table[1] - table[0] = 32767 - (-32768) = 65535 > maximum<int16_t>: REQUIRE fails for v = -32768 (index 0).
  std::vector<int64_t> table(513, 0);
  table[0] = -32768;
  table[1] = 32767;
  auto r = runBoth("tosa.table", {Arg(Ints(DType::I16, {1}, {-32768})), Const(Ints(DType::I16, {513}, table))},
                   {TT(DType::I32, {1})});
  EXPECT_UNPREDICTABLE(r);
}

TEST(TableTest, WrongTableLengthIsUnpredictable) {
  // REQUIRE(length(table) == TABLE_SIZE): 255 entries for an i8 table.
  auto r = runBoth("tosa.table",
                   {Arg(Ints(DType::I8, {1}, {0})), Const(Ints(DType::I8, {255}, std::vector<int64_t>(255, 0)))},
                   {TT(DType::I8, {1})});
  EXPECT_UNPREDICTABLE(r);
}

TEST(TableTest, TypeAndShapeErrors) {
  // i16 input with an i16 output is not a row (the i16 row outputs i32).
  std::vector<int64_t> table(513, 0);
  EXPECT_SPEC_ERROR(runBoth("tosa.table", {Arg(Ints(DType::I16, {1}, {0})), Const(Ints(DType::I16, {513}, table))},
                            {TT(DType::I16, {1})}));
  // Output shape differs from the input shape.
  EXPECT_SPEC_ERROR(runBoth(
      "tosa.table", {Arg(Ints(DType::I8, {2}, {0, 1})), Const(Ints(DType::I8, {256}, std::vector<int64_t>(256, 0)))},
      {TT(DType::I8, {3})}));
}
}  // namespace
}  // namespace tosakit::testing
