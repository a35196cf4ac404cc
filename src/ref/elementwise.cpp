#include "ref/elementwise.h"

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
  ERROR_IF(shape != broadcast_shape(ctx, in1.shape(), in2.shape()));
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
  ERROR_IF(shape != broadcast_shape(ctx, broadcast_shape(ctx, in1.shape(), in2.shape()), in3.shape()));
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

}  // namespace tosakit::ref
