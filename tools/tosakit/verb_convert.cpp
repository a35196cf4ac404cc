// tosakit convert IN OUT: convert between model formats by extension (.mlir <-> .spv).
#include <iostream>

#include "tosakit/model_io.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addConvertVerb(CLI::App& app) {
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert a model between formats (.mlir, .spv) by file extension");
  cmd->add_option("input", *in, "Input model (.mlir or .spv)")->required();
  cmd->add_option("output", *out, "Output model (.mlir or .spv; .spv may also write OUTPUT.npz)")->required();
  return [cmd, in, out]() -> int {
    if (!cmd->parsed()) return -1;
    auto m = loadModel(*in);
    if (!m) return report(m.status());
    if (Status s = saveModel(**m, *out); !s) return report(s);
    return kExitOk;
  };
}

}  // namespace tosakit::cli
