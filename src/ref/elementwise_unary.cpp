// Spec section 2.6 Elementwise unary operators.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerElementwiseUnary(KernelRegistry& r) {}

}  // namespace tosakit::ref
