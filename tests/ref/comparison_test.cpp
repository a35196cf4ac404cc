// EQUAL / GREATER / GREATER_EQUAL (spec 2.8). Expected values are hand calculations from the pseudocode:
// any NaN operand gives false.
#include <limits>

#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

OpRun compare(const std::string& op, Tensor a, Tensor b, Shape outShape, DType outT = DType::Bool) {
  return runBoth(op, {Arg(std::move(a)), Arg(std::move(b))}, {TT(outT, std::move(outShape))});
}

struct Case {
  const char* op;
  std::vector<int64_t> want;
};

TEST(ComparisonTest, FloatTypesWithNaNAndZeros) {
  // a = [1, 2, 3, NaN, -0, NaN, -inf], b = [2, 2, 2, 1, +0, NaN, -inf]
  // equal:  [F, T, F, F, T (-0 == +0), F, T]
  // greater:[F, F, T, F, F, F, F]
  // ge:     [F, T, T, F, T, F, T]
  for (Case c : {Case{"tosa.equal", {0, 1, 0, 0, 1, 0, 1}}, Case{"tosa.greater", {0, 0, 1, 0, 0, 0, 0}},
                 Case{"tosa.greater_equal", {0, 1, 1, 0, 1, 0, 1}}}) {
    for (DType t : {DType::FP16, DType::FP32, DType::BF16}) {
      auto r = compare(c.op, Reals(t, {7}, {1, 2, 3, kNaN, -0.0, kNaN, -kInf}),
                       Reals(t, {7}, {2, 2, 2, 1, 0.0, kNaN, -kInf}), {7});
      EXPECT_RUN_OK(r);
      EXPECT_EQ(r.outputs[0].toInts(), c.want) << c.op << " " << dtypeName(t);
    }
  }
}

TEST(ComparisonTest, Int32) {
  // a = [1, 2, 3, -5, -2^31], b = [2, 2, 2, -5, 2^31-1]
  for (Case c : {Case{"tosa.equal", {0, 1, 0, 1, 0}}, Case{"tosa.greater", {0, 0, 1, 0, 0}},
                 Case{"tosa.greater_equal", {0, 1, 1, 1, 0}}}) {
    auto r = compare(c.op, Ints(DType::I32, {5}, {1, 2, 3, -5, -2147483648LL}),
                     Ints(DType::I32, {5}, {2, 2, 2, -5, 2147483647}), {5});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toInts(), c.want) << c.op;
  }
}

TEST(ComparisonTest, Broadcast) {
  // [[1],[3]] > [[2, 0]] -> [[F, T], [T, T]]
  auto r = compare("tosa.greater", Ints(DType::I32, {2, 1}, {1, 3}), Ints(DType::I32, {1, 2}, {2, 0}), {2, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 1, 1, 1}));
}

TEST(ComparisonTest, BroadcastMismatchIsError) {
  for (const char* op : {"tosa.equal", "tosa.greater", "tosa.greater_equal"})
    EXPECT_SPEC_ERROR(compare(op, Ints(DType::I32, {2}, {1, 2}), Ints(DType::I32, {3}, {1, 2, 3}), {3})) << op;
}

TEST(ComparisonTest, RankAboveLevelIsError) {
  Shape s7 = {1, 1, 1, 1, 1, 1, 1};
  EXPECT_SPEC_ERROR(compare("tosa.equal", Ints(DType::I32, s7, {1}), Ints(DType::I32, s7, {1}), s7));
}

TEST(ComparisonTest, TypeErrors) {
  // out_t must be bool_t; in_t must match and be a row (i8 is not).
  EXPECT_SPEC_ERROR(compare("tosa.equal", Ints(DType::I32, {1}, {1}), Ints(DType::I32, {1}, {1}), {1}, DType::I32));
  EXPECT_SPEC_ERROR(compare("tosa.greater", Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {1}), {1}));
  EXPECT_SPEC_ERROR(compare("tosa.greater_equal", Ints(DType::I32, {1}, {1}), Reals(DType::FP32, {1}, {1}), {1}));
}

}  // namespace
}  // namespace tosakit::testing
