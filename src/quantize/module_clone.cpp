#include "quantize/module_clone.h"

#include <map>

namespace tosakit::quantize {

namespace {

class Cloner {
 public:
  explicit Cloner(ir::Module& dst) : dst_(dst) {}

  ir::Value* copyValue(const ir::Value* v) {
    ir::Value* c = dst_.newValue(v->type, v->name);
    c->id = v->id;  // keeps intermediateName() stable
    c->index = v->index;
    map_[v] = c;
    return c;
  }

  ir::Value* mapped(ir::Value* v) {
    auto it = map_.find(v);
    return it == map_.end() ? v : it->second;  // values defined outside (never for a whole module)
  }

  void copyBlock(const ir::Block& src, ir::Block& dst, ir::Region* parent) {
    dst.parent = parent;
    for (const ir::Value* a : src.args) {
      ir::Value* c = copyValue(a);
      c->ownerBlock = &dst;
      dst.args.push_back(c);
    }
    for (const auto& op : src.ops) dst.ops.push_back(copyOp(*op, dst));
  }

  std::unique_ptr<ir::Operation> copyOp(const ir::Operation& src, ir::Block& parent) {
    auto op = std::make_unique<ir::Operation>();
    op->name = src.name;
    op->attrs = src.attrs;
    op->loc = src.loc;
    op->parent = &parent;
    for (ir::Value* v : src.operands) op->operands.push_back(mapped(v));
    for (const auto& region : src.regions) {
      auto r = std::make_unique<ir::Region>();
      r->parent = op.get();
      for (const auto& b : region->blocks) {
        auto nb = std::make_unique<ir::Block>();
        copyBlock(*b, *nb, r.get());
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

 private:
  ir::Module& dst_;
  std::map<const ir::Value*, ir::Value*> map_;
};

}  // namespace

std::unique_ptr<ir::Module> cloneModule(const ir::Module& m) {
  auto out = std::make_unique<ir::Module>();
  out->variables = m.variables;
  out->target = m.target;
  Cloner cloner(*out);
  for (const auto& f : m.functions) {
    ir::Function& nf = out->addFunction(f->name);
    nf.resultTypes = f->resultTypes;
    nf.resultNames = f->resultNames;
    nf.argAttrs = f->argAttrs;
    nf.resultAttrs = f->resultAttrs;
    nf.loc = f->loc;
    cloner.copyBlock(f->body, nf.body, nullptr);
  }
  return out;
}

}  // namespace tosakit::quantize
