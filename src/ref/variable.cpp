// Spec section 2.17 Variable operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerVariable(KernelRegistry& r) {}

}  // namespace tosakit::ref
