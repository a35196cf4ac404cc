// Float TOSA graph -> quantized pure TOSA 1.0 (include/tosakit/quantize.h; docs/QUANTIZATION.md).
//
// The float function is walked op by op. Every float value gets one "primary" form in the new graph — an
// integer tensor with a scale and zero point, or a float tensor — and consumers ask for the form they need
// (getInt / getFloat), which inserts the boundary casts and rescales (TPU-MLIR 8.2 "Mixed precision").
// Constants are materialized on demand in the form their consumer needs. Chains of element-wise ops whose
// only run-time input is one tensor (sigmoid, x*sigmoid(x), HardSwish's x*clamp(x+3,0,6)/6, GELU, exp of
// softmax, ...) are not emitted op by op: a consumer that needs such a value gets one tosa.table indexed by
// the chain's input, the chain evaluated on every input code by the reference backend.
#include "tosakit/quantize.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/builder.h"
#include "quantize/fake_quant.h"
#include "quantize/quant_attrs.h"
#include "quantize/rescale_params.h"
#include "tosakit/preprocess.h"
#include "tosakit/session.h"

namespace tosakit {

namespace {

using quantize::kScaleAttr;
using quantize::kZpAttr;

using ir::Operation;
using ir::Value;

#define TK_ASSIGN(var, expr)                       \
  auto var##_result = (expr);                      \
  if (!var##_result) return var##_result.status(); \
  auto var = std::move(var##_result.value())

struct QParams {
  double scale = 1;
  int64_t zp = 0;
  bool operator==(const QParams& o) const { return scale == o.scale && zp == o.zp; }
};

// The form of a float value in the new graph: an integer tensor with its scale/zero point, or a float one.
struct Rep {
  Value* v = nullptr;
  bool isInt = false;
  QParams qp;
};

bool isFloatValue(const Value* v) { return v && !v->type.isShape() && isFloat(v->type.dtype); }
bool isIntMode(QuantMode m) { return m == QuantMode::INT8 || m == QuantMode::INT16; }
DType floatTypeOf(QuantMode m) {
  return m == QuantMode::BF16 ? DType::BF16 : m == QuantMode::F16 ? DType::FP16 : DType::FP32;
}

Tensor castTensor(const Tensor& t, DType to) {
  Tensor r(to, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) r.setFloat(i, t.getFloat(i));
  return r;
}

double maxAbs(const Tensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.size(); ++i) m = std::max(m, std::fabs(t.getFloat(i)));
  return m;
}

int64_t roundClamp(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return std::clamp<int64_t>(0, lo, hi);
  double r = std::round(v);
  if (r < double(lo)) return lo;
  if (r > double(hi)) return hi;
  return int64_t(r);
}

bool allZero(const Tensor& t) {
  for (int64_t i = 0; i < t.size(); ++i)
    if (t.getFloat(i) != 0) return false;
  return true;
}

const std::set<std::string> kChainable = {"tosa.add", "tosa.sub",     "tosa.mul",    "tosa.maximum",    "tosa.minimum",
                                          "tosa.pow", "tosa.sigmoid", "tosa.tanh",   "tosa.erf",        "tosa.exp",
                                          "tosa.log", "tosa.abs",     "tosa.negate", "tosa.reciprocal", "tosa.rsqrt",
                                          "tosa.sin", "tosa.cos",     "tosa.floor",  "tosa.ceil",       "tosa.clamp"};
// Ops whose integer output keeps the input's scale and zero point (operand 0 is the data).
const std::set<std::string> kSameDomain = {"tosa.reshape",    "tosa.transpose",  "tosa.slice",
                                           "tosa.tile",       "tosa.reverse",    "tosa.identity",
                                           "tosa.max_pool2d", "tosa.reduce_max", "tosa.reduce_min"};
// Data movement between a network's last layer and its outputs (MediaPipe: conv -> reshape -> concat -> output).
const std::set<std::string> kOutputMovement = {"tosa.reshape", "tosa.transpose", "tosa.concat", "tosa.slice",
                                               "tosa.identity"};
const std::set<std::string> kConvLike = {"tosa.conv2d", "tosa.depthwise_conv2d", "tosa.transpose_conv2d",
                                         "tosa.conv3d"};

// An error about a table, prefixed with the file it came from when the caller named one.
Status fromSource(const std::string& source, const Status& s) { return source.empty() ? s : s.withContext(source); }

class Quantizer {
 public:
  Quantizer(const ir::Function& src, const CalibrationTable& table, const QuantizeOptions& opt)
      : src_(src), table_(table), opt_(opt), dst_(std::make_unique<ir::Module>()), b_(*dst_, src.name) {
    names_ = quantize::topLevelValueNames(src);
    for (size_t i = 0; i < src.body.ops.size(); ++i) opIndex_[src.body.ops[i].get()] = i;
    for (const auto& op : src.body.ops)
      for (const Value* o : op->operands) consumers_[o].push_back(op.get());
    // The graph's own integer type: function boundaries and float layers' quantized consumers use it; a
    // layer the quantize table makes INT8 or INT16 switches act_ while it is lowered (operation()).
    defaultAct_ = opt.mode == QuantMode::INT16 ? DType::I16 : DType::I8;
    act_ = defaultAct_;
  }

  Result<std::unique_ptr<ir::Module>> run() {
    TK_RETURN_IF_ERROR(checkLayerNames());
    TK_RETURN_IF_ERROR(inputs());
    for (const auto& op : src_.body.ops) {
      if (op.get() == src_.body.terminator()) break;
      TK_RETURN_IF_ERROR(operation(*op));
    }
    TK_RETURN_IF_ERROR(outputs());
    return std::move(dst_);
  }

 private:
  // ---- names, modes, calibration ----
  std::string nameOf(const Value* v) const {
    auto it = names_.find(v);
    return it == names_.end() ? std::string("value") : it->second;
  }
  static std::string layerOf(const Operation& op) { return op.loc.name; }
  QuantMode modeOf(const Operation& op) const {
    auto it = opt_.layerModes.find(op.loc.name);
    return it == opt_.layerModes.end() ? opt_.mode : it->second;
  }
  int64_t qmin() const { return act_ == DType::I8 ? -128 : -32768; }
  int64_t qmax() const { return act_ == DType::I8 ? 127 : 32767; }

  Status checkLayerNames() const {
    std::set<std::string> layers;
    for (const auto& op : src_.body.ops) layers.insert(op->loc.name);
    for (const auto& [layer, mode] : opt_.layerModes)
      if (!layers.count(layer))
        return fromSource(opt_.quantizeTableSource,
                          Status::invalid("quantize table names layer '" + layer + "', which function '" + src_.name +
                                          "' does not have"));
    return Status::ok();
  }

  // Scale and zero point of an activation from its calibration entry (chapter 6.1). Symmetric INT8 keeps a
  // tensor that calibration saw non-negative (min >= 0: a ReLU's, a sigmoid's, a pool of either) as TPU-MLIR's
  // UINT8, S = threshold / 255 (6.1.2), in TOSA's int8 as zero point -128: the bit the signed grid spends on
  // negative values goes to resolution. This holds wherever such a tensor is quantized — also at the boundary
  // where a float layer of a quantize table hands it to an INT8 one, which otherwise loses that bit.
  Result<QParams> actParams(const Value* v, const std::string& neededBy) const {
    std::string name = nameOf(v);
    const CalibrationEntry* e = table_.find(name);
    if (!e)
      return fromSource(opt_.calibrationTableSource,
                        Status::invalid("calibration table lacks tensor '" + name + "', needed by " + neededBy));
    QParams p;
    if (opt_.asymmetric && act_ == DType::I8) {
      double lo = std::min(e->min, 0.0), hi = std::max(e->max, 0.0);
      if (hi - lo <= 0) hi = lo + 1e-6;
      p.scale = (hi - lo) / 255.0;
      p.zp = roundClamp(-lo / p.scale - 128.0, -128, 127);
    } else {
      double t = e->threshold > 0 ? e->threshold : std::max(std::fabs(e->min), std::fabs(e->max));
      if (!(t > 0)) t = 1e-6;
      p.scale = t / double(qmax());
      if (act_ == DType::I8 && e->min >= 0) p = unsignedGrid(t);
    }
    return p;
  }
  static QParams unsignedGrid(double threshold) { return QParams{threshold / 255.0, -128}; }

  // TPU-MLIR fuses a ReLU into the op before it (6.1.2). So an INT8 result whose only consumer is a ReLU/ReLU6
  // (a clamp from 0) of the same mode is written directly on that clamp's unsigned grid: the rescale saturates
  // what is below 0 to the code of 0, as the clamp would (half the step on every conv -> ReLU of a CNN).
  Result<QParams> resultParams(const Operation& op) const {
    const Operation* relu = soleReluConsumer(op);
    if (!relu) return actParams(op.results[0], op.describe());
    auto p = actParams(relu->results[0], op.describe());
    if (p && !opt_.asymmetric && p->zp == 0) *p = unsignedGrid(p->scale * double(qmax()));
    return p;
  }
  // The name of the op's integer result. On the ReLU's grid it holds the ReLU's values, not the op's: it takes a
  // helper name so that comparing by name (compare, quantize --test-input) pairs the float op with nothing and
  // the ReLU with the clamp that follows, instead of reporting the op's negative values as lost.
  std::string resultName(const Operation& op) const {
    return soleReluConsumer(op) ? op.loc.name + "/relu_grid" : op.loc.name;
  }
  const Operation* soleReluConsumer(const Operation& op) const {
    if (act_ != DType::I8 || op.results.size() != 1) return nullptr;
    auto it = consumers_.find(op.results[0]);
    if (it == consumers_.end() || it->second.size() != 1) return nullptr;
    const Operation* c = it->second[0];
    if (c->name != "tosa.clamp" || c->results.size() != 1 || modeOf(*c) != modeOf(op)) return nullptr;
    if (c->floatAttr("min_val", -1.0) != 0.0 || !(c->floatAttr("max_val") > 0.0)) return nullptr;
    return c;
  }

  // A float value that reaches only fp32 function results, directly or through data movement. Its producer, a
  // conv or matmul, hands on its int32 accumulator dequantized (S_x S_w[c] per channel) instead of
  // requantizing it to 8 bits first: an output such as landmark pixel coordinates together with their depth
  // and visibility in one tensor, or box sizes next to small offsets, has a range no one 8-bit grid serves,
  // and the output is dequantized at once anyway. With quantOutput the results are integers: no such value.
  bool feedsOnlyFloatOutputs(const Value* v) {
    if (opt_.quantOutput) return false;
    if (auto it = outputOnly_.find(v); it != outputOnly_.end()) return it->second;
    outputOnly_[v] = false;  // a cycle cannot occur in a block; guards the recursion all the same
    auto it = consumers_.find(v);
    bool only = it != consumers_.end() && !it->second.empty();
    for (size_t i = 0; only && i < it->second.size(); ++i) {
      const Operation* c = it->second[i];
      if (c == src_.body.terminator()) continue;
      only = outputTailOp(*c) && feedsOnlyFloatOutputs(c->results[0]);
    }
    return outputOnly_[v] = only;
  }

  // Whether the layer producing y hands on its dequantized accumulator. Only an int32 one: TOSA's CAST has no
  // int48 source (2.13.1), so an INT16 layer (16x8, i48 accumulator) rescales to its 16-bit grid as usual.
  bool outputFromAccumulator(const Value* y) { return accType() == DType::I32 && feedsOnlyFloatOutputs(y); }

  // An op between the last layer and the outputs that stays in fp32: data movement, or the addition of a
  // constant (a fully connected layer's bias after its matmul).
  bool outputTailOp(const Operation& op) {
    if (op.results.size() != 1 || !isIntMode(modeOf(op))) return false;
    if (kOutputMovement.count(op.name)) return true;
    return (op.name == "tosa.add" || op.name == "tosa.sub") && op.operands.size() == 2 &&
        (isConstant(op.operands[0]) || isConstant(op.operands[1]));
  }

  // The accumulator of a layer whose value feeds only float outputs, as fp32: cast, times S_x S_w[c] per
  // channel (the last axis).
  void setFloatFromAccumulator(const Value* y, Value* acc, const std::vector<double>& accScales, const Operation& op) {
    Value* f = castTo(acc, DType::FP32, op.loc.name + "/acc_f32");
    Shape cs(f->type.dims.size(), 1);
    cs.back() = int64_t(accScales.size());
    Tensor scale(DType::FP32, cs);
    for (size_t c = 0; c < accScales.size(); ++c) scale.setFloat(int64_t(c), accScales[c]);
    Value* out =
        b_.op1("tosa.mul", {f, b_.constant(std::move(scale)), b_.scalar1(DType::I8, 0)}, f->type, {}, op.loc.name);
    primary_[y] = Rep{out, false, {}};
  }

  // ---- constants ----
  // Value of a constant or of a reshape/transpose of one (weights reshaped by the importer), else null.
  const Tensor* constValue(const Value* v) {
    auto it = consts_.find(v);
    if (it != consts_.end()) return it->second ? &*it->second : nullptr;
    std::optional<Tensor> t;
    const Operation* d = v->definingOp;
    if (d && d->name == "tosa.const" && d->attr("values") && d->attr("values")->tensor) {
      t = *d->attr("values")->tensor;
    } else if (d && d->name == "tosa.reshape" && v->type.isStatic()) {
      if (const Tensor* in = constValue(d->operands[0])) {
        t = *in;
        t->reshape(v->type.dims);
      }
    } else if (d && d->name == "tosa.transpose" && v->type.isStatic()) {
      if (const Tensor* in = constValue(d->operands[0]))
        t = transposeTensor(*in, d->intArrayAttr("perms"), v->type.dims);
    }
    auto& slot = consts_[v];
    slot = std::move(t);
    return slot ? &*slot : nullptr;
  }

  static Tensor transposeTensor(const Tensor& in, const std::vector<int64_t>& perms, const Shape& outShape) {
    Tensor out(in.dtype(), outShape);
    std::vector<int64_t> idx(outShape.size(), 0), src(outShape.size(), 0);
    for (int64_t i = 0; i < out.size(); ++i) {
      int64_t rem = i;
      for (int d = int(outShape.size()) - 1; d >= 0; --d) {
        idx[size_t(d)] = rem % outShape[size_t(d)];
        rem /= outShape[size_t(d)];
      }
      for (size_t d = 0; d < perms.size(); ++d) src[size_t(perms[d])] = idx[d];
      out.setInt(i, in.getInt(in.offset(src)));
    }
    return out;
  }

  bool isConstant(const Value* v) { return constValue(v) != nullptr; }

  // Non-float operands (shapes, shifts, indices): the copied constant or the value computed in the new graph.
  Result<Value*> mapAux(const Value* v) {
    if (auto it = aux_.find(v); it != aux_.end()) return it->second;
    const Operation* d = v->definingOp;
    if (d && (d->name == "tosa.const" || d->name == "tosa.const_shape")) {
      Operation& c = b_.create(d->name, {}, {v->type}, d->attrs, d->loc);
      return aux_[v] = c.results[0];
    }
    auto it = primary_.find(v);
    if (it == primary_.end()) return Status::internal("quantize: value '" + nameOf(v) + "' used before its definition");
    return it->second.v;
  }

  // ---- conversions between forms ----
  Result<Value*> getFloat(const Value* v, DType t) {
    auto key = std::make_pair(v, int(t));
    if (auto it = floatCache_.find(key); it != floatCache_.end()) return it->second;
    Value* out = nullptr;
    if (const Tensor* c = constValue(v)) {
      out = b_.constant(castTensor(*c, t), constName(v));
    } else {
      TK_ASSIGN(r, primary(v));
      if (!r.isInt) {
        out = r.v->type.dtype == t ? r.v : castTo(r.v, t, nameOf(v) + "/cast");
      } else {
        std::string base = nameOf(v) + "/dequant";
        out = castTo(r.v, t, base);
        if (r.qp.zp != 0) out = binary("tosa.sub", out, floatScalar(t, double(r.qp.zp), out), base + "_zp");
        out = mulFloat(out, floatScalar(t, r.qp.scale, out), base + "_scale");
      }
    }
    return floatCache_[key] = out;
  }

  Result<Rep> getInt(const Value* v, const std::string& neededBy) {
    // One cached integer form per activation type: an INT16 layer reading an INT8 layer's value gets a
    // rescale i8 -> i16 to its own scale (TPU-MLIR 8.2), an INT8 consumer of the same value reuses the i8 form.
    const std::pair<const Value*, DType> key{v, act_};
    if (auto it = intCache_.find(key); it != intCache_.end()) return it->second;
    Rep out;
    if (const Tensor* c = constValue(v)) {
      // A constant activation operand: symmetric per tensor.
      double m = maxAbs(*c);
      out.qp.scale = (m > 0 ? m : 1.0) / double(qmax());
      out.v = b_.constant(quantizeTensor(*c, out.qp, act_), constName(v));
      out.isInt = true;
    } else {
      TK_ASSIGN(r, primary(v));
      if (r.isInt && r.v->type.dtype == act_) return intCache_[key] = r;
      TK_ASSIGN(qp, actParams(v, neededBy));
      out.qp = qp;
      out.isInt = true;
      std::string base = nameOf(v) + "/quant";
      if (r.isInt) {
        out.v = rescale(r.v, act_, {r.qp.scale / qp.scale}, r.qp.zp, qp.zp, base);
      } else {
        TK_ASSIGN(f, getFloat(v, DType::FP32));
        Value* x = mulFloat(f, floatScalar(DType::FP32, 1.0 / qp.scale, f), base + "_scale");
        if (qp.zp != 0) x = binary("tosa.add", x, floatScalar(DType::FP32, double(qp.zp), x), base + "_zp");
        out.v = castTo(x, act_, base);
      }
      record(out.v, qp);
    }
    return intCache_[key] = out;
  }

  Result<Rep> primary(const Value* v) {
    if (auto it = primary_.find(v); it != primary_.end()) return it->second;
    if (chainRoot_.count(v)) return materializeChain(v);
    return Status::internal("quantize: value '" + nameOf(v) + "' used before its definition");
  }

  std::string constName(const Value* v) const {
    return v->definingOp && !v->definingOp->loc.name.empty() ? v->definingOp->loc.name : std::string();
  }

  static Tensor quantizeTensor(const Tensor& t, const QParams& p, DType type) {
    Tensor q(type, t.shape());
    for (int64_t i = 0; i < t.size(); ++i)
      q.setInt(i, roundClamp(t.getFloat(i) / p.scale + double(p.zp), dtypeMin(type), dtypeMax(type)));
    return q;
  }

  // ---- emission helpers ----
  Value* castTo(Value* x, DType t, const std::string& name) {
    return b_.op1("tosa.cast", {x}, ir::ValueType::tensor(t, x->type.dims), {}, name);
  }
  // A one-element constant of x's rank (TOSA element-wise ops need equal ranks).
  Value* floatScalar(DType t, double v, const Value* like) {
    Shape s(like->type.dims.size(), 1);
    Tensor c(t, s);
    c.setFloat(0, v);
    return b_.constant(std::move(c));
  }
  Value* binary(const std::string& opName, Value* a, Value* b, const std::string& name) {
    return b_.op1(opName, {a, b}, a->type, {}, name);
  }
  Value* mulFloat(Value* a, Value* b, const std::string& name) {
    return b_.op1("tosa.mul", {a, b, b_.scalar1(DType::I8, 0)}, a->type, {}, name);
  }
  Value* rescale(Value* x, DType out, const std::vector<double>& scales, int64_t inZp, int64_t outZp,
                 const std::string& name) {
    ir::RescaleAttrs a;
    a.scale32 = x->type.dtype != DType::I48;
    for (double s : scales) {
      auto p = deriveRescaleOrClamp(s, a.scale32);
      a.multiplier.push_back(p.multiplier);
      a.shift.push_back(p.shift);
    }
    a.perChannel = scales.size() > 1;
    a.inputZp = inZp;
    a.outputZp = outZp;
    return b_.rescale(x, out, a, name);
  }
  static quantize::RescaleParams deriveRescaleOrClamp(double s, bool scale32) {
    auto p = quantize::deriveRescale(s, scale32);
    if (p) return *p;
    // Zero or non-finite (a dead channel): multiply by zero. Too large: the largest representable scale.
    if (!(s > 0) || !std::isfinite(s)) return {0, 30};
    return {scale32 ? (int64_t(1) << 31) - 1 : (1 << 15) - 1, 2};
  }
  void record(Value* v, const QParams& p) {
    if (!v->definingOp) return;
    v->definingOp->attrs[kScaleAttr] = ir::Attribute::floating(p.scale, DType::FP64);
    v->definingOp->attrs[kZpAttr] = ir::Attribute::integer(p.zp, DType::I64);
  }
  void setPrimary(const Value* v, Value* nv, const QParams& p) {
    record(nv, p);
    primary_[v] = Rep{nv, true, p};
  }

  // ---- function boundary ----
  Status inputs() {
    for (size_t i = 0; i < src_.inputs().size(); ++i) {
      const Value* a = src_.inputs()[i];
      std::string name = src_.inputName(i);
      bool quantized = opt_.quantInput && a->type.dtype == DType::FP32;
      TK_ASSIGN(recipe, preprocessRecipe(src_, i));
      if (opt_.fusePreprocess && recipe && a->type.dtype == DType::FP32) {
        TK_RETURN_IF_ERROR(fusedPreprocess(a, *recipe));
      } else if (quantized && isIntMode(opt_.mode)) {
        TK_ASSIGN(qp, actParams(a, "input '" + name + "'"));
        Value* nv = b_.input(ir::ValueType::tensor(act_, a->type.dims), a->name);
        primary_[a] = Rep{nv, true, qp};
        b_.function().setArgAttr(i, kScaleAttr, ir::Attribute::floating(qp.scale, DType::FP64));
        b_.function().setArgAttr(i, kZpAttr, ir::Attribute::integer(qp.zp, DType::I64));
      } else {
        DType t = quantized ? floatTypeOf(opt_.mode) : a->type.dtype;
        primary_[a] = Rep{b_.input(ir::ValueType::tensor(t, a->type.dims), a->name), false, {}};
      }
      // The ONNX element type describes the float argument; a quantized or fused one is no longer that.
      bool retyped = b_.function().inputs()[i]->type.dtype != a->type.dtype;
      if (i < src_.argAttrs.size())
        for (const auto& [k, attr] : src_.argAttrs[i])
          if (!b_.function().argAttr(i, k) && !(retyped && k == "tosakit.onnx_type"))
            b_.function().setArgAttr(i, k, attr);
    }
    return Status::ok();
  }

  // uint8 pixels (i8 bits) -> rescale to int16 reading them unsigned -> fp32 -> (x - mean) * scale.
  Status fusedPreprocess(const Value* a, const PreprocessRecipe& r) {
    TK_RETURN_IF_ERROR(r.checkAgainst(a->type, a->name));
    Value* img = b_.input(ir::ValueType::tensor(DType::I8, a->type.dims), a->name);
    std::string base = a->name.empty() ? std::string("input") : a->name;
    ir::RescaleAttrs ra;
    ra.inputUnsigned = true;
    ra.multiplier = {int64_t(1) << 30};  // scale 1.0 (2.13.2)
    ra.shift = {30};
    Value* wide = b_.rescale(img, DType::I16, ra, base + "/pixels");
    Value* x = castTo(wide, DType::FP32, base + "/pixels_f32");
    int channelAxis = r.channelFormat == "nhwc" ? 3 : 1;
    int64_t channels = a->type.dims[size_t(channelAxis)];
    Shape cs(4, 1);
    cs[size_t(channelAxis)] = channels;
    Tensor mean(DType::FP32, cs), scale(DType::FP32, cs);
    for (int64_t c = 0; c < channels; ++c) {
      mean.setFloat(c, r.mean[r.mean.size() == 1 ? 0 : size_t(c)]);
      scale.setFloat(c, r.scale[r.scale.size() == 1 ? 0 : size_t(c)]);
    }
    x = b_.op1("tosa.sub", {x, b_.constant(std::move(mean))}, x->type, {}, base + "/mean");
    x = b_.op1("tosa.mul", {x, b_.constant(std::move(scale)), b_.scalar1(DType::I8, 0)}, x->type, {}, base + "/scale");
    primary_[a] = Rep{x, false, {}};
    return Status::ok();
  }

  Status outputs() {
    act_ = defaultAct_;
    std::vector<Value*> outs;
    std::vector<std::string> names;
    std::vector<std::optional<QParams>> qps;
    std::vector<Value*> srcOuts = src_.outputs();
    for (size_t i = 0; i < srcOuts.size(); ++i) {
      const Value* v = srcOuts[i];
      names.push_back(i < src_.resultNames.size() ? src_.resultNames[i] : std::string());
      qps.emplace_back();
      if (!isFloatValue(v)) {
        TK_ASSIGN(x, mapAux(v));
        outs.push_back(x);
      } else if (opt_.quantOutput && isIntMode(opt_.mode) && v->type.dtype == DType::FP32) {
        TK_ASSIGN(r, getInt(v, "output '" + src_.outputName(i) + "'"));
        outs.push_back(r.v);
        qps.back() = r.qp;
      } else {
        DType t = opt_.quantOutput ? floatTypeOf(opt_.mode) : v->type.dtype;
        TK_ASSIGN(x, getFloat(v, t));
        outs.push_back(x);
      }
    }
    b_.output(outs, names);
    for (size_t i = 0; i < qps.size(); ++i) {
      if (!qps[i]) continue;
      b_.function().setResultAttr(i, kScaleAttr, ir::Attribute::floating(qps[i]->scale, DType::FP64));
      b_.function().setResultAttr(i, kZpAttr, ir::Attribute::integer(qps[i]->zp, DType::I64));
    }
    for (size_t i = 0; i < src_.resultAttrs.size() && i < outs.size(); ++i) {
      bool retyped = outs[i]->type.dtype != srcOuts[i]->type.dtype;
      for (const auto& [k, attr] : src_.resultAttrs[i])
        if (!b_.function().resultAttr(i, k) && !(retyped && k == "tosakit.onnx_type"))
          b_.function().setResultAttr(i, k, attr);
    }
    return Status::ok();
  }

  // ---- ops ----
  Status operation(const Operation& op) {
    if (op.name == "tosa.const" || op.name == "tosa.const_shape") return Status::ok();  // on demand
    if (!op.regions.empty())
      return Status::unsupported("quantize: " + op.describe() + ": control flow is not supported");
    bool allConst = !op.results.empty();
    for (const Value* r : op.results) allConst = allConst && isConstant(r);
    if (allConst) return Status::ok();
    QuantMode mode = modeOf(op);
    act_ = mode == QuantMode::INT16 ? DType::I16 : mode == QuantMode::INT8 ? DType::I8 : defaultAct_;
    bool floatResult = op.results.size() == 1 && isFloatValue(op.results[0]) &&
        op.results[0]->type.dtype == DType::FP32 && op.results[0]->type.isStatic();
    if (isIntMode(mode) && floatResult) {
      if (outputTailOp(op) && feedsOnlyFloatOutputs(op.results[0])) return cloneFloat(op, DType::FP32);
      if (chainable(op)) return Status::ok();
      TK_ASSIGN(done, integerOp(op));
      if (done) return Status::ok();
      return cloneFloat(op, DType::FP32);
    }
    return cloneFloat(op, isIntMode(mode) ? DType::FP32 : floatTypeOf(mode));
  }

  // The op in float type t: float operands converted to t, fp32 results become t (matmul keeps an fp32
  // result: bf16/fp16 matmul accumulates into fp32 in the spec's table), fp32 attributes become t.
  Status cloneFloat(const Operation& op, DType t) {
    std::vector<Value*> operands;
    for (const Value* o : op.operands) {
      Result<Value*> x = isFloatValue(o) ? getFloat(o, o->type.dtype == DType::FP32 ? t : o->type.dtype) : mapAux(o);
      if (!x) return x.status();
      operands.push_back(*x);
    }
    std::vector<ir::ValueType> types;
    for (const Value* r : op.results) {
      ir::ValueType rt = r->type;
      if (rt.dtype == DType::FP32 && !rt.isShape() && op.name != "tosa.matmul") rt.dtype = t;
      types.push_back(rt);
    }
    auto attrs = op.attrs;
    for (auto& [k, a] : attrs)
      if (a.kind == ir::Attribute::Kind::Float && a.dtype == DType::FP32) a.dtype = t;
    Operation& n = b_.create(op.name, operands, types, attrs, op.loc);
    for (size_t i = 0; i < op.results.size(); ++i) primary_[op.results[i]] = Rep{n.results[i], false, {}};
    return Status::ok();
  }

  // ---- element-wise chains as tables ----
  const Value* rootOf(const Value* v) const {
    auto it = chainRoot_.find(v);
    return it == chainRoot_.end() ? v : it->second;
  }

  bool chainable(const Operation& op) {
    if (!kChainable.count(op.name)) return false;
    const Value* root = nullptr;
    for (const Value* o : op.operands) {
      if (const Tensor* c = constValue(o)) {
        if (c->size() != 1) return false;
        continue;
      }
      if (!isFloatValue(o)) return false;
      const Value* r = rootOf(o);
      if (root && r != root) return false;
      root = r;
    }
    if (!root || root->type.rank() == 0 || root->type.dims != op.results[0]->type.dims) return false;
    if (op.name == "tosa.clamp" && root == op.operands[0]) return false;  // a plain clamp: integer clamp
    chainRoot_[op.results[0]] = root;
    return true;
  }

  Result<Rep> materializeChain(const Value* v) {
    const Value* root = chainRoot_.at(v);
    const Operation& last = *v->definingOp;
    std::string where = last.describe();
    // The chain's ops, in graph order.
    std::set<const Operation*> ops;
    std::vector<const Value*> work = {v};
    while (!work.empty()) {
      const Value* x = work.back();
      work.pop_back();
      if (x == root || isConstant(x) || !x->definingOp || ops.count(x->definingOp)) continue;
      ops.insert(x->definingOp);
      for (const Value* o : x->definingOp->operands) work.push_back(o);
    }
    std::vector<const Operation*> ordered(ops.begin(), ops.end());
    std::sort(ordered.begin(), ordered.end(),
              [&](const Operation* a, const Operation* b) { return opIndex_.at(a) < opIndex_.at(b); });
    TK_ASSIGN(in, getInt(root, where));
    TK_ASSIGN(qy, actParams(v, where));
    bool int16 = act_ == DType::I16;
    size_t n = int16 ? 513 : 256;
    std::vector<double> xs(n);
    for (size_t i = 0; i < n; ++i) {
      double code = int16 ? double((int64_t(i) - 256) * 128) : double(int64_t(i) - 128);
      xs[i] = in.qp.scale * (code - double(in.qp.zp));
    }
    TK_ASSIGN(ys, evaluateChain(ordered, root, v, xs));
    std::vector<int64_t> entries(n);
    for (size_t i = 0; i < n; ++i) entries[i] = roundClamp(ys[i] / qy.scale + double(qy.zp), qmin(), qmax());
    if (int16)  // apply_lookup_s REQUIREs each slope to fit int16
      for (size_t i = 1; i < n; ++i)
        entries[i] = std::clamp(entries[i], entries[i - 1] - 32767, entries[i - 1] + 32767);
    Value* table = b_.constant(Tensor::fromInts(act_, {int64_t(n)}, entries), last.loc.name + "/table_values");
    Value* out;
    if (!int16) {
      out = b_.op1("tosa.table", {in.v, table}, ir::ValueType::tensor(DType::I8, v->type.dims), {}, last.loc.name);
    } else {
      // 16.7 fixed point out of the table (2.5.17), scaled back to int16 by 2^-7.
      Value* t32 = b_.op1("tosa.table", {in.v, table}, ir::ValueType::tensor(DType::I32, v->type.dims), {},
                          last.loc.name + "/table");
      out = rescale(t32, DType::I16, {1.0 / 128.0}, 0, 0, last.loc.name);
    }
    out->definingOp->loc = last.loc;
    setPrimary(v, out, qy);
    return primary_[v];
  }

  // The chain's function on the points xs, by the reference backend in fp64 (precise mode).
  Result<std::vector<double>> evaluateChain(const std::vector<const Operation*>& ops, const Value* root, const Value* v,
                                            const std::vector<double>& xs) {
    auto m = std::make_unique<ir::Module>();
    ir::Builder bb(*m, "main");
    Shape shape(size_t(root->type.rank()), 1);
    shape.back() = int64_t(xs.size());
    std::map<const Value*, Value*> map;
    map[root] = bb.input(ir::ValueType::tensor(DType::FP32, shape), "x");
    for (const Operation* op : ops) {
      std::vector<Value*> operands;
      for (const Value* o : op->operands) {
        if (auto it = map.find(o); it != map.end()) {
          operands.push_back(it->second);
        } else if (const Tensor* c = constValue(o)) {
          operands.push_back(map[o] = bb.constant(*c));
        } else {
          return Status::internal("quantize: chain operand outside the chain at " + op->describe());
        }
      }
      Operation& n = bb.create(op->name, operands, {ir::ValueType::tensor(DType::FP32, shape)}, op->attrs, op->loc);
      map[op->results[0]] = n.results[0];
    }
    bb.output({map.at(v)}, {"y"});
    SessionOptions so;
    so.precise = true;
    TK_ASSIGN(session, Session::create(std::move(m), so));
    RunResult rr;
    TK_RETURN_IF_ERROR(session->run({{"x", Tensor::fromDoubles(DType::FP32, shape, xs)}}, rr));
    return rr.outputs.at(0).second.toDoubles();
  }

  // ---- integer lowering of one op; false when the op has no integer form here (it stays float) ----
  Result<bool> integerOp(const Operation& op) {
    if (kConvLike.count(op.name)) return convLike(op);
    if (op.name == "tosa.matmul") return matmul(op);
    if (op.name == "tosa.add" || op.name == "tosa.sub") return addSub(op);
    if (op.name == "tosa.mul") return mul(op);
    if (op.name == "tosa.clamp") return clamp(op);
    if (op.name == "tosa.avg_pool2d") return avgPool(op);
    if (op.name == "tosa.pad") return pad(op);
    if (op.name == "tosa.concat") return concat(op);
    if (op.name == "tosa.reduce_sum") return reduceSum(op);
    if (op.name == "tosa.resize" && op.strAttr("mode") == "NEAREST_NEIGHBOR") return sameDomain(op);
    if (kSameDomain.count(op.name)) return sameDomain(op);
    return false;
  }

  bool zeroConst(const Value* v) {
    const Tensor* t = constValue(v);
    return t && allZero(*t);
  }

  DType accType() const { return act_ == DType::I8 ? DType::I32 : DType::I48; }

  // Weight scales: symmetric, per output channel unless per tensor (6.3.1).
  std::vector<double> weightScales(const Tensor& w, const std::string& opName, double qmaxW) const {
    int64_t channels = quantize::weightOutputChannels(w, opName);
    std::vector<double> range(size_t(channels), 0.0);
    for (int64_t i = 0; i < w.size(); ++i) {
      double& r = range[size_t(quantize::weightOutputChannel(w, opName, i))];
      r = std::max(r, std::fabs(w.getFloat(i)));
    }
    if (opt_.perTensor) std::fill(range.begin(), range.end(), *std::max_element(range.begin(), range.end()));
    std::vector<double> scales;
    for (double r : range) scales.push_back((r > 0 ? r : 1.0) / qmaxW);
    return scales;
  }

  Tensor quantizeWeights(const Tensor& w, const std::string& opName, const std::vector<double>& scales, DType t) {
    Tensor q(t, w.shape());
    int64_t lim = dtypeMax(t);
    for (int64_t i = 0; i < w.size(); ++i) {
      double s = scales[size_t(quantize::weightOutputChannel(w, opName, i))];
      q.setInt(i, roundClamp(w.getFloat(i) / s, -lim, lim));
    }
    return q;
  }

  // The bias in accumulator units, |b| / (S_x S_w), must leave room for the products: at most 2^30 (int32) or
  // 2^46 (int48). A channel with a large bias, small weights and a small input scale (PP-OCRv4's recognizer
  // has such) would otherwise get a saturated bias and an accumulation that overflows (TOSA: unpredictable);
  // its weight scale is raised instead, which only coarsens weights that hardly matter next to the bias.
  void fitBiasInAccumulator(std::vector<double>& ws, const Tensor& bias, double sx, DType acc) const {
    double lim = double(int64_t(1) << (acc == DType::I32 ? 30 : 46));
    for (size_t c = 0; c < ws.size(); ++c) {
      double bc = std::fabs(bias.getFloat(bias.size() == 1 ? 0 : int64_t(c)));
      ws[c] = std::max(ws[c], bc / (sx * lim));
    }
    if (opt_.perTensor) std::fill(ws.begin(), ws.end(), *std::max_element(ws.begin(), ws.end()));
  }

  Result<bool> convLike(const Operation& op) {
    const Tensor* w = constValue(op.operands[1]);
    const Tensor* bias = constValue(op.operands[2]);
    if (!w || !bias || op.operands.size() < 5 || !zeroConst(op.operands[3]) || !zeroConst(op.operands[4])) return false;
    const Value* y = op.results[0];
    TK_ASSIGN(x, getInt(op.operands[0], op.describe()));
    const bool floatOut = outputFromAccumulator(y);
    QParams qy;
    if (!floatOut) {
      TK_ASSIGN(p, resultParams(op));
      qy = p;
    }
    std::vector<double> ws = weightScales(*w, op.name, 127.0);
    DType acc = accType();
    fitBiasInAccumulator(ws, *bias, x.qp.scale, acc);
    Tensor wq = quantizeWeights(*w, op.name, ws, DType::I8);
    int64_t oc = int64_t(ws.size());
    Tensor bq(acc, {oc});
    int64_t accLim = acc == DType::I32 ? dtypeMax(DType::I32) : (int64_t(1) << 47) - 1;
    std::vector<double> scales;
    for (int64_t c = 0; c < oc; ++c) {
      double bc = bias->getFloat(bias->size() == 1 ? 0 : c);
      bq.setInt(c, roundClamp(bc / (x.qp.scale * ws[size_t(c)]), -accLim, accLim));
      if (!floatOut) scales.push_back(x.qp.scale * ws[size_t(c)] / qy.scale);
    }
    if (opt_.perTensor || oc == 1) scales.resize(1);
    std::string name = op.loc.name;
    Value* wv = b_.constant(std::move(wq), constName(op.operands[1]));
    Value* bv = b_.constant(std::move(bq), constName(op.operands[2]));
    auto attrs = op.attrs;
    attrs["acc_type"] = ir::Attribute::type(acc);
    Value* accV = b_.op1(op.name, {x.v, wv, bv, b_.scalar1(act_, double(x.qp.zp)), b_.scalar1(DType::I8, 0)},
                         ir::ValueType::tensor(acc, y->type.dims), attrs, name + "/acc");
    if (floatOut) {
      std::vector<double> accScales;
      for (double s : ws) accScales.push_back(x.qp.scale * s);
      setFloatFromAccumulator(y, accV, accScales, op);
      return true;
    }
    setPrimary(y, rescale(accV, act_, scales, 0, qy.zp, resultName(op)), qy);
    return true;
  }

  Result<bool> matmul(const Operation& op) {
    if (!zeroConst(op.operands[2]) || !zeroConst(op.operands[3])) return false;
    const Value* y = op.results[0];
    TK_ASSIGN(a, getInt(op.operands[0], op.describe()));
    const bool floatOut = outputFromAccumulator(y);
    QParams qy;
    if (!floatOut) {
      TK_ASSIGN(p, resultParams(op));
      qy = p;
    }
    Value* bv;
    std::vector<double> bs;
    int64_t bzp = 0;
    if (const Tensor* w = constValue(op.operands[1])) {
      bs = weightScales(*w, op.name, double(qmax()));
      bv = b_.constant(quantizeWeights(*w, op.name, bs, act_), constName(op.operands[1]));
    } else {
      TK_ASSIGN(b, getInt(op.operands[1], op.describe()));
      bv = b.v;
      bs = {b.qp.scale};
      bzp = b.qp.zp;
    }
    std::vector<double> scales;
    for (double s : bs) scales.push_back(a.qp.scale * s / qy.scale);
    if (opt_.perTensor || scales.size() == 1) scales.resize(1);
    Value* accV = b_.op1("tosa.matmul", {a.v, bv, b_.scalar1(act_, double(a.qp.zp)), b_.scalar1(act_, double(bzp))},
                         ir::ValueType::tensor(accType(), y->type.dims), {}, op.loc.name + "/acc");
    if (floatOut) {
      std::vector<double> accScales;
      for (double s : bs) accScales.push_back(a.qp.scale * s);
      if (accScales.size() != size_t(y->type.dims.back())) accScales.resize(1);
      setFloatFromAccumulator(y, accV, accScales, op);
      return true;
    }
    setPrimary(y, rescale(accV, act_, scales, 0, qy.zp, resultName(op)), qy);
    return true;
  }

  // An operand of add/sub/mul as int32: a dynamic tensor rescaled (its zero point removed) or a constant.
  struct I32Operand {
    Value* v = nullptr;
    double scale = 1;
  };

  // Add/sub (6.3.3): both operands rescaled to a common int32 scale, added, rescaled to the output.
  Result<bool> addSub(const Operation& op) {
    const Value* y = op.results[0];
    TK_ASSIGN(qy, resultParams(op));
    std::vector<Rep> reps(2);
    std::vector<double> scales(2);
    for (int i = 0; i < 2; ++i) {
      const Value* o = op.operands[size_t(i)];
      if (const Tensor* c = constValue(o)) {
        scales[size_t(i)] = std::max(maxAbs(*c), 1e-30) / double(qmax());
      } else {
        TK_ASSIGN(r, getInt(o, op.describe()));
        reps[size_t(i)] = r;
        scales[size_t(i)] = r.qp.scale;
      }
    }
    // Headroom: int8 values * 2^20 and int16 values * 2^13 keep the sum inside int32.
    double common = std::max(scales[0], scales[1]) / double(act_ == DType::I8 ? 1 << 20 : 1 << 13);
    std::vector<Value*> ops32;
    for (int i = 0; i < 2; ++i) {
      const Value* o = op.operands[size_t(i)];
      if (const Tensor* c = constValue(o)) {
        ops32.push_back(b_.constant(quantizeTensor(*c, {common, 0}, DType::I32), constName(o)));
      } else {
        const Rep& r = reps[size_t(i)];
        ops32.push_back(
            rescale(r.v, DType::I32, {r.qp.scale / common}, r.qp.zp, 0, op.loc.name + "/in" + std::to_string(i)));
      }
    }
    Value* sum = b_.op1(op.name, ops32, ir::ValueType::tensor(DType::I32, y->type.dims), {}, op.loc.name + "/i32");
    setPrimary(y, rescale(sum, act_, {common / qy.scale}, 0, qy.zp, resultName(op)), qy);
    return true;
  }

  Result<bool> mul(const Operation& op) {
    const Value* y = op.results[0];
    if (!zeroConst(op.operands[2])) return false;
    TK_ASSIGN(qy, resultParams(op));
    std::vector<Value*> ops32;
    double scale = 1;
    for (int i = 0; i < 2; ++i) {
      const Value* o = op.operands[size_t(i)];
      if (const Tensor* c = constValue(o)) {
        QParams p{std::max(maxAbs(*c), 1e-30) / 32767.0, 0};
        ops32.push_back(b_.constant(quantizeTensor(*c, p, DType::I32), constName(o)));
        scale *= p.scale;
      } else {
        TK_ASSIGN(r, getInt(o, op.describe()));
        ops32.push_back(rescale(r.v, DType::I32, {1.0}, r.qp.zp, 0, op.loc.name + "/in" + std::to_string(i)));
        scale *= r.qp.scale;
      }
    }
    ops32.push_back(b_.scalar1(DType::I8, 0));
    Value* prod = b_.op1("tosa.mul", ops32, ir::ValueType::tensor(DType::I32, y->type.dims), {}, op.loc.name + "/i32");
    setPrimary(y, rescale(prod, act_, {scale / qy.scale}, 0, qy.zp, resultName(op)), qy);
    return true;
  }

  // A clamp (ReLU, ReLU6) on the input's integer grid; the output keeps the input's scale (6.3.5).
  Result<bool> clamp(const Operation& op) {
    TK_ASSIGN(x, getInt(op.operands[0], op.describe()));
    auto bound = [&](double v) {
      return ir::Attribute::integer(roundClamp(v / x.qp.scale + double(x.qp.zp), qmin(), qmax()), act_);
    };
    auto attrs = op.attrs;
    attrs["min_val"] = bound(op.floatAttr("min_val"));
    attrs["max_val"] = bound(op.floatAttr("max_val"));
    attrs.erase("nan_mode");
    Value* out = b_.op1("tosa.clamp", {x.v}, ir::ValueType::tensor(act_, op.results[0]->type.dims), attrs, op.loc.name);
    setPrimary(op.results[0], out, x.qp);
    return true;
  }

  // Average pool (6.3.4): TOSA's integer avg_pool2d divides by the count itself; same scale, zero point.
  Result<bool> avgPool(const Operation& op) {
    if (!zeroConst(op.operands[1]) || !zeroConst(op.operands[2])) return false;
    TK_ASSIGN(x, getInt(op.operands[0], op.describe()));
    auto attrs = op.attrs;
    attrs["acc_type"] = ir::Attribute::type(DType::I32);
    Value* out = b_.op1("tosa.avg_pool2d", {x.v, b_.scalar1(act_, double(x.qp.zp)), b_.scalar1(act_, double(x.qp.zp))},
                        ir::ValueType::tensor(act_, op.results[0]->type.dims), attrs, op.loc.name);
    setPrimary(op.results[0], out, x.qp);
    return true;
  }

  // Pad (6.3.6): the pad value quantized with the input's scale and zero point.
  Result<bool> pad(const Operation& op) {
    const Tensor* padConst = op.operands.size() > 2 ? constValue(op.operands[2]) : nullptr;
    if (!padConst) return false;
    TK_ASSIGN(x, getInt(op.operands[0], op.describe()));
    TK_ASSIGN(padding, mapAux(op.operands[1]));
    Value* pc = b_.constant(quantizeTensor(*padConst, x.qp, act_), constName(op.operands[2]));
    Value* out = b_.op1("tosa.pad", {x.v, padding, pc}, ir::ValueType::tensor(act_, op.results[0]->type.dims), op.attrs,
                        op.loc.name);
    setPrimary(op.results[0], out, x.qp);
    return true;
  }

  // Concat: every input rescaled to the output's calibrated scale and zero point.
  Result<bool> concat(const Operation& op) {
    const Value* y = op.results[0];
    TK_ASSIGN(qy, actParams(y, op.describe()));
    std::vector<Value*> ins;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Value* o = op.operands[i];
      if (const Tensor* c = constValue(o)) {
        ins.push_back(b_.constant(quantizeTensor(*c, qy, act_), constName(o)));
        continue;
      }
      TK_ASSIGN(r, getInt(o, op.describe()));
      ins.push_back(r.qp == qy ? r.v
                               : rescale(r.v, act_, {r.qp.scale / qy.scale}, r.qp.zp, qy.zp,
                                         op.loc.name + "/in" + std::to_string(i)));
    }
    Value* out = b_.op1("tosa.concat", ins, ir::ValueType::tensor(act_, y->type.dims), op.attrs, op.loc.name);
    setPrimary(y, out, qy);
    return true;
  }

  Result<bool> reduceSum(const Operation& op) {
    const Value* y = op.results[0];
    TK_ASSIGN(x, getInt(op.operands[0], op.describe()));
    TK_ASSIGN(qy, actParams(y, op.describe()));
    Value* x32 = rescale(x.v, DType::I32, {1.0}, x.qp.zp, 0, op.loc.name + "/in0");
    Value* sum = b_.op1("tosa.reduce_sum", {x32}, ir::ValueType::tensor(DType::I32, y->type.dims), op.attrs,
                        op.loc.name + "/i32");
    setPrimary(y, rescale(sum, act_, {x.qp.scale / qy.scale}, 0, qy.zp, op.loc.name), qy);
    return true;
  }

  // Data movement and max-like ops: integer in, integer out, same scale and zero point.
  Result<bool> sameDomain(const Operation& op) {
    TK_ASSIGN(x, getInt(op.operands[0], op.describe()));
    std::vector<Value*> operands = {x.v};
    for (size_t i = 1; i < op.operands.size(); ++i) {
      if (isFloatValue(op.operands[i])) return false;
      TK_ASSIGN(aux, mapAux(op.operands[i]));
      operands.push_back(aux);
    }
    Value* out =
        b_.op1(op.name, operands, ir::ValueType::tensor(act_, op.results[0]->type.dims), op.attrs, op.loc.name);
    setPrimary(op.results[0], out, x.qp);
    return true;
  }

  const ir::Function& src_;
  const CalibrationTable& table_;
  const QuantizeOptions& opt_;
  std::unique_ptr<ir::Module> dst_;
  ir::Builder b_;
  DType defaultAct_ = DType::I8;
  DType act_ = DType::I8;  // the activation type of the layer being lowered
  std::map<const Value*, std::string> names_;
  std::map<const Operation*, size_t> opIndex_;
  std::map<const Value*, std::optional<Tensor>> consts_;
  std::map<const Value*, Rep> primary_;
  std::map<std::pair<const Value*, DType>, Rep> intCache_;
  std::map<std::pair<const Value*, int>, Value*> floatCache_;
  std::map<const Value*, Value*> aux_;
  std::map<const Value*, const Value*> chainRoot_;
  std::map<const Value*, std::vector<const Operation*>> consumers_;  // every use, the return included
  std::map<const Value*, bool> outputOnly_;                          // feedsOnlyFloatOutputs, memoized
};

}  // namespace

Result<std::unique_ptr<ir::Module>> quantizeModel(const ir::Module& floatModel, const CalibrationTable& table,
                                                  const QuantizeOptions& options) {
  const ir::Function* fn = floatModel.function(options.function);
  if (!fn) return Status::invalid("quantize: the model has no function '" + options.function + "'");
  if (floatModel.functions.size() != 1)
    return Status::unsupported("quantize: modules with more than one function are not supported");
  if (!table.entries.empty())
    TK_RETURN_IF_ERROR(checkCalibrationTableNames(
        table, *fn, options.calibrationTableSource.empty() ? "calibration table" : options.calibrationTableSource));
  Quantizer q(*fn, table, options);
  return q.run();
}

}  // namespace tosakit
