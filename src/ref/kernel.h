// Reference kernels: the interface every operator implementation follows, and the spec's checking macros.
//
// A kernel receives the operation (attributes, location), its input tensors in operand order, and output
// tensors pre-allocated with the dtype and shape the graph declares for each result. It computes the outputs
// literally as the spec pseudocode says and returns Status::ok(), or the verdict of the first failing
// ERROR_IF / LEVEL_CHECK (error) or REQUIRE (unpredictable).
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::ref {

// Numbers of the spec's level (1.7 "Levels"). Level "none" lifts every limit.
struct LevelLimits {
  int64_t maxRank = 6, maxKernel = 8192, maxStride = 8192, maxScale = 256, maxLog2Size = 31, maxNesting = 6,
          maxTensorListSize = 64;
  static LevelLimits forLevel(const std::string& level);
};

// State that outlives one op: variables (persist across runs of a Session), nesting depth of regions.
struct ExecState {
  std::map<std::string, Tensor> variables;
  std::map<std::string, bool> variableWritten;
  std::map<std::string, bool> variableSeen;  // declared in the current graph execution (cleared per run)
  int nestingDepth = 0;
  // Guard against graphs that never terminate: a while_loop running more iterations than this stops with an
  // error instead of hanging (the spec sets no bound; the default is far above any real model).
  int64_t maxLoopIterations = 100000000;
  // Precise mode (SessionOptions::precise): every floating-point tensor holds unrounded fp64 values (storage
  // DType::FP64); the declared element type of each variable is kept here for the spec's type checks.
  bool precise = false;
  std::map<std::string, DType> variableTypes;
};

class KernelContext {
 public:
  KernelContext(const ir::Operation& op, const ir::TargetEnv& target, ExecState& state)
      : op(op), target(target), level(LevelLimits::forLevel(target.level)), state(state), precise(state.precise) {}

  const ir::Operation& op;
  const ir::TargetEnv& target;
  LevelLimits level;
  ExecState& state;
  // Runs a single-block region of `op` on argument tensors; set by the interpreter (cond_if, while_loop).
  std::function<Status(const ir::Region&, const std::vector<Tensor>&, std::vector<Tensor>&)> runRegion;

  // Precise mode: floating-point operands and results are stored as fp64 (unrounded) while the graph declares
  // fp8/fp16/bf16/fp32. `declared` maps those tensors to their declared element type; kernels judge the
  // spec's type rules and dispatch on dtypeOf() and skip every rounding to a narrower float format.
  // In normal mode `declared` is empty and dtypeOf(t) == t.dtype().
  bool precise = false;
  std::vector<std::pair<const Tensor*, DType>> declared;
  DType dtypeOf(const Tensor& t) const {
    for (const auto& [p, d] : declared)
      if (p == &t) return d;
    return t.dtype();
  }
  // round_to_nearest_float into t for an intermediate result; the identity in precise mode.
  double roundFloat(DType t, double v) const;

  Status errorIf(const char* condition) const;        // an ERROR_IF or LEVEL_CHECK held
  Status requireFailed(const char* condition) const;  // a REQUIRE did not hold
  Status unsupported(const std::string& why) const;   // type/attribute combination not implemented

  // REQUIRE / ERROR_IF inside helper functions (apply_scale_32, tensor_size, ...): the first failure is
  // recorded; kernels end with `return ctx.result();`.
  bool require(bool cond, const char* condition);
  bool errorIfDeferred(bool cond, const char* condition);
  bool failed() const { return !pending_.isOk(); }
  Status result() const { return pending_; }

 private:
  Status pending_;
};

using Kernel = std::function<Status(KernelContext&, const std::vector<const Tensor*>&, std::vector<Tensor>&)>;

class KernelRegistry {
 public:
  void add(const std::string& opName, Kernel k) { kernels_[opName] = std::move(k); }
  const Kernel* find(const std::string& opName) const {
    auto it = kernels_.find(opName);
    return it == kernels_.end() ? nullptr : &it->second;
  }
  std::vector<std::string> names() const;

 private:
  std::map<std::string, Kernel> kernels_;
};

// All reference kernels (built once).
const KernelRegistry& referenceKernels();

// One registration function per spec section (src/ref/<section>.cpp).
void registerTensorOperators(KernelRegistry& r);      // 2.3
void registerActivationFunctions(KernelRegistry& r);  // 2.4
void registerElementwiseBinary(KernelRegistry& r);    // 2.5
void registerElementwiseUnary(KernelRegistry& r);     // 2.6
void registerElementwiseTernary(KernelRegistry& r);   // 2.7
void registerComparison(KernelRegistry& r);           // 2.8
void registerReduction(KernelRegistry& r);            // 2.9
void registerDataLayout(KernelRegistry& r);           // 2.10
void registerScatterGather(KernelRegistry& r);        // 2.11
void registerImage(KernelRegistry& r);                // 2.12
void registerTypeConversion(KernelRegistry& r);       // 2.13
void registerDataNodes(KernelRegistry& r);            // 2.14
void registerCustom(KernelRegistry& r);               // 2.15
void registerControlFlow(KernelRegistry& r);          // 2.16
void registerVariable(KernelRegistry& r);             // 2.17
void registerShapeOperators(KernelRegistry& r);       // 2.18

}  // namespace tosakit::ref

// The spec's checks, used inside a kernel (needs a KernelContext named ctx in scope).
#define ERROR_IF(cond)                   \
  do {                                   \
    if (cond) return ctx.errorIf(#cond); \
  } while (0)
#define LEVEL_CHECK(cond)                                      \
  do {                                                         \
    if (!(cond)) return ctx.errorIf("LEVEL_CHECK(" #cond ")"); \
  } while (0)
#define REQUIRE(cond)                             \
  do {                                            \
    if (!(cond)) return ctx.requireFailed(#cond); \
  } while (0)
