// Shared loop of the elementwise operators: for_each_data_position over the output with broadcasting,
// exactly as the pseudocode of sections 2.5-2.8 writes it; plus the small shape/type/arity checks shared by
// the kernels of sections 2.5-2.11.
#pragma once
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "ref/spec_helpers.h"

namespace tosakit::ref {

// Calls fn(outOffset, offset1, offset2) for every output position; checks
// ERROR_IF(shape != broadcast_shape(shape1, shape2)) and LEVEL_CHECK(rank(shape) <= MAX_RANK).
Status forEachBinary(KernelContext& ctx, const Tensor& in1, const Tensor& in2, const Tensor& out,
                     const std::function<void(int64_t, int64_t, int64_t)>& fn);
// Same for three inputs (SELECT).
Status forEachTernary(KernelContext& ctx, const Tensor& in1, const Tensor& in2, const Tensor& in3, const Tensor& out,
                      const std::function<void(int64_t, int64_t, int64_t, int64_t)>& fn);

// Checks of the elementwise unary operators (2.6) and TABLE: LEVEL_CHECK(rank(shape) <= MAX_RANK) and that the
// declared output has the input's shape (both are `shape` in the spec's argument table).
Status checkUnary(KernelContext& ctx, const Tensor& in, const Tensor& out);

// true when t is one of the listed types (the rows of a Supported Data Types table).
bool isOneOf(DType t, std::initializer_list<DType> types);
// Wraps a kernel with a check of its operand and result counts (numInputs < 0: variadic, any count), so a
// malformed graph gives a one-line error instead of an out-of-range access.
Kernel withArity(int numInputs, int numOutputs, Kernel k);

// A type outside the operator's Supported Data Types table makes the graph invalid: reported like an ERROR_IF
// (StatusCode::SpecError) with `why` as the condition.
Status dtypeError(const KernelContext& ctx, const std::string& why);
// Every tensor of an in_out_t operator has element type t, and t is one of the table's rows; otherwise a
// dtypeError naming the op and the type.
Status checkInOut(KernelContext& ctx, const std::vector<const Tensor*>& tensors, DType t,
                  std::initializer_list<DType> rows);

}  // namespace tosakit::ref
