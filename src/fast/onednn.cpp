// The oneDNN kernel family: convolutions, matmul and pooling (see onednn_*.cpp).
#include "fast/onednn_kernels.h"

namespace tosakit::fast {

void registerOneDnnKernels(FastKernelRegistry& r) {
  registerOneDnnConvKernels(r);
  registerOneDnnMatmulKernels(r);
  registerOneDnnPoolKernels(r);
}

}  // namespace tosakit::fast
