// Spec section 2.8 Comparison operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerComparison(KernelRegistry& r) {}

}  // namespace tosakit::ref
