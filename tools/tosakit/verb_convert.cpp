// tosakit convert IN -o OUT: convert between model formats by extension (.mlir <-> .spv). The positional form
// `tosakit convert IN OUT` is kept as an alias.
#include <iostream>

#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct ConvertArgs {
  std::string input, output, positionalOutput;
};

int convertVerb(const ConvertArgs& a) {
  // Command-line mistakes: exit code 2 like CLI11's own parse errors.
  auto usage = [](const std::string& why) {
    std::cerr << "tosakit: usage: convert: " << why << "\n";
    return int(kExitUsage);
  };
  if (!a.output.empty() && !a.positionalOutput.empty())
    return usage("give the output once (-o OUT, or the older positional OUT)");
  const std::string& out = a.output.empty() ? a.positionalOutput : a.output;
  if (out.empty()) return usage("no output file (-o OUT)");
  auto m = loadModelWithQuantParams(a.input);
  if (!m) return report(m.status());
  if (Status s = saveModelWithQuantParams(**m, out); !s) return report(s);
  return kExitOk;
}

}  // namespace

VerbAction addConvertVerb(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert a model between formats (.mlir, .spv) by file extension");
  cmd->add_option("input", args->input, "Input model (.mlir or .spv)")->required();
  cmd->add_option("-o,--output", args->output, "Output model (.mlir or .spv; .spv may also write OUTPUT.npz)");
  cmd->add_option("output", args->positionalOutput, "Output model, positional form (alias of -o)");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return convertVerb(*args);
  };
}

}  // namespace tosakit::cli
