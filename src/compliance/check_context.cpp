// Loading what `tosakit check` judges and the reference runs (check_context.h).
#include "compliance/check_context.h"

#include <set>

#include "compliance/check_single_op.h"
#include "compliance/datagen.h"
#include "formats/npy/npy.h"
#include "ir/module_clone.h"
#include "tosakit/inputs.h"
#include "tosakit/model_io.h"

namespace tosakit::check_detail {

std::string label(const TensorSource& s, const char* what) { return s.path.empty() ? what : s.path; }

Result<NamedTensors> load(const TensorSource& s) {
  if (s.tensors) return *s.tensors;
  return npy::readNpz(s.path);
}

const Tensor* find(const NamedTensors& ts, const std::string& name) { return npy::findTensor(ts, name); }

namespace {

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

}  // namespace

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

namespace {

// The checked inputs, prepared by the one front door (include/tosakit/inputs.h: ONNX Runtime's types, numpy
// carrier dtypes, images by the recorded recipe) and put in argument order, every argument present.
Status loadInputs(const TensorSource& s, Context& c) {
  InputSources sources = s.tensors ? InputSources::fromTensors(*s.tensors) : InputSources::fromNpz(s.path);
  auto prepared = prepareInputs(*c.fn, sources);
  if (!prepared) return prepared.status();
  const std::string lbl = label(s, "inputs");
  for (size_t i = 0; i < c.fn->inputs().size(); ++i) {
    const std::string name = c.fn->inputName(i);
    const Tensor* t = find(prepared->tensors, name);
    if (!t) return Status::invalid(lbl + ": no input '" + name + "'");
    c.inputs.emplace_back(name, *t);
  }
  return Status::ok();
}

// `check --backend B`: the implementation judged is tosakit's own backend B, run on the checked inputs from a
// private copy of the model (the session owns its module); its outputs (and per-op results) become the result.
Status runBackend(CheckOptions& o, Context& c) {
  SessionOptions so;
  so.target = c.target;
  so.backend = o.backend;
  so.threads = o.threads;
  auto session = Session::create(ir::cloneModule(*c.pristine), so);
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

}  // namespace

Status loadContext(CheckOptions& o, Context& c) {
  c.opt = &o;
  c.modelLabel = o.module ? "<module>" : o.model;
  if (o.module) {
    c.pristine = ir::cloneModule(*o.module);
  } else {
    auto m = loadModel(o.model);
    if (!m) return m.status();
    c.pristine = std::move(*m);
  }
  c.owned = ir::cloneModule(*c.pristine);
  c.module = c.owned.get();
  c.fn = c.module->function(o.function);
  if (!c.fn) return Status::invalid(c.modelLabel + ": no function '" + o.function + "'");
  c.target = c.module->target ? *c.module->target : ir::TargetEnv::all();
  if (!o.result.given() && o.backend.empty())
    return Status::invalid("check: no result given (a result, or a backend to judge its own run)")
        .withParameter("result");
  if (o.result.given() && !o.backend.empty())
    return Status::invalid("check: result and backend exclude each other (judge a file, or a backend's run)")
        .withParameter("backend");
  if (!o.backend.empty() && !o.inputs.given())
    return Status::invalid("check: a backend's run needs the inputs of the run").withParameter("inputs");
  if (o.backendIntermediates && (o.backend.empty() || o.intermediates.given()))
    return Status::invalid("check: judging a backend's per-op results needs a backend and no intermediates file")
        .withParameter("per_op");
  if (o.result.given()) {
    auto r = load(o.result);
    if (!r) return r.status();
    c.result = std::move(*r);
  }
  if (o.inputs.given()) {
    TK_RETURN_IF_ERROR(loadInputs(o.inputs, c));
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
  auto copy = ir::cloneModule(*c.pristine);
  if (c.opt->mode.empty() && !c.opt->intermediates.given())
    inlineKnownBranches(*copy->function(c.opt->function), c.inputs);
  SessionOptions so;
  so.backend = "ref";
  so.precise = precise;
  so.target = c.target;
  auto session = Session::create(std::move(copy), so);
  if (!session) return session.status();
  RunOptions ro;
  ro.function = c.opt->function;
  ro.captureIntermediates = precise;
  return (*session)->run(c.inputs, rr, ro);
}

Status runPrecise(const Context& c, RunResult& rr) { return runReference(c, rr, true); }

namespace {

// A tensor in the declared dtype `want`: npz conventions (bf16 as uint16, ...), or an fp64 precise-mode value
// of a float tensor (exact in `want` when it came out of exact operators).
Result<Tensor> toDeclared(const Tensor& t, DType want, const std::string& what) {
  if (t.dtype() == DType::FP64 && isFloat(want) && want != DType::FP64)
    return Tensor::fromDoubles(want, t.shape(), t.toDoubles());
  return npy::adaptToDType(t, want, what);
}

using Maybe = std::optional<Tensor>;

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace tosakit::check_detail
