// --profile / --extension / --level flags shared by verbs that need a target.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::cli {

struct TargetFlags {
  std::vector<std::string> profiles;
  std::vector<std::string> extensions;
  std::string level;
  void add(CLI::App* cmd);
  // nullopt when no flag was given. Error for unknown names.
  Result<std::optional<ir::TargetEnv>> target() const;
};

}  // namespace tosakit::cli
