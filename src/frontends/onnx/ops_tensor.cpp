// Constants, shape computations and layout ops: folded at import time when their inputs are constants
// (a model's Shape -> Cast -> Slice -> Reshape chains), else lowered to TOSA reshape/slice/concat/transpose.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ---- folding / shape ops ----

Status opConstant(Importer& im, const NodeProto& n) {
  if (auto* a = im.attr(n, "value")) {
    auto t = tensorFromProto(a->t(), "Constant value");
    if (!t) return t.status();
    im.setConst(n, 0, std::move(*t));
  } else if (auto* f = im.attr(n, "value_float")) {
    im.setConst(n, 0, Tensor::fromDoubles(DType::FP32, {}, {f->f()}));
  } else if (auto* fs = im.attr(n, "value_floats")) {
    std::vector<double> v(fs->floats().begin(), fs->floats().end());
    im.setConst(n, 0, Tensor::fromDoubles(DType::FP32, {int64_t(v.size())}, v));
  } else if (auto* i = im.attr(n, "value_int")) {
    im.setConst(n, 0, Tensor::fromInts(DType::I64, {}, {i->i()}));
  } else if (auto* is = im.attr(n, "value_ints")) {
    std::vector<int64_t> v(is->ints().begin(), is->ints().end());
    im.setConst(n, 0, Tensor::fromInts(DType::I64, {int64_t(v.size())}, v));
  } else {
    return Status::unsupported("Constant without a value/value_float(s)/value_int(s) attribute");
  }
  return Status::ok();
}

Status opIdentity(Importer& im, const NodeProto& n) {
  if (n.op_type() == "Dropout" && n.output_size() > 1 && !n.output(1).empty())
    return Status::unsupported("Dropout mask output");
  im.vals[n.output(0)] = im.val(n, 0);
  return Status::ok();
}

Status opShape(Importer& im, const NodeProto& n) {
  const Shape& s = im.val(n, 0).shape;
  int64_t r = int64_t(s.size());
  int64_t start = normAxis(im.attrInt(n, "start", 0), r), end = normAxis(im.attrInt(n, "end", r), r);
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<int64_t> v;
  for (int64_t i = start; i < end; ++i) v.push_back(s[size_t(i)]);
  im.setConst(n, 0, Tensor::fromInts(DType::I64, {int64_t(v.size())}, v));
  return Status::ok();
}

Status opConstantOfShape(Importer& im, const NodeProto& n) {
  auto s = im.constInput(n, 0, "shape");
  if (!s) return s.status();
  Tensor fill = Tensor::fromDoubles(DType::FP32, {1}, {0.0});
  if (auto* a = im.attr(n, "value")) {
    auto t = tensorFromProto(a->t(), "ConstantOfShape value");
    if (!t) return t.status();
    fill = std::move(*t);
  }
  Tensor out(fill.dtype(), (*s)->toInts());
  for (int64_t i = 0; i < out.size(); ++i) {
    if (isFloat(fill.dtype())) out.setFloat(i, fill.getFloat(0));
    else out.setInt(i, fill.getInt(0));
  }
  im.setConst(n, 0, std::move(out));
  return Status::ok();
}

Status opGather(Importer& im, const NodeProto& n) {
  auto data = im.constInput(n, 0, "data (run-time Gather is not supported yet)");
  if (!data) return data.status();
  auto idx = im.constInput(n, 1, "indices");
  if (!idx) return idx.status();
  const Tensor &d = **data, &ix = **idx;
  const Shape& ds = d.shape();
  int64_t axis = normAxis(im.attrInt(n, "axis", 0), int64_t(ds.size()));
  if (axis < 0 || axis >= int64_t(ds.size())) return Status::invalid("Gather axis out of range");
  int64_t outer = 1, inner = 1, dim = ds[size_t(axis)];
  for (int64_t i = 0; i < axis; ++i) outer *= ds[size_t(i)];
  for (size_t i = size_t(axis) + 1; i < ds.size(); ++i) inner *= ds[i];
  Shape os(ds.begin(), ds.begin() + axis);
  for (int64_t v : ix.shape()) os.push_back(v);
  os.insert(os.end(), ds.begin() + axis + 1, ds.end());
  Tensor out(d.dtype(), os);
  const size_t es = storageBytes(d.dtype());
  int64_t o = 0;
  for (int64_t l = 0; l < outer; ++l)
    for (int64_t k = 0; k < ix.size(); ++k) {
      int64_t j = ix.getInt(k);
      if (j < 0) j += dim;
      if (j < 0 || j >= dim) return Status::invalid("Gather index " + std::to_string(ix.getInt(k)) + " out of range");
      std::memcpy(out.data() + size_t(o) * es, d.data() + size_t((l * dim + j) * inner) * es, size_t(inner) * es);
      o += inner;
    }
  im.setConst(n, 0, std::move(out));
  return Status::ok();
}

Status opSlice(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (im.opset < 10) {
    starts = im.attrInts(n, "starts").value_or(std::vector<int64_t>{});
    ends = im.attrInts(n, "ends").value_or(std::vector<int64_t>{});
    axes = im.attrInts(n, "axes").value_or(std::vector<int64_t>{});
  } else {
    auto s = im.constInput(n, 1, "starts");
    if (!s) return s.status();
    auto e = im.constInput(n, 2, "ends");
    if (!e) return e.status();
    starts = (*s)->toInts();
    ends = (*e)->toInts();
    if (im.hasInput(n, 3)) {
      auto a = im.constInput(n, 3, "axes");
      if (!a) return a.status();
      axes = (*a)->toInts();
    }
    if (im.hasInput(n, 4)) {
      auto st = im.constInput(n, 4, "steps");
      if (!st) return st.status();
      steps = (*st)->toInts();
    }
  }
  const int64_t rank = int64_t(x.shape.size());
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return Status::invalid("Slice starts/ends/axes/steps lengths differ");
  Shape begin(size_t(rank), 0), size = x.shape, step(size_t(rank), 1);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = normAxis(axes[i], rank);
    if (a < 0 || a >= rank) return Status::invalid("Slice axis out of range");
    int64_t dim = x.shape[size_t(a)], st = steps[i];
    if (st == 0) return Status::invalid("Slice step 0");
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      size[size_t(a)] = e > s ? (e - s + st - 1) / st : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      size[size_t(a)] = s > e ? (s - e + (-st) - 1) / (-st) : 0;
    }
    begin[size_t(a)] = s;
    step[size_t(a)] = st;
  }
  if (x.isConst()) {
    const Tensor& t = *x.c;
    Tensor out(t.dtype(), size);
    const size_t es = storageBytes(t.dtype());
    std::vector<int64_t> idx(size_t(rank), 0);
    std::vector<int64_t> src(size_t(rank), 0);
    for (int64_t o = 0; o < out.size(); ++o) {
      for (size_t d = 0; d < size_t(rank); ++d) src[d] = begin[d] + idx[d] * step[d];
      std::memcpy(out.data() + size_t(o) * es, t.data() + size_t(t.offset(src)) * es, es);
      for (size_t d = size_t(rank); d-- > 0;) {
        if (++idx[d] < size[d]) break;
        idx[d] = 0;
      }
    }
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  for (int64_t s : step)
    if (s != 1) return Status::unsupported("run-time Slice with steps other than 1");
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  if (l == Layout::Nhwc) {
    begin = permuteShape(begin, kToNhwc);
    size = permuteShape(size, kToNhwc);
  }
  Value* st = im.b.constShape(begin, im.aux("start"));
  Value* sz = im.b.constShape(size, im.aux("size"));
  im.setValue(n, 0, im.b.op1("tosa.slice", {*v, st, sz}, ValueType::tensor(DType::FP32, size), {}, im.loc), l);
  return Status::ok();
}

Status opConcat(Importer& im, const NodeProto& n) {
  const int64_t rank = int64_t(im.val(n, 0).shape.size());
  int64_t axis = normAxis(im.attrInt(n, "axis", 0), rank);
  if (axis < 0 || axis >= rank) return Status::invalid("Concat axis out of range");
  bool allConst = true, anyNhwc = false;
  Shape outShape = im.val(n, 0).shape;
  outShape[size_t(axis)] = 0;
  for (int i = 0; i < n.input_size(); ++i) {
    OVal& v = im.val(n, i);
    if (int64_t(v.shape.size()) != rank) return Status::invalid("Concat inputs differ in rank");
    allConst &= v.isConst();
    anyNhwc |= v.prefersNhwc();
    outShape[size_t(axis)] += v.shape[size_t(axis)];
  }
  if (allConst) {
    DType dt = im.val(n, 0).dtype;
    Tensor out(dt, outShape);
    const size_t es = storageBytes(dt);
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= outShape[size_t(d)];
    size_t off = 0;
    for (int64_t l = 0; l < outer; ++l)
      for (int i = 0; i < n.input_size(); ++i) {
        const Tensor& t = *im.val(n, i).c;
        size_t chunk = size_t(t.size() / std::max<int64_t>(outer, 1)) * es;
        std::memcpy(out.data() + off, t.data() + size_t(l) * chunk, chunk);
        off += chunk;
      }
    im.setConst(n, 0, std::move(out));
    return Status::ok();
  }
  Layout l = anyNhwc && rank == 4 ? Layout::Nhwc : Layout::Plain;
  std::vector<Value*> ins;
  for (int i = 0; i < n.input_size(); ++i) {
    TK_RETURN_IF_ERROR(im.requireFloat(n, im.val(n, i)));
    auto v = im.get(im.val(n, i), l);
    if (!v) return v.status();
    ins.push_back(*v);
  }
  int64_t tosaAxis = l == Layout::Nhwc ? kNhwcPos[axis] : axis;
  Shape tosaShape = l == Layout::Nhwc ? permuteShape(outShape, kToNhwc) : outShape;
  im.setValue(n, 0,
           im.b.op1("tosa.concat", ins, ValueType::tensor(DType::FP32, tosaShape),
                  {{"axis", ir::Attribute::integer(tosaAxis, DType::I32)}}, im.loc),
           l);
  return Status::ok();
}

// Reshape-like ops: the new logical shape, then either a folded constant or a tosa.reshape in plain layout.
Status reshapeLike(OVal& x, const Shape& newShape,
                          const std::function<void(Tensor)>& setC,
                          const std::function<Status(const Shape&)>& emit) {
  int64_t count = 1;
  for (int64_t d : newShape) count *= d;
  if (count != numElements(x.shape))
    return Status::invalid("cannot reshape " + shapeToString(x.shape) + " to " + shapeToString(newShape));
  if (x.isConst()) {
    setC(reshapeTensor(*x.c, newShape));
    return Status::ok();
  }
  return emit(newShape);
}

Status opReshape(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  std::vector<int64_t> target;
  if (im.opset < 5) {
    target = im.attrInts(n, "shape").value_or(std::vector<int64_t>{});
  } else {
    auto s = im.constInput(n, 1, "shape");
    if (!s) return s.status();
    target = (*s)->toInts();
  }
  const bool allowZero = im.attrInt(n, "allowzero", 0) != 0;
  Shape out;
  int64_t known = 1, inferAt = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allowZero) {
      if (i >= x.shape.size()) return Status::invalid("Reshape 0 at an axis the input does not have");
      d = x.shape[i];
    }
    if (d == -1) {
      if (inferAt >= 0) return Status::invalid("Reshape with more than one -1");
      inferAt = int64_t(i);
      out.push_back(1);
      continue;
    }
    known *= d;
    out.push_back(d);
  }
  if (inferAt >= 0) out[size_t(inferAt)] = known ? numElements(x.shape) / known : 0;
  return reshapeLike(x, out, [&](Tensor t) { im.setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(im.requireFloat(n, x));
                       auto v = im.get(x, Layout::Plain);
                       if (!v) return v.status();
                       im.setValue(n, 0, im.b.reshape(*v, s, im.loc), Layout::Plain);
                       return Status::ok();
                     });
}

Status opFlatten(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  int64_t r = int64_t(x.shape.size());
  int64_t axis = normAxis(im.attrInt(n, "axis", 1), r);
  if (axis < 0 || axis > r) return Status::invalid("Flatten axis out of range");
  int64_t a = 1, c = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= x.shape[size_t(i)];
  return reshapeLike(x, {a, c}, [&](Tensor t) { im.setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(im.requireFloat(n, x));
                       auto v = im.get(x, Layout::Plain);
                       if (!v) return v.status();
                       im.setValue(n, 0, im.b.reshape(*v, s, im.loc), Layout::Plain);
                       return Status::ok();
                     });
}

Status opSqueeze(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto axesR = im.axesOf(n, 1);
  if (!axesR) return axesR.status();
  const int64_t r = int64_t(x.shape.size());
  std::set<int64_t> drop;
  if (*axesR) {
    for (int64_t a : **axesR) drop.insert(normAxis(a, r));
  } else {
    for (int64_t i = 0; i < r; ++i)
      if (x.shape[size_t(i)] == 1) drop.insert(i);
  }
  Shape out;
  for (int64_t i = 0; i < r; ++i) {
    if (!drop.count(i)) out.push_back(x.shape[size_t(i)]);
    else if (x.shape[size_t(i)] != 1) return Status::invalid("Squeeze of an axis whose size is not 1");
  }
  return reshapeLike(x, out, [&](Tensor t) { im.setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(im.requireFloat(n, x));
                       auto v = im.get(x, Layout::Plain);
                       if (!v) return v.status();
                       im.setValue(n, 0, im.b.reshape(*v, s, im.loc), Layout::Plain);
                       return Status::ok();
                     });
}

Status opUnsqueeze(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  auto axesR = im.axesOf(n, 1);
  if (!axesR) return axesR.status();
  if (!*axesR) return Status::invalid("Unsqueeze without axes");
  const int64_t outRank = int64_t(x.shape.size() + (*axesR)->size());
  std::set<int64_t> add;
  for (int64_t a : **axesR) add.insert(normAxis(a, outRank));
  Shape out;
  size_t j = 0;
  for (int64_t i = 0; i < outRank; ++i) out.push_back(add.count(i) ? 1 : x.shape.at(j++));
  return reshapeLike(x, out, [&](Tensor t) { im.setConst(n, 0, std::move(t)); },
                     [&](const Shape& s) -> Status {
                       TK_RETURN_IF_ERROR(im.requireFloat(n, x));
                       auto v = im.get(x, Layout::Plain);
                       if (!v) return v.status();
                       im.setValue(n, 0, im.b.reshape(*v, s, im.loc), Layout::Plain);
                       return Status::ok();
                     });
}

Status opTranspose(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  const int64_t r = int64_t(x.shape.size());
  std::vector<int64_t> perm = im.attrInts(n, "perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (int64_t i = r - 1; i >= 0; --i) perm.push_back(i);
  if (int64_t(perm.size()) != r) return Status::invalid("Transpose perm length differs from the input rank");
  if (x.isConst()) {
    im.setConst(n, 0, permuteTensor(*x.c, perm));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  // From an NHWC-stored value, transpose the stored tensor directly: logical axis a sits at kNhwcPos[a].
  Layout l = x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto v = im.get(x, l);
  if (!v) return v.status();
  std::vector<int64_t> stored = perm;
  if (l == Layout::Nhwc)
    for (auto& p : stored) p = kNhwcPos[p];
  bool identity = true;
  for (int64_t i = 0; i < r; ++i) identity &= stored[size_t(i)] == i;
  Value* out = identity ? *v : im.b.transpose(*v, stored, im.loc);
  im.setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

}  // namespace

void registerTensorOps(HandlerTable& t) {
  t["Constant"] = opConstant;
  t["Identity"] = opIdentity;
  t["Dropout"] = opIdentity;
  t["Shape"] = opShape;
  t["ConstantOfShape"] = opConstantOfShape;
  t["Gather"] = opGather;
  t["Slice"] = opSlice;
  t["Concat"] = opConcat;
  t["Reshape"] = opReshape;
  t["Flatten"] = opFlatten;
  t["Squeeze"] = opSqueeze;
  t["Unsqueeze"] = opUnsqueeze;
  t["Transpose"] = opTranspose;
}

}  // namespace tosakit::onnx
