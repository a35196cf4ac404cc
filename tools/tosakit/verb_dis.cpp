// tosakit dis MODEL.spv: print a SPIR-V graph module as text (validated first).
#include <iostream>

#include "formats/spirv/spirv_io.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addDisVerb(CLI::App& app) {
  auto in = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("dis", "Disassemble a SPIR-V TOSA graph (.spv)");
  cmd->add_option("model", *in, "SPIR-V module (.spv)")->required();
  return [cmd, in]() -> int {
    if (!cmd->parsed()) return -1;
    auto text = spirv::disassemble(*in);
    if (!text) return report(text.status());
    std::cout << *text;
    return kExitOk;
  };
}

}  // namespace tosakit::cli
