// The spec's general pseudocode helpers (section 4.4 and 4.5), on runtime-typed values: integers travel as
// int64_t with the element DType saying how wide they are; floats as double rounded to the element format.
// REQUIREs inside helpers are recorded in the KernelContext (see KernelContext::require).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/numeric.h"
#include "core/tensor.h"
#include "ref/kernel.h"

namespace tosakit::ref {

// ---- 4.5.4 numeric conversion ----
inline int64_t sign_extend(int64_t v, DType t) { return signExtend(v, bitWidth(t)); }
inline int64_t zero_extend(int64_t v, DType t) { return zeroExtend(v, bitWidth(t)); }
// Two's complement truncation to t, returned sign-extended (signed/signless t) or zero-extended (unsigned t).
inline int64_t truncate_to(int64_t v, DType t) {
  return isUnsigned(t) || t == DType::Bool ? zeroExtend(v, bitWidth(t)) : signExtend(v, bitWidth(t));
}
inline int64_t maximum_s(DType t) { return t == DType::Bool ? 1 : (int64_t(1) << (bitWidth(t) - 1)) - 1; }
inline int64_t minimum_s(DType t) { return t == DType::Bool ? 0 : -(int64_t(1) << (bitWidth(t) - 1)); }
inline int64_t maximum_u(DType t) { return int64_t((uint64_t(1) << bitWidth(t)) - 1); }
inline int64_t minimum_u(DType) { return 0; }
inline bool isNaN(double v) { return std::isnan(v); }
inline bool isInf(double v) { return std::isinf(v); }
// Round to the element format of t (the spec's round_to_nearest_float into t).
inline double round_to(DType t, double v) { return roundToFloat(t, v); }
bool is_floating_point(DType t);

// ---- 4.4 tensor utilities ----
// tensor_size with its REQUIRE; offsets and indices as the spec defines them.
int64_t tensor_size(KernelContext& ctx, const Shape& shape);
int64_t tensor_index_to_offset(KernelContext& ctx, const Shape& shape, const Shape& index);
Shape tensor_offset_to_index(const Shape& shape, int64_t offset);
int64_t shape_dim(const Shape& shape, int axis);
// broadcast_shape / apply_broadcast (ERROR_IFs recorded in ctx).
Shape broadcast_shape(KernelContext& ctx, const Shape& shape1, const Shape& shape2);
Shape apply_broadcast(const Shape& outShape, const Shape& inShape, Shape index);

// ---- 4.5.1 arithmetic (integers as int64 of type t) ----
int64_t apply_add_s(KernelContext& ctx, int64_t a, int64_t b, DType t);
int64_t apply_add_u(KernelContext& ctx, int64_t a, int64_t b, DType t);
int64_t apply_sub_s(KernelContext& ctx, int64_t a, int64_t b, DType t);
int64_t apply_sub_u(KernelContext& ctx, int64_t a, int64_t b, DType t);
int64_t apply_mul_s(int64_t a, int64_t b, DType t);  // wraps (static_cast to t)
int64_t apply_intdiv_s(KernelContext& ctx, int64_t a, int64_t b, DType t);
int64_t apply_arith_rshift(int64_t a, int64_t b, DType t);
int64_t apply_logical_rshift(int64_t a, int64_t b, DType t);
int32_t count_leading_zeros(int32_t a);

enum class NanMode { Propagate, Ignore };
NanMode parseNanMode(const ir::Operation& op);  // the op's nan_mode attribute, PROPAGATE when absent
double compare_nan(double a, double b, NanMode mode);
double apply_max_f(double a, double b, NanMode mode = NanMode::Propagate);
double apply_min_f(double a, double b, NanMode mode = NanMode::Propagate);
int64_t apply_max_s(int64_t a, int64_t b);
int64_t apply_min_s(int64_t a, int64_t b);
double apply_clip_f(KernelContext& ctx, double value, double minVal, double maxVal, NanMode mode);
int64_t apply_clip_s(KernelContext& ctx, int64_t value, int64_t minVal, int64_t maxVal);
int64_t apply_clip_u(KernelContext& ctx, int64_t value, int64_t minVal, int64_t maxVal);
double apply_log(double v);

// ---- 4.5.4 ----
int64_t idiv_floor(int64_t a, int64_t b);
// idiv_check: ERROR_IF(a % b != 0) recorded in ctx.
int64_t idiv_check(KernelContext& ctx, int64_t a, int64_t b);

// ---- 4.5.5 scaling ----
int32_t apply_scale_32(KernelContext& ctx, int32_t value, int32_t multiplier, int8_t shift, bool doubleRound = false);
int32_t apply_scale_16(KernelContext& ctx, int64_t value, int16_t multiplier, int8_t shift);
struct scale_t {
  int32_t multiplier;
  int8_t shift;
};
scale_t reciprocal_scale(KernelContext& ctx, uint32_t value);

// ---- level and shape checks shared by many operators ----
// The rank and shape of every input/output tensor must satisfy LEVEL_CHECK(rank <= MAX_RANK).
bool rankWithinLevel(const KernelContext& ctx, int rank);

}  // namespace tosakit::ref
