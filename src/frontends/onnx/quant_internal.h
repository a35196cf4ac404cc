// Internal to the ONNX frontend: the integer building blocks of ops_quant.cpp (QOperator form) shared with the
// QDQ folding pass (qdq_fold.cpp), so both requantize with the same multiplier/shift and zero-point handling.
#pragma once
#include <climits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

bool isQuantType(DType t);
// scale ~= multiplier / 2^shift, multiplier in [2^30, 2^31); Unsupported for scales <= 0, non-finite or > 2^29.
Result<std::pair<int64_t, int64_t>> scaleToMultiplierShift(double scale);
// A run-time uint8 (i8 bits) or int8 value as int8 with the same (x - zp) differences: uint8 moves by -128.
Value* toSignedI8(Importer& im, Value* x, DType onnxType);
// i32 accumulator -> 8-bit `outType` (uint8 as i8 bits) with `scales` (one, or one per channel of the last
// dim) and zero point `zp`, clamped to [lo, hi] (output-type values; an absorbed Relu/Clip narrows the range).
Result<Value*> requantize(Importer& im, Value* acc, const std::vector<double>& scales, int64_t zp, DType outType,
                          int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);
// fp32 value -> 8-bit (i8 bits): saturate(round_half_even(f) + zp) clamped to [lo, hi] (output-type values).
Value* roundToQuantized(Importer& im, Value* f, int64_t zp, int64_t lo, int64_t hi);
// Σ (x - x_zp)(w - w_zp) + bias as an i8 TOSA conv2d or depthwise_conv2d (i32 accumulator, NHWC) with node
// n's conv attributes.
Result<Value*> integerConv(Importer& im, const NodeProto& n, OVal& x, const Tensor& w, int64_t xZp, int64_t wZp,
                           const Tensor* bias, const std::string& locName);
// Σ_k (a - a_zp)(b - b_zp) on tosa.matmul: an i32 [batch, M, N] value; `outShape` the ONNX result shape.
Result<Value*> integerMatmul(Importer& im, OVal& a, OVal& bm, int64_t aZp, int64_t bZp, Shape& outShape);
// QDQ folding: whether the uint8 output `value` of a QuantizeLinear with constant parameters is carried as
// int8 u - 128 (every reader a top-level DequantizeLinear with constant parameters, not a graph output); the
// caller then lowers it so and adds it to Importer::shiftedU8, which DequantizeLinear reads as int8 with zero
// point - 128.
bool carriesU8AsI8(Importer& im, const std::string& value);
// The single zero point of a per-tensor or per-channel list (TOSA's weight zero point is per tensor).
Result<int64_t> perTensorZp(const std::vector<int64_t>& zps, const char* what);

}  // namespace tosakit::onnx
