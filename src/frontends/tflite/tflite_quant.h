// Internal to the TFLite frontend: what the quantized lowerings share across files (ops_quant.cpp: int8 and
// 16x8 arithmetic; ops_quant16.cpp: int16 activations; ops_quant_reduce.cpp: int8 MEAN and SUM;
// ops_quant_extra.cpp: REDUCE_PROD, uint8 RESIZE_BILINEAR).
#pragma once
#include <functional>
#include <string>
#include <utility>

#include "frontends/tflite/tflite_internal.h"

namespace tosakit::tflite {

// One scale and zero point (a per-tensor quantized tensor).
struct QParams {
  double scale = 1;
  int64_t zp = 0;
};

// The per-tensor quantization of v; Unsupported when per channel, InvalidArgument when absent or not positive.
Result<QParams> perTensor(const TVal& v, const std::string& what);
// The quantized (int8 or int16) output k: clamped to the fused activation's range, its quantization recorded.
Status setQuantOut(Importer& im, int k, Value* v, fb::ActivationFunctionType act, const QParams& q);

// An int8 elementwise operator as tosa.table: `f` maps each raw input value to TFLite's raw output (saturated to
// int8 here), so the table reproduces TFLite's arithmetic exactly whatever it is (ops_quant.cpp).
Status tableOut(Importer& im, const QParams& y, const std::function<int32_t(int32_t)>& f);
// Input 0 and output 0 of an int16 operator: per tensor, zero points 0 as TFLite's 16x8 scheme requires.
Result<std::pair<QParams, QParams>> int16UnaryParams(Importer& im);
// x (int16) mapped through f by a 65536-entry table gathered at x + 32768 (ops_quant16.cpp).
Status int16GatherTable(Importer& im, const QParams& y, const std::function<int16_t(int16_t)>& f);
// int16 LOGISTIC (tanh false) or TANH as TFLite 2.9's int16 kernels compute them (ops_quant16.cpp).
Status int16SigmoidOrTanh(Importer& im, bool tanh);
// int8 MEAN (sum false) or SUM over any axes as TFLite 2.9's reference kernels compute them: the raw values
// summed; equal input and output quantization: the sum truncated by the count (MEAN) or wrapped to int8 (SUM);
// otherwise TFLite's float requantization (ops_quant_reduce.cpp).
Status int8MeanOrSum(Importer& im, bool sum);
// int16 SOFTMAX as TFLite 2.9's reference_ops::SoftmaxInt16 (ops_quant16.cpp).
Status int16Softmax(Importer& im);
// int8 / int16 REDUCE_PROD as TFLite 2.9's reference_ops::QuantizedReduceProd (ops_quant_extra.cpp).
Status quantizedReduceProd(Importer& im);
// uint8 RESIZE_BILINEAR as TFLite 2.9's optimized uint8 kernel, float weights (ops_quant_extra.cpp).
Status uint8ResizeBilinear(Importer& im);

}  // namespace tosakit::tflite
