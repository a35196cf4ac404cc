// Reading an op chain's operands at plan-compile time (types, constants, zero points, convolution windows):
// shared by every kernel factory of the fast backend.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "fast/op_kernel.h"

namespace tosakit::fast {

const ir::ValueType& operandType(const OpChain& c, size_t k, size_t j);
const ir::ValueType& resultType(const OpChain& c, size_t k);
const Tensor* constOperand(const OpChain& c, size_t k, size_t j);
// Value of a one-element integer constant operand (zero points), if constant.
std::optional<int64_t> constScalarInt(const OpChain& c, size_t k, size_t j);
// A zero-point operand: its value when it is a one-element constant (a float zero point must be 0).
std::optional<int64_t> zeroPoint(const OpChain& c, size_t k, size_t j);
// acc_type attribute of a convolution/pool.
std::optional<DType> accType(const ir::Operation& op);
bool isStatic(const ir::ValueType& t);
// conv2d/depthwise_conv2d's pad [top, bottom, left, right], stride [y, x] and dilation [y, x] attributes when
// they are well formed (no negative padding, strides and dilations >= 1); otherwise the reference kernel gives
// the verdict.
struct ConvWindow {
  std::vector<int64_t> pad, stride, dilation;
};
std::optional<ConvWindow> convWindow(const ir::Operation& op);

}  // namespace tosakit::fast
