#include "ref/elementwise.h"

#include <string>

namespace tosakit::ref {

namespace {
// Offset of the broadcast source element for output index `index`.
int64_t broadcastOffset(const Shape& outShape, const Shape& inShape, const Shape& index) {
  int64_t off = 0;
  for (size_t d = 0; d < outShape.size(); ++d) off = off * inShape[d] + (inShape[d] == 1 ? 0 : index[d]);
  return off;
}
void increment(Shape& index, const Shape& shape) {
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (++index[size_t(d)] < shape[size_t(d)]) return;
    index[size_t(d)] = 0;
  }
}
}  // namespace

Status forEachBinary(KernelContext& ctx, const Tensor& in1, const Tensor& in2, const Tensor& out,
                     const std::function<void(int64_t, int64_t, int64_t)>& fn) {
  const Shape& shape = out.shape();
  LEVEL_CHECK(int64_t(shape.size()) <= ctx.level.maxRank);
  ERROR_IF(in1.rank() != in2.rank());
  Shape broadcast = broadcast_shape(ctx, in1.shape(), in2.shape());
  if (ctx.failed()) return ctx.result();  // broadcast_shape's own ERROR_IF held: no element loop
  if (shape != broadcast) return ctx.errorIf("shape != broadcast_shape(shape1, shape2)");
  Shape index(shape.size(), 0);
  for (int64_t o = 0; o < out.size(); ++o, increment(index, shape))
    fn(o, broadcastOffset(shape, in1.shape(), index), broadcastOffset(shape, in2.shape(), index));
  return Status::ok();
}

Status forEachTernary(KernelContext& ctx, const Tensor& in1, const Tensor& in2, const Tensor& in3, const Tensor& out,
                      const std::function<void(int64_t, int64_t, int64_t, int64_t)>& fn) {
  const Shape& shape = out.shape();
  LEVEL_CHECK(int64_t(shape.size()) <= ctx.level.maxRank);
  ERROR_IF(in1.rank() != in2.rank() || in1.rank() != in3.rank());
  Shape broadcast = broadcast_shape(ctx, broadcast_shape(ctx, in1.shape(), in2.shape()), in3.shape());
  if (ctx.failed()) return ctx.result();
  if (shape != broadcast) return ctx.errorIf("shape != broadcast_shape(broadcast_shape(shape1, shape2), shape3)");
  Shape index(shape.size(), 0);
  for (int64_t o = 0; o < out.size(); ++o, increment(index, shape))
    fn(o, broadcastOffset(shape, in1.shape(), index), broadcastOffset(shape, in2.shape(), index),
       broadcastOffset(shape, in3.shape(), index));
  return Status::ok();
}

Status checkUnary(KernelContext& ctx, const Tensor& in, const Tensor& out) {
  LEVEL_CHECK(int64_t(out.rank()) <= ctx.level.maxRank);
  ERROR_IF(out.shape() != in.shape());
  return Status::ok();
}

bool isOneOf(DType t, std::initializer_list<DType> types) {
  for (DType x : types)
    if (x == t) return true;
  return false;
}

Kernel withArity(int numInputs, int numOutputs, Kernel k) {
  return [numInputs, numOutputs, k](KernelContext& ctx, const std::vector<const Tensor*>& in,
                                    std::vector<Tensor>& out) -> Status {
    bool inOk = numInputs < 0 || int(in.size()) == numInputs;
    if (!inOk || int(out.size()) != numOutputs)
      return dtypeError(ctx,
                        "expected " + (numInputs < 0 ? std::string("any number of") : std::to_string(numInputs)) +
                            " operand(s) and " + std::to_string(numOutputs) + " result(s), got " +
                            std::to_string(in.size()) + " and " + std::to_string(out.size()));
    for (const Tensor* t : in)
      if (!t) return Status::internal(ctx.op.describe() + ": missing operand tensor");
    return k(ctx, in, out);
  };
}

Status dtypeError(const KernelContext& ctx, const std::string& why) {
  return Status::specError(SpecVerdict{ctx.op.name, ctx.op.loc.toString(), why});
}

Status checkInOut(KernelContext& ctx, const std::vector<const Tensor*>& tensors, DType t,
                  std::initializer_list<DType> rows) {
  auto typeError = [&](const std::string& why) { return dtypeError(ctx, why); };
  for (const Tensor* x : tensors)
    if (ctx.dtypeOf(*x) != t)
      return typeError("operand type " + std::string(dtypeName(ctx.dtypeOf(*x))) + " differs from output type " +
                       std::string(dtypeName(t)));
  if (!isOneOf(t, rows)) return typeError("type " + std::string(dtypeName(t)) + " is not in the supported data types");
  return Status::ok();
}

}  // namespace tosakit::ref
