// The fast backend's kernel interface. A kernel is compiled once per op (or per fused chain of ops) when a
// function's ExecutionPlan is built — weights packed, shapes and attributes resolved — and then run many
// times on views into the plan's statically planned arena. A factory that does not handle an op/type
// combination returns a null kernel: the plan then runs the reference kernel for that op (per-op fallback).
//
// Kernels must reproduce the reference backend bit for bit on integer results and stay within the spec's
// compliance bounds on floating-point results; tests/fast checks both against src/ref.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::fast {

// A typed, shaped, non-owning view of a dense row-major tensor (TOSA layout: NHWC for images).
struct TensorView {
  DType dtype = DType::FP32;
  Shape shape;
  void* data = nullptr;
  int64_t size() const { return numElements(shape); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data);
  }
};

// What a kernel factory sees at plan-compile time: a chain of ops where each op after the first consumes the
// previous op's (only) result and that result has no other user — e.g. conv2d -> rescale -> clamp, or
// matmul -> add(bias). The factory absorbs a prefix of the chain (at least the first op) and says how many.
struct OpChain {
  std::vector<const ir::Operation*> ops;
  // constants[k][j]: the value of operand j of ops[k] when it is a compile-time constant (tosa.const), else
  // null. Constants can be packed at compile time (weights, bias, rescale multipliers, tables).
  std::vector<std::vector<const Tensor*>> constants;
  // A producer the plan held back (FastKernelRegistry::allowProducer): an earlier op, not run yet, whose only
  // result has no user but operand j of ops[k] — e.g. the first operand's rescale in front of a quantized add,
  // which is not a linear predecessor of the chain. A kernel may compute it (CompiledKernel::producers);
  // otherwise the plan runs it as its own step just before the kernel's.
  struct Producer {
    const ir::Operation* op = nullptr;     // null: operand j has no held-back producer
    std::vector<const Tensor*> constants;  // as `constants`, for op's operands
  };
  std::vector<std::vector<Producer>> producers;  // producers[k][j]; empty when the plan offers none (unfused)
  const ir::TargetEnv* target = nullptr;
};

class OpKernel {
 public:
  virtual ~OpKernel() = default;
  // Which implementation ran, for `bench --profile`: e.g. "onednn:brgconv:avx512_core_vnni", "fast:rescale".
  virtual std::string implName() const = 0;
  // Arithmetic work of one run (2 per multiply-accumulate) for GFLOP/s in profiles; 0 when not meaningful.
  virtual double flops() const { return 0; }
  // in[k][j]: operand j of the k-th op of the step (constants included, pointing at their data): first the
  // absorbed producers (CompiledKernel::producers, in that order), then the absorbed ops of the chain. An
  // operand that is the result of another op of the step has data == nullptr (internal to the fused kernel).
  // out: the result views of the LAST absorbed op, preallocated with their declared types.
  virtual Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) = 0;

  // Whether run() itself returns rerunOnReference() when run-time operand j of op k (`in`'s indices) holds an
  // inf or NaN: it reads every value anyway (a bound check), so the plan's finiteness scan of that operand
  // before a oneDNN step would be a second pass over it (ExecutionPlan::Step::specialGuard).
  virtual bool rejectsNonFinite(int /*op*/, int /*operand*/) const { return false; }

  // After a successful run(): a bound on |every value| of the step's float results, which are then all finite,
  // given `firstOperandBound`, a bound on |in[0][0]| (INFINITY when unknown); INFINITY when the kernel cannot
  // vouch for them (an inf or NaN might be among them). The plan skips the finiteness scan of a value with a
  // finite bound, so a kernel returns one only when its arithmetic proves it (e.g. a clamp that no NaN can
  // reach), never from the data.
  virtual double resultAbsBound(double /*firstOperandBound*/) const { return INFINITY; }

  // Constant operands (op k, operand j: `in`'s indices) this kernel copied into storage of its own at compile time (packed
  // weights) and never reads through `in` at run time, each of which unpackConstant() can rebuild bit for
  // bit. The plan may then release the module's copy (in[k][j].data is null while released) and asks for it
  // back when a reference kernel needs it (docs/FAST.md, "Memory").
  virtual std::vector<std::pair<int, int>> packedConstants() const { return {}; }
  // The original tensor of a packedConstants() operand (its declared dtype and shape).
  virtual Result<Tensor> unpackConstant(int op, int operand) const {
    return Status::internal("kernel " + implName() + " keeps no copy of operand " + std::to_string(operand) +
                            " of op " + std::to_string(op));
  }
};

struct CompiledKernel {
  std::unique_ptr<OpKernel> kernel;  // null: not handled here
  int opsAbsorbed = 1;               // how many ops of the chain this kernel computes (>= 1 when kernel set)
  // The held-back producers (OpChain::producers[k][j], as (k, j), k < opsAbsorbed) this kernel computes too:
  // their results are never stored, their operands are the step's first `in` rows.
  std::vector<std::pair<int, int>> producers;
};

// Returns a null kernel (not an error) for ops/types it does not handle; an error Status only for a real
// failure (e.g. an ERROR_IF of the spec detected at compile time).
using KernelFactory = std::function<Result<CompiledKernel>(const OpChain& chain)>;

class FastKernelRegistry {
 public:
  // Several factories per op name are tried in registration order; the first non-null kernel wins.
  void add(const std::string& opName, KernelFactory f) { factories_[opName].push_back(std::move(f)); }
  const std::vector<KernelFactory>* find(const std::string& opName) const {
    auto it = factories_.find(opName);
    return it == factories_.end() ? nullptr : &it->second;
  }
  // An op some kernel may absorb as a held-back producer (OpChain::Producer). Only these are held back: holding
  // an op back moves it later in the schedule, which is worth it only where a kernel may then remove it.
  void allowProducer(const std::string& opName) { producerOps_.insert(opName); }
  bool producerAllowed(const std::string& opName) const { return producerOps_.count(opName) != 0; }

 private:
  std::map<std::string, std::vector<KernelFactory>> factories_;
  std::set<std::string> producerOps_;
};

// The fast kernels for this process's ISA level: kernel_list.cpp's implementations whose ISA the active level
// allows, per op in list order (built once).
const FastKernelRegistry& fastKernels();

// A step whose last op's i8 result has one user, the next op, an i8 -> i8 TABLE with 256 constant entries: a
// kernel computing both, `inner` writing the table's result buffer and the table looked up in place right after
// (while the values are in cache; one step less). Takes `inner` (its `in` gets the table's row appended) and
// returns null, leaving `inner` as it is, for any other table. kernels/int8/table.cpp.
std::unique_ptr<OpKernel> withTrailingTable(std::unique_ptr<OpKernel>& inner, const ir::Operation& table,
                                            const std::vector<const Tensor*>& constants);

// Threads used by fast kernels and oneDNN (one OpenMP pool for the process). 0 = all cores.
void setNumThreads(int n);
int numThreads();

}  // namespace tosakit::fast
