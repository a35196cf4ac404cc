#include "ir/graph.h"

#include <sstream>

namespace tosakit::ir {

bool ValueType::isStatic() const {
  if (kind == Kind::Shape) return true;
  if (kind == Kind::UnrankedTensor) return false;
  for (int64_t d : dims)
    if (d < 0) return false;
  return true;
}

std::string ValueType::toString() const {
  if (kind == Kind::Shape) return "!tosa.shape<" + std::to_string(dims.empty() ? 0 : dims[0]) + ">";
  std::string s = "tensor<";
  if (kind == Kind::UnrankedTensor) s += "*x";
  for (int64_t d : dims) s += (d < 0 ? std::string("?") : std::to_string(d)) + "x";
  return s + std::string(dtypeName(dtype)) + ">";
}

std::string Location::toString() const {
  std::string pos = file.empty() ? "" : file + ":" + std::to_string(line) + ":" + std::to_string(col);
  if (!name.empty() && !pos.empty()) return "'" + name + "' (" + pos + ")";
  if (!name.empty()) return "'" + name + "'";
  return pos;
}

bool Attribute::operator==(const Attribute& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Bool: return b == o.b;
    case Kind::Int: return i == o.i && dtype == o.dtype;
    case Kind::Float: return dtype == o.dtype && (f == o.f || (f != f && o.f != o.f));
    case Kind::String:
    case Kind::Enum:
    case Kind::Symbol: return s == o.s;
    case Kind::Type: return dtype == o.dtype;
    case Kind::IntArray:
    case Kind::BoolArray: return ints == o.ints && dtype == o.dtype;
    case Kind::Tensor:
      if (!tensor || !o.tensor) return tensor == o.tensor;
      return tensor->identical(*o.tensor);
  }
  return false;
}

std::string Attribute::toString() const {
  std::ostringstream os;
  switch (kind) {
    case Kind::Bool: os << (b ? "true" : "false"); break;
    case Kind::Int: os << i << " : " << dtypeName(dtype); break;
    case Kind::Float: os << f << " : " << dtypeName(dtype); break;
    case Kind::String: os << '"' << s << '"'; break;
    case Kind::Enum: os << s; break;
    case Kind::Symbol: os << '@' << s; break;
    case Kind::Type: os << dtypeName(dtype); break;
    case Kind::IntArray:
    case Kind::BoolArray:
      os << "array<" << dtypeName(dtype) << ":";
      for (size_t k = 0; k < ints.size(); ++k) os << (k ? ", " : " ") << ints[k];
      os << ">";
      break;
    case Kind::Tensor: os << "dense " << (tensor ? tensor->summary() : "null"); break;
  }
  return os.str();
}

const Attribute* Operation::attr(const std::string& k) const {
  auto it = attrs.find(k);
  return it == attrs.end() ? nullptr : &it->second;
}
int64_t Operation::intAttr(const std::string& k, int64_t def) const {
  const Attribute* a = attr(k);
  if (!a) return def;
  if (a->kind == Attribute::Kind::Bool) return a->b;
  if (a->kind == Attribute::Kind::Float) return int64_t(a->f);
  return a->i;
}
double Operation::floatAttr(const std::string& k, double def) const {
  const Attribute* a = attr(k);
  if (!a) return def;
  return a->kind == Attribute::Kind::Float ? a->f : double(a->i);
}
bool Operation::boolAttr(const std::string& k, bool def) const {
  const Attribute* a = attr(k);
  return a ? (a->kind == Attribute::Kind::Bool ? a->b : a->i != 0) : def;
}
std::vector<int64_t> Operation::intArrayAttr(const std::string& k) const {
  const Attribute* a = attr(k);
  return a ? a->ints : std::vector<int64_t>{};
}
std::string Operation::strAttr(const std::string& k, const std::string& def) const {
  const Attribute* a = attr(k);
  return a ? a->s : def;
}
std::string Operation::describe() const {
  std::string l = loc.toString();
  return l.empty() ? name : name + " " + l;
}

std::vector<Value*> Function::outputs() const {
  Operation* t = body.terminator();
  return t ? t->operands : std::vector<Value*>{};
}
std::string Function::inputName(size_t i) const {
  if (i < body.args.size() && !body.args[i]->name.empty()) return body.args[i]->name;
  return "arg" + std::to_string(i);
}
std::string Function::outputName(size_t i) const {
  if (i < resultNames.size() && !resultNames[i].empty()) return resultNames[i];
  return "out" + std::to_string(i);
}

bool TargetEnv::hasProfile(const std::string& p) const {
  for (auto& x : profiles)
    if (x == p) return true;
  return false;
}
bool TargetEnv::hasExtension(const std::string& e) const {
  for (auto& x : extensions)
    if (x == e) return true;
  return false;
}
TargetEnv TargetEnv::all() {
  TargetEnv t;
  t.profiles = {"pro_int", "pro_fp"};
  t.extensions = {"int16",    "int4",        "bf16",        "fp8e4m3",      "fp8e5m2", "fft",
                  "variable", "controlflow", "doubleround", "inexactround", "dynamic"};
  t.level = "8k";
  return t;
}

Function* Module::function(const std::string& name) const {
  for (auto& f : functions)
    if (f->name == name) return f.get();
  return nullptr;
}
Function& Module::addFunction(const std::string& name) {
  functions.push_back(std::make_unique<Function>());
  functions.back()->name = name;
  functions.back()->module = this;
  return *functions.back();
}
Value* Module::newValue(ValueType type, std::string name) {
  values_.push_back(std::make_unique<Value>());
  Value* v = values_.back().get();
  v->type = std::move(type);
  v->name = std::move(name);
  v->id = int(values_.size()) - 1;
  return v;
}

// ---- structural equality ----
namespace {
class Comparer {
 public:
  std::string why;
  bool block(const Block& a, const Block& b, const std::string& where) {
    if (a.args.size() != b.args.size()) return fail(where + ": argument count differs");
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (!value(a.args[i], b.args[i], where + ": argument " + std::to_string(i))) return false;
    }
    if (a.ops.size() != b.ops.size())
      return fail(where + ": op count " + std::to_string(a.ops.size()) + " vs " + std::to_string(b.ops.size()));
    for (size_t i = 0; i < a.ops.size(); ++i)
      if (!op(*a.ops[i], *b.ops[i], where + ": op " + std::to_string(i) + " (" + a.ops[i]->name + ")")) return false;
    return true;
  }
  bool op(const Operation& a, const Operation& b, const std::string& where) {
    if (a.name != b.name) return fail(where + ": name " + a.name + " vs " + b.name);
    if (!(a.loc == b.loc)) return fail(where + ": location " + a.loc.toString() + " vs " + b.loc.toString());
    if (a.attrs.size() != b.attrs.size()) return fail(where + ": attribute count differs");
    for (auto& [k, v] : a.attrs) {
      const Attribute* o = b.attr(k);
      if (!o) return fail(where + ": attribute " + k + " missing");
      if (*o != v) return fail(where + ": attribute " + k + " " + v.toString() + " vs " + o->toString());
    }
    if (a.operands.size() != b.operands.size()) return fail(where + ": operand count differs");
    for (size_t i = 0; i < a.operands.size(); ++i) {
      auto it = map_.find(a.operands[i]);
      if (it == map_.end() || it->second != b.operands[i])
        return fail(where + ": operand " + std::to_string(i) + " wired differently");
    }
    if (a.results.size() != b.results.size()) return fail(where + ": result count differs");
    for (size_t i = 0; i < a.results.size(); ++i)
      if (!value(a.results[i], b.results[i], where + ": result " + std::to_string(i))) return false;
    if (a.regions.size() != b.regions.size()) return fail(where + ": region count differs");
    for (size_t r = 0; r < a.regions.size(); ++r) {
      auto& ra = *a.regions[r];
      auto& rb = *b.regions[r];
      if (ra.blocks.size() != rb.blocks.size()) return fail(where + ": block count differs");
      for (size_t k = 0; k < ra.blocks.size(); ++k)
        if (!block(*ra.blocks[k], *rb.blocks[k], where + " region " + std::to_string(r))) return false;
    }
    return true;
  }
  bool value(const Value* a, const Value* b, const std::string& where) {
    if (a->type != b->type) return fail(where + ": type " + a->type.toString() + " vs " + b->type.toString());
    if (a->name != b->name) return fail(where + ": name '" + a->name + "' vs '" + b->name + "'");
    map_[a] = b;
    return true;
  }
  bool fail(std::string w) {
    why = std::move(w);
    return false;
  }

 private:
  std::map<const Value*, const Value*> map_;
};
}  // namespace

// Per-argument/result attribute lists compare as if padded with empty dictionaries to the same length.
static bool sameAttrLists(const std::vector<std::map<std::string, Attribute>>& a,
                          const std::vector<std::map<std::string, Attribute>>& b) {
  static const std::map<std::string, Attribute> kNone;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i)
    if ((i < a.size() ? a[i] : kNone) != (i < b.size() ? b[i] : kNone)) return false;
  return true;
}

bool modulesEqual(const Module& a, const Module& b, std::string* why) {
  Comparer c;
  auto fail = [&](std::string w) {
    if (why) *why = std::move(w);
    return false;
  };
  if (a.functions.size() != b.functions.size()) return fail("function count differs");
  if (a.variables.size() != b.variables.size()) return fail("variable count differs");
  for (size_t i = 0; i < a.variables.size(); ++i) {
    const Variable& va = a.variables[i];
    const Variable& vb = b.variables[i];
    if (va.name != vb.name || va.type != vb.type) return fail("variable " + va.name + " differs");
    if (va.initialValue.has_value() != vb.initialValue.has_value() ||
        (va.initialValue && !va.initialValue->identical(*vb.initialValue)))
      return fail("variable " + va.name + " initial value differs");
  }
  if (a.target.has_value() != b.target.has_value()) return fail("target_env presence differs");
  if (a.target &&
      (a.target->profiles != b.target->profiles || a.target->extensions != b.target->extensions ||
       a.target->level != b.target->level))
    return fail("target_env differs");
  for (size_t i = 0; i < a.functions.size(); ++i) {
    const Function& fa = *a.functions[i];
    const Function& fb = *b.functions[i];
    if (fa.name != fb.name) return fail("function " + fa.name + " vs " + fb.name);
    if (fa.resultTypes != fb.resultTypes) return fail("@" + fa.name + ": result types differ");
    for (size_t k = 0; k < std::max(fa.resultNames.size(), fb.resultNames.size()); ++k)
      if (fa.outputName(k) != fb.outputName(k)) return fail("@" + fa.name + ": result names differ");
    if (!sameAttrLists(fa.argAttrs, fb.argAttrs)) return fail("@" + fa.name + ": argument attributes differ");
    if (!sameAttrLists(fa.resultAttrs, fb.resultAttrs)) return fail("@" + fa.name + ": result attributes differ");
    if (fa.attrs != fb.attrs) return fail("@" + fa.name + ": function attributes differ");
    if (!c.block(fa.body, fb.body, "@" + fa.name)) return fail(c.why);
  }
  return true;
}

// ---- debug printer ----
namespace {
class Printer {
 public:
  std::ostringstream os;
  std::string v(const Value* x) { return "%" + std::to_string(x->id); }
  void block(const Block& b, int indent) {
    for (auto& o : b.ops) op(*o, indent);
  }
  void op(const Operation& o, int indent) {
    std::string pad(size_t(indent), ' ');
    os << pad;
    for (size_t i = 0; i < o.results.size(); ++i) os << (i ? ", " : "") << v(o.results[i]);
    if (!o.results.empty()) os << " = ";
    os << o.name << "(";
    for (size_t i = 0; i < o.operands.size(); ++i) os << (i ? ", " : "") << v(o.operands[i]);
    os << ")";
    if (!o.attrs.empty()) {
      os << " {";
      bool first = true;
      for (auto& [k, a] : o.attrs) {
        os << (first ? "" : ", ") << k << " = " << a.toString();
        first = false;
      }
      os << "}";
    }
    os << " :";
    for (size_t i = 0; i < o.results.size(); ++i) os << (i ? ", " : " ") << o.results[i]->type.toString();
    if (!o.loc.empty()) os << "  // " << o.loc.toString();
    os << "\n";
    for (auto& r : o.regions) {
      os << pad << "  {\n";
      for (auto& b : r->blocks) {
        if (!b->args.empty()) {
          os << pad << "  ^(";
          for (size_t i = 0; i < b->args.size(); ++i)
            os << (i ? ", " : "") << v(b->args[i]) << ": " << b->args[i]->type.toString();
          os << "):\n";
        }
        block(*b, indent + 4);
      }
      os << pad << "  }\n";
    }
  }
};
}  // namespace

std::string printModule(const Module& m) {
  Printer p;
  if (m.target) {
    p.os << "target_env profiles=[";
    for (auto& x : m.target->profiles) p.os << x << " ";
    p.os << "] extensions=[";
    for (auto& x : m.target->extensions) p.os << x << " ";
    p.os << "] level=" << m.target->level << "\n";
  }
  for (auto& var : m.variables) p.os << "variable @" << var.name << " : " << var.type.toString() << "\n";
  for (auto& f : m.functions) {
    p.os << "func @" << f->name << "(";
    for (size_t i = 0; i < f->inputs().size(); ++i)
      p.os << (i ? ", " : "") << p.v(f->inputs()[i]) << " \"" << f->inputName(i)
           << "\": " << f->inputs()[i]->type.toString();
    p.os << ") -> (";
    for (size_t i = 0; i < f->resultTypes.size(); ++i)
      p.os << (i ? ", " : "") << "\"" << f->outputName(i) << "\": " << f->resultTypes[i].toString();
    p.os << ") {\n";
    p.block(f->body, 2);
    p.os << "}\n";
  }
  return p.os.str();
}

}  // namespace tosakit::ir

namespace tosakit::ir {

static const Attribute* findAttr(const std::vector<std::map<std::string, Attribute>>& all, size_t i,
                                 const std::string& key) {
  if (i >= all.size()) return nullptr;
  auto it = all[i].find(key);
  return it == all[i].end() ? nullptr : &it->second;
}

const Attribute* Function::argAttr(size_t i, const std::string& key) const { return findAttr(argAttrs, i, key); }
const Attribute* Function::resultAttr(size_t i, const std::string& key) const { return findAttr(resultAttrs, i, key); }
void Function::setArgAttr(size_t i, const std::string& key, Attribute a) {
  if (argAttrs.size() <= i) argAttrs.resize(i + 1);
  argAttrs[i][key] = std::move(a);
}
void Function::setResultAttr(size_t i, const std::string& key, Attribute a) {
  if (resultAttrs.size() <= i) resultAttrs.resize(i + 1);
  resultAttrs[i][key] = std::move(a);
}

}  // namespace tosakit::ir
