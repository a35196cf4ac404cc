// Spec section 2.8 Comparison operators: EQUAL, GREATER, GREATER_EQUAL. Any NaN operand gives false.
#include <string>

#include "ref/elementwise.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

enum class Cmp { Equal, Greater, GreaterEqual };

// Floats compare as doubles (NaN compares false), integers as int64.
template <class T>
bool compare(Cmp c, T a, T b) {
  switch (c) {
    case Cmp::Equal: return a == b;
    case Cmp::Greater: return a > b;
    case Cmp::GreaterEqual: return a >= b;
  }
  return false;
}

Status compareKernel(KernelContext& ctx, const std::vector<const Tensor*>& in, std::vector<Tensor>& out, Cmp c) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(a);
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&b}, t, {DType::FP16, DType::FP32, DType::I32, DType::BF16}));
  if (ctx.dtypeOf(o) != DType::Bool)
    return dtypeError(ctx, "output has type " + std::string(dtypeName(ctx.dtypeOf(o))) + ", expected bool");
  if (is_floating_point(t))
    return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
      double value1 = a.getFloat(i1), value2 = b.getFloat(i2);
      bool result = (isNaN(value1) || isNaN(value2)) ? false : compare(c, value1, value2);
      o.setInt(i, result ? 1 : 0);
    });
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    o.setInt(i, compare(c, a.getInt(i1), b.getInt(i2)) ? 1 : 0);
  });
}

}  // namespace

void registerComparison(KernelRegistry& r) {
  using Inputs = std::vector<const Tensor*>;
  using Outputs = std::vector<Tensor>;
  r.add("tosa.equal", withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) {
          return compareKernel(c, i, o, Cmp::Equal);
        }));
  r.add("tosa.greater", withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) {
          return compareKernel(c, i, o, Cmp::Greater);
        }));
  r.add("tosa.greater_equal", withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) {
          return compareKernel(c, i, o, Cmp::GreaterEqual);
        }));
}

}  // namespace tosakit::ref
