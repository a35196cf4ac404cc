// Conv, ConvTranspose and BatchNormalization (folded into the producing conv when possible).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ---- conv / batch norm ----

Status conv2dImpl(Importer& im, const NodeProto& n, Value* x, const Tensor& w, const Tensor* bias, int64_t group,
                  std::vector<int64_t> pads, std::vector<int64_t> strides, std::vector<int64_t> dil);

Status opConv(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D Conv is supported (input rank " +
                                                      std::to_string(x.shape.size()) + ")");
  auto w = im.constInput(n, 1, "weight");
  if (!w) return w.status();
  const Tensor* bias = nullptr;
  if (im.hasInput(n, 2)) {
    auto bt = im.constInput(n, 2, "bias");
    if (!bt) return bt.status();
    bias = *bt;
  }
  const Shape& ws = (*w)->shape();
  if (ws.size() != 4) return Status::invalid("Conv weight must be rank 4");
  const int64_t kh = ws[2], kw = ws[3];
  if (auto ks = im.attrInts(n, "kernel_shape"); ks && (*ks != std::vector<int64_t>{kh, kw}))
    return Status::invalid("Conv kernel_shape differs from the weight shape");
  std::vector<int64_t> strides = im.attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dil = im.attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});  // t, l, b, r
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(dil, 2, 1, "dilations"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const std::string autoPad = im.attrStr(n, "auto_pad", "NOTSET");
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
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  return conv2dImpl(im, n, *xv, **w, bias, im.attrInt(n, "group", 1), pads, strides, dil);
}

Status conv2dImpl(Importer& im, const NodeProto& n, Value* x, const Tensor& w, const Tensor* bias, int64_t group,
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
    auto s = im.sliceNhwc(x, {0, 0, 0, 0}, {in[0], in[1] - cutH, in[2] - cutW, C});
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
    Value* wv = im.b.constant(permuteTensor(w, {0, 2, 3, 1}), im.aux("weight"));  // OIHW -> OHWI
    Value* bv = im.b.constant(b, im.aux("bias"));
    Value* out = im.b.conv2d(x, wv, bv, ca, im.loc);
    im.convs[out] = {wv->definingOp, bv->definingOp, false};
    im.setValue(n, 0, out, Layout::Nhwc);
    return Status::ok();
  }
  if (Cg == 1 && group == C) {
    // Depthwise: output channel c*mult + m reads input channel c; TOSA weight is [KH, KW, C, mult].
    const int64_t mult = M / C;
    Tensor wd = permuteTensor(reshapeTensor(w, {C, mult, KH, KW}), {2, 3, 0, 1});
    Value* wv = im.b.constant(std::move(wd), im.aux("weight"));
    Value* bv = im.b.constant(b, im.aux("bias"));
    Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
    Value* wzp = im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"));
    const Shape& xs = x->type.dims;
    int64_t oh = (xs[1] - 1 + pt + pb - (KH - 1) * dil[0]) / strides[0] + 1;
    int64_t ow = (xs[2] - 1 + pl + pr - (KW - 1) * dil[1]) / strides[1] + 1;
    Value* out = im.b.op1("tosa.depthwise_conv2d", {x, wv, bv, izp, wzp},
                        ValueType::tensor(DType::FP32, {xs[0], oh, ow, M}),
                        {{"pad", ir::Attribute::intArray(ca.pad)},
                         {"stride", ir::Attribute::intArray(strides)},
                         {"dilation", ir::Attribute::intArray(dil)},
                         {"acc_type", ir::Attribute::type(DType::FP32)}},
                        im.loc);
    im.convs[out] = {wv->definingOp, bv->definingOp, true};
    im.setValue(n, 0, out, Layout::Nhwc);
    return Status::ok();
  }
  // Grouped conv: one conv2d per group on a channel slice, concatenated along C.
  const int64_t Mg = M / group;
  std::vector<Value*> parts;
  const Shape xs = x->type.dims;
  for (int64_t g = 0; g < group; ++g) {
    auto xs_g = im.sliceNhwc(x, {0, 0, 0, g * Cg}, {xs[0], xs[1], xs[2], Cg});
    if (!xs_g) return xs_g.status();
    Tensor wg(DType::FP32, {Mg, Cg, KH, KW});
    const size_t chunk = size_t(Mg * Cg * KH * KW) * 4;
    std::memcpy(wg.data(), w.data() + size_t(g) * chunk, chunk);
    Tensor bg(DType::FP32, {Mg});
    std::memcpy(bg.data(), b.data() + size_t(g * Mg) * 4, size_t(Mg) * 4);
    Value* wv = im.b.constant(permuteTensor(wg, {0, 2, 3, 1}), im.aux("weight"));
    Value* bv = im.b.constant(bg, im.aux("bias"));
    parts.push_back(im.b.conv2d(*xs_g, wv, bv, ca, im.aux("group" + std::to_string(g))));
  }
  Shape os = parts[0]->type.dims;
  os[3] = M;
  im.setValue(n, 0,
           im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, os),
                  {{"axis", ir::Attribute::integer(3, DType::I32)}}, im.loc),
           Layout::Nhwc);
  return Status::ok();
}

Status opBatchNorm(Importer& im, const NodeProto& n) {
  if (im.attrInt(n, "training_mode", 0) != 0 || (n.output_size() > 1 && !n.output(1).empty()))
    return Status::unsupported("training-mode BatchNormalization");
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  const char* names[4] = {"scale", "B", "mean", "var"};
  const Tensor* p[4];
  for (int i = 0; i < 4; ++i) {
    auto t = im.constInput(n, i + 1, names[i]);
    if (!t) return t.status();
    p[i] = *t;
  }
  if (x.shape.size() < 2) return Status::invalid("BatchNormalization input rank < 2");
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

// ConvTranspose (2-D, group 1, dilation 1) -> transpose_conv2d. TOSA writes output row
// iy * stride + out_pad_top + ky, ONNX iy * stride + ky - pad_begin: out_pad = -pad (+ output_padding at the end).
Status opConvTranspose(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D ConvTranspose is supported");
  auto w = im.constInput(n, 1, "weight");
  if (!w) return w.status();
  const Tensor* bias = nullptr;
  if (im.hasInput(n, 2)) {
    auto bt = im.constInput(n, 2, "bias");
    if (!bt) return bt.status();
    bias = *bt;
  }
  if (im.attrInt(n, "group", 1) != 1) return Status::unsupported("grouped ConvTranspose");
  std::vector<int64_t> dil = im.attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  if (dil != std::vector<int64_t>{1, 1}) return Status::unsupported("ConvTranspose with dilations");
  const Shape& ws = (*w)->shape();  // IC, OC, KH, KW
  if (ws.size() != 4 || ws[0] != x.shape[1]) return Status::invalid("ConvTranspose weight does not match the input");
  const int64_t OC = ws[1], K[2] = {ws[2], ws[3]}, I[2] = {x.shape[2], x.shape[3]};
  std::vector<int64_t> strides = im.attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> outPad = im.attrInts(n, "output_padding").value_or(std::vector<int64_t>{0, 0});
  std::vector<int64_t> pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(outPad, 2, 0, "output_padding"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const std::string autoPad = im.attrStr(n, "auto_pad", "NOTSET");
  auto outShape = im.attrInts(n, "output_shape");
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
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  const Shape& xs = (*xv)->type.dims;
  const int64_t oh = (xs[1] - 1) * strides[0] + tosaPad[0] + tosaPad[1] + K[0];
  const int64_t ow = (xs[2] - 1) * strides[1] + tosaPad[2] + tosaPad[3] + K[1];
  Value* wv = im.b.constant(permuteTensor(**w, {1, 2, 3, 0}), im.aux("weight"));  // [IC,OC,KH,KW] -> [OC,KH,KW,IC]
  Value* bv = im.b.constant(bias ? *bias : Tensor(DType::FP32, {OC}), im.aux("bias"));
  Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
  Value* wzp = im.b.scalar1(DType::FP32, 0, im.aux("weight_zp"));
  Value* out = im.b.op1("tosa.transpose_conv2d", {*xv, wv, bv, izp, wzp},
                      ValueType::tensor(DType::FP32, {xs[0], oh, ow, OC}),
                      {{"out_pad", ir::Attribute::intArray(tosaPad)},
                       {"stride", ir::Attribute::intArray(strides)},
                       {"acc_type", ir::Attribute::type(DType::FP32)}},
                      im.loc);
  im.setValue(n, 0, out, Layout::Nhwc);
  return Status::ok();
}

}  // namespace

void registerConvOps(HandlerTable& t) {
  t["Conv"] = opConv;
  t["BatchNormalization"] = opBatchNorm;
  t["ConvTranspose"] = opConvTranspose;
}

}  // namespace tosakit::onnx
