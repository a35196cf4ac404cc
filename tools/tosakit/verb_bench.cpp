// tosakit bench: load and compile time, then latency min/median/max of repeated runs; --profile adds time per
// op type and per op (GFLOP/s for conv/matmul) and names the ops that fell back to reference kernels.
// The measuring is the library's (include/tosakit/bench.h); this verb parses flags and prints the report.
#include <iostream>

#include "backend_flags.h"
#include "tosakit/bench.h"
#include "verbs.h"

namespace tosakit::cli {
namespace {

struct BenchArgs {
  std::string model;
  std::string inputsNpz;
  bool json = false;
  BenchOptions options;
  // No TargetFlags: their --profile (TOSA profiles) would clash with bench's --profile (op timings); the
  // target comes from the module's tosa.target_env or is all profiles and extensions at level 8K.
  BackendFlags backend;
};

int benchVerb(BenchArgs& a) {
  if (!a.inputsNpz.empty()) a.options.inputs = InputSources::fromNpz(a.inputsNpz);
  a.backend.apply(a.options.session);
  auto r = benchModel(a.model, a.options);
  if (!r) return report(r.status());
  printNotes(r->notes);
  std::cout << r->toText();
  if (a.json) std::cout << r->toJson() << "\n";
  return kExitOk;
}

}  // namespace

VerbAction addBenchVerb(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  BenchOptions& o = args->options;
  CLI::App* cmd = app.add_subcommand("bench", "Measure compile time and run latency of a model");
  cmd->add_option("model", args->model, "Model file (.mlir or .spv)")->required();
  cmd->add_option("--function", o.function, "Function to run")->capture_default_str();
  cmd->add_option("--inputs", args->inputsNpz, "Inputs keyed by name (.npz); default: deterministic random data");
  cmd->add_option("--warmup", o.warmup, "Untimed runs first")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", o.iterations, "Timed runs")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("--profile", o.profile, "Time per op type and per op, GFLOP/s, reference fallbacks");
  cmd->add_flag("--json", args->json, "Print one JSON object as the last line");
  args->backend.add(cmd, "fast");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return benchVerb(*args);
  };
}

}  // namespace tosakit::cli
