#include "target_flags.h"

#include <algorithm>

namespace tosakit::cli {

void TargetFlags::add(CLI::App* cmd) {
  cmd->add_option("--profile", profiles, "Profiles of the target: pro_int, pro_fp (comma-separated)")->delimiter(',');
  cmd->add_option("--extension", extensions,
                  "Extensions of the target: int16, int4, bf16, fp8e4m3, fp8e5m2, fft, variable, controlflow, "
                  "doubleround, inexactround, dynamic (comma-separated)")
      ->delimiter(',');
  cmd->add_option("--level", level, "Level: 8k or none");
}

Result<std::optional<ir::TargetEnv>> TargetFlags::target() const {
  if (profiles.empty() && extensions.empty() && level.empty()) return std::optional<ir::TargetEnv>();
  ir::TargetEnv all = ir::TargetEnv::all();
  ir::TargetEnv t;
  t.profiles.clear();
  for (const auto& p : profiles) {
    if (std::find(all.profiles.begin(), all.profiles.end(), p) == all.profiles.end())
      return Status::invalid("unknown profile '" + p + "' (expected pro_int or pro_fp)");
    t.profiles.push_back(p);
  }
  for (const auto& e : extensions) {
    if (std::find(all.extensions.begin(), all.extensions.end(), e) == all.extensions.end())
      return Status::invalid("unknown extension '" + e + "'");
    t.extensions.push_back(e);
  }
  if (profiles.empty()) t.profiles = all.profiles;
  std::string lv = level.empty() ? "8k" : level;
  std::transform(lv.begin(), lv.end(), lv.begin(), ::tolower);
  if (lv != "8k" && lv != "none") return Status::invalid("unknown level '" + level + "' (expected 8k or none)");
  t.level = lv;
  return std::optional<ir::TargetEnv>(t);
}

}  // namespace tosakit::cli
