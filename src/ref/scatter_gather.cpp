// Spec section 2.11 Scatter/gather operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerScatterGather(KernelRegistry& r) {}

}  // namespace tosakit::ref
