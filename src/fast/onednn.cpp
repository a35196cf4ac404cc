// The oneDNN kernel family: convolutions, matmul and pooling (see onednn_*.cpp).
#include "fast/kernels_int8.h"
#include "fast/onednn_kernels.h"

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
