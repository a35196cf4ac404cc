// The state `tosakit check` judges with (tosakit::checkResults, include/tosakit/check.h) and what its three
// ways of judging share: the module and its private copies, the inputs and results in their declared types,
// the names of op results, the reference runs. Internal to src/compliance.
#pragma once
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "compliance/check_rules.h"
#include "tosakit/check.h"

namespace tosakit::check_detail {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string label(const TensorSource& s, const char* what);
Result<NamedTensors> load(const TensorSource& s);
const Tensor* find(const NamedTensors& ts, const std::string& name);

// What every path needs: the function, its target, the data files.
struct Context {
  const CheckOptions* opt = nullptr;
  std::string modelLabel;                // the model file, or "<module>" for a pre-loaded one
  std::unique_ptr<ir::Module> pristine;  // the model as given: runs get private copies (sessions own theirs)
  std::unique_ptr<ir::Module> owned;     // the copy analysed (known branches inlined)
  const ir::Module* module = nullptr;
  const ir::Function* fn = nullptr;
  ir::TargetEnv target;
  bool haveInputs = false;
  NamedTensors inputs;  // in argument order and declared dtypes
  NamedTensors result;
  std::map<const ir::Value*, std::string> names;  // op results as `run --dump-intermediates` names them
  int testSet = -1;
};

// Loads the model, the inputs and the result (or runs --backend); per output, inlines the branches a known
// condition takes.
Status loadContext(CheckOptions& o, Context& c);

// Replaces each top-level cond_if whose condition is known (a constant, or a graph input given) by the ops of
// the branch it takes.
void inlineKnownBranches(ir::Function& fn, const NamedTensors& inputs);

// The implementation's output `i` in its declared dtype.
Result<Tensor> implOutput(const Context& c, size_t i);

// Runs the whole function on the reference backend on the inputs: in precise mode (fp64 reference outputs
// and intermediates), or in the declared types.
Status runReference(const Context& c, RunResult& rr, bool precise);
Status runPrecise(const Context& c, RunResult& rr);

// Value of an operand from the graph inputs, the constants, or a table of op results (by intermediate name),
// in its declared dtype; nullopt when the table lacks it; an error when its dtype does not fit.
Result<std::optional<Tensor>> operandValue(const Context& c, const ir::Value* v,
                                           const std::map<std::string, const Tensor*>& results,
                                           const std::string& source);

void fill(CheckEntry& e, const compliance::Judgement& j);
void describeOp(CheckEntry& e, const ir::Operation& op);

// The test set S whose gen-data layout (Appendix A 5.3) the dot-product inputs follow bit for bit, or -1.
int detectTestSet(const Context& c);

// The ways of judging (check.cpp, check_output.cpp, check_per_op.cpp).
Status checkForced(Context& c, CheckReport& rep);
Status checkPerOutput(Context& c, CheckReport& rep);
Status checkPerOp(Context& c, CheckReport& rep);

}  // namespace tosakit::check_detail
