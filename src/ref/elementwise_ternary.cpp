// Spec section 2.7 Elementwise ternary operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerElementwiseTernary(KernelRegistry& r) {}

}  // namespace tosakit::ref
