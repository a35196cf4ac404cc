// MaxPool, AveragePool, GlobalAveragePool.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

Status poolImpl(Importer& im, const NodeProto& n, bool isMax) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D pooling is supported");
  if (isMax && n.output_size() > 1 && !n.output(1).empty()) return Status::unsupported("MaxPool Indices output");
  if (isMax && im.attrInt(n, "storage_order", 0) != 0) return Status::unsupported("MaxPool storage_order 1");
  std::vector<int64_t> k = im.attrInts(n, "kernel_shape").value_or(std::vector<int64_t>{});
  if (k.size() != 2) return Status::invalid("pool kernel_shape must have 2 values");
  std::vector<int64_t> strides = im.attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dil = im.attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  if (dil != std::vector<int64_t>{1, 1}) return Status::unsupported("pooling with dilations");
  std::vector<int64_t> pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  TK_RETURN_IF_ERROR(checkSpatial(k, 2, 1, "kernel_shape"));
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const bool ceil = im.attrInt(n, "ceil_mode", 0) != 0;
  const bool countPad = !isMax && im.attrInt(n, "count_include_pad", 0) != 0;
  const std::string autoPad = im.attrStr(n, "auto_pad", "NOTSET");
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
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  Value* xin = *xv;
  int64_t ih = in[0], iw = in[1];
  int64_t pt = pads[0], pl = pads[1], pb = pads[2], pr = pads[3];
  if (countPad && (pt || pl || pb || pr)) {
    // Padding counts in the average: pad with explicit zeros, then pool without padding.
    Value* padding = im.b.constShape({0, 0, pt, pb, pl, pr, 0, 0}, im.aux("padding"));
    Value* pc = im.b.scalar1(DType::FP32, 0, im.aux("pad_const"));
    const Shape& s = xin->type.dims;
    xin = im.b.op1("tosa.pad", {xin, padding, pc},
                 ValueType::tensor(DType::FP32, {s[0], s[1] + pt + pb, s[2] + pl + pr, s[3]}), {}, im.aux("pad"));
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
    auto sl = im.sliceNhwc(xin, {0, 0, 0, 0}, {s[0], s[1] - cutH, s[2] - cutW, s[3]});
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
    out = im.b.op1("tosa.max_pool2d", {xin}, rt, attrs, im.loc);
  } else {
    attrs["acc_type"] = ir::Attribute::type(DType::FP32);
    Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
    Value* ozp = im.b.scalar1(DType::FP32, 0, im.aux("output_zp"));
    out = im.b.op1("tosa.avg_pool2d", {xin, izp, ozp}, rt, attrs, im.loc);
  }
  im.setValue(n, 0, out, Layout::Nhwc);
  return Status::ok();
}

Status opGlobalAveragePool(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 2-D GlobalAveragePool is supported");
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  const Shape& s = (*xv)->type.dims;
  Value* izp = im.b.scalar1(DType::FP32, 0, im.aux("input_zp"));
  Value* ozp = im.b.scalar1(DType::FP32, 0, im.aux("output_zp"));
  Value* out = im.b.op1("tosa.avg_pool2d", {*xv, izp, ozp}, ValueType::tensor(DType::FP32, {s[0], 1, 1, s[3]}),
                      {{"kernel", ir::Attribute::intArray({s[1], s[2]})},
                       {"stride", ir::Attribute::intArray({1, 1})},
                       {"pad", ir::Attribute::intArray({0, 0, 0, 0})},
                       {"acc_type", ir::Attribute::type(DType::FP32)}},
                      im.loc);
  im.setValue(n, 0, out, Layout::Nhwc);
  return Status::ok();
}

}  // namespace

void registerPoolOps(HandlerTable& t) {
  t["MaxPool"] = [](Importer& im, const NodeProto& n) { return poolImpl(im, n, true); };
  t["AveragePool"] = [](Importer& im, const NodeProto& n) { return poolImpl(im, n, false); };
  t["GlobalAveragePool"] = opGlobalAveragePool;
}

}  // namespace tosakit::onnx
