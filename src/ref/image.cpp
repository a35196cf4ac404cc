// Spec section 2.12 Image operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerImage(KernelRegistry& r) {}

}  // namespace tosakit::ref
