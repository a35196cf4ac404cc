// Spec section 2.9 Reduction operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerReduction(KernelRegistry& r) {}

}  // namespace tosakit::ref
