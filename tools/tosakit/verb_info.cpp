// tosakit info MODEL [--function F] [--json] [--no-plan]: what a model contains (docs/INSPECT.md).
#include <iostream>

#include "tosakit/inspect.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addInfoVerb(CLI::App& app) {
  struct Args {
    std::string model;
    InfoOptions options;
    bool json = false;
    bool noPlan = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Inputs/outputs, needed target, op counts, parameters, MACs, fast-plan memory, precision shares");
  cmd->add_option("model", args->model, "Model (.mlir, .spv, or .onnx imported with default options)")->required();
  cmd->add_option("--function", args->options.function, "Function to describe")->capture_default_str();
  cmd->add_flag("--json", args->json, "One JSON object instead of text");
  cmd->add_flag("--no-plan", args->noPlan, "Skip compiling the fast plan (no arena/peak memory figures)");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    std::vector<std::string> notes;
    auto module = loadInspectableModel(args->model, &notes);
    if (!module) return report(module.status());
    printNotes(notes);
    args->options.plan = !args->noPlan;
    auto info = inspectModel(**module, args->options);
    if (!info) return report(Status::error(info.status().code(), args->model + ": " + info.status().message()));
    std::cout << (args->json ? modelInfoJson(*info) + "\n" : modelInfoText(*info));
    return kExitOk;
  };
}

}  // namespace tosakit::cli
