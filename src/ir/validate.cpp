#include "ir/validate.h"

namespace tosakit::ir {

std::string Diagnostic::toString() const {
  std::string s = op;
  if (!location.empty()) s += " at " + location;
  return s + ": " + message;
}

}  // namespace tosakit::ir
