#include "ir/module_clone.h"

#include <map>

namespace tosakit::ir {

namespace {

class Cloner {
 public:
  explicit Cloner(Module& dst) : dst_(dst) {}

  Value* copyValue(const Value* v) {
    Value* c = dst_.newValue(v->type, v->name);
    c->id = v->id;  // keeps intermediateName() stable
    c->index = v->index;
    map_[v] = c;
    return c;
  }

  Value* mapped(Value* v) {
    auto it = map_.find(v);
    return it == map_.end() ? v : it->second;  // values defined outside (never for a whole module)
  }

  void copyBlock(const Block& src, Block& dst, Region* parent) {
    dst.parent = parent;
    for (const Value* a : src.args) {
      Value* c = copyValue(a);
      c->ownerBlock = &dst;
      dst.args.push_back(c);
    }
    for (const auto& op : src.ops) dst.ops.push_back(copyOp(*op, dst));
  }

  std::unique_ptr<Operation> copyOp(const Operation& src, Block& parent) {
    auto op = std::make_unique<Operation>();
    op->name = src.name;
    op->attrs = src.attrs;
    op->loc = src.loc;
    op->parent = &parent;
    for (Value* v : src.operands) op->operands.push_back(mapped(v));
    for (const auto& region : src.regions) {
      auto r = std::make_unique<Region>();
      r->parent = op.get();
      for (const auto& b : region->blocks) {
        auto nb = std::make_unique<Block>();
        copyBlock(*b, *nb, r.get());
        r->blocks.push_back(std::move(nb));
      }
      op->regions.push_back(std::move(r));
    }
    for (const Value* v : src.results) {
      Value* c = copyValue(v);
      c->definingOp = op.get();
      op->results.push_back(c);
    }
    return op;
  }

 private:
  Module& dst_;
  std::map<const Value*, Value*> map_;
};

}  // namespace

std::unique_ptr<Module> cloneModule(const Module& m) {
  auto out = std::make_unique<Module>();
  out->variables = m.variables;
  out->target = m.target;
  Cloner cloner(*out);
  for (const auto& f : m.functions) {
    Function& nf = out->addFunction(f->name);
    nf.resultTypes = f->resultTypes;
    nf.resultNames = f->resultNames;
    nf.argAttrs = f->argAttrs;
    nf.resultAttrs = f->resultAttrs;
    nf.attrs = f->attrs;
    nf.loc = f->loc;
    cloner.copyBlock(f->body, nf.body, nullptr);
  }
  return out;
}

}  // namespace tosakit::ir
