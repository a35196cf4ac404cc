// Float operators: convolutions, fully connected, pools, elementwise arithmetic and activations, data
// movement, resize. TFLite is NHWC like TOSA, and TFLite's conv weights are OHWI like TOSA's: no layout
// changes. Every lowering takes its output shape from the model and checks it (Importer::setOut).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "frontends/common/float_arith.h"
#include "frontends/tflite/tflite_internal.h"

namespace tosakit::tflite {
namespace {

Status requireFloat(Importer& im, int i) {
  const TVal& v = im.in(i);
  if (v.dtype != DType::FP32)
    return Status::unsupported("input " + std::to_string(i) + " is " + std::string(dtypeName(v.dtype)) +
                               " (this lowering takes float32)");
  return Status::ok();
}

// One spatial axis of a TFLite conv or pool: TFLite's output size and padding for SAME / VALID, then TOSA's
// exact-division form (end padding, or rows cut from the end of the input when VALID leaves them unread).
struct Axis {
  int64_t in = 0, k = 1, stride = 1, dil = 1;
  int64_t out = 0, p0 = 0, p1 = 0, cut = 0;
};

Status planAxis(Axis& a, fb::Padding padding, const char* name) {
  if (a.stride <= 0 || a.dil <= 0 || a.k <= 0)
    return Status::invalid(std::string(name) + ": stride, dilation and kernel must be positive");
  const int64_t span = (a.k - 1) * a.dil + 1;
  if (padding == fb::Padding::SAME) {
    a.out = (a.in + a.stride - 1) / a.stride;
    a.p0 = std::max<int64_t>((a.out - 1) * a.stride + span - a.in, 0) / 2;
  } else {
    if (a.in < span) return Status::invalid(std::string(name) + ": the kernel is larger than the input");
    a.out = (a.in - span) / a.stride + 1;
    a.p0 = 0;
  }
  a.p1 = (a.out - 1) * a.stride + span - a.in - a.p0;
  if (a.p1 < 0) {
    a.cut = -a.p1;
    a.p1 = 0;
  }
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

// Input i as a constant tensor reshaped to `shape` (a copy), or the run-time value reshaped.
Result<Value*> reshapedInput(Importer& im, int i, const Shape& shape, const std::string& what) {
  TVal& v = im.in(i);
  if (v.isConst()) {
    Tensor t = *v.c;
    t.reshape(shape);
    return im.constant(std::move(t), what);
  }
  auto x = im.get(i);
  if (!x) return x.status();
  return im.b.reshape(*x, shape, im.aux(what));
}

// The bias of a conv / fully connected (input 2), or zeros when the model omits it.
Result<Value*> biasInput(Importer& im, int64_t channels) {
  if (!im.hasInput(2)) return im.constant(Tensor(DType::FP32, {channels}), "bias");
  TK_RETURN_IF_ERROR(requireFloat(im, 2));
  if (im.in(2).shape != Shape{channels})
    return Status::invalid("bias has shape " + shapeToString(im.in(2).shape) + ", expected " +
                           std::to_string(channels));
  return im.get(2);
}

Status opConv2d(Importer& im) {
  const auto* o = im.options<fb::Conv2DOptions>();
  if (!o) return Status::invalid("CONV_2D without Conv2DOptions");
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  TK_RETURN_IF_ERROR(requireFloat(im, 1));
  const Shape& xs = im.in(0).shape;
  const Shape& ws = im.in(1).shape;  // O KH KW I
  if (xs.size() != 4 || ws.size() != 4) return Status::invalid("CONV_2D needs rank-4 input and filter");
  if (ws[3] != xs[3])
    return Status::unsupported("grouped CONV_2D (filter depth " + std::to_string(ws[3]) + ", input " +
                               std::to_string(xs[3]) + ")");
  Axis h{xs[1], ws[1], o->stride_h(), o->dilation_h_factor()}, w{xs[2], ws[2], o->stride_w(), o->dilation_w_factor()};
  TK_RETURN_IF_ERROR(planAxis(h, o->padding(), "CONV_2D"));
  TK_RETURN_IF_ERROR(planAxis(w, o->padding(), "CONV_2D"));
  auto x = im.get(0);
  if (!x) return x.status();
  auto wv = im.get(1);
  if (!wv) return wv.status();
  auto bias = biasInput(im, ws[0]);
  if (!bias) return bias.status();
  ir::Conv2dAttrs ca;
  ca.pad = {h.p0, h.p1, w.p0, w.p1};
  ca.stride = {h.stride, w.stride};
  ca.dilation = {h.dil, w.dil};
  ca.accType = DType::FP32;
  Value* y = im.b.conv2d(cutInput(im, *x, h, w), *wv, *bias, ca, im.loc);
  auto act = im.activation(y, o->fused_activation_function());
  if (!act) return act.status();
  return im.setOut(0, *act);
}

Status opDepthwiseConv2d(Importer& im) {
  const auto* o = im.options<fb::DepthwiseConv2DOptions>();
  if (!o) return Status::invalid("DEPTHWISE_CONV_2D without DepthwiseConv2DOptions");
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  TK_RETURN_IF_ERROR(requireFloat(im, 1));
  const Shape& xs = im.in(0).shape;
  const Shape& ws = im.in(1).shape;  // 1 KH KW C*M
  if (xs.size() != 4 || ws.size() != 4 || ws[0] != 1)
    return Status::invalid("DEPTHWISE_CONV_2D needs rank-4 input and a [1,KH,KW,C*M] filter");
  const int64_t C = xs[3];
  if (C <= 0 || ws[3] % C != 0)
    return Status::invalid("DEPTHWISE_CONV_2D filter depth is not a multiple of the input depth");
  const int64_t M = ws[3] / C;
  Axis h{xs[1], ws[1], o->stride_h(), o->dilation_h_factor()}, w{xs[2], ws[2], o->stride_w(), o->dilation_w_factor()};
  TK_RETURN_IF_ERROR(planAxis(h, o->padding(), "DEPTHWISE_CONV_2D"));
  TK_RETURN_IF_ERROR(planAxis(w, o->padding(), "DEPTHWISE_CONV_2D"));
  auto x = im.get(0);
  if (!x) return x.status();
  // Output channel c*M + m reads input channel c: TOSA's [KH, KW, C, M] is the same bytes.
  auto wv = reshapedInput(im, 1, {ws[1], ws[2], C, M}, "weight_hwcm");
  if (!wv) return wv.status();
  auto bias = biasInput(im, C * M);
  if (!bias) return bias.status();
  Value* xin = cutInput(im, *x, h, w);
  Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
  Value* wzp = im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"));
  Value* y = im.b.op1("tosa.depthwise_conv2d", {xin, *wv, *bias, izp, wzp},
                      ValueType::tensor(DType::FP32, {xs[0], h.out, w.out, C * M}),
                      {{"pad", ir::Attribute::intArray({h.p0, h.p1, w.p0, w.p1})},
                       {"stride", ir::Attribute::intArray({h.stride, w.stride})},
                       {"dilation", ir::Attribute::intArray({h.dil, w.dil})},
                       {"acc_type", ir::Attribute::type(DType::FP32)}},
                      im.loc);
  auto act = im.activation(y, o->fused_activation_function());
  if (!act) return act.status();
  return im.setOut(0, *act);
}

// FULLY_CONNECTED: y = x W^T + b over the last axis of x, as a rank-3 tosa.matmul [1, rows, K] x [1, K, N].
Status opFullyConnected(Importer& im) {
  const auto* o = im.options<fb::FullyConnectedOptions>();
  if (o && o->weights_format() != 0) return Status::unsupported("FULLY_CONNECTED with shuffled weights");
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  TK_RETURN_IF_ERROR(requireFloat(im, 1));
  const Shape& xs = im.in(0).shape;
  const Shape& ws = im.in(1).shape;  // N K
  if (ws.size() != 2 || xs.empty()) return Status::invalid("FULLY_CONNECTED needs a [N, K] weight");
  const int64_t N = ws[0], K = ws[1];
  const int64_t total = numElements(xs);
  if (K <= 0 || total % K != 0) return Status::invalid("FULLY_CONNECTED input size is not a multiple of K");
  const int64_t rows = total / K;
  auto x = im.get(0);
  if (!x) return x.status();
  Value* a = im.b.reshape(*x, {1, rows, K}, im.aux("rows"));
  Value* wt = nullptr;
  if (const TVal& wv = im.in(1); wv.isConst()) {
    Tensor t(DType::FP32, {1, K, N});  // W^T, transposed at import
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) t.setFloat(k * N + n, wv.c->getFloat(n * K + k));
    wt = im.constant(std::move(t), "weight_t");
  } else {
    auto w = im.get(1);
    if (!w) return w.status();
    wt = im.b.reshape(im.b.transpose(*w, {1, 0}, im.aux("weight_t")), {1, K, N}, im.aux("weight_t3"));
  }
  Value* zp = im.b.scalar1(DType::FP32, 0, im.aux("zp"));
  Value* y =
      im.b.op1("tosa.matmul", {a, wt, zp, zp}, ValueType::tensor(DType::FP32, {1, rows, N}), {}, im.aux("matmul"));
  if (im.hasInput(2)) {
    auto bias = biasInput(im, N);
    if (!bias) return bias.status();
    y = im.b.add(y, im.b.reshape(*bias, {1, 1, N}, im.aux("bias3")), im.aux("bias_add"));
  }
  auto act = im.activation(y, o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE);
  if (!act) return act.status();
  return im.setOut(0, im.b.reshape(*act, im.out(0).shape, im.loc));
}

// Broadcasting binary arithmetic with a fused activation.
Status binaryOp(Importer& im, const std::string& tosaOp, fb::ActivationFunctionType act) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  TK_RETURN_IF_ERROR(requireFloat(im, 1));
  auto shape = broadcastShapes(im.in(0).shape, im.in(1).shape);
  if (!shape)
    return Status::invalid("operands " + shapeToString(im.in(0).shape) + " and " + shapeToString(im.in(1).shape) +
                           " do not broadcast");
  auto a = im.get(0);
  if (!a) return a.status();
  auto c = im.get(1);
  if (!c) return c.status();
  Value* x = im.toRank(*a, shape->size());
  Value* y = im.toRank(*c, shape->size());
  Value* r = tosaOp == "tosa.mul" ? im.b.mul(x, y, 0, im.loc)
                                  : im.b.op1(tosaOp, {x, y}, ValueType::tensor(DType::FP32, *shape), {}, im.loc);
  auto out = im.activation(r, act);
  if (!out) return out.status();
  return im.setOut(0, *out);
}

template <typename Options>
fb::ActivationFunctionType fusedOf(Importer& im) {
  const auto* o = im.options<Options>();
  return o ? o->fused_activation_function() : fb::ActivationFunctionType::NONE;
}

Status opPool(Importer& im, bool isMax) {
  const auto* o = im.options<fb::Pool2DOptions>();
  if (!o) return Status::invalid("pool without Pool2DOptions");
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  const Shape& xs = im.in(0).shape;
  if (xs.size() != 4) return Status::invalid("pool needs a rank-4 input");
  Axis h{xs[1], o->filter_height(), o->stride_h(), 1}, w{xs[2], o->filter_width(), o->stride_w(), 1};
  TK_RETURN_IF_ERROR(planAxis(h, o->padding(), "pool"));
  TK_RETURN_IF_ERROR(planAxis(w, o->padding(), "pool"));
  if (h.p0 >= h.k || h.p1 >= h.k || w.p0 >= w.k || w.p1 >= w.k)
    return Status::unsupported("pool padding not smaller than the kernel (TOSA requires it)");
  auto x = im.get(0);
  if (!x) return x.status();
  std::map<std::string, ir::Attribute> attrs = {{"kernel", ir::Attribute::intArray({h.k, w.k})},
                                                {"stride", ir::Attribute::intArray({h.stride, w.stride})},
                                                {"pad", ir::Attribute::intArray({h.p0, h.p1, w.p0, w.p1})}};
  const ValueType rt = ValueType::tensor(DType::FP32, {xs[0], h.out, w.out, xs[3]});
  Value* xin = cutInput(im, *x, h, w);
  Value* y = nullptr;
  if (isMax) {
    y = im.b.op1("tosa.max_pool2d", {xin}, rt, attrs, im.loc);
  } else {
    // TOSA's average, like TFLite's, divides by the number of input elements the window covers (not padding).
    attrs["acc_type"] = ir::Attribute::type(DType::FP32);
    Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
    Value* ozp = im.b.scalar1(DType::FP32, 0, im.aux("output_zp"));
    y = im.b.op1("tosa.avg_pool2d", {xin, izp, ozp}, rt, attrs, im.loc);
  }
  auto act = im.activation(y, o->fused_activation_function());
  if (!act) return act.status();
  return im.setOut(0, *act);
}

Status opPad(Importer& im, bool v2) {
  const TVal& x = im.in(0);
  auto pads = im.constIn(1, "paddings");
  if (!pads) return pads.status();
  const size_t rank = x.shape.size();
  if ((*pads)->shape() != Shape{int64_t(rank), 2}) return Status::invalid("paddings must be [rank, 2]");
  std::vector<int64_t> padding;
  Shape out = x.shape;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t before = (*pads)->getInt(int64_t(2 * d)), after = (*pads)->getInt(int64_t(2 * d + 1));
    if (before < 0 || after < 0) return Status::invalid("negative padding");
    padding.push_back(before);
    padding.push_back(after);
    out[d] += before + after;
  }
  // Quantized tensors pad with the output's zero point (TFLite), or PADV2's raw constant.
  const QuantParams& q = im.out(0).quant;
  double value = isFloat(x.dtype) || q.zeroPoint.empty() ? 0 : double(q.zeroPoint[0]);
  if (v2 && im.hasInput(2)) {
    auto c = im.constIn(2, "constant_values");
    if (!c) return c.status();
    if ((*c)->size() != 1) return Status::invalid("PADV2 constant_values must hold one value");
    if ((*c)->dtype() != x.dtype) return Status::invalid("PADV2 constant_values of another type than the input");
    value = (*c)->getFloat(0);
  }
  if (x.dtype != DType::FP32 && x.dtype != DType::I8 && x.dtype != DType::I16 && x.dtype != DType::I32)
    return Status::unsupported("PAD of " + std::string(dtypeName(x.dtype)));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* y = im.b.op1(
      "tosa.pad", {*xv, im.b.constShape(padding, im.aux("padding")), im.b.scalar1(x.dtype, value, im.aux("pad_const"))},
      ValueType::tensor(x.dtype, out), {}, im.loc);
  return im.setOut(0, y);
}

Status opReshape(Importer& im) {
  const TVal& x = im.in(0);
  const Shape& out = im.out(0).shape;
  if (numElements(out) != numElements(x.shape))
    return Status::invalid("RESHAPE from " + shapeToString(x.shape) + " to " + shapeToString(out) +
                           " changes the element count");
  if (x.isConst()) {
    Tensor t = *x.c;
    t.reshape(out);
    return im.setConstOut(0, std::move(t));
  }
  auto xv = im.get(0);
  if (!xv) return xv.status();
  return im.setOut(0, im.b.reshape(*xv, out, im.loc));
}

Status opConcatenation(Importer& im) {
  const auto* o = im.options<fb::ConcatenationOptions>();
  if (!o) return Status::invalid("CONCATENATION without options");
  std::vector<Value*> parts;
  const size_t rank = im.in(0).shape.size();
  int64_t axis = o->axis() < 0 ? o->axis() + int64_t(rank) : o->axis();
  if (axis < 0 || axis >= int64_t(rank)) return Status::invalid("CONCATENATION axis out of range");
  Shape out = im.in(0).shape;
  out[size_t(axis)] = 0;
  for (int i = 0; i < im.numInputs(); ++i) {
    TK_RETURN_IF_ERROR(requireFloat(im, i));
    const Shape& s = im.in(i).shape;
    if (s.size() != rank) return Status::invalid("CONCATENATION inputs of different ranks");
    out[size_t(axis)] += s[size_t(axis)];
    auto v = im.get(i);
    if (!v) return v.status();
    parts.push_back(*v);
  }
  Value* y = im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, out),
                      {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.loc);
  auto act = im.activation(y, o->fused_activation_function());
  if (!act) return act.status();
  return im.setOut(0, *act);
}

}  // namespace

Result<std::vector<int64_t>> reductionAxes(Importer& im, size_t rank) {
  auto axes = im.constIn(1, "axes");
  if (!axes) return axes.status();
  std::vector<int64_t> out;
  for (int64_t i = 0; i < (*axes)->size(); ++i) {
    int64_t a = (*axes)->getInt(i);
    if (a < 0) a += int64_t(rank);
    if (a < 0 || a >= int64_t(rank)) return Status::invalid("reduction axis out of range");
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

Status opMean(Importer& im) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  const Shape& xs = im.in(0).shape;
  auto axes = reductionAxes(im, xs.size());
  if (!axes) return axes.status();
  auto x = im.get(0);
  if (!x) return x.status();
  Value* v = *x;
  int64_t count = 1;
  for (int64_t a : *axes) {
    Shape s = v->type.dims;
    count *= s[size_t(a)];
    s[size_t(a)] = 1;
    v = im.b.op1("tosa.reduce_sum", {v}, ValueType::tensor(DType::FP32, s),
                 {{"axis", ir::Attribute::integer(a, DType::I32)}}, im.aux("reduce_sum"));
  }
  v = im.b.mul(v, im.scalarOf(DType::FP32, 1.0 / double(count), v->type.dims.size()), 0, im.aux("mean"));
  return im.setOut(0, im.b.reshape(v, im.out(0).shape, im.loc));
}

Status unaryOp(Importer& im, const std::string& tosaOp) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0, im.b.op1(tosaOp, {*x}, (*x)->type, {}, im.loc));
}

Status clampOp(Importer& im, double lo, double hi) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0, im.clampF(*x, lo, hi));
}

// x * relu6(x + 3) / 6.
Status opHardSwish(Importer& im) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  auto x = im.get(0);
  if (!x) return x.status();
  const size_t rank = (*x)->type.dims.size();
  Value* r = im.clampF(im.b.add(*x, im.scalarOf(DType::FP32, 3, rank), im.aux("plus3")), 0, 6, "relu6");
  Value* y = im.b.mul(im.b.mul(*x, r, 0, im.aux("times")), im.scalarOf(DType::FP32, 1.0 / 6.0, rank), 0, im.loc);
  return im.setOut(0, y);
}

// SOFTMAX over the last axis: exp(beta * (x - max)) / sum.
Status opSoftmax(Importer& im) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  const auto* o = im.options<fb::SoftmaxOptions>();
  const double beta = o ? o->beta() : 1.0;
  auto x = im.get(0);
  if (!x) return x.status();
  const Shape& s = (*x)->type.dims;
  if (s.empty()) return Status::invalid("SOFTMAX of a scalar");
  const int64_t axis = int64_t(s.size()) - 1;
  Shape rs = s;
  rs.back() = 1;
  const ir::Attribute ax = ir::Attribute::integer(axis, DType::I32);
  Value* mx = im.b.op1("tosa.reduce_max", {*x}, ValueType::tensor(DType::FP32, rs), {{"axis", ax}}, im.aux("max"));
  Value* d = im.b.sub(*x, mx, im.aux("shift"));
  if (beta != 1.0) d = im.b.mul(d, im.scalarOf(DType::FP32, beta, s.size()), 0, im.aux("beta"));
  Value* e = im.b.op1("tosa.exp", {d}, d->type, {}, im.aux("exp"));
  Value* sum = im.b.op1("tosa.reduce_sum", {e}, ValueType::tensor(DType::FP32, rs), {{"axis", ax}}, im.aux("sum"));
  Value* inv = im.b.op1("tosa.reciprocal", {sum}, sum->type, {}, im.aux("reciprocal"));
  return im.setOut(0, im.b.mul(e, inv, 0, im.loc));
}

int64_t gcd3(int64_t a, int64_t b, int64_t c) { return std::gcd(std::gcd(a, b), c); }

// RESIZE_BILINEAR / RESIZE_NEAREST_NEIGHBOR -> tosa.resize, which samples input row (oy * d + offset) / n:
// align_corners n = out-1, d = in-1; half_pixel_centers n = 2 out, d = 2 in, offset = in - out (the sample at
// (oy + 1/2) in/out - 1/2); otherwise n = out, d = in. Both clamp the sample to the edge rows alike. TFLite's
// nearest rounds half away from zero with align_corners and floors otherwise; TOSA rounds half up.
Status opResize(Importer& im, bool bilinear) {
  // Nearest neighbour moves raw values: int8/int16 as float (TFLite's output is quantized like its input).
  const DType dtype = im.in(0).dtype;
  if (bilinear || (dtype != DType::I8 && dtype != DType::I16)) TK_RETURN_IF_ERROR(requireFloat(im, 0));
  const Shape& xs = im.in(0).shape;
  if (xs.size() != 4) return Status::invalid("resize needs a rank-4 input");
  const Shape& os = im.out(0).shape;
  if (os.size() != 4) return Status::invalid("resize output must be rank 4");
  bool align = false, half = false;
  if (const auto* o = im.options<fb::ResizeBilinearOptions>(); bilinear && o)
    align = o->align_corners(), half = o->half_pixel_centers();
  if (const auto* o = im.options<fb::ResizeNearestNeighborOptions>(); !bilinear && o)
    align = o->align_corners(), half = o->half_pixel_centers();
  std::vector<int64_t> scale, offset, border;
  for (int a = 1; a <= 2; ++a) {
    const int64_t in = xs[size_t(a)], out = os[size_t(a)];
    if (in <= 0 || out <= 0) return Status::invalid("resize of an empty tensor");
    int64_t n = out, d = in, off = 0;
    if (in == 1) {
      d = 1;  // every sample reads row 0
    } else if (align && out > 1) {
      n = out - 1;
      d = in - 1;
    } else if (half) {
      // Bilinear samples (oy + 1/2) in/out - 1/2; nearest floors (oy + 1/2) in/out, which is TOSA's round-half-up
      // of the same position.
      n = 2 * out;
      d = 2 * in;
      off = in - out;
    } else if (!bilinear) {
      n = 2 * out;  // floor(oy in/out) = round-half-up(oy in/out - 1/2)
      d = 2 * in;
      off = -out;
    }
    int64_t bord = (out - 1) * d - (in - 1) * n + off;
    const int64_t g = std::gcd(gcd3(n, d, off), bord);
    if (g > 1) n /= g, d /= g, off /= g, bord /= g;
    scale.push_back(n);
    scale.push_back(d);
    offset.push_back(off);
    border.push_back(bord);
  }
  auto x = im.get(0);
  if (!x) return x.status();
  Value* y = im.b.op1("tosa.resize",
                      {*x, im.b.constShape(scale, im.aux("scale")), im.b.constShape(offset, im.aux("offset")),
                       im.b.constShape(border, im.aux("border"))},
                      ValueType::tensor(dtype, {xs[0], os[1], os[2], xs[3]}),
                      {{"mode", ir::Attribute::enumCase(bilinear ? "BILINEAR" : "NEAREST_NEIGHBOR")}}, im.loc);
  return im.setOut(0, y);
}

// DEPTH_TO_SPACE: [N,H,W,b*b*C] -> [N,H,W,b,b,C] -> [N,H,b,W,b,C] -> [N,H*b,W*b,C].
Status opDepthToSpace(Importer& im) {
  const auto* o = im.options<fb::DepthToSpaceOptions>();
  const Shape& xs = im.in(0).shape;
  if (!o || o->block_size() <= 0 || xs.size() != 4)
    return Status::invalid("DEPTH_TO_SPACE needs a positive block size and a rank-4 input");
  const int64_t bs = o->block_size();
  if (xs[3] % (bs * bs) != 0) return Status::invalid("DEPTH_TO_SPACE depth is not a multiple of block_size^2");
  const int64_t C = xs[3] / (bs * bs);
  auto x = im.get(0);
  if (!x) return x.status();
  Value* r = im.b.reshape(*x, {xs[0], xs[1], xs[2], bs, bs, C}, im.aux("split"));
  Value* t = im.b.transpose(r, {0, 1, 3, 2, 4, 5}, im.aux("interleave"));
  return im.setOut(0, im.b.reshape(t, {xs[0], xs[1] * bs, xs[2] * bs, C}, im.loc));
}

// out[iy * stride + ky - pad] += in[iy] * w[ky], with TFLite's conv padding of the output size (SAME: half the
// total, VALID: none) -> tosa.transpose_conv2d with out_pad_top = -pad (TOSA writes row iy * stride + out_pad_top
// + ky) and out_pad_bottom whatever makes the declared output height. Weights are OHWI in both.
Status transposeConv(Importer& im, int inputIdx, int weightIdx, int biasIdx, fb::Padding padding, int64_t strideH,
                     int64_t strideW, fb::ActivationFunctionType act) {
  if (im.in(inputIdx).dtype == DType::I8 && inputIdx == 2)
    return quantizedTransposeConv(im, padding, strideH, strideW, act);
  TK_RETURN_IF_ERROR(requireFloat(im, inputIdx));
  TK_RETURN_IF_ERROR(requireFloat(im, weightIdx));
  const Shape& xs = im.in(inputIdx).shape;
  const Shape& ws = im.in(weightIdx).shape;  // O KH KW I
  const Shape& os = im.out(0).shape;
  if (xs.size() != 4 || ws.size() != 4 || os.size() != 4 || ws[3] != xs[3] || os[3] != ws[0])
    return Status::invalid("transpose conv shapes: input " + shapeToString(xs) + ", filter " + shapeToString(ws) +
                           ", output " + shapeToString(os));
  if (strideH <= 0 || strideW <= 0) return Status::invalid("transpose conv strides must be positive");
  int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  if (!transposeConvPads(xs[1], os[1], ws[1], strideH, padding, pt, pb) ||
      !transposeConvPads(xs[2], os[2], ws[2], strideW, padding, pl, pr))
    return Status::unsupported("transpose conv output size needs more cropping than tosa.transpose_conv2d expresses");
  auto x = im.get(inputIdx);
  if (!x) return x.status();
  auto w = im.get(weightIdx);
  if (!w) return w.status();
  Value* bias = nullptr;
  if (im.hasInput(biasIdx)) {
    TK_RETURN_IF_ERROR(requireFloat(im, biasIdx));
    if (numElements(im.in(biasIdx).shape) != ws[0] && numElements(im.in(biasIdx).shape) != 1)
      return Status::invalid("transpose conv bias has " + std::to_string(numElements(im.in(biasIdx).shape)) +
                             " values");
    auto bv = reshapedInput(im, biasIdx, {numElements(im.in(biasIdx).shape)}, "bias");
    if (!bv) return bv.status();
    bias = *bv;
  } else {
    bias = im.constant(Tensor(DType::FP32, {ws[0]}), "bias");
  }
  Value* y = im.b.op1("tosa.transpose_conv2d",
                      {*x, *w, bias, im.b.scalar1(DType::FP32, 0, im.aux("input_zp")),
                       im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"))},
                      ValueType::tensor(DType::FP32, os),
                      {{"out_pad", ir::Attribute::intArray({pt, pb, pl, pr})},
                       {"stride", ir::Attribute::intArray({strideH, strideW})},
                       {"acc_type", ir::Attribute::type(DType::FP32)}},
                      im.loc);
  auto out = im.activation(y, act);
  if (!out) return out.status();
  return im.setOut(0, *out);
}

// TRANSPOSE_CONV: inputs output_shape (constant; the declared output shape must match), weights, input, bias.
Status opTransposeConv(Importer& im) {
  const auto* o = im.options<fb::TransposeConvOptions>();
  if (!o) return Status::invalid("TRANSPOSE_CONV without options");
  auto shape = im.constIn(0, "output_shape");
  if (!shape) return shape.status();
  Shape declared;
  for (int64_t i = 0; i < (*shape)->size(); ++i) declared.push_back((*shape)->getInt(i));
  if (declared != im.out(0).shape)
    return Status::invalid("output_shape " + shapeToString(declared) + " differs from the output tensor's " +
                           shapeToString(im.out(0).shape));
  return transposeConv(im, 2, 1, 3, o->padding(), o->stride_h(), o->stride_w(), o->fused_activation_function());
}

// MediaPipe's Convolution2DTransposeBias: inputs input, weights, bias; custom options are the raw C struct
// TfLiteTransposeConvParams {padding (1 SAME, 2 VALID), stride_width, stride_height} (three int32).
Status opConvolution2DTransposeBias(Importer& im) {
  const auto* opts = im.op->custom_options();
  if (!opts || opts->size() < 12) return Status::invalid("Convolution2DTransposeBias needs 12 bytes of options");
  int32_t params[3];
  std::memcpy(params, opts->data(), sizeof params);
  if (params[0] != 1 && params[0] != 2)
    return Status::invalid("Convolution2DTransposeBias padding " + std::to_string(params[0]));
  return transposeConv(im, 0, 1, 2, params[0] == 1 ? fb::Padding::SAME : fb::Padding::VALID, params[2], params[1],
                       fb::ActivationFunctionType::NONE);
}

// Two broadcast float operands at the output's rank (for the elementwise lowerings below).
Result<std::pair<Value*, Value*>> binaryOperands(Importer& im, DType type = DType::FP32) {
  for (int i = 0; i < 2; ++i)
    if (im.in(i).dtype != type)
      return Status::unsupported("input " + std::to_string(i) + " is " + std::string(dtypeName(im.in(i).dtype)));
  auto shape = broadcastShapes(im.in(0).shape, im.in(1).shape);
  if (!shape) return Status::invalid("operands do not broadcast");
  auto a = im.get(0);
  if (!a) return a.status();
  auto c = im.get(1);
  if (!c) return c.status();
  return std::make_pair(im.toRank(*a, shape->size()), im.toRank(*c, shape->size()));
}

// DIV: the correctly rounded quotient (TFLite divides in float), then the fused activation.
Status opDiv(Importer& im) {
  auto ops = binaryOperands(im);
  if (!ops) return ops.status();
  Value* q = frontends::divideF32(im.b, ops->first, ops->second, im.aux("div"));
  auto act = im.activation(q, fusedOf<fb::DivOptions>(im));
  if (!act) return act.status();
  return im.setOut(0, *act);
}

Status opSquaredDifference(Importer& im) {
  auto ops = binaryOperands(im);
  if (!ops) return ops.status();
  Value* d = im.b.sub(ops->first, ops->second, im.aux("difference"));
  return im.setOut(0, im.b.mul(d, d, 0, im.loc));
}

Status opPow(Importer& im) {
  auto ops = binaryOperands(im);
  if (!ops) return ops.status();
  auto s = broadcastShapes(im.in(0).shape, im.in(1).shape);
  return im.setOut(0, im.b.op1("tosa.pow", {ops->first, ops->second}, ValueType::tensor(DType::FP32, *s), {}, im.loc));
}

// Comparisons: TOSA has greater, greater_equal and equal; LESS and LESS_EQUAL swap the operands, NOT_EQUAL
// negates EQUAL. Float or int32 operands, bool result.
Status opCompare(Importer& im, const std::string& tosaOp, bool swap, bool negate) {
  const DType t = im.in(0).dtype;
  auto ops = binaryOperands(im, t == DType::I32 ? DType::I32 : DType::FP32);
  if (!ops) return ops.status();
  Value* a = swap ? ops->second : ops->first;
  Value* c = swap ? ops->first : ops->second;
  auto s = broadcastShapes(im.in(0).shape, im.in(1).shape);
  const ValueType bt = ValueType::tensor(DType::Bool, *s);
  Value* r = im.b.op1(tosaOp, {a, c}, bt, {}, negate ? im.aux("equal") : im.loc);
  if (negate) r = im.b.op1("tosa.logical_not", {r}, bt, {}, im.loc);
  return im.setOut(0, r);
}

Status opLogical(Importer& im, const std::string& tosaOp) {
  if (tosaOp == "tosa.logical_not") {
    if (im.in(0).dtype != DType::Bool) return Status::invalid("LOGICAL_NOT of a non-bool tensor");
    auto x = im.get(0);
    if (!x) return x.status();
    return im.setOut(0, im.b.op1(tosaOp, {*x}, (*x)->type, {}, im.loc));
  }
  auto ops = binaryOperands(im, DType::Bool);
  if (!ops) return ops.status();
  auto s = broadcastShapes(im.in(0).shape, im.in(1).shape);
  return im.setOut(0, im.b.op1(tosaOp, {ops->first, ops->second}, ValueType::tensor(DType::Bool, *s), {}, im.loc));
}

// SELECT / SELECT_V2: condition, then-values, else-values, broadcast to the output.
Status opSelect(Importer& im) {
  if (im.in(0).dtype != DType::Bool) return Status::invalid("SELECT condition is not bool");
  const Shape& out = im.out(0).shape;
  std::vector<Value*> v;
  for (int i = 0; i < 3; ++i) {
    auto x = im.get(i);
    if (!x) return x.status();
    v.push_back(im.toRank(*x, out.size()));
  }
  if (v[1]->type.dtype != v[2]->type.dtype) return Status::invalid("SELECT values of different types");
  return im.setOut(0, im.b.op1("tosa.select", v, ValueType::tensor(v[1]->type.dtype, out), {}, im.loc));
}

Status unaryFloat(Importer& im, const std::function<Value*(Value*)>& f) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0, f(*x));
}

Status opLeakyRelu(Importer& im) {
  const auto* o = im.options<fb::LeakyReluOptions>();
  const double alpha = o ? o->alpha() : 0.2;
  return unaryFloat(im, [&](Value* x) {
    const size_t rank = x->type.dims.size();
    Value* scaled = im.b.mul(x, im.scalarOf(DType::FP32, alpha, rank), 0, im.aux("scaled"));
    Value* neg = im.b.op1("tosa.greater", {im.scalarOf(DType::FP32, 0, rank), x},
                          ValueType::tensor(DType::Bool, x->type.dims), {}, im.aux("negative"));
    return im.b.op1("tosa.select", {neg, scaled, x}, x->type, {}, im.loc);
  });
}

// PRELU: x < 0 ? alpha * x : x, alpha broadcast (a constant or run-time tensor).
Status opPrelu(Importer& im) {
  auto ops = binaryOperands(im);
  if (!ops) return ops.status();
  auto s = broadcastShapes(im.in(0).shape, im.in(1).shape);
  if (!s || *s != im.in(0).shape) return Status::invalid("PRELU alpha broadcasts beyond the input");
  Value* x = ops->first;
  Value* scaled = im.b.mul(x, ops->second, 0, im.aux("scaled"));
  Value* neg = im.b.op1("tosa.greater", {im.scalarOf(DType::FP32, 0, s->size()), x}, ValueType::tensor(DType::Bool, *s),
                        {}, im.aux("negative"));
  return im.setOut(0, im.b.op1("tosa.select", {neg, scaled, x}, x->type, {}, im.loc));
}

Status opElu(Importer& im) {
  return unaryFloat(im, [&](Value* x) {
    const size_t rank = x->type.dims.size();
    Value* e = im.b.sub(im.b.op1("tosa.exp", {x}, x->type, {}, im.aux("exp")), im.scalarOf(DType::FP32, 1, rank),
                        im.aux("expm1"));
    Value* neg = im.b.op1("tosa.greater", {im.scalarOf(DType::FP32, 0, rank), x},
                          ValueType::tensor(DType::Bool, x->type.dims), {}, im.aux("negative"));
    return im.b.op1("tosa.select", {neg, e, x}, x->type, {}, im.loc);
  });
}

// GELU: 0.5 x (1 + erf(x / sqrt 2)), or with approximate the tanh form 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
Status opGelu(Importer& im) {
  const auto* o = im.options<fb::GeluOptions>();
  const bool approximate = o && o->approximate();
  return unaryFloat(im, [&](Value* x) {
    const size_t rank = x->type.dims.size();
    auto c = [&](double v) { return im.scalarOf(DType::FP32, v, rank); };
    Value* inner = nullptr;
    if (approximate) {
      Value* x3 = im.b.mul(im.b.mul(x, x, 0, im.aux("x2")), x, 0, im.aux("x3"));
      Value* arg = im.b.mul(im.b.add(x, im.b.mul(x3, c(0.044715), 0, im.aux("cubic")), im.aux("sum")),
                            c(0.7978845608028654), 0, im.aux("arg"));
      inner = im.b.op1("tosa.tanh", {arg}, x->type, {}, im.aux("tanh"));
    } else {
      inner =
          im.b.op1("tosa.erf", {im.b.mul(x, c(0.7071067811865476), 0, im.aux("scaled"))}, x->type, {}, im.aux("erf"));
    }
    Value* h = im.b.mul(im.b.mul(x, c(0.5), 0, im.aux("half")), im.b.add(inner, c(1), im.aux("one_plus")), 0, im.loc);
    return h;
  });
}

// LOG_SOFTMAX over the last axis: (x - max) - log(sum(exp(x - max))).
Status opLogSoftmax(Importer& im) {
  return unaryFloat(im, [&](Value* x) {
    const Shape& s = x->type.dims;
    Shape rs = s;
    rs.back() = 1;
    const ir::Attribute ax = ir::Attribute::integer(int64_t(s.size()) - 1, DType::I32);
    Value* mx = im.b.op1("tosa.reduce_max", {x}, ValueType::tensor(DType::FP32, rs), {{"axis", ax}}, im.aux("max"));
    Value* d = im.b.sub(x, mx, im.aux("shift"));
    Value* sum = im.b.op1("tosa.reduce_sum", {im.b.op1("tosa.exp", {d}, d->type, {}, im.aux("exp"))},
                          ValueType::tensor(DType::FP32, rs), {{"axis", ax}}, im.aux("sum"));
    return im.b.sub(d, im.b.op1("tosa.log", {sum}, sum->type, {}, im.aux("log")), im.loc);
  });
}

}  // namespace

Result<BatchMatmulOperands> batchMatmulOperands(Importer& im) {
  const auto* o = im.options<fb::BatchMatMulOptions>();
  const Shape& as = im.in(0).shape;
  const Shape& bs = im.in(1).shape;
  if (as.size() < 2 || as.size() != bs.size()) return Status::unsupported("BATCH_MATMUL operands of different ranks");
  const size_t r = as.size();
  for (size_t d = 0; d + 2 < r; ++d)
    if (as[d] != bs[d]) return Status::unsupported("BATCH_MATMUL with broadcast batch dimensions");
  auto a = im.get(0);
  if (!a) return a.status();
  auto b = im.get(1);
  if (!b) return b.status();
  auto swapLast = [&](Value* v, const std::string& what) {
    std::vector<int64_t> p(r);
    std::iota(p.begin(), p.end(), 0);
    std::swap(p[r - 1], p[r - 2]);
    return im.b.transpose(v, p, im.aux(what));
  };
  Value* va = o && o->adj_x() ? swapLast(*a, "adj_x") : *a;
  Value* vb = o && o->adj_y() ? swapLast(*b, "adj_y") : *b;
  const Shape& sa = va->type.dims;
  const Shape& sb = vb->type.dims;
  BatchMatmulOperands m;
  m.M = sa[r - 2], m.N = sb[r - 1];
  const int64_t K = sa[r - 1];
  if (sb[r - 2] != K) return Status::invalid("BATCH_MATMUL inner dimensions differ");
  m.batch = numElements(sa) / (m.M * K);
  m.a = im.b.reshape(va, {m.batch, m.M, K}, im.aux("a3"));
  m.b = im.b.reshape(vb, {m.batch, K, m.N}, im.aux("b3"));
  return m;
}

namespace {

// BATCH_MATMUL (float): one rank-3 tosa.matmul over the flattened batch.
Status opBatchMatmul(Importer& im) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  TK_RETURN_IF_ERROR(requireFloat(im, 1));
  auto m = batchMatmulOperands(im);
  if (!m) return m.status();
  Value* zp = im.b.scalar1(DType::FP32, 0, im.aux("zp"));
  Value* y = im.b.op1("tosa.matmul", {m->a, m->b, zp, zp}, ValueType::tensor(DType::FP32, Shape{m->batch, m->M, m->N}),
                      {}, im.aux("matmul"));
  return im.setOut(0, im.b.reshape(y, im.out(0).shape, im.loc));
}

// A constant [N, K] float weight as the [1, K, N] right operand of tosa.matmul (transposed at import).
Result<Value*> transposedWeight(Importer& im, int i, int64_t n, int64_t k, const std::string& what) {
  const TVal& w = im.in(i);
  if (!w.isConst() || w.dtype != DType::FP32) return Status::unsupported(what + " must be a constant float32 tensor");
  if (w.shape != Shape{n, k})
    return Status::invalid(what + " is " + shapeToString(w.shape) + ", expected " + shapeToString({n, k}));
  Tensor t(DType::FP32, {1, k, n});
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) t.setFloat(c * n + r, w.c->getFloat(r * k + c));
  return im.constant(std::move(t), what);
}

// Where one LSTM direction's tensors are among the operator's inputs (TFLite's input numbering).
struct LstmInputs {
  int weights = 1;      // 4 input-to-gate weights (input, forget, cell, output); recurrent weights follow at +4
  int peephole = 9;     // 3 peephole weights
  int bias = 12;        // 4 gate biases
  int projection = 16;  // projection weights and bias
  int hState = 18, cState = 19;  // variable tensors
};

// One float LSTM direction over x ([T, B, I] time-major or [B, T, I]), unrolled: per step the four gates
// x W^T + h R^T + b, i f o through sigmoid and the cell gate through the fused activation, c = f c + i g
// (clipped by cell_clip), h = o act(c); the states start at zero (TFLite's variable tensors). CIFG (no input
// gate) is handled; peepholes and projection are unsupported. `reverse` walks time backwards (the backward
// direction of BIDIRECTIONAL_SEQUENCE_LSTM). Returns h [1, B, N] per time index, in time order.
Result<std::vector<Value*>> lstmDirection(Importer& im, Value* x, bool timeMajor, const LstmInputs& in,
                                          fb::ActivationFunctionType act, float cellClip, bool reverse,
                                          const std::string& prefix) {
  for (int i : {in.peephole, in.peephole + 1, in.peephole + 2, in.projection, in.projection + 1})
    if (im.hasInput(i)) return Status::unsupported("LSTM with peepholes or projection");
  const Shape& xs = x->type.dims;
  const int64_t T = timeMajor ? xs[0] : xs[1], B = timeMajor ? xs[1] : xs[0], I = xs[2];
  if (!im.hasInput(in.weights + 1) || !im.hasInput(in.weights + 5))
    return Status::invalid("LSTM without forget weights");
  const int64_t N = im.in(in.weights + 1).shape.empty() ? 0 : im.in(in.weights + 1).shape[0];
  const bool cifg = !im.hasInput(in.weights);
  for (int i : {in.hState, in.cState}) {
    if (!im.hasInput(i)) return Status::invalid("LSTM without its state tensors");
    const TVal& state = im.in(i);
    if (state.isConst() || state.v || !im.g.tensors()->Get(uint32_t(im.inputTensor(i)))->is_variable())
      return Status::unsupported("LSTM state that is not a fresh variable tensor");
  }
  struct Gate {
    Value *w = nullptr, *r = nullptr, *bias = nullptr;
  };
  std::vector<Gate> gates(4);  // input, forget, cell, output
  for (int k = cifg ? 1 : 0; k < 4; ++k) {
    const std::string name = prefix + "gate" + std::to_string(k);
    auto w = transposedWeight(im, in.weights + k, N, I, name + "_input_weights");
    if (!w) return w.status();
    auto r = transposedWeight(im, in.weights + 4 + k, N, N, name + "_recurrent_weights");
    if (!r) return r.status();
    if (!im.hasInput(in.bias + k) || im.in(in.bias + k).shape != Shape{N})
      return Status::invalid("LSTM gate bias of size N needed");
    auto b = reshapedInput(im, in.bias + k, {1, 1, N}, name + "_bias");
    if (!b) return b.status();
    gates[size_t(k)] = {*w, *r, *b};
  }
  const ValueType state = ValueType::tensor(DType::FP32, {1, B, N});
  Value* h = im.constant(Tensor(DType::FP32, {1, B, N}), prefix + "h0");
  Value* c = im.constant(Tensor(DType::FP32, {1, B, N}), prefix + "c0");
  Value* zp = im.b.scalar1(DType::FP32, 0, im.aux(prefix + "zp"));
  std::vector<Value*> outputs(size_t(T), nullptr);
  for (int64_t n = 0; n < T; ++n) {
    const int64_t t = reverse ? T - 1 - n : n;
    const std::string step = prefix + "t" + std::to_string(t);
    Shape start = {0, 0, 0}, size = {B, B, I};
    start[timeMajor ? 0 : 1] = t;
    size[0] = timeMajor ? 1 : B;
    size[1] = timeMajor ? B : 1;
    Value* xt = im.b.reshape(
        im.b.op1("tosa.slice",
                 {x, im.b.constShape(start, im.aux(step + "_start")), im.b.constShape(size, im.aux(step + "_size"))},
                 ValueType::tensor(DType::FP32, size), {}, im.aux(step + "_x")),
        {1, B, I}, im.aux(step + "_x3"));
    auto gate = [&](int k) {
      const std::string g = step + "_gate" + std::to_string(k);
      Value* a = im.b.op1("tosa.matmul", {xt, gates[size_t(k)].w, zp, zp}, state, {}, im.aux(g + "_x"));
      Value* r = im.b.op1("tosa.matmul", {h, gates[size_t(k)].r, zp, zp}, state, {}, im.aux(g + "_h"));
      return im.b.add(im.b.add(gates[size_t(k)].bias, a, im.aux(g + "_bx")), r, im.aux(g));
    };
    auto sigmoid = [&](Value* v, const std::string& what) {
      return im.b.op1("tosa.sigmoid", {v}, state, {}, im.aux(step + what));
    };
    Value* f = sigmoid(gate(1), "_forget");
    auto g = im.activation(gate(2), act);
    if (!g) return g.status();
    Value* i = cifg ? im.b.sub(im.scalarOf(DType::FP32, 1, 3), f, im.aux(step + "_input")) : sigmoid(gate(0), "_input");
    Value* og = sigmoid(gate(3), "_output");
    c = im.b.add(im.b.mul(f, c, 0, im.aux(step + "_keep")), im.b.mul(i, *g, 0, im.aux(step + "_write")),
                 im.aux(step + "_c"));
    if (cellClip > 0) c = im.clampF(c, -cellClip, cellClip, step + "_cell_clip");
    auto ac = im.activation(c, act);
    if (!ac) return ac.status();
    h = im.b.mul(og, *ac, 0, im.aux(step + "_h"));
    outputs[size_t(t)] = h;
  }
  return outputs;
}

// The per-step h [1, B, N] (or [1, B, N + M] merged) concatenated along time as [T, B, *] or [B, T, *].
Value* sequenceOutput(Importer& im, const std::vector<Value*>& steps, bool timeMajor, const std::string& what) {
  std::vector<Value*> parts;
  const int64_t B = steps[0]->type.dims[1], W = steps[0]->type.dims[2], T = int64_t(steps.size());
  for (size_t t = 0; t < steps.size(); ++t)
    parts.push_back(
        im.b.reshape(steps[t], timeMajor ? Shape{1, B, W} : Shape{B, 1, W}, im.aux(what + "_t" + std::to_string(t))));
  if (parts.size() == 1) return parts[0];
  return im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, timeMajor ? Shape{T, B, W} : Shape{B, T, W}),
                  {{"axis", ir::Attribute::integer(timeMajor ? 0 : 1, DType::I32)}}, im.aux(what));
}

// UNIDIRECTIONAL_SEQUENCE_LSTM, float: one lstmDirection (layer normalization: unsupported).
Status opUnidirectionalLstm(Importer& im) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  const auto* o = im.options<fb::UnidirectionalSequenceLSTMOptions>();
  if (!o) return Status::invalid("UNIDIRECTIONAL_SEQUENCE_LSTM without options");
  for (int i : {20, 21, 22, 23})
    if (im.hasInput(i)) return Status::unsupported("LSTM with layer normalization");
  if (im.in(0).shape.size() != 3) return Status::invalid("LSTM input must be rank 3");
  auto xv = im.get(0);
  if (!xv) return xv.status();
  auto steps =
      lstmDirection(im, *xv, o->time_major(), LstmInputs{}, o->fused_activation_function(), o->cell_clip(), false, "");
  if (!steps) return steps.status();
  return im.setOut(0, sequenceOutput(im, *steps, o->time_major(), "sequence"));
}

// BIDIRECTIONAL_SEQUENCE_LSTM, float: a forward and a backward lstmDirection over the same input (the backward
// one walks time from the end; its h at time t is the output at t), either merged along the last axis into
// output 0 ([.., N_fw + N_bw]) or as outputs 0 and 1. Auxiliary inputs: unsupported.
Status opBidirectionalLstm(Importer& im) {
  TK_RETURN_IF_ERROR(requireFloat(im, 0));
  const auto* o = im.options<fb::BidirectionalSequenceLSTMOptions>();
  if (!o) return Status::invalid("BIDIRECTIONAL_SEQUENCE_LSTM without options");
  for (int i = 39; i < 48; ++i)
    if (im.hasInput(i)) return Status::unsupported("BIDIRECTIONAL_SEQUENCE_LSTM with auxiliary inputs");
  if (im.in(0).shape.size() != 3) return Status::invalid("LSTM input must be rank 3");
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const bool tm = o->time_major();
  const LstmInputs fw{1, 9, 12, 16, 35, 36}, bw{18, 26, 29, 33, 37, 38};
  auto f = lstmDirection(im, *xv, tm, fw, o->fused_activation_function(), o->cell_clip(), false, "fw_");
  if (!f) return f.status();
  auto b = lstmDirection(im, *xv, tm, bw, o->fused_activation_function(), o->cell_clip(), true, "bw_");
  if (!b) return b.status();
  if (!o->merge_outputs()) {
    TK_RETURN_IF_ERROR(im.setOut(0, sequenceOutput(im, *f, tm, "fw_sequence")));
    return im.setOut(1, sequenceOutput(im, *b, tm, "bw_sequence"));
  }
  std::vector<Value*> merged;
  for (size_t t = 0; t < f->size(); ++t) {
    const Shape& fs = (*f)[t]->type.dims;
    merged.push_back(im.b.op1(
        "tosa.concat", {(*f)[t], (*b)[t]}, ValueType::tensor(DType::FP32, {1, fs[1], fs[2] + (*b)[t]->type.dims[2]}),
        {{"axis", ir::Attribute::integer(2, DType::I32)}}, im.aux("merged_t" + std::to_string(t))));
  }
  return im.setOut(0, sequenceOutput(im, merged, tm, "sequence"));
}

}  // namespace

bool transposeConvPads(int64_t in, int64_t out, int64_t k, int64_t stride, fb::Padding padding, int64_t& top,
                       int64_t& bottom) {
  const int64_t total = padding == fb::Padding::SAME ? std::max<int64_t>((in - 1) * stride + k - out, 0) : 0;
  top = -(total / 2);
  bottom = out - (in - 1) * stride - k - top;
  return top > -k && bottom > -k;
}

void registerFloatOps(HandlerTable& t) {
  using Op = fb::BuiltinOperator;
  auto add = [&](Op op, OpHandler h) { t.builtin[int(op)] = std::move(h); };
  add(Op::CONV_2D, opConv2d);
  add(Op::DEPTHWISE_CONV_2D, opDepthwiseConv2d);
  add(Op::FULLY_CONNECTED, opFullyConnected);
  add(Op::ADD, [](Importer& im) { return binaryOp(im, "tosa.add", fusedOf<fb::AddOptions>(im)); });
  add(Op::SUB, [](Importer& im) { return binaryOp(im, "tosa.sub", fusedOf<fb::SubOptions>(im)); });
  add(Op::MUL, [](Importer& im) { return binaryOp(im, "tosa.mul", fusedOf<fb::MulOptions>(im)); });
  add(Op::MAXIMUM, [](Importer& im) { return binaryOp(im, "tosa.maximum", fb::ActivationFunctionType::NONE); });
  add(Op::MINIMUM, [](Importer& im) { return binaryOp(im, "tosa.minimum", fb::ActivationFunctionType::NONE); });
  add(Op::MAX_POOL_2D, [](Importer& im) { return opPool(im, true); });
  add(Op::AVERAGE_POOL_2D, [](Importer& im) { return opPool(im, false); });
  add(Op::PAD, [](Importer& im) { return opPad(im, false); });
  add(Op::PADV2, [](Importer& im) { return opPad(im, true); });
  add(Op::RESHAPE, opReshape);
  add(Op::CONCATENATION, opConcatenation);
  add(Op::MEAN, opMean);
  add(Op::LOGISTIC, [](Importer& im) { return unaryOp(im, "tosa.sigmoid"); });
  add(Op::TANH, [](Importer& im) { return unaryOp(im, "tosa.tanh"); });
  add(Op::EXP, [](Importer& im) { return unaryOp(im, "tosa.exp"); });
  add(Op::ABS, [](Importer& im) { return unaryOp(im, "tosa.abs"); });
  add(Op::FLOOR, [](Importer& im) { return unaryOp(im, "tosa.floor"); });
  add(Op::CEIL, [](Importer& im) { return unaryOp(im, "tosa.ceil"); });
  add(Op::RELU, [](Importer& im) { return clampOp(im, 0, kFltMax); });
  add(Op::RELU6, [](Importer& im) { return clampOp(im, 0, 6); });
  add(Op::RELU_N1_TO_1, [](Importer& im) { return clampOp(im, -1, 1); });
  add(Op::RELU_0_TO_1, [](Importer& im) { return clampOp(im, 0, 1); });
  add(Op::HARD_SWISH, opHardSwish);
  add(Op::SOFTMAX, opSoftmax);
  add(Op::RESIZE_BILINEAR, [](Importer& im) { return opResize(im, true); });
  add(Op::RESIZE_NEAREST_NEIGHBOR, [](Importer& im) { return opResize(im, false); });
  add(Op::DEPTH_TO_SPACE, opDepthToSpace);
  add(Op::TRANSPOSE_CONV, opTransposeConv);
  add(Op::DIV, opDiv);
  add(Op::SQUARED_DIFFERENCE, opSquaredDifference);
  add(Op::POW, opPow);
  add(Op::LESS, [](Importer& im) { return opCompare(im, "tosa.greater", true, false); });
  add(Op::LESS_EQUAL, [](Importer& im) { return opCompare(im, "tosa.greater_equal", true, false); });
  add(Op::GREATER, [](Importer& im) { return opCompare(im, "tosa.greater", false, false); });
  add(Op::GREATER_EQUAL, [](Importer& im) { return opCompare(im, "tosa.greater_equal", false, false); });
  add(Op::EQUAL, [](Importer& im) { return opCompare(im, "tosa.equal", false, false); });
  add(Op::NOT_EQUAL, [](Importer& im) { return opCompare(im, "tosa.equal", false, true); });
  add(Op::LOGICAL_AND, [](Importer& im) { return opLogical(im, "tosa.logical_and"); });
  add(Op::LOGICAL_OR, [](Importer& im) { return opLogical(im, "tosa.logical_or"); });
  add(Op::LOGICAL_NOT, [](Importer& im) { return opLogical(im, "tosa.logical_not"); });
  add(Op::SELECT, opSelect);
  add(Op::SELECT_V2, opSelect);
  add(Op::LOG, [](Importer& im) { return unaryOp(im, "tosa.log"); });
  add(Op::SIN, [](Importer& im) { return unaryOp(im, "tosa.sin"); });
  add(Op::COS, [](Importer& im) { return unaryOp(im, "tosa.cos"); });
  add(Op::RSQRT, [](Importer& im) { return unaryOp(im, "tosa.rsqrt"); });
  add(Op::SQRT, [](Importer& im) {
    return unaryFloat(im, [&](Value* x) {
      return im.b.op1("tosa.reciprocal", {im.b.op1("tosa.rsqrt", {x}, x->type, {}, im.aux("rsqrt"))}, x->type, {},
                      im.loc);
    });
  });
  add(Op::NEG, [](Importer& im) {
    return unaryFloat(im,
                      [&](Value* x) { return im.b.sub(im.scalarOf(DType::FP32, 0, x->type.dims.size()), x, im.loc); });
  });
  add(Op::LEAKY_RELU, opLeakyRelu);
  add(Op::PRELU, opPrelu);
  add(Op::ELU, opElu);
  add(Op::GELU, opGelu);
  add(Op::LOG_SOFTMAX, opLogSoftmax);
  add(Op::BATCH_MATMUL, opBatchMatmul);
  add(Op::UNIDIRECTIONAL_SEQUENCE_LSTM, opUnidirectionalLstm);
  add(Op::BIDIRECTIONAL_SEQUENCE_LSTM, opBidirectionalLstm);
  t.custom["Convolution2DTransposeBias"] = opConvolution2DTransposeBias;
}

}  // namespace tosakit::tflite
