#include <iostream>

#include "verbs.h"

namespace tosakit::cli {

VerbAction addVersionVerb(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("version", "Print the tosakit version and the TOSA specification it implements");
  return [cmd]() -> int {
    if (!cmd->parsed()) return -1;
    std::cout << "tosakit " << TOSAKIT_VERSION << " (TOSA specification 1.0)\n";
    return kExitOk;
  };
}

}  // namespace tosakit::cli
