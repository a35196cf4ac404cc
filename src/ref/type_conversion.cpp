// Spec section 2.13 Type conversion: CAST, RESCALE.
#include <cmath>
#include <utility>

#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

// Every (in_t, out_t) row of CAST's Supported Data Types table.
bool castSupported(DType in, DType out) {
  using D = DType;
  static const std::pair<DType, DType> rows[] = {
      // PRO-FP
      {D::FP16, D::FP32},
      {D::FP16, D::I16},
      {D::FP16, D::I32},
      {D::FP16, D::I8},
      {D::FP32, D::FP16},
      {D::FP32, D::I16},
      {D::FP32, D::I32},
      {D::FP32, D::I8},
      {D::I16, D::FP16},
      {D::I16, D::FP32},
      {D::I32, D::FP16},
      {D::I32, D::FP32},
      {D::I8, D::FP16},
      {D::I8, D::FP32},
      // PRO-INT
      {D::Bool, D::I16},
      {D::Bool, D::I32},
      {D::Bool, D::I8},
      {D::I16, D::Bool},
      {D::I16, D::I32},
      {D::I16, D::I8},
      {D::I32, D::Bool},
      {D::I32, D::I16},
      {D::I32, D::I8},
      {D::I8, D::Bool},
      {D::I8, D::I16},
      {D::I8, D::I32},
      // EXT-BF16
      {D::BF16, D::FP32},
      {D::BF16, D::I16},
      {D::BF16, D::I32},
      {D::BF16, D::I8},
      {D::FP32, D::BF16},
      {D::I16, D::BF16},
      {D::I32, D::BF16},
      {D::I8, D::BF16},
      // EXT-BF16 and EXT-FP8E4M3 / EXT-FP8E5M2
      {D::BF16, D::FP8E4M3},
      {D::FP8E4M3, D::BF16},
      {D::BF16, D::FP8E5M2},
      {D::FP8E5M2, D::BF16},
      // EXT-FP8E4M3
      {D::FP16, D::FP8E4M3},
      {D::FP32, D::FP8E4M3},
      {D::FP8E4M3, D::FP16},
      {D::FP8E4M3, D::FP32},
      // EXT-FP8E5M2
      {D::FP16, D::FP8E5M2},
      {D::FP32, D::FP8E5M2},
      {D::FP8E5M2, D::FP16},
      {D::FP8E5M2, D::FP32},
  };
  for (const auto& [i, o] : rows)
    if (i == in && o == out) return true;
  return false;
}

// 2.13.1 CAST
Status castKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  ERROR_IF(in.size() != 1 || out.size() != 1);
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  const DType inT = ctx.dtypeOf(input), outT = ctx.dtypeOf(output);
  ERROR_IF(!castSupported(inT, outT));  // (in_t, out_t) not in Supported Data Types
  ERROR_IF(output.shape() != input.shape());
  LEVEL_CHECK(rankWithinLevel(ctx, input.rank()));
  for (int64_t i = 0; i < input.size(); ++i) {
    if (outT == DType::Bool) {
      output.setInt(i, input.getInt(i) != 0 ? 1 : 0);
    } else if (is_floating_point(outT)) {
      // round_to_nearest_float: the input is exact in fp64, so one rounding (ties to even); out of range gives
      // infinity, or NaN for fp8e4m3 (OCP-OFP8 non-saturating mode).
      double v = inT == DType::Bool ? (input.getInt(i) ? 1.0 : 0.0) : input.getFloat(i);
      output.setFloat(i, v);
    } else if (inT == DType::Bool) {
      output.setInt(i, input.getInt(i) ? 1 : 0);
    } else if (is_floating_point(inT)) {
      double v = input.getFloat(i);
      REQUIRE(!isNaN(v));  // "If any input is a NaN, the result is unpredictable."
      // round_to_nearest_int (ties to even), then saturate to out_t. Clipping in fp64 first keeps infinities
      // and values beyond int64 from overflowing the conversion.
      double r = std::nearbyint(v);
      r = std::fmin(std::fmax(r, double(minimum_s(outT))), double(maximum_s(outT)));
      output.setInt(i, truncate_to(int64_t(r), outT));
    } else if (bitWidth(outT) >= bitWidth(inT)) {
      output.setInt(i, sign_extend(input.getInt(i), inT));
    } else {
      output.setInt(i, truncate_to(input.getInt(i), outT));
    }
  }
  return Status::ok();
}

enum class Rounding { Single, Inexact, Double };

// 2.13.2 RESCALE: operands (input, multiplier, shift, input_zp, output_zp).
Status rescaleKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  ERROR_IF(in.size() != 5 || out.size() != 1);
  const Tensor& input = *in[0];
  const Tensor& multiplier = *in[1];
  const Tensor& shift = *in[2];
  const Tensor& inputZp = *in[3];
  const Tensor& outputZp = *in[4];
  Tensor& output = out[0];
  const DType inT = ctx.dtypeOf(input), outT = ctx.dtypeOf(output);
  const bool scale32 = ctx.op.boolAttr("scale32", true);
  const bool perChannel = ctx.op.boolAttr("per_channel");
  const bool inputUnsigned = ctx.op.boolAttr("input_unsigned");
  const bool outputUnsigned = ctx.op.boolAttr("output_unsigned");
  const std::string mode = ctx.op.strAttr("rounding_mode", "SINGLE_ROUND");
  Rounding rounding;
  if (mode == "SINGLE_ROUND")
    rounding = Rounding::Single;
  else if (mode == "INEXACT_ROUND")
    rounding = Rounding::Inexact;
  else if (mode == "DOUBLE_ROUND")
    rounding = Rounding::Double;
  else
    return ctx.unsupported("rounding_mode must be SINGLE_ROUND, INEXACT_ROUND or DOUBLE_ROUND, got '" + mode + "'");

  // Supported Data Types: in_t in {i8, i16, i32, i48}, out_t in {i8, i16, i32}.
  ERROR_IF(inT != DType::I8 && inT != DType::I16 && inT != DType::I32 && inT != DType::I48);
  ERROR_IF(outT != DType::I8 && outT != DType::I16 && outT != DType::I32);
  ERROR_IF(output.shape() != input.shape());
  ERROR_IF(ctx.dtypeOf(multiplier) != (scale32 ? DType::I32 : DType::I16));  // mul_t
  ERROR_IF(ctx.dtypeOf(shift) != DType::I8);
  ERROR_IF(ctx.dtypeOf(inputZp) != inT || inputZp.size() != 1);
  ERROR_IF(ctx.dtypeOf(outputZp) != outT || outputZp.size() != 1);
  LEVEL_CHECK(rankWithinLevel(ctx, input.rank()));

  // The zero points as stored (sign-extended); unsigned interpretations are taken below where the spec does.
  const int64_t input_zp = inputZp.getInt(0), output_zp = outputZp.getInt(0);
  const bool inI8 = inT == DType::I8, inI16 = inT == DType::I16, inI32 = inT == DType::I32, inI48 = inT == DType::I48;
  const bool outI8 = outT == DType::I8, outI16 = outT == DType::I16, outI32 = outT == DType::I32;
  // uint16 values can have zero_point 0 or 32768; int8/uint8 any value in range; no other type a zero point != 0.
  ERROR_IF(!inI8 && (!inI16 || inputUnsigned == false) && input_zp != 0);
  ERROR_IF(!outI8 && (!outI16 || outputUnsigned == false) && output_zp != 0);
  ERROR_IF(inI16 && inputUnsigned == true && input_zp != 0 && zero_extend(input_zp, inT) != 32768);
  ERROR_IF(outI16 && outputUnsigned == true && output_zp != 0 && zero_extend(output_zp, outT) != 32768);
  ERROR_IF(scale32 && inI48);
  ERROR_IF(!scale32 && (rounding == Rounding::Double));
  ERROR_IF(inputUnsigned && outputUnsigned);
  ERROR_IF(outI32 && inputUnsigned);
  ERROR_IF(inI32 && outputUnsigned);
  ERROR_IF(inI48 && outputUnsigned);
  // Unsigned data is only 8 or 16 bits wide (the argument table names uint8/uint16 only), but the pseudocode
  // above lists only the mixed i32/i48 cases. The evident intent, and what Arm's reference model and the
  // conformance suite enforce (RescaleI32InputUnsigned, RescaleI32OutputUnsigned, RescaleI48InputUnsigned):
  ERROR_IF(inI32 && inputUnsigned);
  ERROR_IF(outI32 && outputUnsigned);
  ERROR_IF(inI48 && inputUnsigned);
  ERROR_IF(perChannel && input.rank() < 1);
  const int64_t NC = perChannel ? input.shape().back() : 1;
  ERROR_IF(multiplier.rank() != 1 || multiplier.size() != NC);  // multiplier is [NC]
  ERROR_IF(shift.rank() != 1 || shift.size() != NC);            // shift is [NC]

  for (int64_t i = 0; i < input.size(); ++i) {
    int64_t in_value = input.getInt(i);
    int64_t value, extended_in_zp;  // int48_t
    if (inputUnsigned) {
      value = zero_extend(in_value, inT);
      extended_in_zp = zero_extend(input_zp, inT);
    } else {
      value = sign_extend(in_value, inT);
      extended_in_zp = sign_extend(input_zp, inT);
    }
    value = value - extended_in_zp;
    int64_t c = perChannel ? i % NC : 0;  // index[rank(input) - 1] of row-major offset i
    int32_t m = int32_t(multiplier.getInt(c));
    int8_t s = int8_t(shift.getInt(c));
    // INEXACT_ROUND may use any rounding within the spec's error bound; single rounding meets it exactly.
    int32_t result = scale32 ? apply_scale_32(ctx, int32_t(value), m, s, rounding == Rounding::Double)
                             : apply_scale_16(ctx, value, int16_t(m), s);
    if (ctx.failed()) return ctx.result();
    int64_t o;
    if (outputUnsigned) {
      int64_t extended_out_zp = zero_extend(output_zp, outT);
      int64_t r = apply_add_s(ctx, result, extended_out_zp, DType::I32);
      o = apply_clip_u(ctx, r, minimum_u(outT), maximum_u(outT));
    } else {
      int64_t extended_out_zp = sign_extend(output_zp, outT);
      int64_t r = apply_add_s(ctx, result, extended_out_zp, DType::I32);
      o = apply_clip_s(ctx, r, minimum_s(outT), maximum_s(outT));
    }
    if (ctx.failed()) return ctx.result();
    output.setInt(i, o);  // static_cast<out_t>: keeps the low bits (an unsigned 255 is stored as i8 -1)
  }
  return Status::ok();
}

}  // namespace

void registerTypeConversion(KernelRegistry& r) {
  r.add("tosa.cast", castKernel);
  r.add("tosa.rescale", rescaleKernel);
}

}  // namespace tosakit::ref
