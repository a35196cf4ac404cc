// int8 1x1 convolutions: the layer shape both 1x1 kernels accept (kernels/int8/pointwise.cpp: oneDNN matmuls over
// row blocks; kernels/int8/pointwise_vnni.cpp: our own VNNI micro-kernel, which also takes matmuls by constant
// weights). Private to src/fast.
#pragma once
#include <cstdint>
#include <optional>

#include "fast/op_kernel.h"

namespace tosakit::fast {

// conv2d [N, H, W, IC] x constant [OC, 1, 1, IC] + constant i32 bias (OC values or one), stride 1, no padding,
// i32 accumulator, weight zero point 0: M = N * H * W rows of IC input bytes.
struct Int8Pointwise {
  int64_t M = 0, IC = 0, OC = 0, inputZp = 0;
  const Tensor* weights = nullptr;
  const Tensor* bias = nullptr;
};
std::optional<Int8Pointwise> parseInt8Pointwise(const OpChain& c);

}  // namespace tosakit::fast
