// One op of a graph run on its own (precise mode), and index maps of data-movement chains.
#include "compliance/check_single_op.h"

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

bool isMovementOp(const std::string& n) {
  return n == "tosa.reshape" || n == "tosa.transpose" || n == "tosa.slice" || n == "tosa.reverse" || n == "tosa.tile" ||
      n == "tosa.identity";
}

Result<std::vector<int64_t>> movementIndexMap(const std::vector<const ir::Operation*>& chain,
                                              const ir::TargetEnv& target) {
  if (chain.empty()) return Status::internal("empty movement chain");
  // The chain re-typed to i32 and run on the element indices of its source: each output element then holds
  // the index of the source element it copies.
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::ValueType srcType = chain.front()->operands[0]->type;
  srcType.dtype = DType::I32;
  ir::Value* cur = b.input(srcType, "indices");
  for (const ir::Operation* op : chain) {
    if (!isMovementOp(op->name)) return Status::internal(op->describe() + ": not a movement op");
    std::vector<ir::Value*> vals{cur};
    for (size_t i = 1; i < op->operands.size(); ++i) {
      auto s = cloneShapeOperand(b, *op, i);
      if (!s) return s.status();
      vals.push_back(*s);
    }
    ir::ValueType t = op->results[0]->type;
    t.dtype = DType::I32;
    cur = b.create(op->name, vals, {t}, op->attrs, op->loc).results[0];
  }
  b.output({cur});
  Tensor idx(DType::I32, chain.front()->operands[0]->type.dims);
  for (int64_t i = 0; i < idx.size(); ++i) idx.setInt(i, i);
  auto outs = runModule(std::move(m), {{"indices", idx}}, target, false);
  if (!outs) return outs.status();
  return (*outs)[0].toInts();
}

}  // namespace tosakit::compliance
