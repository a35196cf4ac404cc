// TOSA flatbuffer (serialization schema 1.0) -> ir::Module. The whole buffer is verified first
// (flatbuffers::Verifier: every offset, vector and string in range, identifier "TOSA"); then every name,
// type, shape and data size is checked before it is used, so a hostile file is one ParseError/InvalidArgument
// line naming the file (exit 4), never a crash.
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/size_budget.h"
#include "formats/tosafb/tosafb_internal.h"
#include "formats/tosafb/tosafb_io.h"
#include "ir/op_tables.h"

namespace tosakit::tosafb {

namespace {

constexpr int kMaxNesting = 64;  // regions inside regions (the 8K level allows 6)

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

ir::Location locOf(const tosa::TosakitOp* e) {
  ir::Location l;
  l.name = str(e->loc_name());
  l.file = str(e->loc_file());
  l.line = e->loc_line();
  l.col = e->loc_col();
  return l;
}

// Names visible in a block: its own tensors, then its enclosing blocks'.
struct Scope {
  std::unordered_map<std::string, ir::Value*> values;
  const Scope* parent = nullptr;
  ir::Value* find(const std::string& n) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->values.find(n);
      if (it != s->values.end()) return it->second;
    }
    return nullptr;
  }
};

class Reader {
 public:
  Reader(const tosa::TosaGraph& g, const std::string& file, ir::Module& m) : g_(g), file_(file), m_(m) {}

  Status run() {
    ext_ = g_.tosakit();
    if (!g_.regions() || g_.regions()->size() == 0) return bad("the graph has no region");
    for (const tosa::TosaRegion* r : *g_.regions()) {
      std::string name = str(r->name());
      if (!regions_.emplace(name, r).second) return bad("two regions named '" + name + "'");
    }
    TK_RETURN_IF_ERROR(target());
    TK_RETURN_IF_ERROR(variables());
    auto fns = functionRegions();
    if (!fns) return fns.status();
    for (const std::string& name : *fns) TK_RETURN_IF_ERROR(function(name));
    return Status::ok();
  }

 private:
  const tosa::TosaGraph& g_;
  std::string file_;
  ir::Module& m_;
  const tosa::TosakitModule* ext_ = nullptr;
  std::unordered_map<std::string, const tosa::TosaRegion*> regions_;
  std::set<std::string> usedRegions_;                        // regions already turned into IR
  std::unordered_map<std::string, std::string> variableOf_;  // variable tensor name -> variable name

  Status bad(const std::string& why) const { return Status::parse(file_ + ": " + why); }

  // ---- module ----

  Status target() {
    if (!ext_ || !ext_->has_target()) return Status::ok();
    ir::TargetEnv t;
    t.profiles.clear();
    t.extensions.clear();
    if (ext_->profiles())
      for (auto* s : *ext_->profiles()) t.profiles.push_back(str(s));
    if (ext_->extensions())
      for (auto* s : *ext_->extensions()) t.extensions.push_back(str(s));
    t.level = str(ext_->level());
    t.specVersion = str(ext_->spec_version());
    m_.target = t;
    return Status::ok();
  }

  // Functions: the extension's list, else every region no cond_if/while_loop names.
  Result<std::vector<std::string>> functionRegions() {
    std::vector<std::string> out;
    if (ext_ && ext_->functions()) {
      for (auto* s : *ext_->functions()) {
        if (!regions_.count(str(s))) return bad("function region '" + str(s) + "' does not exist");
        out.push_back(str(s));
      }
      return out;
    }
    std::set<std::string> branches;
    for (const tosa::TosaRegion* r : *g_.regions()) {
      if (!r->blocks()) continue;
      for (const tosa::TosaBasicBlock* b : *r->blocks()) {
        if (!b->operators()) continue;
        for (const tosa::TosaOperator* op : *b->operators()) {
          AttrFields f;
          if (!fieldsFromFb(*op, f, file_)) continue;  // reported when the op is read
          if (op->op() == tosa::Op_COND_IF || op->op() == tosa::Op_WHILE_LOOP) {
            branches.insert(f.branch0);
            branches.insert(f.branch1);
          }
        }
      }
    }
    for (const tosa::TosaRegion* r : *g_.regions())
      if (!branches.count(str(r->name()))) out.push_back(str(r->name()));
    if (out.empty()) return bad("every region is a branch or loop body: no function");
    return out;
  }

  // VARIABLE operators of every block declare the module's variables (in file order).
  Status variables() {
    for (const tosa::TosaRegion* r : *g_.regions()) {
      if (!r->blocks()) continue;
      for (const tosa::TosaBasicBlock* b : *r->blocks()) {
        if (!b->operators()) continue;
        for (const tosa::TosaOperator* op : *b->operators())
          if (op->op() == tosa::Op_VARIABLE) TK_RETURN_IF_ERROR(variable(*b, *op));
      }
    }
    return Status::ok();
  }

  Status variable(const tosa::TosaBasicBlock& b, const tosa::TosaOperator& op) {
    if (!op.outputs() || op.outputs()->size() != 1) return bad("VARIABLE operator without one output");
    std::string tname = str(op.outputs()->Get(0));
    const tosa::TosaTensor* t = findTensor(b, tname);
    if (!t) return bad("VARIABLE output '" + tname + "' is not a tensor of block '" + str(b.name()) + "'");
    ir::Variable v;
    v.name = t->variable_name() && t->variable_name()->size() ? t->variable_name()->str() : tname;
    for (const auto& existing : m_.variables)
      if (existing.name == v.name) return bad("two variables named '" + v.name + "'");
    std::string what = file_ + ": variable '" + v.name + "'";
    auto type = valueType(*t, what);
    if (!type) return type.status();
    v.type = *type;
    if (t->data() && t->data()->size()) {
      auto init = constant(*t, v.type, what);
      if (!init) return init.status();
      v.initialValue = std::move(*init);
    }
    variableOf_[tname] = v.name;
    m_.variables.push_back(std::move(v));
    return Status::ok();
  }

  // ---- tensors ----

  static const tosa::TosaTensor* findTensor(const tosa::TosaBasicBlock& b, const std::string& name) {
    if (!b.tensors()) return nullptr;
    for (const tosa::TosaTensor* t : *b.tensors())
      if (t->name() && t->name()->str() == name) return t;
    return nullptr;
  }

  Result<ir::ValueType> valueType(const tosa::TosaTensor& t, const std::string& what) const {
    DType dt;
    if (!dtypeToIr(t.type(), dt))
      return Status::parse(what + ": element type " + std::to_string(uint32_t(t.type())) + " is not a 1.0 DType");
    Shape dims;
    if (t.shape())
      for (int32_t d : *t.shape()) {
        if (d < -1) return Status::parse(what + ": dimension " + std::to_string(d));
        dims.push_back(d);
      }
    if (t.type() == tosa::DType_SHAPE) {
      if (dims.size() != 1 || dims[0] < 0)
        return Status::parse(what + ": a SHAPE tensor has shape [rank], not [" + shapeToString(dims) + "]");
      return ir::ValueType::shape(dims[0]);
    }
    if (t.is_unranked()) return ir::ValueType::unranked(dt);
    bool dynamic = false;
    for (int64_t d : dims) dynamic |= d < 0;
    if (!dynamic) {
      auto n = checkedNumElements(dims);
      if (!n) return n.status().withContext(what);
    }
    return ir::ValueType::tensor(dt, dims);
  }

  Result<ir::ValueType> shapeValueType(const tosa::TosaShape& s) const {
    return ir::ValueType::shape(int64_t(s.rank()));
  }

  Result<Tensor> constant(const tosa::TosaTensor& t, const ir::ValueType& type, const std::string& what) const {
    if (t.offset() > 1 || t.size() != 0)
      return Status::unsupported(what + ": data stored outside the flatbuffer (offset/size) is not read");
    if (type.kind != ir::ValueType::Kind::Tensor && !type.isShape())
      return Status::parse(what + ": constant data for an unranked tensor");
    DType dt = type.isShape() ? DType::I64 : type.dtype;
    const uint8_t* data = t.data() ? t.data()->data() : nullptr;
    size_t size = t.data() ? t.data()->size() : 0;
    // The data's size must match the shape before anything of that shape is allocated.
    auto count = checkedNumElements(type.dims);
    if (!count) return count.status().withContext(what);
    int64_t want = *count > (int64_t(1) << 60) ? -1 : packedBytes(t.type(), *count);
    if (want != int64_t(size))
      return Status::parse(what + ": data holds " + std::to_string(size) + " bytes, " + tosa::EnumNameDType(t.type()) +
                           "[" + shapeToString(type.dims) + "] needs " +
                           (want < 0 ? std::string("more") : std::to_string(want)));
    TK_RETURN_IF_ERROR(checkAllocation(dt, type.dims, what));
    Tensor v(dt, type.dims);
    TK_RETURN_IF_ERROR(unpackInto(data, size, t.type(), v, what));
    return v;
  }

  // ---- functions and blocks ----

  Status function(const std::string& name) {
    const tosa::TosaRegion* r = regions_.at(name);
    if (!usedRegions_.insert(name).second) return bad("region '" + name + "' used twice");
    const tosa::TosaBasicBlock* b = onlyBlock(*r);
    if (!b) return bad("region '" + name + "' does not hold exactly one block");
    if (m_.function(name)) return bad("two functions named '" + name + "'");
    ir::Function& fn = m_.addFunction(name);
    Scope scope;
    TK_RETURN_IF_ERROR(block(*b, fn.body, scope, "func.return", 0));
    for (const ir::Value* v : fn.outputs()) fn.resultTypes.push_back(v->type);
    const tosa::TosakitFunction* fe = b->tosakit();
    if (fe) return functionExtension(*fe, fn);
    if (b->outputs())
      for (auto* s : *b->outputs()) fn.resultNames.push_back(str(s));
    return Status::ok();
  }

  Status functionExtension(const tosa::TosakitFunction& fe, ir::Function& fn) {
    std::string where = file_ + ": function '" + fn.name + "'";
    if (fe.result_names())
      for (auto* s : *fe.result_names()) fn.resultNames.push_back(str(s));
    if (fe.arg_attrs()) TK_RETURN_IF_ERROR(attrLists(*fe.arg_attrs(), fn.argAttrs, where));
    if (fe.result_attrs()) TK_RETURN_IF_ERROR(attrLists(*fe.result_attrs(), fn.resultAttrs, where));
    if (fe.attrs()) TK_RETURN_IF_ERROR(attrMap(fe.attrs(), fn.attrs, where));
    fn.loc.name = str(fe.loc_name());
    fn.loc.file = str(fe.loc_file());
    fn.loc.line = fe.loc_line();
    fn.loc.col = fe.loc_col();
    return Status::ok();
  }

  Status attrMap(const flatbuffers::Vector<flatbuffers::Offset<tosa::TosakitAttr>>* v,
                 std::map<std::string, ir::Attribute>& out, const std::string& where) {
    if (!v) return Status::ok();
    for (const tosa::TosakitAttr* a : *v) {
      auto d = decodeExtAttr(*a, where + ": attribute '" + str(a->key()) + "'");
      if (!d) return d.status();
      out[str(a->key())] = std::move(*d);
    }
    return Status::ok();
  }

  Status attrLists(const flatbuffers::Vector<flatbuffers::Offset<tosa::TosakitAttrList>>& v,
                   std::vector<std::map<std::string, ir::Attribute>>& out, const std::string& where) {
    for (const tosa::TosakitAttrList* l : v) {
      out.emplace_back();
      TK_RETURN_IF_ERROR(attrMap(l->attrs(), out.back(), where));
    }
    return Status::ok();
  }

  static const tosa::TosaBasicBlock* onlyBlock(const tosa::TosaRegion& r) {
    return r.blocks() && r.blocks()->size() == 1 ? r.blocks()->Get(0) : nullptr;
  }

  // Declared values of a block: tensors and shapes by name.
  struct Decls {
    std::unordered_map<std::string, const tosa::TosaTensor*> tensors;
    std::unordered_map<std::string, const tosa::TosaShape*> shapes;
  };

  Status declarations(const tosa::TosaBasicBlock& b, Decls& d, const std::string& where) {
    if (b.tensors())
      for (const tosa::TosaTensor* t : *b.tensors())
        if (!d.tensors.emplace(str(t->name()), t).second)
          return bad(where + ": two tensors named '" + str(t->name()) + "'");
    if (b.shapes())
      for (const tosa::TosaShape* s : *b.shapes())
        if (d.tensors.count(str(s->name())) || !d.shapes.emplace(str(s->name()), s).second)
          return bad(where + ": two tensors or shapes named '" + str(s->name()) + "'");
    return Status::ok();
  }

  // A new value for a name the block declares.
  Result<ir::Value*> declare(const std::string& name, const Decls& d, Scope& scope, const std::string& where) {
    if (scope.values.count(name)) return bad(where + ": '" + name + "' is defined twice");
    ir::ValueType type;
    std::string own = name;
    if (auto it = d.tensors.find(name); it != d.tensors.end()) {
      auto t = valueType(*it->second, file_ + ": " + where + ": tensor '" + name + "'");
      if (!t) return t.status();
      type = *t;
      if (ext_) own = str(it->second->tosakit_value_name());
    } else if (auto is = d.shapes.find(name); is != d.shapes.end()) {
      type = *shapeValueType(*is->second);
      if (ext_) own = "";
    } else {
      return bad(where + ": '" + name + "' is not a tensor of the block");
    }
    ir::Value* v = m_.newValue(type, own);
    scope.values[name] = v;
    return v;
  }

  Status block(const tosa::TosaBasicBlock& b, ir::Block& out, Scope& scope, const char* terminator, int depth) {
    if (depth > kMaxNesting) return bad("regions nested deeper than " + std::to_string(kMaxNesting));
    std::string where = "block '" + str(b.name()) + "'";
    Decls d;
    TK_RETURN_IF_ERROR(declarations(b, d, where));
    if (b.inputs())
      for (auto* s : *b.inputs()) {
        auto v = declare(str(s), d, scope, where);
        if (!v) return v.status();
        if (!ext_) (*v)->name = str(s);
        (*v)->ownerBlock = &out;
        (*v)->index = int(out.args.size());
        out.args.push_back(*v);
      }
    if (b.operators())
      for (const tosa::TosaOperator* op : *b.operators())
        TK_RETURN_IF_ERROR(operation(*op, d, out, scope, where, depth));
    auto term = std::make_unique<ir::Operation>();
    term->name = terminator;
    term->parent = &out;
    if (b.outputs())
      for (auto* s : *b.outputs()) {
        ir::Value* v = scope.find(str(s));
        if (!v) return bad(where + ": output '" + str(s) + "' is never defined");
        term->operands.push_back(v);
      }
    if (const tosa::TosakitFunction* fe = ext_ ? b.tosakit() : nullptr; fe && fe->terminator()) {
      term->loc = locOf(fe->terminator());
      TK_RETURN_IF_ERROR(attrMap(fe->terminator()->attrs(), term->attrs, file_ + ": " + where + ": terminator"));
    }
    out.ops.push_back(std::move(term));
    return Status::ok();
  }

  Result<std::vector<ir::Value*>> operands(const tosa::TosaOperator& op, const Scope& scope, const std::string& where) {
    std::vector<ir::Value*> out;
    if (!op.inputs()) return out;
    for (auto* s : *op.inputs()) {
      ir::Value* v = scope.find(str(s));
      if (!v) return bad(where + ": input '" + str(s) + "' is not defined before it is used");
      out.push_back(v);
    }
    return out;
  }

  Status operation(const tosa::TosaOperator& fop, const Decls& d, ir::Block& out, Scope& scope,
                   const std::string& blockWhere, int depth) {
    uint32_t code = uint32_t(fop.op());
    std::string where = blockWhere + ": operator " + std::to_string(out.ops.size());
    if (!isValidOp(code)) return bad(where + ": unknown operator " + std::to_string(code));
    tosa::Op opc = tosa::Op(code);
    if (opc == tosa::Op_VARIABLE) return Status::ok();  // read by variables()
    where = blockWhere + ": " + tosa::EnumNameOp(opc) + " (operator " + std::to_string(out.ops.size()) + ")";
    AttrFields f;
    TK_RETURN_IF_ERROR(fieldsFromFb(fop, f, file_ + ": " + where));
    auto op = std::make_unique<ir::Operation>();
    op->name = irNameOf(opc);
    op->parent = &out;
    const tosa::TosakitOp* oe = ext_ ? fop.tosakit() : nullptr;
    if (oe)
      op->loc = locOf(oe);
    else if (fop.location())
      op->loc.name = str(fop.location()->text());
    std::vector<std::string> outNames;
    if (fop.outputs())
      for (auto* s : *fop.outputs()) outNames.push_back(str(s));
    if (opc == tosa::Op_VARIABLE_READ || opc == tosa::Op_VARIABLE_WRITE) {
      TK_RETURN_IF_ERROR(variableAccess(fop, opc, *op, outNames, scope, where));
    } else {
      auto ins = operands(fop, scope, where);
      if (!ins) return ins.status();
      op->operands = std::move(*ins);
    }
    for (const std::string& n : outNames) {
      auto v = declare(n, d, scope, where);
      if (!v) return v.status();
      (*v)->definingOp = op.get();
      (*v)->index = int(op->results.size());
      op->results.push_back(*v);
    }
    TK_RETURN_IF_ERROR(arity(opc, *op, where));
    DType elem = op->operands.empty() ? DType::FP32 : op->operands[0]->type.dtype;
    TK_RETURN_IF_ERROR(irFromFields(opc, f, elem, op->attrs, file_ + ": " + where));
    if (opc == tosa::Op_CONST || opc == tosa::Op_CONST_SHAPE)
      TK_RETURN_IF_ERROR(constValues(*op, d, outNames[0], where));
    if (opc == tosa::Op_COND_IF || opc == tosa::Op_WHILE_LOOP)
      TK_RETURN_IF_ERROR(branches(*op, f, scope, where, depth));
    if (oe) TK_RETURN_IF_ERROR(opExtension(*oe, *op, where));
    out.ops.push_back(std::move(op));
    return Status::ok();
  }

  // variable_read: input = the variable's tensor; variable_write: output = the variable's tensor.
  Status variableAccess(const tosa::TosaOperator& fop, tosa::Op opc, ir::Operation& op,
                        std::vector<std::string>& outNames, const Scope& scope, const std::string& where) {
    bool read = opc == tosa::Op_VARIABLE_READ;
    std::vector<std::string> ins;
    if (fop.inputs())
      for (auto* s : *fop.inputs()) ins.push_back(str(s));
    std::vector<std::string>& varSide = read ? ins : outNames;
    if (varSide.size() != 1)
      return bad(where + ": needs the variable's tensor as its one " + std::string(read ? "input" : "output"));
    auto it = variableOf_.find(varSide[0]);
    if (it == variableOf_.end()) return bad(where + ": '" + varSide[0] + "' is not a variable");
    op.attrs["name"] = ir::Attribute::symbol(it->second);
    if (read) return Status::ok();
    outNames.clear();
    for (const std::string& n : ins) {
      ir::Value* v = scope.find(n);
      if (!v) return bad(where + ": input '" + n + "' is not defined before it is used");
      op.operands.push_back(v);
    }
    return Status::ok();
  }

  // Operand and result counts of the spec's argument tables (variadic lists: at least one).
  Status arity(tosa::Op opc, const ir::Operation& op, const std::string& where) const {
    const ir::spec::OpSpec* s = ir::spec::findOp(op.name);
    if (!s || opc == tosa::Op_COND_IF || opc == tosa::Op_WHILE_LOOP || opc == tosa::Op_CUSTOM) return Status::ok();
    auto fits = [](const std::vector<ir::spec::MlirArg>& args, size_t n) {
      bool variadic = !args.empty() && args.back().variadic;
      return variadic ? n >= args.size() : n == args.size();
    };
    if (!fits(s->operands, op.operands.size()) || !fits(s->results, op.results.size()))
      return bad(where + ": " + std::to_string(op.operands.size()) + " inputs and " +
                 std::to_string(op.results.size()) + " outputs, " + s->specName + " takes " +
                 std::to_string(s->operands.size()) + " and " + std::to_string(s->results.size()));
    return Status::ok();
  }

  Status constValues(ir::Operation& op, const Decls& d, const std::string& name, const std::string& where) {
    auto it = d.tensors.find(name);
    if (it == d.tensors.end()) return bad(where + ": constant output '" + name + "' is not a tensor");
    std::string what = file_ + ": " + where + ": tensor '" + name + "'";
    if (!it->second->data()) return Status::parse(what + ": constant without data");
    auto t = constant(*it->second, op.results[0]->type, what);
    if (!t) return t.status();
    op.attrs["values"] = ir::Attribute::dense(std::move(*t));
    return Status::ok();
  }

  Status branches(ir::Operation& op, const AttrFields& f, const Scope& scope, const std::string& where, int depth) {
    const std::string* names[2] = {&f.branch0, &f.branch1};
    for (const std::string* n : names) {
      auto it = regions_.find(*n);
      if (it == regions_.end()) return bad(where + ": region '" + *n + "' does not exist");
      if (!usedRegions_.insert(*n).second) return bad(where + ": region '" + *n + "' is used twice");
      const tosa::TosaBasicBlock* b = onlyBlock(*it->second);
      if (!b) return bad(where + ": region '" + *n + "' does not hold exactly one block");
      auto reg = std::make_unique<ir::Region>();
      reg->parent = &op;
      auto blk = std::make_unique<ir::Block>();
      blk->parent = reg.get();
      Scope inner;
      inner.parent = &scope;
      TK_RETURN_IF_ERROR(block(*b, *blk, inner, "tosa.yield", depth + 1));
      reg->blocks.push_back(std::move(blk));
      op.regions.push_back(std::move(reg));
    }
    return Status::ok();
  }

  Status opExtension(const tosa::TosakitOp& e, ir::Operation& op, const std::string& where) {
    if (e.dropped_attrs())
      for (auto* s : *e.dropped_attrs()) op.attrs.erase(str(s));
    return attrMap(e.attrs(), op.attrs, file_ + ": " + where);
  }
};

}  // namespace

Result<std::unique_ptr<ir::Module>> decodeTosa(const uint8_t* data, size_t size, const std::string& file) {
  if (size < 8 || !flatbuffers::BufferHasIdentifier(data, tosa::TosaGraphIdentifier()))
    return Status::parse(file + ": not a TOSA flatbuffer (no \"TOSA\" file identifier at bytes 4-7)");
  // Depth and table count bound the verifier's work on hostile input; real graphs stay far below.
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64, /*max_tables=*/size / 4 + 1024);
  if (!tosa::VerifyTosaGraphBuffer(verifier))
    return Status::parse(file + ": malformed TOSA flatbuffer (an offset, vector or string is out of range)");
  auto m = std::make_unique<ir::Module>();
  Reader r(*tosa::GetTosaGraph(data), file, *m);
  TK_RETURN_IF_ERROR(r.run());
  return m;
}

Result<std::unique_ptr<ir::Module>> readTosa(const std::string& path) {
  TK_RETURN_IF_ERROR(checkFileSize(path));
  std::ifstream is(path, std::ios::binary);
  if (!is) return Status::io(path + ": cannot open file");
  std::ostringstream ss;
  ss << is.rdbuf();
  if (is.bad()) return Status::io(path + ": read error");
  std::string bytes = ss.str();
  return decodeTosa(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), path);
}

}  // namespace tosakit::tosafb
