// SPIR-V graph module -> ir::Module. Structure is validated first (spirv_validate.cpp); this pass checks
// types and constants against the TOSA.001000.1 tables while building the IR. Errors: "FILE: word N: reason".
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/size_budget.h"
#include "formats/npy/npy.h"
#include "formats/spirv/spirv_attr_text.h"
#include "formats/spirv/spirv_defs.h"
#include "formats/spirv/spirv_internal.h"
#include "formats/spirv/spirv_io.h"
#include "formats/spirv/spirv_tosa_table.h"

namespace tosakit::spirv {

namespace {

struct TypeInfo {
  uint32_t opcode = 0;
  uint32_t width = 0, encoding = UINT32_MAX;
  uint32_t elem = 0;  // tensor / array / pointer
  bool hasRank = false, hasShape = false;
  Shape shape;  // tensor dims when shaped
  int64_t rank = 0;
  std::vector<uint32_t> members;  // struct / graph (inputs then outputs)
  uint32_t numInputs = 0;         // graph
};

class Reader {
 public:
  Reader(const std::string& file, const std::vector<std::pair<std::string, Tensor>>& sidecar)
      : file_(file), sidecar_(sidecar) {}

  Result<std::unique_ptr<ir::Module>> run(const uint32_t* words, size_t count) {
    if (Status s = validateSpirv(words, count, file_); !s) return s;
    auto split = splitInstructions(words, count, file_);
    if (!split) return split.status();
    instrs_ = std::move(*split);
    module_ = std::make_unique<ir::Module>();
    if (Status s = globals(); !s) return s;
    for (size_t i = 0; i < instrs_.size(); ++i)
      if (instrs_[i].opcode == OpGraphARM)
        if (Status s = graph(i); !s) return s;
    return std::move(module_);
  }

 private:
  std::string file_;
  const std::vector<std::pair<std::string, Tensor>>& sidecar_;
  std::vector<Instr> instrs_;
  std::unique_ptr<ir::Module> module_;
  uint32_t tosaSet_ = 0;
  std::map<uint32_t, TypeInfo> types_;
  std::map<uint32_t, const Instr*> consts_;
  std::map<uint32_t, std::string> names_, locNames_, strings_;
  std::map<uint32_t, ir::Location> lines_;
  std::map<uint32_t, std::string> entryName_;
  std::map<uint32_t, std::vector<uint32_t>> entryIface_;
  std::map<uint32_t, std::map<std::string, ir::Attribute>> attrDecos_;  // "tosakit.attr" decorations by id

  // Discardable attributes decorating the interface variables (arguments, results) and the graph (function).
  void discardableAttrs(ir::Function& fn, const std::vector<uint32_t>& iface, size_t nIn, size_t nOut,
                        uint32_t graphId) {
    for (size_t k = 0; k < iface.size() && k < nIn + nOut; ++k) {
      auto it = attrDecos_.find(iface[k]);
      if (it == attrDecos_.end()) continue;
      for (const auto& [key, a] : it->second) {
        if (k < nIn)
          fn.setArgAttr(k, key, a);
        else
          fn.setResultAttr(k - nIn, key, a);
      }
    }
    if (auto it = attrDecos_.find(graphId); it != attrDecos_.end()) fn.attrs = it->second;
  }

  Status err(const Instr& in, const std::string& why) const {
    return Status::parse(file_ + ": word " + std::to_string(in.offset) + ": " + opcodeName(in.opcode) + ": " + why);
  }

  Status globals() {
    ir::Location cur;
    bool haveLine = false;
    for (const Instr& in : instrs_) {
      std::string s;
      switch (in.opcode) {
        case OpExtInstImport:
          literalString(in, 1, s);
          if (s != kTosaSetName)
            return err(in, "unknown extended instruction set '" + s + "' (expected " + kTosaSetName + ")");
          tosaSet_ = in.ops[0];
          break;
        case OpString:
          literalString(in, 1, s);
          strings_[in.ops[0]] = s;
          break;
        case OpName:
          literalString(in, 1, s);
          names_[in.ops[0]] = s;
          break;
        case OpDecorateString:
          if (in.ops[1] == kDecorationUserSemantic) {
            literalString(in, 2, s);
            if (s.rfind("tosakit.loc=", 0) == 0) locNames_[in.ops[0]] = s.substr(12);
            if (s.rfind(kAttrPrefix, 0) == 0) {
              auto a = decodeAttrText(s);
              if (!a) return err(in, a.status().message());
              attrDecos_[in.ops[0]][a->first] = std::move(a->second);
            }
          }
          break;
        case OpModuleProcessed:
          literalString(in, 0, s);
          if (s.rfind("tosakit.target_env ", 0) == 0) targetEnv(s);
          break;
        case OpGraphEntryPointARM: {
          size_t next = 0;
          literalString(in, 1, s, &next);
          entryName_[in.ops[0]] = s;
          entryIface_[in.ops[0]].assign(in.ops.begin() + long(next), in.ops.end());
          break;
        }
        case OpLine:
          cur = ir::Location{};
          cur.file = strings_[in.ops[0]];
          cur.line = int(in.ops[1]);
          cur.col = int(in.ops[2]);
          haveLine = true;
          break;
        case OpNoLine: haveLine = false; break;
        case OpGraphARM: haveLine = false; break;
        case OpTypeBool:
        case OpTypeInt:
        case OpTypeFloat:
        case OpTypeArray:
        case OpTypeStruct:
        case OpTypePointer:
        case OpTypeTensorARM:
        case OpTypeGraphARM:
          if (Status st = type(in); !st) return st;
          break;
        case OpConstantTrue:
        case OpConstantFalse:
        case OpConstant:
        case OpConstantComposite:
        case OpConstantNull:
        case OpConstantCompositeReplicateEXT:
        case OpGraphConstantARM:
          consts_[in.ops[1]] = &in;
          if (haveLine) lines_[in.ops[1]] = cur;
          if (Status st = constantType(in); !st) return st;
          break;
        default: break;
      }
    }
    if (!tosaSet_) return Status::parse(file_ + ": word 5: no OpExtInstImport \"" + kTosaSetName + "\"");
    return Status::ok();
  }

  void targetEnv(const std::string& s) {
    ir::TargetEnv t;
    std::istringstream is(s.substr(19));
    std::string tok;
    auto list = [](const std::string& v) {
      std::vector<std::string> out;
      std::stringstream ss(v);
      std::string x;
      while (std::getline(ss, x, ','))
        if (!x.empty()) out.push_back(x);
      return out;
    };
    while (is >> tok) {
      if (tok.rfind("profiles=", 0) == 0)
        t.profiles = list(tok.substr(9));
      else if (tok.rfind("extensions=", 0) == 0)
        t.extensions = list(tok.substr(11));
      else if (tok.rfind("level=", 0) == 0)
        t.level = tok.substr(6);
    }
    module_->target = t;
  }

  const TypeInfo* typeOf(uint32_t id) const {
    auto it = types_.find(id);
    return it == types_.end() ? nullptr : &it->second;
  }

  Result<uint32_t> u32Value(const Instr& at, uint32_t id, const std::string& what) const {
    auto it = consts_.find(id);
    const TypeInfo* t = it == consts_.end() ? nullptr : typeOf(it->second->ops[0]);
    if (!t || t->opcode != OpTypeInt || t->width != 32) return err(at, what + " must be an OpTypeInt 32 constant");
    if (it->second->opcode == OpConstantNull) return uint32_t(0);
    if (it->second->opcode != OpConstant || it->second->ops.size() != 3)
      return err(at, what + " must be an OpConstant");
    return it->second->ops[2];
  }

  Status type(const Instr& in) {
    TypeInfo t;
    t.opcode = in.opcode;
    uint32_t id = in.ops[0];
    switch (in.opcode) {
      case OpTypeInt:
        t.width = in.ops[1];
        if (t.width != 8 && t.width != 16 && t.width != 32 && t.width != 64)
          return err(in, "unsupported integer width");
        if (in.ops[2] > 1) return err(in, "bad signedness");
        break;
      case OpTypeFloat:
        t.width = in.ops[1];
        if (in.ops.size() == 3) t.encoding = in.ops[2];
        if (!((t.width == 16 || t.width == 32) && in.ops.size() == 2) &&
            !(t.width == 16 && t.encoding == FPEncBFloat16KHR) &&
            !(t.width == 8 && (t.encoding == FPEncFloat8E4M3EXT || t.encoding == FPEncFloat8E5M2EXT)))
          return err(in, "unsupported float type");
        break;
      case OpTypeArray: {
        const TypeInfo* e = typeOf(in.ops[1]);
        if (!e || e->opcode != OpTypeInt) return err(in, "element type must be an integer type");
        t.elem = in.ops[1];
        auto len = u32Value(in, in.ops[2], "length");
        if (!len) return len.status();
        t.rank = *len;
        break;
      }
      case OpTypeStruct:
      case OpTypeGraphARM: {
        size_t first = in.opcode == OpTypeGraphARM ? 2 : 1;
        if (in.opcode == OpTypeGraphARM) {
          t.numInputs = in.ops[1];
          if (t.numInputs >= in.ops.size() - 2) return err(in, "a graph type needs at least one output");
        }
        for (size_t k = first; k < in.ops.size(); ++k) {
          const TypeInfo* m = typeOf(in.ops[k]);
          if (!m || m->opcode != OpTypeTensorARM)
            return err(in, "member " + std::to_string(k - first) + " is not a tensor type");
          t.members.push_back(in.ops[k]);
        }
        break;
      }
      case OpTypePointer:
        if (!typeOf(in.ops[2])) return err(in, "pointee is not a type");
        t.elem = in.ops[2];
        break;
      case OpTypeTensorARM: {
        const TypeInfo* e = typeOf(in.ops[1]);
        if (!e || (e->opcode != OpTypeInt && e->opcode != OpTypeFloat && e->opcode != OpTypeBool))
          return err(in, "element type must be a scalar type");
        t.elem = in.ops[1];
        if (in.ops.size() >= 3) {
          auto r = u32Value(in, in.ops[2], "rank");
          if (!r) return r.status();
          t.hasRank = true;
          t.rank = *r;
          if (t.rank > 64) return err(in, "rank " + std::to_string(t.rank) + " too large");
        }
        if (in.ops.size() == 4) {
          auto it = consts_.find(in.ops[3]);
          const TypeInfo* at = it == consts_.end() ? nullptr : typeOf(it->second->ops[0]);
          if (!at || at->opcode != OpTypeArray || at->rank != t.rank || it->second->opcode != OpConstantComposite)
            return err(in, "shape must be an OpConstantComposite array of length rank");
          for (size_t k = 2; k < it->second->ops.size(); ++k) {
            auto d = u32Value(in, it->second->ops[k], "dimension");
            if (!d) return d.status();
            t.shape.push_back(int64_t(*d));
          }
          if (int64_t(t.shape.size()) != t.rank) return err(in, "shape length differs from rank");
          t.hasShape = true;
        }
        break;
      }
      default: break;
    }
    types_[id] = std::move(t);
    return Status::ok();
  }

  // Type checks of a constant's own instruction.
  Status constantType(const Instr& in) {
    const TypeInfo* t = typeOf(in.ops[0]);
    if (!t) return err(in, "result type is not a type");
    switch (in.opcode) {
      case OpConstantTrue:
      case OpConstantFalse:
        if (t->opcode != OpTypeBool) return err(in, "type must be OpTypeBool");
        break;
      case OpConstant:
        if (t->opcode != OpTypeInt && t->opcode != OpTypeFloat) return err(in, "type must be a numeric scalar");
        if (in.ops.size() != (t->width == 64 ? 4u : 3u)) return err(in, "wrong number of value words");
        break;
      case OpGraphConstantARM:
        if (t->opcode != OpTypeTensorARM) return err(in, "type must be OpTypeTensorARM");
        break;
      case OpConstantComposite:
        if (t->opcode == OpTypeArray) {
          if (int64_t(in.ops.size() - 2) != t->rank) return err(in, "constituent count differs from the array length");
        } else if (t->opcode == OpTypeTensorARM) {
          if (!t->hasShape || t->shape.empty() || int64_t(in.ops.size() - 2) != t->shape[0])
            return err(in, "constituent count differs from the tensor's first dimension");
        } else {
          return err(in, "unsupported composite type");
        }
        break;
      case OpConstantCompositeReplicateEXT:
        if (t->opcode != OpTypeTensorARM || !t->hasShape || t->shape.empty())
          return err(in, "type must be a shaped tensor");
        break;
      default: break;
    }
    return Status::ok();
  }

  Result<DType> scalarDType(const Instr& at, uint32_t typeId) const {
    const TypeInfo* t = typeOf(typeId);
    if (!t) return err(at, "not a type: %" + std::to_string(typeId));
    if (t->opcode == OpTypeBool) return DType::Bool;
    if (t->opcode == OpTypeInt) {
      switch (t->width) {
        case 8: return DType::I8;
        case 16: return DType::I16;
        case 32: return DType::I32;
        case 64: return DType::I48;
      }
    }
    if (t->opcode == OpTypeFloat) {
      if (t->width == 32) return DType::FP32;
      if (t->width == 16) return t->encoding == FPEncBFloat16KHR ? DType::BF16 : DType::FP16;
      if (t->width == 8) return t->encoding == FPEncFloat8E4M3EXT ? DType::FP8E4M3 : DType::FP8E5M2;
    }
    return err(at, "%" + std::to_string(typeId) + " is not a scalar type");
  }

  Result<ir::ValueType> valueType(const Instr& at, uint32_t typeId) const {
    const TypeInfo* t = typeOf(typeId);
    if (!t || t->opcode != OpTypeTensorARM) return err(at, "%" + std::to_string(typeId) + " is not a tensor type");
    auto d = scalarDType(at, t->elem);
    if (!d) return d.status();
    if (!t->hasRank) return ir::ValueType::unranked(*d);
    if (t->hasShape) return ir::ValueType::tensor(*d, t->shape);
    return ir::ValueType::tensor(*d, Shape(size_t(t->rank), -1));
  }

  // Raw bits of a scalar constant of element type `elemType`.
  Result<uint64_t> scalarBits(const Instr& at, uint32_t id, uint32_t elemType) const {
    auto it = consts_.find(id);
    if (it == consts_.end()) return err(at, "%" + std::to_string(id) + " is not a constant");
    const Instr& c = *it->second;
    if (c.ops[0] != elemType) {
      // Types are deduplicated by the writer but other producers may repeat them: compare structurally.
      auto a = scalarDType(at, c.ops[0]);
      auto b = scalarDType(at, elemType);
      if (!a || !b || *a != *b) return err(at, "constant %" + std::to_string(id) + " has the wrong element type");
    }
    switch (c.opcode) {
      case OpConstantTrue: return uint64_t(1);
      case OpConstantFalse:
      case OpConstantNull: return uint64_t(0);
      case OpConstant: return c.ops.size() == 4 ? (uint64_t(c.ops[3]) << 32 | c.ops[2]) : uint64_t(c.ops[2]);
      default: return err(at, "constant %" + std::to_string(id) + " is not a scalar");
    }
  }

  static void setBits(Tensor& t, int64_t i, uint64_t bits) {
    DType d = t.dtype();
    if (d == DType::FP32) {
      float f;
      uint32_t b = uint32_t(bits);
      std::memcpy(&f, &b, 4);
      t.setFloat(i, double(f));
      return;
    }
    if (d == DType::Bool) {
      t.setInt(i, bits != 0);
      return;
    }
    if (isFloat(d)) {
      t.setInt(i, int64_t(bits));
      return;
    }
    int w = bitWidth(d);
    int64_t v = (d == DType::I48) ? int64_t(bits) : int64_t(bits & ((uint64_t(1) << w) - 1));
    if (d != DType::I48 && w < 64 && (v >> (w - 1)) & 1) v -= int64_t(1) << w;
    t.setInt(i, v);
  }

  // Fill t[flat...] from constant `id` of tensor type with dims[dim...].
  Status fill(const Instr& at, uint32_t id, Tensor& t, uint32_t elemType, size_t dim, int64_t& flat, int depth) const {
    if (depth > 70) return err(at, "constant nesting too deep");
    const Shape& dims = t.shape();
    auto it = consts_.find(id);
    if (it == consts_.end()) return err(at, "%" + std::to_string(id) + " is not a constant");
    const Instr& c = *it->second;
    int64_t count = 1;
    for (size_t k = dim; k < dims.size(); ++k) count *= dims[k];
    if (dim == dims.size() && !(dim == 0 && c.opcode == OpGraphConstantARM)) {  // a scalar element
      auto b = scalarBits(at, id, elemType);
      if (!b) return b.status();
      setBits(t, flat++, *b);
      return Status::ok();
    }
    const TypeInfo* ct = typeOf(c.ops[0]);
    if (!ct || ct->opcode != OpTypeTensorARM || (!ct->hasShape && !dims.empty()) ||
        ct->shape != Shape(dims.begin() + long(dim), dims.end()))
      return err(at, "constituent %" + std::to_string(id) + " has the wrong type");
    switch (c.opcode) {
      case OpConstantNull:
        flat += count;  // tensors start zeroed
        return Status::ok();
      case OpConstantComposite:
        for (size_t k = 2; k < c.ops.size(); ++k)
          if (Status s = fill(at, c.ops[k], t, elemType, dim + 1, flat, depth + 1); !s) return s;
        return Status::ok();
      case OpConstantCompositeReplicateEXT:
        for (int64_t k = 0; k < dims[dim]; ++k)
          if (Status s = fill(at, c.ops[2], t, elemType, dim + 1, flat, depth + 1); !s) return s;
        return Status::ok();
      case OpGraphConstantARM: {
        if (dim != 0) return err(at, "graph constant used as a constituent");
        std::string key = std::to_string(c.ops[2]);
        for (const auto& [k, v] : sidecar_) {
          if (k != key) continue;
          auto a = npy::adaptToDType(v, t.dtype(), file_ + ".npz: " + key);
          if (!a) return a.status();
          if (a->shape() != dims) return err(at, "sidecar tensor '" + key + "' has the wrong shape");
          t = *a;
          flat += count;
          return Status::ok();
        }
        return err(at, "graph constant " + key + " not found in the sidecar " + file_ + ".npz");
      }
      default: return err(at, "%" + std::to_string(id) + " is not a tensor constant");
    }
  }

  Result<Tensor> tensorConstant(const Instr& at, uint32_t id) const {
    auto it = consts_.find(id);
    if (it == consts_.end()) return err(at, "%" + std::to_string(id) + " must come from a constant instruction");
    const TypeInfo* t = typeOf(it->second->ops[0]);
    if (!t || t->opcode != OpTypeTensorARM) return err(at, "constant %" + std::to_string(id) + " is not a tensor");
    if (!t->hasRank || (!t->hasShape && t->rank != 0))
      return err(at, "constant %" + std::to_string(id) + " needs a shaped tensor type");
    auto d = scalarDType(at, t->elem);
    if (!d) return d.status();
    // Bound the allocation: a few words (OpConstantNull, replicates) can describe a huge tensor. A graph
    // constant's data is in the sidecar (already read), so only the memory budget applies to it.
    const int64_t kMaxElements = int64_t(1) << 24;
    int64_t n = 1;
    for (int64_t x : t->shape) {
      if (x > kMaxElements || (x > 0 && n > kMaxElements / x)) {
        if (it->second->opcode == OpGraphConstantARM) break;
        return err(at, "constant has more than 2^24 elements");
      }
      n *= x;
    }
    if (Status s = checkAllocation(*d, t->shape, "constant %" + std::to_string(id)); !s) return err(at, s.message());
    Tensor out(*d, t->shape);
    int64_t flat = 0;
    if (t->rank == 0) {
      const Instr& c = *it->second;
      if (c.opcode == OpConstantNull) return out;
      if (c.opcode != OpGraphConstantARM)
        return err(at, "rank-0 constant must be OpConstantNull or OpGraphConstantARM");
    }
    if (Status s = fill(at, id, out, t->elem, 0, flat, 0); !s) return s;
    return out;
  }

  struct GraphState {
    ir::Function* fn = nullptr;
    std::map<uint32_t, ir::Value*> values;
    std::map<uint32_t, ir::Operation*> structs;              // multi-result ext inst
    std::map<std::pair<uint32_t, bool>, ir::Value*> consts;  // (const id, as shape)
    // SPIR-V id each op came from. The writer allocates ids in the IR's op order, so sorting the body by
    // these ids restores the original order of constants among the ops (exact round trips).
    std::map<const ir::Operation*, uint32_t> anchor;
  };

  ir::Location locationOf(uint32_t id, const std::map<uint32_t, ir::Location>& lines) const {
    ir::Location l;
    if (auto it = lines.find(id); it != lines.end()) l = it->second;
    if (auto it = locNames_.find(id); it != locNames_.end())
      l.name = it->second;
    else if (auto n = names_.find(id); n != names_.end())
      l.name = n->second;
    return l;
  }
  std::string nameOf(uint32_t id) const {
    auto it = names_.find(id);
    return it == names_.end() ? std::string() : it->second;
  }

  // A constant used as a tensor operand becomes a tosa.const (or tosa.const_shape) op placed before its user.
  Result<ir::Value*> constOp(const Instr& at, GraphState& g, uint32_t id, bool asShape, DType want) {
    auto key = std::make_pair(id, asShape);
    if (auto it = g.consts.find(key); it != g.consts.end()) return it->second;
    auto t = tensorConstant(at, id);
    if (!t) return t.status();
    auto op = std::make_unique<ir::Operation>();
    op->loc = locationOf(id, lines_);
    op->parent = &g.fn->body;
    ir::ValueType vt;
    if (asShape) {
      if (t->rank() != 1 || t->dtype() != DType::I32) return err(at, "shape operand must be a rank-1 i32 tensor");
      op->name = "tosa.const_shape";
      Tensor s = Tensor::fromInts(DType::I64, t->shape(), t->toInts());
      vt = ir::ValueType::shape(t->shape()[0]);
      op->attrs["values"] = ir::Attribute::dense(std::move(s));
    } else {
      op->name = "tosa.const";
      Tensor v = *t;
      if (want != v.dtype()) v = Tensor::fromInts(want, v.shape(), v.toInts());
      vt = ir::ValueType::tensor(v.dtype(), v.shape());
      op->attrs["values"] = ir::Attribute::dense(std::move(v));
    }
    ir::Value* r = module_->newValue(vt, nameOf(id));
    r->definingOp = op.get();
    op->results.push_back(r);
    g.anchor[op.get()] = id;
    g.fn->body.ops.push_back(std::move(op));
    g.consts[key] = r;
    return r;
  }

  Result<ir::Attribute> attribute(const Instr& at, const SpvInstrDesc& d, const SpvOperandDesc& od, uint32_t id,
                                  DType inDT) const {
    std::string n = od.name;
    std::string where = std::string(d.specName) + " " + n;
    auto it = consts_.find(id);
    if (it == consts_.end()) return err(at, where + " must come from a constant instruction");
    switch (od.kind) {
      case SpvOperandKind::Bool: {
        const TypeInfo* t = typeOf(it->second->ops[0]);
        if (!t || t->opcode != OpTypeBool) return err(at, where + " must be an OpTypeBool constant");
        auto b = scalarBits(at, id, it->second->ops[0]);
        if (!b) return b.status();
        return ir::Attribute::boolean(*b != 0);
      }
      case SpvOperandKind::U32: {
        auto v = u32Value(at, id, where);
        if (!v) return v.status();
        if (n == "acc_type") {
          DType t;
          if (!accTypeFromValue(*v, t))
            return err(at, where + ": " + std::to_string(*v) + " is not an acc_type_t value");
          return ir::Attribute::type(t);
        }
        if (isEnumAttr(n)) {
          std::string e = enumName(n, *v);
          if (e.empty()) return err(at, where + ": " + std::to_string(*v) + " is not a valid value");
          return ir::Attribute::enumCase(e);
        }
        return ir::Attribute::integer(int64_t(int32_t(*v)), DType::I32);  // see the writer: two's complement
      }
      case SpvOperandKind::Scalar: {
        auto dt = scalarDType(at, it->second->ops[0]);
        if (!dt) return dt.status();
        if (*dt != inDT) return err(at, where + " must have the input element type");
        auto b = scalarBits(at, id, it->second->ops[0]);
        if (!b) return b.status();
        Tensor t(inDT, {1});
        setBits(t, 0, *b);
        if (isFloat(inDT)) return ir::Attribute::floating(t.getFloat(0), inDT);
        return ir::Attribute::integer(t.getInt(0), inDT);
      }
      case SpvOperandKind::Tensor: {
        auto t = tensorConstant(at, id);
        if (!t) return t.status();
        if (t->rank() != 1 || t->dtype() != DType::I32)
          return err(at, where + " must be a rank-1 tensor of OpTypeInt 32");
        if (od.length >= 0 && t->size() != od.length)
          return err(at, where + " must have " + std::to_string(od.length) + " elements");
        return ir::Attribute::intArray(t->toInts(), n == "perms" ? DType::I32 : DType::I64);
      }
      default: return err(at, where + ": bad table entry");
    }
  }

  Status extInst(const Instr& in, GraphState& g, const std::map<uint32_t, ir::Location>& lines) {
    if (in.ops[2] != tosaSet_) return err(in, "extended instruction set is not " + std::string(kTosaSetName));
    const SpvInstrDesc* d = instrByNumber(in.ops[3]);
    if (!d) return err(in, "unknown TOSA.001000.1 instruction " + std::to_string(in.ops[3]));
    std::string where = std::string(d->specName);
    size_t given = in.ops.size() - 4;
    bool variadic = !d->operands.empty() && d->operands.back().kind == SpvOperandKind::TensorList;
    if (variadic ? given < d->operands.size() : given != d->operands.size())
      return err(
          in, where + ": expected " + std::to_string(d->operands.size()) + " operands, got " + std::to_string(given));
    auto op = std::make_unique<ir::Operation>();
    op->name = d->irName;
    op->parent = &g.fn->body;
    // Input element type (for clamp's scalars): the first input operand's type.
    DType inDT = DType::FP32;
    if (size_t(d->numAttrs) < given) {
      uint32_t firstIn = in.ops[4 + size_t(d->numAttrs)];
      if (auto it = g.values.find(firstIn); it != g.values.end())
        inDT = it->second->type.dtype;
      else if (auto c = consts_.find(firstIn); c != consts_.end())
        if (const TypeInfo* t = typeOf(c->second->ops[0]); t && t->opcode == OpTypeTensorARM)
          if (auto dt = scalarDType(in, t->elem)) inDT = *dt;
    }
    for (int i = 0; i < d->numAttrs; ++i) {
      const SpvOperandDesc& od = d->operands[size_t(i)];
      auto a = attribute(in, *d, od, in.ops[4 + size_t(i)], inDT);
      if (!a) return a.status();
      std::string n = od.name;
      // MLIR 22 omits default-valued attributes (nan_mode = PROPAGATE, local_bound = false).
      if (n == "nan_mode" && a->s == "PROPAGATE") continue;
      if (n == "local_bound" && !a->b) continue;
      op->attrs[n] = *a;
    }
    bool scale32 = op->boolAttr("scale32", true);
    for (size_t k = size_t(d->numAttrs); k < given; ++k) {
      const SpvOperandDesc& od = d->operands[std::min(k, d->operands.size() - 1)];
      uint32_t id = in.ops[4 + k];
      std::string on = od.name;
      if (auto it = g.values.find(id); it != g.values.end()) {
        if (od.mustBeConstant) return err(in, where + " " + on + " must come from a constant instruction");
        if (it->second->type.isShape() != isShapeOperand(d->irName, on))
          return err(in, where + " " + on + ": wrong kind of value");
        op->operands.push_back(it->second);
        continue;
      }
      if (!consts_.count(id))
        return err(in, where + " " + on + ": %" + std::to_string(id) + " is not defined in this graph");
      const TypeInfo* ct = typeOf(consts_[id]->ops[0]);
      if (!ct || ct->opcode != OpTypeTensorARM) return err(in, where + " " + on + " must be a tensor");
      DType want = DType::I32;
      if (auto dt = scalarDType(in, ct->elem))
        want = *dt;
      else
        return dt.status();
      if (od.intBits && !(want == DType::I8 && od.intBits == 8) && !(want == DType::I32 && od.intBits == 32))
        return err(in, where + " " + on + " must have OpTypeInt " + std::to_string(od.intBits) + " elements");
      if (d->irName == "tosa.rescale" && on == "multiplier" && !scale32) want = DType::I16;
      auto v = constOp(in, g, id, isShapeOperand(d->irName, on), want);
      if (!v) return v.status();
      op->operands.push_back(*v);
    }
    // Result(s).
    uint32_t rt = in.ops[0];
    const TypeInfo* t = typeOf(rt);
    std::vector<uint32_t> resultTypes = (t && t->opcode == OpTypeStruct) ? t->members : std::vector<uint32_t>{rt};
    bool multi = d->irName == "tosa.fft2d" || d->irName == "tosa.rfft2d";
    if (multi != (t && t->opcode == OpTypeStruct) || (multi && resultTypes.size() != 2))
      return err(in, where + ": result type must be " + (multi ? "a struct of two tensors" : "a tensor"));
    op->loc = locationOf(in.ops[1], lines);
    for (size_t r = 0; r < resultTypes.size(); ++r) {
      auto vt = valueType(in, resultTypes[r]);
      if (!vt) return vt.status();
      ir::Value* v = module_->newValue(*vt, multi ? std::string() : nameOf(in.ops[1]));
      v->definingOp = op.get();
      v->index = int(r);
      op->results.push_back(v);
    }
    if (multi)
      g.structs[in.ops[1]] = op.get();
    else
      g.values[in.ops[1]] = op->results[0];
    g.anchor[op.get()] = in.ops[1];
    g.fn->body.ops.push_back(std::move(op));
    return Status::ok();
  }

  Status graph(size_t start) {
    const Instr& gi = instrs_[start];
    uint32_t graphId = gi.ops[1];
    const TypeInfo* gt = typeOf(gi.ops[0]);
    if (!gt || gt->opcode != OpTypeGraphARM) return err(gi, "result type must be OpTypeGraphARM");
    auto en = entryName_.find(graphId);
    std::string fname = en != entryName_.end() ? en->second : nameOf(graphId);
    if (fname.empty()) fname = "graph" + std::to_string(graphId);
    if (module_->function(fname)) return err(gi, "two graphs named '" + fname + "'");
    GraphState g;
    g.fn = &module_->addFunction(fname);
    const std::vector<uint32_t>& iface = entryIface_[graphId];
    size_t nIn = gt->numInputs, nOut = gt->members.size() - gt->numInputs;
    // Inputs.
    std::vector<ir::Value*> args(nIn, nullptr);
    size_t i = start + 1;
    for (; i < instrs_.size() && instrs_[i].opcode == OpGraphInputARM; ++i) {
      const Instr& in = instrs_[i];
      if (in.ops.size() != 3) return err(in, "ElementIndex (tensor arrays) is not supported");
      auto idx = u32Value(in, in.ops[2], "InputIndex");
      if (!idx) return idx.status();
      if (*idx >= nIn) return err(in, "InputIndex " + std::to_string(*idx) + " >= number of graph inputs");
      if (in.ops[0] != gt->members[*idx]) return err(in, "type differs from the graph type's input");
      auto vt = valueType(in, in.ops[0]);
      if (!vt) return vt.status();
      ir::Value* v = module_->newValue(*vt, nameOf(in.ops[1]));
      v->ownerBlock = &g.fn->body;
      v->index = int(*idx);
      args[*idx] = v;
      g.values[in.ops[1]] = v;
    }
    for (size_t k = 0; k < nIn; ++k)
      if (!args[k]) return err(gi, "graph input " + std::to_string(k) + " has no OpGraphInputARM");
    g.fn->body.args = args;
    std::map<uint32_t, ir::Location> lines;
    ir::Location cur;
    bool haveLine = false;
    std::vector<ir::Value*> outs(nOut, nullptr);
    ir::Location retLoc;
    for (; i < instrs_.size() && instrs_[i].opcode != OpGraphEndARM; ++i) {
      const Instr& in = instrs_[i];
      switch (in.opcode) {
        case OpLine:
          cur = ir::Location{};
          cur.file = strings_[in.ops[0]];
          cur.line = int(in.ops[1]);
          cur.col = int(in.ops[2]);
          haveLine = true;
          break;
        case OpNoLine: haveLine = false; break;
        case OpExtInst:
          if (haveLine) lines[in.ops[1]] = cur;
          if (Status s = extInst(in, g, lines); !s) return s;
          break;
        case OpCompositeExtract: {
          auto it = g.structs.find(in.ops[2]);
          if (it == g.structs.end()) return err(in, "composite is not a multi-output TOSA instruction of this graph");
          if (in.ops.size() != 4 || in.ops[3] >= it->second->results.size()) return err(in, "bad member index");
          ir::Value* v = it->second->results[in.ops[3]];
          auto vt = valueType(in, in.ops[0]);
          if (!vt || *vt != v->type) return err(in, "result type differs from the member type");
          if (g.values.count(in.ops[1])) return err(in, "id defined twice");
          v->name = nameOf(in.ops[1]);
          g.values[in.ops[1]] = v;
          break;
        }
        case OpGraphSetOutputARM: {
          if (haveLine) retLoc = cur;
          if (in.ops.size() != 2) return err(in, "ElementIndex (tensor arrays) is not supported");
          auto idx = u32Value(in, in.ops[1], "OutputIndex");
          if (!idx) return idx.status();
          if (*idx >= nOut) return err(in, "OutputIndex " + std::to_string(*idx) + " >= number of graph outputs");
          ir::Value* v = nullptr;
          if (auto it = g.values.find(in.ops[0]); it != g.values.end()) {
            v = it->second;
          } else if (consts_.count(in.ops[0])) {
            const TypeInfo* ct = typeOf(consts_[in.ops[0]]->ops[0]);
            if (!ct || ct->opcode != OpTypeTensorARM) return err(in, "output must be a tensor");
            auto dt = scalarDType(in, ct->elem);
            if (!dt) return dt.status();
            auto c = constOp(in, g, in.ops[0], false, *dt);
            if (!c) return c.status();
            v = *c;
          } else {
            return err(in, "value %" + std::to_string(in.ops[0]) + " is not defined in this graph");
          }
          auto vt = valueType(in, gt->members[nIn + *idx]);
          if (!vt) return vt.status();
          if (*vt != v->type) return err(in, "value type differs from the graph type's output");
          outs[*idx] = v;
          break;
        }
        default: return err(in, "not allowed inside a graph");
      }
    }
    for (size_t k = 0; k < nOut; ++k) {
      if (!outs[k]) return err(gi, "graph output " + std::to_string(k) + " is never set");
      auto vt = valueType(gi, gt->members[nIn + k]);
      if (!vt) return vt.status();
      g.fn->resultTypes.push_back(*vt);
      std::string n = nIn + k < iface.size() ? nameOf(iface[nIn + k]) : std::string();
      g.fn->resultNames.push_back(n);
    }
    discardableAttrs(*g.fn, iface, nIn, nOut, graphId);
    std::stable_sort(g.fn->body.ops.begin(), g.fn->body.ops.end(),
                     [&](const auto& a, const auto& b) { return g.anchor[a.get()] < g.anchor[b.get()]; });
    auto ret = std::make_unique<ir::Operation>();
    ret->name = "func.return";
    ret->loc = retLoc;
    ret->operands = outs;
    ret->parent = &g.fn->body;
    g.fn->body.ops.push_back(std::move(ret));
    return Status::ok();
  }
};

Result<std::string> readFile(const std::string& path) {
  TK_RETURN_IF_ERROR(checkFileSize(path));
  std::ifstream is(path, std::ios::binary);
  if (!is) return Status::io(path + ": cannot open");
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

}  // namespace

Result<std::unique_ptr<ir::Module>> decodeSpirv(const uint32_t* words, size_t count, const std::string& file,
                                                const std::vector<std::pair<std::string, Tensor>>& sidecar) {
  Reader r(file, sidecar);
  return r.run(words, count);
}

Result<std::unique_ptr<ir::Module>> readSpirv(const std::string& path) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  auto words = wordsFromBytes(*bytes, path);
  if (!words) return words.status();
  std::vector<std::pair<std::string, Tensor>> sidecar;
  std::error_code ec;
  if (std::filesystem::exists(path + ".npz", ec)) {
    auto z = npy::readNpz(path + ".npz");
    if (!z) return z.status();
    sidecar = std::move(*z);
  }
  return decodeSpirv(words->data(), words->size(), path, sidecar);
}

}  // namespace tosakit::spirv
