// Spec section 2.18 Shape operators: CONST_SHAPE.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

// 2.18.1 CONST_SHAPE: output = values. A !tosa.shape<N> value travels as a rank-1 I64 tensor of N elements
// (tensor_size_t); the attribute is a dense index tensor (or an integer array).
Status constShapeKernel(KernelContext& ctx, const std::vector<const Tensor*>&, std::vector<Tensor>& out) {
  const ir::Attribute* values = ctx.op.attr("values");
  if (!values) return ctx.unsupported("missing 'values' attribute");
  std::vector<int64_t> v;
  if (values->kind == ir::Attribute::Kind::Tensor && values->tensor) {
    ERROR_IF(values->tensor->rank() > 1);  // shape_t is a list of values
    v = values->tensor->toInts();
  } else if (values->kind == ir::Attribute::Kind::IntArray) {
    v = values->ints;
  } else {
    return ctx.unsupported("'values' must be a dense index tensor");
  }
  ERROR_IF(out.size() != 1);
  ERROR_IF(out[0].rank() != 1 || out[0].size() != int64_t(v.size()));  // output is !tosa.shape<length(values)>
  out[0] = Tensor::fromInts(DType::I64, {int64_t(v.size())}, v);
  return Status::ok();
}

}  // namespace

void registerShapeOperators(KernelRegistry& r) { r.add("tosa.const_shape", constShapeKernel); }

}  // namespace tosakit::ref
