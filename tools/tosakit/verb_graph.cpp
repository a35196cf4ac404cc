// tosakit graph MODEL -o OUT.svg|OUT.dot|OUT.html [--function F] [--collapse-constants]: the graph laid out
// top to bottom by Graphviz (docs/INSPECT.md).
#include "tosakit/inspect.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addGraphVerb(CLI::App& app) {
  struct Args {
    std::string model, output;
    GraphOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("graph", "Draw a model's graph (Graphviz): .svg, .dot, or a self-contained .html");
  cmd->add_option("model", args->model, "Model (.mlir, .spv, or .onnx imported with default options)")->required();
  cmd->add_option("-o,--output", args->output, "Graph file: .svg, .dot or .html (pan, zoom, search)")->required();
  cmd->add_option("--function", args->options.function, "Function to draw")->capture_default_str();
  cmd->add_flag("--collapse-constants", args->options.collapseConstants,
                "One summary line per op for its constants instead of one line each");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    std::vector<std::string> notes;
    auto module = loadInspectableModel(args->model, &notes);
    if (!module) return report(module.status());
    printNotes(notes);
    Status s = writeGraph(**module, args->output, args->options);
    return report(s.isOk() ? s : s.withContext(args->model));
  };
}

}  // namespace tosakit::cli
