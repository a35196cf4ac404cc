// Per output (the default of `tosakit check`): each output judged by the rule of the operator that produced
// its data, through data movement element by element; outputs of exact and correctly rounded sequences
// against the run in the declared types.
#include <algorithm>
#include <cmath>
#include <set>

#include "compliance/check_context.h"
#include "compliance/check_single_op.h"
#include "formats/npy/npy.h"

namespace tosakit::check_detail {

using compliance::OpRule;
using compliance::RuleKind;

namespace {

// The inexact operators among the transitive producers of op's operands.
std::vector<const ir::Operation*> inexactAncestors(const ir::Operation& op) {
  std::vector<const ir::Operation*> found, stack{&op};
  std::set<const ir::Operation*> seen;
  while (!stack.empty()) {
    const ir::Operation* cur = stack.back();
    stack.pop_back();
    for (const ir::Value* v : cur->operands) {
      const ir::Operation* d = v->definingOp;
      if (!d || !seen.insert(d).second) continue;
      if (!compliance::isExactOp(*d, size_t(v->index)) || !d->regions.empty()) found.push_back(d);
      stack.push_back(d);
    }
  }
  return found;
}

std::string listOps(const std::vector<const ir::Operation*>& ops) {
  std::string s;
  for (size_t i = 0; i < ops.size() && i < 4; ++i) s += (i ? ", " : "") + ops[i]->describe();
  if (ops.size() > 4) s += ", ...";
  return s;
}

// ---- Sequences of correctly rounded operators ----

// Every op the value depends on: its transitive producers and, for control flow among them, every op of
// their regions (the loop condition and body, both branches) with the producers of the values those use.
std::vector<const ir::Operation*> dependencies(const ir::Value* v) {
  std::vector<const ir::Operation*> found;
  std::vector<const ir::Value*> values{v};
  std::set<const ir::Operation*> seen;
  std::vector<const ir::Operation*> ops;
  auto visit = [&](const ir::Operation* op) {
    if (!op || !seen.insert(op).second) return;
    found.push_back(op);
    ops.push_back(op);
  };
  while (!values.empty() || !ops.empty()) {
    if (!values.empty()) {
      const ir::Value* cur = values.back();
      values.pop_back();
      visit(cur->definingOp);
      continue;
    }
    const ir::Operation* op = ops.back();
    ops.pop_back();
    for (const ir::Value* o : op->operands) values.push_back(o);
    for (const auto& r : op->regions)
      for (const auto& b : r->blocks)
        for (const auto& inner : b->ops) visit(inner.get());
  }
  return found;
}

// The ops among `deps` whose float results are neither exact nor correctly rounded (nullptr-free), and the
// names of the correctly rounded ones.
void classifySequence(const std::vector<const ir::Operation*>& deps, std::vector<const ir::Operation*>& loose,
                      std::set<std::string>& rounded) {
  for (const ir::Operation* op : deps) {
    if (op->name == "tosa.cond_if" || op->name == "tosa.while_loop" || op->name == "tosa.yield") continue;
    bool ok = true;
    for (size_t k = 0; k < op->results.size(); ++k) {
      if (compliance::isCorrectlyRounded(*op, k))
        rounded.insert(op->name.substr(op->name.find('.') + 1));
      else
        ok = ok && compliance::isExactOp(*op, k);
    }
    if (!ok) loose.push_back(op);
  }
}

struct PerOutputData {
  bool precise = false;
  RunResult rr;                       // precise outputs and intermediates
  std::optional<RunResult> declared;  // the run in the declared types (sequences of correctly rounded ops)
  std::map<std::string, const Tensor*> inter;
  NamedTensors givenRef;
  bool haveGivenRef = false;
};

// An output computed only by exact and correctly rounded operators, through any number of them (a loop
// body iterated, several ops in a row, a branch chosen at run time). Spec 1.10.3 "Operator sequence
// precision requirement": the sequence is compliant when it gives the result of per-op implementations each
// meeting its op's accuracy, its result rounded to nearest. Each op here allows 0.5 ulp of its exact result:
// the exact result rounded to nearest, so the sequence has one result, the spec's own execution in the
// declared types (1.10.1 tosa_test_compliance: exact match); it is compared with tosa_reference_check_fp(out,
// ref, 0) as the exact float operators are (any NaN, zero sign, flushed subnormals). Returns false (not this
// case) when some op on the way is neither exact nor correctly rounded.
bool judgeSequence(Context& c, PerOutputData& d, size_t i, const Tensor& impl, CheckEntry& e) {
  std::vector<const ir::Operation*> loose;
  std::set<std::string> rounded;
  classifySequence(dependencies(c.fn->outputs()[i]), loose, rounded);
  if (!loose.empty()) return false;
  std::string ops;
  for (const std::string& n : rounded) ops += (ops.empty() ? "" : ", ") + n;
  e.rule = "EXACT(sequence of correctly rounded ops" + (ops.empty() ? "" : ": " + ops) + ")";
  e.section = "1.10.3 Operator sequence";
  e.worst = kNaN;
  if (!c.haveInputs) {
    e.verdict = Verdict::NotJudged;
    e.reason = "judged against the spec's execution in the declared types: give inputs";
    return true;
  }
  if (!d.declared) {
    RunResult rr;
    Status st = runReference(c, rr, false);
    if (!st.isOk()) {
      e.verdict = Verdict::NotJudged;
      e.reason = "running it in the declared types: " + st.message();
      return true;
    }
    d.declared = std::move(rr);
  }
  compliance::OpRule rule;
  rule.kind = RuleKind::Exact;
  rule.name = e.rule;
  fill(e, compliance::judge(rule, impl, d.declared->outputs[i].second, false, -1));
  return true;
}

// The reference of output i: the given --reference (rounded when not fp64) or the precise run's.
Status outputReference(const Context& c, const PerOutputData& d, size_t i, Tensor& ref, bool& refRounded) {
  std::string name = c.fn->outputName(i);
  refRounded = false;
  if (!d.haveGivenRef) {
    ref = d.rr.outputs[i].second;
    return Status::ok();
  }
  const Tensor* r = find(d.givenRef, name);
  if (!r) return Status::invalid(label(c.opt->reference, "reference") + ": no output '" + name + "'");
  DType dt = c.fn->outputs()[i]->type.dtype;
  if (r->dtype() == DType::FP64 && isFloat(dt)) {
    ref = *r;
    return Status::ok();
  }
  auto a = npy::adaptToDType(*r, dt, "reference output '" + name + "'");
  if (!a) return a.status();
  ref = std::move(*a);
  refRounded = isFloat(dt) && dt != DType::FP64;
  return Status::ok();
}

// The elements of `t` at the linear indices `idx`, as a rank-1 tensor.
Tensor pick(const Tensor& t, const std::vector<int64_t>& idx) {
  Tensor r(t.dtype(), {int64_t(idx.size())});
  bool flt = isFloat(t.dtype());
  for (size_t i = 0; i < idx.size(); ++i) {
    if (flt)
      r.setFloat(int64_t(i), t.getFloat(idx[i]));
    else
      r.setInt(int64_t(i), t.getInt(idx[i]));
  }
  return r;
}

// The elements of an output copied from one source (a value before the data movement), judged by the rule of
// the source's producer for the source elements they copy.
struct SourcePart {
  const ir::Value* source = nullptr;
  std::vector<int64_t> out;   // output elements
  std::vector<int64_t> elem;  // the source element each copies
  OpRule rule;
  std::string notJudged;  // why no rule, when not empty
};

// The inexact and control-flow ops that keep the sources from being judged by their producer's rule alone:
// those before each producer, and producers with regions.
std::vector<const ir::Operation*> blockingOps(const compliance::Provenance& p) {
  std::vector<const ir::Operation*> found;
  std::set<const ir::Operation*> seen;
  for (const ir::Value* s : p.sources) {
    const ir::Operation* op = s->definingOp;
    if (!op) continue;
    std::vector<const ir::Operation*> before = inexactAncestors(*op);
    if (!op->regions.empty()) before.insert(before.begin(), op);
    for (const ir::Operation* b : before)
      if (seen.insert(b).second) found.push_back(b);
  }
  return found;
}

// Whether `elem` lists every element of a tensor of `size` elements exactly once (the dot-product mean and
// variance tests are over all of an op's results).
bool coversOnce(const std::vector<int64_t>& elem, int64_t size) {
  if (int64_t(elem.size()) != size) return false;
  std::vector<bool> hit(size_t(size), false);
  for (int64_t e : elem) {
    if (hit[size_t(e)]) return false;
    hit[size_t(e)] = true;
  }
  return true;
}

// The rule of part.source's producer restricted to the elements the part copies (EXACT for graph inputs and
// constants). `partRef`: the reference of the part's output elements.
Status sourceRule(Context& c, PerOutputData& d, SourcePart& part, const Tensor& partRef) {
  const ir::Value* src = part.source;
  const ir::Operation* op = src->definingOp;
  if (!op || op->name == "tosa.const") {
    part.rule.kind = RuleKind::Exact;
    part.rule.name = "EXACT";
    part.rule.section = op ? "2.14.1 CONST" : "";
    return Status::ok();
  }
  size_t k = size_t(src->index);
  std::vector<Tensor> operands;
  Tensor opRef;
  bool remap = d.precise;
  if (d.precise) {
    for (const ir::Value* o : op->operands) {
      auto t = operandValue(c, o, d.inter, "precise run");
      if (!t) return t.status();
      if (!*t) return Status::internal(op->describe() + ": operand value missing from the precise run");
      operands.push_back(std::move(**t));
    }
    auto it = d.inter.find(c.names[op->results[k]]);
    if (it == d.inter.end()) return Status::internal(op->describe() + ": result missing from the precise run");
    opRef = *it->second;
  } else if (compliance::ruleNeedsInputs(*op, k)) {
    part.notJudged = "the rule of " + op->describe() + " needs the op's inputs: give inputs";
    return Status::ok();
  } else {
    opRef = partRef;  // movement keeps values: a rule from the reference alone is computed on the elements
  }
  auto r = compliance::ruleFor(*op, k, operands, opRef, c.target);
  if (!r) {
    part.notJudged = r.status().message();
    return Status::ok();
  }
  part.rule = remap ? compliance::remapRule(*r, part.elem, {int64_t(part.elem.size())}) : std::move(*r);
  return Status::ok();
}

// Judges the parts of output i and fills the entry (several parts: concat of two convolutions, a padded
// result, ...).
void judgeParts(const Context& c, std::vector<SourcePart>& parts, const Tensor& impl, const Tensor& ref,
                bool refRounded, bool moved, CheckEntry& e) {
  std::vector<std::string> ops, locs, rules, sections;
  bool exactToo = false;
  for (const SourcePart& p : parts) {
    const ir::Operation* op = p.source->definingOp;
    bool deciding = op && op->name != "tosa.const" && p.rule.kind != RuleKind::Exact;
    if (!deciding && parts.size() > 1) {
      exactToo = true;
      continue;
    }
    ops.push_back(op ? op->name : "(input)");
    locs.push_back(op ? op->loc.toString() : "");
    rules.push_back(p.rule.name);
    if (!p.rule.section.empty()) sections.push_back(p.rule.section);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : "; ") + x;
    return s;
  };
  e.op = join(ops);
  e.location = join(locs);
  e.rule = rules.empty() ? "EXACT" : join(rules) + (exactToo ? " + EXACT" : "");
  e.section = join(sections);
  if (ops.empty()) e.op = "(exact sources)";  // several inputs, constants or exact ops: no deciding op
  e.verdict = Verdict::Compliant;
  e.worst = 0;
  for (SourcePart& p : parts) {
    const ir::Operation* op = p.source->definingOp;
    int s = -1;
    if (p.rule.kind == RuleKind::Dot && op && !op->operands[0]->definingOp) {
      int64_t size = 1;
      for (int64_t dim : p.source->type.dims) size *= dim;
      if (coversOnce(p.elem, size)) s = c.testSet;
    }
    compliance::Judgement j = compliance::judge(p.rule, pick(impl, p.out), pick(ref, p.out), refRounded, s);
    double w = std::isnan(j.worst) ? 0 : j.worst;
    if (j.worstIndex >= 0 && (e.worstIndex < 0 || w > e.worst)) {
      e.worst = w;
      e.worstIndex = p.out[size_t(j.worstIndex)];
    }
    if (j.pass || e.verdict == Verdict::NotCompliant) continue;
    e.verdict = Verdict::NotCompliant;
    std::string from = op ? op->describe() : "input '" + c.fn->inputName(size_t(p.source->index)) + "'";
    if (j.failIndex >= 0)
      e.reason = "element " + std::to_string(p.out[size_t(j.failIndex)]) +
          (moved ? " (" + from + " element " + std::to_string(p.elem[size_t(j.failIndex)]) + ")" : "") + ": " +
          j.failWhy;
    else
      e.reason = (moved ? from + ": " : "") + j.reason;
  }
}

// Judges output i by the rule of the operator that produced its data. Data movement after that operator
// (pad, concat, reshape, slice, transpose, tile, reverse, gather, scatter, identity) keeps each output element
// a copy of one element of it or of a constant: each element is judged by its own source's rule, with the
// bound computed for the element it copies, so several inexact operators may feed disjoint parts.
Status judgeOutput(Context& c, PerOutputData& d, size_t i, CheckEntry& e) {
  e.name = c.fn->outputName(i);
  const ir::Value* v = c.fn->outputs()[i];
  auto impl = implOutput(c, i);
  if (!impl) return impl.status();
  Tensor ref;
  bool refRounded = false;
  TK_RETURN_IF_ERROR(outputReference(c, d, i, ref, refRounded));
  auto notJudged = [&](const std::string& why) {
    e.verdict = Verdict::NotJudged;
    e.reason = why;
    e.worst = kNaN;
    return Status::ok();
  };
  auto lookup = [&](const ir::Value* x) { return operandValue(c, x, d.inter, "precise run"); };
  auto prov = compliance::traceMovement(v, lookup);
  if (!prov) return notJudged("tracing its data movement: " + prov.status().message());
  std::vector<const ir::Operation*> blocking = blockingOps(*prov);
  if (!blocking.empty()) {
    if (judgeSequence(c, d, i, *impl, e)) return Status::ok();
    size_t n = blocking.size();
    std::string list = listOps(blocking);
    for (const ir::Value* s : prov->sources)
      if (s->definingOp && s->definingOp->regions.empty() && !compliance::isExactOp(*s->definingOp, size_t(s->index))) {
        ++n;
        list += ", " + s->definingOp->describe();
      }
    const ir::Operation* shown = prov->sources.size() == 1 ? prov->sources[0]->definingOp : nullptr;
    describeOp(e, shown ? *shown : *blocking.front());
    return notJudged("its data went through " + std::to_string(n) + " inexact or control-flow operator(s) (" + list +
                     "): no single operator's rule applies; give intermediates to judge op by op");
  }
  std::vector<SourcePart> parts(prov->sources.size());
  for (size_t s = 0; s < parts.size(); ++s) parts[s].source = prov->sources[s];
  for (size_t k = 0; k < prov->source.size(); ++k) {
    SourcePart& p = parts[size_t(prov->source[k])];
    p.out.push_back(int64_t(k));
    p.elem.push_back(prov->element[k]);
  }
  parts.erase(std::remove_if(parts.begin(), parts.end(), [](const SourcePart& p) { return p.out.empty(); }),
              parts.end());
  for (SourcePart& p : parts) {
    TK_RETURN_IF_ERROR(sourceRule(c, d, p, pick(ref, p.out)));
    if (!p.notJudged.empty()) {
      if (p.source->definingOp) describeOp(e, *p.source->definingOp);
      return notJudged(p.notJudged);
    }
  }
  bool moved = v->definingOp && compliance::isMovementOp(*v->definingOp);
  judgeParts(c, parts, *impl, ref, refRounded, moved, e);
  return Status::ok();
}

}  // namespace

Status checkPerOutput(Context& c, CheckReport& rep) {
  PerOutputData d;
  if (c.opt->reference.given()) {
    auto r = load(c.opt->reference);
    if (!r) return r.status();
    d.givenRef = std::move(*r);
    d.haveGivenRef = true;
  }
  if (c.haveInputs) {
    TK_RETURN_IF_ERROR(runPrecise(c, d.rr));
    d.precise = true;
    for (const auto& [n, t] : d.rr.intermediates) d.inter[n] = &t;
    if (!d.haveGivenRef) rep.notes.push_back("reference: the reference backend in precise (fp64) mode");
  } else if (!d.haveGivenRef) {
    return Status::invalid("check: give inputs (to compute the fp64 reference and the bounds) or a reference")
        .withParameter("inputs");
  }
  for (size_t i = 0; i < c.fn->outputs().size(); ++i) {
    CheckEntry e;
    TK_RETURN_IF_ERROR(judgeOutput(c, d, i, e));
    rep.entries.push_back(std::move(e));
  }
  if (d.declared)
    rep.notes.push_back(
        "EXACT(sequence ...) outputs: reference is the reference backend's run in the declared "
        "types (each op rounded to nearest, spec 1.10.3 \"Operator sequence precision requirement\")");
  return Status::ok();
}

}  // namespace tosakit::check_detail
