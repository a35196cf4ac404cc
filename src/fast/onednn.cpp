// The oneDNN kernel family: convolutions, matmul and pooling (see onednn/*.cpp).
#include "fast/kernels/int8/int8.h"
#include "fast/onednn/kernels.h"

namespace tosakit::fast {

void registerOneDnnKernels(FastKernelRegistry& r) {
  // The blocked int8 1x1 convolution first (factories are tried in registration order); it declines every
  // other conv2d, which the oneDNN convolution then takes.
  registerInt8PointwiseKernels(r);
  registerInt8DepthwiseKernels(r);
  registerOneDnnConvKernels(r);
  registerOneDnnMatmulKernels(r);
  registerOneDnnPoolKernels(r);
}

}  // namespace tosakit::fast
