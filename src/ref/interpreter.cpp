// Walks a function's ops in order, dispatching each to its reference kernel.
#include <map>

#include "ref/kernel.h"
#include "tosakit/backend.h"

namespace tosakit::ref {
namespace {

Tensor allocateFor(const ir::ValueType& t) {
  if (!t.isStatic()) return Tensor(t.dtype, {});
  return Tensor(t.dtype, t.isShape() ? Shape{t.dims[0]} : t.dims);
}

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "ref"; }

  Status run(const ir::Function& fn, const ir::TargetEnv& target, const std::vector<Tensor>& inputs,
             std::vector<Tensor>& outputs, const OpObserver& observer) override {
    target_ = &target;
    observer_ = observer;
    initVariables(*fn.module);
    return runBlock(fn.body, inputs, outputs);
  }

  void registerCustomOp(const std::string& operatorName, CustomOpImpl impl) override {
    customOps_[operatorName] = std::move(impl);
  }

 private:
  void initVariables(const ir::Module& m) {
    for (const ir::Variable& v : m.variables) {
      if (state_.variables.count(v.name)) continue;
      state_.variables[v.name] = v.initialValue ? *v.initialValue : allocateFor(v.type);
    }
  }

  Status runBlock(const ir::Block& block, const std::vector<Tensor>& args, std::vector<Tensor>& results) {
    std::map<const ir::Value*, Tensor> env;
    for (size_t i = 0; i < block.args.size() && i < args.size(); ++i) env[block.args[i]] = args[i];
    for (const auto& opPtr : block.ops) {
      const ir::Operation& op = *opPtr;
      if (op.name == "func.return" || op.name == "tosa.yield") {
        results.clear();
        for (const ir::Value* v : op.operands) results.push_back(lookup(env, v));
        return Status::ok();
      }
      std::vector<const Tensor*> in;
      for (const ir::Value* v : op.operands) {
        auto it = env.find(v);
        if (it == env.end()) return Status::internal(op.describe() + ": operand used before definition");
        in.push_back(&it->second);
      }
      std::vector<Tensor> out;
      for (const ir::Value* r : op.results) out.push_back(allocateFor(r->type));
      TK_RETURN_IF_ERROR(runOp(op, in, out));
      for (size_t i = 0; i < op.results.size(); ++i) {
        const ir::ValueType& t = op.results[i]->type;
        if (t.isStatic() && !t.isShape() && (out[i].shape() != t.dims || out[i].dtype() != t.dtype))
          return Status::internal(op.describe() + ": kernel produced " + out[i].summary(0) + " for result type " +
                                  t.toString());
      }
      if (observer_) observer_(op, out);
      for (size_t i = 0; i < op.results.size(); ++i) env[op.results[i]] = std::move(out[i]);
    }
    return Status::internal("block has no terminator");
  }

  static Tensor lookup(std::map<const ir::Value*, Tensor>& env, const ir::Value* v) {
    auto it = env.find(v);
    return it == env.end() ? Tensor() : it->second;
  }

  Status runOp(const ir::Operation& op, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
    if (op.name == "tosa.custom") {
      std::string opName = op.strAttr("operator_name");
      auto it = customOps_.find(opName);
      if (it == customOps_.end())
        return Status::unsupported(op.describe() + ": no implementation registered for custom operator '" +
                                   opName + "' (register one with Backend::registerCustomOp)");
      return it->second(op, in, out);
    }
    const Kernel* k = referenceKernels().find(op.name);
    if (!k) return Status::unsupported(op.describe() + ": operator not supported by the reference backend");
    KernelContext ctx(op, *target_, state_);
    ctx.runRegion = [this](const ir::Region& region, const std::vector<Tensor>& args, std::vector<Tensor>& results) {
      if (region.blocks.empty()) return Status::internal("empty region");
      return runBlock(*region.blocks.front(), args, results);
    };
    Status s = (*k)(ctx, in, out);
    if (!s.isOk()) return s;
    return ctx.result();
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
