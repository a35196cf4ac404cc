// Elementwise operators: arithmetic (Add, Sub, Mul, Div, Mod, Pow, Min, Max, Sum, Mean), comparison, logical,
// bitwise, math functions (Abs ... Atanh, Erf, Round, Sign), IsNaN/IsInf, Where, Cast and CastLike.
//
// Numpy broadcasting: operands are reshaped to the result rank (leading 1s) and TOSA broadcasts size-1 dims.
// Layout: elementwise ops are layout-agnostic, so a rank-4 node with an NHWC-preferring operand works in NHWC.
// Constants: nodes whose inputs are all constants fold at import (shape arithmetic in exported models).
//
// Integer types: TOSA's integer arithmetic (ADD, SUB, MUL, INTDIV, MAXIMUM, ...) is i32 only. int8/int16 are
// widened with CAST and the result narrowed back with CAST, which keeps the low bits: the wrap-around numpy
// gives. uint8 (carried as i8 bits) is widened by CAST + BITWISE_AND 0xff (zero extension) and narrowed the
// same way. int64 is carried as i32 (importer convention). float64 and the wider unsigned types have no TOSA
// equivalent; the importer rejects such tensors.
//
// Math functions TOSA lacks are composed: sqrt = 1/rsqrt (exact at 0 and inf), tan = sin/cos, the hyperbolic
// functions from exp/log, asin/acos/atan from the Cephes single-precision algorithms (range reduction + a
// minimax polynomial, relative error ~1e-7), Round (half to even) from floor and selects.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- types ----

bool isIntType(DType t) {
  return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I64 || t == DType::U8;
}

// The TOSA type a node of ONNX element type t computes in: floats as they are, integers in i32, bool as bool.
Result<DType> computeType(DType t) {
  if (t == DType::FP32 || t == DType::FP16 || t == DType::BF16 || t == DType::Bool) return t;
  if (isIntType(t)) return DType::I32;
  return Status::unsupported("element type " + std::string(dtypeName(t)) + " has no TOSA 1.0 equivalent");
}

Status requireKind(DType t, bool floats, bool ints, bool bools, const char* op) {
  if ((floats && isFloat(t)) || (ints && isIntType(t)) || (bools && t == DType::Bool)) return computeType(t).status();
  return Status::unsupported(std::string(op) + " of element type " + std::string(dtypeName(t)));
}

// The importer checks one required input for operators it does not list; these need more.
Status needInputs(const NodeProto& n, int k) {
  if (n.input_size() < k) return Status::invalid("needs " + std::to_string(k) + " inputs");
  for (int i = 0; i < k; ++i)
    if (n.input(i).empty()) return Status::invalid("required input " + std::to_string(i) + " is missing");
  return Status::ok();
}

// ---- constant folding ----

// Calls f(o, offsets) for each output element o; offsets[k] is the broadcast element of input k.
void forEachBroadcast(const std::vector<const Tensor*>& in, const Shape& outShape,
                      const std::function<void(int64_t, const std::vector<int64_t>&)>& f) {
  const size_t rank = outShape.size();
  std::vector<Shape> shapes;
  for (const Tensor* t : in) shapes.push_back(withRank(t->shape(), rank));
  int64_t count = 1;
  for (int64_t d : outShape) count *= d;
  std::vector<int64_t> idx(rank, 0), offs(in.size());
  for (int64_t o = 0; o < count; ++o) {
    for (size_t k = 0; k < in.size(); ++k) {
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off = off * shapes[k][d] + (shapes[k][d] == 1 ? 0 : idx[d]);
      offs[k] = off;
    }
    f(o, offs);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < outShape[d]) break;
      idx[d] = 0;
    }
  }
}

std::vector<const Tensor*> constsOf(Importer& im, const NodeProto& n) {
  std::vector<const Tensor*> out;
  for (int i = 0; i < n.input_size(); ++i) {
    if (n.input(i).empty()) continue;
    OVal& v = im.val(n, i);
    if (!v.isConst()) return {};
    out.push_back(v.c.get());
  }
  return out;
}

// Wrapping int64 arithmetic (numpy's int64 wraps; signed overflow is undefined in C++).
int64_t wrapAdd(int64_t a, int64_t b) { return int64_t(uint64_t(a) + uint64_t(b)); }
int64_t wrapSub(int64_t a, int64_t b) { return int64_t(uint64_t(a) - uint64_t(b)); }
int64_t wrapMul(int64_t a, int64_t b) { return int64_t(uint64_t(a) * uint64_t(b)); }

// Round half to even, as numpy.round and ONNX Round.
double roundHalfEven(double v) { return std::nearbyint(v); }  // default rounding mode: to nearest, ties to even

// float32 -> bfloat16 as ONNX 1.12's reference (and its node test data) does it: the low 16 bits are dropped
// (round toward zero); NaN stays a quiet NaN.
double truncToBf16(double v) {
  if (std::isnan(v)) return v;
  float f = float(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u &= 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

// ---- run-time values ----

struct Operands {
  std::vector<Value*> v;
  Layout layout = Layout::Plain;
  Shape shape;  // logical broadcast shape
};

// Converts a run-time value of ONNX type `from` (TOSA value x) to the compute type `to` (a widening or a
// float conversion; float -> int conversions with ONNX's truncation are Cast's business).
Value* convertValue(Importer& im, Value* x, DType from, DType to) {
  if (x->type.dtype == to && !isUnsignedBits(from)) return x;
  if (isUnsignedBits(from)) {
    // uint8 bits -> zero-extended i32 (then on to the target type).
    Value* w = im.castTo(x, DType::I32);
    w = im.binary("tosa.bitwise_and", w, im.scalarOf(DType::I32, 255, w->type.dims.size()), DType::I32);
    return to == DType::I32 ? w : im.castTo(w, to);
  }
  const DType t = x->type.dtype;
  if (t == DType::Bool && isFloat(to)) return im.castTo(im.castTo(x, DType::I32), to);  // no bool -> float CAST
  if (isFloat(t) && isFloat(to) && t != DType::FP32 && to != DType::FP32)
    return im.castTo(im.castTo(x, DType::FP32), to);  // fp16 <-> bf16 goes through fp32
  return im.castTo(x, to);
}

// The constant `t` (ONNX type) converted to the compute type `to`; int64 values must fit in i32.
Result<Tensor> convertConst(const Tensor& t, DType to) {
  Tensor out(to, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) {
    if (isFloat(to)) {
      out.setFloat(i, isFloat(t.dtype()) ? t.getFloat(i) : double(t.getInt(i)));
      continue;
    }
    int64_t v = isFloat(t.dtype()) ? int64_t(t.getFloat(i)) : t.getInt(i);
    if (to == DType::I32 && (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()))
      return Status::unsupported("constant value " + std::to_string(v) + " does not fit in TOSA's 32-bit integers");
    out.setInt(i, v);
  }
  return out;
}

// Operand v broadcast-ranked to `rank` in layout l, converted to the compute type ct.
Result<Value*> operand(Importer& im, OVal& v, size_t rank, Layout l, DType ct) {
  if (v.isConst()) {
    auto rt = runtimeDType(v.dtype);
    if (!rt)
      return Status::unsupported("element type " + std::string(dtypeName(v.dtype)) + " has no TOSA 1.0 equivalent");
    if (*rt == ct && !isUnsignedBits(v.dtype)) return im.getAsRank(v, rank, l);
    auto t = convertConst(*v.c, ct);
    if (!t) return t.status();
    OVal tmp;
    tmp.shape = v.shape;
    tmp.dtype = ct;
    tmp.c = std::make_shared<const Tensor>(std::move(*t));
    return im.getAsRank(tmp, rank, l);
  }
  TK_RETURN_IF_ERROR(im.rtType(v).status());
  auto x = im.getAsRank(v, rank, l);
  if (!x) return x;
  return convertValue(im, *x, v.dtype, ct);
}

// Inputs `idx` of n broadcast to a common rank, each converted to cts[k]; NHWC when a rank-4 operand prefers it.
Result<Operands> prepare(Importer& im, const NodeProto& n, const std::vector<int>& idx, const std::vector<DType>& cts) {
  Operands p;
  bool nhwc = false;
  for (size_t k = 0; k < idx.size(); ++k) {
    OVal& v = im.val(n, idx[k]);
    if (k == 0) {
      p.shape = v.shape;
    } else {
      auto s = numpyBroadcast(p.shape, v.shape);
      if (!s)
        return Status::invalid("operands " + shapeToString(p.shape) + " and " + shapeToString(v.shape) +
                               " do not broadcast");
      p.shape = *s;
    }
    nhwc |= v.prefersNhwc();
  }
  const size_t rank = p.shape.size();
  p.layout = rank == 4 && nhwc ? Layout::Nhwc : Layout::Plain;
  for (size_t k = 0; k < idx.size(); ++k) {
    auto v = operand(im, im.val(n, idx[k]), rank, p.layout, cts[k]);
    if (!v) return v.status();
    p.v.push_back(*v);
  }
  return p;
}

// An i32 result narrowed back to the node's integer type (CAST keeps the low bits: numpy's wrap-around).
Value* narrowTo(Importer& im, Value* v, DType onnxType) {
  if (v->type.dtype != DType::I32) return v;
  if (onnxType == DType::I8 || onnxType == DType::U8) return im.castTo(v, DType::I8);
  if (onnxType == DType::I16) return im.castTo(v, DType::I16);
  return v;
}

// Defines output 0: the op yielding it carries the node name.
Status finish(Importer& im, const NodeProto& n, Value* out, Layout l, DType onnxType) {
  out->definingOp->loc.name = im.loc;
  im.setValue(n, 0, out, l, onnxType);
  return Status::ok();
}

// ---- op emission helpers (operands of equal rank) ----

struct Emit {
  Importer& im;
  DType t;  // float type of the computation
  size_t rank;
  Value* c(double v) { return im.scalarOf(t, v, rank); }
  Value* add(Value* a, Value* b) { return im.b.add(a, b, im.aux("add")); }
  Value* sub(Value* a, Value* b) { return im.b.sub(a, b, im.aux("sub")); }
  Value* mul(Value* a, Value* b) { return im.mul(a, b); }
  Value* un(const char* op, Value* x) { return im.unary(op, x); }
  Value* neg(Value* x) {
    return im.b.op1("tosa.negate", {x, im.b.scalar1(x->type.dtype, 0), im.b.scalar1(x->type.dtype, 0)}, x->type, {},
                    im.aux("negate"));
  }
  Value* recip(Value* x) { return un("tosa.reciprocal", x); }
  Value* div(Value* a, Value* b) { return mul(a, recip(b)); }
  Value* gt(Value* a, Value* b) { return im.binary("tosa.greater", a, b, DType::Bool); }
  Value* ge(Value* a, Value* b) { return im.binary("tosa.greater_equal", a, b, DType::Bool); }
  Value* eq(Value* a, Value* b) { return im.binary("tosa.equal", a, b, DType::Bool); }
  Value* lnot(Value* a) { return im.unary("tosa.logical_not", a); }
  Value* lor(Value* a, Value* b) { return im.binary("tosa.logical_or", a, b, DType::Bool); }
  Value* land(Value* a, Value* b) { return im.binary("tosa.logical_and", a, b, DType::Bool); }
  Value* select(Value* cond, Value* a, Value* b) {
    auto s = ir::broadcastShape(cond->type.dims, a->type.dims);
    s = ir::broadcastShape(*s, b->type.dims);
    return im.b.op1("tosa.select", {cond, a, b}, ValueType::tensor(a->type.dtype, *s), {}, im.aux("select"));
  }
  // sqrt(x) = 1 / rsqrt(x): 0 -> 1/inf = 0, inf -> 1/0 = inf, x < 0 -> NaN (ONNX's values).
  Value* sqrt(Value* x) { return recip(un("tosa.rsqrt", x)); }
  Value* abs(Value* x) { return un("tosa.abs", x); }
  // Horner evaluation of sum coef[i] * z^(n-1-i).
  Value* poly(Value* z, const std::vector<double>& coef) {
    Value* p = c(coef[0]);
    for (size_t i = 1; i < coef.size(); ++i) p = add(mul(p, z), c(coef[i]));
    return p;
  }
  Value* copySign(Value* r, Value* x) { return select(gt(c(0), x), neg(r), r); }

  // Round half to even: floor, then up when the fraction is above 1/2 or exactly 1/2 with an odd floor.
  // x - floor(x) is exact; for |x| >= 2^mantissa x is integral and the fraction 0.
  Value* roundEven(Value* x) {
    Value* f = un("tosa.floor", x);
    Value* d = sub(x, f);
    Value* h = mul(f, c(0.5));
    Value* odd = lnot(eq(un("tosa.floor", h), h));
    Value* up = lor(gt(d, c(0.5)), land(eq(d, c(0.5)), odd));
    return select(up, add(f, c(1)), f);
  }
  Value* trunc(Value* x) { return select(gt(c(0), x), un("tosa.ceil", x), un("tosa.floor", x)); }

  // Cephes atanf: reduce |x| to [0, tan(pi/8)] with atan(a) = pi/2 + atan(-1/a) (a > tan(3pi/8)) or
  // pi/4 + atan((a-1)/(a+1)) (a > tan(pi/8)); then x + x z P(z), z = x^2.
  Value* atan(Value* x) {
    Value* a = abs(x);
    Value* big = gt(a, c(2.414213562373095));
    Value* mid = gt(a, c(0.4142135623730950));
    Value* xr = select(big, neg(recip(a)), select(mid, div(sub(a, c(1)), add(a, c(1))), a));
    Value* y0 = select(big, c(kPi / 2), select(mid, c(kPi / 4), c(0)));
    Value* z = mul(xr, xr);
    Value* p = poly(z, {8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1});
    Value* r = add(y0, add(mul(mul(p, z), xr), xr));
    return copySign(r, x);
  }
  // Cephes asinf polynomial, for |x| <= 1/2: x + x z P(z), z = x^2.
  Value* asinPoly(Value* x) {
    Value* z = mul(x, x);
    Value* p = poly(z, {4.2163199048e-2, 2.4181311049e-2, 4.5470025998e-2, 7.4953002686e-2, 1.6666752422e-1});
    return add(mul(mul(p, z), x), x);
  }
  // asin(a) = pi/2 - 2 asin(sqrt((1-a)/2)) for a > 1/2 (|x| > 1 gives NaN through the sqrt).
  Value* asin(Value* x) {
    Value* a = abs(x);
    Value* big = gt(a, c(0.5));
    Value* s = sqrt(mul(sub(c(1), a), c(0.5)));
    Value* pa = asinPoly(select(big, s, a));
    Value* r = select(big, sub(c(kPi / 2), mul(pa, c(2))), pa);
    return copySign(r, x);
  }
  // acos(x) = pi/2 - asin(x) for |x| <= 1/2; 2 asin(sqrt((1-|x|)/2)) for x > 1/2; pi - that for x < -1/2.
  Value* acos(Value* x) {
    Value* a = abs(x);
    Value* big = gt(a, c(0.5));
    Value* s = sqrt(mul(sub(c(1), a), c(0.5)));
    Value* pa = asinPoly(select(big, s, x));
    Value* twice = mul(pa, c(2));
    return select(big, select(gt(c(0), x), sub(c(kPi), twice), twice), sub(c(kPi / 2), pa));
  }
};

Emit emitFor(Importer& im, Value* x) { return Emit{im, x->type.dtype, x->type.dims.size()}; }

// ---- Add, Sub, Mul, Div ----

Status binaryOp(Importer& im, const NodeProto& n, char op) {
  OVal &a = im.val(n, 0), &c = im.val(n, 1);
  if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape)
    return Status::invalid("operands " + shapeToString(a.shape) + " and " + shapeToString(c.shape) +
                           " do not broadcast");
  const DType t = a.dtype;
  if (a.isConst() && c.isConst()) {
    if (!isFloat(t) && !isIntType(t)) return Status::unsupported("constant arithmetic on " + std::string(dtypeName(t)));
    if (isFloat(t)) {
      im.setConst(n, 0, foldBinary(*a.c, *c.c, *outShape, op));
      return Status::ok();
    }
    Tensor out(t, *outShape);
    Status s;
    forEachBroadcast({a.c.get(), c.c.get()}, *outShape, [&](int64_t o, const std::vector<int64_t>& k) {
      int64_t x = a.c->getInt(k[0]), y = c.c->getInt(k[1]);
      if (op == '/' && y == 0) s = Status::invalid("integer division by zero in a constant Div");
      out.setInt(o, op == '+' ? wrapAdd(x, y) : op == '-' ? wrapSub(x, y) : op == '*' ? wrapMul(x, y) : y ? x / y : 0);
    });
    if (!s.isOk()) return s;
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireKind(t, true, true, false, n.op_type().c_str()));
  const DType ct = *computeType(t);
  const size_t rank = outShape->size();
  if (op == '/' && isFloat(t) && c.isConst()) {
    // Division by a constant: multiply by its reciprocal, computed here.
    OVal rc;
    rc.shape = c.shape;
    rc.dtype = t;
    Tensor inv(t, c.shape);
    for (int64_t i = 0; i < inv.size(); ++i) inv.setFloat(i, 1.0 / c.c->getFloat(i));
    rc.c = std::make_shared<const Tensor>(std::move(inv));
    Layout l = rank == 4 && a.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
    auto va = operand(im, a, rank, l, ct);
    if (!va) return va.status();
    auto vc = operand(im, rc, rank, l, ct);
    if (!vc) return vc.status();
    return finish(im, n, im.mul(*va, *vc), l, t);
  }
  auto p = prepare(im, n, {0, 1}, {ct, ct});
  if (!p) return p.status();
  Value *x = p->v[0], *y = p->v[1];
  Value* out = nullptr;
  switch (op) {
    case '+': out = im.b.add(x, y, im.aux("add")); break;
    case '-': out = im.b.sub(x, y, im.aux("sub")); break;
    case '*': out = im.mul(x, y); break;
    default:
      out = isFloat(ct) ? im.mul(x, im.unary("tosa.reciprocal", y))
                        : im.binary("tosa.intdiv", x, y, DType::I32);  // truncates toward zero, as ONNX's Div
      break;
  }
  return finish(im, n, narrowTo(im, out, t), p->layout, t);
}

// ---- Mod ----

// fmod = 1: C fmod (sign of the dividend); fmod = 0: Python's % (sign of the divisor).
Status opMod(Importer& im, const NodeProto& n) {
  TK_RETURN_IF_ERROR(needInputs(n, 2));
  OVal &a = im.val(n, 0), &c = im.val(n, 1);
  if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
  const DType t = a.dtype;
  const bool fmod = im.attrInt(n, "fmod", 0) != 0;
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape) return Status::invalid("Mod operands do not broadcast");
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(t, *outShape);
    Status s;
    forEachBroadcast(k, *outShape, [&](int64_t o, const std::vector<int64_t>& i) {
      if (isFloat(t)) {
        double x = k[0]->getFloat(i[0]), y = k[1]->getFloat(i[1]);
        double r = std::fmod(x, y);
        if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
        out.setFloat(o, r);
        return;
      }
      int64_t x = k[0]->getInt(i[0]), y = k[1]->getInt(i[1]);
      if (y == 0) {
        s = Status::invalid("integer modulo by zero in a constant Mod");
        return;
      }
      int64_t r = x % y;
      if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
      out.setInt(o, r);
    });
    if (!s.isOk()) return s;
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireKind(t, true, true, false, "Mod"));
  // fp16/bf16 compute in fp32: the quotient needs the precision (and fp32 has the exact division helper).
  const DType ct = isFloat(t) ? DType::FP32 : DType::I32;
  auto p = prepare(im, n, {0, 1}, {ct, ct});
  if (!p) return p.status();
  Value *x = p->v[0], *y = p->v[1];
  Emit e = emitFor(im, x);
  Value* r = nullptr;
  if (isFloat(t)) {
    // x - trunc(x / y) * y with a correctly rounded quotient (x * (1/y) can miss an exact integer quotient).
    Value* q = e.trunc(im.divideF32(x, y));
    r = e.sub(x, e.mul(q, y));
  } else {
    Value* q = im.binary("tosa.intdiv", x, y, DType::I32);
    r = e.sub(x, e.mul(q, y));
  }
  if (!fmod) {
    // Remainder and divisor of different signs: add the divisor once.
    Value* zero = isFloat(t) ? e.c(0) : im.scalarOf(DType::I32, 0, x->type.dims.size());
    Value* signsDiffer = im.binary("tosa.logical_xor", e.gt(zero, r), e.gt(zero, y), DType::Bool);
    Value* fix = e.land(e.lnot(e.eq(r, zero)), signsDiffer);
    r = e.select(fix, e.add(r, y), r);
  }
  if (isFloat(t)) r = im.castTo(r, t);
  return finish(im, n, narrowTo(im, r, t), p->layout, t);
}

// ---- Pow ----

// pow for any base: TOSA POW is defined for x > 0 only (REQUIRE), so it gets |x| (1 where x = 0), and the
// other bases are fixed with selects: 0^y = 0, 1, inf for y > 0, = 0, < 0; a negative base gives the signed
// result for an integral y and NaN otherwise.
Value* powFloat(Importer& im, Value* x, Value* y) {
  Emit e = emitFor(im, x);
  Value* a = e.abs(x);
  Value* pos = e.gt(a, e.c(0));
  Value* r = im.binary("tosa.pow", e.select(pos, a, e.c(1)), y, e.t);
  Value* zeroBase = e.select(e.gt(y, e.c(0)), e.c(0), e.select(e.eq(y, e.c(0)), e.c(1), e.c(kInf)));
  r = e.select(pos, r, zeroBase);
  Value* fl = e.un("tosa.floor", y);
  Value* integral = e.eq(fl, y);
  Value* h = e.mul(y, e.c(0.5));
  Value* odd = e.lnot(e.eq(e.un("tosa.floor", h), h));
  Value* negBase = e.select(integral, e.select(odd, e.neg(r), r), e.c(kNaN));
  return e.select(e.gt(e.c(0), x), negBase, r);
}

// Integer x^y by binary exponentiation in i32 (MUL wraps like numpy's integers); `bits` exponent bits.
Value* powInt(Importer& im, Value* x, Value* y, int bits) {
  Emit e = emitFor(im, x);
  const size_t rank = x->type.dims.size();
  auto i32 = [&](int64_t v) { return im.scalarOf(DType::I32, double(v), rank); };
  Value* result = i32(1);
  Value* base = x;
  Value* exp = y;
  for (int k = 0; k < bits; ++k) {
    Value* bit = e.eq(im.binary("tosa.bitwise_and", exp, i32(1), DType::I32), i32(1));
    result = e.select(bit, im.mul(result, base), result);
    if (k + 1 == bits) break;
    base = im.mul(base, base);
    exp = im.b.op1("tosa.arithmetic_right_shift", {exp, i32(1)}, exp->type, {{"round", ir::Attribute::boolean(false)}},
                   im.aux("shift"));
  }
  return result;
}

Status opPow(Importer& im, const NodeProto& n) {
  OVal &x = im.val(n, 0), &y = im.val(n, 1);
  const DType tx = x.dtype, ty = y.dtype;
  auto outShape = numpyBroadcast(x.shape, y.shape);
  if (!outShape) return Status::invalid("Pow operands do not broadcast");
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(tx, *outShape);
    forEachBroadcast(k, *outShape, [&](int64_t o, const std::vector<int64_t>& i) {
      if (isFloat(tx) || isFloat(ty)) {
        double v = std::pow(k[0]->getFloat(i[0]), k[1]->getFloat(i[1]));
        if (isFloat(tx))
          out.setFloat(o, v);
        else
          out.setInt(o, int64_t(std::trunc(v)));
        return;
      }
      int64_t b = k[0]->getInt(i[0]), ex = k[1]->getInt(i[1]), r = 1;
      for (; ex > 0; ex >>= 1, b = wrapMul(b, b))
        if (ex & 1) r = wrapMul(r, b);
      out.setInt(o, r);
    });
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireKind(tx, true, true, false, "Pow base"));
  TK_RETURN_IF_ERROR(requireKind(ty, true, true, false, "Pow exponent"));
  const size_t rank = outShape->size();
  if (isFloat(tx) && y.isConst() && y.c->size() == 1 && x.shape.size() >= y.shape.size()) {
    // Common constant exponents lower to cheaper, exact ops (LayerNorm exports use x ** 2).
    const double p = isFloat(ty) ? y.c->getFloat(0) : double(y.c->getInt(0));
    Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
    auto v = operand(im, x, rank, l, tx);
    if (!v) return v.status();
    Emit e = emitFor(im, *v);
    if (p == 1.0) return finish(im, n, im.b.op1("tosa.identity", {*v}, (*v)->type), l, tx);
    if (p == 2.0) return finish(im, n, e.mul(*v, *v), l, tx);
    if (p == 0.5) return finish(im, n, e.sqrt(*v), l, tx);
  }
  if (isIntType(tx) && isIntType(ty)) {
    auto p = prepare(im, n, {0, 1}, {DType::I32, DType::I32});
    if (!p) return p.status();
    int bits = 31;
    if (y.isConst()) {
      int64_t maxE = 0;
      for (int64_t i = 0; i < y.c->size(); ++i) maxE = std::max(maxE, y.c->getInt(i));
      bits = 1;
      while (bits < 31 && (maxE >> bits) != 0) ++bits;
    }
    Value* r = powInt(im, p->v[0], p->v[1], bits);
    return finish(im, n, narrowTo(im, r, tx), p->layout, tx);
  }
  // Float math: the base's float type, or fp32 for an integer base (numpy computes int ** float in float and
  // ONNX casts back to the base type, truncating).
  const DType ft = isFloat(tx) ? tx : DType::FP32;
  auto p = prepare(im, n, {0, 1}, {ft, ft});
  if (!p) return p.status();
  Value* r = powFloat(im, p->v[0], p->v[1]);
  if (!isFloat(tx)) {
    Emit e = emitFor(im, r);
    r = narrowTo(im, im.castTo(e.trunc(r), DType::I32), tx);
  }
  return finish(im, n, r, p->layout, tx);
}

// ---- comparison, logical, bitwise ----

// Equal, Greater, GreaterOrEqual, Less, LessOrEqual: Less(a, b) = Greater(b, a).
Status compareOp(Importer& im, const NodeProto& n, const std::string& op) {
  TK_RETURN_IF_ERROR(needInputs(n, 2));
  OVal &a = im.val(n, 0), &c = im.val(n, 1);
  if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
  const DType t = a.dtype;
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape) return Status::invalid("operands do not broadcast");
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(DType::Bool, *outShape);
    forEachBroadcast(k, *outShape, [&](int64_t o, const std::vector<int64_t>& i) {
      bool r;
      if (isFloat(t)) {
        double x = k[0]->getFloat(i[0]), y = k[1]->getFloat(i[1]);
        r = op == "Equal"            ? x == y
            : op == "Greater"        ? x > y
            : op == "GreaterOrEqual" ? x >= y
            : op == "Less"           ? x < y
                                     : x <= y;
      } else {
        int64_t x = k[0]->getInt(i[0]), y = k[1]->getInt(i[1]);
        r = op == "Equal"            ? x == y
            : op == "Greater"        ? x > y
            : op == "GreaterOrEqual" ? x >= y
            : op == "Less"           ? x < y
                                     : x <= y;
      }
      out.setInt(o, r);
    });
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireKind(t, true, true, op == "Equal", op.c_str()));
  const DType ct = *computeType(t);
  auto p = prepare(im, n, {0, 1}, {ct, ct});
  if (!p) return p.status();
  Value *x = p->v[0], *y = p->v[1];
  Value* out;
  if (t == DType::Bool) {
    out = im.unary("tosa.logical_not", im.binary("tosa.logical_xor", x, y, DType::Bool));  // a == b
  } else if (op == "Equal") {
    out = im.binary("tosa.equal", x, y, DType::Bool);
  } else if (op == "Greater") {
    out = im.binary("tosa.greater", x, y, DType::Bool);
  } else if (op == "GreaterOrEqual") {
    out = im.binary("tosa.greater_equal", x, y, DType::Bool);
  } else if (op == "Less") {
    out = im.binary("tosa.greater", y, x, DType::Bool);
  } else {
    out = im.binary("tosa.greater_equal", y, x, DType::Bool);
  }
  return finish(im, n, out, p->layout, DType::Bool);
}

// And, Or, Xor (bool) and BitwiseAnd, BitwiseOr, BitwiseXor (integers; uint8 bits work as they are).
Status logicalOp(Importer& im, const NodeProto& n, char op, bool bitwise) {
  TK_RETURN_IF_ERROR(needInputs(n, 2));
  OVal &a = im.val(n, 0), &c = im.val(n, 1);
  if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
  const DType t = a.dtype;
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape) return Status::invalid("operands do not broadcast");
  if (bitwise ? !isIntType(t) : t != DType::Bool)
    return Status::unsupported(n.op_type() + " of element type " + std::string(dtypeName(t)));
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(t, *outShape);
    forEachBroadcast(k, *outShape, [&](int64_t o, const std::vector<int64_t>& i) {
      int64_t x = k[0]->getInt(i[0]), y = k[1]->getInt(i[1]);
      out.setInt(o, op == '&' ? (x & y) : op == '|' ? (x | y) : (x ^ y));
    });
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  auto rt = im.rtType(a);
  if (!rt) return rt.status();
  // Bitwise ops take i8/i16/i32 as they are: no widening needed.
  auto p = prepare(im, n, {0, 1}, {*rt, *rt});
  if (!p) return p.status();
  static const std::map<char, const char*> kLogical = {
      {'&', "tosa.logical_and"}, {'|', "tosa.logical_or"}, {'^', "tosa.logical_xor"}};
  static const std::map<char, const char*> kBitwise = {
      {'&', "tosa.bitwise_and"}, {'|', "tosa.bitwise_or"}, {'^', "tosa.bitwise_xor"}};
  Value* out = im.binary((bitwise ? kBitwise : kLogical).at(op), p->v[0], p->v[1], *rt);
  return finish(im, n, out, p->layout, t);
}

// BitShift (uint8 is the only ONNX type of it TOSA can carry): shifted in i32 after zero extension, so shifts
// by 8..31 give 0 like numpy's, then narrowed back to 8 bits.
Status opBitShift(Importer& im, const NodeProto& n) {
  TK_RETURN_IF_ERROR(needInputs(n, 2));
  OVal &a = im.val(n, 0), &c = im.val(n, 1);
  if (a.dtype != c.dtype) return Status::invalid("operand element types differ");
  const std::string dir = im.attrStr(n, "direction", "");
  if (dir != "LEFT" && dir != "RIGHT")
    return Status::invalid("BitShift direction must be LEFT or RIGHT, got '" + dir + "'");
  const DType t = a.dtype;
  if (t != DType::U8)
    return Status::unsupported("BitShift of element type " + std::string(dtypeName(t)) + " (TOSA carries uint8 only)");
  auto outShape = numpyBroadcast(a.shape, c.shape);
  if (!outShape) return Status::invalid("operands do not broadcast");
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(t, *outShape);
    forEachBroadcast(k, *outShape, [&](int64_t o, const std::vector<int64_t>& i) {
      uint64_t x = uint64_t(k[0]->getInt(i[0])), s = uint64_t(k[1]->getInt(i[1]));
      out.setInt(o, s >= 8 ? 0 : int64_t(dir == "LEFT" ? (x << s) & 0xff : x >> s));
    });
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  auto p = prepare(im, n, {0, 1}, {DType::I32, DType::I32});
  if (!p) return p.status();
  // Shift amounts above 31 are out of LOGICAL_*_SHIFT's range: limited to 31 (the result is 0 either way).
  // MINIMUM, not CLAMP: CLAMP has no i32 row in TOSA 1.0 (the amounts are 0..255, zero-extended uint8).
  Value* s = im.binary("tosa.minimum", p->v[1], im.scalarOf(DType::I32, 31, p->v[1]->type.dims.size()), DType::I32);
  Value* out =
      im.binary(dir == "LEFT" ? "tosa.logical_left_shift" : "tosa.logical_right_shift", p->v[0], s, DType::I32);
  return finish(im, n, narrowTo(im, out, t), p->layout, t);
}

// ---- variadic: Min, Max, Sum, Mean ----

Status variadicOp(Importer& im, const NodeProto& n, char op) {
  std::vector<int> idx;
  for (int i = 0; i < n.input_size(); ++i)
    if (!n.input(i).empty()) idx.push_back(i);
  if (idx.empty()) return Status::invalid(n.op_type() + " needs at least one input");
  const DType t = im.val(n, idx[0]).dtype;
  Shape shape = im.val(n, idx[0]).shape;
  for (int i : idx) {
    if (im.val(n, i).dtype != t) return Status::invalid("operand element types differ");
    auto s = numpyBroadcast(shape, im.val(n, i).shape);
    if (!s) return Status::invalid("operands do not broadcast");
    shape = *s;
  }
  if (op == 'm' && !isFloat(t)) return Status::unsupported("Mean of element type " + std::string(dtypeName(t)));
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(t, shape);
    forEachBroadcast(k, shape, [&](int64_t o, const std::vector<int64_t>& i) {
      if (isFloat(t)) {
        double r = k[0]->getFloat(i[0]);
        for (size_t j = 1; j < k.size(); ++j) {
          double v = k[j]->getFloat(i[j]);
          if (op == '<')
            r = std::isnan(r) || std::isnan(v) ? kNaN : std::min(r, v);
          else if (op == '>')
            r = std::isnan(r) || std::isnan(v) ? kNaN : std::max(r, v);
          else
            r += v;
        }
        out.setFloat(o, op == 'm' ? r / double(k.size()) : r);
        return;
      }
      int64_t r = k[0]->getInt(i[0]);
      for (size_t j = 1; j < k.size(); ++j) {
        int64_t v = k[j]->getInt(i[j]);
        r = op == '<' ? std::min(r, v) : op == '>' ? std::max(r, v) : wrapAdd(r, v);
      }
      out.setInt(o, r);
    });
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(requireKind(t, true, true, false, n.op_type().c_str()));
  if (idx.size() == 1) {
    im.vals[n.output(0)] = im.val(n, idx[0]);  // one input: the value itself
    return Status::ok();
  }
  const DType ct = *computeType(t);
  auto p = prepare(im, n, idx, std::vector<DType>(idx.size(), ct));
  if (!p) return p.status();
  Value* r = p->v[0];
  for (size_t j = 1; j < p->v.size(); ++j) {
    if (op == '<')
      r = im.binary("tosa.minimum", r, p->v[j], ct);
    else if (op == '>')
      r = im.binary("tosa.maximum", r, p->v[j], ct);
    else
      r = im.b.add(r, p->v[j], im.aux("add"));
  }
  if (op == 'm') r = im.mul(r, im.scalarOf(ct, 1.0 / double(idx.size()), r->type.dims.size()));
  return finish(im, n, narrowTo(im, r, t), p->layout, t);
}

// ---- Where ----

Status opWhere(Importer& im, const NodeProto& n) {
  TK_RETURN_IF_ERROR(needInputs(n, 3));
  OVal &cond = im.val(n, 0), &x = im.val(n, 1), &y = im.val(n, 2);
  if (cond.dtype != DType::Bool) return Status::invalid("Where condition must be bool");
  if (x.dtype != y.dtype) return Status::invalid("Where operand element types differ");
  auto s = numpyBroadcast(cond.shape, x.shape);
  if (s) s = numpyBroadcast(*s, y.shape);
  if (!s) return Status::invalid("Where operands do not broadcast");
  if (auto k = constsOf(im, n); !k.empty()) {
    Tensor out(x.dtype, *s);
    const size_t es = storageBytes(x.dtype);
    forEachBroadcast(k, *s, [&](int64_t o, const std::vector<int64_t>& i) {
      const Tensor* src = k[0]->getInt(i[0]) ? k[1] : k[2];
      std::memcpy(out.data() + size_t(o) * es, src->data() + size_t(i[k[0]->getInt(i[0]) ? 1 : 2]) * es, es);
    });
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  // SELECT moves data: uint8 bits and int64-as-i32 go through as they are.
  auto p = prepare(im, n, {0, 1, 2}, {DType::Bool, *rt, *rt});
  if (!p) return p.status();
  Emit e = emitFor(im, p->v[1]);
  return finish(im, n, e.select(p->v[0], p->v[1], p->v[2]), p->layout, x.dtype);
}

// ---- unary ----

// A unary op computed in the input's compute type; `onnxOut` is the ONNX result type (bool for IsNaN/IsInf).
Status unaryOp(Importer& im, const NodeProto& n, const std::function<Value*(Emit&, Value*)>& f,
               std::optional<DType> onnxOut = std::nullopt) {
  OVal& x = im.val(n, 0);
  auto ct = computeType(x.dtype);
  if (!ct) return ct.status();
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = operand(im, x, x.shape.size(), l, *ct);
  if (!v) return v.status();
  Emit e = emitFor(im, *v);
  Value* out = f(e, *v);
  const DType t = onnxOut.value_or(x.dtype);
  return finish(im, n, narrowTo(im, out, t), l, t);
}

// Folds a unary node over a constant: floats through fF, integers through fI (nullptr: no integer form).
bool foldUnary(Importer& im, const NodeProto& n, double (*fF)(double), int64_t (*fI)(int64_t)) {
  OVal& x = im.val(n, 0);
  if (!x.isConst()) return false;
  if (isFloat(x.dtype) ? !fF : !fI) return false;
  Tensor out(x.dtype, x.shape);
  for (int64_t i = 0; i < out.size(); ++i) {
    if (isFloat(x.dtype))
      out.setFloat(i, fF(x.c->getFloat(i)));
    else
      out.setInt(i, fI(x.c->getInt(i)));
  }
  im.setConst(n, 0, std::move(out));
  return true;
}

struct UnaryDef {
  bool ints;  // integer inputs allowed (computed in i32)
  double (*fold)(double);
  int64_t (*foldInt)(int64_t);
  std::function<Value*(Emit&, Value*)> lower;
};

double signF(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : v; }
int64_t signI(int64_t v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }
int64_t absI(int64_t v) { return v < 0 ? wrapSub(0, v) : v; }
int64_t negI(int64_t v) { return wrapSub(0, v); }

const std::map<std::string, UnaryDef>& unaryDefs() {
  static const std::map<std::string, UnaryDef> defs = {
      {"Abs", {true, [](double v) { return std::fabs(v); }, absI, [](Emit& e, Value* x) { return e.abs(x); }}},
      {"Neg", {true, [](double v) { return -v; }, negI, [](Emit& e, Value* x) { return e.neg(x); }}},
      {"Sign",
       {true, signF, signI,
        [](Emit& e, Value* x) {
          // NaN keeps NaN (x * 0), zeros keep their sign.
          Value* zero = isFloat(e.t) ? e.c(0) : e.im.scalarOf(DType::I32, 0, e.rank);
          Value* one = isFloat(e.t) ? e.c(1) : e.im.scalarOf(DType::I32, 1, e.rank);
          Value* minusOne = isFloat(e.t) ? e.c(-1) : e.im.scalarOf(DType::I32, -1, e.rank);
          Value* rest = isFloat(e.t) ? e.mul(x, zero) : zero;
          return e.select(e.gt(x, zero), one, e.select(e.gt(zero, x), minusOne, rest));
        }}},
      {"Ceil",
       {false, [](double v) { return std::ceil(v); }, nullptr, [](Emit& e, Value* x) { return e.un("tosa.ceil", x); }}},
      {"Floor",
       {false, [](double v) { return std::floor(v); }, nullptr,
        [](Emit& e, Value* x) { return e.un("tosa.floor", x); }}},
      {"Round", {false, roundHalfEven, nullptr, [](Emit& e, Value* x) { return e.roundEven(x); }}},
      {"Exp",
       {false, [](double v) { return std::exp(v); }, nullptr, [](Emit& e, Value* x) { return e.un("tosa.exp", x); }}},
      {"Log",
       {false, [](double v) { return std::log(v); }, nullptr, [](Emit& e, Value* x) { return e.un("tosa.log", x); }}},
      {"Sqrt", {false, [](double v) { return std::sqrt(v); }, nullptr, [](Emit& e, Value* x) { return e.sqrt(x); }}},
      {"Reciprocal", {false, [](double v) { return 1.0 / v; }, nullptr, [](Emit& e, Value* x) { return e.recip(x); }}},
      {"Sin",
       {false, [](double v) { return std::sin(v); }, nullptr, [](Emit& e, Value* x) { return e.un("tosa.sin", x); }}},
      {"Cos",
       {false, [](double v) { return std::cos(v); }, nullptr, [](Emit& e, Value* x) { return e.un("tosa.cos", x); }}},
      {"Tan",
       {false, [](double v) { return std::tan(v); }, nullptr,
        [](Emit& e, Value* x) { return e.div(e.un("tosa.sin", x), e.un("tosa.cos", x)); }}},
      {"Asin", {false, [](double v) { return std::asin(v); }, nullptr, [](Emit& e, Value* x) { return e.asin(x); }}},
      {"Acos", {false, [](double v) { return std::acos(v); }, nullptr, [](Emit& e, Value* x) { return e.acos(x); }}},
      {"Atan", {false, [](double v) { return std::atan(v); }, nullptr, [](Emit& e, Value* x) { return e.atan(x); }}},
      {"Sinh",
       {false, [](double v) { return std::sinh(v); }, nullptr,
        [](Emit& e, Value* x) { return e.mul(e.sub(e.un("tosa.exp", x), e.un("tosa.exp", e.neg(x))), e.c(0.5)); }}},
      {"Cosh",
       {false, [](double v) { return std::cosh(v); }, nullptr,
        [](Emit& e, Value* x) { return e.mul(e.add(e.un("tosa.exp", x), e.un("tosa.exp", e.neg(x))), e.c(0.5)); }}},
      {"Asinh",
       {false, [](double v) { return std::asinh(v); }, nullptr,
        [](Emit& e, Value* x) {
          // asinh(x) = sign(x) log(|x| + sqrt(x^2 + 1)): odd, so the sign is applied last (no cancellation).
          Value* a = e.abs(x);
          Value* r = e.un("tosa.log", e.add(a, e.sqrt(e.add(e.mul(a, a), e.c(1)))));
          return e.copySign(r, x);
        }}},
      {"Acosh",
       {false, [](double v) { return std::acosh(v); }, nullptr,
        [](Emit& e, Value* x) {
          return e.un("tosa.log", e.add(x, e.sqrt(e.sub(e.mul(x, x), e.c(1)))));  // x < 1: NaN via the sqrt
        }}},
      {"Atanh",
       {false, [](double v) { return std::atanh(v); }, nullptr,
        [](Emit& e, Value* x) {
          return e.mul(e.un("tosa.log", e.div(e.add(e.c(1), x), e.sub(e.c(1), x))), e.c(0.5));
        }}},
      {"Erf",
       {false, [](double v) { return std::erf(v); }, nullptr, [](Emit& e, Value* x) { return e.un("tosa.erf", x); }}},
  };
  return defs;
}

Status opUnary(Importer& im, const NodeProto& n) {
  const UnaryDef& d = unaryDefs().at(n.op_type());
  const DType t = im.val(n, 0).dtype;
  TK_RETURN_IF_ERROR(requireKind(t, true, d.ints, false, n.op_type().c_str()));
  if (foldUnary(im, n, d.fold, d.foldInt)) return Status::ok();
  return unaryOp(im, n, d.lower);
}

Status opNot(Importer& im, const NodeProto& n, bool bitwise) {
  OVal& x = im.val(n, 0);
  if (bitwise ? !isIntType(x.dtype) : x.dtype != DType::Bool)
    return Status::unsupported(n.op_type() + " of element type " + std::string(dtypeName(x.dtype)));
  if (x.isConst()) {
    Tensor out(x.dtype, x.shape);
    for (int64_t i = 0; i < out.size(); ++i) out.setInt(i, bitwise ? ~x.c->getInt(i) : !x.c->getInt(i));
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  return finish(im, n, im.unary(bitwise ? "tosa.bitwise_not" : "tosa.logical_not", *v), l, x.dtype);
}

Status opIsNaN(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireKind(x.dtype, true, false, false, "IsNaN"));
  if (x.isConst()) {
    Tensor out(DType::Bool, x.shape);
    for (int64_t i = 0; i < out.size(); ++i) out.setInt(i, std::isnan(x.c->getFloat(i)));
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  return unaryOp(
      im, n, [](Emit& e, Value* v) { return e.lnot(e.eq(v, v)); }, DType::Bool);
}

Status opIsInf(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(requireKind(x.dtype, true, false, false, "IsInf"));
  const bool pos = im.attrInt(n, "detect_positive", 1) != 0, neg = im.attrInt(n, "detect_negative", 1) != 0;
  if (x.isConst()) {
    Tensor out(DType::Bool, x.shape);
    for (int64_t i = 0; i < out.size(); ++i) {
      double v = x.c->getFloat(i);
      out.setInt(i, (pos && v == kInf) || (neg && v == -kInf));
    }
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  return unaryOp(
      im, n,
      [&](Emit& e, Value* v) {
        if (pos && neg) return e.eq(e.abs(v), e.c(kInf));
        if (pos) return e.eq(v, e.c(kInf));
        if (neg) return e.eq(v, e.c(-kInf));
        return e.eq(v, e.c(kNaN));  // detects nothing: NaN equals nothing
      },
      DType::Bool);
}

// ---- Cast, CastLike ----

// Folds a Cast of a constant: float -> int truncates toward zero (numpy's astype), -> bool is x != 0,
// float -> bfloat16 drops the low bits (ONNX 1.12's reference).
Tensor castConst(const Tensor& t, DType to) {
  Tensor out(to, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) {
    if (to == DType::Bool)
      out.setInt(i, isFloat(t.dtype()) ? t.getFloat(i) != 0 : t.getInt(i) != 0);
    else if (to == DType::BF16 && isFloat(t.dtype()))
      out.setFloat(i, truncToBf16(t.getFloat(i)));
    else if (isFloat(to))
      out.setFloat(i, isFloat(t.dtype()) ? t.getFloat(i) : double(t.getInt(i)));
    else if (isFloat(t.dtype()))
      out.setInt(i, int64_t(std::trunc(t.getFloat(i))));
    else
      out.setInt(i, t.getInt(i));
  }
  return out;
}

// Run-time cast of x (ONNX type `from`, TOSA value v) to ONNX type `to`.
Value* castValue(Importer& im, Value* v, DType from, DType to) {
  Emit e = emitFor(im, v);
  if (isFloat(from) && to == DType::Bool) return e.lnot(e.eq(v, e.c(0)));  // no float -> bool CAST; NaN is true
  if (isFloat(from) && isFloat(to)) {
    if (to != DType::BF16) return convertValue(im, v, from, to);
    // To bfloat16 by truncation (ONNX 1.12's reference drops the low 16 bits; TOSA CAST rounds to nearest):
    // when the rounded value r is larger in magnitude than x, the truncation is the next bf16 toward zero,
    // which rounding r * (1 - 2^-8) to bf16 gives: that product lies strictly between it and the midpoint
    // below r (exactly on it when r is a power of two, where that midpoint is itself a bf16 value).
    Value* x = convertValue(im, v, from, DType::FP32);
    Emit f = emitFor(im, x);
    Value* r = im.castTo(x, DType::BF16);
    Value* back = im.castTo(r, DType::FP32);
    Value* lower = im.castTo(f.mul(back, f.c(1.0 - 1.0 / 256)), DType::BF16);
    return f.select(f.gt(f.abs(back), f.abs(x)), lower, r);
  }
  if (isFloat(from)) {
    // Truncate toward zero first (CAST rounds to nearest), then convert to the integer type.
    Value* t = e.trunc(v);
    const DType rt = *runtimeDType(to);
    if (to == DType::U8) return im.castTo(im.castTo(t, DType::I32), DType::I8);  // the low 8 bits
    return im.castTo(t, rt);
  }
  // From an integer or bool.
  const DType rt = *runtimeDType(to);
  if (to == DType::Bool) return im.castTo(v, DType::Bool);  // x != 0 (uint8 bits: nonzero iff nonzero)
  if (isFloat(to)) return convertValue(im, v, from, to);
  if (isUnsignedBits(from)) return narrowTo(im, convertValue(im, v, from, DType::I32), to);
  if (to == DType::U8) return v->type.dtype == DType::I8 ? v : im.castTo(v, DType::I8);  // the low 8 bits
  return im.castTo(v, rt);                                                               // sign-extends or truncates
}

Status castNode(Importer& im, const NodeProto& n, DType to) {
  OVal& x = im.val(n, 0);
  if (x.isConst()) {
    if (!isFloat(x.dtype) && !isIntType(x.dtype) && x.dtype != DType::Bool)
      return Status::unsupported("Cast from " + std::string(dtypeName(x.dtype)));
    im.setConst(n, 0, castConst(*x.c, to));
    return Status::ok();
  }
  auto from = im.rtType(x);
  if (!from) return from.status();
  if (!runtimeDType(to))
    return Status::unsupported("Cast to " + std::string(dtypeName(to)) + ", which has no TOSA 1.0 equivalent");
  if (to == x.dtype ||
      (*runtimeDType(to) == *from && !isFloat(to) && to != DType::Bool && !isUnsignedBits(to) &&
       !isUnsignedBits(x.dtype))) {
    // Same run-time representation (e.g. int64 <-> int32, both carried as i32): the value itself.
    OVal o = x;
    o.dtype = to;
    im.vals[n.output(0)] = o;
    return Status::ok();
  }
  if (isUnsignedBits(to) && x.dtype == DType::I8) {
    OVal o = x;  // int8 -> uint8: the same bits
    o.dtype = to;
    im.vals[n.output(0)] = o;
    return Status::ok();
  }
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  Value* out = castValue(im, *v, x.dtype, to);
  if (out == *v) {
    OVal o = x;
    o.dtype = to;
    im.vals[n.output(0)] = o;
    return Status::ok();
  }
  return finish(im, n, out, l, to);
}

Status opCast(Importer& im, const NodeProto& n) {
  auto to = dtypeFromOnnx(int32_t(im.attrInt(n, "to", 0)), "Cast 'to'");
  if (!to) return to.status();
  return castNode(im, n, *to);
}

Status opCastLike(Importer& im, const NodeProto& n) {
  TK_RETURN_IF_ERROR(needInputs(n, 2));
  return castNode(im, n, im.val(n, 1).dtype);  // only its element type matters
}

}  // namespace

void registerElementwiseOps(HandlerTable& t) {
  t["Add"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '+'); };
  t["Sub"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '-'); };
  t["Mul"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '*'); };
  t["Div"] = [](Importer& im, const NodeProto& n) { return binaryOp(im, n, '/'); };
  t["Mod"] = opMod;
  t["Pow"] = opPow;
  for (const char* op : {"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"})
    t[op] = [op = std::string(op)](Importer& im, const NodeProto& n) { return compareOp(im, n, op); };
  t["And"] = [](Importer& im, const NodeProto& n) { return logicalOp(im, n, '&', false); };
  t["Or"] = [](Importer& im, const NodeProto& n) { return logicalOp(im, n, '|', false); };
  t["Xor"] = [](Importer& im, const NodeProto& n) { return logicalOp(im, n, '^', false); };
  t["Not"] = [](Importer& im, const NodeProto& n) { return opNot(im, n, false); };
  t["BitwiseAnd"] = [](Importer& im, const NodeProto& n) { return logicalOp(im, n, '&', true); };
  t["BitwiseOr"] = [](Importer& im, const NodeProto& n) { return logicalOp(im, n, '|', true); };
  t["BitwiseXor"] = [](Importer& im, const NodeProto& n) { return logicalOp(im, n, '^', true); };
  t["BitwiseNot"] = [](Importer& im, const NodeProto& n) { return opNot(im, n, true); };
  t["BitShift"] = opBitShift;
  t["Min"] = [](Importer& im, const NodeProto& n) { return variadicOp(im, n, '<'); };
  t["Max"] = [](Importer& im, const NodeProto& n) { return variadicOp(im, n, '>'); };
  t["Sum"] = [](Importer& im, const NodeProto& n) { return variadicOp(im, n, '+'); };
  t["Mean"] = [](Importer& im, const NodeProto& n) { return variadicOp(im, n, 'm'); };
  t["Where"] = opWhere;
  for (const auto& [name, def] : unaryDefs()) t[name] = opUnary;
  t["IsNaN"] = opIsNaN;
  t["IsInf"] = opIsInf;
  t["Cast"] = opCast;
  t["CastLike"] = opCastLike;
}

}  // namespace tosakit::onnx
