// Spec section 2.5 Elementwise binary operators.
#include "ref/elementwise.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

// 2.5.1 ADD
Status addKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = o.dtype();
  if (is_floating_point(t))
    return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
      o.setFloat(i, a.getFloat(i1) + b.getFloat(i2));  // exact sum rounded once to in_out_t
    });
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    o.setInt(i, apply_add_s(ctx, a.getInt(i1), b.getInt(i2), t));
  });
}

// 2.5.16 SUB
Status subKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = o.dtype();
  if (is_floating_point(t))
    return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
      o.setFloat(i, a.getFloat(i1) - b.getFloat(i2));
    });
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    o.setInt(i, apply_sub_s(ctx, a.getInt(i1), b.getInt(i2), t));
  });
}

// 2.5.14 MUL (input3 is the rank-1 i8 shift)
Status mulKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType inT = a.dtype(), outT = o.dtype();
  int64_t shift = in.size() > 2 && in[2]->size() > 0 ? in[2]->getInt(0) : 0;
  if (is_floating_point(outT))
    return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
      o.setFloat(i, a.getFloat(i1) * b.getFloat(i2));  // exact product (<= 2x24 bits) rounded once
    });
  REQUIRE(0 <= shift && shift <= 63);
  REQUIRE(inT == DType::I32 || shift == 0);
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t v1 = a.getInt(i1), v2 = b.getInt(i2);
    if (inT == DType::I32 && shift > 0) {
      int64_t product = v1 * v2;
      int64_t round = int64_t(1) << (shift - 1);
      product = (product + round) >> shift;
      ctx.require(product >= minimum_s(DType::I32) && product <= maximum_s(DType::I32),
                  "product >= minimum_s<i32_t>() && product <= maximum_s<i32_t>()");
      o.setInt(i, product);
    } else {
      o.setInt(i, apply_mul_s(v1, v2, outT));
    }
  });
}

}  // namespace

void registerElementwiseBinary(KernelRegistry& r) {
  r.add("tosa.add", addKernel);
  r.add("tosa.sub", subKernel);
  r.add("tosa.mul", mulKernel);
}

}  // namespace tosakit::ref
