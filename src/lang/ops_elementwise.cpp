// Element-wise BMLang operators: arithmetic (tensor, scalar and _shift forms), shifts, clamp, cast, active,
// comparisons, lut, select. Integer operators compute exactly in i32 and saturate to the output type.
#include <cmath>
#include <limits>

#include "lang/lang_internal.h"

namespace tosakit::lang {

namespace {

bool isInt(DType t) { return t != DType::FP32; }

void requireInt(DType t, const char* what) {
  if (!isInt(t)) invalid(std::string(what) + " must be an integer tensor (i8, u8, i16, u16, i32)");
}

DType outOr(std::optional<DType> out, DType dflt) {
  DType t = out.value_or(dflt);
  if (!isLangType(t))
    invalid("output type " + std::string(dtypeName(t)) + " is not one of i8, u8, i16, u16, i32, fp32");
  return t;
}

void requireFloatOut(std::optional<DType> out) {
  if (out && *out != DType::FP32) invalid("an fp32 operation has fp32 output");
}

int64_t intScalar(double v) {
  if (v != std::floor(v) || std::fabs(v) > 2147483647.0)
    invalid("scalar " + std::to_string(v) + " is not an int32 value (integer tensor)");
  return int64_t(v);
}

enum class Arith { Add, Sub, Mul, Max, Min };

const char* tosaName(Arith k) {
  switch (k) {
    case Arith::Add: return "tosa.add";
    case Arith::Sub: return "tosa.sub";
    case Arith::Mul: return "tosa.mul";
    case Arith::Max: return "tosa.maximum";
    case Arith::Min: return "tosa.minimum";
  }
  return "";
}

Value* arithI32(Graph::Impl& g, Arith k, Value* a, Value* b) {
  if (k == Arith::Mul) return g.mulI32(a, b, 0);
  return g.binary(tosaName(k), a, b, DType::I32);
}

Value* arithF32(Graph::Impl& g, Arith k, Value* a, Value* b) {
  if (k == Arith::Mul) return g.mulF32(a, b);
  return g.binary(tosaName(k), a, b, DType::FP32);
}

// Both operands as TOSA values of the computation domain (i32 or fp32); a scalar becomes a [1,..,1] constant.
struct Operands {
  Value* a;
  Value* b;
  bool isFloat;
};

Operands tensorOperands(Graph::Impl& g, Var a, Var b) {
  DType ta = g.type(a), tb = g.type(b);
  if (g.dims(a).size() != g.dims(b).size()) invalid("operands must have the same rank");
  broadcastOrFail(g.dims(a), g.dims(b));
  if (isInt(ta) != isInt(tb)) invalid("operands mix fp32 and integer types");
  if (!isInt(ta)) return {g.val(a), g.val(b), true};
  return {g.widen(g.val(a), ta), g.widen(g.val(b), tb), false};
}

Operands scalarOperands(Graph::Impl& g, Var a, double s, bool scalarFirst) {
  DType ta = g.type(a);
  int r = int(g.dims(a).size());
  Value* x = isInt(ta) ? g.widen(g.val(a), ta) : g.val(a);
  Value* c = isInt(ta) ? g.splat(DType::I32, double(intScalar(s)), r) : g.splat(DType::FP32, s, r);
  return scalarFirst ? Operands{c, x, !isInt(ta)} : Operands{x, c, !isInt(ta)};
}

Var finish(Graph::Impl& g, Arith k, const Operands& o, int shift, std::optional<DType> out, DType dflt) {
  if (o.isFloat) {
    requireFloatOut(out);
    if (shift != 0) invalid("the _shift forms take integer tensors");
    return g.make(arithF32(g, k, o.a, o.b), DType::FP32);
  }
  DType t = outOr(out, dflt);
  requireInt(t, "the output of an integer operation");
  Value* r = g.roundShift(arithI32(g, k, o.a, o.b), shift);
  return g.make(g.narrow(r, t), t);
}

}  // namespace

// ---- Arithmetic -----------------------------------------------------------------------------------

Var Graph::add(Var a, Var b, std::optional<DType> out) {
  return impl_->apply("add", {a, b},
                      [&] { return finish(*impl_, Arith::Add, tensorOperands(*impl_, a, b), 0, out, impl_->type(a)); });
}
Var Graph::sub(Var a, Var b, std::optional<DType> out) {
  return impl_->apply("sub", {a, b},
                      [&] { return finish(*impl_, Arith::Sub, tensorOperands(*impl_, a, b), 0, out, impl_->type(a)); });
}
Var Graph::mul(Var a, Var b, std::optional<DType> out) {
  return impl_->apply("mul", {a, b},
                      [&] { return finish(*impl_, Arith::Mul, tensorOperands(*impl_, a, b), 0, out, impl_->type(a)); });
}
Var Graph::max(Var a, Var b) {
  return impl_->apply("max", {a, b}, [&] {
    if (impl_->type(a) != impl_->type(b)) invalid("max needs operands of one type");
    return finish(*impl_, Arith::Max, tensorOperands(*impl_, a, b), 0, {}, impl_->type(a));
  });
}
Var Graph::min(Var a, Var b) {
  return impl_->apply("min", {a, b}, [&] {
    if (impl_->type(a) != impl_->type(b)) invalid("min needs operands of one type");
    return finish(*impl_, Arith::Min, tensorOperands(*impl_, a, b), 0, {}, impl_->type(a));
  });
}

// fp32 division as x * reciprocal(y) (TOSA 1.0 has no floating-point DIV); BMLang's div is FLOAT32 only.
Var Graph::div(Var a, Var b) {
  return impl_->apply("div", {a, b}, [&] {
    Operands o = tensorOperands(*impl_, a, b);
    if (!o.isFloat) invalid("div takes fp32 tensors (as BMLang's div)");
    return impl_->make(impl_->mulF32(o.a, impl_->unary("tosa.reciprocal", o.b)), DType::FP32);
  });
}

Var Graph::adds(Var a, double s, std::optional<DType> out) {
  return impl_->apply("adds", {a}, [&] {
    return finish(*impl_, Arith::Add, scalarOperands(*impl_, a, s, false), 0, out, impl_->type(a));
  });
}
Var Graph::subs(Var a, double s, std::optional<DType> out) {
  return impl_->apply("subs", {a}, [&] {
    return finish(*impl_, Arith::Sub, scalarOperands(*impl_, a, s, false), 0, out, impl_->type(a));
  });
}
Var Graph::rsubs(double s, Var a, std::optional<DType> out) {
  return impl_->apply("rsubs", {a}, [&] {
    return finish(*impl_, Arith::Sub, scalarOperands(*impl_, a, s, true), 0, out, impl_->type(a));
  });
}
Var Graph::muls(Var a, double s, std::optional<DType> out) {
  return impl_->apply("muls", {a}, [&] {
    return finish(*impl_, Arith::Mul, scalarOperands(*impl_, a, s, false), 0, out, impl_->type(a));
  });
}
Var Graph::maxs(Var a, double s) {
  return impl_->apply("maxs", {a}, [&] {
    return finish(*impl_, Arith::Max, scalarOperands(*impl_, a, s, false), 0, {}, impl_->type(a));
  });
}
Var Graph::mins(Var a, double s) {
  return impl_->apply("mins", {a}, [&] {
    return finish(*impl_, Arith::Min, scalarOperands(*impl_, a, s, false), 0, {}, impl_->type(a));
  });
}
Var Graph::divs(Var a, double s) {
  return impl_->apply("divs", {a}, [&] {
    if (impl_->type(a) != DType::FP32) invalid("divs takes an fp32 tensor (as BMLang's divs)");
    if (s == 0) invalid("division by zero");
    Value* r = impl_->unary("tosa.reciprocal", impl_->splat(DType::FP32, s, impl_->val(a)->type.rank()));
    return impl_->make(impl_->mulF32(impl_->val(a), r), DType::FP32);
  });
}
Var Graph::rdivs(double s, Var a) {
  return impl_->apply("rdivs", {a}, [&] {
    if (impl_->type(a) != DType::FP32) invalid("rdivs takes an fp32 tensor (as BMLang's rdivs)");
    Value* r = impl_->unary("tosa.reciprocal", impl_->val(a));
    return impl_->make(impl_->mulF32(impl_->splat(DType::FP32, s, r->type.rank()), r), DType::FP32);
  });
}

Var Graph::add_shift(Var a, Var b, int shift, std::optional<DType> out) {
  return impl_->apply("add_shift", {a, b}, [&] {
    return finish(*impl_, Arith::Add, tensorOperands(*impl_, a, b), shift, out, impl_->type(a));
  });
}
Var Graph::sub_shift(Var a, Var b, int shift, std::optional<DType> out) {
  return impl_->apply("sub_shift", {a, b}, [&] {
    return finish(*impl_, Arith::Sub, tensorOperands(*impl_, a, b), shift, out, impl_->type(a));
  });
}
Var Graph::mul_shift(Var a, Var b, int shift, std::optional<DType> out) {
  return impl_->apply("mul_shift", {a, b}, [&] {
    return finish(*impl_, Arith::Mul, tensorOperands(*impl_, a, b), shift, out, impl_->type(a));
  });
}
Var Graph::adds_shift(Var a, int s, int shift, std::optional<DType> out) {
  return impl_->apply("adds_shift", {a}, [&] {
    return finish(*impl_, Arith::Add, scalarOperands(*impl_, a, s, false), shift, out, impl_->type(a));
  });
}
Var Graph::subs_shift(Var a, int s, int shift, std::optional<DType> out) {
  return impl_->apply("subs_shift", {a}, [&] {
    return finish(*impl_, Arith::Sub, scalarOperands(*impl_, a, s, false), shift, out, impl_->type(a));
  });
}
Var Graph::rsubs_shift(int s, Var a, int shift, std::optional<DType> out) {
  return impl_->apply("rsubs_shift", {a}, [&] {
    return finish(*impl_, Arith::Sub, scalarOperands(*impl_, a, s, true), shift, out, impl_->type(a));
  });
}
Var Graph::muls_shift(Var a, int s, int shift, std::optional<DType> out) {
  return impl_->apply("muls_shift", {a}, [&] {
    return finish(*impl_, Arith::Mul, scalarOperands(*impl_, a, s, false), shift, out, impl_->type(a));
  });
}

// ---- Shifts -----------------------------------------------------------------------------------------

namespace {

void requireShiftable(Graph::Impl& g, Var x) {
  DType t = g.type(x);
  if (t != DType::I32 && t != DType::I16 && t != DType::U16)
    invalid("shifted tensor must be i32, i16 or u16 (as BMLang), got " + std::string(dtypeName(t)));
}

// x shifted left by `left` then right by `right` (both >= 0, in x's storage type): right shifts are
// arithmetic for signed types and logical for u16.
Value* shiftBoth(Graph::Impl& g, Var x, Value* left, Value* right) {
  Value* v = g.lls(g.val(x), left);
  if (g.type(x) == DType::U16) {
    Shape sh = broadcastOrFail(v->type.dims, right->type.dims);
    return g.op("tosa.logical_right_shift", {v, right}, ValueType::tensor(v->type.dtype, sh));
  }
  return g.ars(v, right, false);
}

// A tensor of shift amounts `num` (negative: the other direction) split into its left and right parts, in
// the storage type of x.
std::pair<Value*, Value*> splitShift(Graph::Impl& g, Var x, Var num, bool leftPositive) {
  requireInt(g.type(num), "the shift amounts");
  Value* n = g.widen(g.val(num), g.type(num));
  Value* zero = g.splat(DType::I32, 0, n->type.rank());
  Value* pos = g.binary("tosa.maximum", n, zero, DType::I32);
  Value* neg = g.binary("tosa.maximum", g.negate(n), zero, DType::I32);
  DType st = storageType(g.type(x));
  pos = g.cast(pos, st);
  neg = g.cast(neg, st);
  return leftPositive ? std::make_pair(pos, neg) : std::make_pair(neg, pos);
}

Var shiftScalar(Graph::Impl& g, Var x, int num, bool leftPositive) {
  requireShiftable(g, x);
  int left = leftPositive ? std::max(num, 0) : std::max(-num, 0);
  int right = leftPositive ? std::max(-num, 0) : std::max(num, 0);
  DType st = storageType(g.type(x));
  int r = g.val(x)->type.rank();
  return g.make(shiftBoth(g, x, g.splat(st, left, r), g.splat(st, right, r)), g.type(x));
}

}  // namespace

Var Graph::arith_lshift(Var x, Var num) {
  return impl_->apply("arith_lshift", {x, num}, [&] {
    requireShiftable(*impl_, x);
    auto [l, r] = splitShift(*impl_, x, num, true);
    return impl_->make(shiftBoth(*impl_, x, l, r), impl_->type(x));
  });
}
Var Graph::arith_rshift(Var x, Var num) {
  return impl_->apply("arith_rshift", {x, num}, [&] {
    requireShiftable(*impl_, x);
    auto [l, r] = splitShift(*impl_, x, num, false);
    return impl_->make(shiftBoth(*impl_, x, l, r), impl_->type(x));
  });
}
Var Graph::arith_lshifts(Var x, int num) {
  return impl_->apply("arith_lshifts", {x}, [&] { return shiftScalar(*impl_, x, num, true); });
}
Var Graph::arith_rshifts(Var x, int num) {
  return impl_->apply("arith_rshifts", {x}, [&] { return shiftScalar(*impl_, x, num, false); });
}

Var Graph::round_rshift(Var x, Var num, std::optional<DType> out) {
  return impl_->apply("round_rshift", {x, num}, [&] {
    requireInt(impl_->type(x), "the shifted tensor");
    requireInt(impl_->type(num), "the shift amounts");
    Value* v = impl_->widen(impl_->val(x), impl_->type(x));
    Value* n = impl_->widen(impl_->val(num), impl_->type(num));
    DType t = outOr(out, impl_->type(x));
    requireInt(t, "the output");
    return impl_->make(impl_->narrow(impl_->roundShiftT(v, n), t), t);
  });
}
Var Graph::round_rshifts(Var x, int num, std::optional<DType> out) {
  return impl_->apply("round_rshifts", {x}, [&] {
    requireInt(impl_->type(x), "the shifted tensor");
    Value* v = impl_->widen(impl_->val(x), impl_->type(x));
    DType t = outOr(out, impl_->type(x));
    requireInt(t, "the output");
    return impl_->make(impl_->narrow(impl_->roundShift(v, num), t), t);
  });
}

// ---- clamp, cast -----------------------------------------------------------------------------------

Var Graph::clamp(Var x, double lo, double hi) {
  return impl_->apply("clamp", {x}, [&] {
    if (lo > hi) invalid("min > max");
    DType t = impl_->type(x);
    if (!isInt(t)) return impl_->make(impl_->clampF32(impl_->val(x), lo, hi), t);
    Value* v = impl_->widen(impl_->val(x), t);
    return impl_->make(impl_->narrow(impl_->clampI32(v, intScalar(std::ceil(lo)), intScalar(std::floor(hi))), t), t);
  });
}

Var Graph::cast(Var x, DType out) {
  return impl_->apply("cast", {x}, [&] {
    DType t = impl_->type(x);
    outOr(out, out);
    Value* v = impl_->val(x);
    if (t == out) return impl_->make(v, t);
    if (isInt(t) && isInt(out)) return impl_->make(impl_->narrow(impl_->widen(v, t), out), out);
    if (isInt(t)) return impl_->make(impl_->toF32(v, t), out);
    // fp32 -> integer: round half away from zero, saturate (the bounds are exact fp32 integers).
    Value* r = impl_->roundHalfAwayF32(v);
    if (out == DType::I32) return impl_->make(impl_->cast(r, DType::I32), out);  // CAST saturates
    r = impl_->clampF32(r, double(dtypeMin(out)), double(dtypeMax(out)));
    return impl_->make(impl_->narrow(impl_->cast(r, DType::I32), out), out);
  });
}

// ---- active -----------------------------------------------------------------------------------------

namespace {

Var activeImpl(Graph::Impl& g, Var x, ActiveType type, float slope, std::optional<DType> out) {
  DType t = g.type(x);
  Value* v = g.val(x);
  int r = v->type.rank();
  if (isInt(t)) {
    if (type != ActiveType::ACTIVE_RELU && type != ActiveType::ACTIVE_ABSVAL &&
        !(type == ActiveType::ACTIVE_LEAKY_RELU && slope == 0.0f))
      invalid(
          "integer input takes ACTIVE_RELU, ACTIVE_ABSVAL or ACTIVE_LEAKY_RELU with slope 0 (as BMLang); "
          "other activations are fp32");
    DType o = outOr(out, t);
    requireInt(o, "the output");
    Value* w = g.widen(v, t);
    w = type == ActiveType::ACTIVE_ABSVAL ? g.unary("tosa.abs", w)
                                          : g.binary("tosa.maximum", w, g.splat(DType::I32, 0, r), DType::I32);
    return g.make(g.narrow(w, o), o);
  }
  requireFloatOut(out);
  auto zero = [&] { return g.splat(DType::FP32, 0.0, r); };
  Value* y = nullptr;
  switch (type) {
    case ActiveType::ACTIVE_TANH: y = g.unary("tosa.tanh", v); break;
    case ActiveType::ACTIVE_SIGMOID: y = g.unary("tosa.sigmoid", v); break;
    case ActiveType::ACTIVE_RELU: y = g.binary("tosa.maximum", v, zero(), DType::FP32); break;
    case ActiveType::ACTIVE_EXP: y = g.unary("tosa.exp", v); break;
    case ActiveType::ACTIVE_ELU: {
      Value* em1 = g.binary("tosa.sub", g.unary("tosa.exp", v), g.splat(DType::FP32, 1.0, r), DType::FP32);
      y = g.selectV(g.cmp("tosa.greater", v, zero()), v, em1);
      break;
    }
    // sqrt(x) = 1 / rsqrt(x): 0 -> 1/inf = 0, negative -> NaN.
    case ActiveType::ACTIVE_SQRT: y = g.unary("tosa.reciprocal", g.unary("tosa.rsqrt", v)); break;
    case ActiveType::ACTIVE_SQUARE: y = g.mulF32(v, v); break;
    case ActiveType::ACTIVE_RSQRT: y = g.unary("tosa.rsqrt", v); break;
    case ActiveType::ACTIVE_ABSVAL: y = g.unary("tosa.abs", v); break;
    case ActiveType::ACTIVE_LN: y = g.unary("tosa.log", v); break;
    case ActiveType::ACTIVE_ROUND: y = g.roundHalfAwayF32(v); break;
    case ActiveType::ACTIVE_CEIL: y = g.unary("tosa.ceil", v); break;
    case ActiveType::ACTIVE_FLOOR: y = g.unary("tosa.floor", v); break;
    case ActiveType::ACTIVE_SIN: y = g.unary("tosa.sin", v); break;
    case ActiveType::ACTIVE_COS: y = g.unary("tosa.cos", v); break;
    case ActiveType::ACTIVE_LEAKY_RELU:
      y = g.selectV(g.cmp("tosa.greater", v, zero()), v, g.mulF32(v, g.splat(DType::FP32, slope, r)));
      break;
  }
  if (!y) invalid("unknown active type " + std::to_string(int(type)));
  return g.make(y, DType::FP32);
}

}  // namespace

Var Graph::active(Var x, ActiveType type, std::optional<DType> out) {
  return impl_->apply("active", {x}, [&] { return activeImpl(*impl_, x, type, 0.0f, out); });
}

Var Graph::active_param(Var x, ActiveType type, const std::vector<float>& params, std::optional<DType> out) {
  return impl_->apply("active_param", {x}, [&] {
    float slope = type == ActiveType::ACTIVE_LEAKY_RELU && !params.empty() ? params[0] : 0.0f;
    return activeImpl(*impl_, x, type, slope, out);
  });
}

// ---- Comparisons -----------------------------------------------------------------------------------

namespace {

// 1/0 in the input type where `tosaOp(a, b)` (swapped operands for lt/le; negated for ne).
Var compare(Graph::Impl& g, Var a, Var b, const char* tosaOp, bool swap, bool negateResult) {
  if (g.type(a) != g.type(b)) invalid("operands must have one type");
  Operands o = tensorOperands(g, a, b);
  Value* p = swap ? g.cmp(tosaOp, o.b, o.a) : g.cmp(tosaOp, o.a, o.b);
  int r = p->type.rank();
  DType dom = o.isFloat ? DType::FP32 : DType::I32;
  Value* one = g.splat(dom, 1, r);
  Value* zero = g.splat(dom, 0, r);
  Value* v = negateResult ? g.selectV(p, zero, one) : g.selectV(p, one, zero);
  return g.make(o.isFloat ? v : g.narrow(v, g.type(a)), g.type(a));
}

}  // namespace

Var Graph::gt(Var a, Var b) {
  return impl_->apply("gt", {a, b}, [&] { return compare(*impl_, a, b, "tosa.greater", false, false); });
}
Var Graph::ge(Var a, Var b) {
  return impl_->apply("ge", {a, b}, [&] { return compare(*impl_, a, b, "tosa.greater_equal", false, false); });
}
Var Graph::lt(Var a, Var b) {
  return impl_->apply("lt", {a, b}, [&] { return compare(*impl_, a, b, "tosa.greater", true, false); });
}
Var Graph::le(Var a, Var b) {
  return impl_->apply("le", {a, b}, [&] { return compare(*impl_, a, b, "tosa.greater_equal", true, false); });
}
Var Graph::eq(Var a, Var b) {
  return impl_->apply("eq", {a, b}, [&] { return compare(*impl_, a, b, "tosa.equal", false, false); });
}
Var Graph::ne(Var a, Var b) {
  return impl_->apply("ne", {a, b}, [&] { return compare(*impl_, a, b, "tosa.equal", false, true); });
}

// ---- lut ----------------------------------------------------------------------------------------------

// Entry index = the input byte read as unsigned. TOSA TABLE indexes an i8 input by x + 128, so the table is
// rotated by 128; an fp32 table (TABLE is integer only) is read with GATHER.
Var Graph::lut(Var x, Var table) {
  return impl_->apply("lut", {x, table}, [&] {
    Graph::Impl& g = *impl_;
    DType t = g.type(x);
    if (t != DType::I8 && t != DType::U8) invalid("lut input must be i8 or u8");
    const Tensor& tab = g.coeffOf(table, "the table");
    if (tab.size() != 256) invalid("the table has " + std::to_string(tab.size()) + " entries, 256 expected");
    DType tt = tab.dtype();
    Value* v = g.val(x);
    if (tt == DType::I8 || tt == DType::U8) {
      std::vector<int64_t> rotated(256);
      for (int j = 0; j < 256; ++j) rotated[size_t(j)] = tab.getInt((j + 128) & 0xff);
      Value* tc = g.constant(Tensor::fromInts(DType::I8, {256}, rotated));
      return g.make(g.op("tosa.table", {v, tc}, ValueType::tensor(DType::I8, v->type.dims)), tt);
    }
    if (tt != DType::FP32) invalid("the table must be i8, u8 or fp32");
    Value* idx = g.widen(v, t);
    if (t == DType::I8) idx = g.binary("tosa.bitwise_and", idx, g.splat(DType::I32, 255, idx->type.rank()), DType::I32);
    int64_t n = 1;
    for (int64_t d : v->type.dims) n *= d;
    idx = g.reshape(idx, {1, n});
    Value* values = g.constant(Tensor::fromDoubles(DType::FP32, {1, 256, 1}, tab.toDoubles()));
    Value* gathered = g.op("tosa.gather", {values, idx}, ValueType::tensor(DType::FP32, {1, n, 1}));
    return g.make(g.reshape(gathered, v->type.dims), DType::FP32);
  });
}

// ---- Select -------------------------------------------------------------------------------------------

namespace {

// A one-element operand reshaped to rank r (BMLang lets sel0/sel1 be one-element coeffs).
Value* atRank(Graph::Impl& g, Var v, int r) {
  Value* x = g.val(v);
  if (x->type.rank() == r) return x;
  int64_t n = 1;
  for (int64_t d : x->type.dims) n *= d;
  if (n != 1) invalid("a selected operand of another rank must have one element");
  return g.reshape(x, Shape(size_t(r), 1));
}

Var selectImpl(Graph::Impl& g, Value* pred, Var c, Var d) {
  if (g.type(c) != g.type(d)) invalid("the selected tensors must have one type");
  int r = pred->type.rank();
  return g.make(g.selectV(pred, atRank(g, c, r), atRank(g, d, r)), g.type(c));
}

}  // namespace

Var Graph::condition_select(Var cond, Var sel0, Var sel1) {
  return impl_->apply("condition_select", {cond, sel0, sel1}, [&] {
    Graph::Impl& g = *impl_;
    DType t = g.type(cond);
    Value* c = isInt(t) ? g.widen(g.val(cond), t) : g.val(cond);
    Value* zero = g.splat(isInt(t) ? DType::I32 : DType::FP32, 0, c->type.rank());
    return selectImpl(g, g.cmp("tosa.greater", c, zero), sel0, sel1);
  });
}

Var Graph::select(Var a, Var b, Var c, Var d, SelectType type) {
  return impl_->apply("select", {a, b, c, d}, [&] {
    Graph::Impl& g = *impl_;
    if (g.type(a) != g.type(b)) invalid("the compared tensors must have one type");
    Operands o = tensorOperands(g, a, b);
    Value* p = g.cmp(type == SelectType::GREATER_EQUAL ? "tosa.greater_equal" : "tosa.greater", o.a, o.b);
    return selectImpl(g, p, c, d);
  });
}

Var Graph::where(Var x) {
  return impl_->apply("where", {x}, [&]() -> Var {
    unsupported(
        "the output shape depends on the data (indices of the non-zero elements); TOSA 1.0 graphs "
        "have static shapes");
  });
}

}  // namespace tosakit::lang
