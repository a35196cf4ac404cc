// tosakit check --model M.mlir --result impl.npz [--inputs in.npz] [--reference ref.npz] [--bounds b.npz]
//                [--mode MODE] [--function F]
// Judges an implementation's outputs with the TOSA compliance rules (spec 1.10, 4.5.3; docs/COMPLIANCE.md).
#include <iostream>
#include <optional>

#include "compliance/compliance.h"
#include "formats/npy/npy.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct CheckArgs {
  std::string model;
  std::string function = "main";
  std::string inputs;
  std::string result;
  std::string reference;
  std::string bounds;
  std::string mode;
};

const Tensor* find(const NamedTensors& ts, const std::string& name) {
  for (const auto& [n, t] : ts)
    if (n == name) return &t;
  return nullptr;
}

Result<NamedTensors> readNpzFile(const std::string& path) {
  auto r = npy::readNpz(path);
  if (!r) return r.status();
  NamedTensors out;
  for (auto& [n, t] : *r) out.emplace_back(n, std::move(t));
  return out;
}

// Runs the model on the reference backend in precise mode: its unrounded fp64 outputs are the spec's
// reference_fp64 (1.10) when no --reference is given.
Status runReference(const CheckArgs& a, NamedTensors& outputs) {
  if (a.inputs.empty()) return Status::invalid("check: give --reference, or --inputs to compute the reference");
  auto module = loadModel(a.model);
  if (!module) return module.status();
  const ir::Function* fn = (*module)->function(a.function);
  if (!fn) return Status::invalid(a.model + ": no function '" + a.function + "'");
  auto npz = npy::readNpz(a.inputs);
  if (!npz) return npz.status();
  NamedTensors inputs;
  for (size_t i = 0; i < fn->inputs().size(); ++i) {
    std::string name = fn->inputName(i);
    const Tensor* t = nullptr;
    for (const auto& [n, x] : *npz)
      if (n == name) t = &x;
    if (!t) return Status::invalid(a.inputs + ": no input '" + name + "'");
    auto adapted = npy::adaptToDType(*t, fn->inputs()[i]->type.dtype, a.inputs + ": input '" + name + "'");
    if (!adapted) return adapted.status();
    inputs.emplace_back(name, std::move(*adapted));
  }
  SessionOptions so;
  so.precise = true;
  auto session = Session::create(std::move(*module), so);
  if (!session) return session.status();
  RunOptions ro;
  ro.function = a.function;
  RunResult rr;
  TK_RETURN_IF_ERROR((*session)->run(inputs, rr, ro));
  outputs = std::move(rr.outputs);
  return Status::ok();
}

int checkVerb(const CheckArgs& a) {
  std::optional<compliance::ComplianceMode> forced;
  if (!a.mode.empty()) {
    auto m = compliance::parseComplianceSpec(a.mode);
    if (!m) return report(m.status());
    forced = *m;
  }
  auto module = loadModel(a.model);
  if (!module) return report(module.status());
  const ir::Function* fn = (*module)->function(a.function);
  if (!fn) return report(Status::invalid(a.model + ": no function '" + a.function + "'"));
  auto impl = readNpzFile(a.result);
  if (!impl) return report(impl.status());
  NamedTensors ref;
  bool refIsFp64 = false;
  if (!a.reference.empty()) {
    auto r = readNpzFile(a.reference);
    if (!r) return report(r.status());
    ref = std::move(*r);
  } else {
    std::cout << "(no --reference: using the reference backend's precise (fp64) outputs)\n";
    if (Status s = runReference(a, ref); !s) return report(s);
  }
  NamedTensors bounds;
  if (!a.bounds.empty()) {
    auto b = readNpzFile(a.bounds);
    if (!b) return report(b.status());
    bounds = std::move(*b);
  }
  bool allOk = true;
  std::vector<ir::Value*> outs = fn->outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string name = fn->outputName(i);
    DType dt = outs[i]->type.dtype;
    const Tensor* got = find(*impl, name);
    if (!got) return report(Status::invalid(a.result + ": no output '" + name + "'"));
    auto implT = npy::adaptToDType(*got, dt, a.result + ": output '" + name + "'");
    if (!implT) return report(implT.status());
    const Tensor* r = find(ref, name);
    if (!r) return report(Status::invalid("reference has no output '" + name + "'"));
    refIsFp64 = r->dtype() == DType::FP64 && dt != DType::FP64;
    Tensor refT = *r;
    if (!refIsFp64) {
      auto adapted = npy::adaptToDType(*r, dt, "reference output '" + name + "'");
      if (!adapted) return report(adapted.status());
      refT = std::move(*adapted);
    }
    compliance::ComplianceMode mode;
    if (forced) {
      mode = *forced;
    } else if (isFloat(dt)) {
      // Default for floats: 0.5 ulp against an fp64 reference (given, or computed in precise mode); 1 ulp
      // against a --reference already rounded to the output type (the two roundings can each be half an ulp).
      mode.mode = "ULP";
      mode.ulp = refIsFp64 ? 0.5 : 1.0;
    }
    const Tensor* b = find(bounds, name);
    if (mode.needsBounds() && !b) return report(Status::invalid("mode " + mode.mode + " needs --bounds with '" + name + "'"));
    compliance::ComplianceResult res = compliance::checkTensor(mode, *implT, refT, b);
    if (res.pass) {
      std::cout << name << ": compliant\n";
    } else {
      std::cout << name << ": NOT compliant: " << mode.toString() << ": " << res.reason << "\n";
      allOk = false;
    }
  }
  return allOk ? kExitOk : 1;
}

}  // namespace

VerbAction addCheckVerb(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Judge an implementation's outputs with the TOSA compliance rules. Without --reference the model is run "
      "on --inputs by the reference backend in precise mode (every float computed unrounded in fp64) and those "
      "outputs serve as the spec's fp64 reference. Exit 0 when every output is compliant, 1 otherwise");
  cmd->add_option("--model", args->model, "Model file (.mlir)")->required();
  cmd->add_option("--function", args->function, "Function")->capture_default_str();
  cmd->add_option("--inputs", args->inputs, "Inputs keyed by name (.npz), to compute the reference");
  cmd->add_option("--result", args->result, "The implementation's outputs keyed by name (.npz)")->required();
  cmd->add_option("--reference", args->reference,
                  "Reference outputs keyed by name (.npz): fp64 (expected_fp64) or in the output types");
  cmd->add_option("--bounds", args->bounds, "Bound tensors keyed by output name (.npz; ABS_ERROR, DOT_PRODUCT)");
  cmd->add_option("--mode", args->mode,
                  "Compliance mode for every output: EXACT, ULP:ulp=N, FP_SPECIAL, ABS_ERROR:base_bound=..., "
                  "DOT_PRODUCT:s=S,ksb=K, RELATIVE:max=..,scale=..,ulp_bound=.., REDUCE_PRODUCT:n=N, "
                  "RESCALE_INEXACT, or a test.json compliance entry as JSON. Default: EXACT for integers, ULP");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return checkVerb(*args);
  };
}

}  // namespace tosakit::cli
