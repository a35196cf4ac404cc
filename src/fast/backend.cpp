// The fast backend: compiles each function once into an ExecutionPlan (cached per function; a second, unfused
// plan when every op's result must be observed) and runs it. Functions the plan cannot express (control-flow
// regions, variables, tosa.custom, dynamic shapes) run on the reference interpreter as a whole.
#include <map>

#include <omp.h>

#include "core/process_memory.h"
#include "fast/cpu_features.h"
#include "fast/plan/plan.h"
#include "tosakit/backend.h"

namespace tosakit::fast {

bool functionNeedsInterpreter(const ir::Function& fn);  // plan/plan_compile.cpp

void setNumThreads(int n) { omp_set_num_threads(n > 0 ? n : omp_get_num_procs()); }
int numThreads() { return omp_get_max_threads(); }

namespace {

class FastBackend : public Backend {
 public:
  std::string name() const override { return "fast"; }

  Status run(const ir::Function& fn, const ir::TargetEnv& target, const std::vector<Tensor>& inputs,
             std::vector<Tensor>& outputs, const OpObserver& observer) override {
    // A function with a plan was checked when it was compiled: the scan of every op is not repeated per run (it
    // was ~5% of the INT8 PaddleOCR classifier's 0.7 ms at one thread).
    if (!hasPlan(fn) && functionNeedsInterpreter(fn)) return interpreter().run(fn, target, inputs, outputs, observer);
    Result<ExecutionPlan*> plan = prepared(fn, target, /*fuse=*/!observer);
    if (!plan) return plan.status();
    (*plan)->setProfiling(profiling_);
    return (*plan)->run(inputs, outputs, observer);
  }

  void registerCustomOp(const std::string& operatorName, CustomOpImpl impl) override {
    interpreter().registerCustomOp(operatorName, std::move(impl));
  }
  void setMaxLoopIterations(int64_t n) override { interpreter().setMaxLoopIterations(n); }

  bool hasPlan(const ir::Function& fn) const {
    return plans_.count(std::make_pair(&fn, true)) || plans_.count(std::make_pair(&fn, false));
  }

  Result<ExecutionPlan*> prepared(const ir::Function& fn, const ir::TargetEnv& target, bool fuse) {
    auto key = std::make_pair(&fn, fuse);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second.get();
    // Another plan of the function reads the module's constants: the fused plan gives back what it released
    // first, and releases only while it is the function's only plan.
    auto other = plans_.find(std::make_pair(&fn, !fuse));
    if (other != plans_.end()) TK_RETURN_IF_ERROR(other->second->restoreConstants());
    PlanOptions opts;
    opts.fuse = fuse;
    opts.releasePackedConstants = releaseConstants_ && fuse && other == plans_.end();
    auto plan = ExecutionPlan::compile(fn, target, opts);
    if (!plan) return plan.status();
    ExecutionPlan* p = plan->get();
    plans_[key] = std::move(plan.value());
    // Compiling frees temporaries (weights widened for the zero-point and exactness tables) among live heap
    // blocks: their pages go back to the OS instead of staying resident while the model runs.
    returnFreedHeapToOs();
    return p;
  }

  void allowConstantRelease(bool on) override { releaseConstants_ = on; }
  Status restoreConstants() override {
    for (auto& [key, plan] : plans_) TK_RETURN_IF_ERROR(plan->restoreConstants());
    return Status::ok();
  }

  Status prepare(const ir::Function& fn, const ir::TargetEnv& target) override {
    if (functionNeedsInterpreter(fn)) return Status::ok();
    return prepared(fn, target, true).status();
  }
  void setProfiling(bool on) override { profiling_ = on; }
  PlanStats planStats(const ir::Function& fn) const override {
    PlanStats st;
    auto it = plans_.find({&fn, true});
    if (it == plans_.end()) return st;
    st.compiled = true;
    st.arenaBytes = it->second->arenaBytes();
    st.constantBytes = it->second->constantBytes();
    st.releasedConstantBytes = it->second->releasedConstantBytes();
    st.steps = it->second->profile();
    return st;
  }

 private:
  bool profiling_ = false;
  bool releaseConstants_ = false;  // allowConstantRelease
  Backend& interpreter() {
    if (!ref_) ref_ = createReferenceBackend();
    return *ref_;
  }
  std::unique_ptr<Backend> ref_;
  std::map<std::pair<const ir::Function*, bool>, std::unique_ptr<ExecutionPlan>> plans_;
};

}  // namespace

}  // namespace tosakit::fast

namespace tosakit {

std::unique_ptr<Backend> createFastBackend() { return std::make_unique<fast::FastBackend>(); }
void setFastBackendThreads(int n) { fast::setNumThreads(n); }

}  // namespace tosakit

namespace tosakit {

std::string fastIsaLevel() { return std::string(fast::cpu::isaName(fast::cpu::activeIsa())); }
std::string fastIsaMachineLevel() { return std::string(fast::cpu::isaName(fast::cpu::machineIsa())); }
std::vector<std::string> fastIsaLevels() {
  std::vector<std::string> names;
  for (fast::cpu::Isa level : fast::cpu::machineLevels()) names.emplace_back(fast::cpu::isaName(level));
  return names;
}
Status setFastIsaLevel(const std::string& level) { return fast::cpu::setLevel(level); }
Status fastIsaEnvironmentStatus() { return fast::cpu::environmentStatus(); }

}  // namespace tosakit
