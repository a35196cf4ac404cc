// Spec section 2.15 Custom operators: CUSTOM.
//
// Only the spec's checks live here. The behaviour is implementation defined: the reference backend runs the
// implementation registered with Backend::registerCustomOp (see interpreter.cpp), after these checks pass.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

// 2.15.1 CUSTOM
Status customChecks(KernelContext& ctx, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  const int64_t MAX_TENSOR_LIST_SIZE = ctx.level.maxTensorListSize;
  LEVEL_CHECK(int64_t(in.size()) <= MAX_TENSOR_LIST_SIZE);   // tensor_list_shape(input_list)
  LEVEL_CHECK(int64_t(out.size()) <= MAX_TENSOR_LIST_SIZE);  // tensor_list_shape(output_list)
  return Status::ok();
}

}  // namespace

void registerCustom(KernelRegistry& r) { r.add("tosa.custom", customChecks); }

}  // namespace tosakit::ref
