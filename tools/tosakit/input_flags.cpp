#include "input_flags.h"

namespace tosakit::cli {

Status addNamedInputFiles(const std::vector<std::string>& specs, InputSources& sources) {
  for (const std::string& spec : specs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) return Status::invalid("--input '" + spec + "': expected NAME=FILE");
    sources.files.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
  }
  return Status::ok();
}

}  // namespace tosakit::cli
