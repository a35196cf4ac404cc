#include "tosakit/session.h"

#include <map>
#include <set>

#include "ir/validate.h"

namespace tosakit {

// First static-validation error as a Status: Unsupported for unknown operators, else a SpecError whose
// condition is the failing ERROR_IF/LEVEL_CHECK text (or the type/profile/extension/CTC message).
static Status validationStatus(const ir::Module& m, const ir::TargetEnv& target) {
  ir::ValidateOptions opts;
  opts.allowRegionCaptures = true;  // the reference backend runs regions that use outer values
  auto diags = ir::validateModule(m, target, opts);
  if (diags.empty()) return Status::ok();
  const ir::Diagnostic& d = diags.front();
  std::string more = diags.size() > 1 ? " (+" + std::to_string(diags.size() - 1) + " more; see tosakit validate)" : "";
  if (d.kind == ir::Diagnostic::Kind::Unsupported) return Status::unsupported(d.toString() + more);
  std::string cond = d.message, extra;
  // Type, profile, extension and compile-time-constant violations have no ERROR_IF text of their own.
  if (cond.rfind("ERROR_IF(", 0) != 0 && cond.rfind("LEVEL_CHECK(", 0) != 0)
    return Status::error(StatusCode::SpecError, d.toString() + more);
  for (const char* head : {"ERROR_IF(", "LEVEL_CHECK("}) {
    if (cond.rfind(head, 0) != 0) continue;
    size_t depth = 0, i = 0;  // find the parenthesis that closes the condition
    for (; i < cond.size(); ++i) {
      if (cond[i] == '(') ++depth;
      if (cond[i] == ')' && --depth == 0) break;
    }
    if (i < cond.size()) {
      extra = cond.substr(i + 1);
      if (extra.rfind(" failed", 0) == 0) extra = extra.substr(7);
      if (extra.rfind(": ", 0) == 0) extra = extra.substr(2);
      // Kernels report LEVEL_CHECKs as the condition "LEVEL_CHECK(...)"; do the same.
      cond =
          head[0] == 'L' ? cond.substr(0, i + 1) : cond.substr(std::string(head).size(), i - std::string(head).size());
    }
  }
  return Status::specError({d.op, d.location, cond}, extra + more);
}

// The fast backend (src/fast, oneDNN) is linked only when the build has it (CMake option TOSAKIT_FAST);
// without it the golden model stands alone.
#ifdef TOSAKIT_HAVE_FAST
static Result<std::unique_ptr<Backend>> createFast(const SessionOptions& opts) {
  if (!opts.isa.empty()) TK_RETURN_IF_ERROR(setFastIsaLevel(opts.isa));
  TK_RETURN_IF_ERROR(fastIsaEnvironmentStatus());
  setFastBackendThreads(opts.threads);
  std::unique_ptr<Backend> b = createFastBackend();
  // The Session owns the module and hands it out only through module(), which restores the constants.
  b->allowConstantRelease(true);
  return b;
}
#else
static Result<std::unique_ptr<Backend>> createFast(const SessionOptions&) {
  return Status::unsupported("backend 'fast' is not in this build (configured with TOSAKIT_FAST=OFF); available: ref");
}
#endif

Result<std::unique_ptr<Session>> Session::create(std::unique_ptr<ir::Module> module, SessionOptions opts) {
  if (!module) return Status::invalid("no module");
  if (opts.backend != "ref" && opts.backend != "fast")
    return Status::invalid("unknown backend '" + opts.backend + "' (available: ref, fast)");
  if (opts.backend == "fast" && opts.precise)
    return Status::invalid("precise (fp64) mode needs the reference backend (backend ref)").withParameter("backend");
  std::unique_ptr<Session> s(new Session());
  s->module_ = std::move(module);
  if (s->module_->target)
    s->target_ = *s->module_->target;
  else if (opts.target)
    s->target_ = *opts.target;
  else
    s->target_ = ir::TargetEnv::all();
  if (opts.backend == "fast") {
    auto fast = createFast(opts);
    if (!fast) return fast.status();
    s->backend_ = std::move(fast).value();
  } else {
    s->backend_ = createReferenceBackend();
  }
  s->backend_->setMaxLoopIterations(opts.maxLoopIterations);
  TK_RETURN_IF_ERROR(s->backend_->setPrecise(opts.precise));
  return s;
}

const ir::Module& Session::module() const {
  // A failure (memory exhausted while rebuilding) leaves that constant's tensor null, which the readers of
  // constants (plans, kernels, validation) report as a missing value rather than reading wrong ones.
  (void)backend_->restoreConstants();
  return *module_;
}

Status Session::validateOnce() {
  if (validated_) return Status::ok();
  TK_RETURN_IF_ERROR(validationStatus(*module_, target_));
  validated_ = true;
  return Status::ok();
}

Status Session::prepare(const std::string& function) {
  const ir::Function* fn = module_->function(function);
  if (!fn) return Status::invalid("no function '" + function + "' in the module");
  TK_RETURN_IF_ERROR(validateOnce());
  return backend_->prepare(*fn, target_);
}

PlanStats Session::planStats(const std::string& function) const {
  const ir::Function* fn = module_->function(function);
  return fn ? backend_->planStats(*fn) : PlanStats();
}

std::vector<std::string> Session::inputNames(const std::string& function) const {
  std::vector<std::string> names;
  if (const ir::Function* f = module_->function(function))
    for (size_t i = 0; i < f->inputs().size(); ++i) names.push_back(f->inputName(i));
  return names;
}

std::vector<std::string> Session::outputNames(const std::string& function) const {
  std::vector<std::string> names;
  if (const ir::Function* f = module_->function(function))
    for (size_t i = 0; i < f->resultTypes.size(); ++i) names.push_back(f->outputName(i));
  return names;
}

std::string intermediateName(const ir::Operation& op, size_t resultIndex) {
  std::string base = !op.loc.name.empty()
      ? op.loc.name
      : op.name.substr(op.name.find('.') + 1) + "_" + std::to_string(op.results.empty() ? 0 : op.results[0]->id);
  return resultIndex == 0 ? base : base + ":" + std::to_string(resultIndex);
}

static Status checkInput(const std::string& name, const ir::ValueType& want, const Tensor& got) {
  if (got.dtype() != want.dtype)
    return Status::invalid("input '" + name + "': dtype " + std::string(dtypeName(got.dtype())) + ", expected " +
                           std::string(dtypeName(want.dtype)));
  if (want.kind == ir::ValueType::Kind::UnrankedTensor) return Status::ok();
  bool ok = got.shape().size() == want.dims.size();
  for (size_t i = 0; ok && i < want.dims.size(); ++i) ok = want.dims[i] < 0 || want.dims[i] == got.shape()[i];
  if (!ok)
    return Status::invalid("input '" + name + "': shape [" + shapeToString(got.shape()) + "], expected [" +
                           shapeToString(want.dims) + "]");
  return Status::ok();
}

Status Session::run(const NamedTensors& inputs, RunResult& result, const RunOptions& opts) {
  const ir::Function* fn = module_->function(opts.function);
  if (!fn) {
    std::string avail;
    for (auto& f : module_->functions) avail += (avail.empty() ? "" : ", ") + f->name;
    return Status::invalid("no function '" + opts.function + "' in the module (available: " + avail + ")");
  }
  std::vector<Tensor> args(fn->inputs().size());
  std::vector<bool> given(args.size(), false);
  for (const auto& [name, tensor] : inputs) {
    size_t idx = args.size();
    for (size_t i = 0; i < args.size(); ++i)
      if (fn->inputName(i) == name) idx = i;
    if (idx == args.size()) {
      std::string known;
      for (size_t i = 0; i < args.size(); ++i) known += (i ? ", " : "") + fn->inputName(i);
      return Status::invalid("unknown input '" + name + "' (function @" + fn->name + " takes: " + known + ")");
    }
    if (given[idx]) return Status::invalid("input '" + name + "' given twice");
    TK_RETURN_IF_ERROR(checkInput(name, fn->inputs()[idx]->type, tensor));
    args[idx] = tensor;
    given[idx] = true;
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (!given[i])
      return Status::invalid("missing input '" + fn->inputName(i) + "' of type " + fn->inputs()[i]->type.toString());

  result = RunResult();
  OpObserver observer;
  if (opts.captureIntermediates) {
    observer = [&result, used = std::map<std::string, int>()](const ir::Operation& op,
                                                              const std::vector<Tensor>& outs) mutable {
      // Constants are weights, not layer outputs.
      if (op.name == "tosa.const" || op.name == "tosa.const_shape") return;
      for (size_t i = 0; i < outs.size(); ++i) {
        std::string name = intermediateName(op, i);
        // Several ops may share a location name (an importer's helper ops, a loop body run repeatedly).
        if (int n = ++used[name]; n > 1) name += "#" + std::to_string(n);
        result.intermediates.emplace_back(name, outs[i]);
      }
    };
  }
  std::vector<Tensor> outs;
  // Reject a graph outside its target (types, profiles, extensions, levels, static ERROR_IFs) before running.
  TK_RETURN_IF_ERROR(validateOnce());
  TK_RETURN_IF_ERROR(backend_->run(*fn, target_, args, outs, observer));
  for (size_t i = 0; i < outs.size(); ++i) result.outputs.emplace_back(fn->outputName(i), std::move(outs[i]));
  return Status::ok();
}

}  // namespace tosakit
