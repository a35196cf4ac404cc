// TFLite model -> ir::Module: verification, size budgets, tensors and constants, the operator walk.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/size_budget.h"
#include "frontends/tflite/tflite_internal.h"
#include "tosakit/import.h"

namespace tosakit::tflite {

namespace {

// Limits on the file's structure beyond the memory budget: a hostile file may declare millions of tiny
// tensors or operators, or a rank in the thousands (the importer would spend its time on them before any
// level check). Real models stay far below.
constexpr int64_t kMaxRank = 16;
constexpr uint32_t kMaxTensors = 1u << 20;
constexpr uint32_t kMaxOperators = 1u << 20;

Result<std::string> readFile(const std::string& path) {
  TK_RETURN_IF_ERROR(checkFileSize(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::io(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::io(path + ": read error");
  return ss.str();
}

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    registerConstOps(t);
    registerFloatOps(t);
    registerDataOps(t);
    registerQuantOps(t);
    registerQuantElementwiseOps(t);
    return t;
  }();
  return table;
}

int builtinCode(const fb::OperatorCode& oc) {
  // Files written before the enum outgrew a byte only fill deprecated_builtin_code; newer ones fill both.
  return std::max<int>(oc.deprecated_builtin_code(), int(oc.builtin_code()));
}

std::string joined(const std::vector<std::string>& list) {
  std::string msg;
  for (size_t i = 0; i < list.size(); ++i) msg += (i ? "; " : "") + list[i];
  return msg;
}

// Scales must be positive and finite and zero points fit int32 (TFLite's own types) before any arithmetic uses
// them; a float tensor's unused parameters are dropped instead (tflite_fuzz finding: NaN scales).
Status checkQuantization(TVal& v, const std::string& what) {
  bool valid = true;
  for (double s : v.quant.scale) valid = valid && s > 0 && std::isfinite(s);
  for (int64_t z : v.quant.zeroPoint) valid = valid && z >= INT32_MIN && z <= INT32_MAX;
  if (valid) return Status::ok();
  if (isFloat(v.dtype)) {
    v.quant = {};
    return Status::ok();
  }
  return Status::parse(what + " has a scale that is not positive and finite or a zero point outside int32");
}

}  // namespace

std::string operatorName(const fb::Model& model, const fb::Operator& op) {
  const fb::OperatorCode* oc = model.operator_codes()->Get(op.opcode_index());
  const int code = builtinCode(*oc);
  if (code == int(fb::BuiltinOperator::CUSTOM))
    return "CUSTOM(" + std::string(oc->custom_code() ? oc->custom_code()->str() : "") + ")";
  const char* name =
      code >= 0 && code <= int(fb::BuiltinOperator::MAX) ? fb::EnumNameBuiltinOperator(fb::BuiltinOperator(code)) : "";
  return name && *name ? name : "BUILTIN_" + std::to_string(code);
}

std::optional<DType> dtypeFromTflite(fb::TensorType t) {
  switch (t) {
    case fb::TensorType::FLOAT32: return DType::FP32;
    case fb::TensorType::FLOAT16: return DType::FP16;
    case fb::TensorType::BFLOAT16: return DType::BF16;
    case fb::TensorType::FLOAT64: return DType::FP64;
    case fb::TensorType::INT32: return DType::I32;
    case fb::TensorType::INT16: return DType::I16;
    case fb::TensorType::INT8: return DType::I8;
    case fb::TensorType::INT64: return DType::I64;
    case fb::TensorType::UINT8: return DType::U8;
    case fb::TensorType::UINT16: return DType::U16;
    case fb::TensorType::UINT32: return DType::U32;
    case fb::TensorType::BOOL: return DType::Bool;
    case fb::TensorType::INT4: return DType::I4;
    default: return std::nullopt;
  }
}

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Quantized arguments and results record their scale and zero point under src/quantize's keys, so compare
// --dequantize and --quant-input-style integer I/O work on imported models as on tosakit's own.
// A uint8 argument or result is i8 bits with `tosakit.onnx_type = "uint8"` (as the ONNX import writes them), so
// `tosakit run` takes and writes uint8 data; its recorded zero point is the file's.
void Importer::recordQuant(const TVal& v, bool argument, size_t index) {
  ir::Function& fn = b.function();
  if (v.fromUint8) {
    const ir::Attribute u8 = ir::Attribute::string("uint8");
    argument ? fn.setArgAttr(index, "tosakit.onnx_type", u8) : fn.setResultAttr(index, "tosakit.onnx_type", u8);
  }
  if (isFloat(v.dtype) || v.quant.scale.size() != 1) return;
  const ir::Attribute scale = ir::Attribute::floating(v.quant.scale[0], DType::FP64);
  const ir::Attribute zp = ir::Attribute::integer(v.quant.zeroPoint[0] + (v.fromUint8 ? 128 : 0), DType::I64);
  if (argument) {
    fn.setArgAttr(index, "tosakit.qscale", scale);
    fn.setArgAttr(index, "tosakit.qzp", zp);
  } else {
    fn.setResultAttr(index, "tosakit.qscale", scale);
    fn.setResultAttr(index, "tosakit.qzp", zp);
  }
}

namespace {

// The operators whose uint8 models the generator checks bit for bit against TFLite (tests/tflite/gen_quant_ops.py,
// cases uint8_*): on uint8 tensors carried as int8 their int8 lowerings compute what TFLite's uint8 kernels do.
bool uint8Verified(int code) {
  using Op = fb::BuiltinOperator;
  static const std::set<int> verified = {int(Op::CONV_2D),
                                         int(Op::DEPTHWISE_CONV_2D),
                                         int(Op::FULLY_CONNECTED),
                                         int(Op::ADD),
                                         int(Op::MAX_POOL_2D),
                                         int(Op::AVERAGE_POOL_2D),
                                         int(Op::SOFTMAX),
                                         int(Op::QUANTIZE),
                                         int(Op::DEQUANTIZE),
                                         int(Op::LOGISTIC),
                                         int(Op::TANH),
                                         int(Op::MUL),
                                         int(Op::SUB),
                                         int(Op::CONCATENATION),
                                         int(Op::RESHAPE),
                                         int(Op::PAD),
                                         int(Op::RESIZE_BILINEAR)};
  return verified.count(code) > 0;
}

// The identity tosa.rescale between uint8 (i8 bits, unsigned) and int8: u - 128 in, s + 128 out.
ir::RescaleAttrs uint8Move(bool in) {
  ir::RescaleAttrs ra;
  ra.multiplier = {int64_t(1) << 30};
  ra.shift = {30};
  ra.roundingMode = "SINGLE_ROUND";
  (in ? ra.inputZp : ra.outputZp) = 128;
  (in ? ra.inputUnsigned : ra.outputUnsigned) = true;
  return ra;
}

}  // namespace

Importer::Importer(const fb::Model& model, const std::string& file, const TfliteImportOptions& opts)
    : model(model),
      g(*model.subgraphs()->Get(0)),
      file(file),
      opts(opts),
      m(std::make_unique<ir::Module>()),
      b(*m, opts.functionName) {}

std::string Importer::tensorName(int t) const {
  const fb::Tensor* tensor = g.tensors()->Get(uint32_t(t));
  if (tensor->name() && tensor->name()->size()) return tensor->name()->str();
  return "tensor" + std::to_string(t);
}

// Every index the file holds is checked once here, so that nothing later reads out of range.
Status Importer::checkStructure() const {
  const uint32_t nTensors = g.tensors() ? g.tensors()->size() : 0;
  const uint32_t nBuffers = model.buffers() ? model.buffers()->size() : 0;
  const uint32_t nCodes = model.operator_codes() ? model.operator_codes()->size() : 0;
  if (nTensors > kMaxTensors)
    return Status::parse(file + ": " + std::to_string(nTensors) + " tensors, more than allowed");
  const uint32_t nOps = g.operators() ? g.operators()->size() : 0;
  if (nOps > kMaxOperators) return Status::parse(file + ": " + std::to_string(nOps) + " operators, more than allowed");
  for (uint32_t t = 0; t < nTensors; ++t) {
    const fb::Tensor* tensor = g.tensors()->Get(t);
    const std::string what = file + ": tensor #" + std::to_string(t);
    if (tensor->buffer() >= nBuffers && tensor->buffer() != 0)
      return Status::parse(what + " refers to buffer " + std::to_string(tensor->buffer()) + " of " +
                           std::to_string(nBuffers));
    if (tensor->shape() && tensor->shape()->size() > kMaxRank)
      return Status::parse(what + " has rank " + std::to_string(tensor->shape()->size()));
  }
  for (uint32_t b = 0; b < nBuffers; ++b) {
    const fb::Buffer* buf = model.buffers()->Get(b);
    if (buf->offset() > 1 || buf->size() > 0)
      return Status::unsupported(file + ": buffer " + std::to_string(b) +
                                 " is stored outside the FlatBuffer (models over 2 GB) and is not supported");
  }
  auto checkList = [&](const flatbuffers::Vector<int32_t>* list, bool optional, const std::string& what) {
    if (!list) return Status::ok();
    for (int32_t i : *list)
      if ((i < 0 && !(optional && i == -1)) || (i >= 0 && uint32_t(i) >= nTensors))
        return Status::parse(file + ": " + what + " refers to tensor " + std::to_string(i) + " of " +
                             std::to_string(nTensors));
    return Status::ok();
  };
  TK_RETURN_IF_ERROR(checkList(g.inputs(), false, "subgraph input"));
  TK_RETURN_IF_ERROR(checkList(g.outputs(), false, "subgraph output"));
  for (uint32_t i = 0; i < nOps; ++i) {
    const fb::Operator* o = g.operators()->Get(i);
    const std::string what = "operator #" + std::to_string(i);
    if (o->opcode_index() >= nCodes)
      return Status::parse(file + ": " + what + " has opcode index " + std::to_string(o->opcode_index()) + " of " +
                           std::to_string(nCodes));
    TK_RETURN_IF_ERROR(checkList(o->inputs(), true, what + " input"));
    TK_RETURN_IF_ERROR(checkList(o->outputs(), false, what + " output"));
  }
  return Status::ok();
}

// Shapes, types, quantization and constant data of every tensor, each checked against the memory budget
// before its data is copied.
Status Importer::defineTensors() {
  const uint32_t nTensors = g.tensors() ? g.tensors()->size() : 0;
  vals.resize(nTensors);
  for (uint32_t t = 0; t < nTensors; ++t) {
    const fb::Tensor* tensor = g.tensors()->Get(t);
    TVal& v = vals[t];
    const std::string what = file + ": tensor '" + tensorName(int(t)) + "'";
    if (tensor->shape())
      for (int32_t d : *tensor->shape()) {
        if (d < 0) return Status::invalid(what + " has a dynamic dimension (" + std::to_string(d) + ")");
        v.shape.push_back(d);
      }
    auto dt = dtypeFromTflite(tensor->type());
    if (!dt) {
      v.poisoned = v.badType = true;  // an operator that reads or writes it is unsupported
      continue;
    }
    v.dtype = *dt;
    TK_RETURN_IF_ERROR(checkAllocation(v.dtype, v.shape, what));
    if (const fb::QuantizationParameters* q = tensor->quantization(); q && q->scale() && q->scale()->size()) {
      for (float s : *q->scale()) v.quant.scale.push_back(s);
      // The verifier aligns a vector's length, not its 8-byte elements: read them by memcpy (tflite_fuzz finding).
      if (const auto* zp = q->zero_point())
        for (uint32_t i = 0; i < zp->size(); ++i) {
          int64_t z = 0;
          std::memcpy(&z, zp->Data() + size_t(i) * sizeof z, sizeof z);
          v.quant.zeroPoint.push_back(z);
        }
      v.quant.dim = q->quantized_dimension();
      if (v.quant.zeroPoint.size() != v.quant.scale.size() && !v.quant.zeroPoint.empty())
        return Status::parse(what + ": " + std::to_string(v.quant.scale.size()) + " scales but " +
                             std::to_string(v.quant.zeroPoint.size()) + " zero points");
      if (v.quant.zeroPoint.empty()) v.quant.zeroPoint.assign(v.quant.scale.size(), 0);
      TK_RETURN_IF_ERROR(checkQuantization(v, what));
      if (v.dtype == DType::U8) {
        v.dtype = DType::I8;
        v.fromUint8 = true;
        for (int64_t& z : v.quant.zeroPoint) z -= 128;
      }
    }
    const fb::Buffer* buf = model.buffers() && tensor->buffer() < model.buffers()->size()
        ? model.buffers()->Get(tensor->buffer())
        : nullptr;
    if (!buf || !buf->data() || buf->data()->size() == 0) continue;
    if (tensor->sparsity()) continue;  // read by DENSIFY (ops_const.cpp)
    auto bytes = checkedByteSize(v.dtype, v.shape);
    if (!bytes) return bytes.status().withContext(what);
    if (v.dtype == DType::I4 || int64_t(buf->data()->size()) != *bytes)
      return Status::parse(what + ": buffer " + std::to_string(tensor->buffer()) + " holds " +
                           std::to_string(buf->data()->size()) + " bytes, the tensor " + shapeToString(v.shape) + " " +
                           std::string(dtypeName(v.dtype)) + " needs " + std::to_string(*bytes));
    Tensor c(v.dtype, v.shape);
    std::memcpy(c.data(), buf->data()->data(), size_t(*bytes));
    if (v.fromUint8)  // u - 128 as int8 bits: the top bit flipped
      for (int64_t i = 0; i < *bytes; ++i) c.data()[i] ^= 0x80;
    v.c = std::make_shared<const Tensor>(std::move(c));
  }
  return Status::ok();
}

Status Importer::defineInputs() {
  for (int32_t t : *g.inputs()) {
    TVal& v = vals[size_t(t)];
    const std::string name = argNames_.count(t) ? argNames_[t] : tensorName(t);
    const std::string what = file + ": input '" + name + "'";
    if (v.isConst()) continue;  // a subgraph input with data: TFLite treats it as the constant
    if (v.poisoned) return Status::unsupported(what + ": its element type has no TOSA equivalent");
    if (g.tensors()->Get(uint32_t(t))->is_variable()) return Status::unsupported(what + ": variable tensors");
    if (v.dtype != DType::FP32 && v.dtype != DType::I8 && v.dtype != DType::I16 && v.dtype != DType::I32 &&
        v.dtype != DType::Bool && v.dtype != DType::FP16)
      return Status::unsupported(what + ": element type " + std::string(dtypeName(v.dtype)) + " is not supported");
    v.v = b.input(ValueType::tensor(v.dtype, v.shape), name);
    recordQuant(v, true, b.function().inputs().size() - 1);
    if (v.fromUint8) v.v = b.rescale(v.v, DType::I8, uint8Move(true), name + "/to_int8");
  }
  return Status::ok();
}

int Importer::inputTensor(int i) const {
  if (i < 0 || i >= numInputs()) return -1;
  return op->inputs()->Get(uint32_t(i));
}

int Importer::outputTensor(int k) const {
  if (k < 0 || k >= numOutputs()) throw std::out_of_range("operator output " + std::to_string(k));
  return op->outputs()->Get(uint32_t(k));
}

TVal& Importer::in(int i) {
  const int t = inputTensor(i);
  if (t < 0) throw std::out_of_range("operator input " + std::to_string(i));
  return vals[size_t(t)];
}

Result<Value*> Importer::get(int i) {
  TVal& v = in(i);
  if (v.v) return v.v;
  if (v.isConst()) {
    v.v = b.constant(*v.c, tensorName(inputTensor(i)));
    return v.v;
  }
  if (g.tensors()->Get(uint32_t(inputTensor(i)))->sparsity())
    return Status::unsupported("reads the sparse tensor '" + tensorName(inputTensor(i)) +
                               "' directly (only DENSIFY may)");
  return Status::invalid("reads tensor '" + tensorName(inputTensor(i)) + "' before any operator writes it");
}

Result<const Tensor*> Importer::constIn(int i, const char* what) {
  TVal& v = in(i);
  if (!v.isConst())
    return Status::unsupported(std::string(what) + " (input " + std::to_string(i) + ") must be a constant");
  return v.c.get();
}

Status Importer::setOut(int k, Value* v) {
  TVal& o = vals.at(size_t(outputTensor(k)));
  if (v->type.dims != o.shape)
    return Status::invalid("output '" + tensorName(outputTensor(k)) + "' is declared " + shapeToString(o.shape) +
                           " but the operator computes " + shapeToString(v->type.dims));
  if (v->definingOp) v->definingOp->loc.name = tensorName(outputTensor(k));
  // Quantized results record their scale and zero point as src/quantize does (data movement included).
  if (v->definingOp && (o.dtype == DType::I8 || o.dtype == DType::I16) && o.quant.scale.size() == 1) {
    v->definingOp->attrs["tosakit.qscale"] = ir::Attribute::floating(o.quant.scale[0], DType::FP64);
    v->definingOp->attrs["tosakit.qzp"] = ir::Attribute::integer(o.quant.zeroPoint[0], DType::I64);
  }
  o.v = v;
  return Status::ok();
}

Status Importer::setConstOut(int k, Tensor t) {
  TVal& o = vals.at(size_t(outputTensor(k)));
  if (t.shape() != o.shape)
    return Status::invalid("output '" + tensorName(outputTensor(k)) + "' is declared " + shapeToString(o.shape) +
                           " but the operator computes " + shapeToString(t.shape()));
  o.c = std::make_shared<const Tensor>(std::move(t));
  o.dtype = o.c->dtype();
  return Status::ok();
}

Value* Importer::scalarOf(DType dtype, double v, size_t rank) {
  Tensor t(dtype, Shape(rank, 1));
  if (isFloat(dtype))
    t.setFloat(0, v);
  else
    t.setInt(0, int64_t(v));
  return b.constant(std::move(t), aux("const"));
}

Value* Importer::clampF(Value* x, double lo, double hi, const std::string& what) {
  return b.op1("tosa.clamp", {x}, x->type,
               {{"min_val", ir::Attribute::floating(lo, x->type.dtype)},
                {"max_val", ir::Attribute::floating(hi, x->type.dtype)}},
               aux(what));
}

Result<Value*> Importer::activation(Value* v, fb::ActivationFunctionType a) {
  // The activation's op carries the operator's location (setOut); the op before it is named apart.
  if (a != fb::ActivationFunctionType::NONE && v->definingOp && v->definingOp->loc.name == loc)
    v->definingOp->loc.name = aux("pre_activation");
  switch (a) {
    case fb::ActivationFunctionType::NONE: return v;
    case fb::ActivationFunctionType::RELU: return clampF(v, 0, kFltMax, "relu");
    case fb::ActivationFunctionType::RELU_N1_TO_1: return clampF(v, -1, 1, "relu_n1_to_1");
    case fb::ActivationFunctionType::RELU6: return clampF(v, 0, 6, "relu6");
    case fb::ActivationFunctionType::TANH: return b.op1("tosa.tanh", {v}, v->type, {}, aux("tanh"));
    default: return Status::unsupported("fused activation " + std::to_string(int(a)) + " (SIGN_BIT) is not supported");
  }
}

Value* Importer::toRank(Value* x, size_t rank) {
  const Shape& s = x->type.dims;
  if (s.size() >= rank) return x;
  Shape r(rank - s.size(), 1);
  r.insert(r.end(), s.begin(), s.end());
  return b.reshape(x, r, aux("broadcast_rank"));
}

bool Importer::runsQuantized() {
  const int t = inputTensor(0);
  if (t < 0) return false;
  const TVal& v = vals[size_t(t)];
  return (v.dtype == DType::I8 || v.dtype == DType::I16) && !v.isConst();
}

Status Importer::lowerOperators() {
  const HandlerTable& table = handlers();
  const uint32_t nOps = g.operators() ? g.operators()->size() : 0;
  for (uint32_t i = 0; i < nOps; ++i) {
    op = g.operators()->Get(i);
    opIndex = int(i);
    const std::string name = operatorName(model, *op);
    loc = numOutputs() > 0 ? tensorName(op->outputs()->Get(0)) : name + std::to_string(i);
    const std::string label = "#" + std::to_string(i) + " " + name + " -> '" + loc + "'";
    bool poisoned = false, badType = false, uint8 = false;
    auto look = [&](int t) {
      poisoned |= vals[size_t(t)].poisoned;
      badType |= vals[size_t(t)].badType;
      uint8 |= vals[size_t(t)].fromUint8;
    };
    for (int k = 0; k < numInputs(); ++k)
      if (int t = inputTensor(k); t >= 0) look(t);
    for (int k = 0; k < numOutputs(); ++k) look(outputTensor(k));
    const fb::OperatorCode* oc = model.operator_codes()->Get(op->opcode_index());
    const int code = builtinCode(*oc);
    const OpHandler* h = nullptr;
    if (code == int(fb::BuiltinOperator::CUSTOM)) {
      auto it = table.custom.find(oc->custom_code() ? oc->custom_code()->str() : "");
      if (it != table.custom.end()) h = &it->second;
    } else if (auto q = table.quantized.find(code); q != table.quantized.end() && runsQuantized()) {
      h = &q->second;
    } else if (auto it = table.builtin.find(code); it != table.builtin.end()) {
      h = &it->second;
    }
    Status s;
    if (!h) {
      s = Status::unsupported("no lowering for this operator");
      errors.push_back(label + ": " + s.message());
    } else if (uint8 && !uint8Verified(code)) {
      s = Status::unsupported("uint8 (legacy quantized) operator not verified against TFLite");
      errors.push_back(label + ": " + s.message());
    } else if (badType) {
      s = Status::unsupported("a tensor of an element type TOSA 1.0 lacks (string, complex, resource, ...)");
      errors.push_back(label + ": " + s.message());
    } else if (poisoned) {
      s = Status::unsupported("");  // a producer is reported already
    } else {
      try {
        s = (*h)(*this);
      } catch (const std::out_of_range& e) {
        s = Status::invalid(std::string("reads an input or output the operator does not have (") + e.what() + ")");
      }
      if (!s.isOk() && s.code() != StatusCode::Unsupported && s.code() != StatusCode::InvalidArgument)
        return s.withContext(file + ": operator " + label);
      if (!s.isOk())
        (s.code() == StatusCode::InvalidArgument ? malformed : errors).push_back(label + ": " + s.message());
    }
    if (s.isOk()) {
      for (int k = 0; k < numOutputs(); ++k)
        if (const TVal& o = vals[size_t(outputTensor(k))]; !o.v && !o.isConst())
          malformed.push_back(label + ": output " + std::to_string(k) + " is not produced");
      continue;
    }
    for (int k = 0; k < numOutputs(); ++k) vals[size_t(outputTensor(k))].poisoned = true;
  }
  return Status::ok();
}

Result<std::unique_ptr<ir::Module>> Importer::run() {
  TK_RETURN_IF_ERROR(checkStructure());
  if (!g.inputs() || !g.outputs() || g.outputs()->size() == 0)
    return Status::parse(file + ": the main subgraph has no inputs or outputs list");
  if (model.signature_defs())
    for (const fb::SignatureDef* sig : *model.signature_defs()) {
      if (sig->subgraph_index() != 0) continue;
      auto names = [](const flatbuffers::Vector<flatbuffers::Offset<fb::TensorMap>>* list,
                      std::map<int, std::string>& out) {
        if (!list) return;
        for (const fb::TensorMap* tm : *list)
          if (tm->name() && tm->name()->size()) out[int(tm->tensor_index())] = tm->name()->str();
      };
      names(sig->inputs(), argNames_);
      names(sig->outputs(), resultNames_);
      break;
    }
  TK_RETURN_IF_ERROR(defineTensors());
  TK_RETURN_IF_ERROR(defineInputs());
  TK_RETURN_IF_ERROR(lowerOperators());

  loc = "output";
  std::vector<Value*> results;
  std::vector<std::string> names;
  for (int32_t t : *g.outputs()) {
    TVal& v = vals[size_t(t)];
    const std::string name = resultNames_.count(t) ? resultNames_[t] : tensorName(t);
    if (v.poisoned) continue;  // its producer is reported
    if (!v.v && v.isConst()) v.v = b.constant(*v.c, name);
    if (!v.v) {
      malformed.push_back("output '" + name + "': no operator writes it");
      continue;
    }
    results.push_back(v.fromUint8 ? b.rescale(v.v, DType::I8, uint8Move(false), name + "/to_uint8") : v.v);
    names.push_back(name);
  }
  if (!malformed.empty())
    return Status::invalid(file + ": " + std::to_string(malformed.size()) + " malformed operator(s): " +
                           joined(malformed) + (errors.empty() ? "" : "; and unsupported: " + joined(errors)));
  if (!errors.empty())
    return Status::unsupported(file + ": " + std::to_string(errors.size()) +
                               " unsupported operator(s): " + joined(errors));
  b.output(results, names);
  for (size_t k = 0, r = 0; k < g.outputs()->size(); ++k)
    if (const TVal& v = vals[size_t(g.outputs()->Get(uint32_t(k)))]; !v.poisoned) recordQuant(v, false, r++);
  return std::move(m);
}

Result<std::unique_ptr<ir::Module>> importTfliteBytes(const std::string& bytes, const std::string& name,
                                                      const TfliteImportOptions& options) {
  if (bytes.size() < 8) return Status::parse(name + ": not a TFLite model (file too short)");
  if (!flatbuffers::BufferHasIdentifier(bytes.data(), fb::ModelIdentifier()))
    return Status::parse(name + ": not a TFLite model (no 'TFL3' FlatBuffers identifier)");
  // The verifier checks every offset, vector length and string against the buffer before anything is read;
  // depth and table limits bound its own work on a hostile file.
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), 64, 1u << 22);
  if (!fb::VerifyModelBuffer(verifier))
    return Status::parse(name +
                         ": not a valid TFLite model (the FlatBuffers verifier rejects it: truncated or corrupt)");
  const fb::Model* model = fb::GetModel(bytes.data());
  if (!model->subgraphs() || model->subgraphs()->size() == 0)
    return Status::parse(name + ": the model has no subgraph");
  if (!model->operator_codes()) return Status::parse(name + ": the model has no operator codes");
  Importer imp(*model, name, options);
  auto module = imp.run();
  if (module && options.validateLevel) TK_RETURN_IF_ERROR(validateImportedModule(**module, name));
  return module;
}

Result<std::unique_ptr<ir::Module>> importTflite(const std::string& path, const TfliteImportOptions& options) {
  auto bytes = readFile(path);
  if (!bytes) return bytes.status();
  return importTfliteBytes(*bytes, path, options);
}

bool isTfliteFile(const std::string& path) {
  const std::string ext = ".tflite";
  if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return true;
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  if (!in.read(head, sizeof head)) return false;
  return std::memcmp(head + 4, "TFL3", 4) == 0;
}

}  // namespace tosakit::tflite
