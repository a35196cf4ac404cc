// The execution interface every backend implements (reference now, optimized later). Callers (Session, CLI,
// tests) see only this.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit {

// Called after each op with its result tensors (for layer-by-layer capture and comparison).
using OpObserver = std::function<void(const ir::Operation& op, const std::vector<Tensor>& results)>;

// Hook for tosa.custom: (operator name, domain name, implementation attrs, inputs) -> outputs.
using CustomOpImpl = std::function<Status(const ir::Operation& op, const std::vector<const Tensor*>& inputs,
                                          std::vector<Tensor>& outputs)>;

// Time and work of one step of a compiled plan, accumulated over runs (bench --profile).
struct OpProfile {
  std::string opType;    // "tosa.conv2d", or "tosa.conv2d+tosa.rescale+tosa.clamp" when fused
  std::string location;  // the first op's location name
  std::string impl;      // the kernel that ran: "onednn:brgconv:avx512_core", "ref (fallback)", "alias"
  double flops = 0;      // arithmetic work of one run (2 per multiply-accumulate); 0 when not counted
  double totalMs = 0;
  int64_t runs = 0;
  bool fallback = false;  // ran the reference kernel inside the plan
};

// What a backend prepared for one function: its memory plan and steps.
struct PlanStats {
  bool compiled = false;              // false: the function runs on an interpreter (no plan)
  int64_t arenaBytes = 0;             // activation arena of the static memory plan
  int64_t constantBytes = 0;          // constants the plan keeps (weights)
  int64_t releasedConstantBytes = 0;  // of which the module's copy is released (kept packed by the kernels)
  std::vector<OpProfile> steps;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Runs `fn` of its module on inputs (in argument order); fills outputs (in result order).
  virtual Status run(const ir::Function& fn, const ir::TargetEnv& target, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& outputs, const OpObserver& observer) = 0;
  // Registers an implementation of tosa.custom for `operatorName` (the op's operator_name attribute).
  virtual void registerCustomOp(const std::string& operatorName, CustomOpImpl impl) = 0;
  // Upper bound on the iterations of one while_loop before the run stops with an error (no hang).
  virtual void setMaxLoopIterations(int64_t n) = 0;
  // Precise mode: floating-point tensors computed and returned unrounded in fp64 (the spec's reference_fp64
  // of 1.10); a backend without it reports Unsupported when asked to turn it on.
  // Compiles `fn` ahead of its first run (the fast backend's plan); interpreters do nothing.
  virtual Status prepare(const ir::Function& fn, const ir::TargetEnv& target) { return Status::ok(); }
  // Per-step timing of later runs (bench --profile) and the plan of `fn` as prepared.
  virtual void setProfiling(bool on) {}
  virtual PlanStats planStats(const ir::Function& fn) const { return {}; }
  // The caller owns the module alone and reads its constants only after restoreConstants(): the backend may
  // then release the module's copy of each constant it packed (the fast backend; Session turns it on), and
  // gives them back on restoreConstants() or when a reference kernel needs one.
  virtual void allowConstantRelease(bool on) {}
  virtual Status restoreConstants() { return Status::ok(); }
  virtual Status setPrecise(bool on) {
    return on ? Status::unsupported("backend '" + name() + "' has no precise (fp64) mode") : Status::ok();
  }
};

// The reference backend (golden model); its variable state lives as long as the object.
std::unique_ptr<Backend> createReferenceBackend();
// The fast CPU backend (src/fast): functions compiled once into execution plans; integer results identical
// to the reference backend, float results within the spec's compliance bounds.
std::unique_ptr<Backend> createFastBackend();
// Threads of the process-wide pool the fast backend's kernels use (0 = all cores).
void setFastBackendThreads(int n);

// The fast backend's instruction-set level (docs/FAST.md, "ISA levels"): "baseline", "avx2", "avx2_vnni",
// "avx512" or "avx512_vnni". It is the machine's highest unless forced lower by the environment variable
// TOSAKIT_ISA or setFastIsaLevel(), and is fixed for the process when the first fast kernel is chosen.
std::string fastIsaLevel();
// The highest level this CPU supports, and every level it supports (lowest first).
std::string fastIsaMachineLevel();
std::vector<std::string> fastIsaLevels();
// Forces a level at or below the machine's (before the first model runs on the fast backend). Errors: an
// unknown name, a level this CPU lacks, a different level after it was fixed.
Status setFastIsaLevel(const std::string& level);
// The error of an invalid TOSAKIT_ISA (ok when unset or valid); Session::create reports it for the fast backend.
Status fastIsaEnvironmentStatus();

}  // namespace tosakit
