#include "ref/tensor_operators_helpers.h"

#include <limits>

namespace tosakit::ref::tensorops {

Status checkArity(KernelContext& ctx, const Inputs& in, const Outputs& out, size_t nIn, size_t nOut) {
  if (in.size() != nIn)
    return errorIf(
        ctx, "operator input list has " + std::to_string(in.size()) + " tensors, expected " + std::to_string(nIn));
  if (out.size() != nOut)
    return errorIf(
        ctx, "operator output list has " + std::to_string(out.size()) + " tensors, expected " + std::to_string(nOut));
  return Status::ok();
}

Status checkRank(KernelContext& ctx, const Tensor& t, int rank, const char* name) {
  if (t.rank() != rank)
    return errorIf(
        ctx,
        std::string("rank(") + name + ") != " + std::to_string(rank) + " (shape " + shapeToString(t.shape()) + ")");
  return Status::ok();
}

Status checkDim(KernelContext& ctx, const Tensor& t, int dim, int64_t expected, const char* what) {
  if (t.shape()[size_t(dim)] != expected)
    return errorIf(
        ctx,
        std::string(what) + " (" + std::to_string(t.shape()[size_t(dim)]) + " != " + std::to_string(expected) + ")");
  return Status::ok();
}

Status intArrayAttr(KernelContext& ctx, const char* name, size_t size, std::vector<int64_t>& values) {
  const ir::Attribute* a = ctx.op.attr(name);
  if (!a || a->kind != ir::Attribute::Kind::IntArray || a->ints.size() != size)
    return errorIf(ctx,
                   std::string("attribute ") + name + " must be an array of " + std::to_string(size) + " integers");
  // The argument tables declare these attributes T<i32_t>; keeping them in i32 range also keeps every
  // product the pseudocode forms (e.g. (KH - 1) * dilation_y) exact in int64.
  for (int64_t v : a->ints)
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      return errorIf(ctx,
                     std::string("attribute ") + name + " element " + std::to_string(v) + " is outside the i32 range");
  values = a->ints;
  return Status::ok();
}

Status accTypeAttr(KernelContext& ctx, DType& accT) {
  const ir::Attribute* a = ctx.op.attr("acc_type");
  if (!a || a->kind != ir::Attribute::Kind::Type) return ctx.errorIf("acc_type attribute missing or not a type");
  accT = a->dtype;
  return Status::ok();
}

Status readZeroPoint(KernelContext& ctx, const Tensor& zp, DType t, const char* name, ZeroPoint& out) {
  if (ctx.dtypeOf(zp) != t)
    return errorIf(ctx,
                   std::string("dtype(") + name + ") " + std::string(dtypeName(ctx.dtypeOf(zp))) +
                       " != " + std::string(dtypeName(t)));
  if (zp.shape() != Shape{1})
    return errorIf(ctx, std::string("shape(") + name + ") != [1] (shape " + shapeToString(zp.shape()) + ")");
  if (isFloat(t)) {
    out.value = 0;
    out.nonZero = zp.getFloat(0) != 0.0 || std::isnan(zp.getFloat(0));
  } else {
    out.value = zp.getInt(0);
    out.nonZero = out.value != 0;
  }
  return Status::ok();
}

double roundToSlow(DType t, double v) { return roundToFloat(t, v); }

double lowestFloat(DType t) {
  if (t == DType::FP8E4M3) return -448.0;
  return -std::numeric_limits<double>::infinity();
}

}  // namespace tosakit::ref::tensorops
