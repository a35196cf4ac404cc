// tosakit check --model M.mlir --result impl.npz [--inputs in.npz] [--intermediates layers.npz]
//                [--reference ref.npz] [--bounds b.npz] [--mode MODE] [--test-set S] [--json] [--function F]
// tosakit check --model M.mlir --inputs in.npz --backend fast [--threads N] [--per-op] [...]
// Judges an implementation's results with the TOSA compliance rules (spec 1.10, each operator's precision
// requirements; docs/COMPLIANCE.md). The work is tosakit::checkResults (include/tosakit/check.h).
#include <iostream>

#include "tosakit/check.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct CheckArgs {
  CheckOptions options;
  std::string inputs, result, reference, bounds, intermediates;
  bool json = false;
};

int checkVerb(CheckArgs& a) {
  CheckOptions& o = a.options;
  o.inputs.path = a.inputs;
  o.result.path = a.result;
  o.reference.path = a.reference;
  o.bounds.path = a.bounds;
  o.intermediates.path = a.intermediates;
  auto rep = checkResults(o);
  if (!rep) return report(rep.status());
  std::cout << (a.json ? rep->toJson(flagOf) : rep->toText(flagOf));
  return rep->exitCode();
}

}  // namespace

VerbAction addCheckVerb(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Judge an implementation's results with the TOSA compliance rules. Each output is judged by the accuracy "
      "rule of the operator that produced it (spec 1.10.3 and the operator's precision requirements), against "
      "the reference backend's precise (fp64) result on --inputs; after data movement (pad, concat, reshape, "
      "slice, transpose, tile, reverse, gather, scatter) each element by the rule and bound of the element it "
      "was copied from; outputs of loops, branches and chains of "
      "exact and correctly rounded ops (add, sub, mul, ...) exactly against the run in the declared types "
      "(1.10.3 operator sequence); with --intermediates every op is re-run in fp64 on the implementation's "
      "own inputs to that op and judged by its rule. --backend judges tosakit's own run on that backend instead "
      "of a --result file. Exit 0 when every result is compliant, 1 when one is NOT compliant, 7 when one is not "
      "judged (no single operator's rule applies, a dump is missing: give --intermediates) unless "
      "--allow-not-judged");
  CheckOptions& o = args->options;
  cmd->add_option("--model", o.model, "Model file (.mlir, .spv)")->required();
  cmd->add_option("--function", o.function, "Function")->capture_default_str();
  cmd->add_option("--inputs", args->inputs, "The graph's inputs keyed by name (.npz)");
  cmd->add_option("--result", args->result, "The implementation's outputs keyed by name (.npz)");
  cmd->add_option("--backend", o.backend,
                  "Instead of --result: run the model on this tosakit backend (fast or ref) on --inputs and judge "
                  "its outputs; the precise reference is always the reference backend's fp64 run")
      ->check(CLI::IsMember({"ref", "fast"}));
  cmd->add_option("--threads", o.threads, "Threads of the fast backend with --backend (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--per-op", o.backendIntermediates,
                "With --backend: judge every op's result of that run by its own rule (as --intermediates does)");
  cmd->add_option("--intermediates", args->intermediates,
                  "The implementation's per-op results (.npz), named as `tosakit run --dump-intermediates` "
                  "names them: judge op by op");
  cmd->add_option("--reference", args->reference,
                  "Reference outputs keyed by name (.npz): fp64 (expected_fp64) or in the output types");
  cmd->add_option("--bounds", args->bounds,
                  "Bound tensors keyed by output name (.npz), for --mode ABS_ERROR/DOT_PRODUCT");
  cmd->add_option("--mode", o.mode,
                  "Force one compliance mode on every output: EXACT, ULP:ulp=N, FP_SPECIAL, ABS_ERROR:base_bound=..., "
                  "DOT_PRODUCT:s=S,ksb=K, RELATIVE:max=..,scale=..,ulp_bound=.., REDUCE_PRODUCT:n=N, "
                  "RESCALE_INEXACT, or a test.json compliance entry as JSON. Default: each operator's own rule");
  cmd->add_option("--test-set", o.testSet,
                  "Appendix A test set S (0..5) the inputs come from: adds the dot-product mean/variance tests "
                  "(default: detected when the inputs are gen-data's layout)")
      ->check(CLI::Range(0, 5));
  cmd->add_flag("--allow-not-judged", o.allowNotJudged,
                "Accept results that cannot be judged (exit 0 instead of 7 when nothing is NOT compliant)");
  cmd->add_flag("--json", args->json, "Print the report as JSON");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return checkVerb(*args);
  };
}

}  // namespace tosakit::cli
