#include <iostream>

#include "tosakit/backend.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addVersionVerb(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("version", "Print the tosakit version and the TOSA specification it implements");
  return [cmd]() -> int {
    if (!cmd->parsed()) return -1;
    std::cout << "tosakit " << TOSAKIT_VERSION << " (TOSA specification 1.0)\n";
    std::string levels;
    for (const std::string& l : fastIsaLevels()) levels += (levels.empty() ? "" : ", ") + l;
    std::cout << "fast backend ISA: " << fastIsaLevel() << " (this CPU: " << levels << ")\n";
    return kExitOk;
  };
}

}  // namespace tosakit::cli
