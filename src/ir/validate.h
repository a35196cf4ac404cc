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

struct ValidateOptions {
  // cond_if/while_loop regions are separate TOSA graphs in the spec (their only inputs are input_list), so
  // a region using a value from outside is reported. The MLIR dialect and the reference backend allow such
  // captures; Session sets this to accept them.
  bool allowRegionCaptures = false;
};

std::vector<Diagnostic> validateModule(const Module& m, const TargetEnv& target, const ValidateOptions& opts = {});

}  // namespace tosakit::ir
