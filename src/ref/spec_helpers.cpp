#include "ref/spec_helpers.h"

namespace tosakit::ref {

bool is_floating_point(DType t) {
  return t == DType::FP16 || t == DType::FP32 || t == DType::BF16 || t == DType::FP8E4M3 || t == DType::FP8E5M2;
}

int64_t tensor_size(KernelContext& ctx, const Shape& shape) {
  int64_t size = 1;
  for (int64_t d : shape) {
    if (!ctx.require(1 <= d && d <= std::numeric_limits<int64_t>::max() / size,
                     "1 <= shape[i] && shape[i] <= maximum<tensor_size_t> / size"))
      return 0;
    size *= d;
  }
  return size;
}

int64_t tensor_index_to_offset(KernelContext& ctx, const Shape& shape, const Shape& index) {
  int64_t offset = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!ctx.require(index[i] >= 0 && index[i] < shape[i], "index[i] >= 0 && index[i] < shape[i]")) return 0;
    offset = offset * shape[i] + index[i];
  }
  return offset;
}

Shape tensor_offset_to_index(const Shape& shape, int64_t offset) {
  Shape index(shape.size());
  for (int i = int(shape.size()) - 1; i >= 0; --i) {
    index[size_t(i)] = offset % shape[size_t(i)];
    offset /= shape[size_t(i)];
  }
  return index;
}

int64_t shape_dim(const Shape& shape, int axis) { return axis >= int(shape.size()) ? 1 : shape[size_t(axis)]; }

Shape broadcast_shape(KernelContext& ctx, const Shape& shape1, const Shape& shape2) {
  if (!ctx.errorIfDeferred(shape1.size() != shape2.size(), "rank(shape1) != rank(shape2)")) return shape1;
  Shape shape = shape1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1)
      shape[i] = shape2[i];
    else if (!ctx.errorIfDeferred(shape2[i] != 1 && shape2[i] != shape[i], "shape2[i] != 1 && shape2[i] != shape[i]"))
      return shape;
  }
  return shape;
}

Shape apply_broadcast(const Shape& outShape, const Shape& inShape, Shape index) {
  for (size_t i = 0; i < outShape.size(); ++i)
    if (outShape[i] != inShape[i]) index[i] = 0;
  return index;
}

int64_t apply_add_s(KernelContext& ctx, int64_t a, int64_t b, DType t) {
  int64_t c = a + b;
  ctx.require(c >= minimum_s(t) && c <= maximum_s(t), "c >= minimum_s<in_t>() && c <= maximum_s<in_t>()");
  return truncate_to(c, t);
}
int64_t apply_add_u(KernelContext& ctx, int64_t a, int64_t b, DType t) {
  int64_t c = zero_extend(a, t) + zero_extend(b, t);
  ctx.require(c >= minimum_u(t) && c <= maximum_u(t), "c >= minimum_u<in_t>() && c <= maximum_u<in_t>()");
  return zero_extend(c, t);
}
int64_t apply_sub_s(KernelContext& ctx, int64_t a, int64_t b, DType t) {
  int64_t c = a - b;
  ctx.require(c >= minimum_s(t) && c <= maximum_s(t), "c >= minimum_s<in_t>() && c <= maximum_s<in_t>()");
  return truncate_to(c, t);
}
int64_t apply_sub_u(KernelContext& ctx, int64_t a, int64_t b, DType t) {
  int64_t c = zero_extend(a, t) - zero_extend(b, t);
  ctx.require(c >= minimum_u(t) && c <= maximum_u(t), "c >= minimum_u<in_t>() && c <= maximum_u<in_t>()");
  return zero_extend(c, t);
}
int64_t apply_mul_s(int64_t a, int64_t b, DType t) { return truncate_to(int64_t(uint64_t(a) * uint64_t(b)), t); }
int64_t apply_intdiv_s(KernelContext& ctx, int64_t a, int64_t b, DType t) {
  if (b == 0) {
    ctx.require(false, "input2 != 0");
    return 0;
  }
  int64_t c = a / b;
  ctx.require(c >= minimum_s(t) && c <= maximum_s(t), "c >= minimum_s<in_t>() && c <= maximum_s<in_t>()");
  return truncate_to(c, t);
}
int64_t apply_arith_rshift(int64_t a, int64_t b, DType t) {
  int32_t c = int32_t(a) >> int32_t(b);
  return truncate_to(c, t);
}
int64_t apply_logical_rshift(int64_t a, int64_t b, DType t) {
  uint64_t c = uint64_t(uint32_t(zero_extend(a, t))) >> uint32_t(b);
  return truncate_to(int64_t(c), t);
}
int32_t count_leading_zeros(int32_t a) {
  int32_t acc = 32;
  if (a != 0) {
    uint32_t mask = 1u << 31;
    acc = 0;
    while ((mask & uint32_t(a)) == 0) {
      mask >>= 1;
      acc++;
    }
  }
  return acc;
}

NanMode parseNanMode(const ir::Operation& op) {
  return op.strAttr("nan_mode", "PROPAGATE") == "IGNORE" ? NanMode::Ignore : NanMode::Propagate;
}
double compare_nan(double a, double b, NanMode mode) {
  if (mode == NanMode::Propagate) return std::numeric_limits<double>::quiet_NaN();
  return isNaN(a) ? b : a;
}
double apply_max_f(double a, double b, NanMode mode) {
  if (isNaN(a) || isNaN(b)) return compare_nan(a, b, mode);
  return a >= b ? a : b;
}
double apply_min_f(double a, double b, NanMode mode) {
  if (isNaN(a) || isNaN(b)) return compare_nan(a, b, mode);
  return a < b ? a : b;
}
int64_t apply_max_s(int64_t a, int64_t b) { return a >= b ? a : b; }
int64_t apply_min_s(int64_t a, int64_t b) { return a < b ? a : b; }
double apply_clip_f(KernelContext& ctx, double value, double minVal, double maxVal, NanMode mode) {
  ctx.require(minVal <= maxVal, "min_val <= max_val");
  ctx.require(!isNaN(minVal) && !isNaN(maxVal), "!isNaN(min_val) && !isNaN(max_val)");
  value = apply_max_f(value, minVal, mode);
  value = apply_min_f(value, maxVal, mode);
  return value;
}
int64_t apply_clip_s(KernelContext& ctx, int64_t value, int64_t minVal, int64_t maxVal) {
  ctx.require(minVal <= maxVal, "sign_extend<int64_t>(min_val) <= sign_extend<int64_t>(max_val)");
  return apply_min_s(apply_max_s(value, minVal), maxVal);
}
int64_t apply_clip_u(KernelContext& ctx, int64_t value, int64_t minVal, int64_t maxVal) {
  ctx.require(minVal <= maxVal, "zero_extend<int64_t>(min_val) <= zero_extend<int64_t>(max_val)");
  return apply_min_s(apply_max_s(value, minVal), maxVal);
}
double apply_log(double v) {
  if (v == 0) return -std::numeric_limits<double>::infinity();
  if (v < 0) return std::numeric_limits<double>::quiet_NaN();
  return std::log(v);
}

int64_t idiv_floor(int64_t a, int64_t b) {
  int64_t r = a / b;
  if (r * b > a) r--;
  return r;
}
int64_t idiv_check(KernelContext& ctx, int64_t a, int64_t b) {
  if (!ctx.errorIfDeferred(b == 0 || a % b != 0, "input1 % input2 != 0")) return 0;
  return a / b;
}

int32_t apply_scale_32(KernelContext& ctx, int32_t value, int32_t multiplier, int8_t shift, bool doubleRound) {
  ctx.require(multiplier >= 0, "multiplier >= 0");
  if (!ctx.require(2 <= shift && shift <= 62, "2 <= shift && shift <= 62")) return 0;
  ctx.require(value >= -(int64_t(1) << (shift - 1)) && value < (int64_t(1) << (shift - 1)),
              "value >= (-1 << (shift - 1)) && value < (1 << (shift - 1))");
  int64_t round = int64_t(1) << (shift - 1);
  if (doubleRound) {
    if (shift > 31 && value >= 0) round += int64_t(1) << 30;
    if (shift > 31 && value < 0) round -= int64_t(1) << 30;
  }
  int64_t result = int64_t(value) * multiplier + round;
  result >>= shift;
  return int32_t(result);
}

int32_t apply_scale_16(KernelContext& ctx, int64_t value, int16_t multiplier, int8_t shift) {
  ctx.require(multiplier >= 0, "multiplier >= 0");
  if (!ctx.require(2 <= shift && shift <= 62, "2 <= shift && shift <= 62")) return 0;
  int64_t round = int64_t(1) << (shift - 1);
  int64_t result = value * multiplier + round;
  result >>= shift;
  ctx.require(result >= std::numeric_limits<int32_t>::min() && result <= std::numeric_limits<int32_t>::max(),
              "result >= minimum<int32_t> && result <= maximum<int32_t>");
  return int32_t(result);
}

scale_t reciprocal_scale(KernelContext& ctx, uint32_t value) {
  scale_t scale{0, 0};
  if (!ctx.require(value > 0, "value > 0")) return scale;
  int32_t k = 32 - count_leading_zeros(int32_t(value - 1));
  int64_t numerator = ((int64_t(1) << 30) + 1) << k;
  scale.multiplier = int32_t(numerator / value);
  scale.shift = int8_t(30 + k);
  return scale;
}

bool rankWithinLevel(const KernelContext& ctx, int rank) { return rank <= ctx.level.maxRank; }

}  // namespace tosakit::ref
