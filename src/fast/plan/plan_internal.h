// ExecutionPlan's internals shared by its files: plan_compile.cpp (chains, fusion, slots), plan_memory.cpp
// (constants' release and rebuild, the arena), plan.cpp (running).
#pragma once
#include <omp.h>

#include <climits>
#include <map>

#include "fast/plan/plan.h"

namespace tosakit::fast {

struct ExecutionPlan::Slot {
  enum class Kind { Input, Constant, Arena, Alias };
  Kind kind = Kind::Arena;
  DType dtype = DType::FP32;
  Shape shape;
  int64_t bytes = 0;
  int inputIndex = -1;               // Input
  const Tensor* constant = nullptr;  // Constant (null while released)
  // Constant memory (docs/FAST.md, "Memory"): the module attribute that owns a tosa.const's tensor, or the
  // index in foldedConstants_ of a folded one; while compiling, the reads not compiled yet and whether every
  // compiled reader packed it; a kernel that can rebuild it (step, op, operand); whether it is released.
  // A constant reshaped at compile time can also be rebuilt from the folded constant (foldedInto); when the
  // fold is its only reader (onlyFolded), the folded constant stands for it in the plan's byte counts.
  ir::Attribute* attribute = nullptr;
  int foldedIndex = -1;
  int foldedInto = -1, foldedFrom = -1;
  bool onlyFolded = false;
  int readsLeft = 0;
  bool allReadersPacked = true;
  int packedStep = -1, packedOp = -1, packedOperand = -1;
  bool released = false;
  int aliasOf = -1;     // Alias: the slot whose bytes this one reinterprets (a reshape)
  int64_t offset = -1;  // Arena: byte offset
  int firstStep = INT_MAX, lastStep = -1;
};

struct ExecutionPlan::Step {
  // The absorbed held-back producers (OpChain::Producer), then the chain's absorbed ops from chainBegin on: the
  // order they run in on the reference kernels, and the order of the kernel's `in` rows.
  std::vector<const ir::Operation*> ops;
  int chainBegin = 0;
  std::unique_ptr<OpKernel> kernel;       // null: the reference kernel of ops[0] (a single op)
  std::vector<std::vector<int>> inSlots;  // per op, per operand; -1 = the result of an earlier op of the step
  std::vector<int> outSlots;              // results of the last absorbed op
  bool aliasOnly = false;                 // a reshape whose result aliases its input: nothing to run
  // oneDNN's blocked layouts multiply padding lanes by zero, so an inf/NaN input can turn a result the spec
  // defines (FP_SPECIAL) into NaN: run-time float operands are scanned and a non-finite value reruns the step
  // on the reference kernels.
  std::vector<int> specialGuard;
  // The kernel's operand and result views, built on the first run; later runs only refresh their data
  // pointers (inputs change per run), so the hot path allocates nothing.
  std::vector<std::vector<TensorView>> inViews;
  std::vector<TensorView> outViews;
  int profileIndex = -1;
  bool singleThread = false;  // too little work to wake other threads for (isSmallStep)
};

// The arena's alignment: every offset is a multiple of it from arenaBase_.
constexpr int64_t kAlign = 64;

// compileFunction's working state.
struct ExecutionPlan::CompileState {
  const ir::Function& fn;
  const ir::TargetEnv& target;
  const PlanOptions& opts;
  const FastKernelRegistry& registry;
  std::map<const ir::Value*, int> slotOf;
  std::map<const ir::Value*, int> uses;                       // reads by ops, the return included
  std::vector<const ir::Operation*> ops;                      // the non-constant ops in order (not the return)
  std::map<const ir::Value*, size_t> userIndex;               // a value's last user among ops
  std::map<const ir::Value*, const ir::Operation*> heldBack;  // result -> its producer, not compiled yet
};

// No inf or NaN among the elements of a floating-point tensor (fp32, fp16, bf16; other types: true).
bool allFinite(const void* data, DType t, int64_t n);
bool allFinite(const Tensor& t);

// Limits the calling thread's OpenMP regions (and oneDNN's) to one thread while alive.
class OneThreadScope {
 public:
  explicit OneThreadScope(bool on) : saved_(on ? omp_get_max_threads() : 0) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~OneThreadScope() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  OneThreadScope(const OneThreadScope&) = delete;
  OneThreadScope& operator=(const OneThreadScope&) = delete;

 private:
  int saved_;
};

}  // namespace tosakit::fast
