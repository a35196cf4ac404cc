// Walks a function's ops in order, dispatching each to its reference kernel.
#include <map>

#include "core/size_budget.h"
#include "ref/kernel.h"
#include "tosakit/backend.h"

namespace tosakit::ref {
namespace {

// Storage type of a tensor of declared type t: precise mode keeps every floating-point value unrounded in fp64.
DType storageType(DType t, bool precise) { return precise && isFloat(t) ? DType::FP64 : t; }

// Shapes come from the graph file: checked against the memory budget before allocating.
Result<Tensor> allocateFor(const ir::ValueType& t, bool precise, const std::string& what) {
  DType st = storageType(t.dtype, precise);
  if (!t.isStatic()) return Tensor(st, {});
  Shape shape = t.isShape() ? Shape{t.dims[0]} : t.dims;
  TK_RETURN_IF_ERROR(checkAllocation(st, shape, what));
  return Tensor(st, std::move(shape));
}

// A floating-point tensor as fp64 (exact: every narrower format is a subset of fp64); others unchanged.
Tensor toPrecise(const Tensor& t) {
  if (!isFloat(t.dtype()) || t.dtype() == DType::FP64) return t;
  Tensor out(DType::FP64, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) out.setFloat(i, t.getFloat(i));
  return out;
}

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "ref"; }

  Status run(const ir::Function& fn, const ir::TargetEnv& target, const std::vector<Tensor>& inputs,
             std::vector<Tensor>& outputs, const OpObserver& observer) override {
    target_ = &target;
    observer_ = observer;
    TK_RETURN_IF_ERROR(initVariables(*fn.module));
    if (!state_.precise) return runBlock(fn.body, inputs, outputs, nullptr);
    std::vector<Tensor> preciseInputs;
    for (const Tensor& t : inputs) preciseInputs.push_back(toPrecise(t));
    return runBlock(fn.body, preciseInputs, outputs, nullptr);
  }

  void setMaxLoopIterations(int64_t n) override { state_.maxLoopIterations = n; }

  Status setPrecise(bool on) override {
    state_.precise = on;
    return Status::ok();
  }

  void registerCustomOp(const std::string& operatorName, CustomOpImpl impl) override {
    customOps_[operatorName] = std::move(impl);
  }

 private:
  // Module-level tosa.variable declarations (spec 2.17.1) are declared at the start of every run; they are
  // allocated and initialized on the first run only, so their values persist across runs.
  Status initVariables(const ir::Module& m) {
    state_.variableSeen.clear();
    state_.nestingDepth = 0;
    for (const ir::Variable& v : m.variables) {
      state_.variableSeen[v.name] = true;
      if (state_.variables.count(v.name)) continue;
      if (v.initialValue) {
        state_.variables[v.name] = state_.precise ? toPrecise(*v.initialValue) : *v.initialValue;
      } else {
        auto t = allocateFor(v.type, state_.precise, "tosa.variable @" + v.name);
        if (!t) return t.status();
        state_.variables[v.name] = std::move(*t);
      }
      state_.variableTypes[v.name] = v.type.dtype;
      state_.variableWritten[v.name] = v.initialValue.has_value();
    }
    return Status::ok();
  }

  // Values of one block; regions (cond_if, while_loop) may use values of the enclosing blocks.
  struct Env {
    std::map<const ir::Value*, Tensor> values;
    const Env* parent = nullptr;
    const Tensor* find(const ir::Value* v) const {
      for (const Env* e = this; e; e = e->parent) {
        auto it = e->values.find(v);
        if (it != e->values.end()) return &it->second;
      }
      return nullptr;
    }
  };

  Status runBlock(const ir::Block& block, const std::vector<Tensor>& args, std::vector<Tensor>& results,
                  const Env* parent) {
    Env env;
    env.parent = parent;
    for (size_t i = 0; i < block.args.size() && i < args.size(); ++i) env.values[block.args[i]] = args[i];
    for (const auto& opPtr : block.ops) {
      const ir::Operation& op = *opPtr;
      if (op.name == "func.return" || op.name == "tosa.yield") {
        results.clear();
        for (const ir::Value* v : op.operands) {
          const Tensor* t = env.find(v);
          results.push_back(t ? *t : Tensor());
        }
        return Status::ok();
      }
      std::vector<const Tensor*> in;
      for (const ir::Value* v : op.operands) {
        const Tensor* t = env.find(v);
        if (!t) return Status::internal(op.describe() + ": operand used before definition");
        in.push_back(t);
      }
      std::vector<Tensor> out;
      for (const ir::Value* r : op.results) {
        auto t = allocateFor(r->type, state_.precise, op.describe() + ": result " + std::to_string(out.size()));
        if (!t) return t.status();
        out.push_back(std::move(*t));
      }
      TK_RETURN_IF_ERROR(runOp(op, in, out, env));
      for (size_t i = 0; i < op.results.size(); ++i) {
        // Kernels that copy a tensor of the declared type (tosa.const values) leave it to be widened here.
        if (state_.precise && isFloat(out[i].dtype()) && out[i].dtype() != DType::FP64) out[i] = toPrecise(out[i]);
        const ir::ValueType& t = op.results[i]->type;
        DType st = storageType(t.dtype, state_.precise);
        if (t.isStatic() && !t.isShape() && (out[i].shape() != t.dims || out[i].dtype() != st))
          return Status::internal(op.describe() + ": kernel produced " + out[i].summary(0) + " for result type " +
                                  t.toString());
      }
      if (observer_) observer_(op, out);
      for (size_t i = 0; i < op.results.size(); ++i) env.values[op.results[i]] = std::move(out[i]);
    }
    return Status::internal("block has no terminator");
  }

  Status runOp(const ir::Operation& op, const std::vector<const Tensor*>& in, std::vector<Tensor>& out,
               const Env& env) {
    if (op.name == "tosa.custom") {
      // The spec's checks (custom.cpp), then the registered implementation.
      if (const Kernel* checks = referenceKernels().find(op.name)) {
        KernelContext ctx(op, *target_, state_);
        if (state_.precise) declareTypes(op, in, out, ctx);
        TK_RETURN_IF_ERROR((*checks)(ctx, in, out));
        TK_RETURN_IF_ERROR(ctx.result());
      }
      std::string opName = op.strAttr("operator_name");
      auto it = customOps_.find(opName);
      if (it == customOps_.end())
        return Status::unsupported(op.describe() + ": no implementation registered for custom operator '" + opName +
                                   "' (register one with Backend::registerCustomOp)");
      return it->second(op, in, out);
    }
    const Kernel* k = referenceKernels().find(op.name);
    if (!k) return Status::unsupported(op.describe() + ": operator not supported by the reference backend");
    KernelContext ctx(op, *target_, state_);
    if (state_.precise) declareTypes(op, in, out, ctx);
    ctx.runRegion = [this, &env](const ir::Region& region, const std::vector<Tensor>& args,
                                 std::vector<Tensor>& results) {
      if (region.blocks.empty()) return Status::internal("empty region");
      return runBlock(*region.blocks.front(), args, results, &env);
    };
    Status s = (*k)(ctx, in, out);
    if (!s.isOk()) return s;
    return ctx.result();
  }

  // Precise mode: the declared element type of every operand and result stored as fp64 in place of a narrower
  // floating-point type, so kernels judge the spec's type rules on the graph's types.
  static void declareTypes(const ir::Operation& op, const std::vector<const Tensor*>& in,
                           const std::vector<Tensor>& out, KernelContext& ctx) {
    for (size_t i = 0; i < in.size() && i < op.operands.size(); ++i)
      if (in[i]->dtype() == DType::FP64 && op.operands[i]->type.dtype != DType::FP64)
        ctx.declared.emplace_back(in[i], op.operands[i]->type.dtype);
    for (size_t i = 0; i < out.size() && i < op.results.size(); ++i)
      if (out[i].dtype() == DType::FP64 && op.results[i]->type.dtype != DType::FP64)
        ctx.declared.emplace_back(&out[i], op.results[i]->type.dtype);
  }

  const ir::TargetEnv* target_ = nullptr;
  OpObserver observer_;
  ExecState state_;
  std::map<std::string, CustomOpImpl> customOps_;
};

}  // namespace
}  // namespace tosakit::ref

namespace tosakit {
std::unique_ptr<Backend> createReferenceBackend() { return std::make_unique<ref::ReferenceBackend>(); }
}  // namespace tosakit
