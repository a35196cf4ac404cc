// LayerNormalization, InstanceNormalization, GroupNormalization, MeanVarianceNormalization, LpNormalization, LRN.
// Means and variances are REDUCE_SUM along each reduced axis (kept as size 1) times 1/count; 1/sqrt is RSQRT.
// The input is reshaped so that the reduced dims are one axis where that is possible (Layer/Instance/Group
// norm), which keeps the graphs small. BatchNormalization lives in ops_conv.cpp (it folds into convs).
#include <cmath>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

Value* sc(Importer& im, Value* x, double v) { return im.scalarOf(x->type.dtype, v, x->type.dims.size()); }

Value* reduceSum(Importer& im, Value* in, int64_t axis) {
  Shape s = in->type.dims;
  s[size_t(axis)] = 1;
  return im.b.op1("tosa.reduce_sum", {in}, ValueType::tensor(in->type.dtype, s),
                  {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.aux("reduce_sum"));
}

// Mean over `axes` (kept as size-1 dims).
Value* meanOver(Importer& im, Value* in, const std::vector<int64_t>& axes) {
  double count = 1;
  Value* s = in;
  for (int64_t a : axes) {
    count *= double(in->type.dims[size_t(a)]);
    s = reduceSum(im, s, a);
  }
  return im.mul(s, sc(im, s, 1.0 / count));
}

struct Moments {
  Value* centered;  // x - mean
  Value* mean;
  Value* invStd;  // 1 / sqrt(var + eps)
};

// Population mean and variance over `axes`; variance as the mean of squared deviations (two passes: no
// cancellation as in E[x^2] - E[x]^2).
Moments moments(Importer& im, Value* x, const std::vector<int64_t>& axes, double eps) {
  Moments m;
  m.mean = meanOver(im, x, axes);
  m.centered = im.b.sub(x, m.mean, im.aux("sub"));
  Value* var = meanOver(im, im.mul(m.centered, m.centered), axes);
  m.invStd = im.unary("tosa.rsqrt", im.b.add(var, sc(im, var, eps), im.aux("add")));
  return m;
}

// Optional per-channel parameter (scale or bias) as a tensor of shape `shape`.
Result<Value*> paramAs(Importer& im, const NodeProto& n, int i, const Shape& shape, DType t, const char* what) {
  OVal& p = im.val(n, i);
  int64_t want = 1;
  for (int64_t d : shape) want *= d;
  int64_t have = 1;
  for (int64_t d : p.shape) have *= d;
  if (have != want)
    return Status::invalid(std::string(what) + " has shape " + shapeToString(p.shape) + ", want " +
                           std::to_string(want) + " elements");
  if (p.dtype != t) return Status::invalid(std::string(what) + " type differs from X");
  auto v = im.get(p, Layout::Plain);
  if (!v) return v.status();
  return im.reshapeTo(*v, shape, im.aux("reshape"));
}

// LayerNormalization (opset 17): normalize over dims [axis, rank); outputs Y, Mean, InvStdDev. With
// stash_type float (the default) a float16 input is normalized in float32 and cast back before scale/bias.
Status opLayerNormalization(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const int64_t r = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", -1), r);
  if (axis < 0 || axis >= r) return Status::invalid("LayerNormalization axis out of range");
  const double eps = im.attrFloat(n, "epsilon", 1e-5f);
  const int64_t stash = im.attrInt(n, "stash_type", 1);
  if (stash != 1) return Status::unsupported("stash_type " + std::to_string(stash) + " (only float is supported)");
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? outer : inner) *= x.shape[size_t(i)];
  Value* v = im.castTo(im.reshapeTo(*xv, {outer, inner}, im.aux("reshape")), DType::FP32);
  Moments m = moments(im, v, {1}, eps);
  Value* y = im.castTo(im.mul(m.centered, m.invStd), x.dtype);
  y = im.reshapeTo(y, x.shape, im.aux("reshape"));
  Shape normShape(x.shape.begin() + axis, x.shape.end());
  auto scale = paramAs(im, n, 1, withRank(normShape, size_t(r)), x.dtype, "Scale");
  if (!scale) return scale.status();
  y = im.mul(y, *scale);
  if (im.hasInput(n, 2)) {
    auto bias = paramAs(im, n, 2, withRank(normShape, size_t(r)), x.dtype, "B");
    if (!bias) return bias.status();
    y = im.b.add(y, *bias, im.aux("add"));
  }
  y->definingOp->loc.name = im.loc;
  im.setValue(n, 0, y, Layout::Plain);
  Shape statShape = x.shape;
  for (int64_t i = axis; i < r; ++i) statShape[size_t(i)] = 1;
  if (im.hasOutput(n, 1)) im.setValue(n, 1, im.b.reshape(m.mean, statShape, im.loc + "/mean"), Layout::Plain);
  if (im.hasOutput(n, 2)) im.setValue(n, 2, im.b.reshape(m.invStd, statShape, im.loc + "/inv_std_dev"), Layout::Plain);
  return Status::ok();
}

// InstanceNormalization: X (N, C, D1...): y = scale[c] * (x - mean) / sqrt(var + eps) + B[c], mean/var over D*.
// An NHWC input stays NHWC: viewed as [N, H*W, C], reduced over axis 1.
Status opInstanceNormalization(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const size_t r = x.shape.size();
  if (r < 3) return Status::invalid("InstanceNormalization input must have rank >= 3");
  if (!im.hasInput(n, 1) || !im.hasInput(n, 2)) return Status::invalid("InstanceNormalization needs scale and B");
  const double eps = im.attrFloat(n, "epsilon", 1e-5f);
  const Layout l = r == 4 && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  const int64_t N = x.shape[0], C = x.shape[1];
  int64_t S = 1;
  for (size_t i = 2; i < r; ++i) S *= x.shape[i];
  const bool last = l == Layout::Nhwc;
  const Shape view = last ? Shape{N, S, C} : Shape{N, C, S};
  const Shape pshape = last ? Shape{1, 1, C} : Shape{1, C, 1};
  const int64_t redAxis = last ? 1 : 2;
  Value* v = im.reshapeTo(*xv, view, im.aux("reshape"));
  Moments m = moments(im, v, {redAxis}, eps);
  auto scale = paramAs(im, n, 1, pshape, x.dtype, "scale");
  if (!scale) return scale.status();
  auto bias = paramAs(im, n, 2, pshape, x.dtype, "B");
  if (!bias) return bias.status();
  Value* y = im.b.add(im.mul(im.mul(m.centered, m.invStd), *scale), *bias, im.aux("add"));
  y = im.reshapeTo(y, (*xv)->type.dims, im.aux("reshape"));
  return im.setResult(n, y, l);
}

// GroupNormalization (opset 18: scale/bias per group; opset 21: per channel): X (N, C, D...) viewed as
// [N, G, C/G * D], normalized over the last axis.
Status opGroupNormalization(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const size_t r = x.shape.size();
  if (r < 2) return Status::invalid("GroupNormalization input must have rank >= 2");
  if (!im.hasInput(n, 1) || !im.hasInput(n, 2)) return Status::invalid("GroupNormalization needs scale and bias");
  const int64_t G = im.attrInt(n, "num_groups", 0);
  const int64_t N = x.shape[0], C = x.shape[1];
  if (G <= 0 || C % G != 0) return Status::invalid("GroupNormalization num_groups must divide the channels");
  const double eps = im.attrFloat(n, "epsilon", 1e-5f);
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  int64_t S = 1;
  for (size_t i = 2; i < r; ++i) S *= x.shape[i];
  Value* v = im.reshapeTo(*xv, {N, G, C / G * S}, im.aux("reshape"));
  Moments m = moments(im, v, {2}, eps);
  Value* y = im.mul(m.centered, m.invStd);
  int64_t params = 1;
  for (int64_t d : im.val(n, 1).shape) params *= d;
  // Per-group parameters apply on the [N, G, rest] view, per-channel ones on [N, C, S].
  if (params != G || G == C) y = im.reshapeTo(y, {N, C, S}, im.aux("reshape"));
  const Shape pshape = params != G || G == C ? Shape{1, C, 1} : Shape{1, G, 1};
  auto scale = paramAs(im, n, 1, pshape, x.dtype, "scale");
  if (!scale) return scale.status();
  auto bias = paramAs(im, n, 2, pshape, x.dtype, "bias");
  if (!bias) return bias.status();
  y = im.b.add(im.mul(y, *scale), *bias, im.aux("add"));
  y = im.reshapeTo(y, x.shape, im.aux("reshape"));
  return im.setResult(n, y, Layout::Plain);
}

// Logical axes -> TOSA axes of a value stored in `l`.
std::vector<int64_t> storedAxes(const std::vector<int64_t>& axes, Layout l) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(l == Layout::Nhwc ? kNhwcPos[a] : a);
  return out;
}

// MeanVarianceNormalization: (x - mean) / (sqrt(var) + 1e-9) over `axes` (default [0, 2, 3]), as ONNX's
// function body defines it. sqrt(v) = 1 / rsqrt(v) (exact 0 for v = 0).
Status opMeanVarianceNormalization(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const int64_t r = int64_t(x.shape.size());
  std::vector<int64_t> axes = im.attrInts(n, "axes").value_or(std::vector<int64_t>{0, 2, 3});
  std::vector<bool> seen(size_t(r), false);
  for (int64_t& a : axes) {
    a = normAxis(a, r);
    if (a < 0 || a >= r || seen[size_t(a)]) return Status::invalid("MeanVarianceNormalization axes out of range");
    seen[size_t(a)] = true;
  }
  const Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  const std::vector<int64_t> ax = storedAxes(axes, l);
  Value* mean = meanOver(im, *xv, ax);
  Value* centered = im.b.sub(*xv, mean, im.aux("sub"));
  Value* var = meanOver(im, im.mul(centered, centered), ax);
  Value* sd = im.unary("tosa.reciprocal", im.unary("tosa.rsqrt", var));
  Value* den = im.unary("tosa.reciprocal", im.b.add(sd, sc(im, sd, 1e-9), im.aux("add")));
  Value* y = im.mul(centered, den);
  return im.setResult(n, y, l);
}

// LpNormalization: x / ||x||_p along axis (p = 1 or 2).
Status opLpNormalization(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const int64_t r = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", -1), r);
  if (axis < 0 || axis >= r) return Status::invalid("LpNormalization axis out of range");
  const int64_t p = im.attrInt(n, "p", 2);
  if (p != 1 && p != 2) return Status::invalid("LpNormalization p must be 1 or 2");
  const Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  const int64_t a = storedAxes({axis}, l)[0];
  Value* v = *xv;
  Value* inv = p == 2 ? im.unary("tosa.rsqrt", reduceSum(im, im.mul(v, v), a))
                      : im.unary("tosa.reciprocal", reduceSum(im, im.unary("tosa.abs", v), a));
  Value* y = im.mul(v, inv);
  return im.setResult(n, y, l);
}

// LRN: y = x / (bias + alpha / size * square_sum)^beta, square_sum over the channel window
// [c - floor((size-1)/2), c + ceil((size-1)/2)]. The window sum is a matmul of x^2 (channels last, [1, M, C])
// with a constant 0/1 band matrix [1, C, C].
Status opLRN(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireFloatLike(x));
  const size_t r = x.shape.size();
  if (r < 2) return Status::invalid("LRN input must have rank >= 2");
  const int64_t size = im.attrInt(n, "size", 0);
  if (size <= 0) return Status::invalid("LRN size must be positive");
  const double alpha = im.attrFloat(n, "alpha", 1e-4f), beta = im.attrFloat(n, "beta", 0.75f);
  const double bias = im.attrFloat(n, "bias", 1.0f);
  const Layout l = r == 4 ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  Value* v = *xv;
  std::vector<int64_t> perm, back;  // plain layout: move the channel axis last and back
  if (l == Layout::Plain && r > 2) {
    perm.push_back(0);
    for (size_t i = 2; i < r; ++i) perm.push_back(int64_t(i));
    perm.push_back(1);
    back.assign(r, 0);
    for (size_t i = 0; i < r; ++i) back[size_t(perm[i])] = int64_t(i);
    v = im.b.transpose(v, perm, im.aux("transpose"));
  }
  const int64_t C = x.shape[1];
  const Shape cl = v->type.dims;
  int64_t M = 1;
  for (int64_t d : x.shape) M *= d;
  M /= C;
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
  Tensor band(v->type.dtype, {1, C, C});
  for (int64_t src = 0; src < C; ++src)
    for (int64_t dst = 0; dst < C; ++dst) band.setFloat(src * C + dst, src >= dst - lo && src <= dst + hi ? 1.0 : 0.0);
  Value* sq = im.reshapeTo(im.mul(v, v), {1, M, C}, im.aux("reshape"));
  Value* sum = im.reshapeTo(im.matmul3(sq, im.constF(std::move(band))), cl, im.aux("reshape"));
  Value* base = im.b.add(im.mul(sum, sc(im, sum, alpha / double(size))), sc(im, sum, bias), im.aux("add"));
  Value* y = im.mul(v, im.b.op1("tosa.pow", {base, sc(im, base, -beta)}, base->type, {}, im.aux("pow")));
  if (!back.empty()) y = im.b.transpose(y, back, im.aux("transpose"));
  return im.setResult(n, y, l);
}

}  // namespace

void registerNormalizationOps(HandlerTable& t) {
  t["LayerNormalization"] = opLayerNormalization;
  t["InstanceNormalization"] = opInstanceNormalization;
  t["GroupNormalization"] = opGroupNormalization;
  t["MeanVarianceNormalization"] = opMeanVarianceNormalization;
  t["LpNormalization"] = opLpNormalization;
  t["LRN"] = opLRN;
}

}  // namespace tosakit::onnx
