// checkResults: `tosakit check` as a library call. Three ways of judging:
//   forced mode (--mode, here): every output by one compliance mode (conformance test.json semantics);
//   per output (default, check_output.cpp): each output by the rule of the operator that produced it, element
//     by element through data movement; outputs whose data went through inexact operators in a row are not
//     judged (unless a sequence of correctly rounded ones);
//   per op (--intermediates, check_per_op.cpp): every op re-run in fp64 on the implementation's own inputs.
// check_context.cpp loads what they share; check_report.cpp formats the verdicts.
#include "tosakit/check.h"

#include "compliance/check_context.h"
#include "compliance/compliance.h"
#include "formats/npy/npy.h"

namespace tosakit {

namespace check_detail {

using compliance::OpRule;
using compliance::RuleKind;

// ---- Forced mode ----

Status checkForced(Context& c, CheckReport& rep) {
  const CheckOptions& o = *c.opt;
  auto mode = compliance::parseComplianceSpec(o.mode);
  if (!mode) return mode.status();
  NamedTensors ref;
  if (o.reference.given()) {
    auto r = load(o.reference);
    if (!r) return r.status();
    ref = std::move(*r);
  } else {
    if (!c.haveInputs)
      return Status::invalid("check: give a reference, or the inputs to compute it").withParameter("reference");
    rep.notes.push_back("no reference given: the reference backend's precise (fp64) outputs are the reference");
    RunResult rr;
    TK_RETURN_IF_ERROR(runPrecise(c, rr));
    ref = std::move(rr.outputs);
  }
  NamedTensors bounds;
  if (o.bounds.given()) {
    auto b = load(o.bounds);
    if (!b) return b.status();
    bounds = std::move(*b);
  }
  std::vector<ir::Value*> outs = c.fn->outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string name = c.fn->outputName(i);
    DType dt = outs[i]->type.dtype;
    auto impl = implOutput(c, i);
    if (!impl) return impl.status();
    const Tensor* r = find(ref, name);
    if (!r) return Status::invalid("reference has no output '" + name + "'");
    Tensor refT = *r;
    if (!(r->dtype() == DType::FP64 && dt != DType::FP64)) {
      auto a = npy::adaptToDType(*r, dt, "reference output '" + name + "'");
      if (!a) return a.status();
      refT = std::move(*a);
    }
    OpRule rule;
    rule.kind = RuleKind::Mode;
    rule.mode = *mode;
    rule.name = mode->toString();
    rule.modeBounds = find(bounds, name);
    if (mode->needsBounds() && !rule.modeBounds)
      return Status::invalid("mode " + mode->mode + " needs bounds with '" + name + "'").withParameter("bounds");
    CheckEntry e;
    e.name = name;
    e.rule = rule.name + " (mode)";
    fill(e, compliance::judge(rule, *impl, refT, false, -1));
    rep.entries.push_back(std::move(e));
  }
  return Status::ok();
}

}  // namespace check_detail

using namespace check_detail;

Result<CheckReport> checkResults(const CheckOptions& options) {
  CheckOptions o = options;  // with `backend`, the run's outputs (and per-op results) are filled in
  Context c;
  TK_RETURN_IF_ERROR(loadContext(o, c));
  CheckReport rep;
  rep.allowNotJudged = o.allowNotJudged;
  if (!o.mode.empty()) {
    TK_RETURN_IF_ERROR(checkForced(c, rep));
    return rep;
  }
  if (o.testSet > 5) return Status::invalid("check: test set " + std::to_string(o.testSet) + " (0..5)");
  c.testSet = o.testSet;
  if (c.testSet < 0 && c.haveInputs) {
    c.testSet = detectTestSet(c);
    if (c.testSet >= 0)
      rep.notes.push_back("inputs follow the Appendix A layout of test set S" + std::to_string(c.testSet) +
                          " (gen-data): dot-product mean/variance tests apply");
  }
  if (o.intermediates.given())
    TK_RETURN_IF_ERROR(checkPerOp(c, rep));
  else
    TK_RETURN_IF_ERROR(checkPerOutput(c, rep));
  return rep;
}

}  // namespace tosakit
