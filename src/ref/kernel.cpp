#include "ref/kernel.h"

#include "core/numeric.h"

namespace tosakit::ref {

LevelLimits LevelLimits::forLevel(const std::string& level) {
  LevelLimits l;
  if (level == "none") {
    const int64_t big = int64_t(1) << 40;
    l = {big, big, big, big, 63, big, big};
  }
  return l;
}

static SpecVerdict verdictFor(const ir::Operation& op, const char* condition) {
  return SpecVerdict{op.name, op.loc.toString(), condition};
}

Status KernelContext::errorIf(const char* condition) const { return Status::specError(verdictFor(op, condition)); }
Status KernelContext::requireFailed(const char* condition) const {
  return Status::unpredictable(verdictFor(op, condition));
}
Status KernelContext::unsupported(const std::string& why) const {
  return Status::unsupported(op.describe() + ": " + why);
}

double KernelContext::roundFloat(DType t, double v) const { return precise ? v : roundToFloat(t, v); }

bool KernelContext::require(bool cond, const char* condition) {
  if (!cond && pending_.isOk()) pending_ = requireFailed(condition);
  return cond;
}
bool KernelContext::errorIfDeferred(bool cond, const char* condition) {
  if (cond && pending_.isOk()) pending_ = errorIf(condition);
  return !cond;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> n;
  for (auto& [k, v] : kernels_) n.push_back(k);
  return n;
}

const KernelRegistry& referenceKernels() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    registerTensorOperators(r);
    registerActivationFunctions(r);
    registerElementwiseBinary(r);
    registerElementwiseUnary(r);
    registerElementwiseTernary(r);
    registerComparison(r);
    registerReduction(r);
    registerDataLayout(r);
    registerScatterGather(r);
    registerImage(r);
    registerTypeConversion(r);
    registerDataNodes(r);
    registerCustom(r);
    registerControlFlow(r);
    registerVariable(r);
    registerShapeOperators(r);
    return r;
  }();
  return registry;
}

}  // namespace tosakit::ref
