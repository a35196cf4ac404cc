// ExecutionPlan: a TOSA function compiled once for the fast backend. Compilation resolves every value's type
// and shape, turns constants into read-only slots, groups single-consumer op chains into fused kernels
// (op_kernel.h), aliases reshapes onto their input, and assigns every intermediate an offset in one arena
// (a static memory plan: values whose lifetimes do not overlap share bytes). Ops without a fast kernel run
// their reference kernel inside the plan (per-op fallback), so every op the reference backend has works.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "fast/op_kernel.h"
#include "ir/graph.h"
#include "tosakit/backend.h"

namespace tosakit::fast {

struct PlanOptions {
  // Fuse op chains. Off when every op's result must be observable (intermediates, calibration).
  bool fuse = true;
};

using StepProfile = OpProfile;

class ExecutionPlan {
 public:
  static Result<std::unique_ptr<ExecutionPlan>> compile(const ir::Function& fn, const ir::TargetEnv& target,
                                                        const PlanOptions& opts);
  ~ExecutionPlan();

  // Inputs in argument order (declared dtypes and shapes, checked by the Session); outputs in result order.
  Status run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const OpObserver& observer);

  void setProfiling(bool on) { profiling_ = on; }
  const std::vector<StepProfile>& profile() const { return profiles_; }
  // Bytes of the activation arena and of the constants the plan keeps (weights, packed or not).
  int64_t arenaBytes() const { return arenaBytes_; }
  int64_t constantBytes() const { return constantBytes_; }
  // Operators that run their reference kernel (op name -> count).
  std::vector<std::pair<std::string, int>> fallbackOps() const;

 private:
  struct Slot;
  struct Step;
  ExecutionPlan() = default;
  Status compileFunction(const ir::Function& fn, const ir::TargetEnv& target, const PlanOptions& opts);
  Status planMemory();
  TensorView view(int slot) const;
  void* dataOf(int slot) const;
  Status runStep(Step& step);
  Status runStepOnReference(const Step& step);

  const ir::Function* fn_ = nullptr;
  const ir::TargetEnv* target_ = nullptr;
  std::vector<Slot> slots_;
  std::vector<Step> steps_;
  std::vector<int> inputSlots_, outputSlots_;
  std::vector<std::unique_ptr<Tensor>> foldedConstants_;  // reshapes of constants, folded at compile time
  std::vector<uint8_t> arena_;  // aligned within: offsets are multiples of 64 from arenaBase()
  uint8_t* arenaBase_ = nullptr;
  int64_t arenaBytes_ = 0, constantBytes_ = 0;
  std::vector<const Tensor*> inputTensors_;  // bound per run
  bool profiling_ = false;
  std::vector<StepProfile> profiles_;
};

}  // namespace tosakit::fast
