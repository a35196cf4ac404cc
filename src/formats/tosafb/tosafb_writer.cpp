// ir::Module -> TOSA flatbuffer (serialization schema 1.0). One region per function (region, block and
// function share the name); cond_if branches and while_loop bodies become further regions named by the op's
// attribute. Tensor names are the values' names (function arguments), else the names their results carry
// (function results) or their op's location name, made unique. What the 1.0 tables cannot hold goes into
// tosakit's extension fields (tosa.fbs, "tosakit-ext").
#include <set>
#include <unordered_map>

#include "core/file_io.h"
#include "formats/tosafb/tosafb_internal.h"
#include "formats/tosafb/tosafb_io.h"

namespace tosakit::tosafb {

namespace {

using flatbuffers::Offset;
using StrVec = Offset<flatbuffers::Vector<Offset<flatbuffers::String>>>;

// FlatBuffers addresses 2 GB; the serialization library's external-data form is not written here.
constexpr int64_t kMaxFlatbufferBytes = int64_t(2000) << 20;

class Writer {
 public:
  explicit Writer(const ir::Module& m) : m_(m) {}

  Result<EncodeResult> run() {
    TK_RETURN_IF_ERROR(checkSize());
    reserveNames();
    for (const auto& f : m_.functions) TK_RETURN_IF_ERROR(function(*f));
    std::vector<Offset<tosa::TosaRegion>> all = functionRegions_;
    all.insert(all.end(), branchRegions_.begin(), branchRegions_.end());
    auto regions = fbb_.CreateVector(all);
    auto version = tosa::CreateVersion(fbb_, kVersionMajor, kVersionMinor, kVersionPatch, false);
    auto ext = moduleExtension();
    fbb_.Finish(tosa::CreateTosaGraph(fbb_, version, regions, ext), tosa::TosaGraphIdentifier());
    EncodeResult r;
    r.bytes.assign(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
    r.extensionAttrs = std::move(extensionAttrs_);
    return r;
  }

 private:
  const ir::Module& m_;
  flatbuffers::FlatBufferBuilder fbb_{1 << 16};
  std::vector<Offset<tosa::TosaRegion>> functionRegions_, branchRegions_;
  std::unordered_map<const ir::Value*, std::string> names_;
  std::set<std::string> used_;  // tensor and region names
  std::vector<std::string> extensionAttrs_;

  // ---- sizes and names ----

  Status checkSize() const {
    int64_t total = 0;
    auto add = [&](const Tensor& t) { total += int64_t(t.byteSize()); };
    for (const auto& v : m_.variables)
      if (v.initialValue) add(*v.initialValue);
    for (const auto& f : m_.functions)
      forEachOp(f->body, [&](const ir::Operation& op) {
        for (const auto& [k, a] : op.attrs)
          if (a.kind == ir::Attribute::Kind::Tensor && a.tensor) add(*a.tensor);
      });
    if (total > kMaxFlatbufferBytes)
      return Status::unsupported("model constants take " + std::to_string(total) +
                                 " bytes: a .tosa flatbuffer holds at most 2 GB");
    return Status::ok();
  }

  template <class Fn>
  static void forEachOp(const ir::Block& b, const Fn& fn) {
    for (const auto& op : b.ops) {
      fn(*op);
      for (const auto& r : op->regions)
        for (const auto& blk : r->blocks) forEachOp(*blk, fn);
    }
  }

  std::string unique(std::string base) {
    if (base.empty()) base = "t";
    std::string n = base;
    for (int k = 1; used_.count(n); ++k) n = base + "_" + std::to_string(k);
    used_.insert(n);
    return n;
  }

  // Names every value of the module before anything is written: variables, then function arguments, the
  // names function results carry, the rest by their op's location.
  void reserveNames() {
    for (const auto& v : m_.variables) used_.insert(v.name);
    for (const auto& f : m_.functions) used_.insert(f->name);
    for (const auto& f : m_.functions) {
      for (const ir::Value* a : f->inputs()) names_[a] = unique(a->name.empty() ? "input" : a->name);
      std::vector<ir::Value*> outs = f->outputs();
      for (size_t i = 0; i < outs.size() && i < f->resultNames.size(); ++i)
        if (!names_.count(outs[i]) && !f->resultNames[i].empty()) names_[outs[i]] = unique(f->resultNames[i]);
      nameBlock(f->body);
    }
  }

  void nameBlock(const ir::Block& b) {
    for (const ir::Value* a : b.args)
      if (!names_.count(a)) names_[a] = unique(a->name.empty() ? "arg" : a->name);
    for (const auto& op : b.ops) {
      for (const ir::Value* r : op->results) {
        if (names_.count(r)) continue;
        std::string base = !r->name.empty() ? r->name : !op->loc.name.empty() ? op->loc.name : "t";
        if (op->results.size() > 1) base += ":" + std::to_string(r->index);
        names_[r] = unique(base);
      }
      for (const auto& reg : op->regions)
        for (const auto& blk : reg->blocks) nameBlock(*blk);
    }
  }

  // ---- tensors ----

  Result<Offset<tosa::TosaTensor>> tensor(const ir::Value* v, const Tensor* data, const std::string& what,
                                          bool variable = false, const std::string& variableName = {}) {
    return tensorOf(names_.at(v), v->type, v->name, data, what, variable, variableName);
  }

  Result<Offset<tosa::TosaTensor>> tensorOf(const std::string& name, const ir::ValueType& type,
                                            const std::string& valueName, const Tensor* data, const std::string& what,
                                            bool variable, const std::string& variableName) {
    tosa::DType dt;
    if (type.isShape())
      dt = tosa::DType_SHAPE;
    else if (!dtypeFromIr(type.dtype, dt))
      return Status::unsupported(what + ": element type " + std::string(dtypeName(type.dtype)) +
                                 " has no DType in the TOSA 1.0 flatbuffer schema");
    std::vector<int32_t> shape;
    for (int64_t d : type.dims) {
      if (d < -1 || d > INT32_MAX)
        return Status::unsupported(what + ": dimension " + std::to_string(d) +
                                   " does not fit the schema's int32 shape");
      shape.push_back(int32_t(d));
    }
    Offset<flatbuffers::Vector<uint8_t>> bytes = 0;
    if (data) {
      std::vector<uint8_t> packed = packTensor(*data, dt);
      fbb_.ForceVectorAlignment(packed.size(), 1, 8);
      bytes = fbb_.CreateVector(packed);
    }
    auto n = fbb_.CreateString(name);
    auto s = fbb_.CreateVector(shape);
    auto vn = variableName.empty() ? 0 : fbb_.CreateString(variableName);
    auto own = valueName.empty() ? 0 : fbb_.CreateString(valueName);
    bool unranked = type.kind == ir::ValueType::Kind::UnrankedTensor;
    return tosa::CreateTosaTensor(fbb_, n, s, dt, bytes, variable, unranked, vn, 0, 0, own);
  }

  StrVec names(const std::vector<ir::Value*>& vs) {
    std::vector<Offset<flatbuffers::String>> out;
    for (const ir::Value* v : vs) out.push_back(fbb_.CreateString(names_.at(v)));
    return fbb_.CreateVector(out);
  }

  StrVec strings(const std::vector<std::string>& ss) {
    std::vector<Offset<flatbuffers::String>> out;
    for (const auto& s : ss) out.push_back(fbb_.CreateString(s));
    return fbb_.CreateVector(out);
  }

  // ---- blocks ----

  struct BlockParts {
    std::vector<Offset<tosa::TosaOperator>> ops;
    std::vector<Offset<tosa::TosaTensor>> tensors;
  };

  Status function(const ir::Function& f) {
    BlockParts parts;
    std::string where = "@" + f.name;
    if (&f == m_.functions.front().get()) TK_RETURN_IF_ERROR(variables(parts));
    TK_RETURN_IF_ERROR(blockBody(f.body, parts, where));
    auto ext = functionExtension(&f, &f.body);
    functionRegions_.push_back(region(f.name, f.body, parts, ext));
    return Status::ok();
  }

  Offset<tosa::TosaRegion> region(const std::string& name, const ir::Block& b, BlockParts& parts,
                                  Offset<tosa::TosakitFunction> ext) {
    const ir::Operation* term = b.terminator();
    std::vector<ir::Value*> outs = term ? term->operands : std::vector<ir::Value*>();
    auto n = fbb_.CreateString(name);
    auto ops = fbb_.CreateVector(parts.ops);
    auto tensors = fbb_.CreateVector(parts.tensors);
    auto ins = names(b.args);
    auto outNames = names(outs);
    auto block = tosa::CreateTosaBasicBlock(fbb_, n, ops, tensors, ins, outNames, 0, ext);
    auto rn = fbb_.CreateString(name);
    return tosa::CreateTosaRegion(fbb_, rn, fbb_.CreateVector(std::vector<Offset<tosa::TosaBasicBlock>>{block}));
  }

  // Module variables: one VARIABLE operator each at the start of the first function, its output tensor
  // marked variable and holding the initial value.
  Status variables(BlockParts& parts) {
    for (const ir::Variable& v : m_.variables) {
      auto t = tensorOf(v.name, v.type, "", v.initialValue ? &*v.initialValue : nullptr, "variable @" + v.name, true,
                        v.name);
      if (!t) return t.status();
      parts.tensors.push_back(*t);
      auto outs = strings({v.name});
      auto attr = fieldsToFb(fbb_, tosa::Op_VARIABLE, {});
      parts.ops.push_back(tosa::CreateTosaOperator(fbb_, tosa::Op_VARIABLE, tosa::Attribute_VariableAttribute, attr,
                                                   strings({}), outs, 0, 0));
    }
    return Status::ok();
  }

  Status blockBody(const ir::Block& b, BlockParts& parts, const std::string& where) {
    for (const ir::Value* a : b.args) {
      auto t = tensor(a, nullptr, where + ": argument " + names_.at(a));
      if (!t) return t.status();
      parts.tensors.push_back(*t);
    }
    for (const auto& op : b.ops) {
      if (op->name == "func.return" || op->name == "tosa.yield") continue;
      TK_RETURN_IF_ERROR(operation(*op, parts, where));
    }
    return Status::ok();
  }

  static DType elementOf(const ir::Operation& op) {
    return op.operands.empty() ? DType::FP32 : op.operands[0]->type.dtype;
  }

  Status operation(const ir::Operation& op, BlockParts& parts, const std::string& where) {
    std::string what = where + ": " + op.describe();
    tosa::Op code = opOfIrName(op.name);
    if (code == tosa::Op_UNKNOWN || code == tosa::Op_VARIABLE)
      return Status::unsupported(what + ": no operator of the TOSA 1.0 flatbuffer schema");
    bool isConst = code == tosa::Op_CONST || code == tosa::Op_CONST_SHAPE;
    const Tensor* constData = nullptr;
    if (isConst) {
      const ir::Attribute* v = op.attr("values");
      if (v && v->kind == ir::Attribute::Kind::Tensor && v->tensor && op.results.size() == 1 &&
          v->tensor->shape() == constShape(op.results[0]->type))
        constData = v->tensor.get();
    }
    for (size_t i = 0; i < op.results.size(); ++i) {
      auto t = tensor(op.results[i], constData, what + ": result " + std::to_string(i));
      if (!t) return t.status();
      parts.tensors.push_back(*t);
    }
    AttrFields f;
    fieldsFromIr(op, code, elementOf(op), f);
    std::vector<ir::Value*> ins = op.operands, outs = op.results;
    if (code == tosa::Op_COND_IF || code == tosa::Op_WHILE_LOOP) TK_RETURN_IF_ERROR(branches(op, code, f, where));
    std::string varName = op.strAttr("name");
    StrVec inNames, outNames;
    if (code == tosa::Op_VARIABLE_READ) {
      inNames = strings({varName});
      outNames = names(outs);
    } else if (code == tosa::Op_VARIABLE_WRITE) {
      inNames = names(ins);
      outNames = strings({varName});
    } else {
      inNames = names(ins);
      outNames = names(outs);
    }
    auto attr = fieldsToFb(fbb_, code, f);
    auto ext = opExtension(op, code, f, constData != nullptr);
    auto loc = fbb_.CreateString(ext.IsNull() ? op.loc.name : op.loc.toString());
    auto location = tosa::CreateOpLocation(fbb_, loc);
    parts.ops.push_back(
        tosa::CreateTosaOperator(fbb_, code, tosa::Attribute(code), attr, inNames, outNames, location, ext));
    return Status::ok();
  }

  // A constant's value has the result's shape (a shape value: [rank]).
  static const Shape& constShape(const ir::ValueType& t) { return t.dims; }

  Status branches(const ir::Operation& op, tosa::Op code, AttrFields& f, const std::string& where) {
    static const char* kThenElse[] = {"then", "else"};
    static const char* kCondBody[] = {"cond", "body"};
    const char** suffix = code == tosa::Op_COND_IF ? kThenElse : kCondBody;
    if (op.regions.size() != 2) return Status::unsupported(where + ": " + op.describe() + " without two regions");
    std::string base = op.loc.name.empty() ? (code == tosa::Op_COND_IF ? "cond_if" : "while_loop") : op.loc.name;
    for (int r = 0; r < 2; ++r) {
      const ir::Region& reg = *op.regions[size_t(r)];
      if (reg.blocks.size() != 1)
        return Status::unsupported(where + ": " + op.describe() + ": a region of " + std::to_string(reg.blocks.size()) +
                                   " blocks (the schema's regions here hold one)");
      std::string name = unique(base + "_" + suffix[r]);
      (r == 0 ? f.branch0 : f.branch1) = name;
      BlockParts parts;
      TK_RETURN_IF_ERROR(blockBody(*reg.blocks[0], parts, where + "/" + name));
      branchRegions_.push_back(region(name, *reg.blocks[0], parts, functionExtension(nullptr, reg.blocks[0].get())));
    }
    return Status::ok();
  }

  // ---- tosakit extension ----

  // What a reader derives from the 1.0 fields, compared with the IR: differences are kept in TosakitOp.
  Offset<tosa::TosakitOp> opExtension(const ir::Operation& op, tosa::Op code, const AttrFields& f, bool constFromData) {
    std::map<std::string, ir::Attribute> derived;
    (void)irFromFields(code, f, elementOf(op), derived, "");
    std::vector<Offset<tosa::TosakitAttr>> extra;
    std::vector<std::string> dropped;
    for (const auto& [k, a] : op.attrs) {
      if (k == "values" && constFromData) continue;  // carried by the output tensor's data
      if (code == tosa::Op_VARIABLE_READ || code == tosa::Op_VARIABLE_WRITE) {
        if (k == "name" && a.kind == ir::Attribute::Kind::Symbol) continue;  // the variable tensor's name
      }
      auto it = derived.find(k);
      if (it != derived.end() && it->second == a) continue;
      extra.push_back(encodeExtAttr(fbb_, k, a));
      extensionAttrs_.push_back(op.describe() + ": " + k);
    }
    for (const auto& [k, a] : derived)
      if (!op.attrs.count(k)) dropped.push_back(k);
    bool plainLoc = op.loc.file.empty() && op.loc.line == 0 && op.loc.col == 0;
    if (extra.empty() && dropped.empty() && plainLoc) return 0;
    auto name = fbb_.CreateString(op.loc.name);
    auto file = fbb_.CreateString(op.loc.file);
    auto attrs = fbb_.CreateVector(extra);
    auto drop = strings(dropped);
    return tosa::CreateTosakitOp(fbb_, name, file, op.loc.line, op.loc.col, attrs, drop);
  }

  Offset<flatbuffers::Vector<Offset<tosa::TosakitAttr>>> attrList(const std::map<std::string, ir::Attribute>& m) {
    std::vector<Offset<tosa::TosakitAttr>> v;
    for (const auto& [k, a] : m) v.push_back(encodeExtAttr(fbb_, k, a));
    return fbb_.CreateVector(v);
  }

  Offset<flatbuffers::Vector<Offset<tosa::TosakitAttrList>>> attrLists(
      const std::vector<std::map<std::string, ir::Attribute>>& all) {
    std::vector<Offset<tosa::TosakitAttrList>> v;
    for (const auto& m : all) v.push_back(tosa::CreateTosakitAttrList(fbb_, attrList(m)));
    return fbb_.CreateVector(v);
  }

  // The terminator's location and attributes (TosakitOp of no operator: every attribute is extra).
  Offset<tosa::TosakitOp> terminatorExtension(const ir::Block& b) {
    const ir::Operation* t = b.terminator();
    if (!t) return 0;
    std::vector<Offset<tosa::TosakitAttr>> extra;
    for (const auto& [k, a] : t->attrs) extra.push_back(encodeExtAttr(fbb_, k, a));
    auto name = fbb_.CreateString(t->loc.name);
    auto file = fbb_.CreateString(t->loc.file);
    auto attrs = fbb_.CreateVector(extra);
    return tosa::CreateTosakitOp(fbb_, name, file, t->loc.line, t->loc.col, attrs, 0);
  }

  // A function's block (f set) or a branch/loop body's (f null).
  Offset<tosa::TosakitFunction> functionExtension(const ir::Function* f, const ir::Block* b) {
    auto term = terminatorExtension(*b);
    if (!f) return tosa::CreateTosakitFunction(fbb_, 0, 0, 0, 0, 0, 0, 0, 0, term);
    auto results = strings(f->resultNames);
    auto args = attrLists(f->argAttrs);
    auto res = attrLists(f->resultAttrs);
    auto attrs = attrList(f->attrs);
    auto name = fbb_.CreateString(f->loc.name);
    auto file = fbb_.CreateString(f->loc.file);
    return tosa::CreateTosakitFunction(fbb_, results, args, res, attrs, name, file, f->loc.line, f->loc.col, term);
  }

  Offset<tosa::TosakitModule> moduleExtension() {
    std::vector<std::string> fnNames;
    for (const auto& f : m_.functions) fnNames.push_back(f->name);
    auto fns = strings(fnNames);
    if (!m_.target) return tosa::CreateTosakitModule(fbb_, kExtensionVersion, false, 0, 0, 0, 0, fns);
    auto profiles = strings(m_.target->profiles);
    auto extensions = strings(m_.target->extensions);
    auto level = fbb_.CreateString(m_.target->level);
    auto spec = fbb_.CreateString(m_.target->specVersion);
    return tosa::CreateTosakitModule(fbb_, kExtensionVersion, true, profiles, extensions, level, spec, fns);
  }
};

}  // namespace

Result<EncodeResult> encodeTosa(const ir::Module& m) {
  if (m.functions.empty()) return Status::invalid("module has no function to write");
  return Writer(m).run();
}

Status writeTosa(const ir::Module& m, const std::string& path) {
  auto r = encodeTosa(m);
  if (!r) return r.status().withContext(path);
  return writeFileAtomic(path, r->bytes);
}

}  // namespace tosakit::tosafb
