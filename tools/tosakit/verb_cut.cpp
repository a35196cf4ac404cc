// tosakit cut MODEL --inputs a,b --outputs c,d -o SUB.mlir|SUB.spv [--function F]: the subgraph between named
// tensors (docs/INSPECT.md).
#include "tosakit/inspect.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addCutVerb(CLI::App& app) {
  struct Args {
    std::string model, output;
    CutOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "cut", "The subgraph from named tensors (they become arguments) to named outputs, as a new model");
  cmd->add_option("model", args->model, "Model (.mlir, .spv, or .onnx imported with default options)")->required();
  cmd->add_option("--inputs", args->options.inputs,
                  "Tensors that become the arguments (names as run --dump-intermediates writes them), comma-separated")
      ->delimiter(',');
  cmd->add_option("--outputs", args->options.outputs, "Tensors that become the results, comma-separated")
      ->delimiter(',')
      ->required();
  cmd->add_option("-o,--output", args->output,
                  "Subgraph (.mlir or .spv; .spv of a quantized model also writes "
                  "OUT.spv.qparams.json)")
      ->required();
  cmd->add_option("--function", args->options.function, "Function to cut")->capture_default_str();
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    std::vector<std::string> notes;
    auto module = loadInspectableModel(args->model, &notes);
    if (!module) return report(module.status());
    printNotes(notes);
    auto sub = cutModel(**module, args->options);
    if (!sub) return report(sub.status().withContext(args->model));
    return report(saveModelWithQuantParams(**sub, args->output, args->options.function));
  };
}

}  // namespace tosakit::cli
