// Spec section 2.15 Custom operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerCustom(KernelRegistry& r) {}

}  // namespace tosakit::ref
