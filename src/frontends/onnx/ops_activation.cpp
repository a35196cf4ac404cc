// Activations (Relu, Clip, LeakyRelu, PRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Selu, Celu, Softplus,
// Softsign, Mish, Gelu, ThresholdedRelu, Shrink) and the softmax family (Softmax, LogSoftmax, Hardmax).
// All are elementwise decompositions over TOSA ops that keep the input's layout, except the softmax family,
// which works along one axis. Float activations run in the input's float type (float32, float16, bfloat16).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// The largest finite value of a float type (the "no bound" clamp limit).
double floatMax(DType t) {
  if (t == DType::FP16) return 65504.0;
  if (t == DType::BF16) return 3.3895313892515355e38;
  return kFltMax;
}

// A [1,...,1] constant of x's type and rank.
Value* sc(Importer& im, Value* x, double v) { return im.scalarOf(x->type.dtype, v, x->type.dims.size()); }

Value* add(Importer& im, Value* a, Value* c) { return im.b.add(a, c, im.aux("add")); }
Value* sub(Importer& im, Value* a, Value* c) { return im.b.sub(a, c, im.aux("sub")); }
Value* sel(Importer& im, Value* cond, Value* a, Value* c) {
  auto s = ir::broadcastShape(a->type.dims, c->type.dims);
  s = ir::broadcastShape(*s, cond->type.dims);
  return im.b.op1("tosa.select", {cond, a, c}, ValueType::tensor(a->type.dtype, *s), {}, im.aux("select"));
}
Value* cmp(Importer& im, const std::string& op, Value* a, Value* c) { return im.binary(op, a, c, DType::Bool); }
Value* exp(Importer& im, Value* x) { return im.unary("tosa.exp", x); }

// Clamp with bounds of x's type (float or integer attributes, as TOSA requires).
Value* clampT(Importer& im, Value* x, double lo, double hi) {
  const DType t = x->type.dtype;
  if (isFloatType(t)) {
    return im.b.op1("tosa.clamp", {x}, x->type,
                    {{"min_val", ir::Attribute::floating(lo, t)}, {"max_val", ir::Attribute::floating(hi, t)}},
                    im.aux("clamp"));
  }
  return im.b.op1(
      "tosa.clamp", {x}, x->type,
      {{"min_val", ir::Attribute::integer(int64_t(lo), t)}, {"max_val", ir::Attribute::integer(int64_t(hi), t)}},
      im.aux("clamp"));
}

// Unary elementwise lowering for float inputs of any TOSA float type; keeps the input's layout. The op
// returned by f carries the node name.
Status floatUnary(Importer& im, const NodeProto& n, const std::function<Value*(Value*)>& f) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  Value* out = f(*v);
  return im.setResult(n, out, l);
}

// log(1 + exp(x)) computed as max(x, 0) + log(1 + exp(-|x|)): exp never overflows.
Value* softplus(Importer& im, Value* x) {
  Value* pos = clampT(im, x, 0.0, floatMax(x->type.dtype));
  Value* negAbs = sub(im, sc(im, x, 0.0), im.unary("tosa.abs", x));
  Value* l = im.unary("tosa.log", add(im, sc(im, x, 1.0), exp(im, negAbs)));
  return add(im, pos, l);
}

Status opRelu(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  // Relu-14 also takes signed integers: clamp(x, 0, max of the type).
  if (x.dtype == DType::I8 || x.dtype == DType::I16 || x.dtype == DType::I32 || x.dtype == DType::I64) {
    Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
    auto v = im.get(x, l);
    if (!v) return v.status();
    const DType t = (*v)->type.dtype;
    const double hi = t == DType::I8 ? 127 : t == DType::I16 ? 32767 : 2147483647.0;
    Value* out = clampT(im, *v, 0, hi);
    out->definingOp->loc.name = im.loc;
    im.setValue(n, 0, out, l, x.dtype);
    return Status::ok();
  }
  return floatUnary(im, n, [&](Value* v) { return clampT(im, v, 0.0, floatMax(v->type.dtype)); });
}

// Clip: constant bounds become one CLAMP (float or integer attributes); run-time bounds (min/max computed in
// the graph) become MAXIMUM/MINIMUM, which TOSA has for i32 and floats (i8/i16 are widened to i32 for them).
Status opClip(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (isUnsignedBits(x.dtype)) return Status::unsupported("uint8 Clip (TOSA CLAMP compares signed values)");
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  const DType t = *rt;
  const bool fp = isFloatType(t);
  if (!fp && t != DType::I8 && t != DType::I16 && t != DType::I32)
    return Status::unsupported("element type " + std::string(dtypeName(x.dtype)));
  const double typeMin = fp ? -floatMax(t) : t == DType::I8 ? -128 : t == DType::I16 ? -32768 : -2147483648.0;
  const double typeMax = fp ? floatMax(t) : t == DType::I8 ? 127 : t == DType::I16 ? 32767 : 2147483647.0;
  double lo = typeMin, hi = typeMax;
  OVal* loV = nullptr;
  OVal* hiV = nullptr;
  if (im.opset < 11) {
    lo = std::max(typeMin, double(im.attrFloat(n, "min", float(-kFltMax))));
    hi = std::min(typeMax, double(im.attrFloat(n, "max", float(kFltMax))));
  } else {
    for (int i = 1; i <= 2; ++i) {
      if (!im.hasInput(n, i)) continue;
      OVal& b = im.val(n, i);
      if (!b.isConst()) {
        (i == 1 ? loV : hiV) = &b;
        continue;
      }
      if (b.c->size() != 1) return Status::invalid("Clip bound must be a scalar");
      double v = fp ? b.c->getFloat(0) : double(b.c->getInt(0));
      if (std::isnan(v)) return Status::unsupported("NaN Clip bound");
      // Bounds beyond the type's range do not clip anything (int64 data fits in i32 here).
      if (i == 1)
        lo = std::clamp(v, typeMin, typeMax);
      else
        hi = std::clamp(v, typeMin, typeMax);
    }
  }
  // TOSA requires min_val <= max_val; ONNX then returns max everywhere, i.e. clamp(max, max).
  if (lo > hi) lo = hi;
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  Value* y = *xv;
  const size_t rank = x.shape.size();
  if (!loV && !hiV) {
    y = clampT(im, y, lo, hi);
  } else {
    // Run-time bounds: y = min(max(x, lo), hi) (ONNX's order: min > max gives max).
    const bool widen = !fp && t != DType::I32;
    if (widen) y = im.castTo(y, DType::I32);
    if (loV || lo > typeMin) {
      Value* b;
      if (loV) {
        auto r = im.getAsRank(*loV, rank, l);
        if (!r) return r.status();
        b = widen ? im.castTo(*r, DType::I32) : *r;
      } else {
        b = im.scalarOf(y->type.dtype, lo, rank);
      }
      y = im.binary("tosa.maximum", y, b, y->type.dtype);
    }
    if (hiV || hi < typeMax) {
      Value* b;
      if (hiV) {
        auto r = im.getAsRank(*hiV, rank, l);
        if (!r) return r.status();
        b = widen ? im.castTo(*r, DType::I32) : *r;
      } else {
        b = im.scalarOf(y->type.dtype, hi, rank);
      }
      y = im.binary("tosa.minimum", y, b, y->type.dtype);
    }
    if (widen) y = im.castTo(y, t);
  }
  if (y == *xv) y = im.b.op1("tosa.identity", {y}, y->type, {}, im.aux("identity"));
  y->definingOp->loc.name = im.loc;
  im.setValue(n, 0, y, l, x.dtype);
  return Status::ok();
}

Status opLeakyRelu(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 0.01f);
  return floatUnary(im, n, [&](Value* x) {
    // x >= 0 ? x : alpha * x, exact for any alpha (max(x, alpha*x) would need alpha <= 1).
    Value* ax = im.mul(x, sc(im, x, alpha));
    return sel(im, cmp(im, "tosa.greater_equal", x, sc(im, x, 0.0)), x, ax);
  });
}

// PRelu: x < 0 ? slope * x : x, slope unidirectionally broadcast to x (constant or run-time).
Status opPRelu(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  OVal& slope = im.val(n, 1);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  if (slope.dtype != x.dtype) return Status::invalid("PRelu slope type differs from X");
  // PRelu before opset 7: a [C] slope is per channel (axis 1), not numpy-broadcast.
  OVal channelSlope;
  if (im.opset < 7 && slope.shape.size() == 1 && x.shape.size() > 2 && slope.shape[0] == x.shape[1] &&
      slope.shape[0] != 1) {
    if (!slope.isConst()) return Status::unsupported("a run-time per-channel PRelu-6 slope");
    Shape cs(x.shape.size() - 1, 1);
    cs[0] = slope.shape[0];
    channelSlope = slope;
    channelSlope.shape = cs;
    channelSlope.c = std::make_shared<const Tensor>(reshapeTensor(*slope.c, cs));
    channelSlope.plain = channelSlope.nhwc = nullptr;
  }
  OVal& s = channelSlope.isConst() ? channelSlope : slope;
  auto bs = numpyBroadcast(x.shape, s.shape);
  if (s.shape.size() > x.shape.size() || !bs || *bs != x.shape)
    return Status::invalid("PRelu slope " + shapeToString(s.shape) + " does not broadcast to X " +
                           shapeToString(x.shape));
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  auto sv = im.getAsRank(s, x.shape.size(), l);
  if (!sv) return sv.status();
  Value* v = *xv;
  Value* sx = im.mul(v, *sv);
  Value* y = sel(im, cmp(im, "tosa.greater_equal", v, sc(im, v, 0.0)), v, sx);
  return im.setResult(n, y, l);
}

Status opSigmoid(Importer& im, const NodeProto& n) {
  return floatUnary(im, n, [&](Value* x) { return im.unary("tosa.sigmoid", x); });
}

Status opTanh(Importer& im, const NodeProto& n) {
  return floatUnary(im, n, [&](Value* x) { return im.unary("tosa.tanh", x); });
}

Status opHardSigmoid(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 0.2f), beta = im.attrFloat(n, "beta", 0.5f);
  return floatUnary(im, n, [&](Value* x) {
    Value* y = add(im, im.mul(x, sc(im, x, alpha)), sc(im, x, beta));
    return clampT(im, y, 0.0, 1.0);
  });
}

Status opHardSwish(Importer& im, const NodeProto& n) {
  return floatUnary(im, n, [&](Value* x) {
    // x * max(0, min(1, x/6 + 1/2)) (HardSigmoid with alpha = 1/6, beta = 0.5).
    Value* y = add(im, im.mul(x, sc(im, x, 1.0 / 6.0)), sc(im, x, 0.5));
    return im.mul(x, clampT(im, y, 0.0, 1.0));
  });
}

// Elu: x > 0 ? x : alpha * (exp(x) - 1).
Status opElu(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 1.0f);
  return floatUnary(im, n, [&](Value* x) {
    Value* neg = im.mul(sub(im, exp(im, x), sc(im, x, 1.0)), sc(im, x, alpha));
    return sel(im, cmp(im, "tosa.greater", x, sc(im, x, 0.0)), x, neg);
  });
}

// Selu: gamma * (x > 0 ? x : alpha * exp(x) - alpha).
Status opSelu(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 1.67326319217681884765625f);
  const float gamma = im.attrFloat(n, "gamma", 1.05070102214813232421875f);
  return floatUnary(im, n, [&](Value* x) {
    Value* neg = sub(im, im.mul(exp(im, x), sc(im, x, alpha)), sc(im, x, alpha));
    Value* y = sel(im, cmp(im, "tosa.greater", x, sc(im, x, 0.0)), x, neg);
    return im.mul(y, sc(im, x, gamma));
  });
}

// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Status opCelu(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 1.0f);
  if (alpha == 0.0f) return Status::invalid("Celu alpha must not be 0");
  return floatUnary(im, n, [&](Value* x) {
    const double big = floatMax(x->type.dtype);
    Value* e = exp(im, im.mul(x, sc(im, x, 1.0 / double(alpha))));
    Value* neg = clampT(im, im.mul(sub(im, e, sc(im, x, 1.0)), sc(im, x, alpha)), -big, 0.0);
    return add(im, clampT(im, x, 0.0, big), neg);
  });
}

Status opSoftplus(Importer& im, const NodeProto& n) {
  return floatUnary(im, n, [&](Value* x) { return softplus(im, x); });
}

// Softsign: x / (1 + |x|).
Status opSoftsign(Importer& im, const NodeProto& n) {
  return floatUnary(im, n, [&](Value* x) {
    Value* d = add(im, im.unary("tosa.abs", x), sc(im, x, 1.0));
    return im.mul(x, im.unary("tosa.reciprocal", d));
  });
}

// Mish (opset 18): x * tanh(softplus(x)).
Status opMish(Importer& im, const NodeProto& n) {
  return floatUnary(im, n, [&](Value* x) { return im.mul(x, im.unary("tosa.tanh", softplus(im, x))); });
}

// Gelu (opset 20): approximate="none": x/2 * (1 + erf(x/sqrt(2)));
// "tanh": x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
Status opGelu(Importer& im, const NodeProto& n) {
  const std::string approx = im.attrStr(n, "approximate", "none");
  if (approx != "none" && approx != "tanh") return Status::invalid("Gelu approximate must be none or tanh");
  return floatUnary(im, n, [&](Value* x) {
    Value* inner;
    if (approx == "none") {
      inner = im.unary("tosa.erf", im.mul(x, sc(im, x, M_SQRT1_2)));
    } else {
      Value* x3 = im.mul(im.mul(x, x), x);
      Value* u = add(im, x, im.mul(x3, sc(im, x, 0.044715)));
      inner = im.unary("tosa.tanh", im.mul(u, sc(im, x, std::sqrt(2.0 / M_PI))));
    }
    Value* halfX = im.mul(x, sc(im, x, 0.5));
    return im.mul(halfX, add(im, inner, sc(im, x, 1.0)));
  });
}

// ThresholdedRelu: x > alpha ? x : 0.
Status opThresholdedRelu(Importer& im, const NodeProto& n) {
  const float alpha = im.attrFloat(n, "alpha", 1.0f);
  return floatUnary(im, n,
                    [&](Value* x) { return sel(im, cmp(im, "tosa.greater", x, sc(im, x, alpha)), x, sc(im, x, 0.0)); });
}

// Shrink: x < -lambd ? x + bias : x > lambd ? x - bias : 0.
Status opShrink(Importer& im, const NodeProto& n) {
  const float lambd = im.attrFloat(n, "lambd", 0.5f), bias = im.attrFloat(n, "bias", 0.0f);
  return floatUnary(im, n, [&](Value* x) {
    Value* zero = sc(im, x, 0.0);
    Value* hiPart = sel(im, cmp(im, "tosa.greater", x, sc(im, x, lambd)), sub(im, x, sc(im, x, bias)), zero);
    return sel(im, cmp(im, "tosa.greater", sc(im, x, -double(lambd)), x), add(im, x, sc(im, x, bias)), hiPart);
  });
}

// ---- softmax family ----

// The input of Softmax/LogSoftmax/Hardmax viewed so that the operation runs along one TOSA axis: before
// opset 13 the input is coerced to 2-D at `axis` ([prod(d<axis), prod(d>=axis)], axis 1).
struct AxisView {
  Value* v = nullptr;
  int64_t axis = 0;
  Layout layout = Layout::Plain;
};

Result<AxisView> axisView(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const int64_t r = int64_t(x.shape.size());
  if (r == 0) return Status::invalid(n.op_type() + " of a scalar");
  int64_t axis = normAxis(im.attrInt(n, "axis", im.opset < 13 ? 1 : -1), r);
  if (axis < 0 || axis >= r) return Status::invalid(n.op_type() + " axis out of range");
  AxisView av;
  av.layout = im.opset >= 13 && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, av.layout);
  if (!xv) return xv.status();
  av.v = *xv;
  av.axis = av.layout == Layout::Nhwc ? kNhwcPos[axis] : axis;
  if (im.opset < 13 && axis != r - 1) {
    int64_t a = 1, c = 1;
    for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= x.shape[size_t(i)];
    av.v = im.b.reshape(av.v, {a, c}, im.aux("reshape"));
    av.axis = 1;
  }
  return av;
}

Value* reduceAlong(Importer& im, const std::string& op, Value* in, int64_t axis) {
  Shape s = in->type.dims;
  s[size_t(axis)] = 1;
  return im.b.op1(op, {in}, ValueType::tensor(in->type.dtype, s), {{"axis", ir::Attribute::integer(axis, DType::I32)}},
                  im.aux(op.substr(5)));
}

// Sets the result, reshaped back to the input's shape when it was coerced to 2-D.
void finishAxisOp(Importer& im, const NodeProto& n, const AxisView& av, Value* y) {
  const OVal& x = im.val(n, 0);
  if (av.layout == Layout::Plain && y->type.dims != x.shape) y = im.b.reshape(y, x.shape, im.aux("reshape"));
  y->definingOp->loc.name = im.loc;
  im.setValue(n, 0, y, av.layout);
}

Status opSoftmax(Importer& im, const NodeProto& n) {
  auto av = axisView(im, n);
  if (!av) return av.status();
  Value* v = av->v;
  // exp(x - max) / sum(exp(x - max)): subtracting the max keeps exp finite.
  Value* shifted = sub(im, v, reduceAlong(im, "tosa.reduce_max", v, av->axis));
  Value* e = exp(im, shifted);
  Value* inv = im.unary("tosa.reciprocal", reduceAlong(im, "tosa.reduce_sum", e, av->axis));
  finishAxisOp(im, n, *av, im.mul(e, inv));
  return Status::ok();
}

Status opLogSoftmax(Importer& im, const NodeProto& n) {
  auto av = axisView(im, n);
  if (!av) return av.status();
  Value* v = av->v;
  // (x - max) - log(sum(exp(x - max))).
  Value* shifted = sub(im, v, reduceAlong(im, "tosa.reduce_max", v, av->axis));
  Value* lse = im.unary("tosa.log", reduceAlong(im, "tosa.reduce_sum", exp(im, shifted), av->axis));
  finishAxisOp(im, n, *av, sub(im, shifted, lse));
  return Status::ok();
}

// Hardmax: 1 at the first maximum along the axis (ARGMAX also picks the first), 0 elsewhere:
// select(iota == argmax, 1, 0).
Status opHardmax(Importer& im, const NodeProto& n) {
  auto av = axisView(im, n);
  if (!av) return av.status();
  Value* v = av->v;
  const Shape& s = v->type.dims;
  const size_t ax = size_t(av->axis);
  Shape flat = s, kept = s;
  flat.erase(flat.begin() + av->axis);
  kept[ax] = 1;
  Value* idx = im.b.op1("tosa.argmax", {v}, ValueType::tensor(DType::I32, flat),
                        {{"axis", ir::Attribute::integer(av->axis, DType::I32)}}, im.aux("argmax"));
  idx = im.b.reshape(idx, kept, im.aux("reshape"));
  Shape iotaShape(s.size(), 1);
  iotaShape[ax] = s[ax];
  Tensor iota(DType::I32, iotaShape);
  for (int64_t i = 0; i < s[ax]; ++i) iota.setInt(i, i);
  Value* eq = cmp(im, "tosa.equal", im.constF(std::move(iota)), idx);
  finishAxisOp(im, n, *av, sel(im, eq, sc(im, v, 1.0), sc(im, v, 0.0)));
  return Status::ok();
}

}  // namespace

void registerActivationOps(HandlerTable& t) {
  t["Relu"] = opRelu;
  t["Clip"] = opClip;
  t["LeakyRelu"] = opLeakyRelu;
  t["PRelu"] = opPRelu;
  t["Sigmoid"] = opSigmoid;
  t["Tanh"] = opTanh;
  t["HardSigmoid"] = opHardSigmoid;
  t["HardSwish"] = opHardSwish;
  t["Elu"] = opElu;
  t["Selu"] = opSelu;
  t["Celu"] = opCelu;
  t["Softplus"] = opSoftplus;
  t["Softsign"] = opSoftsign;
  t["Mish"] = opMish;
  t["Gelu"] = opGelu;
  t["ThresholdedRelu"] = opThresholdedRelu;
  t["Shrink"] = opShrink;
  t["Softmax"] = opSoftmax;
  t["LogSoftmax"] = opLogSoftmax;
  t["Hardmax"] = opHardmax;
}

}  // namespace tosakit::onnx
