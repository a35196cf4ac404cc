// Spec section 2.18 Shape operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerShapeOperators(KernelRegistry& r) {}

}  // namespace tosakit::ref
