// Spec section 2.10 Data layout.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerDataLayout(KernelRegistry& r) {}

}  // namespace tosakit::ref
