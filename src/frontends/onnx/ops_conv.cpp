// Conv, ConvTranspose and BatchNormalization (folded into the producing conv when possible).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ---- Conv (1-D as 2-D with a unit height, 2-D, 3-D) ----

// strides / dilations / pads (ONNX order: all begins, then all ends) of a conv over the spatial dims of x.
struct ConvGeometry {
  std::vector<int64_t> strides, dil, pads;
  int64_t group = 1;
};

Result<ConvGeometry> convGeometry(Importer& im, const NodeProto& n, const Shape& xs, const Shape& ws) {
  const size_t nsp = xs.size() - 2;
  if (ws.size() != xs.size())
    return Status::invalid("Conv weight must have the input's rank " + std::to_string(xs.size()));
  auto sa = im.spatialAttrs(n, nsp, std::vector<int64_t>(ws.begin() + 2, ws.end()));
  if (!sa) return sa.status();
  ConvGeometry g{sa->strides, sa->dilations, sa->pads, im.attrInt(n, "group", 1)};
  const std::vector<int64_t> in(xs.begin() + 2, xs.end());
  TK_RETURN_IF_ERROR(autoPads(im.attrStr(n, "auto_pad", "NOTSET"), in, sa->kernel, g.strides, g.dil, g.pads));
  const int64_t C = xs[1], M = ws[0];
  if (g.group < 1 || C % g.group != 0 || M % g.group != 0 || ws[1] != C / g.group)
    return Status::invalid("Conv group " + std::to_string(g.group) + " does not match input/weight channels");
  return g;
}

// Output channels [g*Mg, (g+1)*Mg) of a weight/bias (the group's filters).
Tensor groupSlice(const Tensor& t, int64_t g, int64_t groups) {
  Shape s = t.shape();
  s[0] /= groups;
  Tensor r(t.dtype(), s);
  const size_t bytes = r.byteSize();
  std::memcpy(r.data(), t.data() + size_t(g) * bytes, bytes);
  return r;
}

// A conv weight or bias: a constant known at import, or a run-time value in the ONNX layout (TOSA 1.0 takes
// conv weights and biases as tensors). Layout changes are computed at import for constants and emitted as
// tosa.reshape / tosa.transpose / tosa.slice / tosa.reverse for run-time values.
struct Operand {
  std::shared_ptr<const Tensor> c;
  Value* v = nullptr;
  Shape shape;
  bool isConst() const { return c != nullptr; }
};

Operand constOperand(Tensor t) {
  Operand o;
  o.shape = t.shape();
  o.c = std::make_shared<const Tensor>(std::move(t));
  return o;
}

// Input i as an Operand; run-time values must be float (the conv's type).
Result<Operand> operandOf(Importer& im, const NodeProto& n, int i) {
  OVal& v = im.val(n, i);
  if (v.isConst()) return constOperand(*v.c);
  TK_RETURN_IF_ERROR(im.requireFloat(n, v));
  auto pv = im.get(v, Layout::Plain);
  if (!pv) return pv.status();
  Operand o;
  o.v = *pv;
  o.shape = v.shape;
  return o;
}

Operand reshaped(Importer& im, const Operand& o, const Shape& s, const std::string& what) {
  if (o.isConst()) return constOperand(reshapeTensor(*o.c, s));
  return {nullptr, im.reshapeTo(o.v, s, im.aux(what)), s};
}

Operand permuted(Importer& im, const Operand& o, const std::vector<int64_t>& perm, const std::string& what) {
  if (o.isConst()) return constOperand(permuteTensor(*o.c, perm));
  Value* v = im.b.transpose(o.v, perm, im.aux(what));
  return {nullptr, v, v->type.dims};
}

// Output channels [g*Mg, (g+1)*Mg) (axis 0).
Operand groupSliced(Importer& im, const Operand& o, int64_t g, int64_t groups) {
  if (groups == 1) return o;
  if (o.isConst()) return constOperand(groupSlice(*o.c, g, groups));
  Shape start(o.shape.size(), 0), size = o.shape;
  size[0] /= groups;
  start[0] = g * size[0];
  Value* v = im.b.op1("tosa.slice", {o.v, im.b.constShape(start), im.b.constShape(size)},
                      ValueType::tensor(o.v->type.dtype, size), {}, im.aux("group_slice"));
  return {nullptr, v, size};
}

Value* materialize(Importer& im, const Operand& o, const std::string& what) {
  return o.isConst() ? im.b.constant(*o.c, im.aux(what)) : o.v;
}

// x (NHWC) convolved by w [M, C/group, KH, KW] (ONNX layout); pads top, left, bottom, right.
Result<Value*> conv2dImpl(Importer& im, Value* x, const Operand& w, const Operand& b, const ConvGeometry& geo) {
  const Shape& in = x->type.dims;  // N H W C
  const Shape& ws = w.shape;
  const int64_t C = in[3], M = ws[0], Cg = ws[1], KH = ws[2], KW = ws[3], group = geo.group;
  // ONNX pads: top, left, bottom, right; TOSA pad: top, bottom, left, right.
  int64_t pt = geo.pads[0], pl = geo.pads[1], pb = geo.pads[2], pr = geo.pads[3];
  int64_t cutH = trimPadding(in[1], KH, geo.strides[0], geo.dil[0], pt, pb);
  int64_t cutW = trimPadding(in[2], KW, geo.strides[1], geo.dil[1], pl, pr);
  if (cutH || cutW) {
    auto s = im.sliceNhwc(x, {0, 0, 0, 0}, {in[0], in[1] - cutH, in[2] - cutW, C});
    if (!s) return s.status();
    x = *s;
  }
  ir::Conv2dAttrs ca;
  ca.pad = {pt, pb, pl, pr};
  ca.stride = geo.strides;
  ca.dilation = geo.dil;
  ca.accType = DType::FP32;

  // A following BatchNormalization may fold into constant weights (im.convs), not into run-time ones.
  const bool foldable = w.isConst() && b.isConst();
  if (group == 1) {
    Value* wv = materialize(im, permuted(im, w, {0, 2, 3, 1}, "weight_ohwi"), "weight");  // OIHW -> OHWI
    Value* bv = materialize(im, b, "bias");
    Value* out = im.b.conv2d(x, wv, bv, ca, im.loc);
    if (foldable) im.convs[out] = {wv->definingOp, bv->definingOp, false};
    return out;
  }
  if (Cg == 1 && group == C) {
    // Depthwise: output channel c*mult + m reads input channel c; TOSA weight is [KH, KW, C, mult].
    const int64_t mult = M / C;
    Operand wd = permuted(im, reshaped(im, w, {C, mult, KH, KW}, "weight_split"), {2, 3, 0, 1}, "weight_hwcm");
    Value* wv = materialize(im, wd, "weight");
    Value* bv = materialize(im, b, "bias");
    Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
    Value* wzp = im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"));
    const Shape& xs = x->type.dims;
    int64_t oh = (xs[1] - 1 + pt + pb - (KH - 1) * geo.dil[0]) / geo.strides[0] + 1;
    int64_t ow = (xs[2] - 1 + pl + pr - (KW - 1) * geo.dil[1]) / geo.strides[1] + 1;
    Value* out =
        im.b.op1("tosa.depthwise_conv2d", {x, wv, bv, izp, wzp}, ValueType::tensor(DType::FP32, {xs[0], oh, ow, M}),
                 {{"pad", ir::Attribute::intArray(ca.pad)},
                  {"stride", ir::Attribute::intArray(geo.strides)},
                  {"dilation", ir::Attribute::intArray(geo.dil)},
                  {"acc_type", ir::Attribute::type(DType::FP32)}},
                 im.loc);
    if (foldable) im.convs[out] = {wv->definingOp, bv->definingOp, true};
    return out;
  }
  // Grouped conv: one conv2d per group on a channel slice, concatenated along C.
  std::vector<Value*> parts;
  const Shape xs = x->type.dims;
  for (int64_t g = 0; g < group; ++g) {
    auto xs_g = im.sliceNhwc(x, {0, 0, 0, g * Cg}, {xs[0], xs[1], xs[2], Cg});
    if (!xs_g) return xs_g.status();
    Value* wv = materialize(im, permuted(im, groupSliced(im, w, g, group), {0, 2, 3, 1}, "weight_ohwi"), "weight");
    Value* bv = materialize(im, groupSliced(im, b, g, group), "bias");
    parts.push_back(im.b.conv2d(*xs_g, wv, bv, ca, im.aux("group" + std::to_string(g))));
  }
  Shape os = parts[0]->type.dims;
  os[3] = M;
  return im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, os),
                  {{"axis", ir::Attribute::integer(3, DType::I32)}}, im.loc);
}

// x (NDHWC) convolved by w [M, C/group, KD, KH, KW]; pads d0, h0, w0, d1, h1, w1 (ONNX order).
Result<Value*> conv3dImpl(Importer& im, Value* x, const Operand& w, const Operand& b, const ConvGeometry& geo) {
  const Shape in = x->type.dims;  // N D H W C
  const Shape& ws = w.shape;
  const int64_t M = ws[0], Cg = ws[1], group = geo.group, Mg = M / group;
  std::vector<int64_t> p0(geo.pads.begin(), geo.pads.begin() + 3), p1(geo.pads.begin() + 3, geo.pads.end());
  Shape size = in;
  bool cut = false;
  for (size_t i = 0; i < 3; ++i) {
    const int64_t c = trimPadding(in[i + 1], ws[i + 2], geo.strides[i], geo.dil[i], p0[i], p1[i]);
    size[i + 1] -= c;
    cut |= c != 0;
  }
  if (cut) {
    auto s = im.sliceNhwc(x, {0, 0, 0, 0, 0}, size);
    if (!s) return s.status();
    x = *s;
  }
  Shape outShape = {in[0], 0, 0, 0, Mg};
  for (size_t i = 0; i < 3; ++i)
    outShape[i + 1] = (size[i + 1] - 1 + p0[i] + p1[i] - (ws[i + 2] - 1) * geo.dil[i]) / geo.strides[i] + 1;
  std::vector<Value*> parts;
  for (int64_t g = 0; g < group; ++g) {
    Value* xg = x;
    if (group > 1) {
      auto s = im.sliceNhwc(x, {0, 0, 0, 0, g * Cg}, {size[0], size[1], size[2], size[3], Cg});
      if (!s) return s.status();
      xg = *s;
    }
    Value* wv = materialize(im, permuted(im, groupSliced(im, w, g, group), {0, 2, 3, 4, 1}, "weight_odhwi"), "weight");
    Value* bv = materialize(im, groupSliced(im, b, g, group), "bias");
    Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
    Value* wzp = im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"));
    parts.push_back(im.b.op1("tosa.conv3d", {xg, wv, bv, izp, wzp}, ValueType::tensor(DType::FP32, outShape),
                             {{"pad", ir::Attribute::intArray({p0[0], p1[0], p0[1], p1[1], p0[2], p1[2]})},
                              {"stride", ir::Attribute::intArray(geo.strides)},
                              {"dilation", ir::Attribute::intArray(geo.dil)},
                              {"acc_type", ir::Attribute::type(DType::FP32)}},
                             group > 1 ? im.aux("group" + std::to_string(g)) : im.loc));
  }
  if (group == 1) return parts[0];
  outShape[4] = M;
  return im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, outShape),
                  {{"axis", ir::Attribute::integer(4, DType::I32)}}, im.loc);
}

// Channels-last permutation of a rank-r [N, C, spatial...] value and its inverse.
std::vector<int64_t> toChannelsLast(size_t r) {
  std::vector<int64_t> p = {0};
  for (size_t d = 2; d < r; ++d) p.push_back(int64_t(d));
  p.push_back(1);
  return p;
}
std::vector<int64_t> fromChannelsLast(size_t r) {
  std::vector<int64_t> p = {0, int64_t(r) - 1};
  for (size_t d = 1; d + 1 < r; ++d) p.push_back(int64_t(d));
  return p;
}

Result<Operand> convBias(Importer& im, const NodeProto& n, int64_t M) {
  if (!im.hasInput(n, 2)) return constOperand(Tensor(DType::FP32, {M}));
  auto b = operandOf(im, n, 2);
  if (!b) return b.status();
  if (b->shape != Shape{M}) return Status::invalid("Conv bias must have shape [M]");
  return b;
}

Status opConv(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  const size_t rank = x.shape.size();
  if (rank < 3 || rank > 5)
    return Status::unsupported(std::to_string(int(rank) - 2) + "-D Conv (1-D, 2-D and 3-D are supported)");
  auto w = operandOf(im, n, 1);
  if (!w) return w.status();
  auto geo = convGeometry(im, n, x.shape, w->shape);
  if (!geo) return geo.status();
  auto bias = convBias(im, n, w->shape[0]);
  if (!bias) return bias.status();
  if (rank == 4) {
    auto xv = im.get(x, Layout::Nhwc);
    if (!xv) return xv.status();
    auto y = conv2dImpl(im, *xv, *w, *bias, *geo);
    if (!y) return y.status();
    im.setValue(n, 0, *y, Layout::Nhwc);
    return Status::ok();
  }
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* cl = im.b.transpose(*xv, toChannelsLast(rank), im.aux("to_channels_last"));
  Result<Value*> y = Status::ok();
  if (rank == 3) {  // [N, L, C] -> [N, 1, L, C] with a [M, C/g, 1, K] weight
    const Shape ws = w->shape;
    ConvGeometry g2{{1, geo->strides[0]}, {1, geo->dil[0]}, {0, geo->pads[0], 0, geo->pads[1]}, geo->group};
    Value* x2 = im.reshapeTo(cl, {x.shape[0], 1, x.shape[2], x.shape[1]}, im.aux("to_2d"));
    y = conv2dImpl(im, x2, reshaped(im, *w, {ws[0], ws[1], 1, ws[2]}, "weight_2d"), *bias, g2);
    if (!y) return y.status();
    const Shape& ys = (*y)->type.dims;
    y = im.reshapeTo(*y, {ys[0], ys[2], ys[3]}, im.aux("from_2d"));
  } else {
    y = conv3dImpl(im, cl, *w, *bias, *geo);
    if (!y) return y.status();
  }
  Value* out = im.b.transpose(*y, fromChannelsLast(rank), im.aux("to_channels_first"));
  im.setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

// Run-time scale / B / mean / var (TOSA takes them as tensors): y = (x - mean) * (scale * rsqrt(var + eps)) + B
// computed in the graph, each [C] parameter reshaped to broadcast over the channel axis of x's layout.
Status batchNormRunTime(Importer& im, const NodeProto& n, OVal& x) {
  const size_t rank = x.shape.size();
  const int64_t C = x.shape[1];
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  Shape cs(rank, 1);
  cs[l == Layout::Nhwc ? rank - 1 : 1] = C;
  Value* p[4];
  for (int i = 0; i < 4; ++i) {
    auto o = operandOf(im, n, i + 1);
    if (!o) return o.status();
    if (o->shape != Shape{C})
      return Status::invalid("BatchNormalization parameter " + std::to_string(i + 1) + " must have shape [" +
                             std::to_string(C) + "]");
    p[i] = materialize(im, reshaped(im, *o, cs, "param"), "param");
  }
  auto v = im.get(x, l);
  if (!v) return v.status();
  const float eps = im.attrFloat(n, "epsilon", 1e-5f);
  Value* inv = im.unary("tosa.rsqrt", im.b.add(p[3], im.scalarF(eps, rank), im.aux("var_eps")));
  Value* a = im.mul(p[0], inv);
  Value* centered = im.b.sub(*v, p[2], im.aux("centered"));
  im.setValue(n, 0, im.b.add(im.mul(centered, a), p[1], im.loc), l);
  return Status::ok();
}

Status opBatchNorm(Importer& im, const NodeProto& n) {
  if (im.attrInt(n, "training_mode", 0) != 0 || (n.output_size() > 1 && !n.output(1).empty()))
    return Status::unsupported("training-mode BatchNormalization");
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (x.shape.size() < 2) return Status::invalid("BatchNormalization input rank < 2");
  bool allConst = true;
  for (int i = 1; i <= 4; ++i) allConst &= im.val(n, i).isConst();
  if (!allConst) return batchNormRunTime(im, n, x);
  const char* names[4] = {"scale", "B", "mean", "var"};
  const Tensor* p[4];
  for (int i = 0; i < 4; ++i) {
    auto t = im.constInput(n, i + 1, names[i]);
    if (!t) return t.status();
    p[i] = *t;
  }
  const int64_t C = x.shape[1];
  const double eps = im.attrFloat(n, "epsilon", 1e-5f);
  // y = x * a + b with a = scale / sqrt(var + eps), b = B - mean * a (float32 arithmetic, as runtimes do).
  std::vector<double> a(size_t(C), 0.0), bb(size_t(C), 0.0);
  for (int64_t c = 0; c < C; ++c) {
    float av = float(p[0]->getFloat(c)) / std::sqrt(float(p[3]->getFloat(c)) + float(eps));
    a[size_t(c)] = av;
    bb[size_t(c)] = float(p[1]->getFloat(c)) - float(p[2]->getFloat(c)) * av;
  }
  // Fold into the producing conv when this node is the conv output's only consumer.
  if (x.prefersNhwc() && im.uses[n.input(0)] == 1) {
    auto it = im.convs.find(x.nhwc);
    if (it != im.convs.end()) {
      Importer::ConvInfo ci = it->second;
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
      im.convs.erase(it);
      im.convs[x.nhwc] = ci;  // still foldable by a further affine op? keep it simple: same conv
      im.vals[n.output(0)] = x;
      return Status::ok();
    }
  }
  const size_t rank = x.shape.size();
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  Shape cs(rank, 1);
  cs[l == Layout::Nhwc ? 3 : 1] = C;
  auto v = im.get(x, l);
  if (!v) return v.status();
  Value* av = im.constF(Tensor::fromDoubles(DType::FP32, cs, a));
  Value* bv = im.constF(Tensor::fromDoubles(DType::FP32, cs, bb));
  im.setValue(n, 0, im.b.add(im.mul(*v, av), bv, im.loc), l);
  return Status::ok();
}

// ---- ConvTranspose ----
//
// 1-D and 2-D with group 1 -> tosa.transpose_conv2d (1-D with a unit height). TOSA writes output row
// iy * stride + out_pad_top + ky, ONNX iy * stride + ky - pad_begin: out_pad = -pad (+ output_padding at the
// end). Dilations dilate the constant kernel at import. 3-D and grouped forms (TOSA has no transpose_conv3d
// and no grouped transpose conv) become a stride-1 conv of the zero-inserted, padded input with the flipped
// kernel: out = sum_k x_up[o + k - (K'-1) + pad_begin] * w[K'-1-k].

// The kernel [IC, OC/g, K...] with dilation: k' = (k-1)*d+1, zeros between the taps.
Tensor dilateKernel(const Tensor& w, const std::vector<int64_t>& dil) {
  const Shape& ws = w.shape();
  Shape ds = ws;
  for (size_t i = 0; i < dil.size(); ++i) ds[i + 2] = (ws[i + 2] - 1) * dil[i] + 1;
  Tensor r(w.dtype(), ds);
  const size_t rank = ws.size();
  std::vector<int64_t> pos(rank);
  for (int64_t e = 0; e < w.size(); ++e) {
    int64_t rest = e;
    for (size_t d = rank; d-- > 0;) {
      pos[d] = rest % ws[d];
      rest /= ws[d];
    }
    int64_t flat = 0;
    for (size_t d = 0; d < rank; ++d) flat = flat * ds[d] + (d >= 2 ? pos[d] * dil[d - 2] : pos[d]);
    r.setFloat(flat, w.getFloat(e));
  }
  return r;
}

// The conv weight [OC, IC/g, K...] equivalent to a transposed conv's [IC, OC/g, K...]: flipped spatially,
// input and output channels exchanged within each group.
Tensor flippedConvWeight(const Tensor& w, int64_t group) {
  const Shape& ws = w.shape();
  const int64_t IC = ws[0], OCg = ws[1], ICg = IC / group;
  Shape cs = ws;
  cs[0] = OCg * group;
  cs[1] = ICg;
  Tensor r(w.dtype(), cs);
  const size_t rank = ws.size();
  int64_t taps = 1;
  for (size_t d = 2; d < rank; ++d) taps *= ws[d];
  for (int64_t ic = 0; ic < IC; ++ic)
    for (int64_t o = 0; o < OCg; ++o)
      for (int64_t k = 0; k < taps; ++k) {
        const int64_t g = ic / ICg, i = ic % ICg, oc = g * OCg + o;
        r.setFloat((oc * ICg + i) * taps + (taps - 1 - k), w.getFloat((ic * OCg + o) * taps + k));
      }
  return r;
}

Value* insertZeros(Importer& im, Value* x, size_t axis, int64_t s);

// flippedConvWeight of a run-time or constant weight operand.
Operand flippedConvOperand(Importer& im, const Operand& w, int64_t group) {
  if (w.isConst()) return constOperand(flippedConvWeight(*w.c, group));
  const Shape& ws = w.shape;
  const int64_t IC = ws[0], OCg = ws[1], ICg = IC / group;
  int64_t taps = 1;
  for (size_t d = 2; d < ws.size(); ++d) taps *= ws[d];
  // [IC, OCg, K...] -> [g, ICg, OCg, taps] -> [g, OCg, ICg, taps], taps reversed (= every spatial axis).
  Operand v = permuted(im, reshaped(im, w, {group, ICg, OCg, taps}, "weight_groups"), {0, 2, 1, 3}, "weight_swap");
  Value* r = im.b.op1("tosa.reverse", {v.v}, v.v->type, {{"axis", ir::Attribute::integer(3, DType::I32)}},
                      im.aux("weight_flip"));
  Shape cs = ws;
  cs[0] = OCg * group;
  cs[1] = ICg;
  return reshaped(im, {nullptr, r, r->type.dims}, cs, "weight_flipped");
}

// dilateKernel of a run-time or constant [IC, OC/g, K...] weight operand.
Operand dilatedOperand(Importer& im, const Operand& w, const std::vector<int64_t>& dil) {
  if (std::all_of(dil.begin(), dil.end(), [](int64_t d) { return d == 1; })) return w;
  if (w.isConst()) return constOperand(dilateKernel(*w.c, dil));
  Value* v = w.v;
  for (size_t i = 0; i < dil.size(); ++i) v = insertZeros(im, v, i + 2, dil[i]);
  return {nullptr, v, v->type.dims};
}

Value* padOrCut(Importer& im, Value* x, size_t axis, int64_t begin, int64_t end) {
  const Shape& s = x->type.dims;
  if (begin < 0 || end < 0) {
    Shape start(s.size(), 0), size = s;
    start[axis] = std::max<int64_t>(-begin, 0);
    size[axis] -= std::max<int64_t>(-begin, 0) + std::max<int64_t>(-end, 0);
    x = im.b.op1("tosa.slice", {x, im.b.constShape(start), im.b.constShape(size)},
                 ValueType::tensor(x->type.dtype, size), {}, im.aux("crop"));
  }
  if (begin <= 0 && end <= 0) return x;
  std::vector<int64_t> padding(2 * x->type.dims.size(), 0);
  padding[2 * axis] = std::max<int64_t>(begin, 0);
  padding[2 * axis + 1] = std::max<int64_t>(end, 0);
  Shape ps = x->type.dims;
  ps[axis] += padding[2 * axis] + padding[2 * axis + 1];
  return im.b.op1("tosa.pad", {x, im.b.constShape(padding), im.b.scalar1(x->type.dtype, 0, im.aux("pad_const"))},
                  ValueType::tensor(x->type.dtype, ps), {}, im.aux("pad"));
}

// s-1 zeros between neighbours along `axis`: [.., I, ..] -> [.., (I-1)*s+1, ..].
Value* insertZeros(Importer& im, Value* x, size_t axis, int64_t s) {
  if (s == 1) return x;
  Shape sh = x->type.dims;
  Shape split = sh;
  split.insert(split.begin() + int64_t(axis) + 1, 1);
  Value* v = im.reshapeTo(x, split, im.aux("upsample"));
  v = padOrCut(im, v, axis + 1, 0, s - 1);
  Shape merged = sh;
  merged[axis] *= s;
  v = im.reshapeTo(v, merged, im.aux("upsample"));
  return padOrCut(im, v, axis, 0, -(s - 1));
}

Status opConvTranspose(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  const size_t rank = x.shape.size();
  if (rank < 3 || rank > 5)
    return Status::unsupported(std::to_string(int(rank) - 2) + "-D ConvTranspose (1-D, 2-D and 3-D are supported)");
  const size_t nsp = rank - 2;
  auto wIn = operandOf(im, n, 1);
  if (!wIn) return wIn.status();
  const int64_t group = im.attrInt(n, "group", 1);
  const Shape ws0 = wIn->shape;  // IC, OC/group, K...
  if (ws0.size() != rank || ws0[0] != x.shape[1] || group < 1 || ws0[0] % group != 0)
    return Status::invalid("ConvTranspose weight " + shapeToString(ws0) + " does not match the input " +
                           shapeToString(x.shape) + " (group " + std::to_string(group) + ")");
  const int64_t OC = ws0[1] * group;
  auto bias = convBias(im, n, OC);
  if (!bias) return bias.status();
  auto sa = im.spatialAttrs(n, nsp, std::vector<int64_t>(ws0.begin() + 2, ws0.end()));
  if (!sa) return sa.status();
  const std::vector<int64_t>&dil = sa->dilations, &strides = sa->strides;
  std::vector<int64_t> pads = sa->pads;
  std::vector<int64_t> outPad = im.attrInts(n, "output_padding").value_or(std::vector<int64_t>(nsp, 0));
  TK_RETURN_IF_ERROR(checkSpatial(outPad, nsp, 0, "output_padding"));
  const Operand w = dilatedOperand(im, *wIn, dil);
  std::vector<int64_t> K(w.shape.begin() + 2, w.shape.end()), I(x.shape.begin() + 2, x.shape.end());
  const std::string autoPad = im.attrStr(n, "auto_pad", "NOTSET");
  auto outShape = im.attrInts(n, "output_shape");
  if (!outShape && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")) {
    outShape = std::vector<int64_t>(nsp);
    for (size_t i = 0; i < nsp; ++i) (*outShape)[i] = I[i] * strides[i];
  }
  if (outShape) {
    if (outShape->size() == rank) outShape->erase(outShape->begin(), outShape->begin() + 2);  // full N,C,... form
    if (outShape->size() != nsp)
      return Status::invalid("ConvTranspose output_shape must have " + std::to_string(nsp) + " values");
    for (size_t i = 0; i < nsp; ++i) {
      const int64_t total = strides[i] * (I[i] - 1) + outPad[i] + K[i] - (*outShape)[i];
      const int64_t half = total / 2;
      pads[i] = total < 0 ? 0 : autoPad == "SAME_UPPER" ? half : total - half;
      pads[i + nsp] = total - pads[i];  // negative: extra output rows at the end
    }
  } else if (autoPad == "VALID") {
    pads.assign(2 * nsp, 0);
  }

  if (nsp <= 2 && group == 1) {
    // transpose_conv2d; 1-D as [N, 1, L, C] with a [IC, OC, 1, K] kernel.
    const bool oneD = nsp == 1;
    const int64_t kh = oneD ? 1 : K[0], kw = K[nsp - 1];
    const int64_t sh = oneD ? 1 : strides[0], sw = strides[nsp - 1];
    const int64_t top = oneD ? 0 : pads[0], bottom = oneD ? 0 : pads[2], left = pads[nsp - 1],
                  right = pads[2 * nsp - 1];
    const int64_t padH = oneD ? 0 : outPad[0], padW = outPad[nsp - 1];
    const std::vector<int64_t> tosaPad = {-top, -bottom + padH, -left, -right + padW};
    if (tosaPad[0] > -kh && tosaPad[1] > -kh && tosaPad[2] > -kw && tosaPad[3] > -kw) {
      Value* xin = nullptr;
      if (oneD) {
        auto xv = im.get(x, Layout::Plain);
        if (!xv) return xv.status();
        xin = im.reshapeTo(im.b.transpose(*xv, {0, 2, 1}, im.aux("to_nlc")), {x.shape[0], 1, I[0], x.shape[1]},
                           im.aux("to_2d"));
      } else {
        auto xv = im.get(x, Layout::Nhwc);
        if (!xv) return xv.status();
        xin = *xv;
      }
      const Shape& xs = xin->type.dims;
      const int64_t oh = (xs[1] - 1) * sh + tosaPad[0] + tosaPad[1] + kh;
      const int64_t ow = (xs[2] - 1) * sw + tosaPad[2] + tosaPad[3] + kw;
      Operand w4 = oneD ? reshaped(im, w, {w.shape[0], w.shape[1], 1, kw}, "weight_2d") : w;
      Value* wv =
          materialize(im, permuted(im, w4, {1, 2, 3, 0}, "weight_ohwi"), "weight");  // [IC,OC,KH,KW] -> [OC,KH,KW,IC]
      Value* bv = materialize(im, *bias, "bias");
      Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
      Value* wzp = im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"));
      Value* out = im.b.op1("tosa.transpose_conv2d", {xin, wv, bv, izp, wzp},
                            ValueType::tensor(DType::FP32, {xs[0], oh, ow, OC}),
                            {{"out_pad", ir::Attribute::intArray(tosaPad)},
                             {"stride", ir::Attribute::intArray({sh, sw})},
                             {"acc_type", ir::Attribute::type(DType::FP32)}},
                            im.loc);
      if (!oneD) {
        im.setValue(n, 0, out, Layout::Nhwc);
        return Status::ok();
      }
      Value* y = im.reshapeTo(out, {xs[0], ow, OC}, im.aux("from_2d"));
      im.setValue(n, 0, im.b.transpose(y, {0, 2, 1}, im.aux("to_ncl")), Layout::Plain);
      return Status::ok();
    }
  }

  // Zero insertion, explicit padding, stride-1 conv with the flipped kernel (channels last).
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* v = im.b.transpose(*xv, toChannelsLast(rank), im.aux("to_channels_last"));
  for (size_t i = 0; i < nsp; ++i) {
    v = insertZeros(im, v, i + 1, strides[i]);
    v = padOrCut(im, v, i + 1, K[i] - 1 - pads[i], K[i] - 1 - pads[i + nsp] + outPad[i]);
  }
  const Operand cw = flippedConvOperand(im, w, group);
  ConvGeometry geo;
  geo.group = group;
  Result<Value*> y = Status::ok();
  if (nsp == 3) {
    geo.strides = geo.dil = {1, 1, 1};
    geo.pads.assign(6, 0);
    y = conv3dImpl(im, v, cw, *bias, geo);
  } else {
    geo.strides = geo.dil = {1, 1};
    geo.pads.assign(4, 0);
    Operand cw4 = cw;
    if (nsp == 1) {
      const Shape& vs = v->type.dims;
      v = im.reshapeTo(v, {vs[0], 1, vs[1], vs[2]}, im.aux("to_2d"));
      cw4 = reshaped(im, cw, {cw.shape[0], cw.shape[1], 1, cw.shape[2]}, "weight_2d");
    }
    y = conv2dImpl(im, v, cw4, *bias, geo);
    if (y && nsp == 1) {
      const Shape& ys = (*y)->type.dims;
      y = im.reshapeTo(*y, {ys[0], ys[2], ys[3]}, im.aux("from_2d"));
    }
  }
  if (!y) return y.status();
  if (nsp == 2) {
    im.setValue(n, 0, *y, Layout::Nhwc);
    return Status::ok();
  }
  im.setValue(n, 0, im.b.transpose(*y, fromChannelsLast(rank), im.aux("to_channels_first")), Layout::Plain);
  return Status::ok();
}

}  // namespace

Result<Value*> floatConv2dNhwc(Importer& im, const NodeProto& n, Value* x, const Shape& xs, Value* w, Value* bias) {
  if (xs.size() != 4) return Status::unsupported("only 2-D convolution with run-time quantization parameters");
  Operand wo{nullptr, w, w->type.dims};
  Operand bo = bias ? Operand{nullptr, bias, bias->type.dims} : constOperand(Tensor(DType::FP32, {wo.shape[0]}));
  auto geo = convGeometry(im, n, xs, wo.shape);
  if (!geo) return geo.status();
  return conv2dImpl(im, x, wo, bo, *geo);
}

void registerConvOps(HandlerTable& t) {
  t["Conv"] = opConv;
  t["BatchNormalization"] = opBatchNorm;
  t["ConvTranspose"] = opConvTranspose;
}

}  // namespace tosakit::onnx
