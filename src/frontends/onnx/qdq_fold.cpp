// QDQ folding (docs/ONNX.md "Pre-quantized QDQ models"): DequantizeLinear -> op -> [Relu/Clip] ->
// QuantizeLinear patterns of the top-level graph become integer TOSA at import, the way ONNX Runtime fuses
// them into its integer kernels (QLinearConv, QLinearMatMul, QGemm, QLinearAdd, QLinearGlobalAveragePool, and
// dropped Q/DQ pairs around data movement).
//
// The pass works while lowering: opDequantizeLinear records each DequantizeLinear output with its integer
// source and parameters (Importer::dequantized); when the walk reaches an op whose inputs are recorded and
// whose only consumer chain ends in a QuantizeLinear with constant per-tensor parameters, the op is lowered on
// the integers and defines the QuantizeLinear's output; the absorbed Relu/Clip and the QuantizeLinear are
// skipped. The float DequantizeLinear ops left without consumers are removed at the end (removeDeadOps).
// Anything else (a Q/DQ pair outside a pattern) keeps its explicit float lowering.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/quant_internal.h"

namespace tosakit::onnx {

Status setQdqMode(OnnxImportOptions& options, const std::string& mode) {
  if (mode != "fold" && mode != "fold-ort" && mode != "keep")
    return Status::invalid("qdq mode '" + mode + "': expected fold, fold-ort or keep");
  options.foldQdq = mode != "keep";
  options.requantizeLikeOrt = mode == "fold-ort";
  return Status::ok();
}

namespace {

using ir::RescaleAttrs;

// The QuantizeLinear that ends a pattern, the activations it absorbs and the output range they leave.
struct QuantizeStep {
  const NodeProto* q = nullptr;
  std::vector<const NodeProto*> absorbed;  // Relu/Clip between the op and q
  float scale = 1;
  int64_t zp = 0;
  DType type = DType::U8;
  int64_t lo = 0, hi = 255;  // output range in the output type
  bool shifted = false;      // a uint8 output carried as int8 u - 128 (type I8, zp and range moved by -128)
};

const NodeProto* soleConsumer(Importer& im, const std::string& value) {
  auto it = im.consumers.find(value);
  if (it == im.consumers.end() || it->second.size() != 1 || im.uses[value] != 1) return nullptr;
  return it->second[0];
}

// Constant input i; a Constant node placed later in the graph (exporters put them next to their consumer) is
// lowered now. Null when the input is absent or not a constant.
const Tensor* constAhead(Importer& im, const NodeProto& n, int i) {
  if (!im.hasInput(n, i)) return nullptr;
  const std::string& name = n.input(i);
  auto it = im.vals.find(name);
  if (it == im.vals.end()) {
    auto p = im.producers.find(name);
    if (p == im.producers.end() || p->second->op_type() != "Constant" || !im.lowerSynthetic(*p->second).isOk())
      return nullptr;
    it = im.vals.find(name);
    if (it == im.vals.end()) return nullptr;
  }
  return it->second.isConst() ? it->second.c.get() : nullptr;
}

// ONNX QuantizeLinear of one float value (round half to even, saturate).
int64_t quantizeScalar(double v, float scale, int64_t zp, int64_t qmin, int64_t qmax) {
  const double q = std::nearbyint(double(float(v) / scale)) + double(zp);
  return int64_t(std::min(std::max(q, double(qmin)), double(qmax)));
}

Status checkScale(double s, const NodeProto& n) {
  if (s > 0 && std::isfinite(s)) return Status::ok();
  const std::string name = n.name().empty() ? n.output(0) : n.name();
  return Status::invalid(n.op_type() + " '" + name + "': scale " + std::to_string(s) +
                         " (a quantization scale must be positive and finite)");
}

}  // namespace

bool carriesU8AsI8(Importer& im, const std::string& value) {
  if (!im.opts.foldQdq) return false;
  auto users = im.consumers.find(value);
  if (users == im.consumers.end() || users->second.empty() || im.uses[value] != int(users->second.size()))
    return false;  // unread, or a graph output
  for (const NodeProto* d : users->second) {
    if (!d->domain().empty() || d->input(0) != value) return false;
    if (d->op_type() == "Cast" && im.attrInt(*d, "to", 0) == ::onnx::TensorProto::UINT8) {
      if (!carriesU8AsI8(im, d->output(0))) return false;  // PyTorch exports Q -> Cast(uint8) -> DQ
      continue;
    }
    if (d->op_type() != "DequantizeLinear") return false;
    for (int i : {1, 2})
      if (im.hasInput(*d, i) && !constAhead(im, *d, i)) return false;
  }
  return true;
}

namespace {

// The [Relu/Clip ->] QuantizeLinear chain that is the only consumer of op's output 0, with constant per-tensor
// parameters; nullopt when op's output goes anywhere else. Q is monotone, so Q(clip(y, a, b)) =
// clip(Q(y), Q(a), Q(b)): Relu and Clip become bounds of the output range. An int16 Q only when `allow16`.
Result<std::optional<QuantizeStep>> quantizeAfter(Importer& im, const NodeProto& op, bool allow16 = false) {
  QuantizeStep st;
  double clipLo = -std::numeric_limits<double>::infinity(), clipHi = std::numeric_limits<double>::infinity();
  const NodeProto* c = soleConsumer(im, op.output(0));
  while (c && c->domain().empty() && (c->op_type() == "Relu" || c->op_type() == "Clip")) {
    if (c->op_type() == "Relu") {
      clipLo = std::max(clipLo, 0.0);
    } else {
      for (int i : {1, 2}) {
        if (!im.hasInput(*c, i)) continue;
        const Tensor* t = constAhead(im, *c, i);
        if (!t || t->size() != 1) return std::optional<QuantizeStep>();
        (i == 1 ? clipLo : clipHi) = t->getFloat(0);
      }
    }
    st.absorbed.push_back(c);
    c = soleConsumer(im, c->output(0));
  }
  if (!c || !c->domain().empty() || c->op_type() != "QuantizeLinear") return std::optional<QuantizeStep>();
  const Tensor* s = constAhead(im, *c, 1);
  if (!s || s->size() != 1) return std::optional<QuantizeStep>();
  if (im.hasInput(*c, 2)) {
    const Tensor* z = constAhead(im, *c, 2);
    if (!z || z->size() != 1) return std::optional<QuantizeStep>();
    st.type = z->dtype();
    st.zp = z->getInt(0);
  }
  const bool int16 = st.type == DType::I16;
  if (!isQuantType(st.type) && !(allow16 && int16)) return std::optional<QuantizeStep>();
  TK_RETURN_IF_ERROR(checkScale(s->getFloat(0), *c));
  st.q = c;
  st.scale = float(s->getFloat(0));
  const int64_t qmin = st.type == DType::U8 ? 0 : int16 ? -32768 : -128, qmax = int16 ? 32767 : qmin + 255;
  st.lo = std::isfinite(clipLo) ? quantizeScalar(clipLo, st.scale, st.zp, qmin, qmax) : qmin;
  st.hi = std::isfinite(clipHi) ? quantizeScalar(clipHi, st.scale, st.zp, qmin, qmax) : qmax;
  if (st.type == DType::U8 && carriesU8AsI8(im, c->output(0))) {  // the same steps, 128 lower
    st.type = DType::I8;
    st.zp -= 128;
    st.lo -= 128;
    st.hi -= 128;
    st.shifted = true;
  }
  return std::optional<QuantizeStep>(st);
}

// Input i when it is a recorded DequantizeLinear output (per tensor when `perTensor`; int16 only when `allow16`).
const Importer::DequantSource* dequantizedInput(Importer& im, const NodeProto& n, int i, bool perTensor,
                                                bool allow16 = false) {
  if (!im.hasInput(n, i)) return nullptr;
  auto it = im.dequantized.find(n.input(i));
  if (it == im.dequantized.end() || (perTensor && it->second.scales.size() != 1)) return nullptr;
  if (it->second.type == DType::I16 && !allow16) return nullptr;  // the int16 folds opt in
  return &it->second;
}

OVal& sourceOf(Importer& im, const Importer::DequantSource& d) { return im.vals.at(d.src); }

// A run-time value stored NHWC. Not OVal::prefersNhwc: the float DequantizeLinear lowering of a folded value
// also makes a plain copy, dead once the pattern is folded, which must not decide the layout.
bool storedNhwc(const OVal& v) { return !v.isConst() && v.nhwc != nullptr; }

// The 8-bit run-time value a per-tensor DequantizeLinear reads (null when it is a constant or not 8-bit).
const Importer::DequantSource* dequantized8(Importer& im, const NodeProto& n, int i) {
  const Importer::DequantSource* d = dequantizedInput(im, n, i, true);
  if (!d || !isQuantType(d->type) || sourceOf(im, *d).isConst()) return nullptr;
  return d;
}

// Whether an op that moves values (same parameters in and out) can define the QuantizeLinear's output with
// its input's integers. A uint8 input read as uint8 bits keeps a uint8 output that would be carried as int8
// (the step goes back to uint8).
bool sameParameters(const Importer::DequantSource& d, QuantizeStep& st) {
  if (st.shifted && d.type == DType::U8) {
    st.type = DType::U8;
    st.zp += 128;
    st.lo += 128;
    st.hi += 128;
    st.shifted = false;
  }
  return float(d.scales[0]) == st.scale && d.zps[0] == st.zp && d.type == st.type;
}

// Skips the QuantizeLinear (whose output the caller defined) and the absorbed activations.
void foldAway(Importer& im, const QuantizeStep& st) {
  if (st.shifted) im.shiftedU8.insert(st.q->output(0));
  for (const NodeProto* a : st.absorbed) im.foldedAway.insert(a);
  im.foldedAway.insert(st.q);
  im.foldedAny = true;
}

// Defines the QuantizeLinear's output and skips it and the absorbed activations.
void finish(Importer& im, const QuantizeStep& st, Value* y, Layout layout) {
  im.setValue(*st.q, 0, y, layout, st.type);
  foldAway(im, st);
}

// The int32 bias of an integer conv/gemm: DequantizeLinear of an int32 constant with zero point 0 (its scale is
// x_scale * w_scale by construction; ONNX Runtime adds the integers as they are too).
Result<std::optional<Tensor>> int32Bias(Importer& im, const NodeProto& n, int i, int64_t channels) {
  const Importer::DequantSource* d = dequantizedInput(im, n, i, false);
  if (!d || d->type != DType::I32 || !sourceOf(im, *d).isConst()) return std::optional<Tensor>();
  for (int64_t z : d->zps)
    if (z != 0) return std::optional<Tensor>();
  const Tensor& t = *sourceOf(im, *d).c;
  if (t.size() != channels) return Status::invalid("bias length does not match the output channels");
  return std::optional<Tensor>(reshapeTensor(t, {channels}));
}

// x_scale * w_scale[c] / y_scale in float32, in the order ONNX Runtime's integer kernels compute it, so that
// RESCALE multiplies by exactly the float scale they use (a float's 24-bit mantissa fits the 31-bit multiplier).
std::vector<double> outputScales(float xScale, const std::vector<double>& wScales, float yScale) {
  std::vector<double> s;
  for (double w : wScales) s.push_back(double(xScale * float(w) / yScale));
  return s;
}

// What an integer conv / transpose conv needs after its input and weight: the optional int32 bias (input 2,
// `channels` long), the QuantizeLinear step after n and the weight's single zero point; nullopt when n is not
// such a pattern.
struct ConvTail {
  std::optional<Tensor> bias;
  QuantizeStep st;
  int64_t wZp = 0;
};

Result<std::optional<ConvTail>> convTail(Importer& im, const NodeProto& n, const Importer::DequantSource& dw,
                                         int64_t channels) {
  ConvTail t;
  if (im.hasInput(n, 2)) {
    auto b = int32Bias(im, n, 2, channels);
    if (!b) return b.status();
    if (!*b) return std::optional<ConvTail>();
    t.bias = std::move(*b);
  }
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return std::optional<ConvTail>();
  t.st = **st;
  auto wz = perTensorZp(dw.zps, "weight zero point");
  if (!wz) return std::optional<ConvTail>();
  t.wZp = *wz;
  return std::optional<ConvTail>(std::move(t));
}

// DQ(x) , DQ(w const) [, DQ(bias int32)] -> Conv -> [Relu/Clip] -> Q  =>  i8 conv2d + RESCALE.
Result<bool> foldConv(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantizedInput(im, n, 0, true);
  const Importer::DequantSource* dw = dequantizedInput(im, n, 1, false);
  if (!dx || !dw || !sourceOf(im, *dw).isConst()) return false;
  OVal& x = sourceOf(im, *dx);
  const Tensor& w = *sourceOf(im, *dw).c;
  if (x.shape.size() != 4 || w.shape().size() != 4 || !isQuantType(w.dtype())) return false;
  const int64_t group = im.attrInt(n, "group", 1);
  if (group != 1 && !(group == x.shape[1] && w.shape()[1] == 1)) return false;  // group 1 or depthwise
  if (dw->scales.size() > 1 && dw->axis != 0) return false;
  auto t = convTail(im, n, *dw, w.shape()[0]);
  if (!t) return t.status();
  if (!*t) return false;
  const QuantizeStep& st = (*t)->st;
  auto acc = integerConv(im, n, x, w, dx->zps[0], (*t)->wZp, (*t)->bias ? &*(*t)->bias : nullptr, im.aux("conv"));
  if (!acc) return acc.status();
  auto y = requantize(im, *acc, outputScales(float(dx->scales[0]), dw->scales, st.scale), st.zp, st.type, st.lo, st.hi);
  if (!y) return y.status();
  finish(im, st, *y, Layout::Nhwc);
  return true;
}

// DQ(x) , DQ(w const [IC, OC / group, KH, KW], per tensor or per output channel) [, DQ(int32 bias)] -> ConvTranspose
// (2-D, any group, no dilation, explicit pads) -> [Relu/Clip]* -> Q  =>  i8 transpose_conv2d per group + RESCALE. ONNX
// Runtime has no integer ConvTranspose: it runs the float op between the Q/DQ pairs.
Result<bool> foldConvTranspose(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantized8(im, n, 0);
  const Importer::DequantSource* dw = dequantizedInput(im, n, 1, false);
  if (!dx || !dw || !sourceOf(im, *dw).isConst()) return false;
  OVal& x = sourceOf(im, *dx);
  const Tensor& w = *sourceOf(im, *dw).c;
  if (x.shape.size() != 4 || w.shape().size() != 4 || !isQuantType(w.dtype()) || w.shape()[0] != x.shape[1])
    return false;
  const int64_t groups = im.attrInt(n, "group", 1);
  if (groups < 1 || x.shape[1] % groups != 0 || im.attr(n, "output_shape") ||
      im.attrStr(n, "auto_pad", "NOTSET") != "NOTSET")
    return false;
  for (int64_t d : im.attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1}))
    if (d != 1) return false;
  if (dw->scales.size() > 1 && dw->axis != 1) return false;
  // Weight [IC, OC / group, KH, KW]: output channel g * OC/group + j of group g uses the axis-1 scale j.
  const int64_t ocg = w.shape()[1], oc = ocg * groups, icg = x.shape[1] / groups, kh = w.shape()[2], kw = w.shape()[3];
  const std::vector<int64_t> strides = im.attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  const std::vector<int64_t> pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  const std::vector<int64_t> outPad = im.attrInts(n, "output_padding").value_or(std::vector<int64_t>{0, 0});
  if (strides.size() != 2 || pads.size() != 4 || outPad.size() != 2) return false;
  for (size_t i = 0; i < 4; ++i)  // anything unusual is left to the ConvTranspose lowering to check and report
    if (pads[i] < 0 || (i < 2 && (strides[i] < 1 || outPad[i] < 0 || outPad[i] >= strides[i]))) return false;
  // TOSA writes output row iy * stride + out_pad_top + ky, ONNX iy * stride + ky - pad_begin.
  const std::vector<int64_t> tosaPad = {-pads[0], -pads[2] + outPad[0], -pads[1], -pads[3] + outPad[1]};
  if (tosaPad[0] <= -kh || tosaPad[1] <= -kh || tosaPad[2] <= -kw || tosaPad[3] <= -kw) return false;
  auto t = convTail(im, n, *dw, oc);
  if (!t) return t.status();
  if (!*t) return false;
  const QuantizeStep& st = (*t)->st;
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  Value* xs = toSignedI8(im, *xv, x.dtype);
  Tensor ws(DType::I8, w.shape());
  for (int64_t i = 0; i < w.size(); ++i) ws.setInt(i, w.getInt(i) - (w.dtype() == DType::U8 ? 128 : 0));
  const Tensor wOhwi = permuteTensor(ws, {1, 2, 3, 0});  // [IC,OC/g,KH,KW] -> [OC/g,KH,KW,IC]
  const Tensor bias = (*t)->bias ? *(*t)->bias : Tensor(DType::I32, {oc});
  Value* izp = im.b.scalar1(DType::I8, double(dx->zps[0] - (x.dtype == DType::U8 ? 128 : 0)), im.aux("input_zp"));
  Value* wzp = im.b.scalar1(DType::I8, double((*t)->wZp - (w.dtype() == DType::U8 ? 128 : 0)), im.aux("weight_zp"));
  const Shape& s = xs->type.dims;
  const int64_t oh = (s[1] - 1) * strides[0] + tosaPad[0] + tosaPad[1] + kh;
  const int64_t ow = (s[2] - 1) * strides[1] + tosaPad[2] + tosaPad[3] + kw;
  // TOSA has no grouped transpose_conv2d: one per group on its input channels, accumulators concatenated.
  std::vector<Value*> parts;
  for (int64_t g = 0; g < groups; ++g) {
    Value* xg = xs;
    if (groups > 1) {
      auto sl = im.sliceNhwc(xs, {0, 0, 0, g * icg}, {s[0], s[1], s[2], icg});
      if (!sl) return sl.status();
      xg = *sl;
    }
    Tensor wg(DType::I8, {ocg, kh, kw, icg}), bg(DType::I32, {ocg});
    for (int64_t i = 0; i < wg.size(); ++i) wg.setInt(i, wOhwi.getInt((i / icg) * s[3] + g * icg + i % icg));
    for (int64_t j = 0; j < ocg; ++j) bg.setInt(j, bias.getInt(g * ocg + j));
    parts.push_back(im.b.op1(
        "tosa.transpose_conv2d",
        {xg, im.b.constant(std::move(wg), im.aux("weight")), im.b.constant(std::move(bg), im.aux("bias")), izp, wzp},
        ValueType::tensor(DType::I32, {s[0], oh, ow, ocg}),
        {{"out_pad", ir::Attribute::intArray(tosaPad)},
         {"stride", ir::Attribute::intArray(strides)},
         {"acc_type", ir::Attribute::type(DType::I32)}},
        im.aux("transpose_conv")));
  }
  Value* acc = parts.size() == 1 ? parts[0]
                                 : im.b.op1("tosa.concat", parts, ValueType::tensor(DType::I32, {s[0], oh, ow, oc}),
                                            {{"axis", ir::Attribute::integer(3, DType::I32)}}, im.aux("concat"));
  std::vector<double> wScales = dw->scales;
  if (wScales.size() > 1)
    for (int64_t c = ocg; c < oc; ++c) wScales.push_back(dw->scales[size_t(c % ocg)]);
  auto y = requantize(im, acc, outputScales(float(dx->scales[0]), wScales, st.scale), st.zp, st.type, st.lo, st.hi);
  if (!y) return y.status();
  finish(im, st, *y, Layout::Nhwc);
  return true;
}

// A matmul whose float result is not quantized again (a classifier's last layer, as `tosakit export-qdq` and
// ONNX Runtime's quantizer leave it; ONNX Runtime runs QGemm / MatMulIntegerToFloat): the i32 accumulator as
// fp32 times a_scale * b_scale[column] in float32, the way those kernels scale it.
Result<bool> floatFromAccumulator(Importer& im, const NodeProto& n, Value* acc, float aScale,
                                  const std::vector<double>& bScales, const Shape& out) {
  const int64_t cols = acc->type.dims.back();
  Tensor scale(DType::FP32, {1, 1, bScales.size() == 1 ? 1 : cols});
  for (int64_t c = 0; c < scale.size(); ++c) scale.setFloat(c, double(aScale * float(bScales[size_t(c)])));
  Value* f = im.castTo(acc, DType::FP32);
  Value* y = im.b.mul(f, im.b.constant(std::move(scale), im.aux("scale")), 0, im.aux("dequantize"));
  im.foldedAny = true;
  TK_RETURN_IF_ERROR(im.setResult(n, im.b.reshape(y, out, im.aux("reshape")), Layout::Plain));
  return true;
}

// DQ(a) , DQ(b) [, DQ(bias int32)] -> Gemm / MatMul -> [Relu/Clip] -> Q  =>  i8 matmul + bias + RESCALE.
// Without the Q (and b constant): i8 matmul + bias, dequantized to fp32 (floatFromAccumulator).
Result<bool> foldMatmul(Importer& im, const NodeProto& n) {
  const bool gemm = n.op_type() == "Gemm";
  const Importer::DequantSource* da = dequantizedInput(im, n, 0, true);
  const Importer::DequantSource* db = dequantizedInput(im, n, 1, false);
  if (!da || !db) return false;
  OVal& a = sourceOf(im, *da);
  OVal b = sourceOf(im, *db);
  if (gemm && (im.attrInt(n, "transA", 0) != 0 || im.attrFloat(n, "alpha", 1) != 1 || im.attrFloat(n, "beta", 1) != 1))
    return false;
  const bool transB = gemm && im.attrInt(n, "transB", 0) != 0;
  if (b.shape.size() < 2 || (transB && (!b.isConst() || b.shape.size() != 2))) return false;
  // Per-channel scales must run along the output columns.
  const int64_t colAxis = transB ? 0 : int64_t(b.shape.size()) - 1;
  if (db->scales.size() > 1 && db->axis != colAxis) return false;
  if (transB) {
    b.c = std::make_shared<const Tensor>(permuteTensor(*b.c, {1, 0}));
    b.shape = b.c->shape();
  }
  const int64_t cols = b.shape.back();
  std::optional<Tensor> bias;
  if (gemm && im.hasInput(n, 2)) {
    auto t = int32Bias(im, n, 2, cols);
    if (!t) return t.status();
    if (!*t) return false;
    bias = std::move(*t);
  }
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st && !b.isConst()) return false;
  auto bz = perTensorZp(db->zps, "weight zero point");
  if (!bz) return false;
  Shape out;
  auto acc = integerMatmul(im, a, b, da->zps[0], *bz, out);
  if (!acc) return acc.status();
  Value* sum = *acc;
  if (bias) sum = im.b.add(sum, im.b.constant(reshapeTensor(*bias, {1, 1, cols}), im.aux("bias")), im.aux("add_bias"));
  if (!*st) return floatFromAccumulator(im, n, sum, float(da->scales[0]), db->scales, out);
  auto y = requantize(im, sum, outputScales(float(da->scales[0]), db->scales, (*st)->scale), (*st)->zp, (*st)->type,
                      (*st)->lo, (*st)->hi);
  if (!y) return y.status();
  finish(im, **st, im.b.reshape(*y, out, im.aux("reshape")), Layout::Plain);
  return true;
}

// An 8-bit value (x - zp) as i32 times `scale` (RESCALE i8 -> i32, SINGLE_ROUND).
Result<Value*> widen(Importer& im, Value* v, DType type, int64_t zp, double scale) {
  auto ms = scaleToMultiplierShift(scale);
  if (!ms) return ms.status();
  RescaleAttrs a;
  a.multiplier = {ms->first};
  a.shift = {ms->second};
  a.inputZp = zp - (type == DType::U8 ? 128 : 0);
  return im.b.rescale(toSignedI8(im, v, type), DType::I32, a, im.aux("widen"));
}

// DQ(a) + DQ(b) -> Add -> [Relu/Clip] -> Q (QLinearAdd): both operands move to a common i32 scale with 20
// fraction bits (the largest input scale maps to 2^19), are added exactly, and the sum is requantized.
Result<bool> foldAdd(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* da = dequantizedInput(im, n, 0, true);
  const Importer::DequantSource* db = dequantizedInput(im, n, 1, true);
  if (!da || !db) return false;
  OVal &a = sourceOf(im, *da), &b = sourceOf(im, *db);
  if (a.isConst() || b.isConst() || a.shape != b.shape) return false;
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  const Layout l = a.shape.size() == 4 && (storedNhwc(a) || storedNhwc(b)) ? Layout::Nhwc : Layout::Plain;
  auto av = im.get(a, l);
  if (!av) return av.status();
  auto bv = im.get(b, l);
  if (!bv) return bv.status();
  if (im.opts.requantizeLikeOrt) {
    // ONNX Runtime's QLinearAdd: (a - za) * (sa / sc) + (b - zb) * (sb / sc) in float32, rounded half to even.
    const size_t rank = a.shape.size();
    auto term = [&](Value* v, const Importer::DequantSource& d, DType t) -> Result<Value*> {
      auto w = widen(im, v, t, d.zps[0], 1.0);
      if (!w) return w.status();
      const float ratio = float(d.scales[0]) / (*st)->scale;
      return im.b.mul(im.castTo(*w, DType::FP32), im.scalarF(ratio, rank), 0, im.aux("scale"));
    };
    auto fa = term(*av, *da, a.dtype);
    if (!fa) return fa.status();
    auto fb = term(*bv, *db, b.dtype);
    if (!fb) return fb.status();
    Value* sum = im.b.add(*fa, *fb, im.aux("add"));
    finish(im, **st, roundToQuantized(im, sum, (*st)->zp, (*st)->lo, (*st)->hi), l);
    return true;
  }
  const double twiceMax = 2 * std::max(da->scales[0], db->scales[0]);
  const double unit = double(1 << 20);
  auto a32 = widen(im, *av, a.dtype, da->zps[0], unit * da->scales[0] / twiceMax);
  if (!a32) return a32.status();
  auto b32 = widen(im, *bv, b.dtype, db->zps[0], unit * db->scales[0] / twiceMax);
  if (!b32) return b32.status();
  Value* sum = im.b.add(*a32, *b32, im.aux("add"));
  auto y =
      requantize(im, sum, {twiceMax / (unit * double((*st)->scale))}, (*st)->zp, (*st)->type, (*st)->lo, (*st)->hi);
  if (!y) return y.status();
  finish(im, **st, *y, l);
  return true;
}

// DQ(x) -> GlobalAveragePool -> Q: the i32 sum over H and W, requantized by x_scale / (y_scale * H * W).
Result<bool> foldGlobalAveragePool(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantizedInput(im, n, 0, true);
  if (!dx || sourceOf(im, *dx).shape.size() != 4 || sourceOf(im, *dx).isConst()) return false;
  OVal& x = sourceOf(im, *dx);
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  auto v = widen(im, *xv, x.dtype, dx->zps[0], 1.0);
  if (!v) return v.status();
  Value* sum = *v;
  for (int64_t axis : {1, 2}) {
    Shape s = sum->type.dims;
    s[size_t(axis)] = 1;
    sum = im.b.op1("tosa.reduce_sum", {sum}, ValueType::tensor(DType::I32, s),
                   {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.aux("reduce_sum"));
  }
  const float count = float(x.shape[2] * x.shape[3]);
  const double scale = double(float(dx->scales[0]) / ((*st)->scale * count));
  auto y = requantize(im, sum, {scale}, (*st)->zp, (*st)->type, (*st)->lo, (*st)->hi);
  if (!y) return y.status();
  finish(im, **st, *y, Layout::Nhwc);
  return true;
}

// DQ(x) -> MaxPool / Reshape / Flatten / Transpose / Squeeze / Unsqueeze -> Q with the same parameters: the op
// on the integers (ONNX Runtime drops such Q/DQ pairs; max and data movement commute with quantization). int16
// too for data movement.
Result<bool> foldPassThrough(Importer& im, const NodeProto& n) {
  // int16: data movement only (the MaxPool lowering is float-only; it keeps its explicit Q/DQ).
  const bool allow16 = n.op_type() != "MaxPool";
  const Importer::DequantSource* dx = dequantizedInput(im, n, 0, true, allow16);
  if (!dx || sourceOf(im, *dx).isConst()) return false;
  auto st = quantizeAfter(im, n, allow16);
  if (!st) return st.status();
  if (!*st || !(*st)->absorbed.empty()) return false;
  if (!sameParameters(*dx, **st)) return false;
  NodeProto copy = n;
  copy.set_input(0, dx->src);
  copy.set_output(0, (*st)->q->output(0));
  for (int i = 1; i < copy.output_size(); ++i) copy.set_output(i, "");
  TK_RETURN_IF_ERROR(im.lowerSynthetic(copy));
  foldAway(im, **st);
  return true;
}

// ---- lookup tables: any function of one 8-bit value is exact as a 256-entry tosa.table ----

// The 8-bit value (input type `type`) that TABLE index i (0..255) reads: TABLE indexes by the i8 bits + 128.
int64_t valueAtIndex(int i, DType type) {
  const int64_t bits = i - 128;
  return type == DType::U8 ? (bits & 0xFF) : bits;
}

// An output-type value as its i8 bits (uint8 is carried as i8 bits).
int64_t asI8Bits(int64_t q) { return q >= 128 ? q - 256 : q; }

// y = Q(f(DQ(x))) for every 8-bit x as an i8 TABLE constant, in float32 like ONNX Runtime's lookup-table
// kernels (QLinearSigmoid, QLinearLeakyRelu, QLinearConcat's requantization) and its float fallback
// (DequantizeLinear, the float op, QuantizeLinear) for the ops it does not fuse.
Tensor lookupTable(const Importer::DequantSource& dx, DType inType, const QuantizeStep& st,
                   const std::function<float(float)>& f) {
  Tensor t(DType::I8, {256});
  const int64_t qmin = st.type == DType::U8 ? 0 : -128;
  for (int i = 0; i < 256; ++i) {
    const float x = float(valueAtIndex(i, inType) - dx.zps[0]) * float(dx.scales[0]);
    int64_t q = quantizeScalar(double(f(x)), st.scale, st.zp, qmin, qmin + 255);
    q = std::min(std::max(q, st.lo), st.hi);
    t.setInt(i, asI8Bits(q));
  }
  return t;
}

Value* applyTable(Importer& im, Value* x, Tensor table) {
  Value* tv = im.b.constant(std::move(table), im.aux("table_values"));
  return im.b.op1("tosa.table", {x, tv}, ValueType::tensor(DType::I8, x->type.dims), {}, im.aux("table"));
}

// The float function of a unary activation node (float32 arithmetic, as ONNX Runtime's CPU kernels); empty for
// an op that is not one or whose attributes/inputs are not constant.
std::function<float(float)> unaryFunction(Importer& im, const NodeProto& n) {
  const std::string& op = n.op_type();
  if (op == "Sigmoid") return [](float x) { return float(1.0 / (1.0 + std::exp(-double(x)))); };
  if (op == "Tanh") return [](float x) { return std::tanh(x); };
  if (op == "Relu") return [](float x) { return std::max(x, 0.0f); };
  if (op == "LeakyRelu") {
    const float alpha = im.attrFloat(n, "alpha", 0.01f);
    return [alpha](float x) { return x >= 0 ? x : alpha * x; };
  }
  if (op == "HardSigmoid" || op == "HardSwish") {
    const bool swish = op == "HardSwish";
    const float alpha = swish ? 1.0f / 6 : im.attrFloat(n, "alpha", 0.2f);
    const float beta = swish ? 0.5f : im.attrFloat(n, "beta", 0.5f);
    return [=](float x) {
      const float h = std::max(0.0f, std::min(1.0f, alpha * x + beta));
      return swish ? x * h : h;
    };
  }
  if (op == "Elu") {
    const float alpha = im.attrFloat(n, "alpha", 1.0f);
    return [alpha](float x) { return x >= 0 ? x : float(alpha * std::expm1(double(x))); };
  }
  if (op == "Clip") {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    for (int i : {1, 2}) {
      if (!im.hasInput(n, i)) continue;
      const Tensor* t = constAhead(im, n, i);
      if (!t || t->size() != 1) return {};
      (i == 1 ? lo : hi) = float(t->getFloat(0));
    }
    return [lo, hi](float x) { return std::min(std::max(x, lo), hi); };
  }
  return {};
}

Layout layoutOf(const OVal& v) { return storedNhwc(v) ? Layout::Nhwc : Layout::Plain; }

// DQ(x) -> Sigmoid / Tanh / HardSwish / HardSigmoid / LeakyRelu / Elu / Relu / Clip -> [Relu/Clip]* -> Q: one
// tosa.table of the 256 possible inputs.
Result<bool> foldUnaryTable(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantized8(im, n, 0);
  if (!dx) return false;
  const std::function<float(float)> f = unaryFunction(im, n);
  if (!f) return false;
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  OVal& x = sourceOf(im, *dx);
  const Layout l = layoutOf(x);
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  finish(im, **st, applyTable(im, *xv, lookupTable(*dx, x.dtype, **st, f)), l);
  return true;
}

// An 8-bit value moved from its DequantizeLinear's parameters to the output's (identity table; none needed
// when they are the same).
Result<Value*> requantized8(Importer& im, const Importer::DequantSource& d, const QuantizeStep& st, Layout l) {
  OVal& x = sourceOf(im, d);
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  const bool same = float(d.scales[0]) == st.scale && d.zps[0] == st.zp && d.type == st.type &&
      st.lo == (st.type == DType::U8 ? 0 : -128) && st.hi == st.lo + 255;
  if (same) return *xv;
  return applyTable(im, *xv, lookupTable(d, x.dtype, st, [](float v) { return v; }));
}

// DQ(x0) , DQ(x1) , ... -> Concat -> Q (QLinearConcat): each input requantized to the output's parameters by a
// table (exact: a function of one 8-bit value), then the concat on the 8-bit values.
Result<bool> foldConcat(Importer& im, const NodeProto& n) {
  std::vector<const Importer::DequantSource*> ins;
  for (int i = 0; i < n.input_size(); ++i) {
    const Importer::DequantSource* d = dequantized8(im, n, i);
    if (!d) return false;
    ins.push_back(d);
  }
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st || !(*st)->absorbed.empty()) return false;
  bool nhwc = true;
  for (const auto* d : ins) nhwc &= storedNhwc(sourceOf(im, *d));
  const Layout l = nhwc ? Layout::Nhwc : Layout::Plain;
  NodeProto copy = n;
  for (int i = 0; i < n.input_size(); ++i) {
    auto v = requantized8(im, *ins[size_t(i)], **st, l);
    if (!v) return v.status();
    OVal o;
    o.shape = sourceOf(im, *ins[size_t(i)]).shape;
    o.dtype = (*st)->type;
    (l == Layout::Nhwc ? o.nhwc : o.plain) = *v;
    const std::string name = n.input(i) + "/qdq_requantized";
    im.vals[name] = o;
    copy.set_input(i, name);
  }
  copy.set_output(0, (*st)->q->output(0));
  TK_RETURN_IF_ERROR(im.lowerSynthetic(copy));
  foldAway(im, **st);
  return true;
}

// DQ(a) * DQ(b) (numpy broadcasting) -> Mul -> [Relu/Clip]* -> Q (QLinearMul): (a - za)(b - zb) exactly in i32,
// requantized by sa * sb / sc (float32).
Result<bool> foldMul(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* da = dequantizedInput(im, n, 0, true);
  const Importer::DequantSource* db = dequantizedInput(im, n, 1, true);
  if (!da || !db || !isQuantType(da->type) || !isQuantType(db->type)) return false;
  OVal &a = sourceOf(im, *da), &b = sourceOf(im, *db);
  auto outShape = numpyBroadcast(a.shape, b.shape);
  if (!outShape) return false;
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  const size_t rank = outShape->size();
  const Layout l = rank == 4 && (storedNhwc(a) || storedNhwc(b)) ? Layout::Nhwc : Layout::Plain;
  auto av = im.getAsRank(a, rank, l);
  if (!av) return av.status();
  auto bv = im.getAsRank(b, rank, l);
  if (!bv) return bv.status();
  auto a32 = widen(im, *av, a.dtype, da->zps[0], 1.0);
  if (!a32) return a32.status();
  auto b32 = widen(im, *bv, b.dtype, db->zps[0], 1.0);
  if (!b32) return b32.status();
  Value* prod = im.b.mul(*a32, *b32, 0, im.aux("mul"));
  const double scale = double(float(da->scales[0]) * float(db->scales[0]) / (*st)->scale);
  auto y = requantize(im, prod, {scale}, (*st)->zp, (*st)->type, (*st)->lo, (*st)->hi);
  if (!y) return y.status();
  finish(im, **st, *y, l);
  return true;
}

// DQ(x) -> AveragePool (2-D, no ceil mode, padding counted or none) -> Q (QLinearAveragePool): the window sums
// of (x - zp) by a depthwise conv with weight 1 (i32), requantized by x_scale / (y_scale * window size).
// AveragePool with count_include_pad 0 divides each window by the input elements it covers. Window sums times
// factors[oh * OW + ow] = common / count are exact in i32 (a sum of 8-bit steps times at most the window size)
// and share one divisor, `common` (the counts' least common multiple), which the RESCALE takes.
struct WindowCounts {
  std::vector<int64_t> factors;
  int64_t common = 1;
};

std::optional<WindowCounts> windowCounts(const Shape& x, const std::vector<int64_t>& kernel,
                                         const std::vector<int64_t>& strides, const std::vector<int64_t>& pads) {
  std::vector<std::vector<int64_t>> perAxis(2);
  for (size_t a = 0; a < 2; ++a) {
    const int64_t in = x[2 + a], k = kernel[a], s = strides[a], begin = pads[a], end = pads[a + 2];
    if (s < 1 || begin >= k || end >= k) return std::nullopt;  // a window wholly in the padding has no count
    const int64_t outSize = (in + begin + end - k) / s + 1;
    for (int64_t o = 0; o < outSize; ++o) {
      const int64_t lo = std::max<int64_t>(o * s - begin, 0), hi = std::min<int64_t>(o * s - begin + k, in);
      if (hi <= lo) return std::nullopt;
      perAxis[a].push_back(hi - lo);
    }
  }
  WindowCounts wc;
  for (int64_t h : perAxis[0])
    for (int64_t w : perAxis[1]) wc.common = std::lcm(wc.common, h * w);
  if (wc.common > (int64_t(1) << 16)) return std::nullopt;  // 255 * window * common must stay far inside i32
  for (int64_t h : perAxis[0])
    for (int64_t w : perAxis[1]) wc.factors.push_back(wc.common / (h * w));
  return wc;
}

Result<bool> foldAveragePool(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantized8(im, n, 0);
  if (!dx || sourceOf(im, *dx).shape.size() != 4) return false;
  OVal& x = sourceOf(im, *dx);
  auto kernel = im.attrInts(n, "kernel_shape");
  if (!kernel || kernel->size() != 2 || im.attrInt(n, "ceil_mode", 0) != 0) return false;
  for (int64_t d : im.attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1}))
    if (d != 1) return false;
  bool padded = im.attrStr(n, "auto_pad", "NOTSET") != "NOTSET" && im.attrStr(n, "auto_pad", "NOTSET") != "VALID";
  for (int64_t p : im.attrInts(n, "pads").value_or(std::vector<int64_t>{})) padded |= p != 0;
  // count_include_pad 0: the divisor varies at the border (explicit pads only: auto_pad's are not known here).
  const bool excludePad = padded && im.attrInt(n, "count_include_pad", 0) == 0;
  if (excludePad && im.attrStr(n, "auto_pad", "NOTSET") != "NOTSET") return false;
  // A window larger than the padded input is left to the AveragePool lowering to report (and is never built).
  const std::vector<int64_t> pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  if (pads.size() != 4) return false;
  for (int i : {0, 1})
    if ((*kernel)[size_t(i)] < 1 ||
        (*kernel)[size_t(i)] > x.shape[size_t(2 + i)] + pads[size_t(i)] + pads[size_t(i + 2)])
      return false;
  std::optional<WindowCounts> counts;
  if (excludePad) {
    const std::vector<int64_t> strides = im.attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
    if (strides.size() != 2) return false;
    counts = windowCounts(x.shape, *kernel, strides, pads);
    if (!counts) return false;
  }
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  const int64_t C = x.shape[1];
  Tensor ones(DType::I8, {C, 1, (*kernel)[0], (*kernel)[1]});
  for (int64_t i = 0; i < ones.size(); ++i) ones.setInt(i, 1);
  NodeProto conv = n;
  auto* g = conv.add_attribute();
  g->set_name("group");
  g->set_type(::onnx::AttributeProto::INT);
  g->set_i(C);
  auto acc = integerConv(im, conv, x, ones, dx->zps[0], 0, nullptr, im.aux("window_sum"));
  if (!acc) return acc.status();
  Value* sum = *acc;
  float count = float((*kernel)[0] * (*kernel)[1]);
  if (counts) {
    const Shape& d = sum->type.dims;  // N, OH, OW, C
    if (d.size() != 4 || size_t(d[1] * d[2]) != counts->factors.size()) return Status::internal("window counts");
    sum = im.b.mul(
        sum, im.b.constant(Tensor::fromInts(DType::I32, {1, d[1], d[2], 1}, counts->factors), im.aux("count_factors")),
        0, im.aux("window_sum_scaled"));
    count = float(counts->common);
  }
  const double scale = double(float(dx->scales[0]) / ((*st)->scale * count));
  auto y = requantize(im, sum, {scale}, (*st)->zp, (*st)->type, (*st)->lo, (*st)->hi);
  if (!y) return y.status();
  finish(im, **st, *y, Layout::Nhwc);
  return true;
}

// When `y` is a NEAREST_NEIGHBOR tosa.resize reading `xf` (the float cast of the 8-bit `x`) through data
// movement only, the resize and the movement run on `x` itself (TOSA's i8 nearest resize, PRO-INT); the casts
// left around them are then identities or dead.
void retypeNearestResize(Value* y, Value* xf, Value* x) {
  ir::Operation* resize = y->definingOp;
  if (!resize || resize->name != "tosa.resize" || resize->strAttr("mode") != "NEAREST_NEIGHBOR") return;
  std::vector<ir::Operation*> chain;
  Value* v = resize->operands[0];
  while (v != xf) {
    ir::Operation* op = v->definingOp;
    if (!op || (op->name != "tosa.transpose" && op->name != "tosa.reshape") || op->results.size() != 1) return;
    chain.push_back(op);
    v = op->operands[0];
  }
  ir::Operation* first = chain.empty() ? resize : chain.back();
  first->operands[0] = x;
  for (ir::Operation* op : chain) op->results[0]->type.dtype = x->type.dtype;
  y->type.dtype = x->type.dtype;
}

// DQ(x) -> Resize (mode nearest) -> Q with the same scale, zero point and type (ONNX Runtime drops the pair):
// nearest resampling only selects values, so the float lowering on the exact float image of the 8-bit values,
// cast back, is the resize of the integers.
Result<bool> foldResizeNearest(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantized8(im, n, 0);
  if (!dx || im.attrStr(n, "mode", "nearest") != "nearest") return false;
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st || !(*st)->absorbed.empty()) return false;
  if (!sameParameters(*dx, **st)) return false;
  OVal& x = sourceOf(im, *dx);
  const Layout l = layoutOf(x);
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  OVal xf;
  xf.shape = x.shape;
  (l == Layout::Nhwc ? xf.nhwc : xf.plain) = im.castTo(*xv, DType::FP32);
  NodeProto copy = n;
  copy.set_input(0, n.input(0) + "/qdq_float");
  copy.set_output(0, n.output(0) + "/qdq_float");
  im.vals[copy.input(0)] = xf;
  TK_RETURN_IF_ERROR(im.lowerSynthetic(copy));
  OVal& yf = im.vals.at(copy.output(0));
  const Layout yl = layoutOf(yf);
  auto yv = im.get(yf, yl);
  if (!yv) return yv.status();
  retypeNearestResize(*yv, xf.nhwc ? xf.nhwc : xf.plain, *xv);
  finish(im, **st, im.castTo(*yv, DType::I8), yl);
  return true;
}

// ---- Softmax: DQ(x) -> Softmax -> [Relu/Clip]* -> Q ----
//
// Softmax reads only the differences d = x - max(x) <= 0 of the 8-bit steps along its axis, so exp is a table
// of at most 256 values. Default (`--qdq fold`, PRO-INT): e = round(T0 * exp(x_scale * d)) from two i8 TABLEs
// (high and low byte; T0 <= 32767 so that e * A and the axis' sum fit i32), E = reduce_sum(e), and the output step round(e * K / E) with
// K = 1 / y_scale as A / 2^k (A = round(K 2^k) < 2^16): intdiv(e * A, E) then a RESCALE by 2^-k rounds half up.
// With K an integer the result is exactly round(e K / E); the table's rounding (a relative 1 / (2 T0) per
// entry) is what separates it from the real softmax. `--qdq fold-ort` computes what ONNX Runtime's fused
// QLinearSoftmax does instead, in float32 op for op (its exp table, its left-to-right sum, its floor(1/y_scale)).

// The Softmax input as a value whose softmax runs along one axis (before opset 13: coerced to 2-D at `axis`).
struct SoftmaxView {
  Value* v = nullptr;
  int64_t axis = 0;
  Shape shape;  // the ONNX shape to restore
};

bool softmaxAxisValid(Importer& im, const NodeProto& n, const Shape& shape) {
  const int64_t r = int64_t(shape.size());
  if (r == 0 || numElements(shape) == 0) return false;
  const int64_t axis = normAxis(im.attrInt(n, "axis", im.opset < 13 ? 1 : -1), r);
  return axis >= 0 && axis < r;  // else left to the Softmax lowering to report
}

std::optional<SoftmaxView> softmaxView(Importer& im, const NodeProto& n, Value* x, const Shape& shape) {
  const int64_t r = int64_t(shape.size());
  if (r == 0) return std::nullopt;
  const int64_t axis = normAxis(im.attrInt(n, "axis", im.opset < 13 ? 1 : -1), r);
  if (axis < 0 || axis >= r) return std::nullopt;  // left to the Softmax lowering to report
  SoftmaxView view{x, axis, shape};
  if (im.opset < 13 && axis != r - 1) {
    int64_t a = 1, c = 1;
    for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= shape[size_t(i)];
    view.v = im.b.reshape(x, {a, c}, im.aux("reshape"));
    view.axis = 1;
  }
  return view;
}

Value* reduceAxis(Importer& im, const char* op, Value* v, int64_t axis, const std::string& what) {
  Shape s = v->type.dims;
  s[size_t(axis)] = 1;
  return im.b.op1(op, {v}, ValueType::tensor(v->type.dtype, s), {{"axis", ir::Attribute::integer(axis, DType::I32)}},
                  im.aux(what));
}

// round(t0 * exp(xScale * d)) for d in [-255, 0] as two i8 TABLEs indexed by d + 127: its high byte and its
// low byte (as i8 bits). TOSA's i16 TABLE would give it in one op but needs EXT-INT16.
std::pair<Tensor, Tensor> expTables(float xScale, int64_t t0) {
  Tensor hi(DType::I8, {256}), lo(DType::I8, {256});
  for (int64_t i = 0; i < 256; ++i) {
    const int64_t d = i - 255;  // TABLE entry i is read by the index i - 128 = d + 127
    const int64_t v = std::llround(double(t0) * std::exp(double(xScale) * double(d)));
    hi.setInt(i, v >> 8);
    lo.setInt(i, int8_t(uint8_t(v & 0xFF)));
  }
  return {std::move(hi), std::move(lo)};
}

// The integer steps x - max(x) (i32, <= 0) of the 8-bit input `xs` (int8) along the view's axis.
Value* stepsBelowMax(Importer& im, const SoftmaxView& view) {
  Value* x32 = im.castTo(view.v, DType::I32);
  return im.b.sub(x32, reduceAxis(im, "tosa.reduce_max", x32, view.axis, "max"), im.aux("minus_max"));
}

Result<Value*> integerSoftmax(Importer& im, const SoftmaxView& view, float xScale, const QuantizeStep& st) {
  const int64_t D = view.v->type.dims[size_t(view.axis)];
  const int64_t i32Max = (int64_t(1) << 31) - 1;
  const int64_t t0 = std::min<int64_t>(32767, i32Max / std::max<int64_t>(D, 1));
  const double K = 1.0 / double(st.scale);
  int k = 0;
  while (k < 24 && std::llround(K * std::ldexp(1.0, k + 1)) * t0 <= i32Max) ++k;
  const int64_t A = std::llround(K * std::ldexp(1.0, k));
  if (A < 1 || A * t0 > i32Max) return nullptr;  // y_scale below ~2^-16: not folded
  const size_t rank = view.v->type.dims.size();
  Value* d = stepsBelowMax(im, view);
  Value* index = im.castTo(im.b.add(d, im.scalarOf(DType::I32, 127, rank), im.aux("table_index")), DType::I8);
  auto [hiTable, loTable] = expTables(xScale, t0);
  Value* hi = im.castTo(applyTable(im, index, std::move(hiTable)), DType::I32);
  Value* lo = im.castTo(applyTable(im, index, std::move(loTable)), DType::I32);
  lo = im.b.op1("tosa.bitwise_and", {lo, im.scalarOf(DType::I32, 255, rank)}, lo->type, {}, im.aux("low_byte"));
  Value* e = im.b.add(im.b.mul(hi, im.scalarOf(DType::I32, 256, rank), 0, im.aux("high_byte")), lo, im.aux("exp"));
  Value* sum = reduceAxis(im, "tosa.reduce_sum", e, view.axis, "sum_exp");
  Value* num = im.b.mul(e, im.scalarOf(DType::I32, double(A), rank), 0, im.aux("times_k"));
  Value* q = im.b.op1("tosa.intdiv", {num, sum}, num->type, {}, im.aux("divide"));
  return requantize(im, q, {std::ldexp(1.0, -k)}, st.zp, st.type, st.lo, st.hi);
}

// The float sum along `axis` in ONNX Runtime's order ((0 + e0) + e1) + ... (one reduce_sum above 256 terms).
Value* sequentialSum(Importer& im, Value* e, int64_t axis) {
  const Shape& s = e->type.dims;
  if (s[size_t(axis)] > 256) return reduceAxis(im, "tosa.reduce_sum", e, axis, "sum_exp");
  Shape one = s;
  one[size_t(axis)] = 1;
  Value* sum = nullptr;
  for (int64_t j = 0; j < s[size_t(axis)]; ++j) {
    Shape start(s.size(), 0);
    start[size_t(axis)] = j;
    const std::string what = "exp" + std::to_string(j);
    Value* col =
        im.b.op1("tosa.slice",
                 {e, im.b.constShape(start, im.aux(what + "_start")), im.b.constShape(one, im.aux(what + "_size"))},
                 ValueType::tensor(e->type.dtype, one), {}, im.aux(what));
    sum = sum ? im.b.add(sum, col, im.aux("sum_exp" + std::to_string(j))) : col;
  }
  return sum;
}

// ONNX Runtime's QLinearSoftmax (contrib_ops/cpu/quantization/qlinear_softmax.cc, CPU): a float32 table
// exp((-d + b) * x_scale) with b = max(0, log(FLT_MAX / D) - 5) / x_scale, gathered at d = max - x, summed left
// to right, then nearbyintf(e * floor(1 / y_scale) / sum) + zp.
Value* ortSoftmax(Importer& im, const SoftmaxView& view, float xScale, const QuantizeStep& st) {
  const Shape& s = view.v->type.dims;
  const size_t rank = s.size();
  const int64_t D = s[size_t(view.axis)];
  // FLT_MAX / D in float, its log in double (the C library's log of the promoted float), as ORT's kernel does.
  const double shift = std::max(0.0, std::log(double(std::numeric_limits<float>::max() / float(D))) - 5) / xScale;
  std::vector<float> entries;
  for (int64_t d = 0; d < 256; ++d) {
    const double i = double(255 - d);
    entries.push_back(float(std::exp((i - 255 + shift) * double(xScale))));
  }
  // The entries are near FLT_MAX / D, where divideF32's exact-quotient steps overflow: every entry times the
  // same 2^-s keeps each float op's result exact up to that power of two (while the scaled values stay normal),
  // so the quotients are ONNX Runtime's.
  const double bound = double(entries[0]) * std::max(1.0, double(std::floor(1.0f / st.scale))) * double(D);
  const int down = std::max(0, std::ilogb(bound) - 60);
  Tensor table(DType::FP32, {1, 256, 1});
  for (int64_t d = 0; d < 256; ++d) table.setFloat(d, double(std::ldexp(entries[size_t(d)], -down)));
  Value* d = im.b.sub(im.scalarOf(DType::I32, 0, rank), stepsBelowMax(im, view), im.aux("steps"));
  const int64_t count = numElements(s);
  Value* gathered = im.b.op1(
      "tosa.gather",
      {im.b.constant(std::move(table), im.aux("exp_table")), im.b.reshape(d, {1, count}, im.aux("flat_index"))},
      ValueType::tensor(DType::FP32, {1, count, 1}), {}, im.aux("exp"));
  Value* e = im.b.reshape(gathered, s, im.aux("exp_shaped"));
  Value* sum = sequentialSum(im, e, view.axis);
  const float yScale = std::floor(1.0f / st.scale);
  Value* p = im.divideF32(im.b.mul(e, im.scalarF(yScale, rank), 0, im.aux("times_scale")), sum);
  return roundToQuantized(im, p, st.zp, st.lo, st.hi);
}

Result<bool> foldSoftmax(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantized8(im, n, 0);
  if (!dx) return false;
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  OVal& x = sourceOf(im, *dx);
  if (!softmaxAxisValid(im, n, x.shape)) return false;
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  auto view = softmaxView(im, n, toSignedI8(im, *xv, x.dtype), x.shape);
  if (!view) return Status::internal("softmax view");
  Value* y = nullptr;
  if (im.opts.requantizeLikeOrt) {
    y = ortSoftmax(im, *view, float(dx->scales[0]), **st);
  } else {
    auto r = integerSoftmax(im, *view, float(dx->scales[0]), **st);
    if (!r) return r.status();
    if (!*r) return false;
    y = *r;
  }
  finish(im, **st, im.reshapeTo(y, x.shape, im.aux("reshape")), Layout::Plain);
  return true;
}

// ---- linear Resize: DQ(x) -> Resize (mode linear, 4-D) -> [Relu/Clip]* -> Q ----
//
// TOSA's integer BILINEAR resize weighs the four int8 neighbours by integers that sum to S = scale_y_n *
// scale_x_n (i32 result), so acc - zp * S = S * (the exact bilinear interpolation of x - zp) and one RESCALE by
// x_scale / (y_scale * S) gives round(x_scale / y_scale * interpolation) + y_zp. The float Resize lowering
// (ops_resize.cpp) decides whether tosa.resize can express the node's mode and scales and computes scale,
// offset and border; it is run on the float image of the int8 values and its tosa.resize retyped to i8 -> i32.
// A node it lowers otherwise (cubic, antialias, matrices) is not folded.

// The tosa.resize defining `y` when it reads `xf` through transposes/reshapes only; those ops in `chain`.
ir::Operation* resizeReading(Value* y, Value* xf, std::vector<ir::Operation*>& chain) {
  ir::Operation* resize = y->definingOp;
  if (!resize || resize->name != "tosa.resize") return nullptr;
  Value* v = resize->operands[0];
  while (v != xf) {
    ir::Operation* op = v->definingOp;
    if (!op || (op->name != "tosa.transpose" && op->name != "tosa.reshape") || op->results.size() != 1) return nullptr;
    chain.push_back(op);
    v = op->operands[0];
  }
  return resize;
}

// The values of a tosa.const_shape operand (empty when it is not one).
std::vector<int64_t> constShapeValues(Value* v) {
  if (!v->definingOp || v->definingOp->name != "tosa.const_shape") return {};
  const ir::Attribute* a = v->definingOp->attr("values");
  if (!a || !a->tensor) return {};
  return a->tensor->toInts();
}

Result<bool> foldResizeLinear(Importer& im, const NodeProto& n) {
  const Importer::DequantSource* dx = dequantized8(im, n, 0);
  if (!dx || im.attrStr(n, "mode", "nearest") != "linear" || sourceOf(im, *dx).shape.size() != 4) return false;
  auto st = quantizeAfter(im, n);
  if (!st) return st.status();
  if (!*st) return false;
  OVal& x = sourceOf(im, *dx);
  const Layout l = layoutOf(x);
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  Value* xs = toSignedI8(im, *xv, x.dtype);
  OVal xf;
  xf.shape = x.shape;
  Value* xfv = im.castTo(xs, DType::FP32);
  (l == Layout::Nhwc ? xf.nhwc : xf.plain) = xfv;
  NodeProto copy = n;
  copy.set_input(0, n.input(0) + "/qdq_float");
  copy.set_output(0, n.output(0) + "/qdq_float");
  im.vals[copy.input(0)] = xf;
  TK_RETURN_IF_ERROR(im.lowerSynthetic(copy));
  im.foldedAny = true;  // whatever happens below, the float copy's ops are dead unless used
  OVal& yf = im.vals.at(copy.output(0));
  Value* y = yf.nhwc ? yf.nhwc : yf.plain;
  std::vector<ir::Operation*> chain;
  ir::Operation* resize = y ? resizeReading(y, xfv, chain) : nullptr;
  if (!resize || resize->strAttr("mode") != "BILINEAR") return false;
  const std::vector<int64_t> scale = constShapeValues(resize->operands[1]);
  if (scale.size() != 4) return false;
  const int64_t S = scale[0] * scale[2];
  (chain.empty() ? resize : chain.back())->operands[0] = xs;
  for (ir::Operation* op : chain) op->results[0]->type.dtype = DType::I8;
  y->type.dtype = DType::I32;
  const int64_t zp = dx->zps[0] - (x.dtype == DType::U8 ? 128 : 0);
  Value* centered = y;
  if (zp != 0) centered = im.b.sub(y, im.scalarOf(DType::I32, double(zp * S), 4), im.aux("minus_zero_point"));
  const double s = double(float(dx->scales[0]) / (*st)->scale) / double(S);
  auto q = requantize(im, centered, {s}, (*st)->zp, (*st)->type, (*st)->lo, (*st)->hi);
  if (!q) return q.status();
  finish(im, **st, *q, yf.nhwc ? Layout::Nhwc : Layout::Plain);
  return true;
}

}  // namespace

Result<bool> foldQdqPattern(Importer& im, const NodeProto& n) {
  if (!n.domain().empty() || n.output_size() < 1) return false;
  const std::string& op = n.op_type();
  if (op == "Cast" && n.input_size() == 1 && im.shiftedU8.count(n.input(0))) {  // uint8 -> uint8 (carriesU8AsI8)
    im.vals[n.output(0)] = im.vals.at(n.input(0));
    im.shiftedU8.insert(n.output(0));
    return true;
  }
  if (op == "Conv") return foldConv(im, n);
  if (op == "ConvTranspose") return foldConvTranspose(im, n);
  if (op == "Resize")
    return im.attrStr(n, "mode", "nearest") == "linear" ? foldResizeLinear(im, n) : foldResizeNearest(im, n);
  if (op == "Softmax") return foldSoftmax(im, n);
  if (op == "Gemm" || op == "MatMul") return foldMatmul(im, n);
  if (op == "Add") return foldAdd(im, n);
  if (op == "GlobalAveragePool") return foldGlobalAveragePool(im, n);
  if (op == "AveragePool") return foldAveragePool(im, n);
  if (op == "Mul") return foldMul(im, n);
  if (op == "Concat") return foldConcat(im, n);
  if (op == "Sigmoid" || op == "Tanh" || op == "HardSwish" || op == "HardSigmoid" || op == "LeakyRelu" || op == "Elu" ||
      op == "Relu" || op == "Clip")
    return foldUnaryTable(im, n);
  if (op == "MaxPool" || op == "Reshape" || op == "Flatten" || op == "Transpose" || op == "Squeeze" ||
      op == "Unsqueeze" || op == "Slice" || op == "Gather" || op == "Expand" || op == "Tile")
    return foldPassThrough(im, n);
  return false;
}

namespace {

const char* onnxTypeName(DType t) { return t == DType::U8 ? "uint8" : t == DType::I16 ? "int16" : "int8"; }

void recordQuant(ir::Function& fn, bool argument, size_t i, DType type, double scale, int64_t zp) {
  const ir::Attribute s = ir::Attribute::floating(scale, DType::FP64), z = ir::Attribute::integer(zp, DType::I64);
  const ir::Attribute t = ir::Attribute::string(onnxTypeName(type));
  if (argument) {
    fn.setArgAttr(i, "tosakit.qscale", s);
    fn.setArgAttr(i, "tosakit.qzp", z);
    fn.setArgAttr(i, "tosakit.onnx_type", t);
  } else {
    fn.setResultAttr(i, "tosakit.qscale", s);
    fn.setResultAttr(i, "tosakit.qzp", z);
    fn.setResultAttr(i, "tosakit.onnx_type", t);
  }
}

}  // namespace

std::map<std::string, OVal>::iterator integerOutput(Importer& im, const std::string& name, size_t index) {
  auto out = im.vals.find(name);
  auto d = im.dequantized.find(name);
  if (d == im.dequantized.end() || d->second.scales.size() != 1 || d->second.type == DType::I32) return out;
  auto src = im.vals.find(d->second.src);
  if (src == im.vals.end() || src->second.isConst() || src->second.poisoned) return out;
  DType type = d->second.type;
  int64_t zp = d->second.zps[0];
  if (im.shiftedU8.count(d->second.src)) {
    // Back from int8 u - 128 to uint8 (as i8 bits): flipping the top bit adds 128 modulo 256.
    OVal u = src->second;
    const Layout l = layoutOf(u);
    auto v = im.get(u, l);
    if (!v) return out;
    Value* bits = im.b.op1("tosa.bitwise_xor", {*v, im.scalarOf(DType::I8, -128, u.shape.size())}, (*v)->type, {},
                           im.aux("to_uint8"));
    u.plain = l == Layout::Plain ? bits : nullptr;
    u.nhwc = l == Layout::Nhwc ? bits : nullptr;
    u.dtype = type = DType::U8;
    zp += 128;
    src = im.vals.insert_or_assign(d->second.src + "/uint8", u).first;
  }
  im.integerResults.push_back({index, type, d->second.scales[0], zp});
  im.foldedAny = true;  // the DequantizeLinear's float ops are dead now
  return src;
}

void integerInputs(Importer& im, ir::Function& fn) {
  for (const Importer::QuantIo& r : im.integerResults) recordQuant(fn, false, r.index, r.type, r.scale, r.zp);
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    Value* arg = fn.inputs()[i];
    auto users = im.consumers.find(arg->name);
    if (!isFloat(arg->type.dtype) || users == im.consumers.end() || users->second.empty()) continue;
    // Every reader a QuantizeLinear with the same constant per-tensor parameters, lowered to a plain value.
    std::vector<Value*> quantized;
    std::optional<std::pair<double, int64_t>> params;
    DType type = DType::U8;
    for (const NodeProto* q : users->second) {
      if (q->op_type() != "QuantizeLinear" || !q->domain().empty() || !im.hasInput(*q, 1)) break;
      const OVal& s = im.vals.at(q->input(1));
      const OVal* z = im.hasInput(*q, 2) ? &im.vals.at(q->input(2)) : nullptr;
      const OVal& y = im.vals.at(q->output(0));
      if (!s.isConst() || s.c->size() != 1 || (z && (!z->isConst() || z->c->size() != 1)) || !y.plain) break;
      const std::pair<double, int64_t> p(s.c->getFloat(0), z ? z->c->getInt(0) : 0);
      if (params && *params != p) break;
      params = p;
      type = y.dtype;
      quantized.push_back(y.plain);
    }
    if (quantized.size() != users->second.size() || arg->type.dims != quantized[0]->type.dims) continue;
    // The argument takes the quantized value's place; the float QuantizeLinear ops are left dead.
    arg->type = quantized[0]->type;
    std::function<void(ir::Block&)> replace = [&](ir::Block& b) {
      for (auto& op : b.ops) {
        for (Value*& v : op->operands)
          for (Value* q : quantized)
            if (v == q) v = arg;
        for (auto& r : op->regions)
          for (auto& rb : r->blocks) replace(*rb);
      }
    };
    replace(fn.body);
    recordQuant(fn, true, i, type, params->first, params->second);
    im.foldedAny = true;
  }
}

void removeDeadOps(ir::Block& block) {
  std::map<Value*, int> uses;
  std::function<void(const ir::Block&)> count = [&](const ir::Block& b) {
    for (const auto& op : b.ops) {
      for (Value* v : op->operands) uses[v]++;
      for (const auto& r : op->regions)
        for (const auto& rb : r->blocks) count(*rb);
    }
  };
  count(block);
  // Reverse order: an op's users come after it, so one sweep removes whole dead chains.
  for (size_t i = block.ops.size(); i-- > 0;) {
    ir::Operation* op = block.ops[i].get();
    if (op == block.terminator() || !op->regions.empty() || op->name.rfind("tosa.variable", 0) == 0) continue;
    bool dead = true;
    for (Value* r : op->results) dead &= uses[r] == 0;
    if (!dead) continue;
    for (Value* v : op->operands) uses[v]--;
    block.ops.erase(block.ops.begin() + std::ptrdiff_t(i));
  }
}

}  // namespace tosakit::onnx
