// Session: load a module, validate it, run a named function on named inputs, return named outputs and,
// optionally, every intermediate tensor keyed by op name. Variables persist across runs of one Session.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosakit/backend.h"

namespace tosakit {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

struct SessionOptions {
  // Target used when the module has no tosa.target_env; nullopt = all profiles and extensions at level 8K.
  std::optional<ir::TargetEnv> target;
  // "ref" (the golden model) or "fast" (src/fast: compiled plans, oneDNN and vectorized kernels).
  std::string backend = "ref";
  // Threads of the fast backend's process-wide pool (0 = all cores); the reference backend is single-threaded.
  int threads = 0;
  // The fast backend's ISA level ("avx2", ...; setFastIsaLevel in backend.h); empty: TOSAKIT_ISA or the CPU's.
  std::string isa;
  // A while_loop exceeding this many iterations stops the run with an error instead of hanging.
  int64_t maxLoopIterations = 100000000;
  // Precise mode: every floating-point tensor (fp8e4m3, fp8e5m2, fp16, bf16, fp32) is computed and stored
  // unrounded as fp64, so outputs are the spec's reference_fp64 (1.10 "Compliance"): float inputs are
  // widened to fp64, float outputs are DType::FP64. Validation and ERROR_IFs still judge the declared types.
  bool precise = false;
};

struct RunOptions {
  std::string function = "main";
  bool captureIntermediates = false;
};

struct RunResult {
  NamedTensors outputs;
  NamedTensors intermediates;  // op result name -> tensor, in execution order (when captured)
};

class Session {
 public:
  // Takes ownership of the module.
  static Result<std::unique_ptr<Session>> create(std::unique_ptr<ir::Module> module, SessionOptions opts = {});

  // The whole module with every constant's values. The fast backend releases its module copy of the weights
  // it packed (docs/FAST.md, "Memory"); this gives them back first (rebuilt bit for bit from the packed
  // copies), so calling it after a fast run costs that memory again. For inputs, outputs and their types,
  // use function(), which restores nothing.
  const ir::Module& module() const;
  // The function's declaration (inputs, results, names, types); the values of constants it packed may be
  // released (null tensors) while the fast backend holds them packed. Null if there is no such function.
  const ir::Function* function(const std::string& name = "main") const { return module_->function(name); }
  const ir::TargetEnv& target() const { return target_; }
  std::vector<std::string> inputNames(const std::string& function = "main") const;
  std::vector<std::string> outputNames(const std::string& function = "main") const;

  // Inputs by name; every function argument must be given exactly once, with its declared dtype and shape.
  Status run(const NamedTensors& inputs, RunResult& result, const RunOptions& opts = {});
  // Validates the module (once per Session) and compiles `function` for the backend ahead of the first run.
  Status prepare(const std::string& function = "main");
  // The backend's plan of `function` (memory plan, per-step profile when profiling is on).
  PlanStats planStats(const std::string& function = "main") const;
  Backend& backend() { return *backend_; }

 private:
  Session() = default;
  std::unique_ptr<ir::Module> module_;
  ir::TargetEnv target_;
  std::unique_ptr<Backend> backend_;
  bool validated_ = false;  // the module passed validation for target_ (checked once, not per run)
  Status validateOnce();
};

// Name under which an op's result is captured: the op's location name if any (suffixed ":k" for result
// k > 0), else "<opname>_<value id>". A name seen before in the same run gets "#2", "#3", ... appended.
// Constants (tosa.const, tosa.const_shape) are not captured.
std::string intermediateName(const ir::Operation& op, size_t resultIndex);

}  // namespace tosakit
