// tosakit dis MODEL.spv|MODEL.tosa: print a SPIR-V graph module or a TOSA flatbuffer as text (validated first).
#include <iostream>

#include "tosakit/model_io.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addDisVerb(CLI::App& app) {
  auto in = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("dis", "Disassemble a SPIR-V TOSA graph (.spv) or a TOSA flatbuffer (.tosa)");
  cmd->add_option("model", *in, "SPIR-V module (.spv) or TOSA flatbuffer (.tosa)")->required();
  return [cmd, in]() -> int {
    if (!cmd->parsed()) return -1;
    auto text = disassembleModel(*in);
    if (!text) return report(text.status());
    std::cout << *text;
    return kExitOk;
  };
}

}  // namespace tosakit::cli
