// Spec section 2.3 Tensor operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerTensorOperators(KernelRegistry& r) {}

}  // namespace tosakit::ref
