// Placeholder registration (replaced by the kernel family's implementation).
#include "fast/op_kernel.h"

namespace tosakit::fast {
void registerElementwiseKernels(FastKernelRegistry&) {}
}  // namespace tosakit::fast
