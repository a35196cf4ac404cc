// ExecutionPlan: a TOSA function compiled once for the fast backend. Compilation resolves every value's type
// and shape, turns constants into read-only slots, groups single-consumer op chains into fused kernels
// (op_kernel.h; a kernel may also compute an earlier single-use producer of one of its operands, which the plan
// holds back until then: OpChain::Producer), aliases reshapes onto their input, and assigns every intermediate an offset in one arena
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
  // Release the module's copy of a constant once every op reading it has been compiled into a kernel that
  // packed it and can rebuild it bit for bit (OpKernel::packedConstants). Only when nothing else can read the
  // module's tensor: the module holds the only reference, and no other plan of the function exists.
  bool releasePackedConstants = false;
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
  // Bytes of constants whose module copy is released at present (the packed copy remains in the kernels).
  int64_t releasedConstantBytes() const;
  // Gives every released constant back to the module (rebuilt from its kernel's packed copy), so that
  // readers of the module (another plan of the function, Session::module()) see all values again.
  Status restoreConstants();
  // Operators that run their reference kernel (op name -> count).
  std::vector<std::pair<std::string, int>> fallbackOps() const;

 private:
  struct Slot;
  struct Step;
  ExecutionPlan() = default;
  struct CompileState;
  Status compileFunction(const ir::Function& fn, const ir::TargetEnv& target, const PlanOptions& opts);
  int newSlot(CompileState& st, const ir::Value* v);
  Status collectOps(CompileState& st);
  bool foldConstantReshape(CompileState& st, const ir::Operation& op);
  std::vector<const Tensor*> constantsOf(CompileState& st, const ir::Operation* op);
  bool holdBack(const CompileState& st, size_t i) const;
  Status compileChains(CompileState& st);
  // region: the prefix lengths of a region (collectRegion) a kernel may take; null for a linear chain.
  Result<int> compileStep(CompileState& st, OpChain& chain, const std::vector<bool>* region = nullptr);
  Status chooseKernel(CompileState& st, OpChain& chain, Step& step, std::vector<const ir::Operation*>& chainOps,
                      std::vector<std::pair<int, int>>& absorbed, const std::vector<bool>* region);
  std::vector<size_t> collectRegion(const CompileState& st, size_t i, const std::vector<bool>& scheduled,
                                    std::vector<bool>& closed) const;
  Status wireOperands(CompileState& st, Step& step);
  void guardSpecials(Step& step) const;
  void aliasReshape(Step& step);
  void recordProfile(Step& step);
  Status finishFunction(CompileState& st);
  Status planMemory();
  TensorView view(int slot) const;
  void* dataOf(int slot) const;
  Status runStep(Step& step);
  Status runStepOnReference(const Step& step);
  int rootOf(int slot) const;  // the slot whose bytes an alias (a reshape) reinterprets; any other slot itself
  const Tensor* materializeFold(int slot);
  void noteConstantReads(const Step& step, int stepIndex);
  bool releaseConstant(int slot);
  Result<Tensor> rebuildConstant(int slot);
  Status restoreConstant(int slot);

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
  // Per root slot, this run: a bound on |every value| its producing step's kernel vouched for (every value
  // finite), INFINITY when unknown (inputs, reference kernels). A oneDNN step's finiteness scan skips an operand
  // with a finite bound (OpKernel::resultAbsBound).
  std::vector<double> runAbsBound_;
  bool profiling_ = false;
  bool releasePacked_ = false;  // PlanOptions::releasePackedConstants
  std::vector<StepProfile> profiles_;
};

}  // namespace tosakit::fast
