// Reductions (Reduce*), index reductions (ArgMax/ArgMin), scans (CumSum) and TopK.
//
// TOSA reduces one axis at a time and keeps it as 1, so a multi-axis ONNX reduction is a chain of TOSA
// reductions; keepdims=0 drops the axes with a reshape in the plain layout. The derived reductions are
// compositions: L1 = sum(|x|), L2 = sum(x*x)^0.5, LogSum = log(sum(x)), LogSumExp = log(sum(exp(x - m))) + m
// (m: the max over the same axes, for range), SumSquare = sum(x*x), Mean = sum * 1/count (integers: intdiv).
// Integer arithmetic runs in i32 (i8/i16 widened with CAST and narrowed back, matching ONNX's wrap-around).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

ir::Attribute axisAttr(int64_t a) { return ir::Attribute::integer(a, DType::I32); }

// One TOSA reduction ("tosa.reduce_sum", ...) along `axis`, kept as 1.
Value* reduceAxis(Importer& im, const std::string& op, Value* x, int64_t axis, const char* nanMode = nullptr) {
  Shape s = x->type.dims;
  s[size_t(axis)] = 1;
  std::map<std::string, ir::Attribute> attrs = {{"axis", axisAttr(axis)}};
  if (nanMode) attrs["nan_mode"] = ir::Attribute::enumCase(nanMode);
  return im.b.op1(op, {x}, ValueType::tensor(x->type.dtype, s), std::move(attrs), im.aux(op.substr(5)));
}

Value* reduceAxes(Importer& im, const std::string& op, Value* x, const std::vector<int64_t>& axes) {
  for (int64_t a : axes) x = reduceAxis(im, op, x, a);
  return x;
}

Value* select(Importer& im, Value* cond, Value* a, Value* c) {
  auto s = ir::broadcastShape(ir::broadcastShape(a->type.dims, c->type.dims).value(), cond->type.dims);
  return im.b.op1("tosa.select", {cond, a, c}, ValueType::tensor(a->type.dtype, *s), {}, im.aux("select"));
}

Value* reverse(Importer& im, Value* x, int64_t axis) {
  return im.b.op1("tosa.reverse", {x}, x->type, {{"axis", axisAttr(axis)}}, im.aux("reverse"));
}

Value* sliceAxis(Importer& im, Value* x, int64_t axis, int64_t start, int64_t size) {
  Shape st(x->type.dims.size(), 0), sz = x->type.dims;
  st[size_t(axis)] = start;
  sz[size_t(axis)] = size;
  return im.b.op1("tosa.slice", {x, im.b.constShape(st, im.aux("start")), im.b.constShape(sz, im.aux("size"))},
                  ValueType::tensor(x->type.dtype, sz), {}, im.aux("slice"));
}

Value* concat(Importer& im, const std::vector<Value*>& parts, int64_t axis) {
  Shape os = parts[0]->type.dims;
  os[size_t(axis)] = 0;
  for (Value* v : parts) os[size_t(axis)] += v->type.dims[size_t(axis)];
  return im.b.op1("tosa.concat", parts, ValueType::tensor(parts[0]->type.dtype, os), {{"axis", axisAttr(axis)}},
                  im.aux("concat"));
}

// [1,..,n,..,1] i32 constant 0..n-1 along `axis` of a rank-`rank` tensor.
Value* iotaAlong(Importer& im, size_t rank, int64_t axis, int64_t n) {
  Shape s(rank, 1);
  s[size_t(axis)] = n;
  Tensor t(DType::I32, s);
  for (int64_t i = 0; i < n; ++i) t.setInt(i, i);
  return im.constF(std::move(t));
}

// A constant of x's type and the given shape filled with v.
Value* filled(Importer& im, DType t, const Shape& s, double v) {
  Tensor c(t, s);
  for (int64_t i = 0; i < c.size(); ++i) {
    if (isFloat(t))
      c.setFloat(i, v);
    else
      c.setInt(i, int64_t(v));
  }
  return im.constF(std::move(c));
}

Value* negate(Importer& im, Value* x) {
  const DType t = x->type.dtype;
  if (isFloat(t))  // zero points: 0
    return im.b.op1("tosa.negate", {x, im.b.scalar1(t, 0), im.b.scalar1(t, 0)}, x->type, {}, im.aux("negate"));
  return im.b.sub(filled(im, x->type.dtype, Shape(x->type.dims.size(), 1), 0), x, im.aux("neg"));
}

Shape dropAxes(const Shape& s, const std::vector<int64_t>& axes) {
  Shape out;
  for (size_t a = 0; a < s.size(); ++a)
    if (std::find(axes.begin(), axes.end(), int64_t(a)) == axes.end()) out.push_back(s[a]);
  return out;
}

// The run-time element type of x, refusing the unsigned types (carried as i8 bits; arithmetic would misread
// them) and those TOSA lacks.
Result<DType> arithType(Importer& im, const OVal& x) {
  if (isUnsignedBits(x.dtype))
    return Status::unsupported("element type " + std::string(dtypeName(x.dtype)) +
                               " (TOSA has no unsigned arithmetic)");
  return im.rtType(x);
}

// ---- Reduce* ----

Status opReduce(Importer& im, const NodeProto& n) {
  const std::string& op = n.op_type();
  OVal& x = im.val(n, 0);
  auto rt = arithType(im, x);
  if (!rt) return rt.status();
  const bool isF = isFloat(*rt);
  const bool floatOnly = op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp" || op == "ReduceProd";
  if (floatOnly && !isF)
    return Status::unsupported(op + " of " + std::string(dtypeName(x.dtype)) +
                               " (TOSA has it for floating-point types only)");
  const int64_t r = int64_t(x.shape.size());
  // Axes: attribute up to opset 17 (ReduceSum: 12), input from then on.
  auto axesR = im.axesOf(n, 1);
  if (!axesR) return axesR.status();
  const bool keep = im.attrInt(n, "keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (*axesR && !(*axesR)->empty()) {
    for (int64_t a : **axesR) {
      if (a < -r || a >= r) return Status::invalid(op + " axis " + std::to_string(a) + " is out of range");
      axes.push_back(normAxis(a, r));
    }
  } else if (im.attrInt(n, "noop_with_empty_axes", 0) != 0) {
    im.vals[n.output(0)] = x;
    return Status::ok();
  } else {
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (r == 0) {  // a scalar reduces to itself (through the elementwise pre/post steps below)
    axes.clear();
  }
  Layout l = keep && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  std::vector<int64_t> taxes;  // axes in the stored layout
  int64_t count = 1;
  for (int64_t a : axes) {
    taxes.push_back(l == Layout::Nhwc ? kNhwcPos[a] : a);
    count *= x.shape[size_t(a)];
  }
  if (r == 0) {
    // TOSA reductions need rank >= 1: work on a [1] view.
    xv = im.b.reshape(*xv, {1}, im.aux("reshape"));
    taxes = {0};
  }
  Value* v = *xv;
  const size_t vr = v->type.dims.size();
  // Integer sums run in i32 (MAX/MIN take i8/i16 as they are).
  const bool widen = !isF && *rt != DType::I32 && op != "ReduceMax" && op != "ReduceMin";
  if (widen) v = im.castTo(v, DType::I32);
  Value* y = nullptr;
  if (op == "ReduceMax" || op == "ReduceMin" || op == "ReduceProd") {
    y = reduceAxes(im,
                   op == "ReduceMax"       ? "tosa.reduce_max"
                       : op == "ReduceMin" ? "tosa.reduce_min"
                                           : "tosa.reduce_product",
                   v, taxes);
  } else if (op == "ReduceSum" || op == "ReduceMean") {
    y = reduceAxes(im, "tosa.reduce_sum", v, taxes);
    if (op == "ReduceMean") {
      if (isF)
        y = im.mul(y, im.scalarOf(y->type.dtype, 1.0 / double(count), vr));
      else  // ONNX's integer mean truncates like integer division
        y = im.b.op1("tosa.intdiv", {y, im.scalarOf(DType::I32, double(count), vr)}, y->type, {}, im.aux("intdiv"));
    }
  } else if (op == "ReduceSumSquare" || op == "ReduceL2") {
    y = reduceAxes(im, "tosa.reduce_sum", im.mul(v, v), taxes);
    if (op == "ReduceL2") y = im.binary("tosa.pow", y, im.scalarOf(y->type.dtype, 0.5, vr), y->type.dtype);
  } else if (op == "ReduceL1") {
    y = reduceAxes(im, "tosa.reduce_sum", im.unary("tosa.abs", v), taxes);
  } else if (op == "ReduceLogSum") {
    y = im.unary("tosa.log", reduceAxes(im, "tosa.reduce_sum", v, taxes));
  } else if (op == "ReduceLogSumExp") {
    // The max keeps exp in range; an all -inf slice gives NaN (-inf - -inf), as log(0) would give -inf:
    // replace the max there by 0 (any finite value gives log(0) + 0 = -inf).
    Value* m = reduceAxes(im, "tosa.reduce_max", v, taxes);
    Value* finite = im.binary("tosa.greater", m, im.scalarOf(m->type.dtype, -kFltMax, vr), DType::Bool);
    m = select(im, finite, m, im.scalarOf(m->type.dtype, 0, vr));
    Value* e = im.unary("tosa.exp", im.b.sub(v, m, im.aux("sub")));
    y = im.b.add(im.unary("tosa.log", reduceAxes(im, "tosa.reduce_sum", e, taxes)), m, im.aux("add"));
  } else {
    return Status::internal("no reduction for " + op);
  }
  if (widen) y = im.castTo(y, *rt);
  if (r == 0) {
    y = im.b.reshape(y, {}, im.aux("reshape"));
  } else if (!keep) {
    y = im.b.reshape(y, dropAxes(x.shape, axes), im.aux("reshape"));
  } else if (y == v) {
    y = im.unary("tosa.identity", y);  // no axes to reduce (a size-0 axes list never gets here)
  }
  y->definingOp->loc.name = im.loc;
  im.setValue(n, 0, y, l, x.dtype);
  return Status::ok();
}

// ---- ArgMax / ArgMin ----

// Index of the max (or min) along `axis` of an i32 tensor, by comparison with the reduced extreme: the
// smallest (last: the largest) index holding it. Kept axis.
Value* argExtremeI32(Importer& im, Value* v, int64_t axis, bool isMax, bool last) {
  const int64_t n = v->type.dims[size_t(axis)];
  const size_t rank = v->type.dims.size();
  Value* m = reduceAxis(im, isMax ? "tosa.reduce_max" : "tosa.reduce_min", v, axis);
  Value* eq = im.binary("tosa.equal", v, m, DType::Bool);
  Value* cand = select(im, eq, iotaAlong(im, rank, axis, n), im.scalarOf(DType::I32, last ? -1.0 : double(n), rank));
  return reduceAxis(im, last ? "tosa.reduce_max" : "tosa.reduce_min", cand, axis);
}

Status opArgMinMax(Importer& im, const NodeProto& n) {
  const bool isMax = n.op_type() == "ArgMax";
  OVal& x = im.val(n, 0);
  auto rt = arithType(im, x);
  if (!rt) return rt.status();
  const int64_t r = int64_t(x.shape.size());
  if (r == 0) return Status::unsupported(n.op_type() + " of a scalar");
  const int64_t axis0 = im.attrInt(n, "axis", 0);
  if (axis0 < -r || axis0 >= r)
    return Status::invalid(n.op_type() + " axis " + std::to_string(axis0) + " is out of range");
  const int64_t axis = normAxis(axis0, r);
  const bool keep = im.attrInt(n, "keepdims", 1) != 0;
  const bool last = im.attrInt(n, "select_last_index", 0) != 0;
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* v = *xv;
  const int64_t len = x.shape[size_t(axis)];
  Value* idx = nullptr;  // kept axis
  Shape kept = x.shape;
  kept[size_t(axis)] = 1;
  if (isFloat(*rt)) {
    // tosa.argmax returns the first max; argmin is the argmax of -x (exact; NaN still wins, as numpy's does);
    // the last index is the first one of the reversed axis.
    if (!isMax) v = negate(im, v);
    if (last) v = reverse(im, v, axis);
    idx = im.b.op1("tosa.argmax", {v}, ValueType::tensor(DType::I32, dropAxes(x.shape, {axis})),
                   {{"axis", axisAttr(axis)}}, im.aux("argmax"));
    idx = im.b.reshape(idx, kept, im.aux("reshape"));
    if (last) idx = im.b.sub(im.scalarOf(DType::I32, double(len - 1), size_t(r)), idx, im.aux("sub"));
  } else {
    idx = argExtremeI32(im, im.castTo(v, DType::I32), axis, isMax, last);
  }
  Value* y = im.b.reshape(idx, keep ? kept : dropAxes(x.shape, {axis}), im.aux("reshape"));
  if (y == idx) y = im.unary("tosa.identity", y);
  y->definingOp->loc.name = im.loc;
  im.setValue(n, 0, y, Layout::Plain, DType::I64);
  return Status::ok();
}

// ---- CumSum ----

// Log-step scan (Hillis-Steele): after the step with shift s every element holds the sum of the 2s elements
// ending at it; exact for integers, and within float rounding of the sequential sum.
Status opCumSum(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto rt = arithType(im, x);
  if (!rt) return rt.status();
  auto at = im.constInput(n, 1, "axis");
  if (!at) return at.status();
  if ((*at)->size() != 1) return Status::invalid("CumSum axis must hold one value");
  const int64_t r = int64_t(x.shape.size());
  if (r == 0) return Status::invalid("CumSum of a scalar");
  const int64_t a0 = (*at)->getInt(0);
  if (a0 < -r || a0 >= r) return Status::invalid("CumSum axis " + std::to_string(a0) + " is out of range");
  const int64_t axis = normAxis(a0, r);
  const bool exclusive = im.attrInt(n, "exclusive", 0) != 0;
  const bool rev = im.attrInt(n, "reverse", 0) != 0;
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* v = im.castTo(*xv, isFloat(*rt) ? *rt : DType::I32);
  const int64_t len = x.shape[size_t(axis)];
  const DType t = v->type.dtype;
  // y shifted by s along the axis, zeros entering.
  auto shifted = [&](Value* y, int64_t s) {
    Shape zs = y->type.dims;
    zs[size_t(axis)] = s;
    return concat(im, {filled(im, t, zs, 0), sliceAxis(im, y, axis, 0, len - s)}, axis);
  };
  if (rev) v = reverse(im, v, axis);
  if (exclusive) v = len > 1 ? shifted(v, 1) : filled(im, t, v->type.dims, 0);
  for (int64_t s = 1; s < len; s *= 2) v = im.b.add(v, shifted(v, s), im.aux("add"));
  if (rev) v = reverse(im, v, axis);
  v = im.castTo(v, *rt);
  if (v == *xv || v->definingOp->name == "tosa.const") v = im.unary("tosa.identity", v);
  v->definingOp->loc.name = im.loc;
  im.setValue(n, 0, v, Layout::Plain, x.dtype);
  return Status::ok();
}

// ---- TopK ----

// K rounds of "take the extreme, then mask it out" (TOSA has no sort). Floats: tosa.argmax in the NaN-ignoring
// mode finds the first largest value, and taken positions become NaN, which that mode ranks below everything.
// Integers (in i32): the first index holding the max among the positions not yet taken.
Status opTopK(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto rt = arithType(im, x);
  if (!rt) return rt.status();
  auto kt = im.constInput(n, 1, "K");
  if (!kt) return kt.status();
  if ((*kt)->size() != 1) return Status::invalid("TopK K must hold one value");
  const int64_t k = (*kt)->getInt(0);
  const int64_t r = int64_t(x.shape.size());
  if (r == 0) return Status::invalid("TopK of a scalar");
  const int64_t a0 = im.attrInt(n, "axis", -1);
  if (a0 < -r || a0 >= r) return Status::invalid("TopK axis " + std::to_string(a0) + " is out of range");
  const int64_t axis = normAxis(a0, r);
  const int64_t len = x.shape[size_t(axis)];
  if (k < 0 || k > len) return Status::invalid("TopK K = " + std::to_string(k) + " is out of range");
  if (k == 0) return Status::unsupported("TopK with K = 0 (TOSA 1.0 has no zero-size tensors)");
  const bool largest = im.attrInt(n, "largest", 1) != 0;
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  const bool isF = isFloat(*rt);
  Value* cur = im.castTo(*xv, isF ? *rt : DType::I32);
  if (!largest) cur = negate(im, cur);  // integers: -INT_MIN wraps; ONNX test data has none
  const size_t rank = size_t(r);
  Shape kept = x.shape;
  kept[size_t(axis)] = 1;
  Value* iota = iotaAlong(im, rank, axis, len);
  const DType t = cur->type.dtype;
  std::vector<Value*> vals, idxs;
  Value* free = nullptr;  // integers: positions not taken yet
  for (int64_t round = 0; round < k; ++round) {
    Value* idx;
    Value* val;
    if (isF) {
      idx = im.b.op1("tosa.argmax", {cur}, ValueType::tensor(DType::I32, dropAxes(x.shape, {axis})),
                     {{"axis", axisAttr(axis)}, {"nan_mode", ir::Attribute::enumCase("IGNORE")}}, im.aux("argmax"));
      idx = im.b.reshape(idx, kept, im.aux("reshape"));
      val = reduceAxis(im, "tosa.reduce_max", cur, axis, "IGNORE");
    } else {
      val = reduceAxis(im, "tosa.reduce_max", cur, axis);
      Value* eq = im.binary("tosa.equal", cur, val, DType::Bool);
      if (free) eq = im.binary("tosa.logical_and", eq, free, DType::Bool);
      Value* cand = select(im, eq, iota, im.scalarOf(DType::I32, double(len), rank));
      idx = reduceAxis(im, "tosa.reduce_min", cand, axis);
    }
    vals.push_back(val);
    idxs.push_back(idx);
    if (round + 1 == k) break;
    Value* hit = im.binary("tosa.equal", iota, idx, DType::Bool);
    if (isF) {
      cur = select(im, hit, filled(im, t, Shape(rank, 1), std::nan("")), cur);
    } else {
      Value* notHit = im.unary("tosa.logical_not", hit);
      free = free ? im.binary("tosa.logical_and", free, notHit, DType::Bool) : notHit;
      cur = select(im, free, cur, im.scalarOf(DType::I32, double(std::numeric_limits<int32_t>::min()), rank));
    }
  }
  Value* values = vals.size() == 1 ? vals[0] : concat(im, vals, axis);
  Value* indices = idxs.size() == 1 ? idxs[0] : concat(im, idxs, axis);
  if (!largest) values = negate(im, values);
  values = im.castTo(values, *rt);
  values->definingOp->loc.name = im.loc;
  im.setValue(n, 0, values, Layout::Plain, x.dtype);
  if (im.hasOutput(n, 1)) {
    indices->definingOp->loc.name = im.loc + "/indices";
    im.setValue(n, 1, indices, Layout::Plain, DType::I64);
  }
  return Status::ok();
}

}  // namespace

void registerReduceOps(HandlerTable& t) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    t[op] = opReduce;
  t["ArgMax"] = opArgMinMax;
  t["ArgMin"] = opArgMinMax;
  t["CumSum"] = opCumSum;
  t["TopK"] = opTopK;
}

}  // namespace tosakit::onnx
