// Activations (Relu, Clip, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, ...) and Softmax.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

Status opRelu(Importer& im, const NodeProto& n) {
  return im.unaryKeepLayout(n, [&](Value* x) { return im.clampF(x, 0.0, kFltMax); });
}

Status opClip(Importer& im, const NodeProto& n) {
  double lo = -kFltMax, hi = kFltMax;
  if (im.opset < 11) {
    lo = im.attrFloat(n, "min", float(lo));
    hi = im.attrFloat(n, "max", float(hi));
  } else {
    if (im.hasInput(n, 1)) {
      auto t = im.constInput(n, 1, "min");
      if (!t) return t.status();
      lo = (*t)->getFloat(0);
    }
    if (im.hasInput(n, 2)) {
      auto t = im.constInput(n, 2, "max");
      if (!t) return t.status();
      hi = (*t)->getFloat(0);
    }
  }
  // TOSA requires min_val <= max_val; ONNX then returns max everywhere, i.e. clamp(max, max).
  if (lo > hi) lo = hi;
  return im.unaryKeepLayout(n, [&](Value* x) { return im.clampF(x, lo, hi); });
}

Status opLeakyRelu(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 0.01f);
  return im.unaryKeepLayout(n, [&](Value* x) {
    // x >= 0 ? x : alpha * x, exact for any alpha (max(x, alpha*x) would need alpha <= 1).
    const size_t r = x->type.dims.size();
    Value* ax = im.mul(x, im.scalarF(alpha, r));
    Value* ge = im.binary("tosa.greater_equal", x, im.scalarF(0.0f, r), DType::Bool);
    return im.b.op1("tosa.select", {ge, x, ax}, x->type, {}, im.aux("select"));
  });
}

Status opSigmoid(Importer& im, const NodeProto& n) {
  return im.unaryKeepLayout(n, [&](Value* x) { return im.unary("tosa.sigmoid", x); });
}

Status opTanh(Importer& im, const NodeProto& n) {
  return im.unaryKeepLayout(n, [&](Value* x) { return im.unary("tosa.tanh", x); });
}

Status opHardSigmoid(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 0.2f), beta = im.attrFloat(n, "beta", 0.5f);
  return im.unaryKeepLayout(n, [&](Value* x) {
    const size_t r = x->type.dims.size();
    Value* y = im.b.add(im.mul(x, im.scalarF(alpha, r)), im.scalarF(beta, r), im.aux("add"));
    return im.clampF(y, 0.0, 1.0);
  });
}

Status opHardSwish(Importer& im, const NodeProto& n) {
  return im.unaryKeepLayout(n, [&](Value* x) {
    // x * max(0, min(1, x/6 + 1/2)) (HardSigmoid with alpha = 1/6, beta = 0.5).
    const size_t r = x->type.dims.size();
    Value* y = im.b.add(im.mul(x, im.scalarF(1.0f / 6.0f, r)), im.scalarF(0.5f, r), im.aux("add"));
    return im.mul(x, im.clampF(y, 0.0, 1.0));
  });
}

Status opSoftmax(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  const int64_t r = int64_t(x.shape.size());
  int64_t axis = normAxis(im.attrInt(n, "axis", im.opset < 13 ? 1 : -1), r);
  if (axis < 0 || axis >= r) return Status::invalid("Softmax axis out of range");
  Layout l = im.opset >= 13 && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  Value* v = *xv;
  int64_t tosaAxis = l == Layout::Nhwc ? kNhwcPos[axis] : axis;
  if (im.opset < 13 && axis != r - 1) {
    // Before opset 13 Softmax works on the input coerced to 2-D at `axis`.
    int64_t a = 1, c = 1;
    for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= x.shape[size_t(i)];
    v = im.b.reshape(v, {a, c}, im.aux("reshape"));
    tosaAxis = 1;
  }
  auto reduce = [&](const std::string& op, Value* in) {
    Shape s = in->type.dims;
    s[size_t(tosaAxis)] = 1;
    return im.b.op1(op, {in}, ValueType::tensor(DType::FP32, s),
                  {{"axis", ir::Attribute::integer(tosaAxis, DType::I32)}}, im.aux(op.substr(5)));
  };
  // exp(x - max) / sum(exp(x - max)): subtracting the max keeps exp finite.
  Value* shifted = im.b.sub(v, reduce("tosa.reduce_max", v), im.aux("sub"));
  Value* e = im.unary("tosa.exp", shifted);
  Value* inv = im.unary("tosa.reciprocal", reduce("tosa.reduce_sum", e));
  Value* y = im.b.mul(e, inv, 0, im.loc);
  if (y->type.dims.size() != size_t(r) || (l == Layout::Plain && y->type.dims != x.shape)) y = im.b.reshape(y, x.shape, im.aux("reshape"));
  im.setValue(n, 0, y, l);
  return Status::ok();
}

}  // namespace

void registerActivationOps(HandlerTable& t) {
  t["Relu"] = opRelu;
  t["Clip"] = opClip;
  t["LeakyRelu"] = opLeakyRelu;
  t["Sigmoid"] = opSigmoid;
  t["Tanh"] = opTanh;
  t["HardSigmoid"] = opHardSigmoid;
  t["HardSwish"] = opHardSwish;
  t["Softmax"] = opSoftmax;
}

}  // namespace tosakit::onnx
