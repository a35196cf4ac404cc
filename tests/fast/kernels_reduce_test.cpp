// The fast backend's REDUCE_* kernels vs the reference backend, through the Session as users run graphs:
// random shapes and axes (inner-axis and middle-axis cases), every type each reduction takes, fixed seeds.
// The kernel claims bit-identical results for every type (integer arithmetic is exact; fp32 sums/products
// keep the spec's sequential order, each operation rounded to fp32 as the reference rounds its fp64 result;
// max/min follow the nan_mode rules and the tie order of apply_max_f/apply_min_f), so outputs must be
// byte-identical with 1 and 2 threads, including NaN, infinities and signed zeros.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

using Outcome = SingleOutcome;

struct ReduceCase {
  std::string op;
  DType t = DType::FP32;
  Shape in;
  int64_t axis = 0;
  std::string nanMode;  // empty: attribute absent (PROPAGATE)
};

std::unique_ptr<ir::Module> makeReduce(const ReduceCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(c.t, c.in), "x");
  Shape out = c.in;
  out[size_t(c.axis)] = 1;
  std::map<std::string, Attribute> attrs{{"axis", Attribute::integer(c.axis, DType::I32)}};
  if (!c.nanMode.empty()) attrs["nan_mode"] = Attribute::enumCase(c.nanMode);
  b.output({b.op1(c.op, {x}, ValueType::tensor(c.t, out), attrs)}, {"y"});
  return m;
}

Outcome runOn(const ReduceCase& c, const std::string& backend, const Tensor& x, int threads) {
  return runSingle(makeReduce(c), backend, x, threads);
}

// Float data: uniform values; with `specials`, one in six is NaN, +-inf or +-0 (zeros make signed-zero ties).
Tensor randomInput(DType t, const Shape& s, std::mt19937& rng, bool specials, double range = 4) {
  Tensor x(t, s);
  std::uniform_real_distribution<double> u(-range, range);
  const double special[] = {std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            -std::numeric_limits<double>::infinity(),
                            0.0,
                            -0.0,
                            0.0,
                            -0.0};
  for (int64_t i = 0; i < x.size(); ++i) {
    if (t == DType::Bool)
      x.setInt(i, rng() % 8 != 0);
    else if (isFloat(t))
      x.setFloat(i, specials && rng() % 6 == 0 ? special[rng() % 7] : u(rng));
    else
      x.setInt(i, int64_t(rng() % 4000000000u) - 2000000000);  // setInt keeps the type's low bits
  }
  return x;
}

std::string describe(const ReduceCase& c) {
  std::string s = c.op + " " + std::string(dtypeName(c.t)) + " [";
  for (int64_t d : c.in) s += std::to_string(d) + ",";
  return s + "] axis " + std::to_string(c.axis) + " " + c.nanMode;
}

void expectSameAsReference(const ReduceCase& c, const Tensor& x, const std::string& what) {
  Outcome ref = runOn(c, "ref", x, 1);
  for (int threads : {1, 2}) {
    Outcome fast = runOn(c, "fast", x, threads);
    EXPECT_EQ(fast.impl, "fast:reduce") << what;
    ASSERT_EQ(ref.status.code(), fast.status.code())
        << what << ": " << ref.status.toString() << " / " << fast.status.toString();
    if (ref.status.isOk()) { EXPECT_TRUE(ref.output.identical(fast.output)) << what << " threads " << threads; }
  }
}

struct OpTypes {
  const char* op;
  std::vector<DType> types;
};
const OpTypes kOps[] = {
    {"tosa.reduce_all", {DType::Bool}},
    {"tosa.reduce_any", {DType::Bool}},
    {"tosa.reduce_max", {DType::I8, DType::I16, DType::I32, DType::FP16, DType::BF16, DType::FP32}},
    {"tosa.reduce_min", {DType::I8, DType::I16, DType::I32, DType::FP16, DType::BF16, DType::FP32}},
    {"tosa.reduce_product", {DType::FP16, DType::BF16, DType::FP32}},
    {"tosa.reduce_sum", {DType::I32, DType::FP16, DType::BF16, DType::FP32}},
};

TEST(FastReduce, RandomShapesAndAxesEveryTypeIdenticalToReference) {
  std::mt19937 rng(911);
  for (const OpTypes& ot : kOps) {
    for (DType t : ot.types) {
      for (int trial = 0; trial < 10; ++trial) {
        ReduceCase c;
        c.op = ot.op;
        c.t = t;
        const int rank = 1 + int(rng() % 4);
        for (int d = 0; d < rank; ++d) c.in.push_back(1 + int64_t(rng() % 7));
        c.axis = trial < 3 ? rank - 1 : int64_t(rng() % uint64_t(rank));              // the inner-axis case every time
        if (c.axis == rank - 1 && trial % 2) c.in.back() = 17 + int64_t(rng() % 40);  // past the vector lanes
        const bool extreme = c.op == "tosa.reduce_max" || c.op == "tosa.reduce_min";
        if (extreme && isFloat(t)) c.nanMode = trial % 3 == 0 ? "" : trial % 3 == 1 ? "PROPAGATE" : "IGNORE";
        // i32 sums: small values (no overflow); products: values near 1 so results stay finite and exact
        // rounding is exercised rather than overflow.
        const double range = c.op == "tosa.reduce_product" ? 1.5 : 4;
        Tensor x = randomInput(t, c.in, rng, trial % 2 == 0, range);
        if (t == DType::I32 && c.op == "tosa.reduce_sum")
          for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, int64_t(rng() % 2000001) - 1000000);
        expectSameAsReference(c, x, describe(c) + " trial " + std::to_string(trial));
      }
    }
  }
}

TEST(FastReduce, AllNaNAndSignedZeroRows) {
  // IGNORE over an all-NaN row gives NaN (the last NaN, quieted); PROPAGATE gives NaN when any input is NaN;
  // max keeps the first of +0/-0 and min the last (apply_max_f: a >= b ? a : b; apply_min_f: a < b ? a : b).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"tosa.reduce_max", "tosa.reduce_min"}) {
    for (const char* mode : {"PROPAGATE", "IGNORE"}) {
      ReduceCase c{op, DType::FP32, {4, 20}, 1, mode};
      std::vector<double> v(80, -0.0);
      for (int i = 0; i < 20; ++i) v[size_t(i)] = nan;                        // row 0: all NaN
      for (int i = 20; i < 40; ++i) v[size_t(i)] = i % 3 ? 0.0 : -0.0;        // row 1: zeros of both signs
      for (int i = 40; i < 60; ++i) v[size_t(i)] = i == 45 ? nan : i - 50.0;  // row 2: one NaN
      v[60] = 0.0;                                                            // row 3: +0 then -0s
      Tensor x = Tensor::fromDoubles(DType::FP32, c.in, v);
      expectSameAsReference(c, x, std::string(op) + " " + mode);
      Outcome fast = runOn(c, "fast", x, 1);
      ASSERT_TRUE(fast.status.isOk());
      std::vector<double> y = fast.output.toDoubles();
      EXPECT_TRUE(std::isnan(y[0]));
      EXPECT_EQ(std::isnan(y[2]), std::string(mode) == "PROPAGATE");
      // row 1: i = 20 (20 % 3 = 2) is +0, the first zero; i = 39 (39 % 3 = 0) is -0, the last.
      const bool isMax = std::string(op) == "tosa.reduce_max";
      EXPECT_EQ(std::signbit(y[1]), isMax ? false : true) << "first zero +0 (i=20), last zero -0 (i=39)";
      EXPECT_EQ(std::signbit(y[3]), isMax ? false : true) << "+0 first, -0 last";
    }
  }
}

TEST(FastReduce, I32SumOverflowGivesTheReferenceVerdict) {
  // The spec's REQUIRE holds at every partial sum: column 0 is 2^31-1, 1, -5 — it ends in range but overflows
  // on the way (as row 0 does), so the result is unpredictable on both backends (the fast kernel reruns the
  // step on the reference).
  for (int64_t axis : {0, 1}) {
    ReduceCase c{"tosa.reduce_sum", DType::I32, {3, 3}, axis, ""};
    Tensor x = Tensor::fromInts(DType::I32, c.in, {2147483647, 1, 1, 1, 1, 1, -5, 1, 1});
    Outcome ref = runOn(c, "ref", x, 1), fast = runOn(c, "fast", x, 1);
    EXPECT_EQ(ref.status.code(), StatusCode::Unpredictable) << ref.status.toString();
    EXPECT_EQ(fast.status.code(), StatusCode::Unpredictable) << fast.status.toString();
  }
  ReduceCase c{"tosa.reduce_sum", DType::I32, {1, 3}, 1, ""};
  Outcome fast = runOn(c, "fast", Tensor::fromInts(DType::I32, {1, 3}, {2147483647, -5, 5}), 1);
  ASSERT_TRUE(fast.status.isOk());
  EXPECT_EQ(fast.output.getInt(0), 2147483647);  // partial sums 2^31-1, 2^31-6, 2^31-1: all in range
}

TEST(FastReduce, LargeInnerAndMiddleAxesSplitAcrossThreadsIdentically) {
  // The SVTR softmax/LayerNorm shapes of PP-OCRv4 rec (40x6625 over the last axis) and a middle-axis case,
  // both above the size where the kernel splits work over threads (along non-reduced axes only).
  std::mt19937 rng(912);
  for (const char* op : {"tosa.reduce_sum", "tosa.reduce_max", "tosa.reduce_min", "tosa.reduce_product"}) {
    for (auto [shape, axis] : {std::pair<Shape, int64_t>{{1, 40, 6625}, 2}, {{3, 300, 100}, 1}, {{700, 130}, 0}}) {
      ReduceCase c{op, DType::FP32, shape, axis, ""};
      const double range = std::string(op) == "tosa.reduce_product" ? 1.01 : 100;
      expectSameAsReference(c, randomInput(DType::FP32, shape, rng, false, range), describe(c));
    }
  }
  ReduceCase c{"tosa.reduce_sum", DType::I32, {3, 300, 100}, 1, ""};
  Tensor x = randomInput(DType::I32, c.in, rng, false);
  for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, int64_t(rng() % 2000001) - 1000000);
  expectSameAsReference(c, x, "i32 sum middle axis");
}

}  // namespace
}  // namespace tosakit::testing
