// Accuracy checks of spec 1.10.3 / 4.5.3 with hand-made values just inside and just outside each bound.
// Every expected verdict is computed by hand from the spec formulas in the comments.
#include <gtest/gtest.h>

#include <cmath>

#include "compliance/compliance.h"
#include "core/numeric.h"

using namespace tosakit;
using namespace tosakit::compliance;

namespace {
Tensor vec(DType t, std::vector<double> v) { return Tensor::fromDoubles(t, {int64_t(v.size())}, v); }
ComplianceMode mode(const std::string& spec) {
  auto m = parseComplianceSpec(spec);
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  return m.isOk() ? *m : ComplianceMode{};
}
bool pass(const std::string& spec, DType t, double impl, double ref, const double* bound = nullptr) {
  Tensor i = vec(t, {impl});
  Tensor r = vec(DType::FP64, {ref});
  if (!bound) return checkTensor(mode(spec), i, r).pass;
  Tensor b = vec(DType::FP64, {*bound});
  return checkTensor(mode(spec), i, r, &b).pass;
}
const double p2 = 2.0;  // helper for exponents below
double e2(int n) { return std::ldexp(1.0, n); }
}  // namespace

TEST(Helpers, NormalRanges) {
  EXPECT_EQ(normalMax(DType::FP8E4M3), 448.0);    // 2^9 - 2^6
  EXPECT_EQ(normalMax(DType::FP8E5M2), 57344.0);  // 2^16 - 2^13
  EXPECT_EQ(normalMax(DType::FP16), 65504.0);
  EXPECT_EQ(normalMin(DType::FP8E4M3), 1.0 / 64);
  EXPECT_EQ(normalFrac(DType::BF16), 7);
  EXPECT_EQ(ilog2(1.0), 0);
  EXPECT_EQ(ilog2(1000.0), 9);
  EXPECT_EQ(ilog2(0.3), -2);
  EXPECT_EQ(exp2i(-1076), 0.0);
  (void)p2;
}

// fp32, ref 1.0, 0.5 ulp: ulp = 2^0 * 2^-23, err_bnd = 2^-24.
TEST(ReferenceCheckFp, HalfUlpFp32) {
  EXPECT_TRUE(referenceCheckFp(DType::FP32, 1.0 + e2(-24), 1.0, 0.5));
  EXPECT_FALSE(referenceCheckFp(DType::FP32, std::nextafter(1.0 + e2(-24), 2.0), 1.0, 0.5));
  EXPECT_TRUE(referenceCheckFp(DType::FP32, 1.0 - e2(-24), 1.0, 0.5));
  EXPECT_FALSE(referenceCheckFp(DType::FP32, std::nextafter(1.0 - e2(-24), 0.0), 1.0, 0.5));
  // Negative reference: mirrored.
  EXPECT_TRUE(referenceCheckFp(DType::FP32, -1.0 - e2(-24), -1.0, 0.5));
  EXPECT_FALSE(referenceCheckFp(DType::FP32, -1.0 - e2(-23), -1.0, 0.5));
}

// fp16, ref 1000: ilog2 = 9, ulp = 2^9 * 2^-10 = 0.5; 2 ulp -> err_bnd 1.
TEST(ReferenceCheckFp, TwoUlpFp16) {
  EXPECT_TRUE(pass("ULP:ulp=2", DType::FP16, 1001.0, 1000.0));
  EXPECT_FALSE(pass("ULP:ulp=2", DType::FP16, 1001.5, 1000.0));
  EXPECT_TRUE(pass("ULP:ulp=2", DType::FP16, 999.0, 1000.0));
  EXPECT_FALSE(pass("ULP:ulp=2", DType::FP16, 998.5, 1000.0));
}

// Subnormal flush to zero is allowed for fp16/bf16/fp32 (test 0 passes when ref_min < normal_min), not fp8.
TEST(ReferenceCheckFp, SubnormalFlush) {
  // fp16 ref 2^-20: ref_pow2 = max(2^-20, 2^-14), err = 2^-14 * 2^-10 * 0.5 = 2^-25; ref_min < 2^-14.
  EXPECT_TRUE(referenceCheckFp(DType::FP16, 0.0, e2(-20), 0.5));
  EXPECT_TRUE(referenceCheckFp(DType::FP16, -0.0, e2(-20), 0.5));
  // fp16 ref 2^-13 (normal): err = 2^-24, ref_min = 2^-13 - 2^-24 > 2^-14: zero fails.
  EXPECT_FALSE(referenceCheckFp(DType::FP16, 0.0, e2(-13), 0.5));
  // fp8e4m3 ref 2^-8 (subnormal): err = 2^-6 * 2^-3 * 0.5 = 2^-10; 0 < 2^-8 - 2^-10: fails (no flush).
  EXPECT_FALSE(referenceCheckFp(DType::FP8E4M3, 0.0, e2(-8), 0.5));
  EXPECT_TRUE(referenceCheckFp(DType::FP8E4M3, e2(-8), e2(-8), 0.5));
}

TEST(ReferenceCheckFp, NaNAndInfinity) {
  EXPECT_TRUE(referenceCheckFp(DType::FP16, NAN, NAN, 0.5));
  EXPECT_FALSE(referenceCheckFp(DType::FP16, 1.0, NAN, 0.5));
  EXPECT_FALSE(referenceCheckFp(DType::FP16, NAN, 1.0, 0.5));
  // fp16 ref 65504: ilog2 = 15, err = 2^15 * 2^-10 * 0.5 = 16; ref_max 65520 > 65504 -> inf allowed.
  EXPECT_TRUE(referenceCheckFp(DType::FP16, INFINITY, 65504.0, 0.5));
  // ref 60000: ref_max 60016 <= max: inf not allowed.
  EXPECT_FALSE(referenceCheckFp(DType::FP16, INFINITY, 60000.0, 0.5));
  EXPECT_TRUE(referenceCheckFp(DType::FP16, -INFINITY, -65504.0, 0.5));
  // fp8e4m3 has no inf: NaN is accepted when ref_max overflows. ref 440: ilog2 8, err = 2^8*2^-3*0.5 = 16,
  // ref_max 456 > 448. ref 400: ref_max 416: NaN fails.
  EXPECT_TRUE(referenceCheckFp(DType::FP8E4M3, NAN, 440.0, 0.5));
  EXPECT_FALSE(referenceCheckFp(DType::FP8E4M3, NAN, 400.0, 0.5));
  // Infinite error bound accepts anything.
  EXPECT_TRUE(referenceCheckFpBnd(DType::FP32, 123.0, 1.0, INFINITY));
}

// ulp_lower widens the allowance (fp16 ref 1.0: 1 ulp = 2^-10).
TEST(Ulp, UlpLower) {
  EXPECT_FALSE(pass("ULP:ulp=0.5", DType::FP16, 1.0 - e2(-11), 1.0 + e2(-12)));
  EXPECT_TRUE(pass("ULP:ulp=0.5,ulp_lower=1", DType::FP16, 1.0 - e2(-11), 1.0 + e2(-12)));
}

// EXP fp32: err = 2^-23 * max(|ref|, nmin) * (base_bound + bounds). ref 1.5, bounds 2, no base_bound ->
// 3 * 2^-23 (fp32 spacing at 1.5 is 2^-23).
TEST(AbsError, Exp) {
  double b = 2.0;
  EXPECT_TRUE(pass("ABS_ERROR", DType::FP32, 1.5 + 3 * e2(-23), 1.5, &b));
  EXPECT_FALSE(pass("ABS_ERROR", DType::FP32, 1.5 + 4 * e2(-23), 1.5, &b));
  // base_bound 3 adds to the bounds value: 1.5 * (3 + 2) = 7.5 -> 7 * 2^-23 passes, 8 * 2^-23 fails.
  EXPECT_TRUE(pass("ABS_ERROR:base_bound=3", DType::FP32, 1.5 + 7 * e2(-23), 1.5, &b));
  EXPECT_FALSE(pass("ABS_ERROR:base_bound=3", DType::FP32, 1.5 + 8 * e2(-23), 1.5, &b));
  // As recorded for exp_4_bf16: x ~ 2.976e-4, bounds 2|x| = 5.95e-4, base_bound 1, ref 1.00029759:
  // err = 2^-7 * 1.0003 * 1.0006 = 0.00782; the correctly rounded bf16 result 1.0 passes, 1 + 2^-7 (error
  // 0.0075) passes too, 1 + 2^-6 (0.0153) fails.
  double bx = 5.95e-4;
  EXPECT_TRUE(pass("ABS_ERROR:base_bound=1", DType::BF16, 1.0, 1.00029759, &bx));
  EXPECT_TRUE(pass("ABS_ERROR:base_bound=1", DType::BF16, 1.0 + e2(-7), 1.00029759, &bx));
  EXPECT_FALSE(pass("ABS_ERROR:base_bound=1", DType::BF16, 1.0 + e2(-6), 1.00029759, &bx));
}

// TANH-like lower bound, fp32: ref 0.25, bounds 1, lower 0.5: max(0.5, 0.25 * 1) * 2^-23 = 2^-24.
// Without the lower bound: 0.25 * 2^-23 = 2^-25 (fp32 spacing at 0.25).
TEST(AbsError, LowerBound) {
  double b = 1.0;
  EXPECT_TRUE(pass("ABS_ERROR:lower_bound=0.5", DType::FP32, 0.25 + e2(-24), 0.25, &b));
  EXPECT_FALSE(pass("ABS_ERROR:lower_bound=0.5", DType::FP32, 0.25 + e2(-24) + e2(-25), 0.25, &b));
  EXPECT_FALSE(pass("ABS_ERROR", DType::FP32, 0.25 + e2(-24), 0.25, &b));
}

// COS fp16 (bound_as_magnitude, normal_divisor 2): err = 2^(-10/2) * (1+|x|) * 1. bounds (1+|x|) = 1.5,
// err = 0.046875; ref 0.75 -> [0.703125, 0.796875]; fp16 spacing there 2^-11.
TEST(AbsError, CosBoundAsMagnitude) {
  std::string m = "ABS_ERROR:base_bound=1,bound_as_magnitude=true,normal_divisor=2";
  double b = 1.5;
  EXPECT_TRUE(pass(m, DType::FP16, 0.703125, 0.75, &b));
  EXPECT_FALSE(pass(m, DType::FP16, 0.703125 - e2(-11), 0.75, &b));
  EXPECT_TRUE(pass(m, DType::FP16, 0.796875, 0.75, &b));
  EXPECT_FALSE(pass(m, DType::FP16, 0.796875 + e2(-11), 0.75, &b));
}

// SIN fp16 near 0: err = max(2 * 2^-5 * max(|x|, 2^-14), max_compare = pi * 2^-14 ~ 1.9175e-4).
// x = 1e-6 -> 2^-18 < max_compare, so the bound is 1.9175e-4: 2^-13 (1.22e-4) passes, 2^-12 (2.44e-4) fails.
TEST(AbsError, SinMaxCompare) {
  std::string m = "ABS_ERROR:base_bound=2,bound_as_magnitude=true,normal_divisor=2,max_compare=0.00019174759848570515";
  double b = 1e-6;
  EXPECT_TRUE(pass(m, DType::FP16, e2(-13), 0.0, &b));
  EXPECT_FALSE(pass(m, DType::FP16, e2(-12), 0.0, &b));
}

TEST(AbsError, NaNReferenceNeedsNaN) {
  double b = 1.0;
  EXPECT_TRUE(pass("ABS_ERROR", DType::FP32, NAN, NAN, &b));
  EXPECT_FALSE(pass("ABS_ERROR", DType::FP32, 0.0, NAN, &b));
  double inf = INFINITY;  // infinite bound: no accuracy requirement
  EXPECT_TRUE(pass("ABS_ERROR", DType::FP32, 7.0, 1.0, &inf));
}

// RESIZE fp16: max 1, ulp_bound 20 -> 2^-10 * 1 * 20 = 0.01953125; relative 1 * 0.006; err = 0.01953125.
TEST(Relative, Resize) {
  std::string m = "RELATIVE:max=1.0,scale=0.006,ulp_bound=20";
  EXPECT_TRUE(pass(m, DType::FP16, 0.51953125, 0.5));
  EXPECT_FALSE(pass(m, DType::FP16, 0.51953125 + e2(-11), 0.5));
  // scale dominates: max 1, scale 0.05 -> 0.05; 0.5 + 0.0498046875 (102 * 2^-11) passes, 0.05029296875 fails.
  EXPECT_TRUE(pass("RELATIVE:max=1.0,scale=0.05,ulp_bound=20", DType::FP16, 0.5 + 102 * e2(-11), 0.5));
  EXPECT_FALSE(pass("RELATIVE:max=1.0,scale=0.05,ulp_bound=20", DType::FP16, 0.5 + 103 * e2(-11), 0.5));
  // A reference above the recorded max uses its own magnitude: ref 1024, 20 * 2^-10 * 1024 = 20 (fp16
  // spacing at 1024 is 1): 1044 passes, 1045 fails.
  EXPECT_TRUE(pass("RELATIVE:max=1.0,scale=0.006,ulp_bound=20", DType::FP16, 1044.0, 1024.0));
  EXPECT_FALSE(pass("RELATIVE:max=1.0,scale=0.006,ulp_bound=20", DType::FP16, 1045.0, 1024.0));
}

// REDUCE_PRODUCT fp16 n=4: err = max(|1|, 2^-14) * ((1 + 2^-11)^4 - 1) = 0.0019545559...
// 1 + 2^-9 (diff 0.001953125) passes; 1 + 2^-9 + 2^-10 fails.
TEST(ReduceProduct, Bound) {
  EXPECT_TRUE(pass("REDUCE_PRODUCT:n=4", DType::FP16, 1.0 + e2(-9), 1.0));
  EXPECT_FALSE(pass("REDUCE_PRODUCT:n=4", DType::FP16, 1.0 + e2(-9) + e2(-10), 1.0));
  EXPECT_FALSE(pass("REDUCE_PRODUCT:n=4", DType::FP16, 1.0, NAN));
}

// RESCALE_INEXACT: |imp - ref| <= 0.5 + 3 |ref| 2^-24 plus 0.5 for the rounded reference.
TEST(RescaleInexact, Bound) {
  auto check = [](DType t, int64_t impl, double ref, const std::string& m) {
    Tensor i = Tensor::fromInts(t, {1}, {impl});
    Tensor r = vec(DType::FP64, {ref});
    return checkTensor(mode(m), i, r).pass;
  };
  EXPECT_TRUE(check(DType::I8, -88, -89, "RESCALE_INEXACT"));
  EXPECT_TRUE(check(DType::I8, -90, -89, "RESCALE_INEXACT"));
  EXPECT_FALSE(check(DType::I8, -87, -89, "RESCALE_INEXACT"));
  // unsigned_data: i16 storage -1 is 65535.
  EXPECT_TRUE(check(DType::I16, -1, 65535, "RESCALE_INEXACT:unsigned_data=true"));
  EXPECT_FALSE(check(DType::I16, -1, 65535, "RESCALE_INEXACT:unsigned_data=false"));
}

TEST(Exact, IntegersAndFloats) {
  ComplianceMode m = mode("EXACT");
  EXPECT_TRUE(
      checkTensor(m, Tensor::fromInts(DType::I8, {2}, {1, -2}), Tensor::fromInts(DType::I8, {2}, {1, -2})).pass);
  ComplianceResult r =
      checkTensor(m, Tensor::fromInts(DType::I8, {2}, {1, -2}), Tensor::fromInts(DType::I8, {2}, {1, -3}));
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.index, 1);
  EXPECT_NE(r.reason.find("element 1"), std::string::npos);
  EXPECT_TRUE(checkTensor(m, vec(DType::FP16, {NAN, 1.0}), vec(DType::FP16, {NAN, 1.0})).pass);
  // Floats use tosa_reference_check_fp(num_ulp = 0) (spec 1.10.3): the sign of zero is not
  // distinguished (test 0 passes when ref_min = 0 < normal_min), a subnormal reference may be flushed.
  EXPECT_TRUE(checkTensor(m, vec(DType::FP16, {-0.0}), vec(DType::FP16, {0.0})).pass);
  EXPECT_TRUE(checkTensor(m, vec(DType::FP16, {0.0}), vec(DType::FP16, {e2(-24)})).pass);
  EXPECT_FALSE(checkTensor(m, vec(DType::FP8E4M3, {0.0}), vec(DType::FP8E4M3, {e2(-9)})).pass);
  EXPECT_FALSE(checkTensor(m, vec(DType::FP16, {INFINITY}), vec(DType::FP16, {65504.0})).pass);
  EXPECT_FALSE(checkTensor(m, vec(DType::FP16, {1.0 + e2(-10)}), vec(DType::FP16, {1.0})).pass);
  // Shape mismatch.
  EXPECT_FALSE(checkTensor(m, Tensor(DType::I8, {2}), Tensor(DType::I8, {3})).pass);
}

TEST(FpSpecial, SpecialValues) {
  EXPECT_TRUE(pass("FP_SPECIAL", DType::FP16, INFINITY, INFINITY));
  EXPECT_FALSE(pass("FP_SPECIAL", DType::FP16, -INFINITY, INFINITY));
  EXPECT_TRUE(pass("FP_SPECIAL", DType::FP16, NAN, NAN));
  EXPECT_FALSE(pass("FP_SPECIAL", DType::FP16, 0.0, NAN));
  // 3.7e-9 is below the fp16 subnormal range: 0 is the correctly rounded result.
  EXPECT_TRUE(pass("FP_SPECIAL", DType::FP16, 0.0, 3.7e-9));
  EXPECT_FALSE(pass("FP_SPECIAL", DType::FP16, 1.0, 0.0));
}

// DOT_PRODUCT fp32 output, ksb 1: bound 1 per element -> err_bnd = max(1 * 2^-24, 2^-126) = 2^-24.
// impl = ref + 2^-24 has normalized error 1 (<= ksb); ref + 2^-23 has 2 (> ksb).
TEST(DotProduct, PerElementBound) {
  ComplianceMode m = mode("DOT_PRODUCT:s=0,ksb=1");
  std::vector<double> ref(10, 0.5), bnd(10, 1.0), imp(10, 0.5);
  imp[3] = 0.5 + e2(-24);  // sumsq 1 <= 0.4 * 1 * 10 = 4
  Tensor r = vec(DType::FP64, ref), b = vec(DType::FP64, bnd);
  EXPECT_TRUE(checkTensor(m, vec(DType::FP32, imp), r, &b).pass);
  imp[3] = 0.5 + e2(-23);
  ComplianceResult res = checkTensor(m, vec(DType::FP32, imp), r, &b);
  EXPECT_FALSE(res.pass);
  EXPECT_EQ(res.index, 3);
  // abs_bound 2 (as recorded by the generator) accepts normalized error 2.
  EXPECT_TRUE(
      checkTensor(mode("DOT_PRODUCT:s=0,ksb=1,abs_bound=2,variance_error_bound=1.6"), vec(DType::FP32, imp), r, &b)
          .pass);
}

TEST(DotProduct, VarianceAndBias) {
  // Variance: 5 of 10 elements with error 1 -> sumsq 5 > 0.4 * 1 * 10 = 4.
  std::vector<double> ref(10, 0.5), bnd(10, 1.0), imp(10, 0.5);
  for (int i = 0; i < 5; ++i) imp[i] = 0.5 + e2(-24);
  Tensor r = vec(DType::FP64, ref), b = vec(DType::FP64, bnd);
  ComplianceResult res = checkTensor(mode("DOT_PRODUCT:s=1,ksb=1"), vec(DType::FP32, imp), r, &b);
  EXPECT_FALSE(res.pass);
  EXPECT_NE(res.reason.find("variance"), std::string::npos);
  // Bias: ksb 4, T = 100, every error +1: sum 100 > 2 * sqrt(4 * 100) = 40 fails for S3..S5 only;
  // sumsq 100 <= 0.4 * 4 * 100 = 160.
  std::vector<double> ref2(100, 0.5), bnd2(100, 1.0), imp2(100, 0.5 + e2(-24));
  Tensor r2 = vec(DType::FP64, ref2), b2 = vec(DType::FP64, bnd2), i2 = vec(DType::FP32, imp2);
  EXPECT_TRUE(checkTensor(mode("DOT_PRODUCT:s=1,ksb=4"), i2, r2, &b2).pass);
  ComplianceResult bias = checkTensor(mode("DOT_PRODUCT:s=3,ksb=4"), i2, r2, &b2);
  EXPECT_FALSE(bias.pass);
  EXPECT_NE(bias.reason.find("bias"), std::string::npos);
}

TEST(DotProduct, ZeroNaNAndOverflowBounds) {
  ComplianceMode m = mode("DOT_PRODUCT:s=0,ksb=1");
  Tensor r = vec(DType::FP64, {0.0, NAN, 1.0}), b = vec(DType::FP64, {0.0, 1.0, 3.4028234663852886e38});
  // Zero bound: result must be 0. NaN reference: NaN required. Bound whose (1 + ksb 2^-24) multiple
  // overflows fp32: no requirement.
  EXPECT_TRUE(checkTensor(m, vec(DType::FP32, {0.0, NAN, 1e30}), r, &b).pass);
  EXPECT_FALSE(checkTensor(m, vec(DType::FP32, {e2(-149), NAN, 1.0}), r, &b).pass);
  EXPECT_FALSE(checkTensor(m, vec(DType::FP32, {0.0, 1.0, 1.0}), r, &b).pass);
}

TEST(Parse, JsonEntries) {
  auto m = parseComplianceJson(R"({"mode": "ABS_ERROR", "data_type": "FP32", "shape": [],
      "abs_error_info": {"base_bound": 2.0, "bound_as_magnitude": true, "normal_divisor": 2,
                         "max_compare": 3.6929244168796014e-38}})");
  ASSERT_TRUE(m.isOk());
  EXPECT_EQ(m->mode, "ABS_ERROR");
  EXPECT_EQ(m->baseBound, 2.0);
  EXPECT_TRUE(m->boundAsMagnitude);
  EXPECT_EQ(m->normalDivisor, 2.0);
  auto d = parseComplianceJson(
      R"({"mode": "DOT_PRODUCT", "dot_product_info": {"s": 3, "ksb": 4, "abs_bound": 8, "variance_error_bound": 6.4}})");
  ASSERT_TRUE(d.isOk());
  EXPECT_EQ(d->s, 3);
  EXPECT_EQ(d->ksb, 4);
  EXPECT_EQ(d->varianceErrorBound, 6.4);
  auto r = parseComplianceJson(R"({"mode": "RESCALE_INEXACT", "rescale_inexact_info": {"unsigned_data": true}})");
  ASSERT_TRUE(r.isOk());
  EXPECT_TRUE(r->unsignedData);
  EXPECT_TRUE(parseComplianceJson(R"({"mode": "ABS_ERROR", "abs_error_info": null})").isOk());
  EXPECT_FALSE(parseComplianceJson(R"({"mode": "FOO"})").isOk());
  EXPECT_FALSE(parseComplianceJson(R"({"mode": "ULP", "ulp_info": {"ulpp": 1}})").isOk());
  EXPECT_FALSE(parseComplianceJson("{not json").isOk());
  EXPECT_FALSE(parseComplianceSpec("ULP:ulp").isOk());
  EXPECT_FALSE(parseComplianceSpec("NOPE").isOk());
  auto u = parseComplianceSpec("ULP:ulp=2");
  ASSERT_TRUE(u.isOk());
  EXPECT_EQ(u->ulp, 2.0);
}
