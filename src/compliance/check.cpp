// checkResults: `tosakit check` as a library call. Three ways of judging:
//   forced mode (--mode): every output by one compliance mode (conformance test.json semantics);
//   per output (default): each output by the rule of the operator that produced it, walking back through
//     exact data-movement ops; outputs whose data went through more than one inexact operator are not judged;
//   per op (--intermediates): every op re-run in fp64 on the implementation's own inputs to that op.
#include "tosakit/check.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "compliance/check_rules.h"
#include "compliance/check_single_op.h"
#include "compliance/compliance.h"
#include "compliance/datagen.h"
#include "formats/npy/npy.h"
#include "tosakit/model_io.h"

namespace tosakit {

using compliance::OpRule;
using compliance::RuleKind;

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Compliant: return "compliant";
    case Verdict::NotCompliant: return "NOT compliant";
    case Verdict::NotJudged: return "not judged";
  }
  return "?";
}

int CheckReport::count(Verdict v) const {
  int n = 0;
  for (const CheckEntry& e : entries) n += e.verdict == v;
  return n;
}

Verdict CheckReport::verdict() const {
  if (count(Verdict::NotCompliant) > 0) return Verdict::NotCompliant;
  if (count(Verdict::NotJudged) > 0 && !allowNotJudged) return Verdict::NotJudged;
  return Verdict::Compliant;
}

int CheckReport::exitCode() const {
  switch (verdict()) {
    case Verdict::Compliant: return 0;
    case Verdict::NotCompliant: return 1;
    case Verdict::NotJudged: return 7;
  }
  return 1;
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string fmtWorst(double w) {
  if (std::isnan(w)) return "-";
  if (std::isinf(w)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", w);
  return buf;
}

std::string label(const TensorSource& s, const char* what) { return s.path.empty() ? what : s.path; }

Result<NamedTensors> load(const TensorSource& s) {
  if (s.tensors) return *s.tensors;
  return npy::readNpz(s.path);
}

const Tensor* find(const NamedTensors& ts, const std::string& name) {
  for (const auto& [n, t] : ts)
    if (n == name) return &t;
  return nullptr;
}

// What every path needs: the function, its target, the data files.
struct Context {
  const CheckOptions* opt = nullptr;
  std::string modelPath;  // the model file (a pre-loaded module is written to a temporary one)
  std::string tempFile;
  ~Context() {
    if (!tempFile.empty()) std::remove(tempFile.c_str());
  }
  std::unique_ptr<ir::Module> owned;
  const ir::Module* module = nullptr;
  const ir::Function* fn = nullptr;
  ir::TargetEnv target;
  bool haveInputs = false;
  NamedTensors inputs;  // in argument order and declared dtypes
  NamedTensors result;
  std::map<const ir::Value*, std::string> names;  // op results as `run --dump-intermediates` names them
  int testSet = -1;
};

void replaceUses(ir::Block& b, const ir::Value* from, ir::Value* to) {
  for (auto& op : b.ops) {
    for (ir::Value*& v : op->operands)
      if (v == from) v = to;
    for (auto& r : op->regions)
      for (auto& blk : r->blocks) replaceUses(*blk, from, to);
  }
}

// The value of a cond_if condition that is a constant or a graph input.
std::optional<bool> knownCondition(const ir::Function& fn, const ir::Value* c, const NamedTensors& inputs) {
  const Tensor* t = nullptr;
  if (c->definingOp && c->definingOp->name == "tosa.const") {
    const ir::Attribute* a = c->definingOp->attr("values");
    if (a && a->tensor) t = a->tensor.get();
  } else if (!c->definingOp && c->ownerBlock == &fn.body && size_t(c->index) < inputs.size()) {
    t = &inputs[size_t(c->index)].second;
  }
  if (!t || t->size() != 1) return std::nullopt;
  return t->getInt(0) != 0;
}

// Replaces each top-level cond_if whose condition is known (a constant, or a graph input given) by the ops of
// the branch it takes: COND_IF runs exactly that branch, so an output computed there is judged by the rule
// of the op that computed it.
void inlineKnownBranches(ir::Function& fn, const NamedTensors& inputs) {
  ir::Block& body = fn.body;
  size_t i = 0;
  while (i < body.ops.size()) {
    ir::Operation& op = *body.ops[i];
    std::optional<bool> cond;
    if (op.name == "tosa.cond_if" && op.regions.size() == 2) cond = knownCondition(fn, op.operands[0], inputs);
    ir::Block* branch =
        cond && op.regions[*cond ? 0 : 1]->blocks.size() == 1 ? op.regions[*cond ? 0 : 1]->blocks[0].get() : nullptr;
    ir::Operation* yield = branch ? branch->terminator() : nullptr;
    if (!yield || yield->operands.size() != op.results.size()) {
      ++i;
      continue;
    }
    for (size_t a = 0; a < branch->args.size() && a + 1 < op.operands.size(); ++a)
      replaceUses(*branch, branch->args[a], op.operands[a + 1]);
    std::vector<ir::Value*> yielded = yield->operands, results = op.results;
    std::vector<std::unique_ptr<ir::Operation>> moved;
    for (auto& o : branch->ops)
      if (o.get() != yield) {
        o->parent = &body;
        moved.push_back(std::move(o));
      }
    body.ops.erase(body.ops.begin() + std::ptrdiff_t(i));  // the cond_if, with its emptied branch
    body.ops.insert(body.ops.begin() + std::ptrdiff_t(i), std::make_move_iterator(moved.begin()),
                    std::make_move_iterator(moved.end()));
    for (size_t k = 0; k < results.size(); ++k) replaceUses(body, results[k], yielded[k]);
    i += moved.size();
  }
}

// `check --backend B`: the implementation judged is tosakit's own backend B, run on the checked inputs from a
// private copy of the model (the session owns its module); its outputs (and per-op results) become the result.
Status runBackend(CheckOptions& o, Context& c) {
  auto m = loadModel(c.modelPath);
  if (!m) return m.status();
  SessionOptions so;
  so.target = c.target;
  so.backend = o.backend;
  so.threads = o.threads;
  auto session = Session::create(std::move(*m), so);
  if (!session) return session.status();
  RunOptions ro;
  ro.function = o.function;
  ro.captureIntermediates = o.backendIntermediates;
  RunResult run;
  TK_RETURN_IF_ERROR((*session)->run(c.inputs, run, ro));
  c.result = std::move(run.outputs);
  if (o.backendIntermediates) o.intermediates.tensors = std::move(run.intermediates);
  return Status::ok();
}

Status loadContext(CheckOptions& o, Context& c) {
  c.opt = &o;
  c.modelPath = o.model;
  if (o.module) {
    // The checks run private copies of the module (sessions own theirs): a pre-loaded one goes through text.
    static std::atomic<int> counter{0};
    c.tempFile = (std::filesystem::temp_directory_path() /
                  ("tosakit_check_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".mlir"))
                     .string();
    c.modelPath = c.tempFile;
    TK_RETURN_IF_ERROR(saveModel(*o.module, c.modelPath));
  }
  auto m = loadModel(c.modelPath);
  if (!m) return m.status();
  c.owned = std::move(*m);
  c.module = c.owned.get();
  c.fn = c.module->function(o.function);
  if (!c.fn) return Status::invalid(c.modelPath + ": no function '" + o.function + "'");
  c.target = c.module->target ? *c.module->target : ir::TargetEnv::all();
  if (!o.result.given() && o.backend.empty())
    return Status::invalid("check: no result given (--result, or --backend to judge a backend's own run)");
  if (o.result.given() && !o.backend.empty())
    return Status::invalid("check: --result and --backend exclude each other (judge a file, or a backend's run)");
  if (!o.backend.empty() && !o.inputs.given())
    return Status::invalid("check: --backend needs --inputs (the run's inputs)");
  if (o.backendIntermediates && (o.backend.empty() || o.intermediates.given()))
    return Status::invalid("check: judging a backend's per-op results needs --backend and no --intermediates file");
  if (o.result.given()) {
    auto r = load(o.result);
    if (!r) return r.status();
    c.result = std::move(*r);
  }
  if (o.inputs.given()) {
    auto in = load(o.inputs);
    if (!in) return in.status();
    std::string lbl = label(o.inputs, "inputs");
    for (size_t i = 0; i < c.fn->inputs().size(); ++i) {
      std::string name = c.fn->inputName(i);
      const Tensor* t = find(*in, name);
      if (!t) return Status::invalid(lbl + ": no input '" + name + "'");
      auto a = npy::adaptToDType(*t, c.fn->inputs()[i]->type.dtype, lbl + ": input '" + name + "'");
      if (!a) return a.status();
      c.inputs.emplace_back(name, std::move(*a));
    }
    c.haveInputs = true;
  }
  if (!o.backend.empty()) TK_RETURN_IF_ERROR(runBackend(o, c));
  // Per output: a branch taken for sure is judged as if inlined (runPrecise inlines its copy the same way).
  if (o.mode.empty() && !o.intermediates.given()) inlineKnownBranches(*c.owned->function(o.function), c.inputs);
  // Names of op results, as the session's capture names them (top-level ops in order; constants skipped).
  std::map<std::string, int> used;
  for (const auto& op : c.fn->body.ops) {
    if (op->name == "tosa.const" || op->name == "tosa.const_shape" || op->name == "func.return") continue;
    for (size_t i = 0; i < op->results.size(); ++i) {
      std::string name = intermediateName(*op, i);
      if (int n = ++used[name]; n > 1) name += "#" + std::to_string(n);
      c.names[op->results[i]] = name;
    }
  }
  return Status::ok();
}

// The implementation's output `i` in its declared dtype.
Result<Tensor> implOutput(const Context& c, size_t i) {
  std::string name = c.fn->outputName(i);
  std::string lbl = label(c.opt->result, "result");
  const Tensor* got = find(c.result, name);
  if (!got) return Status::invalid(lbl + ": no output '" + name + "'");
  return npy::adaptToDType(*got, c.fn->outputs()[i]->type.dtype, lbl + ": output '" + name + "'");
}

// Runs the whole function on the reference backend on the inputs: in precise mode (fp64 reference outputs
// and intermediates), or in the declared types (the spec's own execution, each op rounded as its pseudocode
// says).
Status runReference(const Context& c, RunResult& rr, bool precise) {
  auto copy = loadModel(c.modelPath);
  if (!copy) return copy.status();
  if (c.opt->mode.empty() && !c.opt->intermediates.given())
    inlineKnownBranches(*(*copy)->function(c.opt->function), c.inputs);
  SessionOptions so;
  so.backend = "ref";
  so.precise = precise;
  so.target = c.target;
  auto session = Session::create(std::move(*copy), so);
  if (!session) return session.status();
  RunOptions ro;
  ro.function = c.opt->function;
  ro.captureIntermediates = precise;
  return (*session)->run(c.inputs, rr, ro);
}

Status runPrecise(const Context& c, RunResult& rr) { return runReference(c, rr, true); }

// A tensor in the declared dtype `want`: npz conventions (bf16 as uint16, ...), or an fp64 precise-mode value
// of a float tensor (exact in `want` when it came out of exact operators).
Result<Tensor> toDeclared(const Tensor& t, DType want, const std::string& what) {
  if (t.dtype() == DType::FP64 && isFloat(want) && want != DType::FP64)
    return Tensor::fromDoubles(want, t.shape(), t.toDoubles());
  return npy::adaptToDType(t, want, what);
}

using Maybe = std::optional<Tensor>;

// Value of an operand from the graph inputs, the constants, or a table of op results (by intermediate name),
// in its declared dtype; nullopt when the table lacks it; an error when its dtype does not fit.
Result<std::optional<Tensor>> operandValue(const Context& c, const ir::Value* v,
                                           const std::map<std::string, const Tensor*>& results,
                                           const std::string& source) {
  if (v->type.isShape()) return Maybe(Tensor());
  if (!v->definingOp) {
    if (v->ownerBlock != &c.fn->body || size_t(v->index) >= c.inputs.size()) return Maybe();
    return Maybe(c.inputs[size_t(v->index)].second);
  }
  const ir::Operation* def = v->definingOp;
  if (def->name == "tosa.const") {
    const ir::Attribute* a = def->attr("values");
    if (!a || !a->tensor) return Maybe();
    return Maybe(*a->tensor);
  }
  auto n = c.names.find(v);
  if (n == c.names.end()) return Maybe();
  auto it = results.find(n->second);
  if (it == results.end()) return Maybe();
  auto t = toDeclared(*it->second, v->type.dtype, source + ": '" + n->second + "'");
  if (!t) return t.status();
  return std::optional<Tensor>(std::move(*t));
}

void fill(CheckEntry& e, const compliance::Judgement& j) {
  e.verdict = j.pass ? Verdict::Compliant : Verdict::NotCompliant;
  e.worst = j.worst;
  e.worstIndex = j.worstIndex;
  if (!j.pass) e.reason = j.reason;
}

void describeOp(CheckEntry& e, const ir::Operation& op) {
  e.op = op.name;
  e.location = op.loc.toString();
}

// ---- Appendix A provenance ----

bool feedsDotProduct(const ir::Function& fn, const ir::Value* arg) {
  static const std::set<std::string> dot = {"tosa.conv2d",           "tosa.conv3d", "tosa.depthwise_conv2d",
                                            "tosa.transpose_conv2d", "tosa.matmul", "tosa.avg_pool2d",
                                            "tosa.reduce_sum",       "tosa.fft2d",  "tosa.rfft2d"};
  for (const auto& op : fn.body.ops)
    if (dot.count(op->name))
      for (size_t i = 0; i < op->operands.size() && i < 3; ++i)
        if (op->operands[i] == arg) return true;
  return false;
}

// The test set S whose gen-data layout (Appendix A 5.3) the dot-product inputs follow bit for bit, or -1.
int detectTestSet(const Context& c) {
  std::vector<size_t> args;
  int64_t total = 0;
  for (size_t i = 0; i < c.fn->inputs().size(); ++i) {
    if (!isFloat(c.fn->inputs()[i]->type.dtype) || !feedsDotProduct(*c.fn, c.fn->inputs()[i])) continue;
    args.push_back(i);
    total += c.inputs[i].second.size();
  }
  if (args.empty() || total > (int64_t(1) << 22)) return -1;
  for (int S = 0; S <= 5; ++S) {
    auto gen = compliance::generateInputs(*c.fn, S, 0);
    if (!gen) return -1;
    bool all = true;
    for (size_t i : args) all = all && i < gen->size() && (*gen)[i].second.identical(c.inputs[i].second);
    if (all) return S;
  }
  return -1;
}

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
    if (!c.haveInputs) return Status::invalid("check: give --reference, or --inputs to compute the reference");
    rep.notes.push_back("no --reference: the reference backend's precise (fp64) outputs are the reference");
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
      return Status::invalid("mode " + mode->mode + " needs --bounds with '" + name + "'");
    CheckEntry e;
    e.name = name;
    e.rule = rule.name + " (--mode)";
    fill(e, compliance::judge(rule, *impl, refT, false, -1));
    rep.entries.push_back(std::move(e));
  }
  return Status::ok();
}

// ---- Per output ----

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
    e.reason = "judged against the spec's execution in the declared types: give --inputs";
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
    part.notJudged = "the rule of " + op->describe() + " needs the op's inputs: give --inputs";
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
  e.rule = join(rules) + (exactToo ? " + EXACT" : "");
  e.section = join(sections);
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
                     "): no single operator's rule applies; give --intermediates to judge op by op");
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
    return Status::invalid("check: give --inputs (to compute the fp64 reference and the bounds) or --reference");
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

// ---- Per op ----

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
    return Status::invalid("check: --intermediates needs --inputs (the graph's inputs feed its first ops)");
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

}  // namespace

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

// ---- Report formatting ----

namespace {

const char* verdictKey(Verdict v) {
  switch (v) {
    case Verdict::Compliant: return "compliant";
    case Verdict::NotCompliant: return "not_compliant";
    case Verdict::NotJudged: return "not_judged";
  }
  return "?";
}

}  // namespace

std::string CheckReport::notJudgedSummary() const {
  int n = count(Verdict::NotJudged);
  std::string what = std::to_string(n) + (perOp ? " result(s)" : " output(s)");
  if (allowNotJudged) return "not judged: " + what + " without a verdict, accepted by --allow-not-judged";
  std::string hint = perOp ? "dump every op's result (`tosakit run --dump-intermediates`)"
                           : "give --intermediates (as `tosakit run --dump-intermediates` writes them) to judge "
                             "op by op";
  return "not judged: " + what + " without a verdict (reasons above; exit 7): " + hint +
      ", or --allow-not-judged to accept them";
}

std::string CheckReport::toText() const {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({perOp ? "result" : "output", "op", "location", "rule", "worst/bound", "verdict"});
  for (const CheckEntry& e : entries)
    rows.push_back({e.name, e.op.empty() ? "-" : e.op, e.location.empty() ? "-" : e.location,
                    (e.rule.empty() ? "-" : e.rule) + (e.section.empty() ? "" : " [" + e.section + "]"),
                    fmtWorst(e.worst), verdictName(e.verdict)});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::ostringstream o;
  for (const std::string& n : notes) o << "(" << n << ")\n";
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      o << r[i];
      if (i + 1 < r.size()) o << std::string(width[i] - r[i].size() + 2, ' ');
    }
    o << "\n";
  }
  for (const CheckEntry& e : entries)
    if (e.verdict != Verdict::Compliant) o << e.name << ": " << verdictName(e.verdict) << ": " << e.reason << "\n";
  o << count(Verdict::Compliant) << " compliant, " << count(Verdict::NotCompliant) << " not compliant, "
    << count(Verdict::NotJudged) << " not judged\n";
  if (count(Verdict::NotJudged) > 0) o << notJudgedSummary() << "\n";
  return o.str();
}

std::string CheckReport::toJson() const {
  nlohmann::json j;
  j["per_op"] = perOp;
  j["compliant"] = compliant();
  j["notes"] = notes;
  nlohmann::json arr = nlohmann::json::array();
  for (const CheckEntry& e : entries) {
    nlohmann::json x;
    x["name"] = e.name;
    x["op"] = e.op;
    x["location"] = e.location;
    x["rule"] = e.rule;
    x["section"] = e.section;
    x["verdict"] = verdictKey(e.verdict);
    if (std::isnan(e.worst))
      x["worst"] = nullptr;
    else if (std::isinf(e.worst))
      x["worst"] = "inf";
    else
      x["worst"] = e.worst;
    x["worst_index"] = e.worstIndex;
    x["reason"] = e.reason;
    arr.push_back(std::move(x));
  }
  j["entries"] = std::move(arr);
  j["overall_verdict"] = verdictKey(verdict());
  j["exit_code"] = exitCode();
  j["allow_not_judged"] = allowNotJudged;
  if (count(Verdict::NotJudged) > 0) j["not_judged_summary"] = notJudgedSummary();
  j["counts"] = {{"compliant", count(Verdict::Compliant)},
                 {"not_compliant", count(Verdict::NotCompliant)},
                 {"not_judged", count(Verdict::NotJudged)}};
  return j.dump(1) + "\n";
}

}  // namespace tosakit
