// Spec section 2.4 Activation functions.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerActivationFunctions(KernelRegistry& r) {}

}  // namespace tosakit::ref
