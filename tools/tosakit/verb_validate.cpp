// tosakit validate MODEL [--profile ...] [--extension ...] [--level 8k|none]
#include <iostream>

#include "ir/validate.h"
#include "target_flags.h"
#include "tosakit/model_io.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addValidateVerb(CLI::App& app) {
  struct Args {
    std::string model;
    TargetFlags target;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "validate", "Statically check a model's types, shapes, attributes, profile, extensions and level");
  cmd->add_option("model", args->model, "Model file (.mlir)")->required();
  args->target.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    auto flags = args->target.target();
    if (!flags) return report(flags.status());
    std::vector<std::string> notes;
    auto module = loadModel(args->model, &notes);
    if (!module) return report(module.status());
    printNotes(notes);
    ir::TargetEnv target = (*module)->target ? *(*module)->target : (*flags ? **flags : ir::TargetEnv::all());
    auto diags = ir::validateModule(**module, target);
    for (const auto& d : diags) std::cout << args->model << ": " << d.toString() << "\n";
    if (diags.empty()) {
      std::cout << args->model << ": valid\n";
      return kExitOk;
    }
    std::cout << diags.size() << " violation(s)\n";
    return kExitSpecError;
  };
}

}  // namespace tosakit::cli
