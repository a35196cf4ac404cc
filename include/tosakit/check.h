// Compliance checking of an implementation's results (spec 1.10 "Compliance", 1.10.3 "Dot product accuracy
// requirements", each operator's "Precision Requirements"): the library behind `tosakit check`, also bound by
// the Python package. docs/COMPLIANCE.md describes the rules.
//
//   CheckOptions o;
//   o.model = "m.mlir"; o.inputs.path = "in.npz"; o.result.path = "impl.npz";
//   auto report = checkResults(o);            // per output, each by its producing operator's rule
//   o.intermediates.path = "impl_layers.npz"; // per op: each op re-run in fp64 on the implementation's inputs
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit {

// A set of named tensors given either as a file (.npz) or in memory (tensors wins when set).
struct TensorSource {
  std::string path;
  std::optional<NamedTensors> tensors;
  bool given() const { return tensors.has_value() || !path.empty(); }
};

struct CheckOptions {
  std::string model;                   // .mlir / .spv (ignored when `module` is set)
  const ir::Module* module = nullptr;  // an already loaded module (not owned; deep-copied, ir/clone.h)
  std::string function = "main";
  TensorSource inputs;  // the graph's inputs (needed for the reference and the bounds)
  TensorSource result;  // the implementation's outputs (required unless `backend` is set)
  // Instead of `result`: run the model on this tosakit backend ("ref" or "fast") on `inputs` and judge its
  // outputs (`tosakit check --backend fast`: the fast backend judged by the spec's rules). `threads` as
  // SessionOptions::threads; the precise reference is always the reference backend's fp64 run.
  std::string backend;
  int threads = 0;
  // With `backend`: also judge every op's result of that run (as `intermediates` would).
  bool backendIntermediates = false;
  TensorSource reference;      // optional: fp64 reference (or in the output types)
  TensorSource bounds;         // optional: bound tensors for a forced ABS_ERROR / DOT_PRODUCT mode
  TensorSource intermediates;  // optional: every op's result, named as `run --dump-intermediates`
  std::string mode;            // forced compliance mode for every output ("" = per operator)
  int testSet = -1;            // Appendix A test set S (0..5) of the inputs; -1: detect gen-data
                               // provenance (else none: no dot-product mean/variance tests)
  // A result with no verdict ("not judged": no single operator's rule applies, a dump is missing, ...) makes
  // the report's verdict NotJudged (exit 7) unless this is set: then only NOT compliant results fail.
  bool allowNotJudged = false;
};

enum class Verdict { Compliant, NotCompliant, NotJudged };
const char* verdictName(Verdict v);  // "compliant", "NOT compliant", "not judged"

// One judged tensor: a graph output (default and forced modes) or an op's result (with intermediates).
struct CheckEntry {
  std::string name;      // output name, or the op result's intermediate name
  std::string op;        // deciding operator ("tosa.conv2d"), empty when none
  std::string location;  // the op's location
  std::string rule;      // e.g. "DOT_PRODUCT(ksb=3)", "ULP(0.5)", "EXACT"
  std::string section;   // spec section of the rule, e.g. "2.3.3 CONV2D"
  Verdict verdict = Verdict::Compliant;
  double worst = 0;  // largest error as a fraction of its bound (1 = at the bound); NaN when not measured
  int64_t worstIndex = -1;
  std::string reason;  // NOT compliant: the first failing element or statistic; not judged: why
};

struct CheckReport {
  bool perOp = false;           // entries are ops (with intermediates), else graph outputs
  bool allowNotJudged = false;  // CheckOptions::allowNotJudged
  std::vector<CheckEntry> entries;
  std::vector<std::string> notes;  // e.g. "test set S3 detected (gen-data layout)"
  int count(Verdict v) const;
  bool compliant() const { return count(Verdict::NotCompliant) == 0; }  // no entry NOT compliant
  // The whole report's verdict: NotCompliant when any entry is; else NotJudged when any entry is not judged
  // (unless allowNotJudged); else Compliant. A "not judged" result is never a silent pass.
  Verdict verdict() const;
  // The exit code `tosakit check` gives for it: 0 compliant, 1 NOT compliant, 7 not judged.
  int exitCode() const;
  // How a door spells a CheckOptions parameter ("allow_not_judged"): the CLI its flag, Python its keyword.
  // Empty: the parameter's own name.
  using Spelling = std::function<std::string(const std::string& parameter)>;
  // Why results are not judged and what to give, one line.
  std::string notJudgedSummary(const Spelling& spell = {}) const;
  std::string toText(const Spelling& spell = {}) const;  // the table `tosakit check` prints
  std::string toJson(const Spelling& spell = {}) const;  // `tosakit check --json`
};

// Judges the implementation's results. Errors (bad files, names, shapes, dtypes) are returned as Status;
// a non-compliant result is a report with a NotCompliant entry, not an error.
Result<CheckReport> checkResults(const CheckOptions& options);

}  // namespace tosakit
