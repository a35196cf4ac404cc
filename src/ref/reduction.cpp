// Spec section 2.9 Reduction operators: REDUCE_ALL/ANY/MAX/MIN/PRODUCT/SUM along one axis.
// The pseudocode splits the shape into left_shape, the axis and right_shape; here `outer` and `inner` are
// the element counts of left_shape and right_shape. (The spec text writes left_shape as shape[0:axis-1] only
// when axis > 1; for axis == 1 the left part is shape[0:0], which is what is iterated here.)
#include <limits>
#include <string>

#include "ref/elementwise.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

enum class Reduce { All, Any, Max, Min, Product, Sum };

// Shape checks shared by all reductions. Besides the spec's two ERROR_IFs, the output must have the input's
// rank and the input's dimensions outside the axis ("Same rank as the input tensor"; shape[axis] is 1).
Status checkReduce(KernelContext& ctx, const Tensor& input, const Tensor& output, int64_t axis) {
  const Shape &shape1 = input.shape(), &shape = output.shape();
  LEVEL_CHECK(int64_t(shape1.size()) <= ctx.level.maxRank);
  ERROR_IF(axis < 0 || axis >= int64_t(shape1.size()));
  ERROR_IF(shape.size() != shape1.size());
  ERROR_IF(shape[size_t(axis)] != 1);
  for (size_t d = 0; d < shape.size(); ++d)
    if (int64_t(d) != axis && shape[d] != shape1[d]) return ctx.errorIf("shape[i] != shape1[i] for i != axis");
  return Status::ok();
}

Status reduceKernel(KernelContext& ctx, const Inputs& in, Outputs& out, Reduce op) {
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  DType t = ctx.dtypeOf(output);
  switch (op) {
    case Reduce::All:
    case Reduce::Any: TK_RETURN_IF_ERROR(checkInOut(ctx, {&input}, t, {DType::Bool})); break;
    case Reduce::Max:
    case Reduce::Min:
      TK_RETURN_IF_ERROR(
          checkInOut(ctx, {&input}, t, {DType::FP16, DType::FP32, DType::I16, DType::I32, DType::I8, DType::BF16}));
      break;
    case Reduce::Product:
      TK_RETURN_IF_ERROR(checkInOut(ctx, {&input}, t, {DType::FP16, DType::FP32, DType::BF16}));
      break;
    case Reduce::Sum:
      TK_RETURN_IF_ERROR(checkInOut(ctx, {&input}, t, {DType::FP16, DType::FP32, DType::I32, DType::BF16}));
      break;
  }
  int64_t axis = ctx.op.intAttr("axis", -1);
  TK_RETURN_IF_ERROR(checkReduce(ctx, input, output, axis));
  const Shape& shape1 = input.shape();
  int64_t outer = 1, inner = 1, axisSize = shape1[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d) outer *= shape1[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < shape1.size(); ++d) inner *= shape1[d];

  bool isFloat = is_floating_point(t);
  NanMode nanMode = parseNanMode(ctx.op);
  // REDUCE_SUM accumulates in acc_t: bf16 sums in fp32, the other rows in in_out_t itself.
  DType accT = t == DType::BF16 ? DType::FP32 : t;
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t l = 0; l < outer; ++l) {
    for (int64_t r = 0; r < inner; ++r) {
      int64_t outOffset = l * inner + r;
      auto inOffset = [&](int64_t i) { return (l * axisSize + i) * inner + r; };
      if (op == Reduce::All || op == Reduce::Any) {
        bool acc = op == Reduce::All;
        for (int64_t i = 0; i < axisSize; ++i) {
          bool value = input.getInt(inOffset(i)) != 0;
          acc = op == Reduce::All ? (acc && value) : (acc || value);
        }
        output.setInt(outOffset, acc ? 1 : 0);
      } else if ((op == Reduce::Max || op == Reduce::Min) && isFloat) {
        // acc starts at NaN for IGNORE (the first non-NaN value replaces it), else at the extreme value.
        double acc =
            nanMode == NanMode::Ignore ? std::numeric_limits<double>::quiet_NaN() : (op == Reduce::Max ? -inf : inf);
        for (int64_t i = 0; i < axisSize; ++i) {
          double value = input.getFloat(inOffset(i));
          acc = op == Reduce::Max ? apply_max_f(acc, value, nanMode) : apply_min_f(acc, value, nanMode);
        }
        output.setFloat(outOffset, acc);
      } else if (op == Reduce::Max || op == Reduce::Min) {
        int64_t acc = op == Reduce::Max ? minimum_s(t) : maximum_s(t);
        for (int64_t i = 0; i < axisSize; ++i) {
          int64_t value = input.getInt(inOffset(i));
          acc = op == Reduce::Max ? apply_max_s(acc, value) : apply_min_s(acc, value);
        }
        output.setInt(outOffset, acc);
      } else if (op == Reduce::Product) {
        double acc = 1.0;  // in_out_t: each product is rounded to the element format
        for (int64_t i = 0; i < axisSize; ++i) acc = ctx.roundFloat(t, acc * input.getFloat(inOffset(i)));
        output.setFloat(outOffset, acc);
      } else if (isFloat) {  // Sum, floating point
        double acc = 0;
        for (int64_t i = 0; i < axisSize; ++i) acc = ctx.roundFloat(accT, acc + input.getFloat(inOffset(i)));
        output.setFloat(outOffset, acc);  // static_cast<in_out_t>(acc)
      } else {                            // Sum, i32
        int64_t acc = 0;
        for (int64_t i = 0; i < axisSize; ++i) acc = apply_add_s(ctx, acc, input.getInt(inOffset(i)), accT);
        output.setInt(outOffset, acc);
      }
    }
  }
  return Status::ok();
}

}  // namespace

void registerReduction(KernelRegistry& r) {
  struct Entry {
    const char* name;
    Reduce op;
  };
  for (Entry e : {Entry{"tosa.reduce_all", Reduce::All}, Entry{"tosa.reduce_any", Reduce::Any},
                  Entry{"tosa.reduce_max", Reduce::Max}, Entry{"tosa.reduce_min", Reduce::Min},
                  Entry{"tosa.reduce_product", Reduce::Product}, Entry{"tosa.reduce_sum", Reduce::Sum}}) {
    Reduce op = e.op;
    r.add(e.name,
          withArity(1, 1, [op](KernelContext& c, const Inputs& i, Outputs& o) { return reduceKernel(c, i, o, op); }));
  }
}

}  // namespace tosakit::ref
