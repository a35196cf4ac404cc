// One op of a graph run on its own (precise mode), and index maps of data-movement chains.
#include "compliance/check_single_op.h"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <numeric>

#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::compliance {

namespace {

// Clones a shape operand's tosa.const_shape into the builder's function.
Result<ir::Value*> cloneShapeOperand(ir::Builder& b, const ir::Operation& op, size_t i) {
  const ir::Value* v = op.operands[i];
  const ir::Operation* def = v->definingOp;
  if (!def || def->name != "tosa.const_shape")
    return Status::unsupported(op.describe() + ": shape operand " + std::to_string(i) + " is not a tosa.const_shape");
  return b.create(def->name, {}, {v->type}, def->attrs, def->loc).results[0];
}

Result<std::vector<Tensor>> runModule(std::unique_ptr<ir::Module> m, const NamedTensors& inputs,
                                      const ir::TargetEnv& target, bool precise) {
  m->target = target;
  SessionOptions so;
  so.precise = precise;
  so.target = target;
  auto session = Session::create(std::move(m), so);
  if (!session) return session.status();
  RunResult rr;
  TK_RETURN_IF_ERROR((*session)->run(inputs, rr));
  std::vector<Tensor> outs;
  for (auto& [n, t] : rr.outputs) outs.push_back(std::move(t));
  return outs;
}

}  // namespace

Result<std::vector<Tensor>> runOpPrecise(const ir::Operation& op, const std::vector<Tensor>& operands,
                                         const ir::TargetEnv& target) {
  if (!op.regions.empty()) return Status::unsupported(op.describe() + ": an op with regions is not run alone");
  if (operands.size() != op.operands.size()) return Status::internal(op.describe() + ": operand count");
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  std::vector<ir::Value*> vals;
  NamedTensors inputs;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::Value* v = op.operands[i];
    const ir::Operation* def = v->definingOp;
    if (v->type.isShape()) {
      auto s = cloneShapeOperand(b, op, i);
      if (!s) return s.status();
      vals.push_back(*s);
    } else if (def && def->name == "tosa.const") {
      auto attrs = def->attrs;
      attrs["values"] = ir::Attribute::dense(operands[i]);
      vals.push_back(b.create("tosa.const", {}, {v->type}, attrs, def->loc).results[0]);
    } else {
      std::string name = "operand" + std::to_string(i);
      vals.push_back(b.input(v->type, name));
      inputs.emplace_back(name, operands[i]);
    }
  }
  std::vector<ir::ValueType> types;
  for (const ir::Value* r : op.results) types.push_back(r->type);
  ir::Operation& clone = b.create(op.name, vals, types, op.attrs, op.loc);
  b.output(clone.results);
  return runModule(std::move(m), inputs, target, true);
}

bool isMovementOp(const ir::Operation& op) {
  const std::string& n = op.name;
  if (n == "tosa.cast")
    return op.operands.size() == 1 && op.results.size() == 1 && op.operands[0]->type.dtype == op.results[0]->type.dtype;
  return n == "tosa.reshape" || n == "tosa.transpose" || n == "tosa.slice" || n == "tosa.reverse" || n == "tosa.tile" ||
      n == "tosa.identity" || n == "tosa.pad" || n == "tosa.concat" || n == "tosa.gather" || n == "tosa.scatter";
}

bool isDataOperand(const ir::Operation& op, size_t i) {
  if (i >= op.operands.size() || op.operands[i]->type.isShape()) return false;
  const std::string& n = op.name;
  if (n == "tosa.concat") return true;
  if (n == "tosa.pad" || n == "tosa.scatter") return i == 0 || i == 2;  // pad: input, pad_const
  return i == 0;
}

namespace {

// Builds the movement graph of `out` re-typed to i32: sources become inputs holding their element ids.
class MovementCloner {
 public:
  MovementCloner(ir::Builder& b, const OperandLookup& lookup) : b_(b), lookup_(lookup) {}

  Result<ir::Value*> clone(const ir::Value* v) {
    if (auto it = cloned_.find(v); it != cloned_.end()) return it->second;
    const ir::Operation* op = v->definingOp;
    ir::ValueType t = v->type;
    t.dtype = DType::I32;
    ir::Value* c = nullptr;
    if (!op || !isMovementOp(*op)) {
      c = b_.input(t, "source" + std::to_string(sources_.size()));
      sources_.push_back(v);
    } else {
      auto r = cloneOp(*op, t);
      if (!r) return r.status();
      c = *r;
    }
    cloned_[v] = c;
    return c;
  }

  const std::vector<const ir::Value*>& sources() const { return sources_; }

 private:
  Result<ir::Value*> cloneOp(const ir::Operation& op, const ir::ValueType& resultType) {
    std::vector<ir::Value*> vals;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      auto v = cloneOperand(op, i);
      if (!v) return v.status();
      vals.push_back(*v);
    }
    if (op.name == "tosa.cast") return b_.create("tosa.identity", vals, {resultType}, {}, op.loc).results[0];
    return b_.create(op.name, vals, {resultType}, op.attrs, op.loc).results[0];
  }

  Result<ir::Value*> cloneOperand(const ir::Operation& op, size_t i) {
    const ir::Value* v = op.operands[i];
    if (v->type.isShape()) return cloneShapeOperand(b_, op, i);
    if (isDataOperand(op, i)) return clone(v);
    auto t = lookup_(v);
    if (!t) return t.status();
    if (!*t) return Status::unsupported(op.describe() + ": the value of operand " + std::to_string(i) + " is unknown");
    return b_.create("tosa.const", {}, {v->type}, {{"values", ir::Attribute::dense(**t)}}, op.loc).results[0];
  }

  ir::Builder& b_;
  const OperandLookup& lookup_;
  std::map<const ir::Value*, ir::Value*> cloned_;
  std::vector<const ir::Value*> sources_;
};

}  // namespace

Result<Provenance> traceMovement(const ir::Value* out, const OperandLookup& lookup) {
  Provenance p;
  if (!out->definingOp || !isMovementOp(*out->definingOp)) {
    p.sources = {out};
    int64_t n = 1;
    for (int64_t d : out->type.dims) n *= d;
    p.source.assign(size_t(n), 0);
    p.element.resize(size_t(n));
    std::iota(p.element.begin(), p.element.end(), int64_t(0));
    return p;
  }
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  MovementCloner cloner(b, lookup);
  auto root = cloner.clone(out);
  if (!root) return root.status();
  b.output({*root});
  // Element ids: source s's element j is offsets[s] + j.
  NamedTensors inputs;
  std::vector<int64_t> offsets;
  int64_t next = 0;
  for (const ir::Value* s : cloner.sources()) {
    Tensor ids(DType::I32, s->type.dims);
    if (next + ids.size() > std::numeric_limits<int32_t>::max())
      return Status::unsupported("tracing data movement: more than 2^31 source elements");
    offsets.push_back(next);
    for (int64_t i = 0; i < ids.size(); ++i) ids.setInt(i, next + i);
    next += ids.size();
    inputs.emplace_back("source" + std::to_string(offsets.size() - 1), std::move(ids));
  }
  // i32 data movement is in every profile's reach: trace against all of them, whatever the model targets.
  auto outs = runModule(std::move(m), inputs, ir::TargetEnv::all(), false);
  if (!outs) return outs.status();
  p.sources = cloner.sources();
  std::vector<int64_t> ids = (*outs)[0].toInts();
  p.source.resize(ids.size());
  p.element.resize(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    size_t s = size_t(std::upper_bound(offsets.begin(), offsets.end(), ids[i]) - offsets.begin()) - 1;
    p.source[i] = int32_t(s);
    p.element[i] = ids[i] - offsets[s];
  }
  return p;
}

}  // namespace tosakit::compliance
