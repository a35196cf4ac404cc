// Spec section 2.7 Elementwise ternary operators: SELECT.
#include <string>

#include "ref/elementwise.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

// 2.7.1 SELECT: output = input1 ? input2 : input3. Values are copied as stored bits (exact for every type).
Status selectKernel(KernelContext& ctx, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
  const Tensor &cond = *in[0], &a = *in[1], &b = *in[2];
  Tensor& o = out[0];
  if (ctx.dtypeOf(cond) != DType::Bool)
    return dtypeError(ctx, "input1 has type " + std::string(dtypeName(ctx.dtypeOf(cond))) + ", expected bool");
  TK_RETURN_IF_ERROR(
      checkInOut(ctx, {&a, &b}, ctx.dtypeOf(o),
                 {DType::FP16, DType::FP32, DType::Bool, DType::I16, DType::I32, DType::I8, DType::BF16}));
  return forEachTernary(ctx, cond, a, b, o, [&](int64_t i, int64_t i1, int64_t i2, int64_t i3) {
    bool value1 = cond.getInt(i1) != 0;
    o.setInt(i, value1 ? a.getInt(i2) : b.getInt(i3));
  });
}

}  // namespace

void registerElementwiseTernary(KernelRegistry& r) { r.add("tosa.select", withArity(3, 1, selectKernel)); }

}  // namespace tosakit::ref
