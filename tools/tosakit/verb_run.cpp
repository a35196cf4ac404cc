// tosakit run MODEL [--function F] [--input NAME=FILE.npy ...] [--inputs FILE.npz] -o OUT.npz
//                   [--dump-intermediates FILE.npz] [--precise]
#include <filesystem>
#include <iostream>

#include "formats/npy/npy.h"
#include "target_flags.h"
#include "tosakit/preprocess.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct RunArgs {
  std::string model;
  std::string function = "main";
  std::vector<std::string> inputs;
  std::string inputsNpz;
  std::string output;
  std::string dumpIntermediates;
  bool precise = false;
  TargetFlags target;
};

// Reads every input file, converting each tensor to the declared type of its argument.
Status gatherInputs(const RunArgs& a, const ir::Function& fn, NamedTensors& out) {
  auto declared = [&](const std::string& name) -> const ir::ValueType* {
    for (size_t i = 0; i < fn.inputs().size(); ++i)
      if (fn.inputName(i) == name) return &fn.inputs()[i]->type;
    return nullptr;
  };
  auto add = [&](const std::string& name, const Tensor& t, const std::string& file) -> Status {
    const ir::ValueType* type = declared(name);
    if (!type) {
      std::string known;
      for (size_t i = 0; i < fn.inputs().size(); ++i) known += (i ? ", " : "") + fn.inputName(i);
      return Status::invalid(file + ": unknown input '" + name + "' (function @" + fn.name + " takes: " + known + ")");
    }
    auto adapted = npy::adaptToDType(t, type->dtype, file + ": input '" + name + "'");
    if (!adapted) return adapted.status();
    for (auto& [n, _] : out)
      if (n == name) return Status::invalid("input '" + name + "' given twice");
    out.emplace_back(name, std::move(*adapted));
    return Status::ok();
  };
  if (!a.inputsNpz.empty()) {
    auto npz = npy::readNpz(a.inputsNpz);
    if (!npz) return npz.status();
    for (auto& [name, t] : *npz) TK_RETURN_IF_ERROR(add(name, t, a.inputsNpz));
  }
  for (const std::string& spec : a.inputs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status::invalid("--input '" + spec + "': expected NAME=FILE.npy");
    std::string name = spec.substr(0, eq), file = spec.substr(eq + 1);
    auto t = readInputFile(file, fn, name);  // .npy, or an image preprocessed by the recorded recipe
    if (!t) return t.status();
    TK_RETURN_IF_ERROR(add(name, *t, file));
  }
  return Status::ok();
}

NamedTensors toNumpy(const NamedTensors& ts) {
  NamedTensors out;
  for (auto& [n, t] : ts) out.emplace_back(n, npy::toNumpyDType(t));
  return out;
}

int runVerb(const RunArgs& a) {
  auto target = a.target.target();
  if (!target) return report(target.status());
  std::vector<std::string> notes;
  auto module = loadModel(a.model, &notes);
  if (!module) return report(module.status());
  printNotes(notes);
  const ir::Function* fn = (*module)->function(a.function);
  if (!fn) return report(Status::invalid(a.model + ": no function '" + a.function + "'"));
  NamedTensors inputs;
  if (Status s = gatherInputs(a, *fn, inputs); !s) return report(s);

  SessionOptions so;
  so.target = *target;
  so.precise = a.precise;
  auto session = Session::create(std::move(*module), so);
  if (!session) return report(session.status());
  RunOptions ro;
  ro.function = a.function;
  ro.captureIntermediates = !a.dumpIntermediates.empty();
  RunResult result;
  if (Status s = (*session)->run(inputs, result, ro); !s) return report(s);
  if (Status s = npy::writeNpz(a.output, toNumpy(result.outputs)); !s) return report(s);
  if (!a.dumpIntermediates.empty()) {
    if (Status s = npy::writeNpz(a.dumpIntermediates, toNumpy(result.intermediates)); !s) {
      std::filesystem::remove(a.output);
      return report(s);
    }
  }
  for (auto& [n, t] : result.outputs) std::cout << n << ": " << t.summary() << "\n";
  return kExitOk;
}

}  // namespace

VerbAction addRunVerb(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a function of a TOSA model on the reference backend");
  cmd->add_option("model", args->model, "Model file (.mlir)")->required();
  cmd->add_option("--function", args->function, "Function to run")->capture_default_str();
  cmd->add_option("--input", args->inputs,
                  "An input: NAME=FILE.npy, or NAME=IMAGE (jpg/png/bmp, preprocessed by the recipe recorded at "
                  "import) (repeatable)");
  cmd->add_option("--inputs", args->inputsNpz, "Inputs keyed by name in an .npz");
  cmd->add_option("-o,--output", args->output, "Outputs keyed by name (.npz)")->required();
  cmd->add_option("--dump-intermediates", args->dumpIntermediates,
                  "Every op's result keyed by op name (.npz), for layer-by-layer comparison");
  cmd->add_flag("--precise", args->precise,
                "Compute every floating-point tensor unrounded in fp64 (the spec's reference_fp64 of 1.10 "
                "Compliance); float outputs and intermediates are written as float64");
  args->target.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return runVerb(*args);
  };
}

}  // namespace tosakit::cli
