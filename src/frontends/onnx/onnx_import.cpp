// ONNX -> TOSA import. Structure:
//   1. load the ModelProto, run the checker, shape inference and (for old opsets) the version converter;
//   2. walk the nodes in order; every ONNX value becomes an OVal: either a constant known at import time
//      (initializers, Constant, and Shape/Cast/Slice/Concat/Gather/Reshape/... chains over them are folded
//      here) or a TOSA value, stored in the logical ONNX layout ("plain") and/or NHWC (rank 4 only);
//   3. each node is lowered by one handler (kHandlers below); an unsupported node records an error and
//      poisons its outputs so that every offending node is reported in one error.
// Layout: conv/pool produce NHWC values; elementwise ops, BatchNormalization and Concat keep whatever layout
// their inputs have; ops that need the logical layout (Reshape, Flatten, Gemm, ...) ask for "plain" and get a
// transpose (or a reshape when only size-1 dims move). So a CNN has transposes only at the graph boundary.
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>

#include "frontends/onnx/onnx_internal.h"
#include "ir/builder.h"

namespace tosakit::onnx {
namespace {

using ir::Value;
using ir::ValueType;
using NodeProto = ::onnx::NodeProto;

enum class Layout { Plain, Nhwc };

// NCHW logical axis -> position in an NHWC stored tensor.
constexpr int64_t kNhwcPos[4] = {0, 3, 1, 2};
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

struct OVal {
  Shape shape;  // logical ONNX shape
  DType dtype = DType::FP32;
  std::shared_ptr<const Tensor> c;  // known at import time
  Value* plain = nullptr;
  Value* nhwc = nullptr;
  bool poisoned = false;  // produced by an unsupported node
  bool isConst() const { return c != nullptr; }
  bool prefersNhwc() const { return !c && nhwc && !plain; }
};

// ---- small tensor helpers (constant folding works on logical-layout tensors) ----

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
    if (isFloat(to)) out.setFloat(i, t.getFloat(i));
    else if (isFloat(t.dtype())) out.setInt(i, int64_t(std::trunc(t.getFloat(i))));
    else out.setInt(i, t.getInt(i));
  }
  return out;
}

int64_t normAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// ---- the importer ----

class Importer {
 public:
  Importer(const ::onnx::ModelProto& model, const std::string& file, const OnnxImportOptions& opts)
      : g_(model.graph()), file_(file), opts_(opts), m_(std::make_unique<ir::Module>()),
        b_(*m_, opts.functionName) {
    for (const auto& o : model.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = int(o.version());
  }

  Result<std::unique_ptr<ir::Module>> run();

 private:
  using Handler = Status (Importer::*)(const NodeProto&);
  static const std::map<std::string, Handler>& handlers();

  // -- values --
  Status defineInputs();
  Status defineInitializers();
  Status checkArity(const NodeProto& n) const;
  OVal& val(const NodeProto& n, int i) { return vals_.at(n.input(i)); }
  bool hasInput(const NodeProto& n, int i) const { return n.input_size() > i && !n.input(i).empty(); }
  void setOut(const NodeProto& n, int i, OVal v) { vals_[n.output(i)] = std::move(v); }
  void setConst(const NodeProto& n, int i, Tensor t) {
    OVal v;
    v.shape = t.shape();
    v.dtype = t.dtype();
    v.c = std::make_shared<const Tensor>(std::move(t));
    setOut(n, i, std::move(v));
  }
  void setValue(const NodeProto& n, int i, Value* v, Layout layout) {
    OVal o;
    o.dtype = v->type.dtype;
    if (layout == Layout::Nhwc) {
      o.shape = permuteShape(v->type.dims, kToNchw);
      o.nhwc = v;
    } else {
      o.shape = v->type.dims;
      o.plain = v;
    }
    setOut(n, i, std::move(o));
  }
  Result<Value*> get(OVal& v, Layout layout);
  Result<Value*> getAsRank(OVal& v, size_t rank, Layout layout);
  Result<Value*> relayout(Value* x, const std::vector<int64_t>& perms);
  Value* constF(Tensor t) { return b_.constant(std::move(t), aux("const")); }
  Value* scalarF(float v, size_t rank) {
    Tensor t(DType::FP32, Shape(rank, 1));
    t.setFloat(0, v);
    return constF(std::move(t));
  }
  std::string aux(const std::string& what) const { return loc_ + "/" + what; }

  // -- helpers for handlers --
  Result<const Tensor*> constInput(const NodeProto& n, int i, const char* what);
  Status requireFloat(const NodeProto& n, const OVal& v) const;
  const ::onnx::AttributeProto* attr(const NodeProto& n, const std::string& name) const {
    for (const auto& a : n.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attrInt(const NodeProto& n, const std::string& name, int64_t def) const {
    auto* a = attr(n, name);
    return a ? a->i() : def;
  }
  float attrFloat(const NodeProto& n, const std::string& name, float def) const {
    auto* a = attr(n, name);
    return a ? a->f() : def;
  }
  std::string attrStr(const NodeProto& n, const std::string& name, const std::string& def) const {
    auto* a = attr(n, name);
    return a ? a->s() : def;
  }
  std::optional<std::vector<int64_t>> attrInts(const NodeProto& n, const std::string& name) const {
    auto* a = attr(n, name);
    if (!a) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }
  // Axes from the attribute (older opsets) or the constant input i (newer ones).
  Result<std::optional<std::vector<int64_t>>> axesOf(const NodeProto& n, int inputIndex);

  Value* unary(const std::string& op, Value* x, std::map<std::string, ir::Attribute> attrs = {}) {
    return b_.op1(op, {x}, x->type, std::move(attrs), aux(op.substr(5)));
  }
  Value* binary(const std::string& op, Value* a, Value* c, DType resultType = DType::FP32) {
    auto s = ir::broadcastShape(a->type.dims, c->type.dims);
    return b_.op1(op, {a, c}, ValueType::tensor(resultType, *s), {}, aux(op.substr(5)));
  }
  Value* mul(Value* a, Value* c) { return b_.mul(a, c, 0, aux("mul")); }
  Value* clampF(Value* x, double lo, double hi) {
    return b_.op1("tosa.clamp", {x}, x->type,
                  {{"min_val", ir::Attribute::floating(lo, DType::FP32)},
                   {"max_val", ir::Attribute::floating(hi, DType::FP32)}},
                  aux("clamp"));
  }
  // Unary elementwise: keeps the input's layout.
  Status unaryKeepLayout(const NodeProto& n, const std::function<Value*(Value*)>& f);
  Status binaryOp(const NodeProto& n, char op);
  Status conv2dImpl(const NodeProto& n, Value* x, const Tensor& w, const Tensor* bias, int64_t group,
                    std::vector<int64_t> pads, std::vector<int64_t> strides, std::vector<int64_t> dil);
  Status poolImpl(const NodeProto& n, bool isMax);
  Result<Value*> sliceNhwc(Value* x, const Shape& start, const Shape& size) {
    Value* st = b_.constShape(start, aux("start"));
    Value* sz = b_.constShape(size, aux("size"));
    return b_.op1("tosa.slice", {x, st, sz}, ValueType::tensor(x->type.dtype, size), {}, aux("slice"));
  }
  Value* reshapeTo(Value* x, const Shape& s, const std::string& name) {
    if (x->type.dims == s) return x;
    return b_.reshape(x, s, name);
  }
  Value* matmul3(Value* a, Value* c);  // rank-3 float matmul with zero points

  // -- handlers --
  Status opConstant(const NodeProto& n);
  Status opIdentity(const NodeProto& n);
  Status opShape(const NodeProto& n);
  Status opCast(const NodeProto& n);
  Status opConstantOfShape(const NodeProto& n);
  Status opGather(const NodeProto& n);
  Status opSlice(const NodeProto& n);
  Status opConcat(const NodeProto& n);
  Status opReshape(const NodeProto& n);
  Status opFlatten(const NodeProto& n);
  Status opSqueeze(const NodeProto& n);
  Status opUnsqueeze(const NodeProto& n);
  Status opTranspose(const NodeProto& n);
  Status opAdd(const NodeProto& n) { return binaryOp(n, '+'); }
  Status opSub(const NodeProto& n) { return binaryOp(n, '-'); }
  Status opMul(const NodeProto& n) { return binaryOp(n, '*'); }
  Status opDiv(const NodeProto& n) { return binaryOp(n, '/'); }
  Status opRelu(const NodeProto& n);
  Status opClip(const NodeProto& n);
  Status opLeakyRelu(const NodeProto& n);
  Status opSigmoid(const NodeProto& n);
  Status opHardSigmoid(const NodeProto& n);
  Status opHardSwish(const NodeProto& n);
  Status opTanh(const NodeProto& n);
  Status opConv(const NodeProto& n);
  Status opBatchNorm(const NodeProto& n);
  Status opMaxPool(const NodeProto& n) { return poolImpl(n, true); }
  Status opAveragePool(const NodeProto& n) { return poolImpl(n, false); }
  Status opGlobalAveragePool(const NodeProto& n);
  Status opGemm(const NodeProto& n);
  Status opMatMul(const NodeProto& n);
  Status opSoftmax(const NodeProto& n);
  Status opReduce(const NodeProto& n);
  Status opConvTranspose(const NodeProto& n);
  Status opResize(const NodeProto& n);
  Status opPow(const NodeProto& n);
  Status opSqrt(const NodeProto& n);

  // A conv whose weight/bias constants a following BatchNormalization may rewrite in place.
  struct ConvInfo {
    ir::Operation* weightConst;
    ir::Operation* biasConst;
    bool depthwise;
  };

  const ::onnx::GraphProto& g_;
  std::string file_;
  const OnnxImportOptions& opts_;
  int opset_ = 1;
  std::unique_ptr<ir::Module> m_;
  ir::Builder b_;
  std::map<std::string, OVal> vals_;
  std::map<std::string, int> uses_;  // consumers of each value (graph outputs count)
  std::map<Value*, ConvInfo> convs_;
  std::string loc_;
  std::vector<std::string> errors_;
};

// ---- value materialization ----

Result<Value*> Importer::relayout(Value* x, const std::vector<int64_t>& perms) {
  // A transpose that only moves size-1 dims keeps the row-major order: a reshape is enough.
  const Shape& s = x->type.dims;
  std::vector<int64_t> nonUnit;
  for (int64_t p : perms)
    if (s[size_t(p)] != 1) nonUnit.push_back(p);
  bool ordered = std::is_sorted(nonUnit.begin(), nonUnit.end());
  if (ordered) return b_.reshape(x, permuteShape(s, perms), aux("reshape"));
  return b_.transpose(x, perms, aux("transpose"));
}

Result<Value*> Importer::get(OVal& v, Layout layout) {
  if (v.poisoned) return Status::internal("use of a poisoned value");
  if (layout == Layout::Nhwc && v.shape.size() != 4) return Status::internal("NHWC requested for a non-rank-4 value");
  if (v.isConst()) {
    if (v.dtype != DType::FP32)
      return Status::unsupported("a " + std::string(dtypeName(v.dtype)) +
                                 " constant is used as a run-time tensor (only float32 is supported)");
    if (layout == Layout::Plain) {
      if (!v.plain) v.plain = constF(*v.c);
      return v.plain;
    }
    if (!v.nhwc) v.nhwc = constF(permuteTensor(*v.c, kToNhwc));
    return v.nhwc;
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
  Value* r = b_.reshape(*x, s, aux("reshape"));
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
      {"Constant", 0}, {"Add", 2}, {"Sub", 2}, {"Mul", 2}, {"Div", 2}, {"Pow", 2}, {"Gemm", 2}, {"MatMul", 2},
      {"Conv", 2}, {"ConvTranspose", 2}, {"BatchNormalization", 5}, {"Gather", 2}, {"Slice", 1}};
  auto it = kMinInputs.find(n.op_type());
  const int need = it == kMinInputs.end() ? 1 : it->second;
  if (n.input_size() < need) return Status::parse("needs at least " + std::to_string(need) + " input(s)");
  for (int i = 0; i < need; ++i)
    if (n.input(i).empty()) return Status::parse("required input " + std::to_string(i) + " is missing");
  if (n.output_size() < 1 || n.output(0).empty()) return Status::parse("has no output");
  return Status::ok();
}

// Spatial attribute lists must have one value per spatial axis (two, or four for pads) and be positive
// (strides, dilations, kernel) or non-negative (pads).
static Status checkSpatial(const std::vector<int64_t>& v, size_t count, int64_t min, const char* name) {
  if (v.size() != count)
    return Status::invalid(std::string(name) + " must have " + std::to_string(count) + " values (2-D)");
  for (int64_t x : v)
    if (x < min) return Status::invalid(std::string(name) + " value " + std::to_string(x) + " is out of range");
  return Status::ok();
}

// ---- model inputs ----

Status Importer::defineInitializers() {
  for (const auto& init : g_.initializer()) {
    auto t = tensorFromProto(init, file_ + ": initializer '" + init.name() + "'");
    if (!t) return t.status();
    OVal v;
    v.shape = t->shape();
    v.dtype = t->dtype();
    v.c = std::make_shared<const Tensor>(std::move(*t));
    vals_[init.name()] = std::move(v);
  }
  return Status::ok();
}

Status Importer::defineInputs() {
  // Options naming inputs the graph does not have are mistakes: report them before anything else.
  for (const auto& [name, t] : opts_.bindInputs) {
    bool found = false;
    for (const auto& in : g_.input()) found |= in.name() == name;
    if (!found) return Status::invalid(file_ + ": bound input '" + name + "' is not a graph input");
  }
  for (const auto& [name, s] : opts_.inputShapes) {
    bool found = false;
    for (const auto& in : g_.input()) found |= in.name() == name;
    if (!found) return Status::invalid(file_ + ": input-shape override for '" + name + "', which is not a graph input");
  }
  for (const auto& in : g_.input()) {
    if (vals_.count(in.name())) continue;  // IR < 4 lists initializers as inputs too
    const std::string what = file_ + ": input '" + in.name() + "'";
    auto bound = opts_.bindInputs.find(in.name());
    if (bound != opts_.bindInputs.end()) {
      OVal v;
      v.shape = bound->second.shape();
      v.dtype = bound->second.dtype();
      v.c = std::make_shared<const Tensor>(bound->second);
      vals_[in.name()] = std::move(v);
      continue;
    }
    if (!in.type().has_tensor_type()) return Status::unsupported(what + ": only tensor inputs are supported");
    const auto& tt = in.type().tensor_type();
    auto dt = dtypeFromOnnx(tt.elem_type(), what);
    if (!dt) return dt.status();
    Shape shape;
    std::string dynamicDim;  // first dynamic dim other than the batch dim, for the message
    for (const auto& d : tt.shape().dim()) {
      bool known = d.has_dim_value() && d.dim_value() > 0;
      if (!known && !shape.empty() && dynamicDim.empty())
        dynamicDim = "dim " + std::to_string(shape.size()) + (d.has_dim_param() ? " ('" + d.dim_param() + "')" : "");
      shape.push_back(known ? d.dim_value() : 1);  // a dynamic batch dim defaults to 1
    }
    auto ov = opts_.inputShapes.find(in.name());
    if (ov != opts_.inputShapes.end()) {
      if (tt.has_shape() && ov->second.size() != shape.size())
        return Status::invalid(what + ": shape override " + shapeToString(ov->second) + " has rank " +
                               std::to_string(ov->second.size()) + ", the model says rank " +
                               std::to_string(shape.size()));
      shape = ov->second;
    } else if (!tt.has_shape()) {
      return Status::invalid(what + ": input has no shape; give one with an input-shape override");
    } else if (!dynamicDim.empty()) {
      return Status::invalid(what + ": " + dynamicDim + " is dynamic; give a static shape with an input-shape " +
                             "override (tosakit import --input-shape " + in.name() + "=...)");
    }
    OVal v;
    v.shape = shape;
    v.dtype = *dt;
    if (!opts_.keepNchwIo && shape.size() == 4 && isFloat(*dt))
      v.nhwc = b_.input(ValueType::tensor(*dt, permuteShape(shape, kToNhwc)), in.name());
    else
      v.plain = b_.input(ValueType::tensor(*dt, shape), in.name());
    vals_[in.name()] = std::move(v);
  }
  return Status::ok();
}

// ---- the walk ----

Result<std::unique_ptr<ir::Module>> Importer::run() {
  TK_RETURN_IF_ERROR(defineInitializers());
  TK_RETURN_IF_ERROR(defineInputs());
  std::vector<std::string> outputs = opts_.outputNames;
  if (outputs.empty())
    for (const auto& o : g_.output()) outputs.push_back(o.name());
  if (outputs.empty()) return Status::parse(file_ + ": the graph has no outputs");
  for (const auto& n : g_.node())
    for (const auto& i : n.input()) uses_[i]++;
  for (const auto& o : outputs) uses_[o]++;

  const auto& table = handlers();
  for (int idx = 0; idx < g_.node_size(); ++idx) {
    const NodeProto& n = g_.node(idx);
    loc_ = !n.name().empty() ? n.name() : (n.output_size() ? n.output(0) : n.op_type() + std::to_string(idx));
    const std::string label = "'" + loc_ + "' (" + n.op_type() + ")";
    bool poisoned = false;
    for (const auto& i : n.input()) {
      if (i.empty()) continue;
      auto it = vals_.find(i);
      if (it == vals_.end())
        return Status::parse(file_ + ": node " + label + " reads '" + i +
                             "', which no node, input or initializer defines (missing initializer?)");
      poisoned |= it->second.poisoned;
    }
    // Operator-level problems are reported even downstream of another unsupported node, so that one error
    // lists every node to implement; lowering problems only when the inputs are known.
    Status s;
    auto h = table.find(n.op_type());
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
      s = Status::unsupported("operator domain '" + n.domain() + "' is not supported");
      errors_.push_back(label + ": " + s.message());
    } else if (h == table.end()) {
      s = Status::unsupported("no lowering for this operator");
      errors_.push_back(label + ": " + s.message());
    } else if (poisoned) {
      s = Status::unsupported("");  // the producer is already reported
    } else if (Status a = checkArity(n); !a.isOk()) {
      return a.withContext(file_ + ": node " + label);
    } else {
      s = (this->*(h->second))(n);
      if (!s.isOk() && s.code() != StatusCode::Unsupported && s.code() != StatusCode::InvalidArgument)
        return s.withContext(file_ + ": node " + label);
      if (!s.isOk()) errors_.push_back(label + ": " + s.message());
    }
    if (!s.isOk()) {
      for (const auto& o : n.output()) {
        OVal p;
        p.poisoned = true;
        vals_[o] = p;
      }
      continue;
    }
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty() && !vals_.count(n.output(i)))
        vals_[n.output(i)].poisoned = true;  // an optional output we do not produce (e.g. MaxPool Indices)
  }

  loc_ = "output";
  std::vector<Value*> results;
  for (const auto& o : outputs) {
    auto it = vals_.find(o);
    if (it == vals_.end()) return Status::invalid(file_ + ": output '" + o + "' is not a value of the graph");
    if (it->second.poisoned) {
      if (errors_.empty()) errors_.push_back("output '" + o + "': produced by an optional output that is not supported");
      continue;
    }
    Layout l = !opts_.keepNchwIo && it->second.shape.size() == 4 ? Layout::Nhwc : Layout::Plain;
    auto v = get(it->second, l);
    if (!v) {
      errors_.push_back("output '" + o + "': " + v.status().message());
      continue;
    }
    results.push_back(*v);
  }
  if (!errors_.empty()) {
    std::string msg = file_ + ": " + std::to_string(errors_.size()) + " unsupported node(s): ";
    for (size_t i = 0; i < errors_.size(); ++i) msg += (i ? "; " : "") + errors_[i];
    return Status::unsupported(msg);
  }
  b_.output(results, outputs);
  return std::move(m_);
}

const std::map<std::string, Importer::Handler>& Importer::handlers() {
  static const std::map<std::string, Handler> h = {
      {"Constant", &Importer::opConstant},
      {"Identity", &Importer::opIdentity},
      {"Dropout", &Importer::opIdentity},
      {"Shape", &Importer::opShape},
      {"Cast", &Importer::opCast},
      {"ConstantOfShape", &Importer::opConstantOfShape},
      {"Gather", &Importer::opGather},
      {"Slice", &Importer::opSlice},
      {"Concat", &Importer::opConcat},
      {"Reshape", &Importer::opReshape},
      {"Flatten", &Importer::opFlatten},
      {"Squeeze", &Importer::opSqueeze},
      {"Unsqueeze", &Importer::opUnsqueeze},
      {"Transpose", &Importer::opTranspose},
      {"Add", &Importer::opAdd},
      {"Sub", &Importer::opSub},
      {"Mul", &Importer::opMul},
      {"Div", &Importer::opDiv},
      {"Relu", &Importer::opRelu},
      {"Clip", &Importer::opClip},
      {"LeakyRelu", &Importer::opLeakyRelu},
      {"Sigmoid", &Importer::opSigmoid},
      {"HardSigmoid", &Importer::opHardSigmoid},
      {"HardSwish", &Importer::opHardSwish},
      {"Tanh", &Importer::opTanh},
      {"Conv", &Importer::opConv},
      {"BatchNormalization", &Importer::opBatchNorm},
      {"MaxPool", &Importer::opMaxPool},
      {"AveragePool", &Importer::opAveragePool},
      {"GlobalAveragePool", &Importer::opGlobalAveragePool},
      {"Gemm", &Importer::opGemm},
      {"MatMul", &Importer::opMatMul},
      {"Softmax", &Importer::opSoftmax},
      {"ReduceMean", &Importer::opReduce},
      {"ConvTranspose", &Importer::opConvTranspose},
      {"Resize", &Importer::opResize},
      {"ReduceSum", &Importer::opReduce},
      {"ReduceMax", &Importer::opReduce},
      {"Pow", &Importer::opPow},
      {"Sqrt", &Importer::opSqrt},
  };
  return h;
}

// ---- folding / shape ops ----

Status Importer::opConstant(const NodeProto& n) {
  if (auto* a = attr(n, "value")) {
    auto t = tensorFromProto(a->t(), "Constant value");
    if (!t) return t.status();
    setConst(n, 0, std::move(*t));
  } else if (auto* f = attr(n, "value_float")) {
    setConst(n, 0, Tensor::fromDoubles(DType::FP32, {}, {f->f()}));
  } else if (auto* fs = attr(n, "value_floats")) {
    std::vector<double> v(fs->floats().begin(), fs->floats().end());
    setConst(n, 0, Tensor::fromDoubles(DType::FP32, {int64_t(v.size())}, v));
  } else if (auto* i = attr(n, "value_int")) {
    setConst(n, 0, Tensor::fromInts(DType::I64, {}, {i->i()}));
  } else if (auto* is = attr(n, "value_ints")) {
    std::vector<int64_t> v(is->ints().begin(), is->ints().end());
    setConst(n, 0, Tensor::fromInts(DType::I64, {int64_t(v.size())}, v));
  } else {
    return Status::unsupported("Constant without a value/value_float(s)/value_int(s) attribute");
  }
  return Status::ok();
}

Status Importer::opIdentity(const NodeProto& n) {
  if (n.op_type() == "Dropout" && n.output_size() > 1 && !n.output(1).empty())
    return Status::unsupported("Dropout mask output");
  vals_[n.output(0)] = val(n, 0);
  return Status::ok();
}

Status Importer::opShape(const NodeProto& n) {
  const Shape& s = val(n, 0).shape;
  int64_t r = int64_t(s.size());
  int64_t start = normAxis(attrInt(n, "start", 0), r), end = normAxis(attrInt(n, "end", r), r);
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> v;
  for (int64_t i = start; i < end; ++i) v.push_back(s[size_t(i)]);
  setConst(n, 0, Tensor::fromInts(DType::I64, {int64_t(v.size())}, v));
  return Status::ok();
}

Status Importer::opCast(const NodeProto& n) {
  auto to = dtypeFromOnnx(int32_t(attrInt(n, "to", 0)), "Cast 'to'");
  if (!to) return to.status();
  OVal& x = val(n, 0);
  if (x.isConst()) {
    setConst(n, 0, castTensor(*x.c, *to));
    return Status::ok();
  }
  if (*to != x.dtype) return Status::unsupported("run-time Cast to " + std::string(dtypeName(*to)));
  vals_[n.output(0)] = x;
  return Status::ok();
}

Status Importer::opConstantOfShape(const NodeProto& n) {
  auto s = constInput(n, 0, "shape");
  if (!s) return s.status();
  Tensor fill = Tensor::fromDoubles(DType::FP32, {1}, {0.0});
  if (auto* a = attr(n, "value")) {
    auto t = tensorFromProto(a->t(), "ConstantOfShape value");
    if (!t) return t.status();
    fill = std::move(*t);
  }
  Tensor out(fill.dtype(), (*s)->toInts());
  for (int64_t i = 0; i < out.size(); ++i) {
    if (isFloat(fill.dtype())) out.setFloat(i, fill.getFloat(0));
    else out.setInt(i, fill.getInt(0));
  }
  setConst(n, 0, std::move(out));
  return Status::ok();
}

Status Importer::opGather(const NodeProto& n) {
  auto data = constInput(n, 0, "data (run-time Gather is not supported yet)");
  if (!data) return data.status();
  auto idx = constInput(n, 1, "indices");
  if (!idx) return idx.status();
  const Tensor &d = **data, &ix = **idx;
  const Shape& ds = d.shape();
  int64_t axis = normAxis(attrInt(n, "axis", 0), int64_t(ds.size()));
  if (axis < 0 || axis >= int64_t(ds.size())) return Status::invalid("Gather axis out of range");
  int64_t outer = 1, inner = 1, dim = ds[size_t(axis)];
  for (int64_t i = 0; i < axis; ++i) outer *= ds[size_t(i)];
  for (size_t i = size_t(axis) + 1; i < ds.size(); ++i) inner *= ds[i];
  Shape os(ds.begin(), ds.begin() + axis);
  for (int64_t v : ix.shape()) os.push_back(v);
  os.insert(os.end(), ds.begin() + axis + 1, ds.end());
  Tensor out(d.dtype(), os);
  const size_t es = storageBytes(d.dtype());
  int64_t o = 0;
  for (int64_t l = 0; l < outer; ++l)
    for (int64_t k = 0; k < ix.size(); ++k) {
      int64_t j = ix.getInt(k);
      if (j < 0) j += dim;
      if (j < 0 || j >= dim) return Status::invalid("Gather index " + std::to_string(ix.getInt(k)) + " out of range");
      std::memcpy(out.data() + size_t(o) * es, d.data() + size_t((l * dim + j) * inner) * es, size_t(inner) * es);
      o += inner;
    }
  setConst(n, 0, std::move(out));
  return Status::ok();
}

Status Importer::opSlice(const NodeProto& n) {
  OVal& x = val(n, 0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (opset_ < 10) {
    starts = attrInts(n, "starts").value_or(std::vector<int64_t>{});
    ends = attrInts(n, "ends").value_or(std::vector<int64_t>{});
    axes = attrInts(n, "axes").value_or(std::vector<int64_t>{});
  } else {
    auto s = constInput(n, 1, "starts");
    if (!s) return s.status();
    auto e = constInput(n, 2, "ends");
    if (!e) return e.status();
    starts = (*s)->toInts();
    ends = (*e)->toInts();
    if (hasInput(n, 3)) {
      auto a = constInput(n, 3, "axes");
      if (!a) return a.status();
      axes = (*a)->toInts();
    }
    if (hasInput(n, 4)) {
      auto st = constInput(n, 4, "steps");
      if (!st) return st.status();
      steps = (*st)->toInts();
    }
  }
  const int64_t rank = int64_t(x.shape.size());
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return Status::invalid("Slice starts/ends/axes/steps lengths differ");
  Shape begin(size_t(rank), 0), size = x.shape, step(size_t(rank), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = normAxis(axes[i], rank);
    if (a < 0 || a >= rank) return Status::invalid("Slice axis out of range");
    int64_t dim = x.shape[size_t(a)], st = steps[i];
    if (st == 0) return Status::invalid("Slice step 0");
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size[size_t(a)] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size[size_t(a)] = s > e ? (s - e + (-st) - 1) / (-st) : 0;
    }
    begin[size_t(a)] = s;
    step[size_t(a)] = st;
  }
  if (x.isConst()) {
    const Tensor& t = *x.c;
    Tensor out(t.dtype(), size);
    const size_t es = storageBytes(t.dtype());
    std::vector<int64_t> idx(size_t(rank), 0);
    std::vector<int64_t> src(size_t(rank), 0);
    for (int64_t o = 0; o < out.size(); ++o) {
      for (size_t d = 0; d < size_t(rank); ++d) src[d] = begin[d] + idx[d] * step[d];
      std::memcpy(out.data() + size_t(o) * es, t.data() + size_t(t.offset(src)) * es, es);
      for (size_t d = size_t(rank); d-- > 0;) {
        if (++idx[d] < size[d]) break;
        idx[d] = 0;
      }
    }
    setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  for (int64_t s : step)
    if (s != 1) return Status::unsupported("run-time Slice with steps other than 1");
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = get(x, l);
  if (!v) return v.status();
  if (l == Layout::Nhwc) {
    begin = permuteShape(begin, kToNhwc);
    size = permuteShape(size, kToNhwc);
  }
  Value* st = b_.constShape(begin, aux("start"));
  Value* sz = b_.constShape(size, aux("size"));
  setValue(n, 0, b_.op1("tosa.slice", {*v, st, sz}, ValueType::tensor(DType::FP32, size), {}, loc_), l);
  return Status::ok();
}

Status Importer::opConcat(const NodeProto& n) {
  const int64_t rank = int64_t(val(n, 0).shape.size());
  int64_t axis = normAxis(attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid("Concat axis out of range");
  bool allConst = true, anyNhwc = false;
  Shape outShape = val(n, 0).shape;
  outShape[size_t(axis)] = 0;
  for (int i = 0; i < n.input_size(); ++i) {
    OVal& v = val(n, i);
    if (int64_t(v.shape.size()) != rank) return Status::invalid("Concat inputs differ in rank");
    allConst &= v.isConst();
    anyNhwc |= v.prefersNhwc();
    outShape[size_t(axis)] += v.shape[size_t(axis)];
  }
  if (allConst) {
    DType dt = val(n, 0).dtype;
    Tensor out(dt, outShape);
    const size_t es = storageBytes(dt);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= outShape[size_t(d)];
    size_t off = 0;
    for (int64_t l = 0; l < outer; ++l)
      for (int i = 0; i < n.input_size(); ++i) {
        const Tensor& t = *val(n, i).c;
        size_t chunk = size_t(t.size() / std::max<int64_t>(outer, 1)) * es;
        std::memcpy(out.data() + off, t.data() + size_t(l) * chunk, chunk);
        off += chunk;
      }
    setConst(n, 0, std::move(out));
    return Status::ok();
  }
  Layout l = anyNhwc && rank == 4 ? Layout::Nhwc : Layout::Plain;
  std::vector<Value*> ins;
  for (int i = 0; i < n.input_size(); ++i) {
    TK_RETURN_IF_ERROR(requireFloat(n, val(n, i)));
    auto v = get(val(n, i), l);
    if (!v) return v.status();
    ins.push_back(*v);
  }
  int64_t tosaAxis = l == Layout::Nhwc ? kNhwcPos[axis] : axis;
  Shape tosaShape = l == Layout::Nhwc ? permuteShape(outShape, kToNhwc) : outShape;
  setValue(n, 0,
           b_.op1("tosa.concat", ins, ValueType::tensor(DType::FP32, tosaShape),
                  {{"axis", ir::Attribute::integer(tosaAxis, DType::I32)}}, loc_),
           l);
  return Status::ok();
}

// Reshape-like ops: the new logical shape, then either a folded constant or a tosa.reshape in plain layout.
static Status reshapeLike(OVal& x, const Shape& newShape,
                          const std::function<void(Tensor)>& setC,
                          const std::function<Status(const Shape&)>& emit) {
  int64_t count = 1;
  for (int64_t d : newShape) count *= d;
  if (count != numElements(x.shape))
    return Status::invalid("cannot reshape " + shapeToString(x.shape) + " to " + shapeToString(newShape));
  if (x.isConst()) {
    setC(reshapeTensor(*x.c, newShape));
    return Status::ok();
  }
  return emit(newShape);
}

Status Importer::opReshape(const NodeProto& n) {
  OVal& x = val(n, 0);
  std::vector<int64_t> target;
  if (opset_ < 5) {
    target = attrInts(n, "shape").value_or(std::vector<int64_t>{});
  } else {
    auto s = constInput(n, 1, "shape");
    if (!s) return s.status();
    target = (*s)->toInts();
  }
  const bool allowZero = attrInt(n, "allowzero", 0) != 0;
  Shape out;
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowZero) {
      if (i >= x.shape.size()) return Status::invalid("Reshape 0 at an axis the input does not have");
      d = x.shape[i];
    }
    if (d == -1) {
      if (inferAt >= 0) return Status::invalid("Reshape with more than one -1");
      inferAt = int64_t(i);
      out.push_back(1);
      continue;
    }
    known *= d;
    out.push_back(d);
  }
  if (inferAt >= 0) out[size_t(inferAt)] = known ? numElements(x.shape) / known : 0;
  return reshapeLike(x, out, [&](Tensor t) { setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(requireFloat(n, x));
                       auto v = get(x, Layout::Plain);
                       if (!v) return v.status();
                       setValue(n, 0, b_.reshape(*v, s, loc_), Layout::Plain);
                       return Status::ok();
                     });
}

Status Importer::opFlatten(const NodeProto& n) {
  OVal& x = val(n, 0);
  int64_t r = int64_t(x.shape.size());
  int64_t axis = normAxis(attrInt(n, "axis", 1), r);
  if (axis < 0 || axis > r) return Status::invalid("Flatten axis out of range");
  int64_t a = 1, c = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= x.shape[size_t(i)];
  return reshapeLike(x, {a, c}, [&](Tensor t) { setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(requireFloat(n, x));
                       auto v = get(x, Layout::Plain);
                       if (!v) return v.status();
                       setValue(n, 0, b_.reshape(*v, s, loc_), Layout::Plain);
                       return Status::ok();
                     });
}

Status Importer::opSqueeze(const NodeProto& n) {
  OVal& x = val(n, 0);
  auto axesR = axesOf(n, 1);
  if (!axesR) return axesR.status();
  const int64_t r = int64_t(x.shape.size());
  std::set<int64_t> drop;
  if (*axesR) {
    for (int64_t a : **axesR) drop.insert(normAxis(a, r));
  } else {
    for (int64_t i = 0; i < r; ++i)
      if (x.shape[size_t(i)] == 1) drop.insert(i);
  }
  Shape out;
  for (int64_t i = 0; i < r; ++i) {
    if (!drop.count(i)) out.push_back(x.shape[size_t(i)]);
    else if (x.shape[size_t(i)] != 1) return Status::invalid("Squeeze of an axis whose size is not 1");
  }
  return reshapeLike(x, out, [&](Tensor t) { setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(requireFloat(n, x));
                       auto v = get(x, Layout::Plain);
                       if (!v) return v.status();
                       setValue(n, 0, b_.reshape(*v, s, loc_), Layout::Plain);
                       return Status::ok();
                     });
}

Status Importer::opUnsqueeze(const NodeProto& n) {
  OVal& x = val(n, 0);
  auto axesR = axesOf(n, 1);
  if (!axesR) return axesR.status();
  if (!*axesR) return Status::invalid("Unsqueeze without axes");
  const int64_t outRank = int64_t(x.shape.size() + (*axesR)->size());
  std::set<int64_t> add;
  for (int64_t a : **axesR) add.insert(normAxis(a, outRank));
  Shape out;
  size_t j = 0;
  for (int64_t i = 0; i < outRank; ++i) out.push_back(add.count(i) ? 1 : x.shape.at(j++));
  return reshapeLike(x, out, [&](Tensor t) { setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(requireFloat(n, x));
                       auto v = get(x, Layout::Plain);
                       if (!v) return v.status();
                       setValue(n, 0, b_.reshape(*v, s, loc_), Layout::Plain);
                       return Status::ok();
                     });
}

Status Importer::opTranspose(const NodeProto& n) {
  OVal& x = val(n, 0);
  const int64_t r = int64_t(x.shape.size());
  std::vector<int64_t> perm = attrInts(n, "perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  if (int64_t(perm.size()) != r) return Status::invalid("Transpose perm length differs from the input rank");
  if (x.isConst()) {
    setConst(n, 0, permuteTensor(*x.c, perm));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  // From an NHWC-stored value, transpose the stored tensor directly: logical axis a sits at kNhwcPos[a].
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = get(x, l);
  if (!v) return v.status();
  std::vector<int64_t> stored = perm;
  if (l == Layout::Nhwc)
    for (auto& p : stored) p = kNhwcPos[p];
  bool identity = true;
  for (int64_t i = 0; i < r; ++i) identity &= stored[size_t(i)] == i;
  Value* out = identity ? *v : b_.transpose(*v, stored, loc_);
  setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

// ---- elementwise ----

Status Importer::binaryOp(const NodeProto& n, char op) {
  OVal &a = val(n, 0), &c = val(n, 1);
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape)
    return Status::invalid("operands " + shapeToString(a.shape) + " and " + shapeToString(c.shape) + " do not broadcast");
  if (a.isConst() && c.isConst()) {
    if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
    setConst(n, 0, foldBinary(*a.c, *c.c, *outShape, op));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireFloat(n, a));
  TK_RETURN_IF_ERROR(requireFloat(n, c));
  const size_t rank = outShape->size();
  Layout l = rank == 4 && (a.prefersNhwc() || c.prefersNhwc()) ? Layout::Nhwc : Layout::Plain;
  auto va = getAsRank(a, rank, l);
  if (!va) return va.status();
  Value* vc = nullptr;
  if (op == '/' && c.isConst()) {
    // Division by a constant: multiply by its reciprocal, computed here.
    OVal rc;
    rc.shape = c.shape;
    rc.dtype = c.dtype;
    Tensor inv(c.dtype, c.shape);
    for (int64_t i = 0; i < inv.size(); ++i) inv.setFloat(i, 1.0 / c.c->getFloat(i));
    rc.c = std::make_shared<const Tensor>(std::move(inv));
    auto r = getAsRank(rc, rank, l);
    if (!r) return r.status();
    vc = *r;
  } else {
    auto r = getAsRank(c, rank, l);
    if (!r) return r.status();
    vc = *r;
    if (op == '/') vc = unary("tosa.reciprocal", vc);
  }
  Value* out = nullptr;
  switch (op) {
    case '+': out = b_.add(*va, vc, loc_); break;
    case '-': out = b_.sub(*va, vc, loc_); break;
    default: out = b_.mul(*va, vc, 0, loc_); break;
  }
  setValue(n, 0, out, l);
  return Status::ok();
}

Status Importer::unaryKeepLayout(const NodeProto& n, const std::function<Value*(Value*)>& f) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = get(x, l);
  if (!v) return v.status();
  Value* out = f(*v);
  out->definingOp->loc.name = loc_;  // the op that yields the node's result carries the node name
  setValue(n, 0, out, l);
  return Status::ok();
}

constexpr double kFltMax = std::numeric_limits<float>::max();

Status Importer::opRelu(const NodeProto& n) {
  return unaryKeepLayout(n, [&](Value* x) { return clampF(x, 0.0, kFltMax); });
}

Status Importer::opClip(const NodeProto& n) {
  double lo = -kFltMax, hi = kFltMax;
  if (opset_ < 11) {
    lo = attrFloat(n, "min", float(lo));
    hi = attrFloat(n, "max", float(hi));
  } else {
    if (hasInput(n, 1)) {
      auto t = constInput(n, 1, "min");
      if (!t) return t.status();
      lo = (*t)->getFloat(0);
    }
    if (hasInput(n, 2)) {
      auto t = constInput(n, 2, "max");
      if (!t) return t.status();
      hi = (*t)->getFloat(0);
    }
  }
  // TOSA requires min_val <= max_val; ONNX then returns max everywhere, i.e. clamp(max, max).
  if (lo > hi) lo = hi;
  return unaryKeepLayout(n, [&](Value* x) { return clampF(x, lo, hi); });
}

Status Importer::opLeakyRelu(const NodeProto& n) {
  const float alpha = attrFloat(n, "alpha", 0.01f);
  return unaryKeepLayout(n, [&](Value* x) {
    // x >= 0 ? x : alpha * x, exact for any alpha (max(x, alpha*x) would need alpha <= 1).
    const size_t r = x->type.dims.size();
    Value* ax = mul(x, scalarF(alpha, r));
    Value* ge = binary("tosa.greater_equal", x, scalarF(0.0f, r), DType::Bool);
    return b_.op1("tosa.select", {ge, x, ax}, x->type, {}, aux("select"));
  });
}

Status Importer::opSigmoid(const NodeProto& n) {
  return unaryKeepLayout(n, [&](Value* x) { return unary("tosa.sigmoid", x); });
}

Status Importer::opTanh(const NodeProto& n) {
  return unaryKeepLayout(n, [&](Value* x) { return unary("tosa.tanh", x); });
}

Status Importer::opHardSigmoid(const NodeProto& n) {
  const float alpha = attrFloat(n, "alpha", 0.2f), beta = attrFloat(n, "beta", 0.5f);
  return unaryKeepLayout(n, [&](Value* x) {
    const size_t r = x->type.dims.size();
    Value* y = b_.add(mul(x, scalarF(alpha, r)), scalarF(beta, r), aux("add"));
    return clampF(y, 0.0, 1.0);
  });
}

Status Importer::opHardSwish(const NodeProto& n) {
  return unaryKeepLayout(n, [&](Value* x) {
    // x * max(0, min(1, x/6 + 1/2)) (HardSigmoid with alpha = 1/6, beta = 0.5).
    const size_t r = x->type.dims.size();
    Value* y = b_.add(mul(x, scalarF(1.0f / 6.0f, r)), scalarF(0.5f, r), aux("add"));
    return mul(x, clampF(y, 0.0, 1.0));
  });
}

// ---- conv / batch norm ----

// TOSA's output size is an exact division: drop padding (then input rows) that no window reads.
// Returns the rows to cut from the end of the input.
static int64_t trimPadding(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t padBegin, int64_t& padEnd) {
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

Status Importer::opConv(const NodeProto& n) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D Conv is supported (input rank " +
                                                      std::to_string(x.shape.size()) + ")");
  auto w = constInput(n, 1, "weight");
  if (!w) return w.status();
  const Tensor* bias = nullptr;
  if (hasInput(n, 2)) {
    auto bt = constInput(n, 2, "bias");
    if (!bt) return bt.status();
    bias = *bt;
  }
  const Shape& ws = (*w)->shape();
  if (ws.size() != 4) return Status::invalid("Conv weight must be rank 4");
  const int64_t kh = ws[2], kw = ws[3];
  if (auto ks = attrInts(n, "kernel_shape"); ks && (*ks != std::vector<int64_t>{kh, kw}))
    return Status::invalid("Conv kernel_shape differs from the weight shape");
  std::vector<int64_t> strides = attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dil = attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> pads = attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});  // t, l, b, r
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(dil, 2, 1, "dilations"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const std::string autoPad = attrStr(n, "auto_pad", "NOTSET");
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    const int64_t in[2] = {x.shape[2], x.shape[3]}, k[2] = {kh, kw};
    for (int i = 0; i < 2; ++i) {
      int64_t out = (in[i] + strides[size_t(i)] - 1) / strides[size_t(i)];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[size_t(i)] + (k[i] - 1) * dil[size_t(i)] + 1 - in[i]);
      int64_t small = total / 2, big = total - small;
      pads[size_t(i)] = autoPad == "SAME_UPPER" ? small : big;
      pads[size_t(i) + 2] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  }
  auto xv = get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  return conv2dImpl(n, *xv, **w, bias, attrInt(n, "group", 1), pads, strides, dil);
}

Status Importer::conv2dImpl(const NodeProto& n, Value* x, const Tensor& w, const Tensor* bias, int64_t group,
                            std::vector<int64_t> pads, std::vector<int64_t> strides, std::vector<int64_t> dil) {
  const Shape& in = x->type.dims;  // N H W C
  const Shape& ws = w.shape();     // M, C/group, KH, KW
  const int64_t C = in[3], M = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3];
  if (group < 1 || C % group != 0 || M % group != 0 || Cg != C / group)
    return Status::invalid("Conv group " + std::to_string(group) + " does not match input/weight channels");
  // ONNX pads: top, left, bottom, right; TOSA pad: top, bottom, left, right.
  int64_t pt = pads[0], pl = pads[1], pb = pads[2], pr = pads[3];
  int64_t cutH = trimPadding(in[1], KH, strides[0], dil[0], pt, pb);
  int64_t cutW = trimPadding(in[2], KW, strides[1], dil[1], pl, pr);
  if (cutH || cutW) {
    auto s = sliceNhwc(x, {0, 0, 0, 0}, {in[0], in[1] - cutH, in[2] - cutW, C});
    if (!s) return s.status();
    x = *s;
  }
  ir::Conv2dAttrs ca;
  ca.pad = {pt, pb, pl, pr};
  ca.stride = strides;
  ca.dilation = dil;
  ca.accType = DType::FP32;
  Tensor b = bias ? *bias : Tensor(DType::FP32, {M});
  if (b.shape() != Shape{M}) return Status::invalid("Conv bias must have shape [M]");

  if (group == 1) {
    Value* wv = b_.constant(permuteTensor(w, {0, 2, 3, 1}), aux("weight"));  // OIHW -> OHWI
    Value* bv = b_.constant(b, aux("bias"));
    Value* out = b_.conv2d(x, wv, bv, ca, loc_);
    convs_[out] = {wv->definingOp, bv->definingOp, false};
    setValue(n, 0, out, Layout::Nhwc);
    return Status::ok();
  }
  if (Cg == 1 && group == C) {
    // Depthwise: output channel c*mult + m reads input channel c; TOSA weight is [KH, KW, C, mult].
    const int64_t mult = M / C;
    Tensor wd = permuteTensor(reshapeTensor(w, {C, mult, KH, KW}), {2, 3, 0, 1});
    Value* wv = b_.constant(std::move(wd), aux("weight"));
    Value* bv = b_.constant(b, aux("bias"));
    Value* izp = b_.scalar1(DType::FP32, 0, aux("input_zp"));
    Value* wzp = b_.scalar1(DType::FP32, 0, aux("weight_zp"));
    const Shape& xs = x->type.dims;
    int64_t oh = (xs[1] - 1 + pt + pb - (KH - 1) * dil[0]) / strides[0] + 1;
    int64_t ow = (xs[2] - 1 + pl + pr - (KW - 1) * dil[1]) / strides[1] + 1;
    Value* out = b_.op1("tosa.depthwise_conv2d", {x, wv, bv, izp, wzp},
                        ValueType::tensor(DType::FP32, {xs[0], oh, ow, M}),
                        {{"pad", ir::Attribute::intArray(ca.pad)},
                         {"stride", ir::Attribute::intArray(strides)},
                         {"dilation", ir::Attribute::intArray(dil)},
                         {"acc_type", ir::Attribute::type(DType::FP32)}},
                        loc_);
    convs_[out] = {wv->definingOp, bv->definingOp, true};
    setValue(n, 0, out, Layout::Nhwc);
    return Status::ok();
  }
  // Grouped conv: one conv2d per group on a channel slice, concatenated along C.
  const int64_t Mg = M / group;
  std::vector<Value*> parts;
  const Shape xs = x->type.dims;
  for (int64_t g = 0; g < group; ++g) {
    auto xs_g = sliceNhwc(x, {0, 0, 0, g * Cg}, {xs[0], xs[1], xs[2], Cg});
    if (!xs_g) return xs_g.status();
    Tensor wg(DType::FP32, {Mg, Cg, KH, KW});
    const size_t chunk = size_t(Mg * Cg * KH * KW) * 4;
    std::memcpy(wg.data(), w.data() + size_t(g) * chunk, chunk);
    Tensor bg(DType::FP32, {Mg});
    std::memcpy(bg.data(), b.data() + size_t(g * Mg) * 4, size_t(Mg) * 4);
    Value* wv = b_.constant(permuteTensor(wg, {0, 2, 3, 1}), aux("weight"));
    Value* bv = b_.constant(bg, aux("bias"));
    parts.push_back(b_.conv2d(*xs_g, wv, bv, ca, aux("group" + std::to_string(g))));
  }
  Shape os = parts[0]->type.dims;
  os[3] = M;
  setValue(n, 0,
           b_.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, os),
                  {{"axis", ir::Attribute::integer(3, DType::I32)}}, loc_),
           Layout::Nhwc);
  return Status::ok();
}

Status Importer::opBatchNorm(const NodeProto& n) {
  if (attrInt(n, "training_mode", 0) != 0 || (n.output_size() > 1 && !n.output(1).empty()))
    return Status::unsupported("training-mode BatchNormalization");
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  const char* names[4] = {"scale", "B", "mean", "var"};
  const Tensor* p[4];
  for (int i = 0; i < 4; ++i) {
    auto t = constInput(n, i + 1, names[i]);
    if (!t) return t.status();
    p[i] = *t;
  }
  if (x.shape.size() < 2) return Status::invalid("BatchNormalization input rank < 2");
  const int64_t C = x.shape[1];
  const double eps = attrFloat(n, "epsilon", 1e-5f);
  // y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a (float32 arithmetic, as runtimes do).
  std::vector<double> a(size_t(C), 0.0), bb(size_t(C), 0.0);
  for (int64_t c = 0; c < C; ++c) {
    float av = float(p[0]->getFloat(c)) / std::sqrt(float(p[3]->getFloat(c)) + float(eps));
    a[size_t(c)] = av;
    bb[size_t(c)] = float(p[1]->getFloat(c)) - float(p[2]->getFloat(c)) * av;
  }
  // Fold into the producing conv when this node is the conv output's only consumer.
  if (x.prefersNhwc() && uses_[n.input(0)] == 1) {
    auto it = convs_.find(x.nhwc);
    if (it != convs_.end()) {
      ConvInfo ci = it->second;
      Tensor w = *ci.weightConst->attrs.at("values").tensor;
      Tensor bias = *ci.biasConst->attrs.at("values").tensor;
      // conv2d OHWI: channel is the outermost index; depthwise [KH,KW,C,mult]: channel = offset % (C*mult).
      const int64_t per = w.size() / C;
      for (int64_t i = 0; i < w.size(); ++i) {
        int64_t c = ci.depthwise ? i % C : i / per;
        w.setFloat(i, float(w.getFloat(i)) * float(a[size_t(c)]));
      }
      for (int64_t c = 0; c < C; ++c)
        bias.setFloat(c, float(bias.getFloat(c)) * float(a[size_t(c)]) + float(bb[size_t(c)]));
      ci.weightConst->attrs["values"] = ir::Attribute::dense(std::move(w));
      ci.biasConst->attrs["values"] = ir::Attribute::dense(std::move(bias));
      convs_.erase(it);
      convs_[x.nhwc] = ci;  // still foldable by a further affine op? keep it simple: same conv
      vals_[n.output(0)] = x;
      return Status::ok();
    }
  }
  const size_t rank = x.shape.size();
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  Shape cs(rank, 1);
  cs[l == Layout::Nhwc ? 3 : 1] = C;
  auto v = get(x, l);
  if (!v) return v.status();
  Value* av = constF(Tensor::fromDoubles(DType::FP32, cs, a));
  Value* bv = constF(Tensor::fromDoubles(DType::FP32, cs, bb));
  setValue(n, 0, b_.add(mul(*v, av), bv, loc_), l);
  return Status::ok();
}

// ---- pooling ----

Status Importer::poolImpl(const NodeProto& n, bool isMax) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D pooling is supported");
  if (isMax && n.output_size() > 1 && !n.output(1).empty()) return Status::unsupported("MaxPool Indices output");
  if (isMax && attrInt(n, "storage_order", 0) != 0) return Status::unsupported("MaxPool storage_order 1");
  std::vector<int64_t> k = attrInts(n, "kernel_shape").value_or(std::vector<int64_t>{});
  if (k.size() != 2) return Status::invalid("pool kernel_shape must have 2 values");
  std::vector<int64_t> strides = attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dil = attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  if (dil != std::vector<int64_t>{1, 1}) return Status::unsupported("pooling with dilations");
  std::vector<int64_t> pads = attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  TK_RETURN_IF_ERROR(checkSpatial(k, 2, 1, "kernel_shape"));
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const bool ceil = attrInt(n, "ceil_mode", 0) != 0;
  const bool countPad = !isMax && attrInt(n, "count_include_pad", 0) != 0;
  const std::string autoPad = attrStr(n, "auto_pad", "NOTSET");
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int i = 0; i < 2; ++i) {
      int64_t out = (in[i] + strides[size_t(i)] - 1) / strides[size_t(i)];
      int64_t total = std::max<int64_t>(0, (out - 1) * strides[size_t(i)] + k[size_t(i)] - in[i]);
      int64_t small = total / 2, big = total - small;
      pads[size_t(i)] = autoPad == "SAME_UPPER" ? small : big;
      pads[size_t(i) + 2] = autoPad == "SAME_UPPER" ? big : small;
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  }
  auto xv = get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  Value* xin = *xv;
  int64_t ih = in[0], iw = in[1];
  int64_t pt = pads[0], pl = pads[1], pb = pads[2], pr = pads[3];
  if (countPad && (pt || pl || pb || pr)) {
    // Padding counts in the average: pad with explicit zeros, then pool without padding.
    Value* padding = b_.constShape({0, 0, pt, pb, pl, pr, 0, 0}, aux("padding"));
    Value* pc = b_.scalar1(DType::FP32, 0, aux("pad_const"));
    const Shape& s = xin->type.dims;
    xin = b_.op1("tosa.pad", {xin, padding, pc},
                 ValueType::tensor(DType::FP32, {s[0], s[1] + pt + pb, s[2] + pl + pr, s[3]}), {}, aux("pad"));
    ih += pt + pb;
    iw += pl + pr;
    pt = pl = pb = pr = 0;
  }
  // ONNX output size (floor or ceil); in ceil mode the last window must start inside the input or left pad.
  auto outSize = [&](int64_t i, int64_t kk, int64_t s, int64_t p0, int64_t p1) {
    int64_t span = i + p0 + p1 - kk;
    int64_t o = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (o - 1) * s >= i + p0) --o;
    return o;
  };
  const int64_t oh = outSize(ih, k[0], strides[0], pt, pb), ow = outSize(iw, k[1], strides[1], pl, pr);
  // TOSA: OH = (IH + pad_top + pad_bottom - KH) / stride + 1 exactly; adjust the end padding, or cut input.
  int64_t needB = (oh - 1) * strides[0] + k[0] - ih - pt, needR = (ow - 1) * strides[1] + k[1] - iw - pl;
  int64_t cutH = needB < 0 ? -needB : 0, cutW = needR < 0 ? -needR : 0;
  pb = std::max<int64_t>(needB, 0);
  pr = std::max<int64_t>(needR, 0);
  if (pb >= k[0] || pr >= k[1] || pt >= k[0] || pl >= k[1])
    return Status::unsupported("pool padding not smaller than the kernel");
  if (cutH || cutW) {
    const Shape& s = xin->type.dims;
    auto sl = sliceNhwc(xin, {0, 0, 0, 0}, {s[0], s[1] - cutH, s[2] - cutW, s[3]});
    if (!sl) return sl.status();
    xin = *sl;
  }
  const Shape& s = xin->type.dims;
  std::map<std::string, ir::Attribute> attrs = {{"kernel", ir::Attribute::intArray(k)},
                                                {"stride", ir::Attribute::intArray(strides)},
                                                {"pad", ir::Attribute::intArray({pt, pb, pl, pr})}};
  ValueType rt = ValueType::tensor(DType::FP32, {s[0], oh, ow, s[3]});
  Value* out;
  if (isMax) {
    out = b_.op1("tosa.max_pool2d", {xin}, rt, attrs, loc_);
  } else {
    attrs["acc_type"] = ir::Attribute::type(DType::FP32);
    Value* izp = b_.scalar1(DType::FP32, 0, aux("input_zp"));
    Value* ozp = b_.scalar1(DType::FP32, 0, aux("output_zp"));
    out = b_.op1("tosa.avg_pool2d", {xin, izp, ozp}, rt, attrs, loc_);
  }
  setValue(n, 0, out, Layout::Nhwc);
  return Status::ok();
}

Status Importer::opGlobalAveragePool(const NodeProto& n) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D GlobalAveragePool is supported");
  auto xv = get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  const Shape& s = (*xv)->type.dims;
  Value* izp = b_.scalar1(DType::FP32, 0, aux("input_zp"));
  Value* ozp = b_.scalar1(DType::FP32, 0, aux("output_zp"));
  Value* out = b_.op1("tosa.avg_pool2d", {*xv, izp, ozp}, ValueType::tensor(DType::FP32, {s[0], 1, 1, s[3]}),
                      {{"kernel", ir::Attribute::intArray({s[1], s[2]})},
                       {"stride", ir::Attribute::intArray({1, 1})},
                       {"pad", ir::Attribute::intArray({0, 0, 0, 0})},
                       {"acc_type", ir::Attribute::type(DType::FP32)}},
                      loc_);
  setValue(n, 0, out, Layout::Nhwc);
  return Status::ok();
}

// ---- matmul / gemm / softmax ----

Value* Importer::matmul3(Value* a, Value* c) {
  Value* azp = b_.scalar1(DType::FP32, 0, aux("a_zp"));
  Value* bzp = b_.scalar1(DType::FP32, 0, aux("b_zp"));
  const Shape &as = a->type.dims, &cs = c->type.dims;
  return b_.op1("tosa.matmul", {a, c, azp, bzp}, ValueType::tensor(DType::FP32, {as[0], as[1], cs[2]}), {},
                aux("matmul"));
}

Status Importer::opGemm(const NodeProto& n) {
  OVal &a = val(n, 0), &bm = val(n, 1);
  TK_RETURN_IF_ERROR(requireFloat(n, a));
  TK_RETURN_IF_ERROR(requireFloat(n, bm));
  if (a.shape.size() != 2 || bm.shape.size() != 2) return Status::invalid("Gemm operands must be rank 2");
  const bool transA = attrInt(n, "transA", 0) != 0, transB = attrInt(n, "transB", 0) != 0;
  const float alpha = attrFloat(n, "alpha", 1.0f), beta = attrFloat(n, "beta", 1.0f);
  auto av = get(a, Layout::Plain);
  if (!av) return av.status();
  Value* A = *av;
  if (transA) A = b_.transpose(A, {1, 0}, aux("transA"));
  Value* B;
  if (bm.isConst()) {
    Tensor t = transB ? permuteTensor(*bm.c, {1, 0}) : *bm.c;
    B = b_.constant(std::move(t), aux("B"));
  } else {
    auto bv = get(bm, Layout::Plain);
    if (!bv) return bv.status();
    B = transB ? b_.transpose(*bv, {1, 0}, aux("transB")) : *bv;
  }
  const int64_t M = A->type.dims[0], K = A->type.dims[1], N = B->type.dims[1];
  if (B->type.dims[0] != K) return Status::invalid("Gemm inner dimensions differ");
  Value* y = matmul3(b_.reshape(A, {1, M, K}, aux("reshapeA")), b_.reshape(B, {1, K, N}, aux("reshapeB")));
  if (alpha != 1.0f) y = mul(y, scalarF(alpha, 3));
  if (hasInput(n, 2) && beta != 0.0f) {
    OVal& c = val(n, 2);
    TK_RETURN_IF_ERROR(requireFloat(n, c));
    if (!numpyBroadcast(c.shape, {M, N})) return Status::invalid("Gemm C does not broadcast to [M, N]");
    Value* cv;
    if (c.isConst()) {
      Tensor t = *c.c;
      for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, float(t.getFloat(i)) * beta);
      cv = constF(reshapeTensor(t, withRank(c.shape, 3)));
    } else {
      auto r = getAsRank(c, 3, Layout::Plain);
      if (!r) return r.status();
      cv = beta != 1.0f ? mul(*r, scalarF(beta, 3)) : *r;
    }
    y = b_.add(y, cv, aux("add"));
  }
  Value* out = b_.reshape(y, {M, N}, loc_);
  setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

Status Importer::opMatMul(const NodeProto& n) {
  OVal &a = val(n, 0), &bm = val(n, 1);
  TK_RETURN_IF_ERROR(requireFloat(n, a));
  TK_RETURN_IF_ERROR(requireFloat(n, bm));
  Shape as = a.shape, bs = bm.shape;
  if (as.empty() || bs.empty()) return Status::invalid("MatMul of a scalar");
  // numpy.matmul: 1-D operands get a 1 prepended (A) / appended (B), removed from the result.
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) return Status::invalid("MatMul inner dimensions differ");
  Shape aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  auto batch = numpyBroadcast(aBatch, bBatch);
  if (!batch) return Status::invalid("MatMul batch dimensions do not broadcast");
  const int64_t nb = numElements(*batch), na = numElements(aBatch), nbb = numElements(bBatch);
  auto av = get(a, Layout::Plain);
  if (!av) return av.status();
  auto bv = get(bm, Layout::Plain);
  if (!bv) return bv.status();
  Value *A, *B;
  if (nbb == 1 && bBatch.size() <= aBatch.size()) {
    // B shared by every batch: fold A's batch into its rows.
    A = b_.reshape(*av, {1, na * M, K}, aux("reshapeA"));
    B = b_.reshape(*bv, {1, K, N}, aux("reshapeB"));
  } else if (withRank(aBatch, batch->size()) == *batch && withRank(bBatch, batch->size()) == *batch) {
    A = b_.reshape(*av, {nb, M, K}, aux("reshapeA"));
    B = b_.reshape(*bv, {nb, K, N}, aux("reshapeB"));
  } else {
    return Status::unsupported("MatMul with broadcast batch dimensions " + shapeToString(aBatch) + " x " +
                               shapeToString(bBatch));
  }
  Value* y = matmul3(A, B);
  Shape out = *batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  setValue(n, 0, b_.reshape(y, out, loc_), Layout::Plain);
  return Status::ok();
}

Status Importer::opSoftmax(const NodeProto& n) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  const int64_t r = int64_t(x.shape.size());
  int64_t axis = normAxis(attrInt(n, "axis", opset_ < 13 ? 1 : -1), r);
  if (axis < 0 || axis >= r) return Status::invalid("Softmax axis out of range");
  Layout l = opset_ >= 13 && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = get(x, l);
  if (!xv) return xv.status();
  Value* v = *xv;
  int64_t tosaAxis = l == Layout::Nhwc ? kNhwcPos[axis] : axis;
  if (opset_ < 13 && axis != r - 1) {
    // Before opset 13 Softmax works on the input coerced to 2-D at `axis`.
    int64_t a = 1, c = 1;
    for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= x.shape[size_t(i)];
    v = b_.reshape(v, {a, c}, aux("reshape"));
    tosaAxis = 1;
  }
  auto reduce = [&](const std::string& op, Value* in) {
    Shape s = in->type.dims;
    s[size_t(tosaAxis)] = 1;
    return b_.op1(op, {in}, ValueType::tensor(DType::FP32, s),
                  {{"axis", ir::Attribute::integer(tosaAxis, DType::I32)}}, aux(op.substr(5)));
  };
  // exp(x - max) / sum(exp(x - max)): subtracting the max keeps exp finite.
  Value* shifted = b_.sub(v, reduce("tosa.reduce_max", v), aux("sub"));
  Value* e = unary("tosa.exp", shifted);
  Value* inv = unary("tosa.reciprocal", reduce("tosa.reduce_sum", e));
  Value* y = b_.mul(e, inv, 0, loc_);
  if (y->type.dims.size() != size_t(r) || (l == Layout::Plain && y->type.dims != x.shape)) y = b_.reshape(y, x.shape, aux("reshape"));
  setValue(n, 0, y, l);
  return Status::ok();
}

// ReduceMean/ReduceSum/ReduceMax: one TOSA reduce per axis (TOSA reduces a single axis, keeping it as 1);
// the mean multiplies the sum by 1/count. keepdims=0 drops the axes with a reshape in the plain layout.
Status Importer::opReduce(const NodeProto& n) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  const int64_t r = int64_t(x.shape.size());
  // Axes: attribute up to opset 17 (ReduceSum: 12), input from then on.
  auto axesR = axesOf(n, 1);
  if (!axesR) return axesR.status();
  const bool keep = attrInt(n, "keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (*axesR && !(*axesR)->empty()) {
    for (int64_t a : **axesR) axes.push_back(normAxis(a, r));
  } else if (attrInt(n, "noop_with_empty_axes", 0) != 0) {
    vals_[n.output(0)] = x;
    return Status::ok();
  } else {
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  for (int64_t a : axes)
    if (a < 0 || a >= r) return Status::invalid(n.op_type() + " axis out of range");
  Layout l = keep && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = get(x, l);
  if (!xv) return xv.status();
  const std::string op = n.op_type() == "ReduceMax" ? "tosa.reduce_max" : "tosa.reduce_sum";
  Value* v = *xv;
  int64_t count = 1;
  for (int64_t a : axes) {
    int64_t ta = l == Layout::Nhwc ? kNhwcPos[a] : a;
    Shape s = v->type.dims;
    count *= s[size_t(ta)];
    s[size_t(ta)] = 1;
    v = b_.op1(op, {v}, ValueType::tensor(DType::FP32, s), {{"axis", ir::Attribute::integer(ta, DType::I32)}},
               aux(op.substr(5)));
  }
  if (n.op_type() == "ReduceMean") v = mul(v, scalarF(float(1.0 / double(count)), v->type.dims.size()));
  if (!keep) {
    Shape out;
    for (int64_t a = 0; a < r; ++a)
      if (!std::binary_search(axes.begin(), axes.end(), a)) out.push_back(x.shape[size_t(a)]);
    v = b_.reshape(v, out, aux("reshape"));
  }
  v->definingOp->loc.name = loc_;
  setValue(n, 0, v, l);
  return Status::ok();
}

Status Importer::opPow(const NodeProto& n) {
  OVal &x = val(n, 0), &e = val(n, 1);
  if (e.isConst() && e.c->size() == 1 && x.shape.size() >= e.shape.size()) {
    // Common constant exponents lower to cheaper, exact ops (LayerNorm exports use x ** 2).
    const double p = e.c->getFloat(0);
    if (p == 1.0) return unaryKeepLayout(n, [&](Value* v) { return b_.op1("tosa.identity", {v}, v->type); });
    if (p == 2.0) return unaryKeepLayout(n, [&](Value* v) { return mul(v, v); });
  }
  if (x.isConst() && e.isConst()) return Status::unsupported("Pow of two constants");
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  TK_RETURN_IF_ERROR(requireFloat(n, e));
  auto outShape = numpyBroadcast(x.shape, e.shape);
  if (!outShape) return Status::invalid("Pow operands do not broadcast");
  const size_t rank = outShape->size();
  Layout l = rank == 4 && (x.prefersNhwc() || e.prefersNhwc()) ? Layout::Nhwc : Layout::Plain;
  auto xv = getAsRank(x, rank, l);
  if (!xv) return xv.status();
  auto ev = getAsRank(e, rank, l);
  if (!ev) return ev.status();
  Value* out = binary("tosa.pow", *xv, *ev);
  out->definingOp->loc.name = loc_;
  setValue(n, 0, out, l);
  return Status::ok();
}

Status Importer::opSqrt(const NodeProto& n) {
  // TOSA has no sqrt: x ** 0.5 (tosa.pow, defined for x >= 0 as sqrt is).
  return unaryKeepLayout(n, [&](Value* v) {
    return binary("tosa.pow", v, scalarF(0.5f, v->type.dims.size()));
  });
}

// ConvTranspose (2-D, group 1, dilation 1) -> transpose_conv2d. TOSA writes output row
// iy * stride + out_pad_top + ky, ONNX iy * stride + ky - pad_begin: out_pad = -pad (+ output_padding at the end).
Status Importer::opConvTranspose(const NodeProto& n) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D ConvTranspose is supported");
  auto w = constInput(n, 1, "weight");
  if (!w) return w.status();
  const Tensor* bias = nullptr;
  if (hasInput(n, 2)) {
    auto bt = constInput(n, 2, "bias");
    if (!bt) return bt.status();
    bias = *bt;
  }
  if (attrInt(n, "group", 1) != 1) return Status::unsupported("grouped ConvTranspose");
  std::vector<int64_t> dil = attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  if (dil != std::vector<int64_t>{1, 1}) return Status::unsupported("ConvTranspose with dilations");
  const Shape& ws = (*w)->shape();  // IC, OC, KH, KW
  if (ws.size() != 4 || ws[0] != x.shape[1]) return Status::invalid("ConvTranspose weight does not match the input");
  const int64_t OC = ws[1], K[2] = {ws[2], ws[3]}, I[2] = {x.shape[2], x.shape[3]};
  std::vector<int64_t> strides = attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> outPad = attrInts(n, "output_padding").value_or(std::vector<int64_t>{0, 0});
  std::vector<int64_t> pads = attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(outPad, 2, 0, "output_padding"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const std::string autoPad = attrStr(n, "auto_pad", "NOTSET");
  auto outShape = attrInts(n, "output_shape");
  if (!outShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    outShape = std::vector<int64_t>{I[0] * strides[0], I[1] * strides[1]};
  if (outShape) {
    if (outShape->size() == 4) outShape->erase(outShape->begin(), outShape->begin() + 2);  // full N,C,H,W form
    if (outShape->size() != 2) return Status::invalid("ConvTranspose output_shape must have 2 values");
    for (int i = 0; i < 2; ++i) {
      int64_t total = strides[size_t(i)] * (I[i] - 1) + outPad[size_t(i)] + K[i] - (*outShape)[size_t(i)];
      int64_t half = total / 2;
      pads[size_t(i)] = total < 0 ? 0 : autoPad == "SAME_UPPER" ? half : total - half;
      pads[size_t(i) + 2] = total - pads[size_t(i)];  // negative: extra output rows at the end
    }
  } else if (autoPad == "VALID") {
    pads = {0, 0, 0, 0};
  }
  const std::vector<int64_t> tosaPad = {-pads[0], -pads[2] + outPad[0], -pads[1], -pads[3] + outPad[1]};
  if (tosaPad[0] <= -K[0] || tosaPad[1] <= -K[0] || tosaPad[2] <= -K[1] || tosaPad[3] <= -K[1])
    return Status::unsupported("ConvTranspose padding of a whole kernel or more");
  auto xv = get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  const Shape& xs = (*xv)->type.dims;
  const int64_t oh = (xs[1] - 1) * strides[0] + tosaPad[0] + tosaPad[1] + K[0];
  const int64_t ow = (xs[2] - 1) * strides[1] + tosaPad[2] + tosaPad[3] + K[1];
  Value* wv = b_.constant(permuteTensor(**w, {1, 2, 3, 0}), aux("weight"));  // [IC,OC,KH,KW] -> [OC,KH,KW,IC]
  Value* bv = b_.constant(bias ? *bias : Tensor(DType::FP32, {OC}), aux("bias"));
  Value* izp = b_.scalar1(DType::FP32, 0, aux("input_zp"));
  Value* wzp = b_.scalar1(DType::FP32, 0, aux("weight_zp"));
  Value* out = b_.op1("tosa.transpose_conv2d", {*xv, wv, bv, izp, wzp},
                      ValueType::tensor(DType::FP32, {xs[0], oh, ow, OC}),
                      {{"out_pad", ir::Attribute::intArray(tosaPad)},
                       {"stride", ir::Attribute::intArray(strides)},
                       {"acc_type", ir::Attribute::type(DType::FP32)}},
                      loc_);
  setValue(n, 0, out, Layout::Nhwc);
  return Status::ok();
}

// The scale as a fraction n/d (scales from ONNX are floats such as 2.0 or 0.5).
static std::optional<std::pair<int64_t, int64_t>> fraction(double v) {
  for (int64_t d = 1; d <= 1024; ++d) {
    double nn = v * double(d);
    int64_t r = int64_t(std::llround(nn));
    if (r > 0 && float(double(r) / double(d)) == float(v)) return std::make_pair(r, d);
  }
  return std::nullopt;
}

// Resize (nearest / linear, 2-D spatial) -> tosa.resize. TOSA samples the input at y = (oy * d + offset) / n;
// nearest rounds half up. ONNX's coordinate transform and nearest rounding are mapped onto offset, with n and
// d doubled so that every half-unit shift is an integer.
Status Importer::opResize(const NodeProto& n) {
  OVal& x = val(n, 0);
  TK_RETURN_IF_ERROR(requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 4-D (NCHW) Resize is supported");
  const std::string mode = attrStr(n, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return Status::unsupported("Resize mode '" + mode + "'");
  const std::string ctm = attrStr(n, "coordinate_transformation_mode", "half_pixel");
  const std::string nearestMode = attrStr(n, "nearest_mode", "round_prefer_floor");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "asymmetric" && ctm != "align_corners")
    return Status::unsupported("Resize coordinate_transformation_mode '" + ctm + "'");
  if (attrInt(n, "antialias", 0) != 0) return Status::unsupported("Resize antialias");
  // Output size and scale per spatial axis: scales (input 2) or sizes (input 3).
  int64_t out[2];
  std::pair<int64_t, int64_t> scale[2];
  std::optional<std::pair<int64_t, int64_t>> alignScale[2];  // align_corners sampling step when from scales
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  if (hasInput(n, 3)) {
    auto sz = constInput(n, 3, "sizes");
    if (!sz) return sz.status();
    auto v = (*sz)->toInts();
    if (v.size() != 4 || v[0] != x.shape[0] || v[1] != x.shape[1]) return Status::unsupported("Resize of N or C");
    for (int i = 0; i < 2; ++i) {
      out[i] = v[size_t(i) + 2];
      scale[i] = {out[i], in[i]};
    }
  } else {
    auto sc = constInput(n, 2, "scales");
    if (!sc) return sc.status();
    if ((*sc)->size() != 4 || (*sc)->getFloat(0) != 1.0 || (*sc)->getFloat(1) != 1.0)
      return Status::unsupported("Resize of N or C");
    for (int i = 0; i < 2; ++i) {
      double s = (*sc)->getFloat(i + 2);
      auto f = fraction(s);
      if (!f) return Status::unsupported("Resize scale " + std::to_string(s) + " is not a simple fraction");
      scale[i] = *f;
      out[i] = int64_t(std::floor(double(in[i]) * s));
      // ONNX's align_corners step with scales uses the unrounded output length in * s:
      // (in - 1) / (in * s - 1) input steps per output step, i.e. n/d = (in * p - q) / (q * (in - 1)).
      alignScale[i] = std::make_pair(in[i] * f->first - f->second, f->second * (in[i] - 1));
    }
  }
  std::vector<int64_t> scaleV, offsetV, borderV;
  for (int i = 0; i < 2; ++i) {
    int64_t sn = scale[i].first, sd = scale[i].second;
    if (ctm == "align_corners") {
      if (alignScale[i]) {
        sn = alignScale[i]->first;
        sd = alignScale[i]->second;
      } else {
        sn = out[i] - 1;
        sd = in[i] - 1;
      }
      if (sn <= 0 || sd <= 0) sn = sd = 1;  // a single row (in or out): only position 0 is sampled
    }
    int64_t g = std::gcd(sn, sd);
    sn = 2 * sn / g;  // doubled: half a step is an integer
    sd = 2 * sd / g;
    int64_t offset = 0;
    // half_pixel: x_original = (oy + 1/2) / scale - 1/2; pytorch_half_pixel is the same except that a
    // length-1 output samples x_original = 0; asymmetric and align_corners: oy / scale.
    if (ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && out[i] > 1)) offset = (sd - sn) / 2;
    if (mode == "nearest") {
      if (nearestMode == "round_prefer_floor") offset -= 1;
      else if (nearestMode == "floor") offset -= sn / 2;
      else if (nearestMode == "ceil") offset += sn / 2 - 1;
      else if (nearestMode != "round_prefer_ceil") return Status::unsupported("Resize nearest_mode '" + nearestMode + "'");
    }
    int64_t border = (out[i] - 1) * sd - (in[i] - 1) * sn + offset;
    if (offset < -sn || offset >= 16 * sn || border < -16 * sn || border >= sn || sn > 2048 || sd >= 16 * sn)
      return Status::unsupported("Resize geometry outside TOSA's limits (scale " + std::to_string(sn) + "/" +
                                 std::to_string(sd) + ", offset " + std::to_string(offset) + ")");
    scaleV.push_back(sn);
    scaleV.push_back(sd);
    offsetV.push_back(offset);
    borderV.push_back(border);
  }
  auto xv = get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  const Shape& xs = (*xv)->type.dims;
  Value* sc = b_.constShape(scaleV, aux("scale"));
  Value* of = b_.constShape(offsetV, aux("offset"));
  Value* bo = b_.constShape(borderV, aux("border"));
  Value* y = b_.op1("tosa.resize", {*xv, sc, of, bo}, ValueType::tensor(DType::FP32, {xs[0], out[0], out[1], xs[3]}),
                    {{"mode", ir::Attribute::enumCase(mode == "nearest" ? "NEAREST_NEIGHBOR" : "BILINEAR")}}, loc_);
  setValue(n, 0, y, Layout::Nhwc);
  return Status::ok();
}

// ---- loading ----

Result<::onnx::ModelProto> parseModel(const std::string& bytes, const std::string& name, const OnnxImportOptions& opts) {
  ::onnx::ModelProto model;
  if (bytes.empty()) return Status::parse(name + ": empty file");
  if (!model.ParseFromString(bytes))
    return Status::parse(name + ": not a valid ONNX model (truncated file or not a protobuf)");
  if (!model.has_graph() || model.ir_version() <= 0)
    return Status::parse(name + ": not an ONNX model (no graph or ir_version)");
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
  if (opts.convertOpset && opset > 0 && opset < 17) {
    // The converter covers most ops; when it cannot convert, keep the original (the lowering handles the
    // older attribute forms of the ops it supports).
    try {
      ::onnx::ModelProto converted = ::onnx::version_conversion::ConvertVersion(model, 17);
      model = std::move(converted);
    } catch (const std::exception&) {
    }
  }
  if (opts.runChecker && checkable) {
    try {
      ::onnx::shape_inference::InferShapes(model);
    } catch (const std::exception&) {
      // Shapes are recomputed during lowering; inference is only a consistency aid.
    }
  }
  return model;
}

}  // namespace

Result<std::unique_ptr<ir::Module>> importOnnxBytes(const std::string& bytes, const std::string& name,
                                                    const OnnxImportOptions& options) {
  auto model = parseModel(bytes, name, options);
  if (!model) return model.status();
  Importer imp(*model, name, options);
  return imp.run();
}

Result<std::unique_ptr<ir::Module>> importOnnx(const std::string& path, const OnnxImportOptions& options) {
  auto bytes = readFileBytes(path);
  if (!bytes) return bytes.status();
  return importOnnxBytes(*bytes, path, options);
}

}  // namespace tosakit::onnx
