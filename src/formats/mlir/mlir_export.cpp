// tosakit IR -> MLIR TOSA text. Builds an MLIR module generically (OperationState per op: name, operands,
// result types, attributes, regions), verifies it with MLIR's verifier and prints the pretty form.
#include <cstring>
#include <unordered_map>

#include "formats/mlir/mlir_context.h"
#include "formats/mlir/mlir_io.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"

namespace tosakit::mlirio {
namespace {

class Exporter {
 public:
  explicit Exporter(mlir::MLIRContext* ctx) : ctx_(ctx) {}

  Result<mlir::OwningOpRef<mlir::ModuleOp>> module(const ir::Module& m) {
    mlir::OwningOpRef<mlir::ModuleOp> mod = mlir::ModuleOp::create(mlir::UnknownLoc::get(ctx_));
    if (m.target) {
      auto env = targetEnv(*m.target);
      if (!env) return env.status();
      (*mod)->setAttr("tosa.target_env", *env);
    }
    mlir::OpBuilder b(ctx_);
    b.setInsertionPointToEnd(mod->getBody());
    for (const ir::Variable& v : m.variables) TK_RETURN_IF_ERROR(variable(b, v));
    for (const auto& f : m.functions) TK_RETURN_IF_ERROR(function(b, *f));
    return mod;
  }

 private:
  // ---- types ----
  Result<mlir::Type> elementType(DType t) {
    switch (t) {
      case DType::Bool: return mlir::Type(mlir::IntegerType::get(ctx_, 1));
      case DType::I4: return mlir::Type(mlir::IntegerType::get(ctx_, 4));
      case DType::I8: return mlir::Type(mlir::IntegerType::get(ctx_, 8));
      case DType::I16: return mlir::Type(mlir::IntegerType::get(ctx_, 16));
      case DType::I32: return mlir::Type(mlir::IntegerType::get(ctx_, 32));
      case DType::I48: return mlir::Type(mlir::IntegerType::get(ctx_, 48));
      case DType::I64: return mlir::Type(mlir::IntegerType::get(ctx_, 64));
      case DType::U8: return mlir::Type(mlir::IntegerType::get(ctx_, 8, mlir::IntegerType::Unsigned));
      case DType::U16: return mlir::Type(mlir::IntegerType::get(ctx_, 16, mlir::IntegerType::Unsigned));
      case DType::U32: return mlir::Type(mlir::IntegerType::get(ctx_, 32, mlir::IntegerType::Unsigned));
      case DType::FP8E4M3: return mlir::Type(mlir::Float8E4M3FNType::get(ctx_));
      case DType::FP8E5M2: return mlir::Type(mlir::Float8E5M2Type::get(ctx_));
      case DType::FP16: return mlir::Type(mlir::Float16Type::get(ctx_));
      case DType::BF16: return mlir::Type(mlir::BFloat16Type::get(ctx_));
      case DType::FP32: return mlir::Type(mlir::Float32Type::get(ctx_));
      case DType::FP64: return mlir::Type(mlir::Float64Type::get(ctx_));
    }
    return Status::unsupported("element type " + std::string(dtypeName(t)));
  }

  static llvm::SmallVector<int64_t> mlirDims(const Shape& dims) {
    llvm::SmallVector<int64_t> out;
    for (int64_t d : dims) out.push_back(d < 0 ? mlir::ShapedType::kDynamic : d);
    return out;
  }

  Result<mlir::Type> valueType(const ir::ValueType& vt) {
    if (vt.isShape()) return mlir::Type(mlir::tosa::shapeType::get(ctx_, vt.dims.empty() ? 0 : int(vt.dims[0])));
    auto et = elementType(vt.dtype);
    if (!et) return et.status();
    if (vt.kind == ir::ValueType::Kind::UnrankedTensor) return mlir::Type(mlir::UnrankedTensorType::get(*et));
    return mlir::Type(mlir::RankedTensorType::get(mlirDims(vt.dims), *et));
  }

  mlir::Location location(const ir::Location& l) {
    mlir::Location pos = mlir::UnknownLoc::get(ctx_);
    if (!l.file.empty()) pos = mlir::FileLineColLoc::get(ctx_, l.file, unsigned(l.line), unsigned(l.col));
    if (!l.name.empty()) return mlir::NameLoc::get(mlir::StringAttr::get(ctx_, l.name), pos);
    return pos;
  }

  mlir::Location argLocation(const ir::Value* v) {
    if (v->name.empty()) return mlir::UnknownLoc::get(ctx_);
    return mlir::NameLoc::get(mlir::StringAttr::get(ctx_, v->name));
  }

  // ---- attributes ----
  Result<mlir::Attribute> dense(const Tensor& t, bool indexElements) {
    mlir::Type et;
    if (indexElements) {
      if (t.dtype() != DType::I64) return Status::invalid("shape constant must have I64 elements");
      et = mlir::IndexType::get(ctx_);
    } else {
      auto e = elementType(t.dtype());
      if (!e) return e.status();
      et = *e;
    }
    auto type = mlir::RankedTensorType::get(mlirDims(t.shape()), et);
    int64_t n = t.size();
    if (t.dtype() == DType::Bool) {
      llvm::SmallVector<bool> v;
      for (int64_t i = 0; i < n; ++i) v.push_back(t.getInt(i) != 0);
      return mlir::Attribute(mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(v)));
    }
    size_t eb = storageBytes(t.dtype());
    bool byteAligned = size_t(bitWidth(t.dtype())) == eb * 8;  // not i4 / i48
    if (byteAligned && n > 0) {
      // Our storage is MLIR's raw little-endian layout; a single element means splat.
      bool splat = true;
      for (int64_t i = 1; i < n && splat; ++i) splat = std::memcmp(t.data(), t.data() + i * eb, eb) == 0;
      size_t bytes = splat ? eb : t.byteSize();
      llvm::ArrayRef<char> raw(reinterpret_cast<const char*>(t.data()), bytes);
      return mlir::Attribute(mlir::DenseElementsAttr::getFromRawBuffer(type, raw));
    }
    unsigned bits = unsigned(bitWidth(t.dtype()));
    llvm::SmallVector<llvm::APInt> v;
    for (int64_t i = 0; i < n; ++i)
      v.push_back(llvm::APInt(bits, uint64_t(t.getInt(i)), !isUnsigned(t.dtype()), /*implicitTrunc=*/true));
    return mlir::Attribute(mlir::DenseElementsAttr::get(type, llvm::ArrayRef<llvm::APInt>(v)));
  }

  Result<mlir::Attribute> enumAttr(const std::string& name, const std::string& c) {
    namespace tosa = mlir::tosa;
    auto rounding = [&]() -> mlir::Attribute {
      auto e = tosa::symbolizeRoundingMode(c);
      return e ? tosa::RoundingModeAttr::get(ctx_, *e) : mlir::Attribute();
    };
    auto nan = [&]() -> mlir::Attribute {
      auto e = tosa::symbolizeNanPropagationMode(c);
      return e ? tosa::NanPropagationModeAttr::get(ctx_, *e) : mlir::Attribute();
    };
    auto resize = [&]() -> mlir::Attribute {
      auto e = tosa::symbolizeResizeMode(c);
      return e ? tosa::ResizeModeAttr::get(ctx_, *e) : mlir::Attribute();
    };
    auto block = [&]() -> mlir::Attribute {
      auto e = tosa::symbolizeBlockSize(c);
      return e ? tosa::BlockSizeAttr::get(ctx_, *e) : mlir::Attribute();
    };
    mlir::Attribute a;
    if (name == "rounding_mode")
      a = rounding();
    else if (name == "nan_mode")
      a = nan();
    else if (name == "mode")
      a = resize();
    else if (name == "block_size")
      a = block();
    else {
      // Unknown attribute name: the first TOSA enum that has this case.
      a = rounding();
      if (!a) a = nan();
      if (!a) a = resize();
      if (!a) a = block();
    }
    if (!a) return Status::invalid("enum case '" + c + "' is not valid for attribute '" + name + "'");
    return a;
  }

  // `opName` selects the op-specific forms (index-typed const_shape values, variable symbol names); discardable
  // argument/result/function attributes pass "".
  Result<mlir::Attribute> attribute(const std::string& opName, const std::string& name, const ir::Attribute& a) {
    using K = ir::Attribute::Kind;
    switch (a.kind) {
      case K::Bool: return mlir::Attribute(mlir::BoolAttr::get(ctx_, a.b));
      case K::Int: {
        auto t = elementType(a.dtype);
        if (!t) return t.status();
        if (isFloat(a.dtype)) return Status::invalid("integer attribute with float type");
        unsigned bits = unsigned(bitWidth(a.dtype));
        return mlir::Attribute(
            mlir::IntegerAttr::get(*t, llvm::APInt(bits, uint64_t(a.i), !isUnsigned(a.dtype), true)));
      }
      case K::Float: {
        auto t = elementType(a.dtype);
        if (!t) return t.status();
        if (!isFloat(a.dtype)) return Status::invalid("float attribute with integer type");
        return mlir::Attribute(mlir::FloatAttr::get(*t, a.f));
      }
      case K::String: return mlir::Attribute(mlir::StringAttr::get(ctx_, a.s));
      case K::Enum: return enumAttr(name, a.s);
      case K::Type: {
        auto t = elementType(a.dtype);
        if (!t) return t.status();
        return mlir::Attribute(mlir::TypeAttr::get(*t));
      }
      case K::IntArray: {
        switch (a.dtype) {
          case DType::I8: {
            llvm::SmallVector<int8_t> v(a.ints.begin(), a.ints.end());
            return mlir::Attribute(mlir::DenseI8ArrayAttr::get(ctx_, v));
          }
          case DType::I16: {
            llvm::SmallVector<int16_t> v(a.ints.begin(), a.ints.end());
            return mlir::Attribute(mlir::DenseI16ArrayAttr::get(ctx_, v));
          }
          case DType::I32: {
            llvm::SmallVector<int32_t> v(a.ints.begin(), a.ints.end());
            return mlir::Attribute(mlir::DenseI32ArrayAttr::get(ctx_, v));
          }
          case DType::I64: return mlir::Attribute(mlir::DenseI64ArrayAttr::get(ctx_, a.ints));
          default: return Status::unsupported("array<" + std::string(dtypeName(a.dtype)) + ">");
        }
      }
      case K::BoolArray: {
        llvm::SmallVector<bool> v;
        for (int64_t x : a.ints) v.push_back(x != 0);
        return mlir::Attribute(mlir::DenseBoolArrayAttr::get(ctx_, v));
      }
      case K::Tensor: {
        if (!a.tensor) return Status::invalid("dense attribute without a tensor");
        return dense(*a.tensor, opName == "tosa.const_shape" && name == "values");
      }
      case K::Symbol:
        // variable_read/variable_write take a SymbolNameAttr (a StringAttr printed as @name).
        if (name == "name" && (opName == "tosa.variable_read" || opName == "tosa.variable_write"))
          return mlir::Attribute(mlir::StringAttr::get(ctx_, a.s));
        return mlir::Attribute(mlir::FlatSymbolRefAttr::get(ctx_, a.s));
    }
    return Status::internal("unknown attribute kind");
  }

  Result<mlir::Attribute> targetEnv(const ir::TargetEnv& t) {
    namespace tosa = mlir::tosa;
    llvm::SmallVector<tosa::Profile> profiles;
    llvm::SmallVector<tosa::Extension> extensions;
    for (const std::string& p : t.profiles) {
      auto e = tosa::symbolizeProfile(p);
      if (!e) return Status::invalid("target_env: unknown profile '" + p + "'");
      profiles.push_back(*e);
    }
    for (const std::string& x : t.extensions) {
      auto e = tosa::symbolizeExtension(x);
      if (!e) return Status::invalid("target_env: unknown extension '" + x + "'");
      extensions.push_back(*e);
    }
    auto level = tosa::symbolizeLevel(t.level);
    if (!level) return Status::invalid("target_env: unknown level '" + t.level + "'");
    auto version = tosa::symbolizeSpecificationVersion(t.specVersion.empty() ? "1.0" : t.specVersion);
    if (!version) return Status::invalid("target_env: unknown specification version '" + t.specVersion + "'");
    return mlir::Attribute(tosa::TargetEnvAttr::get(ctx_, *version, *level, profiles, extensions));
  }

  // ---- module contents ----
  Status variable(mlir::OpBuilder& b, const ir::Variable& v) {
    if (v.type.kind != ir::ValueType::Kind::Tensor)
      return Status::unsupported("variable @" + v.name + ": only ranked tensor variables exist in MLIR");
    auto et = elementType(v.type.dtype);
    if (!et) return et.status();
    auto shapeType = mlir::RankedTensorType::get({int64_t(v.type.dims.size())}, mlir::IndexType::get(ctx_));
    mlir::OperationState st(location(v.loc), "tosa.variable");
    st.addAttribute("sym_name", mlir::StringAttr::get(ctx_, v.name));
    st.addAttribute("var_shape", mlir::DenseIntElementsAttr::get(shapeType, llvm::ArrayRef<int64_t>(v.type.dims)));
    st.addAttribute("type", mlir::TypeAttr::get(*et));
    if (v.initialValue) {
      auto init = dense(*v.initialValue, false);
      if (!init) return init.status().withContext("variable @" + v.name);
      st.addAttribute("initial_value", *init);
    }
    b.create(st);
    return Status::ok();
  }

  Status function(mlir::OpBuilder& b, const ir::Function& f) {
    std::string where = "@" + f.name;
    if (!f.body.terminator() || f.body.terminator()->name != "func.return")
      return Status::invalid(where + ": the body must end in func.return");
    llvm::SmallVector<mlir::Type> argTypes, resultTypes;
    for (const ir::Value* a : f.inputs()) {
      auto t = valueType(a->type);
      if (!t) return t.status().withContext(where);
      argTypes.push_back(*t);
    }
    for (const ir::ValueType& rt : f.resultTypes) {
      auto t = valueType(rt);
      if (!t) return t.status().withContext(where);
      resultTypes.push_back(*t);
    }
    auto fn = mlir::func::FuncOp::create(location(f.loc), f.name, mlir::FunctionType::get(ctx_, argTypes, resultTypes));
    b.insert(fn);
    mlir::Block* entry = fn.addEntryBlock();
    auto nameAttr = [&](const std::string& n) { return mlir::StringAttr::get(ctx_, n); };
    for (size_t i = 0; i < f.inputs().size(); ++i) {
      const ir::Value* a = f.inputs()[i];
      entry->getArgument(unsigned(i)).setLoc(argLocation(a));
      values_[a] = entry->getArgument(unsigned(i));
      if (!a->name.empty()) fn.setArgAttr(unsigned(i), "tosakit.name", nameAttr(a->name));
    }
    for (size_t i = 0; i < f.resultTypes.size() && i < f.resultNames.size(); ++i)
      if (!f.resultNames[i].empty()) fn.setResultAttr(unsigned(i), "tosakit.name", nameAttr(f.resultNames[i]));
    TK_RETURN_IF_ERROR(discardableAttrs(fn, f, where));
    return block(f.body, entry, where);
  }

  // Function::argAttrs/resultAttrs/attrs -> the func's arg_attrs/res_attrs dictionaries and attributes.
  Status discardableAttrs(mlir::func::FuncOp fn, const ir::Function& f, const std::string& where) {
    auto convert = [&](const std::string& key, const ir::Attribute& a,
                       const std::string& what) -> Result<mlir::Attribute> {
      if (key.find('.') == std::string::npos || key == "tosakit.name")
        return Status::invalid(where + ": " + what + " attribute '" + key +
                               "': discardable attributes need a dialect prefix ('tosakit.') and not 'tosakit.name'");
      auto ma = attribute("", key, a);
      if (!ma) return ma.status().withContext(where + ": " + what + " attribute '" + key + "'");
      return ma;
    };
    for (size_t i = 0; i < f.argAttrs.size(); ++i) {
      if (i >= f.inputs().size())
        return Status::invalid(where + ": attributes for argument " + std::to_string(i) + " which does not exist");
      for (const auto& [key, a] : f.argAttrs[i]) {
        auto ma = convert(key, a, "argument " + std::to_string(i));
        if (!ma) return ma.status();
        fn.setArgAttr(unsigned(i), key, *ma);
      }
    }
    for (size_t i = 0; i < f.resultAttrs.size(); ++i) {
      if (i >= f.resultTypes.size())
        return Status::invalid(where + ": attributes for result " + std::to_string(i) + " which does not exist");
      for (const auto& [key, a] : f.resultAttrs[i]) {
        auto ma = convert(key, a, "result " + std::to_string(i));
        if (!ma) return ma.status();
        fn.setResultAttr(unsigned(i), key, *ma);
      }
    }
    for (const auto& [key, a] : f.attrs) {
      auto ma = convert(key, a, "function");
      if (!ma) return ma.status();
      fn->setAttr(key, *ma);
    }
    return Status::ok();
  }

  Status block(const ir::Block& src, mlir::Block* dst, const std::string& where) {
    mlir::OpBuilder b(ctx_);
    b.setInsertionPointToEnd(dst);
    for (const auto& op : src.ops) TK_RETURN_IF_ERROR(operation(b, *op, where));
    return Status::ok();
  }

  Status operation(mlir::OpBuilder& b, const ir::Operation& op, const std::string& where) {
    std::string desc = where + ": " + op.describe();
    mlir::OperationName opName(op.name, ctx_);
    bool known = opName.isRegistered() &&
        ((op.name.rfind("tosa.", 0) == 0 && op.name != "tosa.variable") || op.name == "func.return");
    if (!known) return Status::unsupported(desc + ": '" + op.name + "' is not a TOSA operation (or func.return)");
    mlir::OperationState st(location(op.loc), opName);
    for (const ir::Value* v : op.operands) {
      auto it = values_.find(v);
      if (!v || it == values_.end()) return Status::invalid(desc + ": operand used before its definition");
      st.addOperands(it->second);
    }
    for (const ir::Value* r : op.results) {
      auto t = valueType(r->type);
      if (!t) return t.status().withContext(desc);
      st.addTypes(*t);
    }
    for (const auto& [name, a] : op.attrs) {
      auto ma = attribute(op.name, name, a);
      if (!ma) return ma.status().withContext(desc + ": attribute '" + name + "'");
      st.addAttribute(name, *ma);
    }
    for (size_t r = 0; r < op.regions.size(); ++r) st.addRegion();
    mlir::Operation* created = b.create(st);
    // An inherent attribute of the wrong kind is silently dropped by MLIR's property storage: catch it here.
    for (const auto& [name, a] : op.attrs)
      if (!created->getAttr(name))
        return Status::invalid(desc + ": attribute '" + name + "' (" + a.toString() + ") has the wrong kind for " +
                               op.name);
    for (size_t i = 0; i < op.results.size(); ++i) values_[op.results[i]] = created->getResult(unsigned(i));
    for (size_t r = 0; r < op.regions.size(); ++r) {
      mlir::Region& region = created->getRegion(unsigned(r));
      for (const auto& blk : op.regions[r]->blocks) {
        auto* dst = new mlir::Block();
        region.push_back(dst);
        for (const ir::Value* a : blk->args) {
          auto t = valueType(a->type);
          if (!t) return t.status().withContext(desc);
          values_[a] = dst->addArgument(*t, argLocation(a));
        }
        TK_RETURN_IF_ERROR(block(*blk, dst, desc));
      }
    }
    return Status::ok();
  }

  mlir::MLIRContext* ctx_;
  std::unordered_map<const ir::Value*, mlir::Value> values_;
};

}  // namespace

Result<std::string> exportMlir(const ir::Module& m, bool withLocations) {
  auto ctx = makeContext();
  DiagnosticCapture diags(ctx.get());
  Exporter ex(ctx.get());
  auto mod = ex.module(m);
  if (!mod) return mod.status().withContext("exportMlir");
  if (mlir::failed(mlir::verify(mod->get())))
    return Status::invalid("exportMlir: MLIR verifier: " +
                           (diags.first().empty() ? std::string("verification failed") : diags.first()));
  mlir::OpPrintingFlags flags;
  if (withLocations) flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  std::string text;
  llvm::raw_string_ostream os(text);
  mod->get()->print(os, flags);
  os.flush();
  return text;
}

}  // namespace tosakit::mlirio
