// Spec section 2.5 Elementwise binary operators.
#include <cmath>
#include <string>

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
  DType t = ctx.dtypeOf(o);
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
  DType t = ctx.dtypeOf(o);
  if (is_floating_point(t))
    return forEachBinary(ctx, a, b, o,
                         [&](int64_t i, int64_t i1, int64_t i2) { o.setFloat(i, a.getFloat(i1) - b.getFloat(i2)); });
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    o.setInt(i, apply_sub_s(ctx, a.getInt(i1), b.getInt(i2), t));
  });
}

// 2.5.14 MUL (input3 is the rank-1 i8 shift)
Status mulKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType inT = ctx.dtypeOf(a), outT = ctx.dtypeOf(o);
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

const std::initializer_list<DType> kShiftTypes = {DType::I8, DType::I16, DType::I32};
const std::initializer_list<DType> kMinMaxTypes = {DType::FP16, DType::FP32, DType::I32, DType::BF16};
const std::initializer_list<DType> kPowTypes = {DType::FP16, DType::FP32, DType::BF16};

// REQUIRE of the shift operators: 0 <= value2 <= bit width - 1 of in_out_t (i8: 7, i16: 15, i32: 31).
bool requireShiftInRange(KernelContext& ctx, int64_t value2, DType t) {
  return ctx.require(0 <= value2 && value2 <= bitWidth(t) - 1,
                     "(is_same<in_out_t,i32_t>() && 0 <= value2 && value2 <= 31) || "
                     "(is_same<in_out_t,i16_t>() && 0 <= value2 && value2 <= 15) || "
                     "(is_same<in_out_t,i8_t>() && 0 <= value2 && value2 <= 7)");
}

// 2.5.2 ARITHMETIC_RIGHT_SHIFT
Status arithmeticRightShiftKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, t, kShiftTypes));
  bool round = ctx.op.boolAttr("round", false);
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t value1 = a.getInt(i1), value2 = b.getInt(i2);
    if (!requireShiftInRange(ctx, value2, t)) return;
    int64_t result = apply_arith_rshift(value1, value2, t);
    if (round && value2 > 0 && (apply_arith_rshift(value1, apply_sub_s(ctx, value2, 1, t), t) & 1) != 0)
      result = result + 1;
    o.setInt(i, result);
  });
}

// 2.5.3-2.5.5 BITWISE_AND / BITWISE_OR / BITWISE_XOR
Status bitwiseKernel(KernelContext& ctx, const Inputs& in, Outputs& out, char opChar) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, ctx.dtypeOf(o), kShiftTypes));
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t value1 = a.getInt(i1), value2 = b.getInt(i2);
    int64_t result = opChar == '&' ? (value1 & value2) : opChar == '|' ? (value1 | value2) : (value1 ^ value2);
    o.setInt(i, result);
  });
}

// 2.5.6 INTDIV (truncating division, as C++ `/` on int64)
Status intdivKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, t, {DType::I32}));
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t value1 = a.getInt(i1), value2 = b.getInt(i2);
    if (!ctx.require(value2 != 0, "value2 != 0")) return;
    o.setInt(i, apply_intdiv_s(ctx, value1, value2, t));
  });
}

// 2.5.7 LOGICAL_AND, 2.5.10 LOGICAL_OR, 2.5.11 LOGICAL_XOR (bool_t)
Status logicalKernel(KernelContext& ctx, const Inputs& in, Outputs& out, char opChar) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, ctx.dtypeOf(o), {DType::Bool}));
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    bool value1 = a.getInt(i1) != 0, value2 = b.getInt(i2) != 0;
    bool result = opChar == '&' ? (value1 && value2) : opChar == '|' ? (value1 || value2) : (value1 != value2);
    o.setInt(i, result ? 1 : 0);
  });
}

// 2.5.8 LOGICAL_LEFT_SHIFT: value1 << value2 truncated to in_out_t.
Status logicalLeftShiftKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, t, kShiftTypes));
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t value1 = a.getInt(i1), value2 = b.getInt(i2);
    if (!requireShiftInRange(ctx, value2, t)) return;
    o.setInt(i, truncate_to(int64_t(uint64_t(value1) << value2), t));
  });
}

// 2.5.9 LOGICAL_RIGHT_SHIFT: the shift happens on the zero-extended (unsigned) value.
Status logicalRightShiftKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, t, kShiftTypes));
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t value1 = a.getInt(i1), value2 = b.getInt(i2);
    if (!requireShiftInRange(ctx, value2, t)) return;
    o.setInt(i, apply_logical_rshift(value1, value2, t));
  });
}

// 2.5.12 MAXIMUM / 2.5.13 MINIMUM (nan_mode applies to floating-point types only)
Status minMaxKernel(KernelContext& ctx, const Inputs& in, Outputs& out, bool isMax) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  DType t = ctx.dtypeOf(o);
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, t, kMinMaxTypes));
  NanMode mode = parseNanMode(ctx.op);
  if (is_floating_point(t))
    return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
      double value1 = a.getFloat(i1), value2 = b.getFloat(i2);
      o.setFloat(i, isMax ? apply_max_f(value1, value2, mode) : apply_min_f(value1, value2, mode));
    });
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    int64_t value1 = a.getInt(i1), value2 = b.getInt(i2);
    o.setInt(i, isMax ? apply_max_s(value1, value2) : apply_min_s(value1, value2));
  });
}

// 2.5.15 POW: a ** b computed in double, rounded once to in_out_t.
Status powKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &a = *in[0], &b = *in[1];
  Tensor& o = out[0];
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&a, &b}, ctx.dtypeOf(o), kPowTypes));
  return forEachBinary(ctx, a, b, o, [&](int64_t i, int64_t i1, int64_t i2) {
    double value1 = a.getFloat(i1), value2 = b.getFloat(i2);
    if (!ctx.require(value1 >= 0, "value1 >= 0")) return;
    if (!ctx.require(value1 > 0 || value2 > 0, "value1 > 0 || value2 > 0")) return;
    if (!ctx.require(!isNaN(value1) && !isNaN(value2), "!isNaN(value1) && !isNaN(value2)")) return;
    if (!ctx.require(std::isfinite(value1) && std::isfinite(value2), "is_finite(value1) && is_finite(value2)")) return;
    o.setFloat(i, std::pow(value1, value2));
  });
}

// 1.12.5 apply_lookup_s: 513-entry i16 table, 7-bit interpolation; a 16 + 7 = 23 bit result.
int64_t apply_lookup_s(KernelContext& ctx, const Tensor& table, int64_t value) {
  int64_t clipped_value = apply_clip_s(ctx, value, -32768, 32767);
  int64_t index = (clipped_value + 32768) >> 7;
  int64_t fraction = clipped_value & 0x7f;
  int64_t base = table.getInt(index);
  int64_t next = table.getInt(index + 1);
  int64_t slope = next - base;
  ctx.require(slope >= -32768 && slope <= 32767, "slope >= minimum<int16_t> && slope <= maximum<int16_t>");
  return (base << 7) + slope * fraction;
}

// 2.5.17 TABLE: i8 -> i8 with a 256-entry table; i16 -> i32 with a 513-entry table and interpolation.
Status tableKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &input = *in[0], &table = *in[1];
  Tensor& o = out[0];
  DType inT = ctx.dtypeOf(input);
  int64_t tableSize = 0;
  if (inT == DType::I8 && ctx.dtypeOf(table) == DType::I8 && ctx.dtypeOf(o) == DType::I8)
    tableSize = 256;
  else if (inT == DType::I16 && ctx.dtypeOf(table) == DType::I16 && ctx.dtypeOf(o) == DType::I32)
    tableSize = 513;
  else
    return dtypeError(ctx,
                      "type combination " + std::string(dtypeName(inT)) + " x " +
                          std::string(dtypeName(ctx.dtypeOf(table))) + " -> " + std::string(dtypeName(ctx.dtypeOf(o))) +
                          " is not in the supported data types");
  TK_RETURN_IF_ERROR(checkUnary(ctx, input, o));
  if (table.rank() != 1 || table.size() != tableSize) return ctx.requireFailed("length(table) == TABLE_SIZE");
  for (int64_t i = 0; i < input.size(); ++i) {
    int64_t value = input.getInt(i);
    int64_t result = inT == DType::I8 ? table.getInt(value + 128) : apply_lookup_s(ctx, table, value);
    o.setInt(i, result);
  }
  return Status::ok();
}

}  // namespace

void registerElementwiseBinary(KernelRegistry& r) {
  r.add("tosa.add", withArity(2, 1, addKernel));
  r.add("tosa.sub", withArity(2, 1, subKernel));
  r.add("tosa.mul", withArity(3, 1, mulKernel));  // MLIR 22: input1, input2, shift

  r.add("tosa.arithmetic_right_shift", withArity(2, 1, arithmeticRightShiftKernel));
  r.add("tosa.bitwise_and",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return bitwiseKernel(c, i, o, '&'); }));
  r.add("tosa.bitwise_or",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return bitwiseKernel(c, i, o, '|'); }));
  r.add("tosa.bitwise_xor",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return bitwiseKernel(c, i, o, '^'); }));
  r.add("tosa.intdiv", withArity(2, 1, intdivKernel));
  r.add("tosa.logical_and",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return logicalKernel(c, i, o, '&'); }));
  r.add("tosa.logical_or",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return logicalKernel(c, i, o, '|'); }));
  r.add("tosa.logical_xor",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return logicalKernel(c, i, o, '^'); }));
  r.add("tosa.logical_left_shift", withArity(2, 1, logicalLeftShiftKernel));
  r.add("tosa.logical_right_shift", withArity(2, 1, logicalRightShiftKernel));
  r.add("tosa.maximum",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return minMaxKernel(c, i, o, true); }));
  r.add("tosa.minimum",
        withArity(2, 1, [](KernelContext& c, const Inputs& i, Outputs& o) { return minMaxKernel(c, i, o, false); }));
  r.add("tosa.pow", withArity(2, 1, powKernel));
  r.add("tosa.table", withArity(2, 1, tableKernel));
}

}  // namespace tosakit::ref
