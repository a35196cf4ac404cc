// Static validation of a module against a target: types against each operator's supported-data-types table
// (profile and extension gating), shapes and attributes against the ERROR_IFs that are static, and level
// limits (LEVEL_CHECK). Lists every violation, not only the first.
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace tosakit::ir {

struct Diagnostic {
  enum class Kind { Error, Unsupported };
  Kind kind = Kind::Error;
  std::string op;        // "tosa.conv2d"
  std::string location;  // op location
  std::string message;   // e.g. "ERROR_IF(OH != ...)" or "type combination i8 x i4 -> i32 needs extension int4"
  std::string toString() const;
};

std::vector<Diagnostic> validateModule(const Module& m, const TargetEnv& target);

}  // namespace tosakit::ir
