// MLIR TOSA text -> tosakit IR. Parses with upstream MLIR 22 (func + tosa dialects), verifies, then converts
// every op generically: name, operands, result types, attributes, regions, location.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/size_budget.h"
#include "formats/mlir/mlir_context.h"
#include "formats/mlir/mlir_io.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

namespace tosakit::mlirio {
namespace {

using llvm::dyn_cast;
using llvm::isa;

// ---- types ----

std::optional<DType> toDType(mlir::Type t) {
  if (auto it = dyn_cast<mlir::IntegerType>(t)) {
    unsigned w = it.getWidth();
    if (it.isUnsigned()) {
      if (w == 8) return DType::U8;
      if (w == 16) return DType::U16;
      if (w == 32) return DType::U32;
      return std::nullopt;
    }
    if (it.isSigned()) return std::nullopt;
    switch (w) {
      case 1: return DType::Bool;
      case 4: return DType::I4;
      case 8: return DType::I8;
      case 16: return DType::I16;
      case 32: return DType::I32;
      case 48: return DType::I48;
      case 64: return DType::I64;
      default: return std::nullopt;
    }
  }
  if (t.isF16()) return DType::FP16;
  if (t.isBF16()) return DType::BF16;
  if (t.isF32()) return DType::FP32;
  if (t.isF64()) return DType::FP64;
  if (isa<mlir::Float8E4M3FNType>(t)) return DType::FP8E4M3;
  if (isa<mlir::Float8E5M2Type>(t)) return DType::FP8E5M2;
  return std::nullopt;
}

std::optional<ir::ValueType> toValueType(mlir::Type t) {
  if (auto st = dyn_cast<mlir::tosa::shapeType>(t)) return ir::ValueType::shape(st.getRank());
  if (auto rt = dyn_cast<mlir::RankedTensorType>(t)) {
    if (rt.getEncoding()) return std::nullopt;
    auto dt = toDType(rt.getElementType());
    if (!dt) return std::nullopt;
    Shape dims;
    for (int64_t d : rt.getShape()) dims.push_back(mlir::ShapedType::isDynamic(d) ? -1 : d);
    return ir::ValueType::tensor(*dt, dims);
  }
  if (auto ut = dyn_cast<mlir::UnrankedTensorType>(t)) {
    auto dt = toDType(ut.getElementType());
    if (!dt) return std::nullopt;
    return ir::ValueType::unranked(*dt);
  }
  return std::nullopt;
}

// ---- dense constants ----

// Stores raw element bits read from MLIR into t[i]: sign- or zero-extended from `bits`.
void setBits(Tensor& t, int64_t i, uint64_t v, unsigned bits, bool isSigned) {
  if (bits < 64) {
    v &= (uint64_t(1) << bits) - 1;
    if (isSigned && (v >> (bits - 1)) & 1) v |= ~((uint64_t(1) << bits) - 1);
  }
  t.setInt(i, int64_t(v));
}

Result<Tensor> tensorFromDense(mlir::DenseElementsAttr a) {
  mlir::ShapedType st = a.getType();
  if (!st.hasStaticShape()) return Status::unsupported("dense constant of dynamic shape " + printed(st));
  mlir::Type et = st.getElementType();
  std::optional<DType> dt = isa<mlir::IndexType>(et) ? std::optional<DType>(DType::I64) : toDType(et);
  if (!dt) return Status::unsupported("dense constant of unsupported element type " + printed(et));
  Shape shape(st.getShape().begin(), st.getShape().end());
  TK_RETURN_IF_ERROR(checkAllocation(*dt, shape, "dense constant"));  // a splat's type may claim terabytes
  Tensor t(*dt, std::move(shape));
  if (t.size() == 0) return t;
  unsigned bits = isa<mlir::IndexType>(et) ? 64u : et.getIntOrFloatBitWidth();
  // Byte-aligned formats share MLIR's raw little-endian storage: copy (or replicate a splat).
  if (bits == storageBytes(*dt) * 8 && bits % 8 == 0) {
    llvm::ArrayRef<char> raw = a.getRawData();
    size_t eb = storageBytes(*dt);
    if (a.isSplat()) {
      if (raw.size() < eb) return Status::internal("splat constant with short raw data");
      for (int64_t i = 0; i < t.size(); ++i) std::memcpy(t.data() + i * eb, raw.data(), eb);
    } else {
      if (raw.size() != t.byteSize()) return Status::internal("dense constant raw size mismatch");
      std::memcpy(t.data(), raw.data(), raw.size());
    }
    return t;
  }
  // i1, i4, i48: through APInt.
  bool isSigned = !(et.isUnsignedInteger() || bits == 1);
  int64_t i = 0;
  for (const llvm::APInt& v : a.getValues<llvm::APInt>()) { setBits(t, i++, v.getZExtValue(), bits, isSigned); }
  return t;
}

Result<Tensor> tensorFromResource(mlir::DenseResourceElementsAttr a) {
  mlir::ShapedType st = a.getType();
  if (!st.hasStaticShape()) return Status::unsupported("dense_resource of dynamic shape " + printed(st));
  mlir::Type et = st.getElementType();
  std::optional<DType> dt = isa<mlir::IndexType>(et) ? std::optional<DType>(DType::I64) : toDType(et);
  if (!dt) return Status::unsupported("dense_resource of unsupported element type " + printed(et));
  mlir::AsmResourceBlob* blob = a.getRawHandle().getBlob();
  if (!blob)
    return Status::parse("dense_resource<" + a.getRawHandle().getKey().str() +
                         "> has no data (missing {-# dialect_resources #-} entry)");
  llvm::ArrayRef<char> data = blob->getData();
  unsigned bits = isa<mlir::IndexType>(et) ? 64u : et.getIntOrFloatBitWidth();
  size_t eb = bits == 1 ? 1 : (bits + 7) / 8;  // each element in whole little-endian bytes
  Shape shape(st.getShape().begin(), st.getShape().end());
  TK_RETURN_IF_ERROR(checkAllocation(*dt, shape, "dense_resource<" + a.getRawHandle().getKey().str() + ">"));
  Tensor t(*dt, std::move(shape));
  if (data.size() != size_t(t.size()) * eb)
    return Status::parse("dense_resource<" + a.getRawHandle().getKey().str() + "> holds " +
                         std::to_string(data.size()) + " bytes, " + printed(st) + " needs " +
                         std::to_string(size_t(t.size()) * eb));
  bool isSigned = !(et.isUnsignedInteger() || isa<mlir::FloatType>(et) || bits == 1);
  for (int64_t i = 0; i < t.size(); ++i) {
    uint64_t v = 0;
    for (size_t k = 0; k < eb; ++k) v |= uint64_t(uint8_t(data[size_t(i) * eb + k])) << (8 * k);
    if (bits == 1) v = v != 0;
    setBits(t, i, v, bits, isSigned);
  }
  return t;
}

// ---- attributes ----

bool isDefaultValued(const std::string& name, const ir::Attribute& a) {
  // TosaOps.td: DefaultValuedAttr nan_mode = PROPAGATE, DefaultValuedOptionalAttr local_bound = false.
  if (name == "nan_mode") return a.kind == ir::Attribute::Kind::Enum && a.s == "PROPAGATE";
  if (name == "local_bound") return a.kind == ir::Attribute::Kind::Bool && !a.b;
  return false;
}

Result<ir::Attribute> toAttribute(const std::string& opName, const std::string& name, mlir::Attribute attr) {
  if (auto b = dyn_cast<mlir::BoolAttr>(attr)) return ir::Attribute::boolean(b.getValue());
  if (auto ia = dyn_cast<mlir::IntegerAttr>(attr)) {
    mlir::Type t = ia.getType();
    std::optional<DType> dt = isa<mlir::IndexType>(t) ? std::optional<DType>(DType::I64) : toDType(t);
    if (!dt) return Status::unsupported("integer attribute of type " + printed(t));
    const llvm::APInt& v = ia.getValue();
    int64_t x = (t.isUnsignedInteger() || *dt == DType::Bool) ? int64_t(v.getZExtValue()) : v.getSExtValue();
    return ir::Attribute::integer(x, *dt);
  }
  if (auto fa = dyn_cast<mlir::FloatAttr>(attr)) {
    auto dt = toDType(fa.getType());
    if (!dt) return Status::unsupported("float attribute of type " + printed(fa.getType()));
    return ir::Attribute::floating(fa.getValue().convertToDouble(), *dt);
  }
  if (auto sa = dyn_cast<mlir::StringAttr>(attr)) {
    // variable_read/variable_write name their variable with a SymbolNameAttr (a StringAttr).
    if (name == "name" && (opName == "tosa.variable_read" || opName == "tosa.variable_write"))
      return ir::Attribute::symbol(sa.getValue().str());
    return ir::Attribute::string(sa.getValue().str());
  }
  if (auto ta = dyn_cast<mlir::TypeAttr>(attr)) {
    auto dt = toDType(ta.getValue());
    if (!dt) return Status::unsupported("type attribute " + printed(ta.getValue()));
    return ir::Attribute::type(*dt);
  }
  if (auto a = dyn_cast<mlir::DenseI8ArrayAttr>(attr))
    return ir::Attribute::intArray(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()), DType::I8);
  if (auto a = dyn_cast<mlir::DenseI16ArrayAttr>(attr))
    return ir::Attribute::intArray(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()), DType::I16);
  if (auto a = dyn_cast<mlir::DenseI32ArrayAttr>(attr))
    return ir::Attribute::intArray(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()), DType::I32);
  if (auto a = dyn_cast<mlir::DenseI64ArrayAttr>(attr))
    return ir::Attribute::intArray(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()), DType::I64);
  if (auto a = dyn_cast<mlir::DenseBoolArrayAttr>(attr))
    return ir::Attribute::boolArray(std::vector<int64_t>(a.asArrayRef().begin(), a.asArrayRef().end()));
  if (auto e = dyn_cast<mlir::tosa::RoundingModeAttr>(attr))
    return ir::Attribute::enumCase(mlir::tosa::stringifyEnum(e.getValue()).str());
  if (auto e = dyn_cast<mlir::tosa::NanPropagationModeAttr>(attr))
    return ir::Attribute::enumCase(mlir::tosa::stringifyEnum(e.getValue()).str());
  if (auto e = dyn_cast<mlir::tosa::ResizeModeAttr>(attr))
    return ir::Attribute::enumCase(mlir::tosa::stringifyEnum(e.getValue()).str());
  if (auto e = dyn_cast<mlir::tosa::BlockSizeAttr>(attr))
    return ir::Attribute::enumCase(mlir::tosa::stringifyEnum(e.getValue()).str());
  if (auto d = dyn_cast<mlir::DenseElementsAttr>(attr)) {
    auto t = tensorFromDense(d);
    if (!t) return t.status();
    return ir::Attribute::dense(std::move(t.value()));
  }
  if (auto r = dyn_cast<mlir::DenseResourceElementsAttr>(attr)) {
    auto t = tensorFromResource(r);
    if (!t) return t.status();
    return ir::Attribute::dense(std::move(t.value()));
  }
  if (auto s = dyn_cast<mlir::FlatSymbolRefAttr>(attr)) return ir::Attribute::symbol(s.getValue().str());
  return Status::unsupported("unsupported attribute kind " + printed(attr));
}

// ---- module conversion ----

class Importer {
 public:
  Importer(ir::Module& m, const DiagnosticCapture& diags) : m_(m), diags_(diags) {}

  Status module(mlir::ModuleOp mod) {
    if (auto env = mod->getAttrOfType<mlir::tosa::TargetEnvAttr>("tosa.target_env")) {
      ir::TargetEnv t;
      t.profiles.clear();
      t.extensions.clear();
      for (mlir::tosa::Profile p : env.getProfiles()) t.profiles.push_back(mlir::tosa::stringifyEnum(p).str());
      for (mlir::tosa::Extension e : env.getExtensions()) t.extensions.push_back(mlir::tosa::stringifyEnum(e).str());
      t.level = mlir::tosa::stringifyEnum(env.getLevel()).str();
      t.specVersion = mlir::tosa::stringifyEnum(env.getSpecificationVersion()).str();
      m_.target = t;
    } else if (mlir::Attribute other = mod->getAttr("tosa.target_env")) {
      return Status::parse(locString(mod.getLoc()) + ": tosa.target_env is not a #tosa.target_env: " + printed(other));
    }
    for (mlir::Operation& op : mod.getBody()->getOperations()) {
      if (auto f = dyn_cast<mlir::func::FuncOp>(op)) {
        // Parsed without the verifier (ImportOptions::verify = false), a func.func may lack what its accessors
        // assume (function_type, sym_name, one region, matching arg_attrs): check its own invariants first.
        if (mlir::failed(op.getName().verifyInvariants(&op)) || mlir::failed(op.getName().verifyRegionInvariants(&op)))
          return Status::parse(diags_.first().empty() ? locString(op.getLoc()) + ": malformed func.func"
                                                      : diags_.first());
        TK_RETURN_IF_ERROR(function(f));
      } else if (op.getName().getStringRef() == "tosa.variable") {
        TK_RETURN_IF_ERROR(variable(op));
      } else {
        return Status::unsupported(locString(op.getLoc()) + ": unsupported top-level operation '" +
                                   op.getName().getStringRef().str() + "' (tosakit reads func.func and tosa.variable)");
      }
    }
    return Status::ok();
  }

 private:
  Status variable(mlir::Operation& op) {
    std::string where = locString(op.getLoc()) + ": 'tosa.variable'";
    ir::Variable v;
    v.loc = toLocation(op.getLoc());
    auto name = dyn_cast_or_null<mlir::StringAttr>(op.getAttr("sym_name"));
    auto shape = dyn_cast_or_null<mlir::DenseElementsAttr>(op.getAttr("var_shape"));
    auto type = dyn_cast_or_null<mlir::TypeAttr>(op.getAttr("type"));
    if (!name || !shape || !type) return Status::parse(where + ": missing sym_name, var_shape or type");
    v.name = name.getValue().str();
    auto dt = toDType(type.getValue());
    if (!dt) return Status::unsupported(where + " @" + v.name + ": element type " + printed(type.getValue()));
    auto dims = tensorFromDense(shape);
    if (!dims) return dims.status().withContext(where);
    v.type = ir::ValueType::tensor(*dt, dims->toInts());
    if (mlir::Attribute init = op.getAttr("initial_value")) {
      auto a = toAttribute("tosa.variable", "initial_value", init);
      if (!a) return a.status().withContext(where + " @" + v.name);
      if (a->kind != ir::Attribute::Kind::Tensor)
        return Status::unsupported(where + " @" + v.name + ": initial_value is not a dense tensor");
      v.initialValue = *a->tensor;
    }
    m_.variables.push_back(std::move(v));
    return Status::ok();
  }

  Status function(mlir::func::FuncOp f) {
    std::string fname = f.getSymName().str();
    std::string where = locString(f.getLoc()) + ": func.func @" + fname;
    if (f.getBody().empty()) return Status::unsupported(where + ": declaration without a body");
    if (!f.getBody().hasOneBlock()) return Status::unsupported(where + ": more than one block");
    ir::Function& fn = m_.addFunction(fname);
    fn.loc = toLocation(f.getLoc());
    mlir::FunctionType ft = f.getFunctionType();
    for (unsigned i = 0; i < ft.getNumResults(); ++i) {
      auto vt = toValueType(ft.getResult(i));
      if (!vt)
        return Status::unsupported(where + ": result " + std::to_string(i) + " has unsupported type " +
                                   printed(ft.getResult(i)));
      fn.resultTypes.push_back(*vt);
      auto n = f.getResultAttrOfType<mlir::StringAttr>(i, "tosakit.name");
      fn.resultNames.push_back(n ? n.getValue().str() : std::string());
    }
    mlir::Block& body = f.getBody().front();
    for (mlir::BlockArgument arg : body.getArguments()) {
      auto n = f.getArgAttrOfType<mlir::StringAttr>(arg.getArgNumber(), "tosakit.name");
      std::string name = n ? n.getValue().str() : toLocation(arg.getLoc()).name;
      auto v = blockArg(arg, fn.body, name);
      if (!v) return v.status().withContext(where);
    }
    TK_RETURN_IF_ERROR(discardableAttrs(f, fn, where));
    return block(body, fn.body);
  }

  // The func's arg_attrs/res_attrs dictionaries and discardable attributes -> Function::argAttrs/resultAttrs/
  // attrs. "tosakit.name" is the value's name (kept elsewhere); keys of other dialects whose kind tosakit does
  // not model are dropped (they are discardable); a "tosakit.*" key of an unknown kind is an error.
  static Status collect(mlir::DictionaryAttr dict, std::map<std::string, ir::Attribute>& out,
                        const std::string& where) {
    if (!dict) return Status::ok();
    for (mlir::NamedAttribute na : dict) {
      std::string key = na.getName().str();
      if (key == "tosakit.name" || key.find('.') == std::string::npos) continue;
      auto a = toAttribute("", key, na.getValue());
      if (!a) {
        if (key.rfind("tosakit.", 0) != 0) continue;
        return Status::unsupported(where + ": attribute '" + key + "': " + a.status().message());
      }
      out[key] = std::move(a.value());
    }
    return Status::ok();
  }

  static Status discardableAttrs(mlir::func::FuncOp f, ir::Function& fn, const std::string& where) {
    for (unsigned i = 0; i < f.getNumArguments(); ++i) {
      std::map<std::string, ir::Attribute> attrs;
      TK_RETURN_IF_ERROR(collect(f.getArgAttrDict(i), attrs, where + ": argument " + std::to_string(i)));
      for (auto& [k, a] : attrs) fn.setArgAttr(i, k, std::move(a));
    }
    for (unsigned i = 0; i < f.getNumResults(); ++i) {
      std::map<std::string, ir::Attribute> attrs;
      TK_RETURN_IF_ERROR(collect(f.getResultAttrDict(i), attrs, where + ": result " + std::to_string(i)));
      for (auto& [k, a] : attrs) fn.setResultAttr(i, k, std::move(a));
    }
    return collect(f->getDiscardableAttrDictionary(), fn.attrs, where);
  }

  Result<ir::Value*> blockArg(mlir::BlockArgument arg, ir::Block& out, const std::string& name) {
    auto vt = toValueType(arg.getType());
    if (!vt)
      return Status::unsupported("argument " + std::to_string(arg.getArgNumber()) + " has unsupported type " +
                                 printed(arg.getType()));
    ir::Value* v = m_.newValue(*vt, name);
    v->ownerBlock = &out;
    v->index = int(arg.getArgNumber());
    out.args.push_back(v);
    values_[arg.getAsOpaquePointer()] = v;
    return v;
  }

  Status block(mlir::Block& b, ir::Block& out) {
    for (mlir::Operation& op : b.getOperations()) TK_RETURN_IF_ERROR(operation(op, out));
    return Status::ok();
  }

  Status operation(mlir::Operation& op, ir::Block& out) {
    std::string name = op.getName().getStringRef().str();
    std::string where = locString(op.getLoc()) + ": '" + name + "'";
    bool known = op.getName().isRegistered() &&
        ((name.rfind("tosa.", 0) == 0 && name != "tosa.variable") || name == "func.return");
    if (!known)
      return Status::unsupported(where + ": unsupported operation (tosakit reads tosa.* ops and func.return)");
    if (op.getNumSuccessors() != 0) return Status::unsupported(where + ": operations with successors");
    auto irop = std::make_unique<ir::Operation>();
    irop->name = name;
    irop->loc = toLocation(op.getLoc());
    irop->parent = &out;
    for (mlir::NamedAttribute na : op.getAttrs()) {
      std::string an = na.getName().str();
      auto a = toAttribute(name, an, na.getValue());
      if (!a && a.status().code() == StatusCode::InvalidArgument)  // over the memory budget: bad input
        return a.status().withContext(where + ": attribute '" + an + "'");
      if (!a) return Status::unsupported(where + ": attribute '" + an + "': " + a.status().message());
      if (isDefaultValued(an, *a)) continue;
      irop->attrs[an] = std::move(a.value());
    }
    for (mlir::Value operand : op.getOperands()) {
      auto it = values_.find(operand.getAsOpaquePointer());
      if (it == values_.end()) return Status::internal(where + ": operand used before its definition");
      irop->operands.push_back(it->second);
    }
    for (mlir::OpResult r : op.getResults()) {
      auto vt = toValueType(r.getType());
      if (!vt)
        return Status::unsupported(where + ": result " + std::to_string(r.getResultNumber()) +
                                   " has unsupported type " + printed(r.getType()));
      ir::Value* v = m_.newValue(*vt);
      v->definingOp = irop.get();
      v->index = int(r.getResultNumber());
      irop->results.push_back(v);
      values_[r.getAsOpaquePointer()] = v;
    }
    for (mlir::Region& region : op.getRegions()) {
      auto reg = std::make_unique<ir::Region>();
      reg->parent = irop.get();
      for (mlir::Block& b : region.getBlocks()) {
        auto blk = std::make_unique<ir::Block>();
        blk->parent = reg.get();
        for (mlir::BlockArgument arg : b.getArguments()) {
          auto v = blockArg(arg, *blk, toLocation(arg.getLoc()).name);
          if (!v) return v.status().withContext(where);
        }
        TK_RETURN_IF_ERROR(block(b, *blk));
        reg->blocks.push_back(std::move(blk));
      }
      irop->regions.push_back(std::move(reg));
    }
    out.ops.push_back(std::move(irop));
    return Status::ok();
  }

  ir::Module& m_;
  const DiagnosticCapture& diags_;
  std::unordered_map<const void*, ir::Value*> values_;
};

}  // namespace

Result<std::unique_ptr<ir::Module>> importMlirString(const std::string& text, const std::string& bufferName,
                                                     const ImportOptions& options) {
  auto ctx = makeContext();
  DiagnosticCapture diags(ctx.get());
  mlir::ParserConfig config(ctx.get(), options.verify);
  mlir::OwningOpRef<mlir::ModuleOp> mod = mlir::parseSourceString<mlir::ModuleOp>(text, config, bufferName);
  if (!mod) {
    std::string msg = diags.first().empty() ? bufferName + ": cannot parse MLIR" : diags.first();
    return Status::parse(msg);
  }
  auto m = std::make_unique<ir::Module>();
  Importer imp(*m, diags);
  TK_RETURN_IF_ERROR(imp.module(*mod));
  return m;
}

Result<std::unique_ptr<ir::Module>> importMlirFile(const std::string& path, const ImportOptions& options) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Status::io(path + ": is a directory, not an .mlir file");
  TK_RETURN_IF_ERROR(checkFileSize(path));
  std::ifstream is(path, std::ios::binary);
  if (!is) return Status::io(path + ": cannot open file");
  std::ostringstream ss;
  ss << is.rdbuf();
  if (is.bad()) return Status::io(path + ": read error");
  return importMlirString(ss.str(), path, options);
}

}  // namespace tosakit::mlirio
