// Spec section 2.6 Elementwise unary operators.
// Floating-point results are computed in double and rounded once to in_out_t (Tensor::setFloat); the
// "Floating-point behavior" tables of the spec (inf, -0, NaN) follow from IEEE double arithmetic and <cmath>.
#include <cmath>
#include <limits>
#include <string>

#include "ref/elementwise.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

const std::initializer_list<DType> kFloatTypes = {DType::FP16, DType::FP32, DType::BF16};

// Shared shape/type checks of a unary in_out_t operator.
Status checkUnaryOp(KernelContext& ctx, const Tensor& in, const Tensor& out, std::initializer_list<DType> rows) {
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&in}, ctx.dtypeOf(out), rows));
  return checkUnary(ctx, in, out);
}

// A floating-point unary operator: result = f(value1) in double, rounded to in_out_t.
Status floatUnary(KernelContext& ctx, const Inputs& in, Outputs& out, double (*f)(double)) {
  const Tensor& a = *in[0];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkUnaryOp(ctx, a, o, kFloatTypes));
  for (int64_t i = 0; i < a.size(); ++i) o.setFloat(i, f(a.getFloat(i)));
  return Status::ok();
}

// 2.6.1 ABS
Status absKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor& a = *in[0];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(checkUnaryOp(ctx, a, o, {DType::FP16, DType::FP32, DType::I32, DType::BF16}));
  for (int64_t i = 0; i < a.size(); ++i) {
    if (is_floating_point(t)) {
      double value1 = a.getFloat(i);
      if (value1 == -0.0) value1 = 0.0;
      // The pseudocode's static_cast<int32_t>(value1) < 0 would leave (-1, 0) negative; the behavior table and
      // the operator's definition say |x|, so floats compare the value itself (NaN stays NaN).
      if (value1 < 0.0) value1 = -value1;
      o.setFloat(i, value1);
    } else {
      int64_t value1 = a.getInt(i);
      if (value1 < 0) value1 = apply_sub_s(ctx, 0, value1, t);  // REQUIRE fails for minimum_s<i32_t>
      o.setInt(i, value1);
    }
  }
  return Status::ok();
}

// 2.6.2 BITWISE_NOT
Status bitwiseNotKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor& a = *in[0];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkUnaryOp(ctx, a, o, {DType::I8, DType::I16, DType::I32}));
  for (int64_t i = 0; i < a.size(); ++i) o.setInt(i, ~a.getInt(i));
  return Status::ok();
}

// 2.6.4 CLZ
Status clzKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor& a = *in[0];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkUnaryOp(ctx, a, o, {DType::I32}));
  for (int64_t i = 0; i < a.size(); ++i) o.setInt(i, count_leading_zeros(int32_t(a.getInt(i))));
  return Status::ok();
}

// 2.6.9 LOGICAL_NOT
Status logicalNotKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor& a = *in[0];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkUnaryOp(ctx, a, o, {DType::Bool}));
  for (int64_t i = 0; i < a.size(); ++i) o.setInt(i, a.getInt(i) != 0 ? 0 : 1);
  return Status::ok();
}

// 2.6.10 NEGATE (input1_zp and output_zp are rank-1 single-element tensors of in_out_t)
Status negateKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &zpIn = *in[1], &zpOut = *in[2];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(
      checkUnaryOp(ctx, a, o, {DType::FP16, DType::FP32, DType::I8, DType::I16, DType::I32, DType::BF16}));
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&zpIn, &zpOut}, t, {t}));
  if (zpIn.size() != 1 || zpOut.size() != 1) return dtypeError(ctx, "zero points must have one element");
  if (is_floating_point(t)) {
    double input1_zp = zpIn.getFloat(0), output_zp = zpOut.getFloat(0);
    ERROR_IF(t != DType::I8 && input1_zp != 0);
    ERROR_IF(t != DType::I8 && output_zp != 0);
    // With both zero points 0 the pseudocode is 0 - value1 + 0; the behavior table asks -(+0) = -0, so the
    // sign is flipped directly (IEEE negation) rather than by a subtraction from +0.
    for (int64_t i = 0; i < a.size(); ++i) o.setFloat(i, -a.getFloat(i));
    return Status::ok();
  }
  int64_t input1_zp = zpIn.getInt(0), output_zp = zpOut.getInt(0);
  ERROR_IF(t != DType::I8 && input1_zp != 0);
  ERROR_IF(t != DType::I8 && output_zp != 0);
  const DType acc_t = DType::I32;
  for (int64_t i = 0; i < a.size(); ++i) {
    int64_t value = apply_sub_s(ctx, a.getInt(i), input1_zp, acc_t);
    value = apply_sub_s(ctx, 0, value, acc_t);
    value = apply_add_s(ctx, value, output_zp, acc_t);
    o.setInt(i, truncate_to(apply_clip_s(ctx, value, minimum_s(t), maximum_s(t)), t));
  }
  return Status::ok();
}

double ceilF(double v) { return std::ceil(v); }
double floorF(double v) { return std::floor(v); }
double cosF(double v) { return std::cos(v); }
double sinF(double v) { return std::sin(v); }
double expF(double v) { return std::exp(v); }
double logF(double v) { return apply_log(v); }
double reciprocalF(double v) { return 1.0 / v; }
// 2.6.12 RSQRT: negative input gives NaN; -0 gives 1 / sqrt(-0) = 1 / -0 = -inf.
double rsqrtF(double v) {
  if (v < 0) return std::numeric_limits<double>::quiet_NaN();
  return 1.0 / std::sqrt(v);
}

}  // namespace

void registerElementwiseUnary(KernelRegistry& r) {
  r.add("tosa.abs", withArity(1, 1, absKernel));
  r.add("tosa.bitwise_not", withArity(1, 1, bitwiseNotKernel));
  r.add("tosa.ceil",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, ceilF); }));
  r.add("tosa.clz", withArity(1, 1, clzKernel));
  r.add("tosa.cos",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, cosF); }));
  r.add("tosa.exp",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, expF); }));
  r.add("tosa.floor",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, floorF); }));
  r.add("tosa.log",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, logF); }));
  r.add("tosa.logical_not", withArity(1, 1, logicalNotKernel));
  r.add("tosa.negate", withArity(3, 1, negateKernel));
  r.add("tosa.reciprocal", withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) {
          return floatUnary(c, i, o, reciprocalF);
        }));
  r.add("tosa.rsqrt",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, rsqrtF); }));
  r.add("tosa.sin",
        withArity(1, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return floatUnary(c, i, o, sinF); }));
}

}  // namespace tosakit::ref
