// ONNX -> TOSA import: the Importer core (values, graph inputs, the node walk, error collection) and model
// loading. The operator lowerings live in ops_*.cpp (see importer.h).
// Structure:
//   1. load the ModelProto, run the checker, shape inference and (for old opsets) the version converter;
//   2. walk the nodes in order; each node is lowered by its handler; an unsupported node records an error and
//      poisons its outputs so that every offending node is reported in one error.
// Layout: conv/pool produce NHWC values; elementwise ops, BatchNormalization and Concat keep whatever layout
// their inputs have; ops that need the logical layout (Reshape, Flatten, Gemm, ...) ask for "plain" and get a
// transpose (or a reshape when only size-1 dims move). So a CNN has transposes only at the graph boundary.
#include <onnx/checker.h>
#include <onnx/version_converter/convert.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "frontends/common/float_arith.h"
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

// ---- tensor helpers ----

Shape permuteShape(const Shape& s, const std::vector<int64_t>& perms) {
  Shape out;
  for (int64_t p : perms) out.push_back(s[size_t(p)]);
  return out;
}

Tensor permuteTensor(const Tensor& t, const std::vector<int64_t>& perms) {
  const Shape& in = t.shape();
  Tensor out(t.dtype(), permuteShape(in, perms));
  const size_t es = storageBytes(t.dtype());
  const size_t rank = in.size();
  std::vector<int64_t> inStride(rank, 1);
  for (size_t d = rank; d-- > 1;) inStride[d - 1] = inStride[d] * in[d];
  std::vector<int64_t> idx(rank, 0);
  const Shape& os = out.shape();
  for (int64_t o = 0; o < out.size(); ++o) {
    int64_t src = 0;
    for (size_t d = 0; d < rank; ++d) src += idx[d] * inStride[size_t(perms[d])];
    std::memcpy(out.data() + size_t(o) * es, t.data() + size_t(src) * es, es);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < os[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor reshapeTensor(const Tensor& t, Shape s) {
  Tensor r = t;
  r.reshape(std::move(s));
  return r;
}

std::optional<Shape> numpyBroadcast(Shape a, Shape b) {
  while (a.size() < b.size()) a.insert(a.begin(), 1);
  while (b.size() < a.size()) b.insert(b.begin(), 1);
  return ir::broadcastShape(a, b);
}

Shape withRank(Shape s, size_t rank) {
  while (s.size() < rank) s.insert(s.begin(), 1);
  return s;
}

// Elementwise fold with numpy broadcasting; ints in int64, floats in double then rounded to the dtype.
Tensor foldBinary(const Tensor& a, const Tensor& b, const Shape& outShape, char op) {
  Tensor out(a.dtype(), outShape);
  const size_t rank = outShape.size();
  Shape as = withRank(a.shape(), rank), bs = withRank(b.shape(), rank);
  std::vector<int64_t> idx(rank, 0);
  auto offsetIn = [&](const Shape& s) {
    int64_t off = 0;
    for (size_t d = 0; d < rank; ++d) off = off * s[d] + (s[d] == 1 ? 0 : idx[d]);
    return off;
  };
  const bool isF = isFloat(a.dtype());
  for (int64_t o = 0; o < out.size(); ++o) {
    int64_t ia = offsetIn(as), ib = offsetIn(bs);
    if (isF) {
      double x = a.getFloat(ia), y = b.getFloat(ib);
      out.setFloat(o, op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
    } else {
      int64_t x = a.getInt(ia), y = b.getInt(ib);
      int64_t r = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : (y == 0 ? 0 : x / y);
      out.setInt(o, r);
    }
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < outShape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

Tensor castTensor(const Tensor& t, DType to) {
  Tensor out(to, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) {
    if (isFloat(to))
      out.setFloat(i, t.getFloat(i));
    else if (isFloat(t.dtype()))
      out.setInt(i, int64_t(std::trunc(t.getFloat(i))));
    else
      out.setInt(i, t.getInt(i));
  }
  return out;
}

int64_t trimPadding(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t padBegin, int64_t& padEnd) {
  int64_t span = in - 1 + padBegin + padEnd - (k - 1) * dil;
  int64_t r = span % stride;
  if (r == 0) return 0;
  if (padEnd >= r) {
    padEnd -= r;
    return 0;
  }
  int64_t cut = r - padEnd;
  padEnd = 0;
  return cut;
}

std::optional<DType> runtimeDType(DType t) {
  switch (t) {
    case DType::FP32:
    case DType::FP16:
    case DType::BF16:
    case DType::I8:
    case DType::I16:
    case DType::I32:
    case DType::Bool: return t;
    case DType::I64: return DType::I32;
    case DType::U8: return DType::I8;
    default: return std::nullopt;
  }
}

// ---- the importer ----

Importer::Importer(const ::onnx::ModelProto& model, const std::string& file, const OnnxImportOptions& opts)
    : g(model.graph()), file(file), opts(opts), m(std::make_unique<ir::Module>()), b(*m, opts.functionName) {
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = int(o.version());
}

void Importer::setConst(const NodeProto& n, int i, Tensor t) {
  OVal v;
  v.shape = t.shape();
  v.dtype = t.dtype();
  v.c = std::make_shared<const Tensor>(std::move(t));
  setOut(n, i, std::move(v));
}

void Importer::setValue(const NodeProto& n, int i, Value* v, Layout layout, std::optional<DType> onnxType) {
  OVal o;
  o.dtype = onnxType.value_or(v->type.dtype);
  if (layout == Layout::Nhwc) {
    o.shape = permuteShape(v->type.dims, kToNchw);
    o.nhwc = v;
  } else {
    o.shape = v->type.dims;
    o.plain = v;
  }
  setOut(n, i, std::move(o));
}

Result<DType> Importer::rtType(const OVal& v) const {
  auto t = runtimeDType(v.dtype);
  if (!t) return Status::unsupported("element type " + std::string(dtypeName(v.dtype)) + " has no TOSA 1.0 equivalent");
  return *t;
}

Value* Importer::scalarOf(DType dtype, double v, size_t rank) {
  Tensor t(dtype, Shape(rank, 1));
  if (isFloat(dtype))
    t.setFloat(0, v);
  else
    t.setInt(0, int64_t(v));
  return b.constant(std::move(t), aux("const"));
}

const ::onnx::AttributeProto* Importer::attr(const NodeProto& n, const std::string& name) const {
  for (const auto& a : n.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

// An attribute of the expected type, or null (the caller's default applies). A present attribute of another
// type is malformed: remembered in badAttribute_ and reported for the node after its handler ran. Models
// from old exporters may leave the type unset (UNDEFINED): accepted.
const ::onnx::AttributeProto* Importer::typedAttr(const NodeProto& n, const std::string& name, int expectedType) const {
  auto* a = attr(n, name);
  if (!a || a->type() == expectedType || a->type() == ::onnx::AttributeProto::UNDEFINED) return a;
  if (badAttribute_.empty())
    badAttribute_ = "attribute '" + name + "' has type " +
        ::onnx::AttributeProto::AttributeType_Name(::onnx::AttributeProto::AttributeType(a->type())) + ", expected " +
        ::onnx::AttributeProto::AttributeType_Name(::onnx::AttributeProto::AttributeType(expectedType));
  return nullptr;
}

int64_t Importer::attrInt(const NodeProto& n, const std::string& name, int64_t def) const {
  auto* a = typedAttr(n, name, ::onnx::AttributeProto::INT);
  return a ? a->i() : def;
}

float Importer::attrFloat(const NodeProto& n, const std::string& name, float def) const {
  auto* a = typedAttr(n, name, ::onnx::AttributeProto::FLOAT);
  return a ? a->f() : def;
}

std::string Importer::attrStr(const NodeProto& n, const std::string& name, const std::string& def) const {
  auto* a = typedAttr(n, name, ::onnx::AttributeProto::STRING);
  return a ? a->s() : def;
}

std::optional<std::vector<int64_t>> Importer::attrInts(const NodeProto& n, const std::string& name) const {
  auto* a = typedAttr(n, name, ::onnx::AttributeProto::INTS);
  if (!a) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> Importer::attrFloats(const NodeProto& n, const std::string& name) const {
  auto* a = typedAttr(n, name, ::onnx::AttributeProto::FLOATS);
  if (!a) return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

Result<SpatialAttrs> Importer::spatialAttrs(const NodeProto& n, size_t nsp,
                                            const std::optional<std::vector<int64_t>>& weightKernel) const {
  SpatialAttrs a;
  auto k = attrInts(n, "kernel_shape");
  if (weightKernel && k && *k != *weightKernel) return Status::invalid("kernel_shape differs from the weight shape");
  a.kernel = weightKernel ? *weightKernel : k.value_or(std::vector<int64_t>{});
  a.strides = attrInts(n, "strides").value_or(std::vector<int64_t>(nsp, 1));
  a.dilations = attrInts(n, "dilations").value_or(std::vector<int64_t>(nsp, 1));
  a.pads = attrInts(n, "pads").value_or(std::vector<int64_t>(2 * nsp, 0));
  TK_RETURN_IF_ERROR(checkSpatial(a.kernel, nsp, 1, "kernel_shape"));
  TK_RETURN_IF_ERROR(checkSpatial(a.strides, nsp, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(a.dilations, nsp, 1, "dilations"));
  TK_RETURN_IF_ERROR(checkSpatial(a.pads, 2 * nsp, 0, "pads"));
  return a;
}

Value* Importer::unary(const std::string& op, Value* x, std::map<std::string, ir::Attribute> attrs) {
  return b.op1(op, {x}, x->type, std::move(attrs), aux(op.substr(5)));
}

Value* Importer::binary(const std::string& op, Value* a, Value* c, DType resultType) {
  auto s = ir::broadcastShape(a->type.dims, c->type.dims);
  return b.op1(op, {a, c}, ValueType::tensor(resultType, *s), {}, aux(op.substr(5)));
}

Value* Importer::clampF(Value* x, double lo, double hi) {
  return b.op1("tosa.clamp", {x}, x->type,
               {{"min_val", ir::Attribute::floating(lo, x->type.dtype)},
                {"max_val", ir::Attribute::floating(hi, x->type.dtype)}},
               aux("clamp"));
}

Result<Value*> Importer::sliceNhwc(Value* x, const Shape& start, const Shape& size) {
  Value* st = b.constShape(start, aux("start"));
  Value* sz = b.constShape(size, aux("size"));
  return b.op1("tosa.slice", {x, st, sz}, ValueType::tensor(x->type.dtype, size), {}, aux("slice"));
}

Value* Importer::divideF32(Value* x, Value* s) { return frontends::divideF32(b, x, s, aux("div")); }

Value* Importer::matmul3(Value* a, Value* c) {
  const DType t = a->type.dtype;
  Value* azp = b.scalar1(t, 0, aux("a_zp"));
  Value* bzp = b.scalar1(c->type.dtype, 0, aux("b_zp"));
  const DType acc = isFloat(t) ? t : (t == DType::I16 ? DType::I48 : DType::I32);
  const Shape &as = a->type.dims, &cs = c->type.dims;
  return b.op1("tosa.matmul", {a, c, azp, bzp}, ValueType::tensor(acc, {as[0], as[1], cs[2]}), {}, aux("matmul"));
}

Result<Value*> Importer::relayout(Value* x, const std::vector<int64_t>& perms) {
  // A transpose that only moves size-1 dims keeps the row-major order: a reshape is enough.
  const Shape& s = x->type.dims;
  std::vector<int64_t> nonUnit;
  for (int64_t p : perms)
    if (s[size_t(p)] != 1) nonUnit.push_back(p);
  bool ordered = std::is_sorted(nonUnit.begin(), nonUnit.end());
  if (ordered) return b.reshape(x, permuteShape(s, perms), aux("reshape"));
  return b.transpose(x, perms, aux("transpose"));
}

// A constant in its run-time type: int64 values must fit in int32.
static Result<Tensor> narrowConstant(const Tensor& t, DType rt) {
  if (t.dtype() == rt) return t;
  Tensor out(rt, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) {
    if (isFloat(rt)) {
      out.setFloat(i, t.getFloat(i));
      continue;
    }
    int64_t x = t.getInt(i);
    if (t.dtype() == DType::U8) x = int64_t(int8_t(uint8_t(x)));  // same bits
    if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max())
      return Status::unsupported("int64 constant value " + std::to_string(x) +
                                 " does not fit in TOSA's 32-bit integers");
    out.setInt(i, x);
  }
  return out;
}

Result<Value*> Importer::get(OVal& v, Layout layout) {
  if (v.poisoned) return Status::internal("use of a poisoned value");
  if (v.isSequence()) return Status::unsupported("a sequence used as a tensor (TOSA has no sequence type)");
  if (!v.isConst() && !v.plain && !v.nhwc) return Status::internal("a value with no run-time tensor used as data");
  if (layout == Layout::Nhwc && v.shape.size() != 4) return Status::internal("NHWC requested for a non-rank-4 value");
  if (v.isConst()) {
    auto rt = rtType(v);
    if (!rt) return rt.status().withContext("a constant used as a run-time tensor");
    Value*& slot = layout == Layout::Plain ? v.plain : v.nhwc;
    if (!slot) {
      auto t = narrowConstant(*v.c, *rt);
      if (!t) return t.status();
      slot = constF(layout == Layout::Plain ? std::move(*t) : permuteTensor(*t, kToNhwc));
    }
    return slot;
  }
  if (layout == Layout::Plain) {
    if (!v.plain) {
      auto r = relayout(v.nhwc, kToNchw);
      if (!r) return r;
      v.plain = *r;
    }
    return v.plain;
  }
  if (!v.nhwc) {
    auto r = relayout(v.plain, kToNhwc);
    if (!r) return r;
    v.nhwc = *r;
  }
  return v.nhwc;
}

// The value broadcast-ranked to `rank` (leading 1s, numpy style), in `layout` (NHWC only when rank is 4).
Result<Value*> Importer::getAsRank(OVal& v, size_t rank, Layout layout) {
  if (v.shape.size() == rank) return get(v, layout);
  Shape s = withRank(v.shape, rank);
  if (v.isConst()) {
    OVal tmp;
    tmp.shape = s;
    tmp.dtype = v.dtype;
    tmp.c = std::make_shared<const Tensor>(reshapeTensor(*v.c, s));
    return get(tmp, layout);
  }
  auto x = get(v, Layout::Plain);
  if (!x) return x;
  Value* r = b.reshape(*x, s, aux("reshape"));
  if (layout == Layout::Plain) return r;
  return relayout(r, kToNhwc);
}

Result<const Tensor*> Importer::constInput(const NodeProto& n, int i, const char* what) {
  if (!hasInput(n, i)) return Status::unsupported(std::string("missing ") + what + " input");
  OVal& v = val(n, i);
  if (!v.isConst()) return Status::unsupported(std::string(what) + " '" + n.input(i) + "' must be a constant");
  return v.c.get();
}

Status Importer::requireFloat(const NodeProto& n, const OVal& v) const {
  if (v.dtype != DType::FP32)
    return Status::unsupported("element type " + std::string(dtypeName(v.dtype)) + " (only float32 is supported)");
  return Status::ok();
}

Result<std::optional<std::vector<int64_t>>> Importer::axesOf(const NodeProto& n, int inputIndex) {
  if (auto a = attrInts(n, "axes")) return std::optional<std::vector<int64_t>>(*a);
  if (!hasInput(n, inputIndex)) return std::optional<std::vector<int64_t>>();
  auto t = constInput(n, inputIndex, "axes");
  if (!t) return t.status();
  return std::optional<std::vector<int64_t>>((*t)->toInts());
}

// Handlers read their required inputs and output 0 without further checks: make sure they exist.
Status Importer::checkArity(const NodeProto& n) const {
  static const std::map<std::string, int> kMinInputs = {
      {"Constant", 0},
      {"Add", 2},
      {"Sub", 2},
      {"Mul", 2},
      {"Div", 2},
      {"Pow", 2},
      {"Gemm", 2},
      {"MatMul", 2},
      {"Conv", 2},
      {"ConvTranspose", 2},
      {"BatchNormalization", 5},
      {"Gather", 2},
      {"Slice", 1},
      {"Scan", 0},
      {"Loop", 0},
      {"SequenceEmpty", 0}};  // Scan-8 sequence_lens and Loop trip count are optional
  auto it = kMinInputs.find(n.op_type());
  const int need = it == kMinInputs.end() ? 1 : it->second;
  if (n.input_size() < need) return Status::parse("needs at least " + std::to_string(need) + " input(s)");
  for (int i = 0; i < need; ++i)
    if (n.input(i).empty()) return Status::parse("required input " + std::to_string(i) + " is missing");
  // Optional outputs may be empty names (RNN's Y), but a node must produce something; only the recurrent ops
  // read anything but output 0.
  static const std::set<std::string> kOptionalFirstOutput = {"RNN", "GRU", "LSTM"};
  bool any = false;
  for (const auto& o : n.output()) any |= !o.empty();
  if (!any || (n.output(0).empty() && !kOptionalFirstOutput.count(n.op_type()))) return Status::parse("has no output");
  return Status::ok();
}

Status autoPads(const std::string& autoPad, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                std::vector<int64_t>& pads) {
  const size_t nsp = in.size();
  if (autoPad == "NOTSET") return Status::ok();
  if (autoPad == "VALID") {
    pads.assign(2 * nsp, 0);
    return Status::ok();
  }
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return Status::invalid("auto_pad '" + autoPad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  pads.assign(2 * nsp, 0);
  for (size_t i = 0; i < nsp; ++i) {
    const int64_t out = (in[i] + strides[i] - 1) / strides[i];
    const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - in[i]);
    const int64_t small = total / 2, big = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : big;
    pads[i + nsp] = autoPad == "SAME_UPPER" ? big : small;
  }
  return Status::ok();
}

// Spatial attribute lists must have one value per spatial axis (two, or four for pads) and be positive
// (strides, dilations, kernel) or non-negative (pads).
Status requireFloatLike(const OVal& v) {
  if (!isFloatType(v.dtype))
    return Status::unsupported("element type " + std::string(dtypeName(v.dtype)) +
                               " (only float32, float16 and bfloat16 are supported)");
  return Status::ok();
}

Status checkSpatial(const std::vector<int64_t>& v, size_t count, int64_t min, const char* name) {
  if (v.size() != count)
    return Status::invalid(std::string(name) + " must have " + std::to_string(count) +
                           (count == 1 ? " value" : " values"));
  for (int64_t x : v)
    if (x < min) return Status::invalid(std::string(name) + " value " + std::to_string(x) + " is out of range");
  return Status::ok();
}

// ---- model inputs ----

Status Importer::defineInitializers() {
  for (const auto& init : g.initializer()) TK_RETURN_IF_ERROR(defineInitializer(init));
  return Status::ok();
}

Status Importer::defineInitializer(const ::onnx::TensorProto& init) {
  auto t = tensorFromProto(init, file + ": initializer '" + init.name() + "'");
  if (!t) return t.status();
  OVal v;
  v.shape = t->shape();
  v.dtype = t->dtype();
  v.c = std::make_shared<const Tensor>(std::move(*t));
  vals[init.name()] = std::move(v);
  return Status::ok();
}

// Whether every reader of `name` (subgraphs included) reads only its element type or shape, and it is not
// a graph output. An input nothing reads qualifies too (a run does not need it).
bool Importer::readsOnlyMetadata(const std::string& name) const {
  bool dataRead = false;
  std::function<void(const ::onnx::GraphProto&)> scan = [&](const ::onnx::GraphProto& graph) {
    for (const auto& n : graph.node()) {
      for (int i = 0; i < n.input_size(); ++i) {
        if (n.input(i) != name) continue;
        const std::string& op = n.op_type();
        dataRead |= !(op == "Shape" || op == "Size" || (op == "CastLike" && i == 1));
      }
      for (const auto& a : n.attribute()) {
        if (a.has_g()) scan(a.g());
        for (const auto& sg : a.graphs()) scan(sg);
      }
    }
    for (const auto& o : graph.output()) dataRead |= o.name() == name;
  };
  scan(g);
  return !dataRead;
}

// How a graph input that is not a function argument is used: "shape_only" (Shape/Size read it), "type_only"
// (only CastLike's `like`: ONNX's own test data gives such inputs shapes other than the declared one), "unused".
std::string Importer::inputUse(const std::string& name) const {
  bool shape = false, type = false;
  std::function<void(const ::onnx::GraphProto&)> scan = [&](const ::onnx::GraphProto& graph) {
    for (const auto& n : graph.node()) {
      for (int i = 0; i < n.input_size(); ++i) {
        if (n.input(i) != name) continue;
        if (n.op_type() == "CastLike")
          type = true;
        else
          shape = true;
      }
      for (const auto& a : n.attribute()) {
        if (a.has_g()) scan(a.g());
        for (const auto& sg : a.graphs()) scan(sg);
      }
    }
  };
  scan(g);
  return shape ? "shape_only" : type ? "type_only" : "unused";
}

// numpy's / ONNX Runtime's name of an element type.
static std::string onnxTypeName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "int8";
    case DType::I16: return "int16";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    case DType::U8: return "uint8";
    case DType::U16: return "uint16";
    case DType::U32: return "uint32";
    case DType::FP16: return "float16";
    case DType::BF16: return "bfloat16";
    case DType::FP32: return "float32";
    case DType::FP64: return "float64";
    default: return std::string(dtypeName(t));
  }
}

void Importer::recordIoTypes(const std::vector<std::string>& outputs) {
  ir::Function& fn = b.function();
  for (size_t i = 0; i < argOnnxTypes_.size() && i < fn.inputs().size(); ++i)
    fn.setArgAttr(i, "tosakit.onnx_type", ir::Attribute::string(onnxTypeName(argOnnxTypes_[i])));
  for (size_t k = 0; k < outputs.size() && k < fn.resultTypes.size(); ++k) {
    DType t = vals.at(outputs[k]).dtype;
    for (const auto& o : g.output())  // the declared type wins: lowerings may label int64 values i32
      if (o.name() == outputs[k] && o.type().has_tensor_type() && o.type().tensor_type().elem_type() != 0)
        if (auto d = dtypeFromOnnx(o.type().tensor_type().elem_type(), o.name())) t = *d;
    fn.setResultAttr(k, "tosakit.onnx_type", ir::Attribute::string(onnxTypeName(t)));
  }
  if (dropped_.empty()) return;
  nlohmann::json list = nlohmann::json::array();
  constexpr int64_t kMaxRecordedValues = 4096;  // larger bound values are checked by shape only
  for (const DroppedInput& d : dropped_) {
    nlohmann::json e = {
        {"name", d.name}, {"onnx_type", onnxTypeName(d.onnxType)}, {"shape", d.shape}, {"reason", d.reason}};
    if (d.bound && d.bound->size() <= kMaxRecordedValues) {
      nlohmann::json values = nlohmann::json::array();
      for (int64_t i = 0; i < d.bound->size(); ++i) {
        if (isFloat(d.bound->dtype())) {
          double v = d.bound->getFloat(i);
          values.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(std::to_string(v)));
        } else {
          values.push_back(d.bound->getInt(i));
        }
      }
      e["values"] = std::move(values);
    }
    list.push_back(std::move(e));
  }
  // Names are bytes from the file: invalid UTF-8 is replaced rather than thrown (onnx_fuzz finding).
  fn.attrs["tosakit.onnx_unused_inputs"] =
      ir::Attribute::string(list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

Status Importer::defineInputs() {
  // Options naming inputs the graph does not have are mistakes: report them before anything else.
  for (const auto& [name, t] : opts.bindInputs) {
    bool found = false;
    for (const auto& in : g.input()) found |= in.name() == name;
    if (!found) return Status::invalid(file + ": bound input '" + name + "' is not a graph input");
  }
  for (const auto& [name, s] : opts.inputShapes) {
    bool found = false;
    for (const auto& in : g.input()) found |= in.name() == name;
    if (!found) return Status::invalid(file + ": input-shape override for '" + name + "', which is not a graph input");
  }
  for (const auto& in : g.input()) {
    if (vals.count(in.name())) continue;  // IR < 4 lists initializers as inputs too
    const std::string what = file + ": input '" + in.name() + "'";
    auto bound = opts.bindInputs.find(in.name());
    if (bound != opts.bindInputs.end()) {
      OVal v;
      v.shape = bound->second.shape();
      v.dtype = bound->second.dtype();
      v.c = std::make_shared<const Tensor>(bound->second);
      dropped_.push_back({in.name(), v.dtype, v.shape, "bound", v.c});
      vals[in.name()] = std::move(v);
      continue;
    }
    if (!in.type().has_tensor_type()) return Status::unsupported(what + ": only tensor inputs are supported");
    const auto& tt = in.type().tensor_type();
    auto onnxType = dtypeFromOnnx(tt.elem_type(), what);
    if (!onnxType) return onnxType.status();
    auto dt = runtimeDType(*onnxType);
    if (!dt)
      return Status::unsupported(what + ": element type " + std::string(dtypeName(*onnxType)) +
                                 " has no TOSA 1.0 equivalent");
    Shape shape;
    std::string dynamicDim;  // first dynamic dim other than the batch dim, for the message
    for (const auto& d : tt.shape().dim()) {
      bool known = d.has_dim_value() && d.dim_value() > 0;
      if (!known && !shape.empty() && dynamicDim.empty())
        dynamicDim = "dim " + std::to_string(shape.size()) + (d.has_dim_param() ? " ('" + d.dim_param() + "')" : "");
      shape.push_back(known ? d.dim_value() : 1);  // a dynamic batch dim defaults to 1
    }
    auto ov = opts.inputShapes.find(in.name());
    if (ov != opts.inputShapes.end()) {
      if (tt.has_shape() && ov->second.size() != shape.size())
        return Status::invalid(what + ": shape override " + shapeToString(ov->second) + " has rank " +
                               std::to_string(ov->second.size()) + ", the model says rank " +
                               std::to_string(shape.size()));
      shape = ov->second;
    } else if (!tt.has_shape()) {
      return Status::invalid(what + ": input has no shape; give one with an input-shape override")
          .withParameter("input_shapes");
    } else if (!dynamicDim.empty()) {
      return Status::invalid(what + ": " + dynamicDim + " is dynamic; give a static shape with an input-shape " +
                             "override")
          .withParameter("input_shapes");
    }
    OVal v;
    v.shape = shape;
    v.dtype = *onnxType;  // the ONNX type (int64 stays int64, like constants; the TOSA value is i32)
    if (readsOnlyMetadata(in.name())) {
      // Unread, or only its type or shape is read (CastLike's `like`, Shape, Size): not a run-time input of
      // the TOSA function, which needs no data from it (ONNX's bf16 CastLike test data even gives such an
      // input a shape other than the declared one).
      v.dtype = *onnxType;
      dropped_.push_back({in.name(), *onnxType, shape, inputUse(in.name()), nullptr});
      vals[in.name()] = std::move(v);
      continue;
    }
    argOnnxTypes_.push_back(*onnxType);
    if (!opts.keepNchwIo && shape.size() == 4 && isFloat(*dt))
      v.nhwc = b.input(ValueType::tensor(*dt, permuteShape(shape, kToNhwc)), in.name());
    else
      v.plain = b.input(ValueType::tensor(*dt, shape), in.name());
    vals[in.name()] = std::move(v);
  }
  return Status::ok();
}

// ---- the walk ----

// Lowers nodes in order. Unsupported nodes are recorded in `errors` (their outputs poisoned); a malformed
// model is returned as an error at once.
Status Importer::lowerNodes(const google::protobuf::RepeatedPtrField<NodeProto>& nodes) {
  const HandlerTable& table = handlers();
  for (int idx = 0; idx < nodes.size(); ++idx) {
    const NodeProto& n = nodes.Get(idx);
    loc = n.name();
    for (int o = 0; loc.empty() && o < n.output_size(); ++o) loc = n.output(o);
    if (loc.empty()) loc = n.op_type() + std::to_string(idx);
    if (foldedAway.count(&n)) continue;  // absorbed by a QDQ pattern lowered earlier
    const std::string label = "'" + loc + "' (" + n.op_type() + ")";
    bool poisoned = false;
    for (const auto& i : n.input()) {
      if (i.empty()) continue;
      auto it = vals.find(i);
      if (it == vals.end())
        return Status::parse(file + ": node " + label + " reads '" + i +
                             "', which no node, input or initializer defines (missing initializer?)");
      poisoned |= it->second.poisoned;
    }
    // Operator-level problems are reported even downstream of another unsupported node, so that one error
    // lists every node to implement; lowering problems only when the inputs are known.
    Status s;
    auto h = table.find(n.op_type());
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      s = Status::unsupported("operator domain '" + n.domain() + "' is not supported");
      errors.push_back(label + ": " + s.message());
    } else if (h == table.end()) {
      s = Status::unsupported("no lowering for this operator");
      errors.push_back(label + ": " + s.message());
    } else if (poisoned) {
      s = Status::unsupported("");  // the producer is already reported
    } else if (Status a = checkArity(n); !a.isOk()) {
      return a.withContext(file + ": node " + label);
    } else {
      const size_t firstOp = b.block().ops.size();
      badAttribute_.clear();
      // A lowering that reads an input the node does not have (an empty optional name, too few inputs) meets
      // std::out_of_range from val(): a malformed node, not a crash (onnx_fuzz finding).
      try {
        bool folded = false;
        if (opts.foldQdq && &nodes == &g.node()) {
          auto f = foldQdqPattern(*this, n);
          s = f ? Status::ok() : f.status();
          folded = f && *f;
        }
        if (s.isOk() && !folded) s = h->second(*this, n);
      } catch (const std::out_of_range&) {
        s = Status::invalid("reads an input or attribute the node does not have (missing or empty input name)");
      }
      if (!badAttribute_.empty()) s = Status::invalid(badAttribute_);
      if (!s.isOk() && s.code() != StatusCode::Unsupported && s.code() != StatusCode::InvalidArgument)
        return s.withContext(file + ": node " + label);
      // A malformed node (contradicting shapes, bad attributes) makes the model bad input; the other nodes
      // are still lowered so that one error names every problem.
      if (!s.isOk())
        (s.code() == StatusCode::InvalidArgument ? malformed : errors).push_back(label + ": " + s.message());
      else
        foldConstantNode(n, firstOp);
    }
    if (!s.isOk()) {
      for (const auto& o : n.output()) {
        OVal p;
        p.poisoned = true;
        vals[o] = p;
      }
      continue;
    }
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty() && !vals.count(n.output(i)))
        vals[n.output(i)].poisoned = true;  // an optional output we do not produce (e.g. MaxPool Indices)
  }

  return Status::ok();
}

// Counts the consumers of every value, subgraphs (If/Loop/Scan bodies) included.
static void countUses(const google::protobuf::RepeatedPtrField<NodeProto>& nodes, std::map<std::string, int>& uses) {
  for (const auto& n : nodes) {
    for (const auto& i : n.input()) uses[i]++;
    for (const auto& a : n.attribute()) {
      if (a.has_g()) countUses(a.g().node(), uses);
      for (const auto& sg : a.graphs()) countUses(sg.node(), uses);
    }
  }
}

Status Importer::lowerSynthetic(const NodeProto& n) {
  auto h = handlers().find(n.op_type());
  if (h == handlers().end()) return Status::internal("no handler for synthetic " + n.op_type());
  return h->second(*this, n);
}

Status Importer::inlineGraph(const ::onnx::GraphProto& body, const std::vector<OVal>& inputs,
                             std::vector<OVal>& outputs) {
  if (body.input_size() != int(inputs.size()))
    return Status::invalid("subgraph '" + body.name() + "' has " + std::to_string(body.input_size()) + " inputs, " +
                           std::to_string(inputs.size()) + " given");
  for (int i = 0; i < body.input_size(); ++i) vals[body.input(i).name()] = inputs[size_t(i)];
  for (const auto& init : body.initializer()) TK_RETURN_IF_ERROR(defineInitializer(init));
  const std::string outerLoc = loc;
  const size_t errorsBefore = errors.size();
  Status s = lowerNodes(body.node());
  loc = outerLoc;
  if (!s.isOk()) return s;
  if (errors.size() != errorsBefore) return Status::unsupported("");  // the body's nodes are reported already
  outputs.clear();
  for (const auto& o : body.output()) {
    auto it = vals.find(o.name());
    if (it == vals.end()) return Status::invalid("subgraph output '" + o.name() + "' is not defined");
    if (it->second.poisoned) return Status::unsupported("subgraph output '" + o.name() + "' is not supported");
    outputs.push_back(it->second);
  }
  return Status::ok();
}

void Importer::foldConstantNode(const NodeProto& n, size_t firstOp) {
  for (const auto& i : n.input())
    if (!i.empty() && !vals.at(i).isConst()) return;
  struct FoldOut {
    int index;
    Value* value;
    bool nhwc;
  };
  std::vector<FoldOut> outs;
  int64_t elements = 0;
  for (int i = 0; i < n.output_size(); ++i) {
    if (n.output(i).empty()) continue;
    const OVal& o = vals.at(n.output(i));
    if (o.poisoned || o.isConst() || (!o.plain && !o.nhwc)) continue;  // sequences stay at import
    outs.push_back({i, o.plain ? o.plain : o.nhwc, !o.plain});
    elements += numElements(o.shape);
  }
  constexpr int64_t kMaxFoldElements = int64_t(1) << 24;  // keeps import memory bounded
  if (outs.empty() || elements > kMaxFoldElements) return;

  // The node's ops; values they read from before firstOp must be constants, passed in as arguments.
  ir::Block& block = b.block();
  std::set<const ir::Operation*> range;
  for (size_t k = firstOp; k < block.ops.size(); ++k) {
    if (!block.ops[k]->regions.empty()) return;
    range.insert(block.ops[k].get());
  }
  std::vector<Value*> args;
  std::vector<Tensor> argValues;
  auto addExternal = [&](Value* v) {
    if (v->definingOp && range.count(v->definingOp)) return true;
    if (std::find(args.begin(), args.end(), v) != args.end()) return true;
    const ir::Operation* d = v->definingOp;
    if (!d || (d->name != "tosa.const" && d->name != "tosa.const_shape")) return false;
    const ir::Attribute* a = d->attr("values");
    if (!a || !a->tensor) return false;
    args.push_back(v);
    argValues.push_back(*a->tensor);
    return true;
  };
  for (size_t k = firstOp; k < block.ops.size(); ++k)
    for (Value* v : block.ops[k]->operands)
      if (!addExternal(v)) return;
  for (const auto& o : outs)
    if (!addExternal(o.value)) return;

  // Evaluate in a scratch function that borrows the ops; they go back when evaluation fails.
  ir::Function scratch;
  scratch.name = "fold";
  scratch.module = m.get();
  scratch.body.args = args;
  for (size_t k = firstOp; k < block.ops.size(); ++k) scratch.body.ops.push_back(std::move(block.ops[k]));
  block.ops.resize(firstOp);
  auto ret = std::make_unique<ir::Operation>();
  ret->name = "func.return";
  for (const auto& o : outs) ret->operands.push_back(o.value);
  scratch.body.ops.push_back(std::move(ret));
  if (!folder_) folder_ = createReferenceBackend();
  std::vector<Tensor> results;
  Status st = folder_->run(scratch, ir::TargetEnv::all(), argValues, results, nullptr);
  scratch.body.ops.pop_back();
  if (!st.isOk() || results.size() != outs.size()) {
    for (auto& op : scratch.body.ops) block.ops.push_back(std::move(op));
    return;
  }
  // The ops are gone: forget every cached materialization that pointed into them.
  for (auto& [name, o] : vals) {
    if (o.plain && range.count(o.plain->definingOp)) o.plain = nullptr;
    if (o.nhwc && range.count(o.nhwc->definingOp)) o.nhwc = nullptr;
  }
  for (auto it = convs.begin(); it != convs.end();)
    it = range.count(it->first->definingOp) ? convs.erase(it) : std::next(it);
  for (size_t k = 0; k < outs.size(); ++k) {
    const int i = outs[k].index;
    const DType onnxType = vals.at(n.output(i)).dtype;
    Tensor t = outs[k].nhwc ? permuteTensor(results[k], kToNchw) : std::move(results[k]);
    if (onnxType == DType::U8 && t.dtype() == DType::I8) {  // uint8 carried as i8 bits
      Tensor u(DType::U8, t.shape());
      for (int64_t e = 0; e < t.size(); ++e) u.setInt(e, t.getInt(e) & 0xFF);
      t = std::move(u);
    } else if (onnxType != t.dtype()) {
      t = castTensor(t, onnxType);
    }
    setConst(n, i, std::move(t));
  }
}

// The graph's declared output types and static dims must agree with what the graph computes (a model whose
// value_info contradicts its nodes is malformed). Skipped under input-shape overrides, which may change them.
Status Importer::checkDeclaredOutputs(const std::vector<std::string>& outputs) const {
  if (!opts.inputShapes.empty()) return Status::ok();
  for (const auto& o : g.output()) {
    if (std::find(outputs.begin(), outputs.end(), o.name()) == outputs.end() || !o.type().has_tensor_type()) continue;
    auto it = vals.find(o.name());
    if (it == vals.end() || it->second.poisoned || it->second.isSequence()) continue;
    const OVal& v = it->second;
    const auto& tt = o.type().tensor_type();
    const std::string what = file + ": graph output '" + o.name() + "'";
    if (tt.elem_type() != 0) {
      auto declared = dtypeFromOnnx(tt.elem_type(), what);
      // Compared as carried at run time (int64 values are i32 there, and lowerings may label them either way).
      if (declared && runtimeDType(*declared) != runtimeDType(v.dtype))
        return Status::invalid(what + " is declared " + std::string(dtypeName(*declared)) + " but the graph computes " +
                               std::string(dtypeName(v.dtype)));
    }
    if (!tt.has_shape()) continue;
    bool contradicts = tt.shape().dim_size() != int(v.shape.size());
    Shape declared;
    for (int d = 0; d < tt.shape().dim_size(); ++d) {
      const auto& dim = tt.shape().dim(d);
      const bool known = dim.has_dim_value() && dim.dim_value() > 0;
      declared.push_back(known ? dim.dim_value() : -1);
      contradicts |= known && d < int(v.shape.size()) && dim.dim_value() != v.shape[d];
    }
    if (contradicts)
      return Status::invalid(what + " is declared " + shapeToString(declared) + " but the graph computes " +
                             shapeToString(v.shape));
  }
  return Status::ok();
}

Result<std::unique_ptr<ir::Module>> Importer::run() {
  TK_RETURN_IF_ERROR(defineInitializers());
  TK_RETURN_IF_ERROR(defineInputs());
  std::vector<std::string> outputs = opts.outputNames;
  if (outputs.empty())
    for (const auto& o : g.output()) outputs.push_back(o.name());
  if (outputs.empty()) return Status::parse(file + ": the graph has no outputs");
  countUses(g.node(), uses);
  for (const auto& o : outputs) uses[o]++;
  for (const auto& n : g.node()) {
    for (const auto& i : n.input()) consumers[i].push_back(&n);
    for (const auto& o : n.output()) producers[o] = &n;
  }

  TK_RETURN_IF_ERROR(lowerNodes(g.node()));

  loc = "output";
  std::vector<Value*> results;
  for (const auto& o : outputs) {
    auto it = vals.find(o);
    if (it == vals.end()) return Status::invalid(file + ": output '" + o + "' is not a value of the graph");
    if (opts.qdqIntegerIo) it = integerOutput(*this, o, results.size());
    if (it->second.poisoned) {
      if (errors.empty() && malformed.empty())
        errors.push_back("output '" + o + "': produced by an optional output that is not supported");
      continue;
    }
    Layout l = !opts.keepNchwIo && it->second.shape.size() == 4 ? Layout::Nhwc : Layout::Plain;
    auto v = get(it->second, l);
    if (!v) {
      errors.push_back("output '" + o + "': " + v.status().message());
      continue;
    }
    results.push_back(*v);
  }
  auto joined = [](const std::vector<std::string>& list) {
    std::string msg;
    for (size_t i = 0; i < list.size(); ++i) msg += (i ? "; " : "") + list[i];
    return msg;
  };
  if (!malformed.empty())
    return Status::invalid(file + ": " + std::to_string(malformed.size()) + " malformed node(s): " + joined(malformed) +
                           (errors.empty() ? "" : "; and unsupported: " + joined(errors)));
  TK_RETURN_IF_ERROR(checkDeclaredOutputs(outputs));
  if (!errors.empty()) {
    std::string msg = file + ": " + std::to_string(errors.size()) + " unsupported node(s): ";
    for (size_t i = 0; i < errors.size(); ++i) msg += (i ? "; " : "") + errors[i];
    return Status::unsupported(msg);
  }
  b.output(results, outputs);
  recordIoTypes(outputs);
  if (opts.qdqIntegerIo) integerInputs(*this, b.function());
  if (foldedAny) removeDeadOps(b.block());
  return std::move(m);
}

Status Importer::unaryKeepLayout(const NodeProto& n, const std::function<Value*(Value*)>& f) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = get(x, l);
  if (!v) return v.status();
  Value* out = f(*v);
  out->definingOp->loc.name = loc;  // the op that yields the node's result carries the node name
  setValue(n, 0, out, l);
  return Status::ok();
}

const HandlerTable& Importer::handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    registerTensorOps(t);
    registerElementwiseOps(t);
    registerActivationOps(t);
    registerNormalizationOps(t);
    registerConvOps(t);
    registerPoolOps(t);
    registerMatmulOps(t);
    registerReduceOps(t);
    registerLossOps(t);
    registerResizeOps(t);
    registerDataMovementOps(t);
    registerQuantOps(t);
    registerRecurrentOps(t);
    registerControlFlowOps(t);
    registerSignalOps(t);
    registerSamplingOps(t);
    registerTextOps(t);
    registerSequenceOps(t);
    return t;
  }();
  return table;
}

namespace {

// ---- loading ----

// Every node input and graph output names a graph input, an initializer, an earlier node's output or (in a
// subgraph) an outer value. ONNX 1.12's version converter dereferences a null value otherwise (onnx_fuzz
// finding: an undefined graph output passes the checker and crashes ConvertVersion), so such models are not
// converted; the lowering reports the undefined name.
bool allValuesDefined(const ::onnx::GraphProto& g, std::set<std::string> defined) {
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& t : g.initializer()) defined.insert(t.name());
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !defined.count(i)) return false;
    for (const auto& a : n.attribute()) {
      if (a.has_g() && !allValuesDefined(a.g(), defined)) return false;
      for (const auto& sg : a.graphs())
        if (!allValuesDefined(sg, defined)) return false;
    }
    for (const auto& o : n.output()) defined.insert(o);
  }
  for (const auto& o : g.output())
    if (!defined.count(o.name())) return false;
  return true;
}

// ONNX 1.12's shape inference divides by `strides` and `dilations` and sizes by `kernel_shape`
// (convPoolShapeInference) and divides by `blocksize` (SpaceToDepth/DepthToSpace) without checking them; the
// checker does not look at attribute values. A zero stride in a hostile model raised SIGFPE inside libonnx
// (onnx_fuzz, tests/fuzz/regressions/onnx_conv_zero_stride.onnx), so these attributes must be positive in every
// node, subgraphs included, before the checker, the version converter or inference runs.
Status checkDivisorAttributes(const ::onnx::GraphProto& g, const std::string& name) {
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& n = g.node(i);
    for (const auto& a : n.attribute()) {
      const std::string& an = a.name();
      const bool divisor = an == "strides" || an == "dilations" || an == "kernel_shape" || an == "blocksize";
      std::vector<int64_t> values(a.ints().begin(), a.ints().end());
      if (an == "blocksize") values.assign(1, a.i());
      for (int64_t v : divisor ? values : std::vector<int64_t>{})
        if (v <= 0)
          return Status::parse(name + ": node " + (n.name().empty() ? "#" + std::to_string(i) : "'" + n.name() + "'") +
                               " (" + n.op_type() + "): attribute '" + an + "' must be positive, got " +
                               std::to_string(v));
      if (a.has_g()) TK_RETURN_IF_ERROR(checkDivisorAttributes(a.g(), name));
      for (const auto& sub : a.graphs()) TK_RETURN_IF_ERROR(checkDivisorAttributes(sub, name));
    }
  }
  return Status::ok();
}

}  // namespace

Result<::onnx::ModelProto> parseModel(const std::string& bytes, const std::string& name,
                                      const OnnxImportOptions& opts) {
  ::onnx::ModelProto model;
  if (bytes.empty()) return Status::parse(name + ": empty file");
  if (!model.ParseFromString(bytes))
    return Status::parse(name + ": not a valid ONNX model (truncated file or not a protobuf)");
  if (!model.has_graph() || model.ir_version() <= 0)
    return Status::parse(name + ": not an ONNX model (no graph or ir_version)");
  TK_RETURN_IF_ERROR(checkDivisorAttributes(model.graph(), name));  // before the checker, converter, inference
  int opset = 0;
  for (const auto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = int(o.version());
  // The checker of Debian's ONNX (1.12: IR 8, opset 17) rejects every newer model outright; such models are
  // imported unchecked (the lowerings read the newer operator forms they support).
  const bool checkable = model.ir_version() <= ::onnx::IR_VERSION && opset <= 17;
  if (opts.runChecker && checkable) {
    try {
      ::onnx::checker::check_model(model);
    } catch (const std::exception& e) {
      std::string what = e.what();
      for (char& ch : what)
        if (ch == '\n') ch = ' ';
      return Status::parse(name + ": ONNX checker: " + what);
    }
  }
  // Some converter adapters change meaning: Scan-8 -> 9 rewrites the graph's input shapes (drops the batch
  // axis); Hardmax-11 -> 13 keeps `axis` but drops the coercion to 2-D; PRelu-6 -> 7 keeps a [C] slope that
  // meant per-channel and now broadcasts against the last axis. Such models stay as they are (the
  // lowerings read those older forms directly).
  bool keepOpset = false;
  for (const auto& n : model.graph().node())
    keepOpset |= (n.op_type() == "Scan" && opset < 9) || (n.op_type() == "Hardmax" && opset < 13) ||
        (n.op_type() == "PRelu" && opset < 7);
  if (opts.convertOpset && opset > 0 && opset < 17 && !keepOpset && allValuesDefined(model.graph(), {})) {
    // The converter covers most ops; when it cannot convert, keep the original (the lowering handles the
    // older attribute forms of the ops it supports).
    try {
      ::onnx::ModelProto converted = ::onnx::version_conversion::ConvertVersion(model, 17);
      model = std::move(converted);
    } catch (const std::exception&) {}
  }
  // No ONNX shape inference: the lowerings compute every shape themselves, and ONNX 1.12's inference crashes on
  // hostile models the checker accepts (SIGFPE on a zero Conv stride, SEGV in propagateShape on an EyeLike with
  // a malformed type: docs/FUZZING.md findings 6 and 7).
  return model;
}

Result<std::unique_ptr<ir::Module>> importOnnxBytes(const std::string& bytes, const std::string& name,
                                                    const OnnxImportOptions& options) {
  auto model = parseModel(bytes, name, options);
  if (!model) return model.status();
  Importer imp(*model, name, options);
  auto module = imp.run();
  if (module && options.validateLevel) TK_RETURN_IF_ERROR(validateImportedModule(**module, name));
  return module;
}

Result<std::unique_ptr<ir::Module>> importOnnx(const std::string& path, const OnnxImportOptions& options) {
  auto bytes = readFileBytes(path);
  if (!bytes) return bytes.status();
  return importOnnxBytes(*bytes, path, options);
}

}  // namespace tosakit::onnx
