// Spec section 2.16 Control flow operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerControlFlow(KernelRegistry& r) {}

}  // namespace tosakit::ref
