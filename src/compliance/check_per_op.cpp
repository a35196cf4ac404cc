// Per op (`tosakit check --intermediates`): every op re-run in fp64 on the implementation's own inputs to
// that op and its dumped result judged by the op's rule.
#include "compliance/check_context.h"
#include "compliance/check_single_op.h"
#include "formats/npy/npy.h"

namespace tosakit::check_detail {

using compliance::RuleKind;

Status checkPerOp(Context& c, CheckReport& rep) {
  rep.perOp = true;
  auto inter = load(c.opt->intermediates);
  if (!inter) return inter.status();
  std::map<std::string, const Tensor*> impl;
  for (const auto& [n, t] : *inter) impl[n] = &t;
  // A function output missing from the dump is taken from the result file.
  std::vector<ir::Value*> outs = c.fn->outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    auto n = c.names.find(outs[i]);
    if (n != c.names.end() && !impl.count(n->second))
      if (const Tensor* t = find(c.result, c.fn->outputName(i))) impl[n->second] = t;
  }
  if (!c.haveInputs && !c.fn->inputs().empty())
    return Status::invalid("check: intermediates need the inputs (the graph's inputs feed its first ops)")
        .withParameter("inputs");
  for (const auto& opPtr : c.fn->body.ops) {
    const ir::Operation& op = *opPtr;
    if (op.name == "tosa.const" || op.name == "tosa.const_shape" || op.name == "func.return") continue;
    std::vector<CheckEntry> entries(op.results.size());
    for (size_t k = 0; k < op.results.size(); ++k) {
      describeOp(entries[k], op);
      entries[k].name = c.names[op.results[k]];
      entries[k].section = "";
    }
    auto notJudged = [&](const std::string& why) {
      for (CheckEntry& e : entries) {
        e.verdict = Verdict::NotJudged;
        e.worst = kNaN;
        e.reason = why;
        rep.entries.push_back(e);
      }
    };
    if (!op.regions.empty()) {
      notJudged("control flow: the ops inside its regions are not judged one by one");
      continue;
    }
    std::vector<Tensor> operands;
    std::string missing;
    for (const ir::Value* v : op.operands) {
      auto t = operandValue(c, v, impl, label(c.opt->intermediates, "intermediates"));
      if (!t) return t.status();
      if (!*t) {
        auto n = c.names.find(v);
        missing = n != c.names.end() ? n->second : "an operand";
        break;
      }
      operands.push_back(std::move(**t));
    }
    if (!missing.empty()) {
      notJudged("its input '" + missing + "' is not in the dumped intermediates");
      continue;
    }
    auto ref = compliance::runOpPrecise(op, operands, c.target);
    if (!ref) {
      notJudged("re-running it on the implementation's inputs: " + ref.status().message());
      continue;
    }
    for (size_t k = 0; k < op.results.size(); ++k) {
      CheckEntry& e = entries[k];
      auto it = impl.find(e.name);
      if (it == impl.end()) {
        e.verdict = Verdict::NotJudged;
        e.worst = kNaN;
        e.reason = "its result is not in the dumped intermediates";
        rep.entries.push_back(e);
        continue;
      }
      auto got = npy::adaptToDType(*it->second, op.results[k]->type.dtype,
                                   label(c.opt->intermediates, "intermediates") + ": '" + e.name + "'");
      if (!got) return got.status();
      auto rule = compliance::ruleFor(op, k, operands, (*ref)[k], c.target);
      if (!rule) {
        e.verdict = Verdict::NotJudged;
        e.worst = kNaN;
        e.reason = rule.status().message();
        rep.entries.push_back(e);
        continue;
      }
      e.rule = rule->name;
      e.section = rule->section;
      bool fromInputs = !op.operands.empty() && !op.operands[0]->definingOp;
      int s = rule->kind == RuleKind::Dot && fromInputs ? c.testSet : -1;
      fill(e, compliance::judge(*rule, *got, (*ref)[k], false, s));
      rep.entries.push_back(e);
    }
  }
  return Status::ok();
}

}  // namespace tosakit::check_detail
