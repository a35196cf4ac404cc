// The geometry of a TOSA convolution (conv2d, depthwise_conv2d, transpose_conv2d) as the fast backend's
// convolution kernels read it from an op chain: shapes, strides, dilation and padding in oneDNN's conventions,
// the input zero point; shared by the oneDNN kernels and our own. Free of oneDNN headers.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "fast/op_kernel.h"

namespace tosakit::fast {

enum class ConvKind { Conv2d, Depthwise, Transpose };

struct ConvGeom {
  ConvKind kind = ConvKind::Conv2d;
  DType inT = DType::FP32, outT = DType::FP32;
  int64_t N = 0, IH = 0, IW = 0, IC = 0, OC = 0, KH = 0, KW = 0, OH = 0, OW = 0, G = 1, BC = 0;
  std::vector<int64_t> strides, dilates, padL, padR;  // oneDNN conventions: dilation - 1, signed padding
  int64_t inputZp = 0;
  bool isInt() const { return inT == DType::I8; }
};

// The chain's first op as a convolution of `kind` when its form is one the fast kernels take: static shapes,
// constant weights, weight_zp 0, and a type row of the CONV tables for fp32, bf16, fp16 or i8 -> i32; else
// nothing (the reference kernel runs it and reports any ERROR_IF).
std::optional<ConvGeom> parseConv(const OpChain& c, ConvKind kind);

// A transpose_conv2d whose kernel equals its stride with no out_pad and a constant bias: every output pixel
// receives exactly one tap (the FPN-style upsampling layers), float types.
bool isPerTapTransposeConv(const OpChain& c, const ConvGeom& g);

// Integer weights value by value for the compile-time tables: int8 read in place, other types widened once
// (an int64 copy of resnet18's largest int8 layer is 19 MiB, which was the peak RSS of compiling it).
class WeightValues {
 public:
  explicit WeightValues(const Tensor& w)
      : i8_(w.dtype() == DType::I8 ? reinterpret_cast<const int8_t*>(w.data()) : nullptr),
        wide_(i8_ ? std::vector<int64_t>() : w.toInts()),
        size_(size_t(w.size())) {}
  int64_t operator[](size_t i) const { return i8_ ? int64_t(i8_[i]) : wide_[i]; }
  size_t size() const { return size_; }

 private:
  const int8_t* i8_;
  std::vector<int64_t> wide_;
  size_t size_;
};

}  // namespace tosakit::fast
