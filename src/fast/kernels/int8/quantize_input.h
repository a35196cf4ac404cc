// The network input's quantization (MUL by a constant scale -> CAST to i8/i16 [-> NCHW->NHWC TRANSPOSE]) as one
// pass (kernels/int8/quantize_input.cpp). Registered for tosa.mul ahead of the float elementwise chains.
#pragma once
#include "fast/op_kernel.h"

namespace tosakit::fast {
Result<CompiledKernel> compileQuantizeInput(const OpChain& chain);
}  // namespace tosakit::fast
