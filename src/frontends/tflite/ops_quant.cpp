// Pre-quantized INT8 operators, reproducing TFLite's integer arithmetic with TOSA integer ops.
//
// TFLite requantizes with MultiplyByQuantizedMultiplier(x, q, shift): a rounding doubling high multiply by the
// Q31 multiplier q (round half up), then a rounding right shift by -shift (round half away from zero), or a
// left shift first when shift > 0. tosa.rescale with DOUBLE_ROUND and shift 31 - shift computes exactly that:
// for shift <= 0, floor((v q + 2^(s-1) +- 2^30) / 2^s) equals the two roundings in sequence (the nested floor
// divisions collapse, and the sign of v decides the rounding as the sign of the intermediate does), and for
// shift > 0 the single rounding of the high multiply is TOSA's round half up. Multipliers come from TFLite's
// QuantizeMultiplier on the same double products of the float scales the file holds. Every quantized result
// records its scale and zero point as src/quantize does ("tosakit.qscale", "tosakit.qzp").
#include <algorithm>
#include <cmath>

#include "frontends/common/float_arith.h"
#include "frontends/tflite/tflite_fixedpoint.h"
#include "frontends/tflite/tflite_internal.h"
#include "frontends/tflite/tflite_quant.h"

namespace tosakit::tflite {
namespace {

constexpr const char* kScaleAttr = "tosakit.qscale";
constexpr const char* kZpAttr = "tosakit.qzp";

}  // namespace

Result<QParams> perTensor(const TVal& v, const std::string& what) {
  if (!v.quant.present()) return Status::invalid(what + " has no quantization parameters");
  if (v.quant.scale.size() != 1) return Status::unsupported(what + " is quantized per channel");
  if (!(v.quant.scale[0] > 0) || !std::isfinite(v.quant.scale[0]))
    return Status::invalid(what + " has a scale that is not positive");
  return QParams{v.quant.scale[0], v.quant.zeroPoint[0]};
}

namespace {

// tosa.rescale of x with TFLite multipliers for the real scales `scales` (one, or one per channel).
Result<Value*> requantize(Importer& im, Value* x, DType out, const std::vector<double>& scales, int64_t inZp,
                          int64_t outZp, const std::string& what) {
  ir::RescaleAttrs ra;
  for (double s : scales) {
    if (!std::isfinite(s)) return Status::unsupported(what + ": requantization scale overflows");
    int64_t q = 0, shift = 0;
    fixedpoint::quantizeMultiplier(s, q, shift);
    const int64_t tosaShift = q == 0 ? 31 : 31 - shift;
    if (tosaShift < 2 || tosaShift > 62)
      return Status::unsupported("requantization scale " + std::to_string(s) +
                                 " is outside what tosa.rescale expresses");
    ra.multiplier.push_back(q);
    ra.shift.push_back(tosaShift);
  }
  ra.inputZp = inZp;
  ra.outputZp = outZp;
  ra.scale32 = true;
  ra.roundingMode = "DOUBLE_ROUND";
  ra.perChannel = scales.size() > 1;
  return im.b.rescale(x, out, ra, im.aux(what));
}

// TFLite's FULLY_CONNECTED runs on ruy, whose final right shift rounds ties up (not away from zero): the high
// multiply and the shift as two SINGLE_ROUND rescales, floor((v q + 2^30) / 2^31) then floor((a + 2^(r-1)) / 2^r).
Result<Value*> requantizeHalfUp(Importer& im, Value* x, const std::vector<double>& scales, int64_t outZp) {
  ir::RescaleAttrs high, shiftDown;
  for (double s : scales) {
    if (!std::isfinite(s)) return Status::unsupported("requantization scale of a fully connected layer overflows");
    int64_t q = 0, shift = 0;
    fixedpoint::quantizeMultiplier(s, q, shift);
    if (shift > 0 || shift < -30)
      return Status::unsupported("requantization scale " + std::to_string(s) + " of a fully connected layer");
    high.multiplier.push_back(q);
    high.shift.push_back(31);
    shiftDown.multiplier.push_back(int64_t(1) << 30);
    shiftDown.shift.push_back(30 - shift);
  }
  high.perChannel = shiftDown.perChannel = scales.size() > 1;
  shiftDown.outputZp = outZp;
  Value* a = im.b.rescale(x, DType::I32, high, im.aux("high_mul"));
  return im.b.rescale(a, DType::I8, shiftDown, im.aux("rescale"));
}

// (x - zp) 2^leftShift as i32, exactly: multiplier 2^30, shift 30 - leftShift (TOSA requires |x - zp| <
// 2^(shift - 1), which holds for int8 operands and leftShift <= 20).
Value* widen(Importer& im, Value* x, int64_t zp, int64_t leftShift, const std::string& what) {
  ir::RescaleAttrs ra;
  ra.multiplier = {int64_t(1) << 30};
  ra.shift = {30 - leftShift};
  ra.inputZp = zp;
  ra.roundingMode = "SINGLE_ROUND";
  return im.b.rescale(x, DType::I32, ra, im.aux(what));
}

// TFLite's CalculateActivationRangeQuantized within [qmin, qmax] (int8 or int16).
std::pair<int64_t, int64_t> activationRange(fb::ActivationFunctionType a, const QParams& q, int64_t qmin = -128,
                                            int64_t qmax = 127) {
  // In double and clamped before the conversion: a tiny scale puts 6 / scale far outside int64.
  auto quant = [&](double f) {
    return int64_t(std::clamp(double(q.zp) + std::round(f / q.scale), double(qmin - 1), double(qmax + 1)));
  };
  int64_t lo = qmin, hi = qmax;
  switch (a) {
    case fb::ActivationFunctionType::RELU: lo = std::max(lo, quant(0)); break;
    case fb::ActivationFunctionType::RELU6:
      lo = std::max(lo, quant(0));
      hi = std::min(hi, quant(6));
      break;
    case fb::ActivationFunctionType::RELU_N1_TO_1:
      lo = std::max(lo, quant(-1));
      hi = std::min(hi, quant(1));
      break;
    default: break;
  }
  return {lo, hi};
}

}  // namespace

Status setQuantOut(Importer& im, int k, Value* v, fb::ActivationFunctionType act, const QParams& q) {
  if (act == fb::ActivationFunctionType::TANH || act == fb::ActivationFunctionType::SIGN_BIT)
    return Status::unsupported("fused activation TANH/SIGN_BIT on a quantized result");
  const bool wide = v->type.dtype == DType::I16;
  const int64_t qmin = wide ? -32768 : -128, qmax = wide ? 32767 : 127;
  auto [lo, hi] = activationRange(act, q, qmin, qmax);
  if (lo > qmin || hi < qmax) {
    v->definingOp->loc.name = im.aux("pre_activation");
    v = im.b.clamp(v, double(lo), double(hi), im.loc);
  }
  TK_RETURN_IF_ERROR(im.setOut(k, v));
  v->definingOp->attrs[kScaleAttr] = ir::Attribute::floating(q.scale, DType::FP64);
  v->definingOp->attrs[kZpAttr] = ir::Attribute::integer(q.zp, DType::I64);
  return Status::ok();
}

// An int8 elementwise operator as tosa.table: `f` maps each raw input value to TFLite's raw output, so the
// table reproduces TFLite's arithmetic exactly whatever it is.
Status tableOut(Importer& im, const QParams& y, const std::function<int32_t(int32_t)>& f) {
  Tensor table(DType::I8, {256});
  for (int32_t v = -128; v <= 127; ++v) table.setInt(v + 128, std::clamp<int32_t>(f(v), -128, 127));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* v = im.b.op1("tosa.table", {*xv, im.constant(std::move(table), "table")}, (*xv)->type, {}, im.aux("table"));
  return setQuantOut(im, 0, v, fb::ActivationFunctionType::NONE, y);
}

namespace {

Status requireInt8(Importer& im, int i) {
  if (im.in(i).dtype != DType::I8)
    return Status::unsupported("input " + std::to_string(i) + " is " + std::string(dtypeName(im.in(i).dtype)) +
                               " (quantized lowerings take int8)");
  return Status::ok();
}

// Per-channel (or per-tensor) weight scales of input 1 for `channels` output channels along `dim`.
Result<std::vector<double>> weightScales(Importer& im, int64_t channels, int dim) {
  const TVal& w = im.in(1);
  if (!w.quant.present()) return Status::invalid("weights have no quantization parameters");
  // uint8 (legacy) weights are asymmetric per tensor: their zero point goes to the TOSA op (ConvCommon)
  for (int64_t z : w.quant.zeroPoint)
    if (z != 0 && !(w.fromUint8 && w.quant.scale.size() == 1))
      return Status::unsupported("int8 weights with a non-zero zero point");
  if (w.quant.scale.size() == 1) return w.quant.scale;
  if (int64_t(w.quant.scale.size()) != channels || w.quant.dim != dim)
    return Status::invalid("weights have " + std::to_string(w.quant.scale.size()) + " scales along dimension " +
                           std::to_string(w.quant.dim) + ", expected " + std::to_string(channels) + " along " +
                           std::to_string(dim));
  return w.quant.scale;
}

// Effective output scales in * w[c] / out, in double as TFLite computes them.
std::vector<double> outputScales(double in, const std::vector<double>& w, double out) {
  std::vector<double> s;
  for (double ws : w) s.push_back(in * ws / out);
  return s;
}

Result<Value*> int32Bias(Importer& im, int64_t channels) {
  if (!im.hasInput(2)) return im.constant(Tensor(DType::I32, {channels}), "bias");
  if (im.in(2).dtype != DType::I32)
    return Status::unsupported("bias of type " + std::string(dtypeName(im.in(2).dtype)));
  if (im.in(2).shape != Shape{channels}) return Status::invalid("bias shape " + shapeToString(im.in(2).shape));
  return im.get(2);
}

struct ConvCommon {
  QParams x, y;
  std::vector<double> scales;  // per output channel (or one)
  int64_t weightZp = 0;        // non-zero only for uint8 weights (moved to int8)
};

Result<ConvCommon> convParams(Importer& im, int64_t channels, int weightDim) {
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  TK_RETURN_IF_ERROR(requireInt8(im, 1));
  ConvCommon c;
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if (im.out(0).dtype != DType::I8) return Status::unsupported("int8 operator with a non-int8 output");
  auto ws = weightScales(im, channels, weightDim);
  if (!ws) return ws.status();
  c.x = *x;
  c.y = *y;
  c.scales = outputScales(x->scale, *ws, y->scale);
  c.weightZp = im.in(1).quant.zeroPoint.empty() ? 0 : im.in(1).quant.zeroPoint[0];
  return c;
}

// One axis of a conv/pool in TFLite's SAME/VALID terms (shared with the float lowering's arithmetic).
struct Axis {
  int64_t in = 0, k = 1, stride = 1, dil = 1, out = 0, p0 = 0, p1 = 0, cut = 0;
};

Status planAxis(Axis& a, fb::Padding padding) {
  if (a.stride <= 0 || a.dil <= 0 || a.k <= 0) return Status::invalid("stride, dilation and kernel must be positive");
  const int64_t span = (a.k - 1) * a.dil + 1;
  if (padding == fb::Padding::SAME) {
    a.out = (a.in + a.stride - 1) / a.stride;
    a.p0 = std::max<int64_t>((a.out - 1) * a.stride + span - a.in, 0) / 2;
  } else {
    if (a.in < span) return Status::invalid("the kernel is larger than the input");
    a.out = (a.in - span) / a.stride + 1;
  }
  a.p1 = (a.out - 1) * a.stride + span - a.in - a.p0;
  if (a.p1 < 0) a.cut = -a.p1, a.p1 = 0;
  return Status::ok();
}

Value* cutInput(Importer& im, Value* x, const Axis& h, const Axis& w) {
  if (!h.cut && !w.cut) return x;
  const Shape& s = x->type.dims;
  Shape size = {s[0], s[1] - h.cut, s[2] - w.cut, s[3]};
  return im.b.op1("tosa.slice",
                  {x, im.b.constShape({0, 0, 0, 0}, im.aux("start")), im.b.constShape(size, im.aux("size"))},
                  ValueType::tensor(x->type.dtype, size), {}, im.aux("cut"));
}

// ---- 16x8: int16 activations (zero point 0), int8 weights, int64 (or int32) biases ----

// The bias of a 16x8 operator as the i48 constant TOSA's int16 convolution takes (zeros when absent).
Result<Value*> int48Bias(Importer& im, int64_t channels) {
  Tensor t(DType::I48, {channels});
  if (im.hasInput(2)) {
    const TVal& b = im.in(2);
    if (!b.isConst() || (b.dtype != DType::I64 && b.dtype != DType::I32))
      return Status::unsupported("16x8 bias that is not a constant int64/int32 tensor");
    if (b.shape != Shape{channels}) return Status::invalid("bias shape " + shapeToString(b.shape));
    constexpr int64_t kLimit = int64_t(1) << 47;
    for (int64_t i = 0; i < channels; ++i) {
      const int64_t v = b.c->getInt(i);
      if (v < -kLimit || v >= kLimit) return Status::unsupported("16x8 bias outside int48");
      t.setInt(i, v);
    }
  }
  return im.constant(std::move(t), "bias_i48");
}

// TFLite's MultiplyByQuantizedMultiplier for int64 accumulators: the Q31 multiplier rounded to 16 bits
// (saturating at 0x7FFF), one rounding shift by 15 - shift, ties up: exactly tosa.rescale's 16-bit scale.
Result<Value*> requantize48(Importer& im, Value* acc, const std::vector<double>& scales, int64_t outZp) {
  ir::RescaleAttrs ra;
  for (double s : scales) {
    if (!std::isfinite(s)) return Status::unsupported("requantization scale overflows");
    int64_t q = 0, shift = 0;
    fixedpoint::quantizeMultiplier(s, q, shift);
    const int64_t reduced = q < 0x7FFF0000 ? (q + (1 << 15)) >> 16 : 0x7FFF;
    if (15 - shift < 2 || 15 - shift > 62)
      return Status::unsupported("requantization scale " + std::to_string(s) + " outside tosa.rescale's range");
    ra.multiplier.push_back(reduced);
    ra.shift.push_back(15 - shift);
  }
  ra.scale32 = false;
  ra.outputZp = outZp;
  ra.perChannel = scales.size() > 1;
  return im.b.rescale(acc, DType::I16, ra, im.aux("rescale"));
}

// Quantization of a 16x8 operator (the int8 ConvCommon for int16 activations and results).
Result<ConvCommon> params16x8(Importer& im, int64_t channels) {
  if (im.in(1).dtype != DType::I8 || !im.in(1).isConst())
    return Status::unsupported("16x8 operator whose weights are not constant int8");
  auto q = int16UnaryParams(im);
  if (!q) return q.status();
  const auto& [x, y] = *q;
  auto ws = weightScales(im, channels, 0);
  if (!ws) return ws.status();
  return ConvCommon{x, y, outputScales(x.scale, *ws, y.scale)};
}

// FULLY_CONNECTED 16x8: a 1x1 tosa.conv2d over [rows, 1, 1, K] (TOSA's matmul has no i16 x i8 form; the
// [N, K] weights are already OHWI [N, 1, 1, K]).
Status qFullyConnected16x8(Importer& im, const fb::FullyConnectedOptions* o, int64_t rows, int64_t N, int64_t K) {
  auto p = params16x8(im, N);
  if (!p) return p.status();
  Tensor wt = *im.in(1).c;
  wt.reshape({N, 1, 1, K});
  auto x = im.get(0);
  if (!x) return x.status();
  auto bias = int48Bias(im, N);
  if (!bias) return bias.status();
  ir::Conv2dAttrs ca;
  ca.accType = DType::I48;
  Value* acc = im.b.conv2d(im.b.reshape(*x, {rows, 1, 1, K}, im.aux("rows")), im.constant(std::move(wt), "weight"),
                           *bias, ca, im.aux("conv2d"));
  auto y = requantize48(im, acc, p->scales, p->y.zp);
  if (!y) return y.status();
  return setQuantOut(im, 0, im.b.reshape(*y, im.out(0).shape, im.aux("reshape")),
                     o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE, p->y);
}

// CONV_2D int8, or 16x8 (tosa.conv2d i16 x i8 -> i48, TOSA's int16 extension, with a 16-bit rescale).
Status qConv2d(Importer& im) {
  const auto* o = im.options<fb::Conv2DOptions>();
  if (!o) return Status::invalid("CONV_2D without Conv2DOptions");
  const Shape& xs = im.in(0).shape;
  const Shape& ws = im.in(1).shape;
  if (xs.size() != 4 || ws.size() != 4 || ws[3] != xs[3])
    return Status::unsupported("CONV_2D shapes (grouped or not rank 4)");
  const bool wide = im.in(0).dtype == DType::I16;
  auto c = wide ? params16x8(im, ws[0]) : convParams(im, ws[0], 0);
  if (!c) return c.status();
  Axis h{xs[1], ws[1], o->stride_h(), o->dilation_h_factor()}, w{xs[2], ws[2], o->stride_w(), o->dilation_w_factor()};
  TK_RETURN_IF_ERROR(planAxis(h, o->padding()));
  TK_RETURN_IF_ERROR(planAxis(w, o->padding()));
  auto x = im.get(0);
  if (!x) return x.status();
  auto wv = im.get(1);
  if (!wv) return wv.status();
  auto bias = wide ? int48Bias(im, ws[0]) : int32Bias(im, ws[0]);
  if (!bias) return bias.status();
  ir::Conv2dAttrs ca;
  ca.pad = {h.p0, h.p1, w.p0, w.p1};
  ca.stride = {h.stride, w.stride};
  ca.dilation = {h.dil, w.dil};
  ca.accType = wide ? DType::I48 : DType::I32;
  ca.inputZp = c->x.zp;
  ca.weightZp = wide ? 0 : c->weightZp;
  Value* acc = im.b.conv2d(cutInput(im, *x, h, w), *wv, *bias, ca, im.aux("conv2d"));
  auto y = wide ? requantize48(im, acc, c->scales, c->y.zp)
                : requantize(im, acc, DType::I8, c->scales, 0, c->y.zp, "rescale");
  if (!y) return y.status();
  return setQuantOut(im, 0, *y, o->fused_activation_function(), c->y);
}

Status qDepthwiseConv2d(Importer& im) {
  const auto* o = im.options<fb::DepthwiseConv2DOptions>();
  if (!o) return Status::invalid("DEPTHWISE_CONV_2D without DepthwiseConv2DOptions");
  const Shape& xs = im.in(0).shape;
  const Shape& ws = im.in(1).shape;
  if (xs.size() != 4 || ws.size() != 4 || ws[0] != 1 || xs[3] <= 0 || ws[3] % xs[3] != 0)
    return Status::invalid("DEPTHWISE_CONV_2D shapes");
  const int64_t C = xs[3], M = ws[3] / C;
  auto c = convParams(im, C * M, 3);
  if (!c) return c.status();
  Axis h{xs[1], ws[1], o->stride_h(), o->dilation_h_factor()}, w{xs[2], ws[2], o->stride_w(), o->dilation_w_factor()};
  TK_RETURN_IF_ERROR(planAxis(h, o->padding()));
  TK_RETURN_IF_ERROR(planAxis(w, o->padding()));
  auto x = im.get(0);
  if (!x) return x.status();
  Value* wv = nullptr;
  if (const TVal& wt = im.in(1); wt.isConst()) {
    Tensor t = *wt.c;
    t.reshape({ws[1], ws[2], C, M});
    wv = im.constant(std::move(t), "weight_hwcm");
  } else {
    return Status::unsupported("int8 DEPTHWISE_CONV_2D with run-time weights");
  }
  auto bias = int32Bias(im, C * M);
  if (!bias) return bias.status();
  Value* acc =
      im.b.op1("tosa.depthwise_conv2d",
               {cutInput(im, *x, h, w), wv, *bias, im.b.scalar1(DType::I8, double(c->x.zp), im.aux("input_zp")),
                im.b.scalar1(DType::I8, double(c->weightZp), im.aux("weight_zp"))},
               ValueType::tensor(DType::I32, {xs[0], h.out, w.out, C * M}),
               {{"pad", ir::Attribute::intArray({h.p0, h.p1, w.p0, w.p1})},
                {"stride", ir::Attribute::intArray({h.stride, w.stride})},
                {"dilation", ir::Attribute::intArray({h.dil, w.dil})},
                {"acc_type", ir::Attribute::type(DType::I32)}},
               im.aux("depthwise_conv2d"));
  auto y = requantize(im, acc, DType::I8, c->scales, 0, c->y.zp, "rescale");
  if (!y) return y.status();
  return setQuantOut(im, 0, *y, o->fused_activation_function(), c->y);
}

Status qFullyConnected(Importer& im) {
  const auto* o = im.options<fb::FullyConnectedOptions>();
  if (o && o->weights_format() != 0) return Status::unsupported("FULLY_CONNECTED with shuffled weights");
  const Shape& xs = im.in(0).shape;
  const Shape& ws = im.in(1).shape;
  if (ws.size() != 2 || xs.empty()) return Status::invalid("FULLY_CONNECTED needs a [N, K] weight");
  const int64_t N = ws[0], K = ws[1];
  if (K <= 0 || numElements(xs) % K != 0) return Status::invalid("FULLY_CONNECTED input size is not a multiple of K");
  const int64_t rows = numElements(xs) / K;
  if (im.in(0).dtype == DType::I16) return qFullyConnected16x8(im, o, rows, N, K);
  auto c = convParams(im, N, 0);
  if (!c) return c.status();
  const TVal& wt = im.in(1);
  if (!wt.isConst()) return Status::unsupported("int8 FULLY_CONNECTED with run-time weights");
  Tensor t(DType::I8, {1, K, N});  // W^T, transposed at import
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) t.setInt(k * N + n, wt.c->getInt(n * K + k));
  auto x = im.get(0);
  if (!x) return x.status();
  Value* a = im.b.reshape(*x, {1, rows, K}, im.aux("rows"));
  Value* acc =
      im.b.op1("tosa.matmul",
               {a, im.constant(std::move(t), "weight_t"), im.b.scalar1(DType::I8, double(c->x.zp), im.aux("a_zp")),
                im.b.scalar1(DType::I8, double(c->weightZp), im.aux("b_zp"))},
               ValueType::tensor(DType::I32, {1, rows, N}), {}, im.aux("matmul"));
  if (im.hasInput(2)) {
    auto bias = int32Bias(im, N);
    if (!bias) return bias.status();
    acc = im.b.add(acc, im.b.reshape(*bias, {1, 1, N}, im.aux("bias3")), im.aux("bias_add"));
  }
  auto y = requantizeHalfUp(im, acc, c->scales, c->y.zp);
  if (!y) return y.status();
  Value* r = im.b.reshape(*y, im.out(0).shape, im.aux("reshape"));
  return setQuantOut(im, 0, r, o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE, c->y);
}

// BATCH_MATMUL int8 (batch_matmul.cc EvalInt8Int8 on the FULLY_CONNECTED parameters: both zero points, one
// multiplier sa sb / sy, ruy's GEMM): a rank-3 tosa.matmul over the flattened equal batch dimensions
// (batchMatmulOperands), then FULLY_CONNECTED's two-step requantization with ruy's ties-up final shift.
Status qBatchMatmul(Importer& im) {
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  TK_RETURN_IF_ERROR(requireInt8(im, 1));
  if (im.out(0).dtype != DType::I8) return Status::unsupported("int8 BATCH_MATMUL with a non-int8 output");
  auto qa = perTensor(im.in(0), "input 0");
  if (!qa) return qa.status();
  auto qb = perTensor(im.in(1), "input 1");
  if (!qb) return qb.status();
  auto qy = perTensor(im.out(0), "output");
  if (!qy) return qy.status();
  auto m = batchMatmulOperands(im);
  if (!m) return m.status();
  Value* acc = im.b.op1("tosa.matmul",
                        {m->a, m->b, im.b.scalar1(DType::I8, double(qa->zp), im.aux("a_zp")),
                         im.b.scalar1(DType::I8, double(qb->zp), im.aux("b_zp"))},
                        ValueType::tensor(DType::I32, Shape{m->batch, m->M, m->N}), {}, im.aux("matmul"));
  auto y = requantizeHalfUp(im, acc, {qa->scale * qb->scale / qy->scale}, qy->zp);
  if (!y) return y.status();
  return setQuantOut(im, 0, im.b.reshape(*y, im.out(0).shape, im.aux("reshape")), fb::ActivationFunctionType::NONE,
                     *qy);
}

struct BinaryQ {
  QParams a, b, y;
  Value* va = nullptr;
  Value* vb = nullptr;
  Shape shape;
};

// Both operands int8, or (allowInt16: ADD, SUB) both int16; the output of the operands' type.
Result<BinaryQ> binaryParams(Importer& im, bool allowInt16 = false) {
  const bool wide = allowInt16 && im.in(0).dtype == DType::I16;
  if (wide) {
    if (im.in(1).dtype != DType::I16 || im.out(0).dtype != DType::I16)
      return Status::unsupported("int16 operator mixing int16 with other types");
  } else {
    TK_RETURN_IF_ERROR(requireInt8(im, 0));
    TK_RETURN_IF_ERROR(requireInt8(im, 1));
  }
  BinaryQ q;
  auto a = perTensor(im.in(0), "input 0");
  if (!a) return a.status();
  auto b = perTensor(im.in(1), "input 1");
  if (!b) return b.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  auto shape = broadcastShapes(im.in(0).shape, im.in(1).shape);
  if (!shape) return Status::invalid("operands do not broadcast");
  auto va = im.get(0);
  if (!va) return va.status();
  auto vb = im.get(1);
  if (!vb) return vb.status();
  q.a = *a;
  q.b = *b;
  q.y = *y;
  q.shape = *shape;
  q.va = im.toRank(*va, shape->size());
  q.vb = im.toRank(*vb, shape->size());
  return q;
}

bool isPowerOfTwo(double scale) {
  int e = 0;
  return std::frexp(scale, &e) == 0.5;
}

// (x - zp) 2^leftShift as i32 exactly: a rescale for int8 (the shift fits its range), cast and multiply for
// int16 (2^15 is outside what one rescale of a 16-bit value may do).
Value* shiftedOperand(Importer& im, Value* x, int64_t zp, int64_t leftShift, const std::string& what) {
  if (x->type.dtype != DType::I16) return widen(im, x, zp, leftShift, what);
  Value* w = im.b.op1("tosa.cast", {x}, ValueType::tensor(DType::I32, x->type.dims), {}, im.aux(what));
  return im.b.mul(w, im.scalarOf(DType::I32, double(int64_t(1) << leftShift), x->type.dims.size()), 0,
                  im.aux(what + "_shifted"));
}

// ADD / SUB: both inputs to a common scale at 2^20 resolution (2^15 for int16; TFLite's left_shift), summed,
// requantized. int16 takes TFLite's general-scale path (pot_scale_int16 false, or scales not powers of two).
Status qAddSub(Importer& im, bool sub) {
  auto q = binaryParams(im, true);
  if (!q) return q.status();
  const auto* o = sub ? nullptr : im.options<fb::AddOptions>();
  const auto* os = sub ? im.options<fb::SubOptions>() : nullptr;
  const DType outType = im.out(0).dtype;
  if (outType == DType::I16) {
    const bool potFlag = o ? o->pot_scale_int16() : os ? os->pot_scale_int16() : true;
    if (potFlag && isPowerOfTwo(q->a.scale) && isPowerOfTwo(q->b.scale) && isPowerOfTwo(q->y.scale))
      return Status::unsupported("int16 ADD/SUB with power-of-two scales (TFLite's pot_scale_int16 kernel)");
  }
  const int64_t leftShift = outType == DType::I16 ? 15 : 20;
  const double twiceMax = 2 * std::max(q->a.scale, q->b.scale);
  auto sa = requantize(im, shiftedOperand(im, q->va, q->a.zp, leftShift, "a_i32"), DType::I32, {q->a.scale / twiceMax},
                       0, 0, "a_scaled");
  if (!sa) return sa.status();
  auto sb = requantize(im, shiftedOperand(im, q->vb, q->b.zp, leftShift, "b_i32"), DType::I32, {q->b.scale / twiceMax},
                       0, 0, "b_scaled");
  if (!sb) return sb.status();
  Value* s =
      im.b.op1(sub ? "tosa.sub" : "tosa.add", {*sa, *sb}, ValueType::tensor(DType::I32, q->shape), {}, im.aux("sum"));
  auto y =
      requantize(im, s, outType, {twiceMax / (double(int64_t(1) << leftShift) * q->y.scale)}, 0, q->y.zp, "rescale");
  if (!y) return y.status();
  const fb::ActivationFunctionType act = o ? o->fused_activation_function()
      : os                                 ? os->fused_activation_function()
                                           : fb::ActivationFunctionType::NONE;
  return setQuantOut(im, 0, *y, act, q->y);
}

// MUL int8, or int16 (zero points 0; the product of two int16 values fits i32 as in TFLite's kernel).
Status qMul(Importer& im) {
  auto q = binaryParams(im, true);
  if (!q) return q.status();
  if (im.out(0).dtype != im.in(0).dtype) return Status::unsupported("quantized MUL whose output type differs");
  Value* a = widen(im, q->va, q->a.zp, 0, "a_i32");
  Value* b = widen(im, q->vb, q->b.zp, 0, "b_i32");
  Value* p = im.b.mul(a, b, 0, im.aux("product"));
  auto y = requantize(im, p, im.out(0).dtype, {q->a.scale * q->b.scale / q->y.scale}, 0, q->y.zp, "rescale");
  if (!y) return y.status();
  const auto* o = im.options<fb::MulOptions>();
  return setQuantOut(im, 0, *y, o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE, q->y);
}

// PRELU: x - zx >= 0 ? M1 (x - zx) : M2 (x - zx)(a - za), plus the output zero point (TFLite's
// BroadcastPrelu4DSlow; M1 = sx / sy, M2 = sx sa / sy from float products, requantized as everywhere else).
Status qPrelu(Importer& im) {
  auto q = binaryParams(im);
  if (!q) return q.status();
  if (q->shape != im.in(0).shape) return Status::invalid("PRELU alpha broadcasts beyond the input");
  const float sx = float(q->a.scale), sa = float(q->b.scale), sy = float(q->y.scale);
  Value* x = widen(im, q->va, q->a.zp, 0, "x_i32");
  Value* a = widen(im, q->vb, q->b.zp, 0, "alpha_i32");
  auto pos = requantize(im, x, DType::I8, {double(sx / sy)}, 0, q->y.zp, "identity");
  if (!pos) return pos.status();
  auto neg =
      requantize(im, im.b.mul(x, a, 0, im.aux("product")), DType::I8, {double(sx * sa / sy)}, 0, q->y.zp, "scaled");
  if (!neg) return neg.status();
  const size_t rank = q->shape.size();
  Value* positive = im.b.op1("tosa.greater_equal", {x, im.scalarOf(DType::I32, 0, rank)},
                             ValueType::tensor(DType::Bool, q->shape), {}, im.aux("positive"));
  Value* y = im.b.op1("tosa.select", {positive, *pos, *neg}, ValueType::tensor(DType::I8, q->shape), {}, im.loc);
  return setQuantOut(im, 0, y, fb::ActivationFunctionType::NONE, q->y);
}

// SQUARED_DIFFERENCE: both operands at 2^7 resolution on the common scale 2 max(sa, sb) (as ADD, with
// left_shift 7), the difference squared in i32, requantized by (2 max)^2 / (2^14 sy).
Status qSquaredDifference(Importer& im) {
  auto q = binaryParams(im);
  if (!q) return q.status();
  const double twiceMax = 2 * std::max(q->a.scale, q->b.scale);
  auto sa =
      requantize(im, widen(im, q->va, q->a.zp, 7, "a_i32"), DType::I32, {q->a.scale / twiceMax}, 0, 0, "a_scaled");
  if (!sa) return sa.status();
  auto sb =
      requantize(im, widen(im, q->vb, q->b.zp, 7, "b_i32"), DType::I32, {q->b.scale / twiceMax}, 0, 0, "b_scaled");
  if (!sb) return sb.status();
  Value* d = im.b.op1("tosa.sub", {*sa, *sb}, ValueType::tensor(DType::I32, q->shape), {}, im.aux("difference"));
  Value* sq = im.b.mul(d, d, 0, im.aux("square"));
  auto y = requantize(im, sq, DType::I8, {twiceMax * twiceMax / (double(1 << 14) * q->y.scale)}, 0, q->y.zp, "rescale");
  if (!y) return y.status();
  return setQuantOut(im, 0, *y, fb::ActivationFunctionType::NONE, q->y);
}

// The i32 quotient x / count rounded half away from zero (TFLite's (x +- count/2) / count, truncating);
// `count` and `half` are i32 constants broadcastable to x.
Value* divideRoundingAway(Importer& im, Value* x, Value* count, Value* half) {
  const ValueType t = x->type;
  Value* positive = im.b.op1("tosa.greater", {x, im.scalarOf(DType::I32, 0, t.dims.size())},
                             ValueType::tensor(DType::Bool, t.dims), {}, im.aux("positive"));
  Value* up = im.b.op1("tosa.add", {x, half}, t, {}, im.aux("plus_half"));
  Value* down = im.b.op1("tosa.sub", {x, half}, t, {}, im.aux("minus_half"));
  Value* num = im.b.op1("tosa.select", {positive, up, down}, t, {}, im.aux("rounded"));
  return im.b.op1("tosa.intdiv", {num, count}, t, {}, im.aux("quotient"));
}

// Pools: TFLite requires the output's quantization to equal the input's.
// TFLite's uint8 kernels divide raw (non-negative) uint8 sums rounding half up. On the values moved to int8 (a
// weighted sum of weight n moves by -128 n): (sum + 128 n + n/2) / n - 128, the numerator non-negative so that
// tosa.intdiv's truncation is the floor; `biasedHalf` holds 128 n + n/2.
Value* divideUint8HalfUp(Importer& im, Value* sum, Value* count, Value* biasedHalf) {
  const ValueType t = sum->type;
  Value* q =
      im.b.op1("tosa.intdiv", {im.b.add(sum, biasedHalf, im.aux("plus_half")), count}, t, {}, im.aux("quotient"));
  return im.b.sub(q, im.scalarOf(DType::I32, 128, t.dims.size()), im.aux("to_int8_range"));
}

Status qPool(Importer& im, bool isMax) {
  const auto* o = im.options<fb::Pool2DOptions>();
  if (!o) return Status::invalid("pool without Pool2DOptions");
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if (x->scale != y->scale || x->zp != y->zp)
    return Status::unsupported("int8 pool whose output quantization differs from its input's");
  const Shape& xs = im.in(0).shape;
  if (xs.size() != 4) return Status::invalid("pool needs a rank-4 input");
  Axis h{xs[1], o->filter_height(), o->stride_h(), 1}, w{xs[2], o->filter_width(), o->stride_w(), 1};
  TK_RETURN_IF_ERROR(planAxis(h, o->padding()));
  TK_RETURN_IF_ERROR(planAxis(w, o->padding()));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* xin = cutInput(im, *xv, h, w);
  const std::vector<int64_t> pad = {h.p0, h.p1, w.p0, w.p1};
  if (isMax) {
    if (h.p0 >= h.k || h.p1 >= h.k || w.p0 >= w.k || w.p1 >= w.k)
      return Status::unsupported("pool padding not smaller than the kernel");
    Value* v = im.b.op1("tosa.max_pool2d", {xin}, ValueType::tensor(DType::I8, {xs[0], h.out, w.out, xs[3]}),
                        {{"kernel", ir::Attribute::intArray({h.k, w.k})},
                         {"stride", ir::Attribute::intArray({h.stride, w.stride})},
                         {"pad", ir::Attribute::intArray(pad)}},
                        im.aux("max_pool2d"));
    return setQuantOut(im, 0, v, o->fused_activation_function(), *y);
  }
  // TFLite: the sum of the raw values the window covers, divided by their count rounding half away from zero.
  // TOSA's avg_pool2d divides by a reciprocal multiplier, so: the sum as a depthwise conv with unit weights
  // (padding contributes 0), then an exact integer division by the per-position count.
  const int64_t C = xs[3];
  Tensor ones(DType::I8, {h.k, w.k, C, 1});
  for (int64_t i = 0; i < ones.size(); ++i) ones.setInt(i, 1);
  Value* sum =
      im.b.op1("tosa.depthwise_conv2d",
               {xin, im.constant(std::move(ones), "ones"), im.constant(Tensor(DType::I32, {C}), "zero_bias"),
                im.b.scalar1(DType::I8, 0, im.aux("input_zp")), im.b.scalar1(DType::I8, 0, im.aux("weight_zp"))},
               ValueType::tensor(DType::I32, {xs[0], h.out, w.out, C}),
               {{"pad", ir::Attribute::intArray(pad)},
                {"stride", ir::Attribute::intArray({h.stride, w.stride})},
                {"dilation", ir::Attribute::intArray({1, 1})},
                {"acc_type", ir::Attribute::type(DType::I32)}},
               im.aux("window_sum"));
  Tensor count(DType::I32, {1, h.out, w.out, 1}), half(DType::I32, {1, h.out, w.out, 1});
  const bool uint8 = im.in(0).fromUint8;
  const int64_t inH = xs[1] - h.cut, inW = xs[2] - w.cut;
  for (int64_t oy = 0; oy < h.out; ++oy)
    for (int64_t ox = 0; ox < w.out; ++ox) {
      const int64_t y0 = oy * h.stride - h.p0, x0 = ox * w.stride - w.p0;
      const int64_t ny = std::min(y0 + h.k, inH) - std::max<int64_t>(y0, 0);
      const int64_t nx = std::min(x0 + w.k, inW) - std::max<int64_t>(x0, 0);
      count.setInt(oy * w.out + ox, ny * nx);
      half.setInt(oy * w.out + ox, ny * nx / 2 + (uint8 ? 128 * ny * nx : 0));
    }
  Value* cnt = im.constant(std::move(count), "count");
  Value* hv = im.constant(std::move(half), "half_count");
  const ValueType i32 = sum->type;
  Value* avg = uint8 ? divideUint8HalfUp(im, sum, cnt, hv) : divideRoundingAway(im, sum, cnt, hv);
  Value* v = im.b.op1("tosa.cast", {avg}, ValueType::tensor(DType::I8, i32.dims), {}, im.aux("to_i8"));
  return setQuantOut(im, 0, v, o->fused_activation_function(), *y);
}

struct UnaryQ {
  QParams x, y;
};

Result<UnaryQ> unaryParams(Importer& im) {
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  if (im.out(0).dtype != DType::I8) return Status::unsupported("int8 operator with a non-int8 output");
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  return UnaryQ{*x, *y};
}

// TFLite's PopulateLookupTable (LOGISTIC, TANH, ELU): dequantized in float, transformed, rounded half away from
// zero, the zero point added in float.
Status floatTable(Importer& im, float (*transform)(float)) {
  auto q = unaryParams(im);
  if (!q) return q.status();
  const float inScale = float(q->x.scale), inverse = 1.0f / float(q->y.scale);
  return tableOut(im, q->y, [&](int32_t v) {
    const float rescaled = std::round(transform(inScale * float(v - int32_t(q->x.zp))) * inverse);
    return int32_t(std::clamp(rescaled + float(q->y.zp), -129.0f, 128.0f));
  });
}

float logisticF(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float tanhF(float x) { return std::tanh(x); }
float eluF(float x) { return x < 0.0f ? std::exp(x) - 1.0f : x; }

// LEAKY_RELU: (x - zp) requantized by the identity multiplier or by alpha's (both from float scale products).
Status qLeakyRelu(Importer& im) {
  auto q = unaryParams(im);
  if (!q) return q.status();
  const auto* o = im.options<fb::LeakyReluOptions>();
  const float alpha = o ? o->alpha() : 0.0f, inScale = float(q->x.scale), outScale = float(q->y.scale);
  int64_t qa = 0, sa = 0, qi = 0, si = 0;
  fixedpoint::quantizeMultiplier(double(inScale * alpha / outScale), qa, sa);
  fixedpoint::quantizeMultiplier(double(inScale / outScale), qi, si);
  return tableOut(im, q->y, [&](int32_t v) {
    const int32_t x = v - int32_t(q->x.zp);
    const bool positive = x >= 0;
    return int32_t(q->y.zp) +
        fixedpoint::multiplyByQuantizedMultiplier(x, int32_t(positive ? qi : qa), int(positive ? si : sa));
  });
}

// HARD_SWISH: TFLite's int16 fixed-point evaluation (reference_ops::HardSwish): x on a "hires" scale (x 2^7),
// a saturated "relu-ish" factor in [0, 1] as Q15, their high product, then the output shift.
Status qHardSwish(Importer& im) {
  auto q = unaryParams(im);
  if (!q) return q.status();
  const float hiresScale = (1.0f / 128.0f) * float(q->x.scale);
  int64_t qo = 0, eo = 0, qr = 0, er = 0;
  fixedpoint::quantizeMultiplier(double(hiresScale / float(q->y.scale)), qo, eo);
  fixedpoint::quantizeMultiplier(double(hiresScale / (3.0f / 32768.0f)), qr, er);
  if (eo > 0) return Status::unsupported("HARD_SWISH whose output scale is below input scale / 128 (TFLite refuses)");
  const int16_t outMul = fixedpoint::downScaleMultiplier(int32_t(qo));
  const int16_t reluishMul = fixedpoint::downScaleMultiplier(int32_t(qr));
  return tableOut(im, q->y, [&](int32_t v) {
    const int16_t hires = int16_t((v - int32_t(q->x.zp)) * 128);
    const int16_t preshift = fixedpoint::roundingDoublingHighMul16(hires, outMul);
    int16_t reluish = hires;
    if (er > 0) reluish = fixedpoint::saturatingLeftShift16(reluish, int(er) - 1);
    reluish = fixedpoint::roundingDoublingHighMul16(reluish, reluishMul);
    if (er > 0) reluish = fixedpoint::saturatingLeftShift16(reluish, 1);
    if (er < 0) reluish = int16_t(fixedpoint::roundingDivideByPOT(reluish, int(-er)));
    reluish = int16_t((int32_t(reluish) + (1 << 15)) >> 1);
    const int16_t product = fixedpoint::doublingHighMul16(reluish, preshift);
    return fixedpoint::roundingDivideByPOT(product, int(-eo)) + int32_t(q->y.zp);
  });
}

// Above this many classes the softmax denominator is one tosa.reduce_sum instead of TFLite's left-to-right
// float sum (at most 1 LSB apart, docs/TFLITE.md): the sequential chain costs four ops per class.
constexpr int64_t kSequentialSumLimit = 256;

// The float sum of `e` along its last axis in TFLite's order, ((e0 + e1) + e2) + ..., shape [..., 1].
Value* sumLastAxis(Importer& im, Value* e) {
  const Shape& s = e->type.dims;
  const size_t last = s.size() - 1;
  Shape one = s;
  one[last] = 1;
  if (s[last] > kSequentialSumLimit)
    return im.b.op1("tosa.reduce_sum", {e}, ValueType::tensor(DType::FP32, one),
                    {{"axis", ir::Attribute::integer(int64_t(last), DType::I32)}}, im.aux("sum_exp"));
  auto column = [&](int64_t j) {
    Shape start(s.size(), 0);
    start[last] = j;
    const std::string what = "exp" + std::to_string(j);
    return im.b.op1("tosa.slice",
                    {e, im.b.constShape(start, im.aux(what + "_start")), im.b.constShape(one, im.aux(what + "_size"))},
                    ValueType::tensor(DType::FP32, one), {}, im.aux(what));
  };
  Value* sum = column(0);
  for (int64_t j = 1; j < s[last]; ++j) sum = im.b.add(sum, column(j), im.aux("sum_exp" + std::to_string(j)));
  return sum;
}

// The common front of TFLite's int8 SOFTMAX and LOG_SOFTMAX kernels: x as i32, its max along the last axis,
// e = table[255 - (max - x)] with table[255 - d] = expf(-input_scale beta d) (PopulateSoftmaxLookupTable) gathered
// with tosa.gather, and the float sum of e in TFLite's order.
struct SoftmaxTerms {
  Value *x = nullptr, *max = nullptr, *e = nullptr, *sum = nullptr;
};

Result<SoftmaxTerms> softmaxTerms(Importer& im, const UnaryQ& q, float beta) {
  const Shape& xs = im.in(0).shape;
  if (xs.empty() || xs.back() <= 0) return Status::invalid("softmax of an empty or rank-0 tensor");
  Tensor table(DType::FP32, {1, 256, 1});
  const float scale = -float(q.x.scale) * beta;
  for (int32_t d = 0; d <= 255; ++d) table.setFloat(255 - d, std::exp(scale * float(d)));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const size_t rank = xs.size(), last = rank - 1;
  Shape one = xs;
  one[last] = 1;
  SoftmaxTerms t;
  t.x = im.b.op1("tosa.cast", {*xv}, ValueType::tensor(DType::I32, xs), {}, im.aux("x_i32"));
  t.max = im.b.op1("tosa.reduce_max", {t.x}, ValueType::tensor(DType::I32, one),
                   {{"axis", ir::Attribute::integer(int64_t(last), DType::I32)}}, im.aux("max"));
  // index 255 - (max - x) in [0, 255]
  Value* index =
      im.b.add(im.b.sub(t.x, t.max, im.aux("minus_max")), im.scalarOf(DType::I32, 255, rank), im.aux("index"));
  const int64_t count = numElements(xs);
  Value* gathered = im.b.op1(
      "tosa.gather", {im.constant(std::move(table), "exp_table"), im.b.reshape(index, {1, count}, im.aux("flat"))},
      ValueType::tensor(DType::FP32, {1, count, 1}), {}, im.aux("exp"));
  t.e = im.b.reshape(gathered, xs, im.aux("exp_shaped"));
  t.sum = sumLastAxis(im, t.e);
  return t;
}

// SOFTMAX int8 -> int8 or int8 -> int16 as TFLite's x86 kernel computes both (optimized_ops::Softmax<In, Out>
// with the float table): 1 / (sum output_scale), each entry times that, rounded half away from zero, plus the
// zero point, saturated to the output type.
Status qSoftmax(Importer& im) {
  const DType outType = im.out(0).dtype;
  if (outType != DType::I8 && outType != DType::I16)
    return Status::unsupported("int8 SOFTMAX to " + std::string(dtypeName(outType)));
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  auto qx = perTensor(im.in(0), "input");
  if (!qx) return qx.status();
  auto qy = perTensor(im.out(0), "output");
  if (!qy) return qy.status();
  const UnaryQ q0{*qx, *qy};
  const UnaryQ* q = &q0;
  const auto* o = im.options<fb::SoftmaxOptions>();
  auto t = softmaxTerms(im, *q, o ? o->beta() : 1.0f);
  if (!t) return t.status();
  const Shape& xs = im.in(0).shape;
  const size_t rank = xs.size();
  const ValueType f32 = ValueType::tensor(DType::FP32, xs);
  Value* denom = im.b.mul(t->sum, im.scalarOf(DType::FP32, float(q->y.scale), rank), 0, im.aux("denominator"));
  Value* inv = frontends::divideF32(im.b, im.scalarOf(DType::FP32, 1.0, rank), denom, im.aux("inverse"));
  Value* p = im.b.mul(t->e, inv, 0, im.aux("probability"));
  // round half away from zero of p >= 0: floor, and up when the (exact) fraction is at least 1/2.
  Value* fl = im.b.op1("tosa.floor", {p}, f32, {}, im.aux("floor"));
  Value* up = im.b.op1("tosa.greater_equal", {im.b.sub(p, fl, im.aux("fraction")), im.scalarOf(DType::FP32, 0.5, rank)},
                       ValueType::tensor(DType::Bool, xs), {}, im.aux("round_up"));
  Value* rounded = im.b.op1("tosa.select", {up, im.b.add(fl, im.scalarOf(DType::FP32, 1, rank), im.aux("ceil")), fl},
                            f32, {}, im.aux("rounded"));
  Value* shifted = im.b.add(rounded, im.scalarOf(DType::FP32, double(q->y.zp), rank), im.aux("plus_zp"));
  const bool wide = outType == DType::I16;
  Value* clamped = im.clampF(shifted, wide ? -32768 : -128, wide ? 32767 : 127, "saturate");
  Value* y = im.b.op1("tosa.cast", {clamped}, ValueType::tensor(outType, xs), {}, im.aux("narrow"));
  return setQuantOut(im, 0, y, fb::ActivationFunctionType::NONE, q->y);
}

// Round half to even of float values (std::rint), exactly: floor, up above 1/2, and at 1/2 when the floor is odd.
Value* roundHalfEven(Importer& im, Value* v) {
  const ValueType t = v->type;
  const ValueType b = ValueType::tensor(DType::Bool, t.dims);
  const size_t rank = t.dims.size();
  auto f = [&](double c) { return im.scalarOf(DType::FP32, c, rank); };
  Value* fl = im.b.op1("tosa.floor", {v}, t, {}, im.aux("floor"));
  Value* frac = im.b.sub(v, fl, im.aux("fraction"));
  Value* half = im.b.op1("tosa.floor", {im.b.mul(fl, f(0.5), 0, im.aux("half_floor"))}, t, {}, im.aux("floor_half"));
  Value* odd =
      im.b.op1("tosa.greater", {im.b.sub(fl, im.b.mul(half, f(2), 0, im.aux("even_part")), im.aux("parity")), f(0.5)},
               b, {}, im.aux("odd"));
  Value* above = im.b.op1("tosa.greater", {frac, f(0.5)}, b, {}, im.aux("above_half"));
  Value* tie = im.b.op1("tosa.equal", {frac, f(0.5)}, b, {}, im.aux("tie"));
  Value* up = im.b.op1("tosa.logical_or", {above, im.b.op1("tosa.logical_and", {tie, odd}, b, {}, im.aux("tie_odd"))},
                       b, {}, im.aux("round_up"));
  return im.b.op1("tosa.select", {up, im.b.add(fl, f(1), im.aux("next")), fl}, t, {}, im.aux("rint"));
}

// LOG_SOFTMAX int8 as TFLite's x86 kernel (optimized_ops::LogSoftmax with the same float table): log of the sum,
// (input_scale max + log_sum) / output_scale, then rint(input_scale / output_scale * x - that) + zero point.
// The float log is TOSA's, not glibc's logf: a result next to a rounding tie can differ by 1 LSB.
Status qLogSoftmax(Importer& im) {
  auto q = unaryParams(im);
  if (!q) return q.status();
  auto t = softmaxTerms(im, *q, 1.0f);
  if (!t) return t.status();
  const Shape& xs = im.in(0).shape;
  const size_t rank = xs.size();
  Shape one = xs;
  one.back() = 1;
  const float inScale = float(q->x.scale), outScale = float(q->y.scale);
  Value* logSum = im.b.op1("tosa.log", {t->sum}, t->sum->type, {}, im.aux("log_sum"));
  Value* maxF = im.b.op1("tosa.cast", {t->max}, ValueType::tensor(DType::FP32, one), {}, im.aux("max_f32"));
  Value* shift = im.b.add(im.b.mul(maxF, im.scalarOf(DType::FP32, inScale, rank), 0, im.aux("max_scaled")), logSum,
                          im.aux("shift"));
  Value* pre = frontends::divideF32(im.b, shift, im.scalarOf(DType::FP32, outScale, rank), im.aux("precomputed"));
  Value* xF = im.b.op1("tosa.cast", {t->x}, ValueType::tensor(DType::FP32, xs), {}, im.aux("x_f32"));
  Value* logProb = im.b.sub(im.b.mul(xF, im.scalarOf(DType::FP32, inScale / outScale, rank), 0, im.aux("x_scaled")),
                            pre, im.aux("log_prob"));
  Value* r = im.b.add(roundHalfEven(im, logProb), im.scalarOf(DType::FP32, double(q->y.zp), rank), im.aux("plus_zp"));
  Value* y = im.b.op1("tosa.cast", {im.clampF(r, -128, 127, "saturate")}, ValueType::tensor(DType::I8, xs), {},
                      im.aux("to_i8"));
  return setQuantOut(im, 0, y, fb::ActivationFunctionType::NONE, q->y);
}

// MEAN over H and W of a 4-D tensor with keep_dims (global average pooling; other axes: int8MeanOrSum), as
// TFLite 2.9's kernel computes it: the sum of x - zx in i32, MultiplyByQuantizedMultiplier by sx / sy, divided
// by the count rounding half away from zero, plus zy, saturated (found against TFLite by the generator: a
// float variant was 1 LSB off).
Status qMean(Importer& im) {
  auto q = unaryParams(im);
  if (!q) return q.status();
  const auto* o = im.options<fb::ReducerOptions>();
  auto axesT = im.constIn(1, "axes");
  if (!axesT) return axesT.status();
  std::vector<int64_t> axes = (*axesT)->toInts();
  std::sort(axes.begin(), axes.end());
  const Shape& xs = im.in(0).shape;
  if (xs.size() != 4 || axes != std::vector<int64_t>{1, 2} || !o || !o->keep_dims())
    return int8MeanOrSum(im, false);  // TFLite's general kernels
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const int64_t count = xs[1] * xs[2];
  const Shape out = {xs[0], 1, 1, xs[3]};
  Value* x = widen(im, *xv, q->x.zp, 0, "x_i32");
  Value* rows = im.b.op1("tosa.reduce_sum", {x}, ValueType::tensor(DType::I32, {xs[0], 1, xs[2], xs[3]}),
                         {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux("sum_h"));
  Value* sum = im.b.op1("tosa.reduce_sum", {rows}, ValueType::tensor(DType::I32, out),
                        {{"axis", ir::Attribute::integer(2, DType::I32)}}, im.aux("sum"));
  auto scaled = requantize(im, sum, DType::I32, {q->x.scale / q->y.scale}, 0, 0, "scaled");
  if (!scaled) return scaled.status();
  Value* mean = divideRoundingAway(im, *scaled, im.scalarOf(DType::I32, double(count), 4),
                                   im.scalarOf(DType::I32, double(count / 2), 4));
  ir::RescaleAttrs ra;  // identity, adding the zero point and saturating to int8
  ra.multiplier = {int64_t(1) << 30};
  ra.shift = {30};
  ra.outputZp = q->y.zp;
  ra.roundingMode = "SINGLE_ROUND";
  Value* y = im.b.rescale(mean, DType::I8, ra, im.aux("to_i8"));
  return setQuantOut(im, 0, y, fb::ActivationFunctionType::NONE, q->y);
}

// RESIZE_BILINEAR int8 as TFLite's ResizeBilinearInteger: sample positions in 1/1024 units (the scale rounded
// to 10 fractional bits, half-pixel offset scale/2 - 512), weights (1024 - f) and f per axis, the 20-bit sum
// rounded half away from zero. That is tosa.resize BILINEAR with scale 1024 / scale_10 (its i32 result is the
// same weighted sum), then the rounded division by 2^20.
Status qResizeBilinear(Importer& im) {
  auto q = unaryParams(im);
  if (!q) return q.status();
  const auto* o = im.options<fb::ResizeBilinearOptions>();
  const bool align = o && o->align_corners(), half = o && o->half_pixel_centers();
  const Shape& xs = im.in(0).shape;
  const Shape& os = im.out(0).shape;
  if (xs.size() != 4 || os.size() != 4 || os[0] != xs[0] || os[3] != xs[3])
    return Status::invalid("resize needs rank-4 input and output of the same batch and channels");
  std::vector<int64_t> scale, offset, border;
  for (size_t a = 1; a <= 2; ++a) {
    const int64_t in = xs[a], out = os[a];
    if (in <= 0 || out <= 0 || in > (int64_t(1) << 20)) return Status::invalid("resize of an empty or huge axis");
    int64_t s10 = ((int64_t(1) << 10) * in + out / 2) / out;
    if (align && out > 1) s10 = ((int64_t(1) << 10) * (in - 1) + (out - 1) / 2) / (out - 1);
    const int64_t off = half ? s10 / 2 - 512 : 0;
    scale.push_back(1024);
    scale.push_back(s10);
    offset.push_back(off);
    border.push_back((out - 1) * s10 - (in - 1) * 1024 + off);
  }
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const Shape shape = {xs[0], os[1], os[2], xs[3]};
  Value* sum = im.b.op1("tosa.resize",
                        {*xv, im.b.constShape(scale, im.aux("scale")), im.b.constShape(offset, im.aux("offset")),
                         im.b.constShape(border, im.aux("border"))},
                        ValueType::tensor(DType::I32, shape), {{"mode", ir::Attribute::enumCase("BILINEAR")}},
                        im.aux("weighted_sum"));
  Value* r = divideRoundingAway(im, sum, im.scalarOf(DType::I32, double(1 << 20), 4),
                                im.scalarOf(DType::I32, double(1 << 19), 4));
  Value* y = im.b.op1("tosa.cast", {r}, ValueType::tensor(DType::I8, shape), {}, im.aux("to_i8"));
  return setQuantOut(im, 0, y, fb::ActivationFunctionType::NONE, q->y);
}

Status qConcatenation(Importer& im) {
  const auto* o = im.options<fb::ConcatenationOptions>();
  if (!o) return Status::invalid("CONCATENATION without options");
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  const size_t rank = im.in(0).shape.size();
  const int64_t axis = o->axis() < 0 ? o->axis() + int64_t(rank) : o->axis();
  if (axis < 0 || axis >= int64_t(rank)) return Status::invalid("CONCATENATION axis out of range");
  std::vector<Value*> parts;
  Shape out = im.in(0).shape;
  out[size_t(axis)] = 0;
  for (int i = 0; i < im.numInputs(); ++i) {
    TK_RETURN_IF_ERROR(requireInt8(im, i));
    auto q = perTensor(im.in(i), "input " + std::to_string(i));
    if (!q) return q.status();
    if (q->scale != y->scale || q->zp != y->zp)
      return Status::unsupported(
          "int8 CONCATENATION of inputs quantized unlike the output (TFLite requantizes in float)");
    if (im.in(i).shape.size() != rank) return Status::invalid("CONCATENATION inputs of different ranks");
    out[size_t(axis)] += im.in(i).shape[size_t(axis)];
    auto v = im.get(i);
    if (!v) return v.status();
    parts.push_back(*v);
  }
  Value* v = im.b.op1("tosa.concat", parts, ValueType::tensor(DType::I8, out),
                      {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.aux("concat"));
  return setQuantOut(im, 0, v, o->fused_activation_function(), *y);
}

Status qReshape(Importer& im) {
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const Shape& out = im.out(0).shape;
  if (numElements(out) != numElements(im.in(0).shape)) return Status::invalid("RESHAPE changes the element count");
  return setQuantOut(im, 0, im.b.reshape(*xv, out, im.aux("reshape")), fb::ActivationFunctionType::NONE, *y);
}

// MAXIMUM / MINIMUM: TFLite compares the raw int8 values whatever the quantization (the converter gives
// operands and result one). TOSA's maximum/minimum take i32: widened, compared, narrowed back exactly.
Status qMaxMin(Importer& im, const char* tosaOp) {
  const DType t = im.in(0).dtype;  // int8, or int16 (raw values too)
  if ((t != DType::I8 && t != DType::I16) || im.in(1).dtype != t || im.out(0).dtype != t)
    return Status::unsupported("quantized MAXIMUM/MINIMUM mixing types");
  auto shape = broadcastShapes(im.in(0).shape, im.in(1).shape);
  if (!shape) return Status::invalid("operands do not broadcast");
  auto a = im.get(0);
  if (!a) return a.status();
  auto b = im.get(1);
  if (!b) return b.status();
  auto widened = [&](Value* v, const char* what) {
    Value* r = im.toRank(v, shape->size());
    return im.b.op1("tosa.cast", {r}, ValueType::tensor(DType::I32, r->type.dims), {}, im.aux(what));
  };
  Value* m = im.b.op1(tosaOp, {widened(*a, "a_i32"), widened(*b, "b_i32")}, ValueType::tensor(DType::I32, *shape), {},
                      im.aux("i32"));
  return im.setOut(0, im.b.op1("tosa.cast", {m}, ValueType::tensor(t, *shape), {}, im.loc));
}

// DEQUANTIZE of a run-time int8 tensor: (q - zp) exactly in float, times the scale (one rounding, as TFLite).
Status qDequantize(Importer& im) {
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const size_t rank = (*xv)->type.dims.size();
  Value* f = im.b.op1("tosa.cast", {*xv}, ValueType::tensor(DType::FP32, (*xv)->type.dims), {}, im.aux("to_f32"));
  Value* d = im.b.sub(f, im.scalarOf(DType::FP32, double(x->zp), rank), im.aux("minus_zp"));
  return im.setOut(0, im.b.mul(d, im.scalarOf(DType::FP32, float(x->scale), rank), 0, im.loc));
}

// QUANTIZE float32 -> int8: TFLite rounds val / scale (a double division) half away from zero, i.e. the exact
// quotient. Here: the correctly rounded float quotient q; when |q| lands exactly on k + 1/2, the sign of the
// exact residual |x| - (k + 1/2) s (TwoProduct) says whether the true quotient is above, below or on the tie.
Status qQuantize(Importer& im) {
  if (im.in(0).dtype != DType::FP32)
    return Status::unsupported("QUANTIZE from " + std::string(dtypeName(im.in(0).dtype)));
  if (im.out(0).dtype != DType::I8)
    return Status::unsupported("QUANTIZE to " + std::string(dtypeName(im.out(0).dtype)));
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* x = *xv;
  const ValueType ft = x->type;
  const ValueType bt = ValueType::tensor(DType::Bool, ft.dims);
  const size_t rank = ft.dims.size();
  auto f = [&](double v) { return im.scalarOf(DType::FP32, v, rank); };
  auto op2 = [&](const char* name, Value* a, Value* c, const ValueType& t, const char* what) {
    return im.b.op1(name, {a, c}, t, {}, im.aux(what));
  };
  Value* s = f(float(y->scale));
  Value* ax = im.b.op1("tosa.abs", {x}, ft, {}, im.aux("abs_x"));
  Value* q = frontends::divideF32(im.b, ax, s, im.aux("div"));
  Value* fl = im.b.op1("tosa.floor", {q}, ft, {}, im.aux("floor"));
  Value* frac = im.b.sub(q, fl, im.aux("frac"));
  Value* half = f(0.5);
  Value* tie = op2("tosa.equal", frac, half, bt, "tie");
  Value* above = op2("tosa.greater", frac, half, bt, "above_half");
  Value* t = im.b.add(fl, half, im.aux("tie_point"));
  auto [p, e] = frontends::twoProductF32(im.b, t, s, im.aux("tie_product"));
  Value* d = im.b.sub(im.b.sub(ax, p, im.aux("residual")), e, im.aux("residual"));
  Value* tieUp = op2("tosa.greater_equal", d, f(0), bt, "tie_up");
  Value* up = im.b.op1("tosa.select", {tie, tieUp, above}, bt, {}, im.aux("round_up"));
  Value* mag = im.b.add(fl, im.b.op1("tosa.select", {up, f(1), f(0)}, ft, {}, im.aux("carry")), im.aux("magnitude"));
  Value* neg = op2("tosa.greater", f(0), x, bt, "negative");
  Value* signedQ =
      im.b.op1("tosa.select", {neg, im.b.sub(f(0), mag, im.aux("negate")), mag}, ft, {}, im.aux("rounded"));
  Value* shifted = im.b.add(signedQ, f(double(y->zp)), im.aux("plus_zp"));
  Value* clamped = im.clampF(shifted, -128, 127, "saturate");
  Value* v = im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I8, ft.dims), {}, im.aux("to_i8"));
  return setQuantOut(im, 0, v, fb::ActivationFunctionType::NONE, *y);
}

// LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, EQUAL, NOT_EQUAL of int8 operands (comparisons.cc
// ComparisonQuantized): each (x - zp) 2^8 requantized by its own scale (QuantizeMultiplierSmallerThanOneExp, i.e.
// MultiplyByQuantizedMultiplier by the scale), then compared in i32. LESS* swap the operands, NOT_EQUAL negates.
Status qCompare(Importer& im, const char* tosaOp, bool swap, bool negate) {
  TK_RETURN_IF_ERROR(requireInt8(im, 0));
  TK_RETURN_IF_ERROR(requireInt8(im, 1));
  if (im.out(0).dtype != DType::Bool) return Status::invalid("comparison whose output is not bool");
  auto qa = perTensor(im.in(0), "input 0");
  if (!qa) return qa.status();
  auto qb = perTensor(im.in(1), "input 1");
  if (!qb) return qb.status();
  if (qa->scale >= 1 || qb->scale >= 1) return Status::unsupported("int8 comparison of operands with scale >= 1");
  auto shape = broadcastShapes(im.in(0).shape, im.in(1).shape);
  if (!shape) return Status::invalid("operands do not broadcast");
  auto va = im.get(0);
  if (!va) return va.status();
  auto vb = im.get(1);
  if (!vb) return vb.status();
  auto scaled = [&](Value* v, const QParams& q, const char* what) {
    return requantize(im, widen(im, im.toRank(v, shape->size()), q.zp, 8, std::string(what) + "_i32"), DType::I32,
                      {q.scale}, 0, 0, std::string(what) + "_scaled");
  };
  auto sa = scaled(*va, *qa, "a");
  if (!sa) return sa.status();
  auto sb = scaled(*vb, *qb, "b");
  if (!sb) return sb.status();
  const ValueType bt = ValueType::tensor(DType::Bool, *shape);
  Value* r = im.b.op1(tosaOp, {swap ? *sb : *sa, swap ? *sa : *sb}, bt, {}, negate ? im.aux("equal") : im.loc);
  if (negate) r = im.b.op1("tosa.logical_not", {r}, bt, {}, im.loc);
  return im.setOut(0, r);
}

// QUANTIZE of an int8 or int16 tensor, a requantization (quantize.cc, Requantize): MultiplyByQuantizedMultiplier(x -
// zx, sx / sy) + zy, saturated. TFLite 2.9 takes int8 -> int8, int16 -> int16 and int16 -> int8.
Status qRequantize(Importer& im) {
  const DType in = im.in(0).dtype, out = im.out(0).dtype;
  if (!((in == DType::I8 && out == DType::I8) || (in == DType::I16 && (out == DType::I16 || out == DType::I8))))
    return Status::unsupported("QUANTIZE from " + std::string(dtypeName(in)) + " to " + std::string(dtypeName(out)));
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if ((in == DType::I16 && x->zp != 0) || (out == DType::I16 && y->zp != 0))
    return Status::unsupported("int16 QUANTIZE with a non-zero zero point");
  auto xv = im.get(0);
  if (!xv) return xv.status();
  auto r = requantize(im, *xv, out, {x->scale / y->scale}, x->zp, y->zp, "rescale");
  if (!r) return r.status();
  return setQuantOut(im, 0, *r, fb::ActivationFunctionType::NONE, *y);
}

}  // namespace

// TRANSPOSE_CONV int8 (reference_integer_ops::TransposeConv and its optimized form alike: exact i32 sums plus the
// bias, MultiplyByQuantizedMultiplier per output channel): tosa.transpose_conv2d with the input zero point, the
// geometry of the float lowering, a DOUBLE_ROUND rescale per channel.
Status quantizedTransposeConv(Importer& im, fb::Padding padding, int64_t strideH, int64_t strideW,
                              fb::ActivationFunctionType act) {
  const TVal& in = im.in(2);
  const Shape& xs = in.shape;
  const Shape& ws = im.in(1).shape;  // O KH KW I
  const Shape& os = im.out(0).shape;
  if (xs.size() != 4 || ws.size() != 4 || os.size() != 4 || ws[3] != xs[3] || os[3] != ws[0])
    return Status::invalid("transpose conv shapes: input " + shapeToString(xs) + ", filter " + shapeToString(ws) +
                           ", output " + shapeToString(os));
  if (strideH <= 0 || strideW <= 0) return Status::invalid("transpose conv strides must be positive");
  if (im.in(1).dtype != DType::I8 || im.out(0).dtype != DType::I8)
    return Status::unsupported("int8 TRANSPOSE_CONV needs int8 weights and output");
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  if (!transposeConvPads(xs[1], os[1], ws[1], strideH, padding, pt, pb) ||
      !transposeConvPads(xs[2], os[2], ws[2], strideW, padding, pl, pr))
    return Status::unsupported("transpose conv output size needs more cropping than tosa.transpose_conv2d expresses");
  auto x = perTensor(in, "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  auto wsc = weightScales(im, ws[0], 0);
  if (!wsc) return wsc.status();
  Value* bias = nullptr;
  if (im.hasInput(3)) {
    if (im.in(3).dtype != DType::I32) return Status::unsupported("int8 TRANSPOSE_CONV bias that is not int32");
    if (im.in(3).shape != Shape{ws[0]}) return Status::invalid("bias shape " + shapeToString(im.in(3).shape));
    auto bv = im.get(3);
    if (!bv) return bv.status();
    bias = *bv;
  } else {
    bias = im.constant(Tensor(DType::I32, {ws[0]}), "bias");
  }
  auto xv = im.get(2);
  if (!xv) return xv.status();
  auto wv = im.get(1);
  if (!wv) return wv.status();
  Value* acc = im.b.op1("tosa.transpose_conv2d",
                        {*xv, *wv, bias, im.b.scalar1(DType::I8, double(x->zp), im.aux("input_zp")),
                         im.b.scalar1(DType::I8, 0, im.aux("weight_zp"))},
                        ValueType::tensor(DType::I32, os),
                        {{"out_pad", ir::Attribute::intArray({pt, pb, pl, pr})},
                         {"stride", ir::Attribute::intArray({strideH, strideW})},
                         {"acc_type", ir::Attribute::type(DType::I32)}},
                        im.aux("transpose_conv2d"));
  auto r = requantize(im, acc, DType::I8, outputScales(x->scale, *wsc, y->scale), 0, y->zp, "rescale");
  if (!r) return r.status();
  return setQuantOut(im, 0, *r, act, *y);
}

void registerQuantOps(HandlerTable& t) {
  using Op = fb::BuiltinOperator;
  auto add = [&](Op op, OpHandler h) { t.quantized[int(op)] = std::move(h); };
  add(Op::CONV_2D, qConv2d);
  add(Op::DEPTHWISE_CONV_2D, qDepthwiseConv2d);
  add(Op::FULLY_CONNECTED, qFullyConnected);
  add(Op::ADD, [](Importer& im) { return qAddSub(im, false); });
  add(Op::SUB, [](Importer& im) { return qAddSub(im, true); });
  add(Op::MUL, qMul);
  add(Op::MAX_POOL_2D, [](Importer& im) { return qPool(im, true); });
  add(Op::AVERAGE_POOL_2D, [](Importer& im) { return qPool(im, false); });
  add(Op::LOGISTIC, [](Importer& im) {
    return im.in(0).dtype == DType::I16 ? int16SigmoidOrTanh(im, false) : floatTable(im, logisticF);
  });
  add(Op::TANH,
      [](Importer& im) { return im.in(0).dtype == DType::I16 ? int16SigmoidOrTanh(im, true) : floatTable(im, tanhF); });
  add(Op::ELU, [](Importer& im) { return floatTable(im, eluF); });
  add(Op::LEAKY_RELU, qLeakyRelu);
  add(Op::HARD_SWISH, qHardSwish);
  add(Op::SOFTMAX, [](Importer& im) { return im.in(0).dtype == DType::I16 ? int16Softmax(im) : qSoftmax(im); });
  add(Op::LOG_SOFTMAX, qLogSoftmax);
  add(Op::PRELU, qPrelu);
  add(Op::MEAN, qMean);
  add(Op::SUM, [](Importer& im) { return int8MeanOrSum(im, true); });
  add(Op::RESIZE_BILINEAR,
      [](Importer& im) { return im.in(0).fromUint8 ? uint8ResizeBilinear(im) : qResizeBilinear(im); });
  add(Op::REDUCE_PROD, quantizedReduceProd);
  add(Op::SQUARED_DIFFERENCE, qSquaredDifference);
  add(Op::CONCATENATION, qConcatenation);
  add(Op::RESHAPE, qReshape);
  add(Op::DEQUANTIZE, qDequantize);
  add(Op::MAXIMUM, [](Importer& im) { return qMaxMin(im, "tosa.maximum"); });
  add(Op::MINIMUM, [](Importer& im) { return qMaxMin(im, "tosa.minimum"); });
  add(Op::LESS, [](Importer& im) { return qCompare(im, "tosa.greater", true, false); });
  add(Op::LESS_EQUAL, [](Importer& im) { return qCompare(im, "tosa.greater_equal", true, false); });
  add(Op::GREATER, [](Importer& im) { return qCompare(im, "tosa.greater", false, false); });
  add(Op::GREATER_EQUAL, [](Importer& im) { return qCompare(im, "tosa.greater_equal", false, false); });
  add(Op::EQUAL, [](Importer& im) { return qCompare(im, "tosa.equal", false, false); });
  add(Op::NOT_EQUAL, [](Importer& im) { return qCompare(im, "tosa.equal", false, true); });
  add(Op::QUANTIZE, qRequantize);
  add(Op::BATCH_MATMUL, qBatchMatmul);       // an int8/int16 input; a float one takes qQuantize below
  t.builtin[int(Op::QUANTIZE)] = qQuantize;  // float input: not a quantized lowering by its input type
}

}  // namespace tosakit::tflite
