// Shared loop of the elementwise operators: for_each_data_position over the output with broadcasting,
// exactly as the pseudocode of sections 2.5-2.8 writes it.
#pragma once
#include <functional>
#include <initializer_list>

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

}  // namespace tosakit::ref
