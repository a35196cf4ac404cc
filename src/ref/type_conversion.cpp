// Spec section 2.13 Type conversion.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

void registerTypeConversion(KernelRegistry& r) {}

}  // namespace tosakit::ref
