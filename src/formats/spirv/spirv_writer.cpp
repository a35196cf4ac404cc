// ir::Module -> SPIR-V graph module (one OpGraphARM per function, TOSA.001000.1 instructions).
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <cstdio>
#include <fstream>
#include "core/file_io.h"
#include "formats/npy/npy.h"
#include "formats/spirv/spirv_attr_text.h"
#include "formats/spirv/spirv_defs.h"
#include "formats/spirv/spirv_io.h"
#include "formats/spirv/spirv_tosa_table.h"

namespace tosakit::spirv {

namespace {

using Words = std::vector<uint32_t>;

void appendString(Words& w, const std::string& s) {
  // Nul-terminated UTF-8, padded with zeros to a word boundary.
  size_t n = s.size() / 4 + 1;
  size_t start = w.size();
  w.resize(start + n, 0);
  for (size_t i = 0; i < s.size(); ++i) w[start + i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
}

void emit(Words& sec, uint32_t op, const Words& operands) {
  sec.push_back(uint32_t((operands.size() + 1) << 16) | op);
  sec.insert(sec.end(), operands.begin(), operands.end());
}

// Raw bits of element i (floats: their encoding; integers: two's complement).
uint64_t elementBits(const Tensor& t, int64_t i) {
  DType d = t.dtype();
  if (d == DType::FP32) {
    float f = float(t.getFloat(i));
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  int64_t v = t.getInt(i);
  int bits = (d == DType::I48) ? 64 : bitWidth(d);
  if (bits >= 64) return uint64_t(v);
  return uint64_t(v) & ((uint64_t(1) << bits) - 1);
}

class Writer {
 public:
  Result<SpirvBinary> run(const ir::Module& m) {
    setId_ = next();
    for (const auto& f : m.functions)
      if (Status s = function(*f); !s) return s;
    return finish(m);
  }

 private:
  uint32_t bound_ = 1;
  uint32_t setId_ = 0;
  std::set<uint32_t> caps_ = {CapShader, CapGraphARM, CapTensorsARM};
  std::set<std::string> exts_ = {"SPV_ARM_graph", "SPV_ARM_tensors"};
  Words entry_, debugStrings_, names_, annotations_, globals_, graphs_;
  std::map<std::string, uint32_t> typeIds_;   // key -> id, dedups types
  std::map<std::string, uint32_t> constIds_;  // key -> id, dedups scalar and attribute constants
  std::map<std::string, uint32_t> fileIds_;
  std::map<const ir::Value*, uint32_t> valueIds_;
  std::vector<std::pair<std::string, Tensor>> sidecar_;
  uint32_t nextGraphConstant_ = 0;

  uint32_t next() { return bound_++; }

  uint32_t cachedType(const std::string& key, uint32_t op, Words operands) {
    auto it = typeIds_.find(key);
    if (it != typeIds_.end()) return it->second;
    uint32_t id = next();
    operands.insert(operands.begin(), id);
    emit(globals_, op, operands);
    typeIds_[key] = id;
    return id;
  }

  Result<uint32_t> scalarType(DType d) {
    switch (d) {
      case DType::Bool: return cachedType("bool", OpTypeBool, {});
      case DType::I8: caps_.insert(CapInt8); return cachedType("i8", OpTypeInt, {8, 0});
      case DType::I16: caps_.insert(CapInt16); return cachedType("i16", OpTypeInt, {16, 0});
      case DType::I32: return cachedType("i32", OpTypeInt, {32, 0});
      case DType::I48: caps_.insert(CapInt64); return cachedType("i64", OpTypeInt, {64, 0});
      case DType::FP16: caps_.insert(CapFloat16); return cachedType("f16", OpTypeFloat, {16});
      case DType::FP32: return cachedType("f32", OpTypeFloat, {32});
      case DType::BF16:
        caps_.insert(CapBFloat16TypeKHR);
        exts_.insert("SPV_KHR_bfloat16");
        return cachedType("bf16", OpTypeFloat, {16, FPEncBFloat16KHR});
      case DType::FP8E4M3:
        caps_.insert(CapFloat8EXT);
        exts_.insert("SPV_EXT_float8");
        return cachedType("f8e4m3", OpTypeFloat, {8, FPEncFloat8E4M3EXT});
      case DType::FP8E5M2:
        caps_.insert(CapFloat8EXT);
        exts_.insert("SPV_EXT_float8");
        return cachedType("f8e5m2", OpTypeFloat, {8, FPEncFloat8E5M2EXT});
      default:
        return Status::unsupported(std::string("element type ") + std::string(dtypeName(d)) +
                                   " has no TOSA.001000.1 type mapping");
    }
  }

  uint32_t u32Const(uint32_t v) {
    std::string key = "u32:" + std::to_string(v);
    auto it = constIds_.find(key);
    if (it != constIds_.end()) return it->second;
    uint32_t type = *scalarType(DType::I32);
    uint32_t id = next();
    emit(globals_, OpConstant, {type, id, v});
    constIds_[key] = id;
    return id;
  }

  uint32_t boolConst(bool b) {
    std::string key = b ? "true" : "false";
    auto it = constIds_.find(key);
    if (it != constIds_.end()) return it->second;
    uint32_t type = *scalarType(DType::Bool);
    uint32_t id = next();
    emit(globals_, b ? OpConstantTrue : OpConstantFalse, {type, id});
    constIds_[key] = id;
    return id;
  }

  // Scalar constant of element type d with raw bits.
  Result<uint32_t> scalarConst(DType d, uint64_t bits) {
    if (d == DType::Bool) return boolConst(bits != 0);
    auto type = scalarType(d);
    if (!type) return type.status();
    std::string key = "s:" + std::string(dtypeName(d)) + ":" + std::to_string(bits);
    auto it = constIds_.find(key);
    if (it != constIds_.end()) return it->second;
    uint32_t id = next();
    Words ops = {*type, id, uint32_t(bits)};
    if (d == DType::I48) ops.push_back(uint32_t(bits >> 32));
    emit(globals_, OpConstant, ops);
    constIds_[key] = id;
    return id;
  }

  Result<uint32_t> tensorType(DType d, const Shape& dims, bool ranked = true) {
    auto elem = scalarType(d);
    if (!elem) return elem.status();
    if (!ranked) return cachedType("t:" + std::to_string(*elem), OpTypeTensorARM, {*elem});
    for (int64_t x : dims)
      if (x < 0 || x > int64_t(UINT32_MAX))
        return Status::unsupported("dynamic dimension: SPIR-V tensor types here need static shapes");
    uint32_t rank = u32Const(uint32_t(dims.size()));
    std::string key = "t:" + std::to_string(*elem) + ":";
    for (int64_t x : dims) key += std::to_string(x) + ",";
    if (dims.empty()) return cachedType(key, OpTypeTensorARM, {*elem, rank});
    uint32_t arr = cachedType("arr:" + std::to_string(dims.size()), OpTypeArray, {*scalarType(DType::I32), rank});
    std::string skey = "shape:" + key;
    uint32_t shape;
    if (auto it = constIds_.find(skey); it != constIds_.end()) {
      shape = it->second;
    } else {
      Words ops = {arr, 0};
      for (int64_t x : dims) ops.push_back(u32Const(uint32_t(x)));
      shape = next();
      ops[1] = shape;
      emit(globals_, OpConstantComposite, ops);
      constIds_[skey] = shape;
    }
    return cachedType(key, OpTypeTensorARM, {*elem, rank, shape});
  }

  Result<uint32_t> valueType(const ir::ValueType& t) {
    if (t.isShape()) return tensorType(DType::I32, t.dims);
    if (t.kind == ir::ValueType::Kind::UnrankedTensor) return tensorType(t.dtype, {}, false);
    return tensorType(t.dtype, t.dims);
  }

  // Composite constant of tensor t (values as `as` element type), nested by dimension.
  Result<uint32_t> compositeConst(const Tensor& t, DType as, const Shape& dims, size_t dim, int64_t& flat) {
    Shape sub(dims.begin() + long(dim), dims.end());
    auto type = tensorType(as, sub);
    if (!type) return type.status();
    Words ops = {*type, 0};
    for (int64_t k = 0; k < dims[dim]; ++k) {
      Result<uint32_t> c = (dim + 1 == dims.size()) ? scalarConst(as, elementBits(t, flat++))
                                                    : compositeConst(t, as, dims, dim + 1, flat);
      if (!c) return c.status();
      ops.push_back(*c);
    }
    uint32_t id = next();
    ops[1] = id;
    emit(globals_, OpConstantComposite, ops);
    return id;
  }

  // A tensor constant (not deduplicated: each IR const op keeps its own id and name).
  Result<uint32_t> tensorConst(const Tensor& in, DType as) {
    Tensor t = in;
    if (as != in.dtype()) t = Tensor::fromInts(as, in.shape(), in.toInts());
    auto type = tensorType(as, t.shape());
    if (!type) return type.status();
    if (t.size() > kMaxInlineConstantElements) {
      uint32_t id = next();
      uint32_t cid = nextGraphConstant_++;
      emit(globals_, OpGraphConstantARM, {*type, id, cid});
      sidecar_.emplace_back(std::to_string(cid), npy::toNumpyDType(t));
      return id;
    }
    bool allZero = true, allSame = true;
    for (int64_t i = 0; i < t.size(); ++i) {
      allZero = allZero && elementBits(t, i) == 0;
      allSame = allSame && elementBits(t, i) == elementBits(t, 0);
    }
    uint32_t id;
    if (allZero && (t.size() > 0 || t.rank() > 0)) {  // includes empty tensors (e.g. a rank-0 reshape's shape)
      id = next();
      emit(globals_, OpConstantNull, {*type, id});
    } else if (t.rank() == 1 && t.size() > 1 && allSame) {
      auto c = scalarConst(as, elementBits(t, 0));
      if (!c) return c.status();
      caps_.insert(CapReplicatedCompositesEXT);
      exts_.insert("SPV_EXT_replicated_composites");
      id = next();
      emit(globals_, OpConstantCompositeReplicateEXT, {*type, id, *c});
    } else if (t.rank() == 0 || t.size() == 0) {
      if (t.size() == 0) return Status::unsupported("empty tensor constant");
      // A rank-0 tensor is not a composite: use OpConstantNull when zero, else a graph constant.
      id = next();
      uint32_t cid = nextGraphConstant_++;
      emit(globals_, OpGraphConstantARM, {*type, id, cid});
      sidecar_.emplace_back(std::to_string(cid), npy::toNumpyDType(t));
    } else {
      int64_t flat = 0;
      auto c = compositeConst(t, as, t.shape(), 0, flat);
      if (!c) return c;
      id = *c;
    }
    return id;
  }

  void name(uint32_t id, const std::string& n) {
    if (n.empty()) return;
    Words ops = {id};
    appendString(ops, n);
    emit(names_, OpName, ops);
  }

  // Source location: OpLine (file:line:col) before the instruction; a name differing from the value name
  // goes into a UserSemantic decoration "tosakit.loc=NAME".
  bool line(Words& sec, const ir::Location& loc) {
    if (loc.file.empty() && loc.line == 0 && loc.col == 0) return false;
    uint32_t fid;
    auto it = fileIds_.find(loc.file);
    if (it == fileIds_.end()) {
      fid = next();
      Words ops = {fid};
      appendString(ops, loc.file);
      emit(debugStrings_, OpString, ops);
      fileIds_[loc.file] = fid;
    } else {
      fid = it->second;
    }
    emit(sec, OpLine, {fid, uint32_t(loc.line), uint32_t(loc.col)});
    return true;
  }
  void locName(uint32_t id, const ir::Location& loc, const std::string& valueName) {
    if (loc.name == valueName) return;
    Words ops = {id, kDecorationUserSemantic};
    appendString(ops, "tosakit.loc=" + loc.name);
    emit(annotations_, OpDecorateString, ops);
  }

  // Function::argAttrs/resultAttrs on the interface variables, Function::attrs on the graph:
  // OpDecorateString UserSemantic "tosakit.attr KEY KIND PAYLOAD" (spirv_attr_text.h).
  Status attrDecorations(uint32_t id, const std::map<std::string, ir::Attribute>& attrs, const std::string& where) {
    for (const auto& [key, a] : attrs) {
      auto text = encodeAttrText(key, a);
      if (!text) return text.status().withContext(where);
      Words ops = {id, kDecorationUserSemantic};
      appendString(ops, *text);
      emit(annotations_, OpDecorateString, ops);
    }
    return Status::ok();
  }
  Status discardableAttrs(const ir::Function& f, const Words& ifaceIds, uint32_t graphId) {
    size_t nIn = f.inputs().size(), nOut = f.resultTypes.size();
    std::string where = "@" + f.name;
    if (f.argAttrs.size() > nIn || f.resultAttrs.size() > nOut)
      return Status::invalid(where + ": attributes for an argument or result that does not exist");
    for (size_t i = 0; i < f.argAttrs.size(); ++i)
      TK_RETURN_IF_ERROR(attrDecorations(ifaceIds[i], f.argAttrs[i], where + " input " + std::to_string(i)));
    for (size_t k = 0; k < f.resultAttrs.size(); ++k)
      TK_RETURN_IF_ERROR(attrDecorations(ifaceIds[nIn + k], f.resultAttrs[k], where + " output " + std::to_string(k)));
    return attrDecorations(graphId, f.attrs, where);
  }

  Status constOp(const ir::Operation& op, DType as) {
    const ir::Attribute* a = op.attr("values");
    if (!a || a->kind != ir::Attribute::Kind::Tensor || !a->tensor)
      return Status::invalid(op.describe() + ": missing 'values'");
    if (op.attrs.size() != 1) return Status::unsupported(op.describe() + ": unexpected attributes");
    bool hasLine = line(globals_, op.loc);
    auto id = tensorConst(*a->tensor, as);
    if (!id) return id.status().withContext(op.describe());
    if (hasLine) emit(globals_, OpNoLine, {});
    valueIds_[op.results[0]] = *id;
    name(*id, op.results[0]->name);
    locName(*id, op.loc, op.results[0]->name);
    return Status::ok();
  }

  static std::string noInstr(const ir::Operation& op) { return op.describe() + ": no instruction in " + kTosaSetName; }

  Result<uint32_t> attrOperand(const ir::Operation& op, const SpvOperandDesc& d, DType inputDType) {
    std::string n = d.name;
    const ir::Attribute* a = op.attr(n);
    std::string where = op.describe() + ": attribute " + n;
    switch (d.kind) {
      case SpvOperandKind::Bool:
        if (!a) return boolConst(false);  // local_bound: absent = false
        if (a->kind != ir::Attribute::Kind::Bool) return Status::invalid(where + " is not a bool");
        return boolConst(a->b);
      case SpvOperandKind::U32: {
        if (n == "acc_type") {
          if (!a || a->kind != ir::Attribute::Kind::Type) return Status::invalid(where + " missing or not a type");
          uint32_t v = accTypeValue(a->dtype);
          if (!v) return Status::unsupported(where + ": " + std::string(dtypeName(a->dtype)) + " not in acc_type_t");
          return u32Const(v);
        }
        if (isEnumAttr(n)) {
          if (!a) return u32Const(enumValue(n, n == "nan_mode" ? "PROPAGATE" : ""));
          uint32_t v = (a->kind == ir::Attribute::Kind::Enum) ? enumValue(n, a->s) : 0;
          if (!v) return Status::unsupported(where + ": " + a->toString() + " not in the enumeration");
          return u32Const(v);
        }
        if (!a || a->kind != ir::Attribute::Kind::Int) return Status::invalid(where + " missing or not an integer");
        // Out-of-range values (ERROR_IF tests) keep their 32-bit two's complement pattern.
        if (a->i < INT32_MIN || a->i > INT32_MAX) return Status::invalid(where + " out of 32-bit range");
        return u32Const(uint32_t(int32_t(a->i)));
      }
      case SpvOperandKind::Scalar: {
        if (!a) return Status::invalid(where + " missing");
        Tensor t(inputDType, {1});
        if (isFloat(inputDType))
          t.setFloat(0, a->kind == ir::Attribute::Kind::Float ? a->f : double(a->i));
        else
          t.setInt(0, a->kind == ir::Attribute::Kind::Int ? a->i : int64_t(a->f));
        return scalarConst(inputDType, elementBits(t, 0));
      }
      case SpvOperandKind::Tensor: {
        if (!a || a->kind != ir::Attribute::Kind::IntArray) return Status::invalid(where + " missing or not an array");
        Tensor t = Tensor::fromInts(DType::I32, {int64_t(a->ints.size())}, a->ints);
        for (int64_t x : a->ints)
          if (x < INT32_MIN || x > INT32_MAX) return Status::invalid(where + ": value out of 32-bit range");
        auto id = tensorConst(t, DType::I32);
        if (!id) return id.status().withContext(where);
        return *id;
      }
      default: return Status::internal(where + ": bad table entry");
    }
  }

  Status function(const ir::Function& f) {
    const ir::Block& b = f.body;
    // Graph type and interface.
    Words graphTypeOps = {0, uint32_t(f.inputs().size())};
    std::vector<uint32_t> inTypes, outTypes;
    // shape_t maps to i32 tensors: as a graph input/output it could not be told apart from one on reading.
    for (const ir::Value* v : f.inputs())
      if (v->type.isShape())
        return Status::unsupported("@" + f.name + ": shape-typed graph input '" + v->name + "' has no SPIR-V form");
    for (const ir::ValueType& t : f.resultTypes)
      if (t.isShape()) return Status::unsupported("@" + f.name + ": shape-typed graph output has no SPIR-V form");
    for (const ir::Value* v : f.inputs()) {
      auto t = valueType(v->type);
      if (!t) return t.status().withContext("@" + f.name + " input " + v->name);
      inTypes.push_back(*t);
    }
    for (size_t k = 0; k < f.resultTypes.size(); ++k) {
      auto t = valueType(f.resultTypes[k]);
      if (!t) return t.status().withContext("@" + f.name + " output " + std::to_string(k));
      outTypes.push_back(*t);
    }
    if (outTypes.empty()) return Status::unsupported("@" + f.name + ": a graph needs at least one output");
    for (uint32_t t : inTypes) graphTypeOps.push_back(t);
    for (uint32_t t : outTypes) graphTypeOps.push_back(t);
    uint32_t graphType = next();
    graphTypeOps[0] = graphType;
    emit(globals_, OpTypeGraphARM, graphTypeOps);
    Words ifaceIds;
    auto ifaceVar = [&](uint32_t tensorType, const std::string& n) {
      uint32_t ptr =
          cachedType("ptr:" + std::to_string(tensorType), OpTypePointer, {kStorageUniformConstant, tensorType});
      uint32_t var = next();
      emit(globals_, OpVariable, {ptr, var, kStorageUniformConstant});
      name(var, n);
      ifaceIds.push_back(var);
    };
    for (size_t i = 0; i < inTypes.size(); ++i) ifaceVar(inTypes[i], f.inputName(i));
    for (size_t k = 0; k < outTypes.size(); ++k)
      ifaceVar(outTypes[k], k < f.resultNames.size() ? f.resultNames[k] : "");

    Words g;
    uint32_t graphId = next();
    emit(g, OpGraphARM, {graphType, graphId});
    name(graphId, f.name);
    TK_RETURN_IF_ERROR(discardableAttrs(f, ifaceIds, graphId));
    for (size_t i = 0; i < f.inputs().size(); ++i) {
      const ir::Value* v = f.inputs()[i];
      uint32_t id = next();
      emit(g, OpGraphInputARM, {inTypes[i], id, u32Const(uint32_t(i))});
      valueIds_[v] = id;
      name(id, v->name);
    }
    const ir::Operation* ret = b.terminator();
    if (!ret || ret->name != "func.return") return Status::invalid("@" + f.name + ": missing func.return");
    // Constant types can depend on the consumer: rescale's multiplier is fixed to i32 by the spec.
    std::set<const ir::Value*> rescaleMultipliers;
    for (const auto& user : b.ops)
      if (user->name == "tosa.rescale" && user->operands.size() > 1) rescaleMultipliers.insert(user->operands[1]);
    for (const auto& opp : b.ops) {
      const ir::Operation& op = *opp;
      if (&op == ret) break;
      if (op.name == "tosa.const" || op.name == "tosa.const_shape") {
        DType as = op.results[0]->type.isShape() ? DType::I32 : op.results[0]->type.dtype;
        // rescale's multiplier is i32 in SPIR-V (MLIR: i16 when scale32 = false).
        if (rescaleMultipliers.count(op.results[0])) as = DType::I32;
        if (Status s = constOp(op, as); !s) return s;
        continue;
      }
      const SpvInstrDesc* d = instrByIrName(op.name);
      if (!d) return Status::unsupported(noInstr(op));
      if (!op.regions.empty()) return Status::unsupported(noInstr(op));
      DType inDT = op.operands.empty() ? DType::FP32 : op.operands[0]->type.dtype;
      Words ops;
      // Attributes the op carries must all be known to the instruction.
      for (const auto& [k, a] : op.attrs) {
        bool known = false;
        for (int i = 0; i < d->numAttrs; ++i) known = known || k == d->operands[size_t(i)].name;
        if (!known)
          return Status::unsupported(op.describe() + ": attribute '" + k + "' has no operand in " + d->specName);
      }
      for (int i = 0; i < d->numAttrs; ++i) {
        auto id = attrOperand(op, d->operands[size_t(i)], inDT);
        if (!id) return id.status();
        ops.push_back(*id);
      }
      size_t irIdx = 0;
      for (size_t i = size_t(d->numAttrs); i < d->operands.size(); ++i) {
        const SpvOperandDesc& od = d->operands[i];
        size_t take = od.kind == SpvOperandKind::TensorList ? op.operands.size() - irIdx : 1;
        if (take == 0) return Status::invalid(op.describe() + ": " + od.name + " needs at least one tensor");
        for (size_t t = 0; t < take; ++t, ++irIdx) {
          if (irIdx >= op.operands.size()) return Status::invalid(op.describe() + ": missing operand " + od.name);
          const ir::Value* v = op.operands[irIdx];
          auto it = valueIds_.find(v);
          if (it == valueIds_.end()) return Status::invalid(op.describe() + ": operand " + od.name + " defined later");
          if (od.mustBeConstant &&
              (!v->definingOp || (v->definingOp->name != "tosa.const" && v->definingOp->name != "tosa.const_shape")))
            return Status::unsupported(op.describe() + ": operand " + od.name +
                                       " is not a constant (EXT-DYNAMIC form); " + d->specName +
                                       " requires a constant instruction");
          ops.push_back(it->second);
        }
      }
      if (irIdx != op.operands.size()) return Status::invalid(op.describe() + ": too many operands");
      // Result.
      uint32_t resultType;
      if (op.results.size() == 1) {
        auto t = valueType(op.results[0]->type);
        if (!t) return t.status().withContext(op.describe());
        resultType = *t;
      } else {
        Words members;
        std::string key = "struct:";
        for (const ir::Value* r : op.results) {
          auto t = valueType(r->type);
          if (!t) return t.status().withContext(op.describe());
          members.push_back(*t);
          key += std::to_string(*t) + ",";
        }
        resultType = cachedType(key, OpTypeStruct, members);
      }
      uint32_t id = next();
      Words full = {resultType, id, setId_, d->number};
      full.insert(full.end(), ops.begin(), ops.end());
      bool hasLine = line(g, op.loc);
      emit(g, OpExtInst, full);
      if (hasLine) emit(g, OpNoLine, {});
      if (op.results.size() == 1) {
        valueIds_[op.results[0]] = id;
        name(id, op.results[0]->name);
        locName(id, op.loc, op.results[0]->name);
      } else {
        name(id, op.loc.name);
        for (size_t r = 0; r < op.results.size(); ++r) {
          uint32_t rid = next();
          emit(g, OpCompositeExtract, {*valueType(op.results[r]->type), rid, id, uint32_t(r)});
          valueIds_[op.results[r]] = rid;
          name(rid, op.results[r]->name);
        }
      }
    }
    line(g, ret->loc);  // the func.return location; OpGraphEndARM ends its scope
    for (size_t k = 0; k < ret->operands.size(); ++k) {
      auto it = valueIds_.find(ret->operands[k]);
      if (it == valueIds_.end()) return Status::invalid("@" + f.name + ": output " + std::to_string(k) + " undefined");
      emit(g, OpGraphSetOutputARM, {it->second, u32Const(uint32_t(k))});
    }
    emit(g, OpGraphEndARM, {});
    graphs_.insert(graphs_.end(), g.begin(), g.end());
    Words ep = {graphId};
    appendString(ep, f.name);
    ep.insert(ep.end(), ifaceIds.begin(), ifaceIds.end());
    emit(entry_, OpGraphEntryPointARM, ep);
    return Status::ok();
  }

  Result<SpirvBinary> finish(const ir::Module& m) {
    if (!m.variables.empty())
      return Status::unsupported("tosa.variable '" + m.variables[0].name + "': no instruction in " + kTosaSetName);
    Words out = {kMagic, kVersion16, 0, bound_, 0};
    for (uint32_t c : caps_) emit(out, OpCapability, {c});
    for (const auto& e : exts_) {
      Words ops;
      appendString(ops, e);
      emit(out, OpExtension, ops);
    }
    Words imp = {setId_};
    appendString(imp, kTosaSetName);
    emit(out, OpExtInstImport, imp);
    emit(out, OpMemoryModel, {kAddressingLogical, kMemoryModelGLSL450});
    out.insert(out.end(), entry_.begin(), entry_.end());
    out.insert(out.end(), debugStrings_.begin(), debugStrings_.end());
    out.insert(out.end(), names_.begin(), names_.end());
    if (m.target) {
      std::string s = "tosakit.target_env profiles=";
      for (size_t i = 0; i < m.target->profiles.size(); ++i) s += (i ? "," : "") + m.target->profiles[i];
      s += " extensions=";
      for (size_t i = 0; i < m.target->extensions.size(); ++i) s += (i ? "," : "") + m.target->extensions[i];
      s += " level=" + m.target->level;
      Words ops;
      appendString(ops, s);
      emit(out, OpModuleProcessed, ops);
    }
    out.insert(out.end(), annotations_.begin(), annotations_.end());
    out.insert(out.end(), globals_.begin(), globals_.end());
    out.insert(out.end(), graphs_.begin(), graphs_.end());
    out[3] = bound_;
    SpirvBinary bin;
    bin.words = std::move(out);
    bin.sidecar = std::move(sidecar_);
    return bin;
  }
};

}  // namespace

Result<SpirvBinary> encodeSpirv(const ir::Module& m) {
  Writer w;
  return w.run(m);
}

Status writeSpirv(const ir::Module& m, const std::string& path) {
  auto bin = encodeSpirv(m);
  if (!bin) return bin.status().withContext(path);
  std::string sidecar = path + ".npz";
  if (!bin->sidecar.empty()) {
    if (Status s = npy::writeNpz(sidecar, bin->sidecar); !s) return s;
  } else {
    std::error_code ec;
    std::filesystem::remove(sidecar, ec);  // a stale sidecar would not match the new binary
  }
  std::string bytes(bin->words.size() * 4, '\0');
  for (size_t i = 0; i < bin->words.size(); ++i)
    for (int k = 0; k < 4; ++k) bytes[i * 4 + size_t(k)] = char((bin->words[i] >> (8 * k)) & 0xff);
  return writeFileAtomic(path, bytes);
}

}  // namespace tosakit::spirv
