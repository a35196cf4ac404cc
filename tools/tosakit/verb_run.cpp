// tosakit run MODEL [--function F] [--input NAME=FILE.npy ...] [--inputs FILE.npz] -o OUT.npz
//                   [--dump-intermediates FILE.npz] [--precise]
#include <filesystem>
#include <iostream>

#include "backend_flags.h"
#include "input_flags.h"
#include "target_flags.h"
#include "tosakit/inputs.h"
#include "tosakit/io_adapt.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
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
  bool tosaTypes = false;
  TargetFlags target;
  BackendFlags backend;
};

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
  InputSources sources;
  if (!a.inputsNpz.empty()) sources.npzFiles.push_back(a.inputsNpz);
  if (Status s = addNamedInputFiles(a.inputs, sources); !s) return report(s);
  auto inputs = prepareInputs(*fn, sources);
  if (!inputs) return report(inputs.status());
  printNotes(inputs->notes);

  SessionOptions so;
  so.target = *target;
  so.precise = a.precise;
  a.backend.apply(so, a.precise);
  auto session = Session::create(std::move(*module), so);
  if (!session) return report(session.status());
  RunOptions ro;
  ro.function = a.function;
  ro.captureIntermediates = !a.dumpIntermediates.empty();
  RunResult result;
  if (Status s = (*session)->run(inputs->tensors, result, ro); !s) return report(s);
  if (!a.tosaTypes) result.outputs = adaptOutputs(*fn, std::move(result.outputs));  // fn lives in the session
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
  CLI::App* cmd = app.add_subcommand("run", "Run a function of a TOSA model (reference or fast backend)");
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
  cmd->add_flag("--tosa-types", args->tosaTypes,
                "Write outputs in the function's TOSA types (i32, i8) instead of the ONNX types recorded at "
                "import (int64, uint8)");
  args->target.add(cmd);
  args->backend.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return runVerb(*args);
  };
}

}  // namespace tosakit::cli
