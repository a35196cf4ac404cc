// Elementwise arithmetic (Add, Sub, Mul, Div, Pow, Sqrt, ...) with numpy broadcasting; constant operands fold.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ---- elementwise ----

Status binaryOp(Importer& im, const NodeProto& n, char op) {
  OVal &a = im.val(n, 0), &c = im.val(n, 1);
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape)
    return Status::invalid("operands " + shapeToString(a.shape) + " and " + shapeToString(c.shape) + " do not broadcast");
  if (a.isConst() && c.isConst()) {
    if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
    im.setConst(n, 0, foldBinary(*a.c, *c.c, *outShape, op));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(im.requireFloat(n, a));
  TK_RETURN_IF_ERROR(im.requireFloat(n, c));
  const size_t rank = outShape->size();
  Layout l = rank == 4 && (a.prefersNhwc() || c.prefersNhwc()) ? Layout::Nhwc : Layout::Plain;
  auto va = im.getAsRank(a, rank, l);
  if (!va) return va.status();
  Value* vc = nullptr;
  if (op == '/' && c.isConst()) {
    // Division by a constant: multiply by its reciprocal, computed here.
    OVal rc;
    rc.shape = c.shape;
    rc.dtype = c.dtype;
    Tensor inv(c.dtype, c.shape);
    for (int64_t i = 0; i < inv.size(); ++i) inv.setFloat(i, 1.0 / c.c->getFloat(i));
    rc.c = std::make_shared<const Tensor>(std::move(inv));
    auto r = im.getAsRank(rc, rank, l);
    if (!r) return r.status();
    vc = *r;
  } else {
    auto r = im.getAsRank(c, rank, l);
    if (!r) return r.status();
    vc = *r;
    if (op == '/') vc = im.unary("tosa.reciprocal", vc);
  }
  Value* out = nullptr;
  switch (op) {
    case '+': out = im.b.add(*va, vc, im.loc); break;
    case '-': out = im.b.sub(*va, vc, im.loc); break;
    default: out = im.b.mul(*va, vc, 0, im.loc); break;
  }
  im.setValue(n, 0, out, l);
  return Status::ok();
}

Status opPow(Importer& im, const NodeProto& n) {
  OVal &x = im.val(n, 0), &e = im.val(n, 1);
  if (e.isConst() && e.c->size() == 1 && x.shape.size() >= e.shape.size()) {
    // Common constant exponents lower to cheaper, exact ops (LayerNorm exports use x ** 2).
    const double p = e.c->getFloat(0);
    if (p == 1.0) return im.unaryKeepLayout(n, [&](Value* v) { return im.b.op1("tosa.identity", {v}, v->type); });
    if (p == 2.0) return im.unaryKeepLayout(n, [&](Value* v) { return im.mul(v, v); });
  }
  if (x.isConst() && e.isConst()) return Status::unsupported("Pow of two constants");
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  TK_RETURN_IF_ERROR(im.requireFloat(n, e));
  auto outShape = numpyBroadcast(x.shape, e.shape);
  if (!outShape) return Status::invalid("Pow operands do not broadcast");
  const size_t rank = outShape->size();
  Layout l = rank == 4 && (x.prefersNhwc() || e.prefersNhwc()) ? Layout::Nhwc : Layout::Plain;
  auto xv = im.getAsRank(x, rank, l);
  if (!xv) return xv.status();
  auto ev = im.getAsRank(e, rank, l);
  if (!ev) return ev.status();
  Value* out = im.binary("tosa.pow", *xv, *ev);
  out->definingOp->loc.name = im.loc;
  im.setValue(n, 0, out, l);
  return Status::ok();
}

Status opSqrt(Importer& im, const NodeProto& n) {
  // TOSA has no sqrt: x ** 0.5 (tosa.pow, defined for x >= 0 as sqrt is).
  return im.unaryKeepLayout(n, [&](Value* v) {
    return im.binary("tosa.pow", v, im.scalarF(0.5f, v->type.dims.size()));
  });
}

Status opCast(Importer& im, const NodeProto& n) {
  auto to = dtypeFromOnnx(int32_t(im.attrInt(n, "to", 0)), "Cast 'to'");
  if (!to) return to.status();
  OVal& x = im.val(n, 0);
  if (x.isConst()) {
    im.setConst(n, 0, castTensor(*x.c, *to));
    return Status::ok();
  }
  if (*to != x.dtype) return Status::unsupported("run-time Cast to " + std::string(dtypeName(*to)));
  im.vals[n.output(0)] = x;
  return Status::ok();
}

}  // namespace

void registerElementwiseOps(HandlerTable& t) {
  t["Add"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '+'); };
  t["Sub"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '-'); };
  t["Mul"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '*'); };
  t["Div"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '/'); };
  t["Pow"] = opPow;
  t["Cast"] = opCast;
  t["Sqrt"] = opSqrt;
}

}  // namespace tosakit::onnx
