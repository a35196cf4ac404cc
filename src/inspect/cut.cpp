// tosakit cut: the subgraph between named tensors (TPU-MLIR's final.mlir truncation; docs/INSPECT.md).
#include <cstdio>
#include <map>
#include <set>

#include "core/file_io.h"
#include "inspect/inspect_internal.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/quantize.h"
#include "tosakit/session.h"

namespace tosakit {

namespace {

constexpr const char* kScaleAttr = "tosakit.qscale";
constexpr const char* kZpAttr = "tosakit.qzp";

struct NamedTensor {
  ir::Value* value = nullptr;
  bool inRegion = false;
};

// Every tensor by the name Session gives it (function inputs by inputName, outputs by outputName, op results by intermediateName with
// "#n" for repeats, constants excluded); names inside control-flow regions are marked so a cut can refuse them.
std::map<std::string, NamedTensor> tensorNames(const ir::Function& fn) {
  std::map<std::string, NamedTensor> names;
  for (size_t i = 0; i < fn.inputs().size(); ++i) names[fn.inputName(i)] = {fn.inputs()[i], false};
  std::map<std::string, int> used;
  for (const auto& op : fn.body.ops) {
    if (inspect::isConstant(*op)) continue;
    for (size_t i = 0; i < op->results.size(); ++i) {
      std::string name = intermediateName(*op, i);
      if (int n = ++used[name]; n > 1) name += "#" + std::to_string(n);
      names.emplace(name, NamedTensor{op->results[i], false});
    }
    for (const auto& region : op->regions)
      for (const auto& block : region->blocks)
        inspect::forEachOp(*block, [&](const ir::Operation& inner) {
          if (inspect::isConstant(inner) || inspect::isTerminator(inner)) return;
          for (size_t i = 0; i < inner.results.size(); ++i)
            names.emplace(intermediateName(inner, i), NamedTensor{inner.results[i], true});
        });
  }
  const std::vector<ir::Value*> outs = fn.outputs();
  for (size_t j = 0; j < outs.size(); ++j) names.emplace(fn.outputName(j), NamedTensor{outs[j], false});
  return names;
}

Result<std::vector<ir::Value*>> resolve(const std::map<std::string, NamedTensor>& names,
                                        const std::vector<std::string>& wanted, const std::string& what,
                                        const ir::Function& fn) {
  std::vector<ir::Value*> values;
  std::set<std::string> seen;
  for (const std::string& name : wanted) {
    if (!seen.insert(name).second) return Status::invalid(what + " '" + name + "' named twice");
    auto it = names.find(name);
    if (it == names.end())
      return Status::invalid(what + " '" + name + "': function '" + fn.name +
                             "' has no input or op result of that name (names as a run captures its intermediates)");
    if (it->second.inRegion)
      return Status::unsupported(what + " '" + name +
                                 "' is inside a control-flow region (cond_if/while_loop); cut at the op that owns it");
    values.push_back(it->second.value);
  }
  return values;
}

bool isTopLevel(const ir::Value* v, const ir::Function& fn) {
  return v->definingOp ? v->definingOp->parent == &fn.body : v->ownerBlock == &fn.body;
}

// The top-level ops the outputs need, walking back from them and stopping at the given tensors.
Result<std::set<const ir::Operation*>> neededOps(const ir::Function& fn, const std::vector<ir::Value*>& outputs,
                                                 const std::vector<std::string>& outputNames,
                                                 const std::set<const ir::Value*>& given) {
  std::set<const ir::Operation*> needed;
  std::set<const ir::Value*> visited;
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::vector<const ir::Value*> stack{outputs[k]};
    while (!stack.empty()) {
      const ir::Value* v = stack.back();
      stack.pop_back();
      if (given.count(v) || !visited.insert(v).second) continue;
      if (!v->definingOp) {
        const std::string input = fn.inputName(size_t(v->index));
        return Status::invalid("output '" + outputNames[k] + "' depends on function input '" + input +
                               "', which is neither computed nor given (add it to the inputs)");
      }
      const ir::Operation* op = v->definingOp;
      if (!needed.insert(op).second) continue;
      for (const ir::Value* operand : op->operands) stack.push_back(operand);
      for (const auto& region : op->regions)
        for (const auto& block : region->blocks)
          inspect::forEachOp(*block, [&](const ir::Operation& inner) {
            for (const ir::Value* operand : inner.operands)
              if (isTopLevel(operand, fn)) stack.push_back(operand);  // a capture from the enclosing block
          });
    }
  }
  return needed;
}

class OpCopier {
 public:
  OpCopier(ir::Module& dst, std::map<const ir::Value*, ir::Value*>& map) : dst_(dst), map_(map) {}

  Result<std::unique_ptr<ir::Operation>> copy(const ir::Operation& src, ir::Block& parent) {
    auto op = std::make_unique<ir::Operation>();
    op->name = src.name;
    op->attrs = src.attrs;
    op->loc = src.loc;
    op->parent = &parent;
    for (const ir::Value* v : src.operands) {
      auto it = map_.find(v);
      if (it == map_.end()) return Status::internal("cut: " + src.describe() + " uses a value not copied");
      op->operands.push_back(it->second);
    }
    for (const auto& region : src.regions) {
      auto r = std::make_unique<ir::Region>();
      r->parent = op.get();
      for (const auto& block : region->blocks) {
        auto nb = std::make_unique<ir::Block>();
        nb->parent = r.get();
        for (const ir::Value* a : block->args) {
          ir::Value* c = copyValue(a);
          c->ownerBlock = nb.get();
          nb->args.push_back(c);
        }
        for (const auto& inner : block->ops) {
          auto copied = copy(*inner, *nb);
          if (!copied) return copied.status();
          nb->ops.push_back(std::move(*copied));
        }
        r->blocks.push_back(std::move(nb));
      }
      op->regions.push_back(std::move(r));
    }
    for (const ir::Value* v : src.results) {
      ir::Value* c = copyValue(v);
      c->definingOp = op.get();
      op->results.push_back(c);
    }
    return op;
  }

  ir::Value* copyValue(const ir::Value* v) {
    ir::Value* c = dst_.newValue(v->type, v->name);
    c->id = v->id;  // keeps intermediateName() of unnamed ops as in the original
    c->index = v->index;
    map_[v] = c;
    return c;
  }

 private:
  ir::Module& dst_;
  std::map<const ir::Value*, ir::Value*>& map_;
};

// The attributes a tensor carries as an argument/result: the original function's own, or the scale and zero
// point its defining op records.
std::map<std::string, ir::Attribute> interfaceAttrs(const ir::Function& fn, const ir::Value* v) {
  if (!v->definingOp) {
    const size_t i = size_t(v->index);
    return i < fn.argAttrs.size() ? fn.argAttrs[i] : std::map<std::string, ir::Attribute>{};
  }
  const std::vector<ir::Value*> outs = fn.outputs();
  for (size_t j = 0; j < outs.size(); ++j)
    if (outs[j] == v && j < fn.resultAttrs.size()) return fn.resultAttrs[j];
  std::map<std::string, ir::Attribute> attrs;
  if (v->index == 0)
    for (const char* key : {kScaleAttr, kZpAttr})
      if (const ir::Attribute* a = v->definingOp->attr(key)) attrs[key] = *a;
  return attrs;
}

}  // namespace

Result<std::unique_ptr<ir::Module>> cutModel(const ir::Module& module, const CutOptions& options) {
  const ir::Function* fn = module.function(options.function);
  if (!fn) return Status::invalid("the model has no function '" + options.function + "'");
  if (options.outputs.empty()) return Status::invalid("cut: no outputs named");
  const auto names = tensorNames(*fn);
  auto inputs = resolve(names, options.inputs, "input", *fn);
  if (!inputs) return inputs.status();
  auto outputs = resolve(names, options.outputs, "output", *fn);
  if (!outputs) return outputs.status();
  const std::set<const ir::Value*> given(inputs->begin(), inputs->end());
  auto needed = neededOps(*fn, *outputs, options.outputs, given);
  if (!needed) return needed.status();

  auto out = std::make_unique<ir::Module>();
  out->target = module.target;
  out->variables = module.variables;
  ir::Function& nf = out->addFunction(fn->name);
  nf.loc = fn->loc;
  // Lets `run SUB --inputs layers.npz` take the whole intermediates dump (include/tosakit/io_adapt.h).
  nf.attrs["tosakit.cut_from"] = ir::Attribute::string(fn->name);
  std::map<const ir::Value*, ir::Value*> map;
  for (size_t k = 0; k < inputs->size(); ++k) {
    const ir::Value* v = (*inputs)[k];
    ir::Value* arg = out->newValue(v->type, options.inputs[k]);
    arg->id = v->id;
    arg->index = int(k);
    arg->ownerBlock = &nf.body;
    nf.body.args.push_back(arg);
    map[v] = arg;
    for (auto& [key, attr] : interfaceAttrs(*fn, v)) nf.setArgAttr(k, key, attr);
  }
  OpCopier copier(*out, map);
  for (const auto& op : fn->body.ops) {
    if (!needed->count(op.get())) continue;
    auto copied = copier.copy(*op, nf.body);
    if (!copied) return copied.status();
    nf.body.ops.push_back(std::move(*copied));
  }
  auto ret = std::make_unique<ir::Operation>();
  ret->name = "func.return";
  ret->parent = &nf.body;
  for (size_t k = 0; k < outputs->size(); ++k) {
    const ir::Value* v = (*outputs)[k];
    ret->operands.push_back(map.at(v));
    nf.resultTypes.push_back(v->type);
    nf.resultNames.push_back(options.outputs[k]);
    for (auto& [key, attr] : interfaceAttrs(*fn, v)) nf.setResultAttr(k, key, attr);
  }
  nf.body.ops.push_back(std::move(ret));
  return out;
}

}  // namespace tosakit
