// Helpers shared by the 2.3 tensor-operator kernels: operand/attribute checks and the spec's acc_t
// arithmetic on runtime types.
#pragma once
#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "core/numeric.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref::tensorops {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

// An ERROR_IF whose condition text is built at run time (shapes, operand names).
inline Status errorIf(KernelContext& ctx, const std::string& condition) { return ctx.errorIf(condition.c_str()); }

// The spec's tosa_execute_operator ERROR_IFs on argument lists: number of operands and results.
Status checkArity(KernelContext& ctx, const Inputs& in, const Outputs& out, size_t nIn, size_t nOut);
// ERROR_IF(rank(name) != rank).
Status checkRank(KernelContext& ctx, const Tensor& t, int rank, const char* name);
// ERROR_IF(shape(name)[dim] != expected) with the spec's dimension name in the message.
Status checkDim(KernelContext& ctx, const Tensor& t, int dim, int64_t expected, const char* what);

// An integer-array attribute of exactly `size` i32 elements (pad, stride, dilation, kernel, out_pad).
Status intArrayAttr(KernelContext& ctx, const char* name, size_t size, std::vector<int64_t>& values);
// The acc_type attribute (a TypeAttr).
Status accTypeAttr(KernelContext& ctx, DType& accT);

// A zero-point operand: T<t> of shape [1]. `nonZero` says whether its value differs from 0 (float zero points
// compare as floats: -0.0 is zero). `value` is its integer value (0 for float types).
struct ZeroPoint {
  int64_t value = 0;
  bool nonZero = false;
};
Status readZeroPoint(KernelContext& ctx, const Tensor& zp, DType t, const char* name, ZeroPoint& out);

// minimum_s<t>() of the spec for integer and floating-point types: -infinity for fp16/bf16/fp32/fp8e5m2, -448
// for fp8e4m3, which has no infinity (spec 1.9, table 5).
double lowestFloat(DType t);

// Round v to the float format t (ties to even), the same value core's roundToFloat gives, but fast: the
// convolution kernels round twice per multiply-accumulate. fp32 uses the hardware conversion (a double holding
// the exact product or sum of two fp32 values, or a double-rounded sum, which is innocuous as 53 >= 2*24+2).
// Other formats scale finite values so that the format's quantum becomes 1 and round to an integer;
// zero, infinity, NaN and overflow go through roundToFloat.
double roundToSlow(DType t, double v);
class FloatRounder {
 public:
  explicit FloatRounder(DType t) : t_(t) {
    switch (t) {
      case DType::FP16: minNormalExp_ = -14, mantissaBits_ = 10, maxFinite_ = 65504.0; break;
      case DType::BF16: minNormalExp_ = -126, mantissaBits_ = 7, maxFinite_ = 0x1.FEp127; break;
      case DType::FP8E4M3: minNormalExp_ = -6, mantissaBits_ = 3, maxFinite_ = 448.0; break;
      case DType::FP8E5M2: minNormalExp_ = -14, mantissaBits_ = 2, maxFinite_ = 57344.0; break;
      default: mantissaBits_ = -1; break;  // fp32 (hardware) or not a narrow float (roundToFloat)
    }
  }
  double operator()(double v) const {
    if (t_ == DType::FP32) return double(static_cast<float>(v));
    if (t_ == DType::FP64) return v;  // precise mode: no rounding
    const uint64_t bits = std::bit_cast<uint64_t>(v) & ~(uint64_t(1) << 63);
    const int biased = int(bits >> 52);
    if (mantissaBits_ < 0 || biased == 0 || biased == 0x7ff) return roundToSlow(t_, v);  // 0, inf, NaN
    const int e = biased - 1023;
    const int quantumExp = (e < minNormalExp_ ? minNormalExp_ : e) - mantissaBits_;
    const double down = std::bit_cast<double>(uint64_t(1023 - quantumExp) << 52);  // 2^-quantumExp
    const double up = std::bit_cast<double>(uint64_t(1023 + quantumExp) << 52);    // 2^quantumExp
    const double q = std::bit_cast<double>(bits) * down;                           // exact; q < 2^(mantissaBits+1)
    const double shifted = q + 0x1p52;  // rounds q to an integer, ties to even (default rounding mode)
    const double rounded = (shifted - 0x1p52) * up;
    if (rounded > maxFinite_) return roundToSlow(t_, v);  // infinity, or NaN for fp8e4m3
    return v < 0 ? -rounded : rounded;
  }

 private:
  DType t_;
  int minNormalExp_ = 0, mantissaBits_ = -1;
  double maxFinite_ = 0;
};
inline double roundTo(DType t, double v) { return FloatRounder(t)(v); }

// The spec's acc_t arithmetic (apply_add_s / apply_sub_s / apply_mul_s) for an integer acc_t: int64 values,
// REQUIREs recorded in ctx, results truncated to acc_t.
struct IntArith {
  using Value = int64_t;
  IntArith(KernelContext& ctx, DType t) : ctx(ctx), t(t), lo(minimum_s(t)), hi(maximum_s(t)) {}
  KernelContext& ctx;
  DType t;
  int64_t lo, hi;
  static std::vector<Value> read(const Tensor& x) { return x.toInts(); }
  static void write(Tensor& x, int64_t i, Value v) { x.setInt(i, v); }
  Value zero() const { return 0; }
  Value fromZp(const ZeroPoint& zp) const { return zp.value; }
  // In-range results are returned directly (truncation to t is then the identity); anything else goes
  // through the spec helper, which records the REQUIRE / wraps as the spec says.
  Value add(Value a, Value b) const {
    const int64_t c = a + b;
    return c >= lo && c <= hi ? c : apply_add_s(ctx, a, b, t);
  }
  Value sub(Value a, Value b) const { return apply_sub_s(ctx, a, b, t); }
  Value mul(Value a, Value b) const {
    const int64_t c = a * b;  // operands are at most 16-bit values after zero-point subtraction
    return c >= lo && c <= hi ? c : apply_mul_s(a, b, t);
  }
  Value cast(Value a) const { return truncate_to(a, t); }  // static_cast<t>
};

// The same for a floating-point acc_t: each operation is rounded to acc_t (in precise mode: not rounded).
struct FloatArith {
  using Value = double;
  FloatArith(KernelContext& ctx, DType t) : ctx(ctx), t(t), round(ctx.precise ? DType::FP64 : t) {}
  KernelContext& ctx;
  DType t;
  FloatRounder round;
  static std::vector<Value> read(const Tensor& x) { return x.toDoubles(); }
  static void write(Tensor& x, int64_t i, Value v) { x.setFloat(i, v); }
  Value zero() const { return 0.0; }
  Value fromZp(const ZeroPoint&) const { return 0.0; }  // float zero points are ERROR_IF-checked to be 0
  Value add(Value a, Value b) const { return round(a + b); }
  Value sub(Value a, Value b) const { return round(a - b); }
  Value mul(Value a, Value b) const { return round(a * b); }
  Value cast(Value a) const { return round(a); }  // static_cast<t>
};

}  // namespace tosakit::ref::tensorops
