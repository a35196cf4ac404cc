// tosakit gen-data --model M.mlir -o inputs.npz [--set S] [--seed N] [--function F]
// Test inputs generated per spec Appendix A (src/compliance/datagen.h).
#include <iostream>

#include "compliance/datagen.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct GenArgs {
  std::string model;
  std::string function = "main";
  std::string output;
  int set = 0;
  uint32_t seed = 0;
};

int genDataVerb(const GenArgs& a) {
  auto module = loadModel(a.model);
  if (!module) return report(module.status());
  const ir::Function* fn = (*module)->function(a.function);
  if (!fn) return report(Status::invalid(a.model + ": no function '" + a.function + "'"));
  auto gen = compliance::generateInputs(*fn, a.set, a.seed);
  if (!gen) return report(gen.status().withContext(a.model));
  npy::NamedTensors out;
  for (auto& [n, t] : *gen) out.emplace_back(n, npy::toNumpyDType(t));
  if (Status s = npy::writeNpz(a.output, out); !s) return report(s);
  for (auto& [n, t] : *gen) std::cout << n << ": " << t.summary() << "\n";
  return kExitOk;
}

}  // namespace

VerbAction addGenDataVerb(CLI::App& app) {
  auto args = std::make_shared<GenArgs>();
  CLI::App* cmd = app.add_subcommand("gen-data",
                                     "Generate test inputs for a model per TOSA spec Appendix A (test sets S0..S5 for "
                                     "dot-product operators, pseudo-random set_data values for other inputs)");
  cmd->add_option("--model", args->model, "Model file (.mlir)")->required();
  cmd->add_option("--function", args->function, "Function")->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Inputs keyed by name (.npz)")->required();
  cmd->add_option("--set", args->set, "Test set S (0..5)")->capture_default_str()->check(CLI::Range(0, 5));
  cmd->add_option("--seed", args->seed, "Seed for inputs outside the Appendix A operator layouts")
      ->capture_default_str();
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return genDataVerb(*args);
  };
}

}  // namespace tosakit::cli
