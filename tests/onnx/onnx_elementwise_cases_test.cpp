// Elementwise operators (arithmetic, comparison, logical, bitwise, math functions, Cast) against the ONNX backend
// node test data (independent oracle: ONNX's reference implementation). All inputs are run-time tensors; a few
// cases are also run with every input bound, which exercises the import-time constant folding. Hand-built
// models check what the node data does not cover (approximation accuracy over a sweep against libm, rounding
// ties, Cast truncation) and that unsupported forms are reported with the node and the reason.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "onnx_node_case.h"
#include "onnx_test_util.h"
#include "tosakit/model_io.h"

namespace tosakit::onnxtest {
namespace {

// The case must fail to import as Unsupported with a message containing `reason`.
::testing::AssertionResult rejected(const std::string& caseName, const std::string& reason) {
  auto m = onnx::importOnnx(std::string(kOnnxNodeDataDir) + "/" + caseName + "/model.onnx");
  if (m) return ::testing::AssertionFailure() << caseName << " imported, expected it to be rejected";
  if (m.status().code() != StatusCode::Unsupported)
    return ::testing::AssertionFailure() << caseName << ": not Unsupported: " << m.status().toString();
  if (m.status().message().find(reason) == std::string::npos)
    return ::testing::AssertionFailure() << caseName << ": message lacks '" << reason << "': " << m.status().message();
  return ::testing::AssertionSuccess();
}

// ---- every expressible node case of the family ----
class OnnxElementwiseCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxElementwiseCase, Passes) { EXPECT_TRUE(runNodeCaseVerified(GetParam())); }

const std::vector<std::string> kCases = {
    // Add, Sub, Mul, Div (float; uint8 in i32 after zero extension; integer Div truncates)
    "test_add",
    "test_add_bcast",
    "test_add_uint8",
    "test_sub",
    "test_sub_bcast",
    "test_sub_example",
    "test_sub_uint8",
    "test_mul",
    "test_mul_bcast",
    "test_mul_example",
    "test_mul_uint8",
    "test_div",
    "test_div_bcast",
    "test_div_example",
    "test_div_uint8",
    // Pow
    "test_pow",
    "test_pow_bcast_array",
    "test_pow_bcast_scalar",
    "test_pow_example",
    "test_pow_types_float",
    "test_pow_types_float32_int32",
    "test_pow_types_float32_int64",
    "test_pow_types_int",
    "test_pow_types_int32_float32",
    "test_pow_types_int32_int32",
    "test_pow_types_int64_float32",
    "test_pow_types_int64_int64",
    // Mod
    "test_mod_int64_fmod",
    "test_mod_mixed_sign_float16",
    "test_mod_mixed_sign_float32",
    "test_mod_broadcast",
    "test_mod_mixed_sign_int16",
    "test_mod_mixed_sign_int32",
    "test_mod_mixed_sign_int64",
    "test_mod_mixed_sign_int8",
    "test_mod_uint8",
    // BitShift (uint8 carried as i8 bits)
    "test_bitshift_left_uint8",
    "test_bitshift_right_uint8",
    // logical
    "test_and2d",
    "test_and3d",
    "test_and4d",
    "test_and_bcast3v1d",
    "test_and_bcast3v2d",
    "test_and_bcast4v2d",
    "test_and_bcast4v3d",
    "test_and_bcast4v4d",
    "test_or2d",
    "test_or3d",
    "test_or4d",
    "test_or_bcast3v1d",
    "test_or_bcast3v2d",
    "test_or_bcast4v2d",
    "test_or_bcast4v3d",
    "test_or_bcast4v4d",
    "test_xor2d",
    "test_xor3d",
    "test_xor4d",
    "test_xor_bcast3v1d",
    "test_xor_bcast3v2d",
    "test_xor_bcast4v2d",
    "test_xor_bcast4v3d",
    "test_xor_bcast4v4d",
    "test_not_2d",
    "test_not_3d",
    "test_not_4d",
    // comparison
    "test_equal",
    "test_equal_bcast",
    "test_greater",
    "test_greater_bcast",
    "test_greater_equal",
    "test_greater_equal_bcast",
    "test_greater_equal_bcast_expanded",
    "test_greater_equal_expanded",
    "test_less",
    "test_less_bcast",
    "test_less_equal",
    "test_less_equal_bcast",
    "test_less_equal_bcast_expanded",
    "test_less_equal_expanded",
    // Where
    "test_where_example",
    "test_where_long_example",
    // Min, Max, Mean, Sum
    "test_max_example",
    "test_max_float16",
    "test_max_float32",
    "test_max_int16",
    "test_max_int32",
    "test_max_int64",
    "test_max_int8",
    "test_max_one_input",
    "test_max_two_inputs",
    "test_max_uint8",
    "test_min_example",
    "test_min_float16",
    "test_min_float32",
    "test_min_int16",
    "test_min_int32",
    "test_min_int64",
    "test_min_int8",
    "test_min_one_input",
    "test_min_two_inputs",
    "test_min_uint8",
    "test_mean_example",
    "test_mean_one_input",
    "test_mean_two_inputs",
    "test_sum_example",
    "test_sum_one_input",
    "test_sum_two_inputs",
    // unary math
    "test_abs",
    "test_neg",
    "test_neg_example",
    "test_ceil",
    "test_ceil_example",
    "test_floor",
    "test_floor_example",
    "test_round",
    "test_sign",
    "test_exp",
    "test_exp_example",
    "test_log",
    "test_log_example",
    "test_sqrt",
    "test_sqrt_example",
    "test_reciprocal",
    "test_reciprocal_example",
    "test_sin",
    "test_sin_example",
    "test_cos",
    "test_cos_example",
    "test_tan",
    "test_tan_example",
    "test_asin",
    "test_asin_example",
    "test_acos",
    "test_acos_example",
    "test_atan",
    "test_atan_example",
    "test_sinh",
    "test_sinh_example",
    "test_cosh",
    "test_cosh_example",
    "test_asinh",
    "test_asinh_example",
    "test_acosh",
    "test_acosh_example",
    "test_atanh",
    "test_atanh_example",
    "test_erf",
    "test_isnan",
    "test_isinf",
    "test_isinf_negative",
    "test_isinf_positive",
    // Cast, CastLike (float types TOSA carries)
    "test_cast_BFLOAT16_to_FLOAT",
    "test_cast_FLOAT16_to_FLOAT",
    "test_cast_FLOAT_to_BFLOAT16",
    "test_cast_FLOAT_to_FLOAT16",
    "test_castlike_FLOAT16_to_FLOAT",
    "test_castlike_FLOAT16_to_FLOAT_expanded",
    "test_castlike_FLOAT_to_FLOAT16",
    "test_castlike_FLOAT_to_FLOAT16_expanded",
    // bf16: the `like` input (only its type is read; unread in the expanded form) is not a run-time input,
    // which matters because ONNX's test data gives it shape [1] against a declared [3,4].
    "test_castlike_BFLOAT16_to_FLOAT",
    "test_castlike_BFLOAT16_to_FLOAT_expanded",
    "test_castlike_FLOAT_to_BFLOAT16",
    "test_castlike_FLOAT_to_BFLOAT16_expanded",
};

INSTANTIATE_TEST_SUITE_P(Node, OnnxElementwiseCase, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

// ---- constant operands: folded at import or lowered to the cheaper special forms ----
TEST(OnnxElementwise, FoldedAddBroadcast) { EXPECT_TRUE(runNodeCaseVerified("test_add_bcast", {0, 1})); }
TEST(OnnxElementwise, FoldedDivUint8) { EXPECT_TRUE(runNodeCaseVerified("test_div_uint8", {0, 1})); }
TEST(OnnxElementwise, FoldedModInt64) { EXPECT_TRUE(runNodeCaseVerified("test_mod_mixed_sign_int64", {0, 1})); }
TEST(OnnxElementwise, FoldedModFloat) { EXPECT_TRUE(runNodeCaseVerified("test_mod_mixed_sign_float32", {0, 1})); }
TEST(OnnxElementwise, FoldedPowInt) { EXPECT_TRUE(runNodeCaseVerified("test_pow_types_int64_int64", {0, 1})); }
TEST(OnnxElementwise, FoldedPowIntFloat) { EXPECT_TRUE(runNodeCaseVerified("test_pow_types_int32_float32", {0, 1})); }
TEST(OnnxElementwise, FoldedWhere) { EXPECT_TRUE(runNodeCaseVerified("test_where_long_example", {0, 1, 2})); }
TEST(OnnxElementwise, FoldedEqual) { EXPECT_TRUE(runNodeCaseVerified("test_equal_bcast", {0, 1})); }
TEST(OnnxElementwise, FoldedLessEqual) { EXPECT_TRUE(runNodeCaseVerified("test_less_equal", {0, 1})); }
TEST(OnnxElementwise, FoldedXor) { EXPECT_TRUE(runNodeCaseVerified("test_xor_bcast4v2d", {0, 1})); }
TEST(OnnxElementwise, FoldedNot) { EXPECT_TRUE(runNodeCaseVerified("test_not_3d", {0})); }
TEST(OnnxElementwise, FoldedBitShift) { EXPECT_TRUE(runNodeCaseVerified("test_bitshift_right_uint8", {0, 1})); }
TEST(OnnxElementwise, FoldedMaxInt8) { EXPECT_TRUE(runNodeCaseVerified("test_max_int8", {0, 1})); }
TEST(OnnxElementwise, FoldedMean) { EXPECT_TRUE(runNodeCaseVerified("test_mean_example", {0, 1, 2})); }
TEST(OnnxElementwise, FoldedRound) { EXPECT_TRUE(runNodeCaseVerified("test_round", {0})); }
TEST(OnnxElementwise, FoldedSign) { EXPECT_TRUE(runNodeCaseVerified("test_sign", {0})); }
TEST(OnnxElementwise, FoldedIsInf) { EXPECT_TRUE(runNodeCaseVerified("test_isinf_negative", {0})); }
TEST(OnnxElementwise, FoldedCastToBfloat16) { EXPECT_TRUE(runNodeCaseVerified("test_cast_FLOAT_to_BFLOAT16", {0})); }
TEST(OnnxElementwise, ConstantDivisor) { EXPECT_TRUE(runNodeCaseVerified("test_div_bcast", {1})); }
TEST(OnnxElementwise, ConstantSquareExponent) { EXPECT_TRUE(runNodeCaseVerified("test_pow_bcast_scalar", {1})); }
TEST(OnnxElementwise, ConstantIntExponent) { EXPECT_TRUE(runNodeCaseVerified("test_pow_types_int32_int32", {1})); }
TEST(OnnxElementwise, ConstantFloatExponentOfIntBase) {
  EXPECT_TRUE(runNodeCaseVerified("test_pow_types_int64_float32", {1}));
}

// ---- forms TOSA 1.0 cannot express ----
TEST(OnnxElementwise, Float64IsUnsupported) {
  EXPECT_TRUE(rejected("test_mod_mixed_sign_float64", "fp64 has no TOSA 1.0 equivalent"));
  EXPECT_TRUE(rejected("test_max_float64", "fp64 has no TOSA 1.0 equivalent"));
}
TEST(OnnxElementwise, WideUnsignedIsUnsupported) {
  EXPECT_TRUE(rejected("test_max_uint32", "UINT32"));
  EXPECT_TRUE(rejected("test_min_uint64", "UINT64"));
  EXPECT_TRUE(rejected("test_mod_uint16", "u16 has no TOSA 1.0 equivalent"));
  EXPECT_TRUE(rejected("test_bitshift_left_uint16", "u16 has no TOSA 1.0 equivalent"));
  EXPECT_TRUE(rejected("test_pow_types_float32_uint32", "UINT32"));
}
TEST(OnnxElementwise, CastToDoubleOrStringIsUnsupported) {
  EXPECT_TRUE(rejected("test_cast_FLOAT_to_DOUBLE", "Cast to fp64, which has no TOSA 1.0 equivalent"));
  EXPECT_TRUE(rejected("test_cast_FLOAT_to_STRING", "STRING"));
  EXPECT_TRUE(rejected("test_castlike_FLOAT_to_STRING", "STRING"));
}

// ---- hand-built models ----

// x[n] (elemType) -> op -> y[n] (outType).
std::string unaryModel(const std::string& op, int64_t count, int elemType, int outType, std::vector<Pb> attrs = {}) {
  Pb g;
  g.msg(1, node({op, "op", {"x"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({count}, elemType)));
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType({count}, outType)));
  return model(g, 17);
}

Result<Tensor> runUnary(const std::string& op, const Tensor& x, int elemType, int outType, std::vector<Pb> attrs = {}) {
  auto m = onnx::importOnnxBytes(unaryModel(op, x.size(), elemType, outType, std::move(attrs)), op + ".onnx");
  if (!m) return m.status();
  auto s = Session::create(std::move(*m));
  if (!s) return s.status();
  RunResult r;
  TK_RETURN_IF_ERROR((*s)->run({{"x", x}}, r));
  return r.outputs.at(0).second;
}

Tensor floats(const std::vector<double>& v) {
  Tensor t(DType::FP32, {int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.setFloat(int64_t(i), v[i]);
  return t;
}

// The inverse trigonometric and hyperbolic compositions over a dense sweep of their domains, against libm in
// double precision (an independent oracle), at the node tests' tolerance (rtol 1e-3, atol 1e-5) and at a
// tighter relative one (the Cephes polynomials are good to ~1e-7; 2e-6 leaves room for the reductions).
TEST(OnnxElementwise, ApproximationsMatchLibm) {
  struct Fn {
    const char* op;
    double (*f)(double);
    double lo, hi;
  };
  const Fn fns[] = {
      {"Atan", [](double v) { return std::atan(v); }, -50, 50},
      {"Asin", [](double v) { return std::asin(v); }, -1, 1},
      {"Acos", [](double v) { return std::acos(v); }, -1, 1},
      {"Tan", [](double v) { return std::tan(v); }, -1.5, 1.5},
      {"Sinh", [](double v) { return std::sinh(v); }, -10, 10},
      {"Cosh", [](double v) { return std::cosh(v); }, -10, 10},
      {"Asinh", [](double v) { return std::asinh(v); }, -100, 100},
      {"Acosh", [](double v) { return std::acosh(v); }, 1, 100},
      {"Atanh", [](double v) { return std::atanh(v); }, -0.999, 0.999},
      {"Sqrt", [](double v) { return std::sqrt(v); }, 0, 1000},
  };
  for (const Fn& fn : fns) {
    std::vector<double> xs;
    const int n = 2001;
    for (int i = 0; i < n; ++i) xs.push_back(double(float(fn.lo + (fn.hi - fn.lo) * i / (n - 1))));
    auto y = runUnary(fn.op, floats(xs), 1, 1);
    ASSERT_TRUE(y.isOk()) << fn.op << ": " << y.status().toString();
    int bad = 0;
    for (int i = 0; i < n && bad < 3; ++i) {
      double want = fn.f(xs[size_t(i)]), got = y->getFloat(i);
      if (std::fabs(got - want) > 1e-6 + 2e-6 * std::fabs(want)) {
        ADD_FAILURE() << fn.op << "(" << xs[size_t(i)] << "): got " << got << ", want " << want;
        ++bad;
      }
    }
  }
}

// Special values: asin/acos outside [-1, 1] and sqrt of a negative are NaN; sqrt(0) = 0, sqrt(inf) = inf;
// atan(+-inf) = +-pi/2.
TEST(OnnxElementwise, SpecialValues) {
  const double inf = INFINITY;
  auto sq = runUnary("Sqrt", floats({-1, 0, inf}), 1, 1);
  ASSERT_TRUE(sq.isOk()) << sq.status().toString();
  EXPECT_TRUE(std::isnan(sq->getFloat(0)));
  EXPECT_EQ(sq->getFloat(1), 0.0);
  EXPECT_EQ(sq->getFloat(2), inf);
  auto as = runUnary("Asin", floats({1.5, -2}), 1, 1);
  ASSERT_TRUE(as.isOk()) << as.status().toString();
  EXPECT_TRUE(std::isnan(as->getFloat(0)));
  EXPECT_TRUE(std::isnan(as->getFloat(1)));
  auto at = runUnary("Atan", floats({inf, -inf}), 1, 1);
  ASSERT_TRUE(at.isOk()) << at.status().toString();
  EXPECT_NEAR(at->getFloat(0), 1.5707963267948966, 1e-6);
  EXPECT_NEAR(at->getFloat(1), -1.5707963267948966, 1e-6);
}

// Round half to even (numpy.round): ties go to the even neighbour, large values are already integral.
TEST(OnnxElementwise, RoundTiesToEven) {
  auto y = runUnary("Round", floats({0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 2.4999998, 8388607.5, 16777216, -3.7}), 1, 1);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  const double want[] = {0, 2, 2, -0, -2, -2, 2, 8388608, 16777216, -4};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(y->getFloat(i), want[i]) << i;
}

// Cast float -> int truncates toward zero (numpy astype), unlike TOSA CAST's round to nearest:
// -2.7 -> -2, -0.5 -> 0, 0.5 -> 0, 2.5 -> 2, 3.99 -> 3.
TEST(OnnxElementwise, CastFloatToIntTruncates) {
  auto y = runUnary("Cast", floats({-2.7, -0.5, 0.5, 2.5, 3.99}), 1, 6 /*INT32*/, {intAttr("to", 6)});
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  const int64_t want[] = {-2, 0, 0, 2, 3};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(y->getInt(i), want[i]) << i;
  // To bool: nonzero (NaN included) is true.
  auto b = runUnary("Cast", floats({0, -0.0, 0.25, NAN}), 1, 9 /*BOOL*/, {intAttr("to", 9)});
  ASSERT_TRUE(b.isOk()) << b.status().toString();
  EXPECT_EQ(b->getInt(0), 0);
  EXPECT_EQ(b->getInt(1), 0);
  EXPECT_EQ(b->getInt(2), 1);
  EXPECT_EQ(b->getInt(3), 1);
}

// uint8 (carried as i8 bits) widens with zero extension: 200 -> 200, 255 -> 255.0; int32 -> uint8 keeps the
// low 8 bits (300 -> 44, -1 -> 255).
TEST(OnnxElementwise, CastUint8) {
  Tensor u(DType::I8, {2});
  u.setInt(0, int8_t(uint8_t(200)));
  u.setInt(1, int8_t(uint8_t(255)));
  auto w = runUnary("Cast", u, 2 /*UINT8*/, 6, {intAttr("to", 6)});
  ASSERT_TRUE(w.isOk()) << w.status().toString();
  EXPECT_EQ(w->getInt(0), 200);
  EXPECT_EQ(w->getInt(1), 255);
  auto f = runUnary("Cast", u, 2, 1, {intAttr("to", 1)});
  ASSERT_TRUE(f.isOk()) << f.status().toString();
  EXPECT_EQ(f->getFloat(1), 255.0);
  Tensor i(DType::I32, {2});
  i.setInt(0, 300);
  i.setInt(1, -1);
  auto n = runUnary("Cast", i, 6, 2, {intAttr("to", 2)});
  ASSERT_TRUE(n.isOk()) << n.status().toString();
  EXPECT_EQ(uint8_t(n->getInt(0)), 44);
  EXPECT_EQ(uint8_t(n->getInt(1)), 255);
}

// int8 arithmetic wraps like numpy: Neg(-128) = -128, Abs(-128) = -128 (computed in i32, narrowed by CAST).
TEST(OnnxElementwise, Int8Wraps) {
  Tensor x(DType::I8, {2});
  x.setInt(0, -128);
  x.setInt(1, 5);
  auto neg = runUnary("Neg", x, 3 /*INT8*/, 3);
  ASSERT_TRUE(neg.isOk()) << neg.status().toString();
  EXPECT_EQ(neg->getInt(0), -128);
  EXPECT_EQ(neg->getInt(1), -5);
  auto abs = runUnary("Abs", x, 3, 3);
  ASSERT_TRUE(abs.isOk()) << abs.status().toString();
  EXPECT_EQ(abs->getInt(0), -128);
}

// Operators of the family on element types they do not take: Unsupported, naming the node and the type.
TEST(OnnxElementwise, WrongElementTypesAreReported) {
  onnx::OnnxImportOptions o;
  o.runChecker = false;  // the checker's type constraints would reject some first
  {
    auto m = onnx::importOnnxBytes(unaryModel("Not", 2, 1, 1), "not.onnx", o);
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::Unsupported);
    EXPECT_NE(m.status().message().find("'op' (Not): Not of element type fp32"), std::string::npos)
        << m.status().message();
  }
  {
    auto m = onnx::importOnnxBytes(unaryModel("Asin", 2, 6, 6), "asin.onnx", o);
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::Unsupported);
    EXPECT_NE(m.status().message().find("'op' (Asin): Asin of element type i32"), std::string::npos)
        << m.status().message();
  }
  {
    auto m = onnx::importOnnxBytes(unaryModel("Mean", 2, 6, 6), "mean.onnx", o);
    ASSERT_FALSE(m.isOk());
    EXPECT_NE(m.status().message().find("'op' (Mean): Mean of element type i32"), std::string::npos)
        << m.status().message();
  }
  {
    // Mod with one input: an error, not an out-of-range read.
    auto m = onnx::importOnnxBytes(unaryModel("Mod", 2, 6, 6), "mod.onnx", o);
    ASSERT_FALSE(m.isOk());
    EXPECT_NE(m.status().message().find("'op' (Mod): needs 2 inputs"), std::string::npos) << m.status().message();
  }
}

}  // namespace
}  // namespace tosakit::onnxtest
