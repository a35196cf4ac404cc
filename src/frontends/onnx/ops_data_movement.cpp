// Data movement: Slice, Split, Pad, Tile, Expand, Gather, GatherElements, GatherND, Scatter*, DepthToSpace,
// SpaceToDepth, Compress, OneHot, Trilu, ReverseSequence. Every element type TOSA carries moves through them
// (bool, i8 incl. uint8 bits, i16, i32 incl. int64, fp16, bf16, fp32); the result's ONNX type is the input's.
//
// Two building blocks carry most of them:
//  - takeAlongAxis: the input with one axis replaced by a constant list of positions along it. Runs of
//    ascending, descending or repeated positions become slice / reverse / tile pieces joined by a concat
//    (Slice with steps, Pad edge/reflect/wrap, Compress, Gather with constant indices); an arithmetic
//    progression with a stride becomes slice + reshape + slice; anything else a tosa.gather with constant
//    indices.
//  - gathers/scatters on flat indices: run-time indices are turned into row numbers of the data reshaped to
//    [1, rows, C] (elementwise i32 arithmetic on the indices plus a constant per-position offset), then one
//    tosa.gather / tosa.scatter. Scatter reductions (add, mul) use a one-hot mask and a reduction instead,
//    because tosa.scatter may not write one position twice.
// When every input is a constant the result is folded at import.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/size_budget.h"

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ---- small helpers ----

int64_t prodRange(const Shape& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

Status noZeroSize(const Shape& s, const std::string& what) {
  for (int64_t d : s)
    if (d == 0)
      return Status::unsupported(what + " would be the zero-size tensor " + shapeToString(s) +
                                 " (TOSA tensor dims are >= 1)");
  return Status::ok();
}

// The value in plain layout, after checking TOSA carries its element type.
Result<Value*> plainOf(Importer& im, OVal& x) {
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  return im.get(x, Layout::Plain);
}

// The op that yields the node's result carries the node name (aux ops of this node only).
void nameResult(Importer& im, Value* v) {
  if (v->definingOp && v->definingOp->loc.name.rfind(im.loc + "/", 0) == 0) v->definingOp->loc.name = im.loc;
}

// Output i is the run-time value v (plain layout) of ONNX type `onnxType`.
void setPlain(Importer& im, const NodeProto& n, int i, Value* v, DType onnxType) {
  nameResult(im, v);
  im.setValue(n, i, v, Layout::Plain, onnxType);
}

Value* i32Const(Importer& im, const Shape& s, const std::vector<int64_t>& v, const std::string& what) {
  return im.b.constant(Tensor::fromInts(DType::I32, s, v), im.aux(what));
}

Value* sliceAxis(Importer& im, Value* x, int64_t axis, int64_t start, int64_t len) {
  const Shape& s = x->type.dims;
  if (start == 0 && len == s[size_t(axis)]) return x;
  Shape begin(s.size(), 0), size = s;
  begin[size_t(axis)] = start;
  size[size_t(axis)] = len;
  Value* st = im.b.constShape(begin, im.aux("start"));
  Value* sz = im.b.constShape(size, im.aux("size"));
  return im.b.op1("tosa.slice", {x, st, sz}, ValueType::tensor(x->type.dtype, size), {}, im.aux("slice"));
}

Value* reverseAxis(Importer& im, Value* x, int64_t axis) {
  if (x->type.dims[size_t(axis)] == 1) return x;
  return im.b.op1("tosa.reverse", {x}, x->type, {{"axis", ir::Attribute::integer(axis, DType::I32)}},
                  im.aux("reverse"));
}

Value* tileShape(Importer& im, Value* x, const Shape& multiples) {
  bool ones = true;
  for (int64_t m : multiples) ones &= m == 1;
  if (ones) return x;
  Shape out = x->type.dims;
  for (size_t i = 0; i < out.size(); ++i) out[i] *= multiples[i];
  Value* m = im.b.constShape(multiples, im.aux("multiples"));
  return im.b.op1("tosa.tile", {x, m}, ValueType::tensor(x->type.dtype, out), {}, im.aux("tile"));
}

Value* tileAxis(Importer& im, Value* x, int64_t axis, int64_t times) {
  Shape m(x->type.dims.size(), 1);
  m[size_t(axis)] = times;
  return tileShape(im, x, m);
}

Value* concatAxis(Importer& im, const std::vector<Value*>& parts, int64_t axis) {
  if (parts.size() == 1) return parts[0];
  Shape out = parts[0]->type.dims;
  out[size_t(axis)] = 0;
  for (Value* p : parts) out[size_t(axis)] += p->type.dims[size_t(axis)];
  return im.b.op1("tosa.concat", parts, ValueType::tensor(parts[0]->type.dtype, out),
                  {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.aux("concat"));
}

// A [1] pad constant holding `v` in x's element type (uint8 carried as i8: the same bits).
Value* padConst(Importer& im, DType t, double v) {
  if (!isFloat(t) && t != DType::Bool) v = double(int64_t(v));
  return im.b.scalar1(t, t == DType::Bool ? (v != 0) : v, im.aux("pad_const"));
}

Value* padShape(Importer& im, Value* x, const std::vector<int64_t>& padding, double value) {
  bool none = true;
  for (int64_t p : padding) none &= p == 0;
  if (none) return x;
  Shape out = x->type.dims;
  for (size_t i = 0; i < out.size(); ++i) out[i] += padding[2 * i] + padding[2 * i + 1];
  Value* pd = im.b.constShape(padding, im.aux("padding"));
  return im.b.op1("tosa.pad", {x, pd, padConst(im, x->type.dtype, value)}, ValueType::tensor(x->type.dtype, out), {},
                  im.aux("pad"));
}

// tosa.gather of [N,K,C] values by [N,W] i32 row numbers; bool data moves as i8 (GATHER has no bool).
Value* gatherRows(Importer& im, Value* values, Value* rows) {
  const DType t = values->type.dtype;
  Value* v = t == DType::Bool ? im.castTo(values, DType::I8) : values;
  Shape os = {values->type.dims[0], rows->type.dims[1], values->type.dims[2]};
  Value* g = im.b.op1("tosa.gather", {v, rows}, ValueType::tensor(v->type.dtype, os), {}, im.aux("gather"));
  return t == DType::Bool ? im.castTo(g, DType::Bool) : g;
}

Value* scatterRows(Importer& im, Value* values, Value* rows, Value* input) {
  const DType t = values->type.dtype;
  Value* v = t == DType::Bool ? im.castTo(values, DType::I8) : values;
  Value* in = t == DType::Bool ? im.castTo(input, DType::I8) : input;
  Value* s = im.b.op1("tosa.scatter", {v, rows, in}, v->type, {}, im.aux("scatter"));
  return t == DType::Bool ? im.castTo(s, DType::Bool) : s;
}

// ---- taking positions along one axis ----

// Constant fold: t with `axis` replaced by positions idx (-1: `fill`, a one-element tensor of t's type).
Tensor takeConst(const Tensor& t, int64_t axis, const std::vector<int64_t>& idx, const Tensor* fill = nullptr) {
  const Shape& s = t.shape();
  Shape os = s;
  os[size_t(axis)] = int64_t(idx.size());
  Tensor out(t.dtype(), os);
  const size_t es = storageBytes(t.dtype());
  const int64_t outer = prodRange(s, 0, size_t(axis)), dim = s[size_t(axis)];
  const int64_t inner = prodRange(s, size_t(axis) + 1, s.size()), L = int64_t(idx.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < L; ++j) {
      uint8_t* dst = out.data() + size_t((o * L + j) * inner) * es;
      if (idx[size_t(j)] < 0) {
        for (int64_t k = 0; k < inner; ++k)
          std::memcpy(dst + size_t(k) * es, fill ? fill->data() : out.data(), fill ? es : 0);
        continue;
      }
      std::memcpy(dst, t.data() + size_t((o * dim + idx[size_t(j)]) * inner) * es, size_t(inner) * es);
    }
  return out;
}

// Positions s, s+st, ..., L of them (st != 0), all inside [0, dim).
Value* takeStrided(Importer& im, Value* x, int64_t axis, int64_t s, int64_t st, int64_t L) {
  const int64_t dim = x->type.dims[size_t(axis)];
  if (L == 1) return sliceAxis(im, x, axis, s, 1);
  if (st == 1) return sliceAxis(im, x, axis, s, L);
  if (st == -1) return reverseAxis(im, sliceAxis(im, x, axis, s - L + 1, L), axis);
  if (st < 0) {  // walk the reversed axis forwards
    x = reverseAxis(im, x, axis);
    s = dim - 1 - s;
    st = -st;
  }
  // Take L*st positions from s (padding the end when they run past the axis), view them as [L, st] and keep
  // column 0.
  const int64_t span = L * st, avail = dim - s;
  Value* v = sliceAxis(im, x, axis, s, std::min(span, avail));
  if (avail < span) {
    std::vector<int64_t> padding(2 * x->type.dims.size(), 0);
    padding[size_t(2 * axis + 1)] = span - avail;
    v = padShape(im, v, padding, 0);
  }
  Shape split = v->type.dims;
  split[size_t(axis)] = L;
  split.insert(split.begin() + axis + 1, st);
  v = im.b.reshape(v, split, im.aux("reshape"));
  v = sliceAxis(im, v, axis + 1, 0, 1);
  Shape out = x->type.dims;
  out[size_t(axis)] = L;
  return im.b.reshape(v, out, im.aux("reshape"));
}

// x with `axis` replaced by the positions idx (each in [0, dim)).
Value* takeAlongAxis(Importer& im, Value* x, int64_t axis, const std::vector<int64_t>& idx) {
  const Shape& s = x->type.dims;
  const int64_t dim = s[size_t(axis)], L = int64_t(idx.size());
  const int64_t st = L > 1 ? idx[1] - idx[0] : 1;
  bool progression = st != 0;
  for (int64_t j = 1; j < L && progression; ++j) progression = idx[size_t(j)] - idx[size_t(j - 1)] == st;
  if (progression) return takeStrided(im, x, axis, idx[0], st, L);
  // Runs of +1, -1 or 0 steps.
  struct Run {
    int64_t first, len, step;
  };
  std::vector<Run> runs;
  for (int64_t j = 0; j < L;) {
    int64_t len = 1, step = 0;
    if (j + 1 < L) {
      step = idx[size_t(j + 1)] - idx[size_t(j)];
      if (step < -1 || step > 1)
        step = 0;
      else
        while (j + len < L && idx[size_t(j + len)] - idx[size_t(j + len - 1)] == step) ++len;
    }
    runs.push_back({idx[size_t(j)], len, step});
    j += len;
  }
  if (runs.size() <= 8) {
    std::vector<Value*> parts;
    for (const Run& r : runs) {
      if (r.step == 0)
        parts.push_back(tileAxis(im, sliceAxis(im, x, axis, r.first, 1), axis, r.len));
      else
        parts.push_back(takeStrided(im, x, axis, r.first, r.step, r.len));
    }
    return concatAxis(im, parts, axis);
  }
  // Irregular positions: one gather of rows o*dim + idx[j] from x viewed as [1, outer*dim, inner].
  const int64_t outer = prodRange(s, 0, size_t(axis)), inner = prodRange(s, size_t(axis) + 1, s.size());
  std::vector<int64_t> rows;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j : idx) rows.push_back(o * dim + j);
  Value* values = im.b.reshape(x, {1, outer * dim, inner}, im.aux("reshape"));
  Value* g = gatherRows(im, values, i32Const(im, {1, outer * L}, rows, "rows"));
  Shape out = s;
  out[size_t(axis)] = L;
  return im.b.reshape(g, out, im.aux("reshape"));
}

// ---- Slice ----

struct SliceParams {
  std::vector<int64_t> starts, ends, axes, steps;
};

Result<SliceParams> sliceParams(Importer& im, const NodeProto& n) {
  SliceParams p;
  if (im.opset < 10) {
    p.starts = im.attrInts(n, "starts").value_or(std::vector<int64_t>{});
    p.ends = im.attrInts(n, "ends").value_or(std::vector<int64_t>{});
    p.axes = im.attrInts(n, "axes").value_or(std::vector<int64_t>{});
    return p;
  }
  auto s = im.constInput(n, 1, "starts");
  if (!s) return s.status();
  auto e = im.constInput(n, 2, "ends");
  if (!e) return e.status();
  p.starts = (*s)->toInts();
  p.ends = (*e)->toInts();
  if (im.hasInput(n, 3)) {
    auto a = im.constInput(n, 3, "axes");
    if (!a) return a.status();
    p.axes = (*a)->toInts();
  }
  if (im.hasInput(n, 4)) {
    auto st = im.constInput(n, 4, "steps");
    if (!st) return st.status();
    p.steps = (*st)->toInts();
  }
  return p;
}

// Positions along an axis of size dim that ONNX Slice keeps (starts/ends clamped as the operator says).
std::vector<int64_t> slicePositions(int64_t dim, int64_t start, int64_t end, int64_t step) {
  auto norm = [&](int64_t v) { return v < 0 ? (v < -dim ? -1 - dim : v) + dim : v; };  // no overflow at INT64_MIN
  int64_t s = norm(start), e = norm(end);
  // A step longer than the axis keeps only the first position; clamping it avoids overflow in i += step.
  step = std::clamp<int64_t>(step, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
  std::vector<int64_t> pos;
  if (step > 0) {
    s = std::clamp<int64_t>(s, 0, dim);
    e = std::clamp<int64_t>(e, 0, dim);
    for (int64_t i = s; i < e; i += step) pos.push_back(i);
  } else {
    s = std::clamp<int64_t>(s, 0, dim - 1);
    e = std::clamp<int64_t>(e, -1, dim - 1);
    for (int64_t i = s; i > e; i += step) pos.push_back(i);
  }
  return pos;
}

Status opSlice(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto p = sliceParams(im, n);
  if (!p) return p.status();
  const int64_t rank = int64_t(x.shape.size());
  if (p->axes.empty())
    for (size_t i = 0; i < p->starts.size(); ++i) p->axes.push_back(int64_t(i));
  if (p->steps.empty()) p->steps.assign(p->starts.size(), 1);
  if (p->ends.size() != p->starts.size() || p->axes.size() != p->starts.size() || p->steps.size() != p->starts.size())
    return Status::invalid("Slice starts/ends/axes/steps lengths differ");
  // Positions kept along every axis (all of them for axes not sliced).
  std::vector<std::vector<int64_t>> pos(static_cast<size_t>(rank));
  std::vector<bool> sliced(size_t(rank), false);
  for (size_t i = 0; i < p->starts.size(); ++i) {
    int64_t a = normAxis(p->axes[i], rank);
    if (a < 0 || a >= rank) return Status::invalid("Slice axis out of range");
    if (sliced[size_t(a)]) return Status::invalid("Slice axis " + std::to_string(a) + " given twice");
    if (p->steps[i] == 0) return Status::invalid("Slice step 0");
    sliced[size_t(a)] = true;
    pos[size_t(a)] = slicePositions(x.shape[size_t(a)], p->starts[i], p->ends[i], p->steps[i]);
  }
  if (x.isConst()) {
    Tensor t = *x.c;
    for (int64_t a = 0; a < rank; ++a)
      if (sliced[size_t(a)]) t = takeConst(t, a, pos[size_t(a)]);
    im.setConst(n, 0, std::move(t));
    return Status::ok();
  }
  Shape outShape = x.shape;
  for (int64_t a = 0; a < rank; ++a)
    if (sliced[size_t(a)]) outShape[size_t(a)] = int64_t(pos[size_t(a)].size());
  TK_RETURN_IF_ERROR(noZeroSize(outShape, "the Slice result"));
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  // Work in the stored layout (an NHWC value stays NHWC): logical axis a is stored at kNhwcPos[a].
  const Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  auto stored = [&](int64_t a) { return l == Layout::Nhwc ? kNhwcPos[a] : a; };
  // One slice to the bounding box of the kept positions, then per-axis reverses / strides.
  Value* y = *v;
  {
    Shape begin(size_t(rank), 0), size = y->type.dims;
    bool whole = true;
    for (int64_t a = 0; a < rank; ++a) {
      if (!sliced[size_t(a)]) continue;
      const auto& q = pos[size_t(a)];
      int64_t lo = *std::min_element(q.begin(), q.end()), hi = *std::max_element(q.begin(), q.end());
      begin[size_t(stored(a))] = lo;
      size[size_t(stored(a))] = hi - lo + 1;
      whole &= lo == 0 && hi - lo + 1 == x.shape[size_t(a)];
      for (auto& i : pos[size_t(a)]) i -= lo;
    }
    if (!whole)
      y = im.b.op1("tosa.slice", {y, im.b.constShape(begin, im.aux("start")), im.b.constShape(size, im.aux("size"))},
                   ValueType::tensor(y->type.dtype, size), {}, im.aux("slice"));
  }
  for (int64_t a = 0; a < rank; ++a) {
    if (!sliced[size_t(a)]) continue;
    const auto& q = pos[size_t(a)];
    bool identity = int64_t(q.size()) == y->type.dims[size_t(stored(a))];
    for (size_t j = 0; j < q.size() && identity; ++j) identity = q[j] == int64_t(j);
    if (!identity) y = takeAlongAxis(im, y, stored(a), q);
  }
  nameResult(im, y);
  im.setValue(n, 0, y, l, x.dtype);
  return Status::ok();
}

// ---- Split ----

Status opSplit(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  const int64_t rank = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid("Split axis out of range");
  const int64_t dim = x.shape[size_t(axis)];
  const int outs = n.output_size();
  std::vector<int64_t> sizes;
  if (im.hasInput(n, 1)) {
    auto s = im.constInput(n, 1, "split");
    if (!s) return s.status();
    sizes = (*s)->toInts();
  } else if (auto a = im.attrInts(n, "split")) {
    sizes = *a;
  } else {
    // Equal parts; with num_outputs (opset 18) the last part may be smaller.
    int64_t parts = im.attrInt(n, "num_outputs", outs);
    if (parts <= 0) return Status::invalid("Split into " + std::to_string(parts) + " parts");
    int64_t each = (dim + parts - 1) / parts;
    if (!im.attr(n, "num_outputs") && dim % parts != 0)
      return Status::invalid("Split of " + std::to_string(dim) + " into " + std::to_string(parts) + " equal parts");
    for (int64_t i = 0, left = dim; i < parts; ++i, left -= each) sizes.push_back(std::min(each, left));
  }
  if (int64_t(sizes.size()) != outs)
    return Status::invalid("Split has " + std::to_string(outs) + " outputs but " + std::to_string(sizes.size()) +
                           " split sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return Status::invalid("negative Split size");
    total += s;
  }
  if (total != dim)
    return Status::invalid("Split sizes add up to " + std::to_string(total) + ", the axis has " + std::to_string(dim));
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  Value* v = nullptr;
  if (!x.isConst()) {
    auto rt = im.rtType(x);
    if (!rt) return rt.status();
    auto g = im.get(x, l);
    if (!g) return g.status();
    v = *g;
  }
  const int64_t storedAxis = l == Layout::Nhwc ? kNhwcPos[axis] : axis;
  for (int i = 0, start = 0; i < outs; start += int(sizes[size_t(i)]), ++i) {
    if (!im.hasOutput(n, i)) continue;
    if (x.isConst()) {
      std::vector<int64_t> idx(static_cast<size_t>(sizes[size_t(i)]));
      std::iota(idx.begin(), idx.end(), int64_t(start));
      im.setConst(n, i, takeConst(*x.c, axis, idx));
      continue;
    }
    Shape os = x.shape;
    os[size_t(axis)] = sizes[size_t(i)];
    TK_RETURN_IF_ERROR(noZeroSize(os, "Split output " + std::to_string(i)));
    Value* part = sliceAxis(im, v, storedAxis, start, sizes[size_t(i)]);
    part->definingOp->loc.name = im.aux("out" + std::to_string(i));
    im.setValue(n, i, part, l, x.dtype);
  }
  return Status::ok();
}

// ---- Pad ----

// Position along an axis of size dim read by padded position p (p < 0 or >= dim: outside), -1 for the pad
// value.
int64_t padSource(const std::string& mode, int64_t p, int64_t dim) {
  if (p >= 0 && p < dim) return p;
  if (mode == "constant") return -1;
  if (mode == "edge") return p < 0 ? 0 : dim - 1;
  if (mode == "wrap") return ((p % dim) + dim) % dim;
  // reflect (mirror without repeating the edge): period 2*(dim-1)
  if (dim == 1) return 0;
  const int64_t period = 2 * (dim - 1);
  int64_t q = ((p % period) + period) % period;
  return q < dim ? q : period - q;
}

Status opPad(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  const int64_t rank = int64_t(x.shape.size());
  const std::string mode = im.attrStr(n, "mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
    return Status::invalid("Pad mode '" + mode + "'");
  std::vector<int64_t> pads;
  double value = 0;
  std::vector<int64_t> axes;
  if (im.opset < 11) {
    pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{});
    value = im.attrFloat(n, "value", 0.0f);
  } else {
    auto p = im.constInput(n, 1, "pads");
    if (!p) return p.status();
    pads = (*p)->toInts();
    if (im.hasInput(n, 2)) {
      auto c = im.constInput(n, 2, "constant_value");
      if (!c) return c.status();
      if ((*c)->size() != 1) return Status::invalid("Pad constant_value must hold one value");
      value = (*c)->getFloat(0);
    }
    if (im.hasInput(n, 3)) {
      auto a = im.constInput(n, 3, "axes");
      if (!a) return a.status();
      axes = (*a)->toInts();
    }
  }
  if (axes.empty())
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  if (pads.size() != 2 * axes.size())
    return Status::invalid("Pad has " + std::to_string(pads.size()) + " pads for " + std::to_string(axes.size()) +
                           " axes");
  std::vector<int64_t> before(size_t(rank), 0), after(size_t(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = normAxis(axes[i], rank);
    if (a < 0 || a >= rank) return Status::invalid("Pad axis out of range");
    before[size_t(a)] = pads[i];
    after[size_t(a)] = pads[i + axes.size()];
  }
  Shape outShape = x.shape;
  for (int64_t a = 0; a < rank; ++a) {
    outShape[size_t(a)] += before[size_t(a)] + after[size_t(a)];
    if (outShape[size_t(a)] < 0) return Status::invalid("Pad crops more than the input has");
    if (mode != "constant" && x.shape[size_t(a)] == 0 && outShape[size_t(a)] > 0)
      return Status::invalid("Pad " + mode + " of an empty axis");
  }
  // Positions read along each padded axis.
  auto positions = [&](int64_t a) {
    std::vector<int64_t> idx;
    for (int64_t j = 0; j < outShape[size_t(a)]; ++j)
      idx.push_back(padSource(mode, j - before[size_t(a)], x.shape[size_t(a)]));
    return idx;
  };
  if (x.isConst()) {
    Tensor fill(x.c->dtype(), {1});
    if (isFloat(fill.dtype()))
      fill.setFloat(0, value);
    else
      fill.setInt(0, int64_t(value));
    Tensor t = *x.c;
    for (int64_t a = 0; a < rank; ++a)
      if (before[size_t(a)] || after[size_t(a)]) t = takeConst(t, a, positions(a), &fill);
    im.setConst(n, 0, std::move(t));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(noZeroSize(outShape, "the Pad result"));
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  const Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  auto stored = [&](int64_t a) { return l == Layout::Nhwc ? kNhwcPos[a] : a; };
  Value* y = *v;
  if (mode == "constant") {
    // Crop the negative pads, then one tosa.pad.
    std::vector<int64_t> padding(size_t(2 * rank), 0);
    for (int64_t a = 0; a < rank; ++a) {
      int64_t b = before[size_t(a)], e = after[size_t(a)], sa = stored(a);
      if (b < 0 || e < 0) {
        int64_t lo = std::max<int64_t>(-b, 0), hi = std::max<int64_t>(-e, 0);
        y = sliceAxis(im, y, sa, lo, x.shape[size_t(a)] - lo - hi);
      }
      padding[size_t(2 * sa)] = std::max<int64_t>(b, 0);
      padding[size_t(2 * sa + 1)] = std::max<int64_t>(e, 0);
    }
    if (isUnsignedBits(x.dtype) && value > 127) value -= 256;  // the same bits in i8
    y = padShape(im, y, padding, value);
  } else {
    for (int64_t a = 0; a < rank; ++a)
      if (before[size_t(a)] || after[size_t(a)]) y = takeAlongAxis(im, y, stored(a), positions(a));
  }
  nameResult(im, y);
  im.setValue(n, 0, y, l, x.dtype);
  return Status::ok();
}

// ---- Tile / Expand ----

// Constant fold of a tile: output position i reads i % dim along every axis.
Tensor tileConst(const Tensor& t, const Shape& multiples) {
  Tensor out = t;
  for (size_t a = 0; a < multiples.size(); ++a) {
    if (multiples[a] == 1) continue;
    std::vector<int64_t> idx;
    for (int64_t j = 0; j < t.shape()[a] * multiples[a]; ++j) idx.push_back(j % t.shape()[a]);
    out = takeConst(out, int64_t(a), idx);
  }
  return out;
}

Status opTile(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto r = im.constInput(n, 1, "repeats");
  if (!r) return r.status();
  Shape reps = (*r)->toInts();
  if (reps.size() != x.shape.size()) return Status::invalid("Tile repeats length differs from the input rank");
  for (int64_t m : reps)
    if (m < 0) return Status::invalid("negative Tile repeat");
  Shape out = x.shape;
  for (size_t i = 0; i < out.size(); ++i) {
    auto d = checkedMul(out[i], reps[i]);
    if (!d) return Status::invalid("Tile of " + shapeToString(x.shape) + " by " + shapeToString(reps) + " overflows");
    out[i] = *d;
  }
  if (x.isConst()) {
    TK_RETURN_IF_ERROR(checkAllocation(x.dtype, out, "the Tile result"));
    im.setConst(n, 0, tileConst(*x.c, reps));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(noZeroSize(out, "the Tile result"));
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  const Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  Value* y = tileShape(im, *v, l == Layout::Nhwc ? permuteShape(reps, kToNhwc) : reps);
  nameResult(im, y);
  im.setValue(n, 0, y, l, x.dtype);
  return Status::ok();
}

Status opExpand(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto s = im.constInput(n, 1, "shape");
  if (!s) return s.status();
  Shape want = (*s)->toInts();
  auto out = numpyBroadcast(x.shape, want);
  if (!out) return Status::invalid("Expand of " + shapeToString(x.shape) + " to " + shapeToString(want));
  Shape in = withRank(x.shape, out->size());
  Shape reps(out->size(), 1);
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != (*out)[i]) reps[i] = (*out)[i];  // in[i] is 1 here
  if (x.isConst()) {
    TK_RETURN_IF_ERROR(checkAllocation(x.dtype, *out, "the Expand result"));
    im.setConst(n, 0, tileConst(reshapeTensor(*x.c, in), reps));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(noZeroSize(*out, "the Expand result"));
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  const Layout l = x.prefersNhwc() && in.size() == 4 ? Layout::Nhwc : Layout::Plain;
  Value* y;
  if (l == Layout::Nhwc) {
    auto v = im.get(x, l);
    if (!v) return v.status();
    y = tileShape(im, *v, permuteShape(reps, kToNhwc));
  } else {
    auto v = im.getAsRank(x, in.size(), Layout::Plain);
    if (!v) return v.status();
    y = tileShape(im, *v, reps);
  }
  nameResult(im, y);
  im.setValue(n, 0, y, l, x.dtype);
  return Status::ok();
}

// ---- index arithmetic (i32) ----

// A run-time index tensor wrapped into [0, dim): idx < 0 ? idx + dim : idx. `dim`: a constant of idx's rank
// (broadcast).
Value* wrapNegative(Importer& im, Value* idx, Value* dim) {
  const size_t r = idx->type.dims.size();
  Value* neg = im.binary("tosa.greater", im.scalarOf(DType::I32, 0, r), idx, DType::Bool);
  Value* plus = im.binary("tosa.add", idx, dim, DType::I32);
  return im.b.op1("tosa.select", {neg, plus, idx}, plus->type, {}, im.aux("select"));
}

// The indices input as i32 (int64 runs as i32 already; int8/16 widen).
Result<Value*> indexValue(Importer& im, OVal& idx) {
  if (isFloat(idx.dtype) || idx.dtype == DType::Bool) return Status::invalid("indices must be integers");
  auto v = plainOf(im, idx);
  if (!v) return v;
  return im.castTo(*v, DType::I32);
}

// Row-major strides of a shape.
std::vector<int64_t> stridesOf(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

// GatherElements / ScatterElements: the flat element number of data for every position of `indices`
// (the position's own coordinates, with the axis coordinate taken from indices), as [1, count] i32.
Result<Value*> elementRows(Importer& im, OVal& indices, const Shape& dataShape, int64_t axis) {
  const Shape& is = indices.shape;
  if (is.size() != dataShape.size()) return Status::invalid("indices rank differs from the data rank");
  const auto dst = stridesOf(dataShape);
  const int64_t count = numElements(is), dim = dataShape[size_t(axis)];
  // Constant part: sum over the other axes of coordinate * stride.
  std::vector<int64_t> base(size_t(count), 0), coord(is.size(), 0);
  for (int64_t e = 0; e < count; ++e) {
    for (size_t d = 0; d < is.size(); ++d)
      if (int64_t(d) != axis) base[size_t(e)] += coord[d] * dst[d];
    for (size_t d = is.size(); d-- > 0;) {
      if (++coord[d] < is[d]) break;
      coord[d] = 0;
    }
  }
  if (indices.isConst()) {
    for (int64_t e = 0; e < count; ++e) {
      int64_t k = indices.c->getInt(e);
      if (k < -dim || k >= dim) return Status::invalid("index " + std::to_string(k) + " out of range");
      base[size_t(e)] += (k < 0 ? k + dim : k) * dst[size_t(axis)];
    }
    return i32Const(im, {1, count}, base, "rows");
  }
  auto iv = indexValue(im, indices);
  if (!iv) return iv;
  const size_t r = is.size();
  Value* k = wrapNegative(im, *iv, im.scalarOf(DType::I32, double(dim), r));
  if (dst[size_t(axis)] != 1) k = im.b.mul(k, im.scalarOf(DType::I32, double(dst[size_t(axis)]), r), 0, im.aux("mul"));
  Value* rows = im.binary("tosa.add", k, i32Const(im, is, base, "base"), DType::I32);
  return im.b.reshape(rows, {1, count}, im.aux("reshape"));
}

// ---- Gather family ----

Status opGather(Importer& im, const NodeProto& n) {
  OVal& data = im.val(n, 0);
  OVal& ix = im.val(n, 1);
  const Shape& ds = data.shape;
  const int64_t axis = normAxis(im.attrInt(n, "axis", 0), int64_t(ds.size()));
  if (axis < 0 || axis >= int64_t(ds.size())) return Status::invalid("Gather axis out of range");
  const int64_t dim = ds[size_t(axis)];
  Shape os(ds.begin(), ds.begin() + axis);
  for (int64_t v : ix.shape) os.push_back(v);
  os.insert(os.end(), ds.begin() + axis + 1, ds.end());
  if (ix.isConst()) {
    std::vector<int64_t> idx;
    for (int64_t k = 0; k < ix.c->size(); ++k) {
      int64_t j = ix.c->getInt(k);
      if (j < -dim || j >= dim) return Status::invalid("Gather index " + std::to_string(j) + " out of range");
      idx.push_back(j < 0 ? j + dim : j);
    }
    if (data.isConst()) {
      im.setConst(n, 0, reshapeTensor(takeConst(*data.c, axis, idx), os));
      return Status::ok();
    }
    TK_RETURN_IF_ERROR(noZeroSize(os, "the Gather result"));
    auto v = plainOf(im, data);
    if (!v) return v.status();
    Value* y = im.reshapeTo(takeAlongAxis(im, *v, axis, idx), os, im.aux("reshape"));
    setPlain(im, n, 0, y, data.dtype);
    return Status::ok();
  }
  // Run-time indices: rows o*dim + idx of data viewed as [1, outer*dim, inner].
  TK_RETURN_IF_ERROR(noZeroSize(os, "the Gather result"));
  auto v = plainOf(im, data);
  if (!v) return v.status();
  auto iv = indexValue(im, ix);
  if (!iv) return iv.status();
  const int64_t outer = prodRange(ds, 0, size_t(axis)), inner = prodRange(ds, size_t(axis) + 1, ds.size());
  const int64_t w = numElements(ix.shape);
  Value* k = im.b.reshape(*iv, {1, w}, im.aux("reshape"));
  k = wrapNegative(im, k, im.scalarOf(DType::I32, double(dim), 2));
  if (outer > 1) {
    std::vector<int64_t> off;
    for (int64_t o = 0; o < outer; ++o) off.push_back(o * dim);
    k = im.binary("tosa.add", k, i32Const(im, {outer, 1}, off, "offsets"), DType::I32);
    k = im.b.reshape(k, {1, outer * w}, im.aux("reshape"));
  }
  Value* values = im.reshapeTo(*v, {1, outer * dim, inner}, im.aux("reshape"));
  Value* y = im.b.reshape(gatherRows(im, values, k), os, im.aux("reshape"));
  setPlain(im, n, 0, y, data.dtype);
  return Status::ok();
}

Status opGatherElements(Importer& im, const NodeProto& n) {
  OVal& data = im.val(n, 0);
  OVal& ix = im.val(n, 1);
  const int64_t rank = int64_t(data.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid("GatherElements axis out of range");
  TK_RETURN_IF_ERROR(noZeroSize(ix.shape, "the GatherElements result"));
  auto rows = elementRows(im, ix, data.shape, axis);
  if (!rows) return rows.status();
  auto v = plainOf(im, data);
  if (!v) return v.status();
  Value* values = im.reshapeTo(*v, {1, numElements(data.shape), 1}, im.aux("reshape"));
  Value* y = im.b.reshape(gatherRows(im, values, *rows), ix.shape, im.aux("reshape"));
  setPlain(im, n, 0, y, data.dtype);
  return Status::ok();
}

// GatherND / ScatterND: data rows addressed by the last axis of indices (k coordinates after `batch` batch
// axes). Returns [1, P] i32 row numbers of data viewed as [1, prod(data[:batch+k]), prod(data[batch+k:])].
Result<Value*> ndRows(Importer& im, OVal& ix, const Shape& ds, int64_t batch) {
  const Shape& is = ix.shape;
  if (is.empty()) return Status::invalid("indices must have rank >= 1");
  const int64_t k = is.back();
  if (batch < 0 || batch + k > int64_t(ds.size()) || batch >= int64_t(is.size()))
    return Status::invalid("indices last dim " + std::to_string(k) + " does not fit the data rank");
  for (int64_t b = 0; b < batch; ++b)
    if (is[size_t(b)] != ds[size_t(b)]) return Status::invalid("batch dims of data and indices differ");
  const int64_t P = prodRange(is, 0, is.size() - 1);
  const int64_t perBatch = prodRange(ds, size_t(batch), size_t(batch + k));
  const int64_t positionsPerBatch = P / std::max<int64_t>(prodRange(is, 0, size_t(batch)), 1);
  Shape sub(ds.begin() + batch, ds.begin() + batch + k);
  const auto st = stridesOf(sub);
  std::vector<int64_t> base(static_cast<size_t>(P));
  for (int64_t p = 0; p < P; ++p) base[size_t(p)] = (p / positionsPerBatch) * perBatch;
  if (ix.isConst()) {
    for (int64_t p = 0; p < P; ++p)
      for (int64_t j = 0; j < k; ++j) {
        int64_t c = ix.c->getInt(p * k + j), d = sub[size_t(j)];
        if (c < -d || c >= d) return Status::invalid("index " + std::to_string(c) + " out of range");
        base[size_t(p)] += (c < 0 ? c + d : c) * st[size_t(j)];
      }
    return i32Const(im, {1, P}, base, "rows");
  }
  auto iv = indexValue(im, ix);
  if (!iv) return iv;
  Value* c = im.b.reshape(*iv, {P, k}, im.aux("reshape"));
  c = wrapNegative(im, c, i32Const(im, {1, k}, std::vector<int64_t>(sub.begin(), sub.end()), "dims"));
  c = im.b.mul(c, i32Const(im, {1, k}, st, "strides"), 0, im.aux("mul"));
  if (k > 1)
    c = im.b.op1("tosa.reduce_sum", {c}, ValueType::tensor(DType::I32, {P, 1}),
                 {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux("reduce_sum"));
  bool zeroBase = std::all_of(base.begin(), base.end(), [](int64_t b) { return b == 0; });
  if (!zeroBase) c = im.binary("tosa.add", c, i32Const(im, {P, 1}, base, "base"), DType::I32);
  return im.b.reshape(c, {1, P}, im.aux("reshape"));
}

Status opGatherND(Importer& im, const NodeProto& n) {
  OVal& data = im.val(n, 0);
  OVal& ix = im.val(n, 1);
  const Shape &ds = data.shape, &is = ix.shape;
  const int64_t batch = im.attrInt(n, "batch_dims", 0);
  auto rows = ndRows(im, ix, ds, batch);
  if (!rows) return rows.status();
  const size_t used = size_t(batch + is.back());
  Shape os(is.begin(), is.end() - 1);
  os.insert(os.end(), ds.begin() + int64_t(used), ds.end());
  TK_RETURN_IF_ERROR(noZeroSize(os, "the GatherND result"));
  auto v = plainOf(im, data);
  if (!v) return v.status();
  Value* values = im.reshapeTo(*v, {1, prodRange(ds, 0, used), prodRange(ds, used, ds.size())}, im.aux("reshape"));
  Value* y = im.b.reshape(gatherRows(im, values, *rows), os, im.aux("reshape"));
  setPlain(im, n, 0, y, data.dtype);
  return Status::ok();
}

// values [1,K,C] with updates [1,P,C] written at rows [1,P]: tosa.scatter for plain writes; add / mul
// reductions combine every update addressed to a row (duplicates included) through a one-hot mask.
Result<Value*> scatterCombine(Importer& im, Value* values, Value* rows, Value* updates, const std::string& reduction) {
  if (reduction == "none" || reduction.empty()) return scatterRows(im, values, rows, updates);
  const DType t = values->type.dtype;
  const int64_t K = values->type.dims[1], C = values->type.dims[2], P = rows->type.dims[1];
  if (reduction != "add" && reduction != "mul")
    return Status::unsupported("scatter reduction '" + reduction + "' (only none, add, mul)");
  if (reduction == "mul" && !isFloat(t))
    return Status::unsupported("scatter reduction 'mul' on integers (TOSA's REDUCE_PRODUCT is floating-point only)");
  if (reduction == "add" && !isFloat(t) && t != DType::I32)
    return Status::unsupported("scatter reduction 'add' on " + std::string(dtypeName(t)));
  std::vector<int64_t> iota(static_cast<size_t>(K));
  std::iota(iota.begin(), iota.end(), 0);
  Value* r = im.b.reshape(rows, {P, 1, 1}, im.aux("reshape"));
  Value* hit = im.binary("tosa.equal", r, i32Const(im, {1, K, 1}, iota, "iota"), DType::Bool);  // [P,K,1]
  Value* u = im.b.reshape(updates, {P, 1, C}, im.aux("reshape"));
  const bool add = reduction == "add";
  Value* neutral = im.scalarOf(t, add ? 0.0 : 1.0, 3);
  Value* picked = im.b.op1("tosa.select", {hit, u, neutral}, ValueType::tensor(t, {P, K, C}), {}, im.aux("select"));
  const std::string red = add ? "tosa.reduce_sum" : "tosa.reduce_product";
  Value* folded = im.b.op1(red, {picked}, ValueType::tensor(t, {1, K, C}),
                           {{"axis", ir::Attribute::integer(0, DType::I32)}}, im.aux(red.substr(5)));
  return add ? im.binary("tosa.add", values, folded, t) : im.b.mul(values, folded, 0, im.aux("mul"));
}

Status opScatterElements(Importer& im, const NodeProto& n) {
  OVal& data = im.val(n, 0);
  OVal& ix = im.val(n, 1);
  OVal& upd = im.val(n, 2);
  const int64_t rank = int64_t(data.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid(n.op_type() + " axis out of range");
  if (upd.shape != ix.shape) return Status::invalid("updates shape differs from the indices shape");
  TK_RETURN_IF_ERROR(noZeroSize(data.shape, "the " + n.op_type() + " data"));
  TK_RETURN_IF_ERROR(noZeroSize(ix.shape, "the " + n.op_type() + " indices"));
  auto rows = elementRows(im, ix, data.shape, axis);
  if (!rows) return rows.status();
  auto v = plainOf(im, data);
  if (!v) return v.status();
  auto u = plainOf(im, upd);
  if (!u) return u.status();
  const int64_t total = numElements(data.shape), count = numElements(ix.shape);
  Value* values = im.reshapeTo(*v, {1, total, 1}, im.aux("reshape"));
  Value* updates = im.reshapeTo(*u, {1, count, 1}, im.aux("reshape"));
  auto y = scatterCombine(im, values, *rows, updates, im.attrStr(n, "reduction", "none"));
  if (!y) return y.status();
  setPlain(im, n, 0, im.b.reshape(*y, data.shape, im.aux("reshape")), data.dtype);
  return Status::ok();
}

Status opScatterND(Importer& im, const NodeProto& n) {
  OVal& data = im.val(n, 0);
  OVal& ix = im.val(n, 1);
  OVal& upd = im.val(n, 2);
  const Shape &ds = data.shape, &is = ix.shape;
  TK_RETURN_IF_ERROR(noZeroSize(ds, "the ScatterND data"));
  TK_RETURN_IF_ERROR(noZeroSize(is, "the ScatterND indices"));
  auto rows = ndRows(im, ix, ds, 0);
  if (!rows) return rows.status();
  const size_t k = size_t(is.back());
  Shape us(is.begin(), is.end() - 1);
  us.insert(us.end(), ds.begin() + int64_t(k), ds.end());
  if (upd.shape != us)
    return Status::invalid("ScatterND updates shape " + shapeToString(upd.shape) + ", want " + shapeToString(us));
  auto v = plainOf(im, data);
  if (!v) return v.status();
  auto u = plainOf(im, upd);
  if (!u) return u.status();
  const int64_t K = prodRange(ds, 0, k), C = prodRange(ds, k, ds.size()), P = prodRange(is, 0, is.size() - 1);
  Value* values = im.reshapeTo(*v, {1, K, C}, im.aux("reshape"));
  Value* updates = im.reshapeTo(*u, {1, P, C}, im.aux("reshape"));
  auto y = scatterCombine(im, values, *rows, updates, im.attrStr(n, "reduction", "none"));
  if (!y) return y.status();
  setPlain(im, n, 0, im.b.reshape(*y, ds, im.aux("reshape")), data.dtype);
  return Status::ok();
}

// ---- DepthToSpace / SpaceToDepth (reshape, transpose, reshape; in NHWC when the input is stored so) ----

Status opDepthSpace(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (x.shape.size() != 4) return Status::invalid(n.op_type() + " needs a rank-4 input");
  const int64_t bs = im.attrInt(n, "blocksize", 0);
  if (bs <= 0) return Status::invalid(n.op_type() + " blocksize must be positive");
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const bool toSpace = n.op_type() == "DepthToSpace";
  const bool crd = im.attrStr(n, "mode", "DCR") == "CRD";
  if (toSpace && C % (bs * bs)) return Status::invalid("DepthToSpace channels not divisible by blocksize^2");
  if (!toSpace && (H % bs || W % bs)) return Status::invalid("SpaceToDepth spatial dims not divisible by blocksize");
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  Value* y;
  if (x.isConst() || !x.prefersNhwc()) {
    auto v = im.get(x, Layout::Plain);
    if (!v) return v.status();
    // NCHW: the ONNX operator definitions literally.
    if (toSpace) {
      const int64_t c = C / (bs * bs);
      Value* r = crd ? im.b.reshape(*v, {N, c, bs, bs, H, W}, im.aux("reshape"))
                     : im.b.reshape(*v, {N, bs, bs, c, H, W}, im.aux("reshape"));
      r = crd ? im.b.transpose(r, {0, 1, 4, 2, 5, 3}, im.aux("transpose"))
              : im.b.transpose(r, {0, 3, 4, 1, 5, 2}, im.aux("transpose"));
      y = im.b.reshape(r, {N, c, H * bs, W * bs}, im.aux("reshape"));
    } else {
      Value* r = im.b.reshape(*v, {N, C, H / bs, bs, W / bs, bs}, im.aux("reshape"));
      r = im.b.transpose(r, {0, 3, 5, 1, 2, 4}, im.aux("transpose"));
      y = im.b.reshape(r, {N, C * bs * bs, H / bs, W / bs}, im.aux("reshape"));
    }
    setPlain(im, n, 0, y, x.dtype);
    return Status::ok();
  }
  auto v = im.get(x, Layout::Nhwc);  // [N,H,W,C]
  if (!v) return v.status();
  if (toSpace) {
    const int64_t c = C / (bs * bs);
    Value* r = crd ? im.b.reshape(*v, {N, H, W, c, bs, bs}, im.aux("reshape"))
                   : im.b.reshape(*v, {N, H, W, bs, bs, c}, im.aux("reshape"));
    r = crd ? im.b.transpose(r, {0, 1, 4, 2, 5, 3}, im.aux("transpose"))
            : im.b.transpose(r, {0, 1, 3, 2, 4, 5}, im.aux("transpose"));
    y = im.b.reshape(r, {N, H * bs, W * bs, c}, im.aux("reshape"));
  } else {
    Value* r = im.b.reshape(*v, {N, H / bs, bs, W / bs, bs, C}, im.aux("reshape"));
    r = im.b.transpose(r, {0, 1, 3, 2, 4, 5}, im.aux("transpose"));
    y = im.b.reshape(r, {N, H / bs, W / bs, bs * bs * C}, im.aux("reshape"));
  }
  nameResult(im, y);
  im.setValue(n, 0, y, Layout::Nhwc, x.dtype);
  return Status::ok();
}

// ---- Compress (constant condition) ----

Status opCompress(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (!im.val(n, 1).isConst())
    return Status::unsupported("Compress with a run-time condition (the output shape depends on the data)");
  const Tensor& cond = *im.val(n, 1).c;
  const auto* axisAttr = im.attr(n, "axis");
  Shape shape = axisAttr ? x.shape : Shape{numElements(x.shape)};
  const int64_t axis = axisAttr ? normAxis(axisAttr->i(), int64_t(shape.size())) : 0;
  if (axis < 0 || axis >= int64_t(shape.size())) return Status::invalid("Compress axis out of range");
  std::vector<int64_t> idx;
  for (int64_t i = 0; i < cond.size() && i < shape[size_t(axis)]; ++i)
    if (cond.getInt(i)) idx.push_back(i);
  if (x.isConst()) {
    im.setConst(n, 0, takeConst(reshapeTensor(*x.c, shape), axis, idx));
    return Status::ok();
  }
  Shape os = shape;
  os[size_t(axis)] = int64_t(idx.size());
  TK_RETURN_IF_ERROR(noZeroSize(os, "the Compress result"));
  auto v = plainOf(im, x);
  if (!v) return v.status();
  Value* y = takeAlongAxis(im, im.reshapeTo(*v, shape, im.aux("reshape")), axis, idx);
  setPlain(im, n, 0, y, x.dtype);
  return Status::ok();
}

// ---- OneHot: equal(indices, iota) selects on/off values ----

Status opOneHot(Importer& im, const NodeProto& n) {
  OVal& ix = im.val(n, 0);
  auto d = im.constInput(n, 1, "depth");
  if (!d) return d.status();
  if ((*d)->size() != 1) return Status::invalid("OneHot depth must hold one value");
  const double depthValue = (*d)->getFloat(0);  // checked before the int64 conversion (NaN, 1e300)
  if (!(depthValue < 0x1p62)) return Status::invalid("OneHot depth " + std::to_string(depthValue) + " is too large");
  const int64_t depth = int64_t(depthValue);
  if (depth <= 0) return Status::invalid("OneHot depth must be positive");
  TK_RETURN_IF_ERROR(checkAllocationElements(depth, 8, "the OneHot depth"));
  OVal& vals = im.val(n, 2);
  if (vals.shape.size() != 1 || vals.shape[0] != 2) return Status::invalid("OneHot values must be [off, on]");
  const int64_t outRank = int64_t(ix.shape.size()) + 1;
  const int64_t axis = normAxis(im.attrInt(n, "axis", -1), outRank);
  if (axis < 0 || axis >= outRank) return Status::invalid("OneHot axis out of range");
  Shape os = ix.shape;
  os.insert(os.begin() + axis, depth);
  Shape is1 = ix.shape;
  is1.insert(is1.begin() + axis, 1);
  TK_RETURN_IF_ERROR(noZeroSize(os, "the OneHot result"));
  auto iv = plainOf(im, ix);
  if (!iv) return iv.status();
  // ONNX casts indices to integers; negative ones count from the end.
  Value* k = im.castTo(*iv, DType::I32);
  k = im.reshapeTo(k, is1, im.aux("reshape"));
  k = wrapNegative(im, k, im.scalarOf(DType::I32, double(depth), size_t(outRank)));
  Shape iotaShape(size_t(outRank), 1);
  iotaShape[size_t(axis)] = depth;
  std::vector<int64_t> iota(static_cast<size_t>(depth));
  std::iota(iota.begin(), iota.end(), 0);
  Value* hit = im.binary("tosa.equal", k, i32Const(im, iotaShape, iota, "iota"), DType::Bool);
  auto vv = plainOf(im, vals);
  if (!vv) return vv.status();
  const Shape ones(size_t(outRank), 1);
  Value* off = im.b.reshape(sliceAxis(im, *vv, 0, 0, 1), ones, im.aux("reshape"));
  Value* on = im.b.reshape(sliceAxis(im, *vv, 0, 1, 1), ones, im.aux("reshape"));
  Value* y = im.b.op1("tosa.select", {hit, on, off}, ValueType::tensor((*vv)->type.dtype, os), {}, im.loc);
  im.setValue(n, 0, y, Layout::Plain, vals.dtype);
  return Status::ok();
}

// ---- Trilu: a mask selects x or 0 (constant for a constant k; j - i compared with a run-time k otherwise) ----

// The run-time k of a Trilu as an i32 value of rank r (all dims 1); nullptr when k is absent or constant.
Result<Value*> triluRunTimeK(Importer& im, const NodeProto& n, size_t r) {
  if (!im.hasInput(n, 1) || im.val(n, 1).isConst()) return static_cast<Value*>(nullptr);
  OVal& kv = im.val(n, 1);
  if (numElements(kv.shape) != 1) return Status::invalid("Trilu k must be a scalar");
  auto v = plainOf(im, kv);
  if (!v) return v.status();
  if (!isInteger((*v)->type.dtype)) return Status::invalid("Trilu k must be an integer");
  return im.reshapeTo(*v, Shape(r, 1), im.aux("k"));
}

Status opTrilu(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  const size_t r = x.shape.size();
  if (r < 2) return Status::invalid("Trilu needs rank >= 2");
  int64_t k = 0;
  auto kRun = triluRunTimeK(im, n, r);
  if (!kRun) return kRun.status();
  if (im.hasInput(n, 1) && !*kRun) {
    auto kt = im.constInput(n, 1, "k");
    if (!kt) return kt.status();
    k = (*kt)->getInt(0);
  }
  const bool upper = im.attrInt(n, "upper", 1) != 0;
  const int64_t R = x.shape[r - 2], C = x.shape[r - 1];
  auto keep = [&](int64_t i, int64_t j) { return upper ? j - i >= k : j - i <= k; };
  if (x.isConst() && !*kRun) {
    Tensor t = *x.c;
    for (int64_t e = 0; e < t.size(); ++e) {
      int64_t j = e % C, i = (e / C) % R;
      if (!keep(i, j)) t.setInt(e, 0);  // the zero bit pattern for every type
    }
    im.setConst(n, 0, std::move(t));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(noZeroSize(x.shape, "the Trilu input"));
  auto v = plainOf(im, x);
  if (!v) return v.status();
  Shape ms(r, 1);
  ms[r - 2] = R;
  ms[r - 1] = C;
  std::vector<int64_t> mask, diagonal;
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      mask.push_back(keep(i, j));
      diagonal.push_back(j - i);
    }
  Value* m = nullptr;
  if (*kRun) {  // upper: j - i >= k; lower: k >= j - i
    Value* d = im.b.constant(Tensor::fromInts((*kRun)->type.dtype, ms, diagonal), im.aux("diagonal"));
    m = upper ? im.binary("tosa.greater_equal", d, *kRun, DType::Bool)
              : im.binary("tosa.greater_equal", *kRun, d, DType::Bool);
  } else {
    m = im.b.constant(Tensor::fromInts(DType::Bool, ms, mask), im.aux("mask"));
  }
  Value* zero = im.scalarOf((*v)->type.dtype, 0, r);
  Value* y = im.b.op1("tosa.select", {m, *v, zero}, (*v)->type, {}, im.loc);
  im.setValue(n, 0, y, Layout::Plain, x.dtype);
  return Status::ok();
}

// ---- ReverseSequence: a gather whose source time step is len-1-t for t < len, else t ----

Status opReverseSequence(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  OVal& lens = im.val(n, 1);
  const int64_t timeAxis = im.attrInt(n, "time_axis", 0), batchAxis = im.attrInt(n, "batch_axis", 1);
  if (x.shape.size() < 2 || !((timeAxis == 0 && batchAxis == 1) || (timeAxis == 1 && batchAxis == 0)))
    return Status::invalid("ReverseSequence time_axis/batch_axis must be 0 and 1");
  TK_RETURN_IF_ERROR(noZeroSize(x.shape, "the ReverseSequence input"));
  const int64_t d0 = x.shape[0], d1 = x.shape[1], T = x.shape[size_t(timeAxis)], B = x.shape[size_t(batchAxis)];
  if (lens.shape != Shape{B}) return Status::invalid("sequence_lens must have shape [batch]");
  auto lv = indexValue(im, lens);
  if (!lv) return lv.status();
  Shape lensShape = batchAxis == 0 ? Shape{B, 1} : Shape{1, B};
  Shape timeShape = batchAxis == 0 ? Shape{1, T} : Shape{T, 1};
  std::vector<int64_t> ts(static_cast<size_t>(T)), bs(static_cast<size_t>(B));
  std::iota(ts.begin(), ts.end(), 0);
  std::iota(bs.begin(), bs.end(), 0);
  Value* l = im.b.reshape(*lv, lensShape, im.aux("reshape"));
  Value* t = i32Const(im, timeShape, ts, "time");
  Value* inside = im.binary("tosa.greater", l, t, DType::Bool);  // [d0, d1]
  Value* mirrored =
      im.binary("tosa.sub", im.binary("tosa.sub", l, im.scalarOf(DType::I32, 1, 2), DType::I32), t, DType::I32);
  Value* src =
      im.b.op1("tosa.select", {inside, mirrored, t}, ValueType::tensor(DType::I32, {d0, d1}), {}, im.aux("select"));
  // Row number of (i0, i1) in data viewed as [d0*d1, rest] with the time coordinate replaced by src.
  Value* rows;
  if (timeAxis == 0) {
    rows = im.binary("tosa.add", im.b.mul(src, im.scalarOf(DType::I32, double(B), 2), 0, im.aux("mul")),
                     i32Const(im, {1, B}, bs, "batch"), DType::I32);
  } else {
    std::vector<int64_t> off;
    for (int64_t b : bs) off.push_back(b * T);
    rows = im.binary("tosa.add", src, i32Const(im, {B, 1}, off, "batch"), DType::I32);
  }
  rows = im.b.reshape(rows, {1, d0 * d1}, im.aux("reshape"));
  auto v = plainOf(im, x);
  if (!v) return v.status();
  Value* values = im.b.reshape(*v, {1, d0 * d1, prodRange(x.shape, 2, x.shape.size())}, im.aux("reshape"));
  setPlain(im, n, 0, im.b.reshape(gatherRows(im, values, rows), x.shape, im.aux("reshape")), x.dtype);
  return Status::ok();
}

}  // namespace

void registerDataMovementOps(HandlerTable& t) {
  t["Slice"] = opSlice;
  t["Split"] = opSplit;
  t["Pad"] = opPad;
  t["Tile"] = opTile;
  t["Expand"] = opExpand;
  t["Gather"] = opGather;
  t["GatherElements"] = opGatherElements;
  t["GatherND"] = opGatherND;
  t["Scatter"] = opScatterElements;
  t["ScatterElements"] = opScatterElements;
  t["ScatterND"] = opScatterND;
  t["DepthToSpace"] = opDepthSpace;
  t["SpaceToDepth"] = opDepthSpace;
  t["Compress"] = opCompress;
  t["OneHot"] = opOneHot;
  t["Trilu"] = opTrilu;
  t["ReverseSequence"] = opReverseSequence;
}

}  // namespace tosakit::onnx
