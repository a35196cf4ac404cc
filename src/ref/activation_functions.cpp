// Spec section 2.4 Activation functions: CLAMP, ERF, SIGMOID, TANH.
#include <cmath>

#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

bool oneOf(DType t, std::initializer_list<DType> types) {
  for (DType u : types)
    if (t == u) return true;
  return false;
}

// The operand/result lists of a one-input one-output operator with in_out_t in `types` (Supported Data Types).
Status checkUnary(KernelContext& ctx, const Inputs& in, Outputs& out, std::initializer_list<DType> types) {
  ERROR_IF(in.size() != 1 || out.size() != 1);
  ERROR_IF(!oneOf(ctx.dtypeOf(*in[0]), types));  // in_out_t not in Supported Data Types
  ERROR_IF(ctx.dtypeOf(out[0]) != ctx.dtypeOf(*in[0]));
  ERROR_IF(out[0].shape() != in[0]->shape());
  LEVEL_CHECK(rankWithinLevel(ctx, in[0]->rank()));
  return Status::ok();
}

// Value of a min_val / max_val attribute (typed scalar of in_out_t).
bool clampBound(const ir::Attribute* a, bool isFloatType, double& f, int64_t& i) {
  if (!a) return false;
  if (a->kind == ir::Attribute::Kind::Float) {
    f = a->f;
    i = int64_t(a->f);
    return isFloatType;
  }
  if (a->kind == ir::Attribute::Kind::Int) {
    i = a->i;
    f = double(a->i);
    return !isFloatType;
  }
  return false;
}

// 2.4.1 CLAMP
Status clampKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkUnary(ctx, in, out, {DType::FP16, DType::FP32, DType::BF16, DType::I8, DType::I16}));
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  DType t = ctx.dtypeOf(input);
  bool fp = is_floating_point(t);
  double minF = 0, maxF = 0;
  int64_t minI = 0, maxI = 0;
  if (!clampBound(ctx.op.attr("min_val"), fp, minF, minI) || !clampBound(ctx.op.attr("max_val"), fp, maxF, maxI))
    return ctx.unsupported(std::string("min_val/max_val must be ") + (fp ? "float" : "integer") +
                           " attributes of the input element type");
  if (fp) {
    minF = round_to(t, minF);
    maxF = round_to(t, maxF);
    ERROR_IF(maxF < minF);
    ERROR_IF(isNaN(minF) || isNaN(maxF));
    NanMode mode = parseNanMode(ctx.op);
    for (int64_t i = 0; i < input.size(); ++i)
      output.setFloat(i, apply_clip_f(ctx, input.getFloat(i), minF, maxF, mode));
    return Status::ok();
  }
  // Integer bounds are values of in_out_t (signed).
  minI = sign_extend(minI, t);
  maxI = sign_extend(maxI, t);
  ERROR_IF(maxI < minI);
  for (int64_t i = 0; i < input.size(); ++i) output.setInt(i, apply_clip_s(ctx, input.getInt(i), minI, maxI));
  return Status::ok();
}

// ERF / SIGMOID / TANH: the function in fp64, rounded once to in_out_t.
Status unaryFloatKernel(KernelContext& ctx, const Inputs& in, Outputs& out, double (*fn)(double)) {
  TK_RETURN_IF_ERROR(checkUnary(ctx, in, out, {DType::FP16, DType::FP32, DType::BF16}));
  const Tensor& input = *in[0];
  for (int64_t i = 0; i < input.size(); ++i) out[0].setFloat(i, fn(input.getFloat(i)));
  return Status::ok();
}

double erfFn(double x) { return std::erf(x); }
// 1 / (1 + exp(-x)): -inf -> 0, +inf -> 1, +-0 -> 0.5, NaN -> NaN (the spec's floating-point behavior table).
double sigmoidFn(double x) { return 1.0 / (1.0 + std::exp(-x)); }
// tanh keeps the sign of zero and gives +-1 at +-inf, as the spec's table requires.
double tanhFn(double x) { return std::tanh(x); }

// 2.4.2 ERF
Status erfKernel(KernelContext& ctx, const Inputs& in, Outputs& out) { return unaryFloatKernel(ctx, in, out, erfFn); }
// 2.4.3 SIGMOID
Status sigmoidKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  return unaryFloatKernel(ctx, in, out, sigmoidFn);
}
// 2.4.4 TANH
Status tanhKernel(KernelContext& ctx, const Inputs& in, Outputs& out) { return unaryFloatKernel(ctx, in, out, tanhFn); }

}  // namespace

void registerActivationFunctions(KernelRegistry& r) {
  r.add("tosa.clamp", clampKernel);
  r.add("tosa.erf", erfKernel);
  r.add("tosa.sigmoid", sigmoidKernel);
  r.add("tosa.tanh", tanhKernel);
}

}  // namespace tosakit::ref
