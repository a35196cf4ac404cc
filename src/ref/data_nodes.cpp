// Spec section 2.14 Data nodes: CONST, IDENTITY.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

// 2.14.1 CONST: output = values.
Status constKernel(KernelContext& ctx, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  const ir::Attribute* values = ctx.op.attr("values");
  if (!values || values->kind != ir::Attribute::Kind::Tensor || !values->tensor)
    return ctx.unsupported("missing 'values' attribute");
  ERROR_IF(values->tensor->dtype() != ctx.dtypeOf(out[0]));
  ERROR_IF(values->tensor->shape() != out[0].shape());
  LEVEL_CHECK(rankWithinLevel(ctx, out[0].rank()));
  out[0] = *values->tensor;
  return Status::ok();
}

// 2.14.2 IDENTITY: output = input1.
Status identityKernel(KernelContext& ctx, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  ERROR_IF(ctx.dtypeOf(*in[0]) != ctx.dtypeOf(out[0]));
  ERROR_IF(in[0]->shape() != out[0].shape());
  LEVEL_CHECK(rankWithinLevel(ctx, in[0]->rank()));
  out[0] = *in[0];
  return Status::ok();
}

}  // namespace

void registerDataNodes(KernelRegistry& r) {
  r.add("tosa.const", constKernel);
  r.add("tosa.identity", identityKernel);
}

}  // namespace tosakit::ref
