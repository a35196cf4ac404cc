// Constants, shape computations and layout ops: folded at import time when their inputs are constants
// (a model's Shape -> Cast -> Slice -> Concat -> Reshape chains; Slice and Gather live in
// ops_data_movement.cpp), else lowered to TOSA reshape/concat/transpose. Run-time values of every element
// type TOSA carries move through them; the result keeps the input's ONNX type (int64 as i32, uint8 as i8
// bits).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "core/size_budget.h"
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
  im.vals[n.output(0)] = im.val(n, 0);
  return Status::ok();
}

// Dropout at inference is the identity and its mask all true; training mode draws random numbers.
Status opDropout(Importer& im, const NodeProto& n) {
  if (im.hasInput(n, 2)) {
    auto tm = im.constInput(n, 2, "training_mode");
    if (!tm) return tm.status();
    if ((*tm)->size() != 1) return Status::invalid("Dropout training_mode must hold one value");
    if ((*tm)->getInt(0) != 0) {
      // Training mode drops at random unless the ratio is 0.
      auto r = im.hasInput(n, 1) ? im.constInput(n, 1, "ratio") : Result<const Tensor*>(Status::unsupported(""));
      if (!r || (*r)->size() != 1 || (*r)->getFloat(0) != 0.0)
        return Status::unsupported("Dropout in training mode with a ratio that is not a constant 0 (random mask)");
    }
  }
  if (im.opset < 7 && im.attrInt(n, "is_test", 0) == 0)
    return Status::unsupported("Dropout in training mode (is_test = 0)");
  OVal x = im.val(n, 0);
  im.vals[n.output(0)] = x;
  if (im.hasOutput(n, 1)) {
    Tensor mask(DType::Bool, x.shape);
    for (int64_t i = 0; i < mask.size(); ++i) mask.setInt(i, 1);
    im.setConst(n, 1, std::move(mask));
  }
  return Status::ok();
}

// Size: the element count is known at import.
Status opSize(Importer& im, const NodeProto& n) {
  im.setConst(n, 0, Tensor::fromInts(DType::I64, {}, {numElements(im.val(n, 0).shape)}));
  return Status::ok();
}

// Range: folded; run-time bounds would make the output shape data-dependent.
Status opRange(Importer& im, const NodeProto& n) {
  for (int i = 0; i < 3; ++i)
    if (!im.val(n, i).isConst())
      return Status::unsupported("Range with a run-time start/limit/delta (the output shape depends on the data)");
  const Tensor &st = *im.val(n, 0).c, &li = *im.val(n, 1).c, &de = *im.val(n, 2).c;
  if (st.size() != 1 || li.size() != 1 || de.size() != 1) return Status::invalid("Range inputs must be scalars");
  const DType t = st.dtype();
  std::vector<double> v;
  if (isFloat(t)) {
    double s = st.getFloat(0), l = li.getFloat(0), d = de.getFloat(0);
    if (d == 0) return Status::invalid("Range delta 0");
    const double steps = std::ceil((l - s) / d);  // checked before the int64 conversion (NaN, 1e300)
    if (!(steps < 0x1p62) && !(steps <= 0))
      return Status::invalid("Range from " + std::to_string(s) + " to " + std::to_string(l) + " by " +
                             std::to_string(d) + " has too many elements");
    int64_t count = steps > 0 ? int64_t(steps) : 0;
    TK_RETURN_IF_ERROR(checkAllocationElements(count, 8, "the Range result"));
    for (int64_t i = 0; i < count; ++i) v.push_back(s + double(i) * d);
    im.setConst(n, 0, Tensor::fromDoubles(t, {int64_t(v.size())}, v));
    return Status::ok();
  }
  int64_t s = st.getInt(0), l = li.getInt(0), d = de.getInt(0);
  if (d == 0) return Status::invalid("Range delta 0");
  // In 128 bits: l - s and the rounding-up additions overflow int64 for extreme scalars.
  const __int128 span = __int128(l) - s, step = d;
  const __int128 wide =
      step > 0 ? (span > 0 ? (span + step - 1) / step : 0) : (span < 0 ? (-span - step - 1) / -step : 0);
  if (wide > INT64_MAX)
    return Status::invalid("Range from " + std::to_string(s) + " to " + std::to_string(l) + " has too many elements");
  const int64_t count = int64_t(wide);
  TK_RETURN_IF_ERROR(checkAllocationElements(count, 8, "the Range result"));
  std::vector<int64_t> iv;
  for (int64_t i = 0; i < count; ++i) iv.push_back(s + i * d);
  im.setConst(n, 0, Tensor::fromInts(t, {count}, iv));
  return Status::ok();
}

// EyeLike: ones on the k-th diagonal, in `dtype` (default: the input's type); known at import.
Status opEyeLike(Importer& im, const NodeProto& n) {
  const OVal& x = im.val(n, 0);
  if (x.shape.size() != 2) return Status::invalid("EyeLike needs a rank-2 input");
  DType t = x.dtype;
  if (auto* a = im.attr(n, "dtype")) {
    auto dt = dtypeFromOnnx(int(a->i()), "EyeLike dtype");
    if (!dt) return dt.status();
    t = *dt;
  }
  const int64_t k = im.attrInt(n, "k", 0), R = x.shape[0], C = x.shape[1];
  TK_RETURN_IF_ERROR(checkAllocation(t, x.shape, "the EyeLike result"));
  Tensor out(t, x.shape);
  for (int64_t i = 0; i < R; ++i)
    if (i + k >= 0 && i + k < C) {
      if (isFloat(t))
        out.setFloat(i * C + i + k, 1.0);
      else
        out.setInt(i * C + i + k, 1);
    }
  im.setConst(n, 0, std::move(out));
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
  const Shape shape = (*s)->toInts();
  TK_RETURN_IF_ERROR(checkAllocation(fill.dtype(), shape, "the ConstantOfShape result"));
  Tensor out(fill.dtype(), shape);
  for (int64_t i = 0; i < out.size(); ++i) {
    if (isFloat(fill.dtype()))
      out.setFloat(i, fill.getFloat(0));
    else
      out.setInt(i, fill.getInt(0));
  }
  im.setConst(n, 0, std::move(out));
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
    TK_RETURN_IF_ERROR(checkAllocation(dt, outShape, "the Concat result"));
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
    if (numElements(im.val(n, i).shape) == 0) continue;  // an empty part adds nothing (TOSA has no empty tensors)
    TK_RETURN_IF_ERROR(im.rtType(im.val(n, i)).status());
    auto v = im.get(im.val(n, i), l);
    if (!v) return v.status();
    ins.push_back(*v);
  }
  int64_t tosaAxis = l == Layout::Nhwc ? kNhwcPos[axis] : axis;
  Shape tosaShape = l == Layout::Nhwc ? permuteShape(outShape, kToNhwc) : outShape;
  im.setValue(n, 0,
              im.b.op1("tosa.concat", ins, ValueType::tensor(ins[0]->type.dtype, tosaShape),
                       {{"axis", ir::Attribute::integer(tosaAxis, DType::I32)}}, im.loc),
              l, im.val(n, 0).dtype);
  return Status::ok();
}

// Reshape-like ops: the new logical shape, then either a folded constant or a tosa.reshape in plain layout.
Status reshapeLike(Importer& im, const NodeProto& n, OVal& x, const Shape& newShape) {
  int64_t count = 1;
  for (int64_t d : newShape) count *= d;
  if (count != numElements(x.shape))
    return Status::invalid("cannot reshape " + shapeToString(x.shape) + " to " + shapeToString(newShape));
  if (x.isConst()) {
    im.setConst(n, 0, reshapeTensor(*x.c, newShape));
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(im.rtType(x).status());
  auto v = im.get(x, Layout::Plain);
  if (!v) return v.status();
  Value* y = im.reshapeTo(*v, newShape, im.loc);
  if (y == *v) {  // same shape: the value itself
    im.setOut(n, 0, x);
    return Status::ok();
  }
  im.setValue(n, 0, y, Layout::Plain, x.dtype);
  return Status::ok();
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
  return reshapeLike(im, n, x, out);
}

Status opFlatten(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  int64_t r = int64_t(x.shape.size());
  int64_t axis = normAxis(im.attrInt(n, "axis", 1), r);
  if (axis < 0 || axis > r) return Status::invalid("Flatten axis out of range");
  int64_t a = 1, c = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? a : c) *= x.shape[size_t(i)];
  return reshapeLike(im, n, x, {a, c});
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
    if (!drop.count(i))
      out.push_back(x.shape[size_t(i)]);
    else if (x.shape[size_t(i)] != 1)
      return Status::invalid("Squeeze of an axis whose size is not 1");
  }
  return reshapeLike(im, n, x, out);
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
  return reshapeLike(im, n, x, out);
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
  TK_RETURN_IF_ERROR(im.rtType(x).status());
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
  im.setValue(n, 0, out, Layout::Plain, x.dtype);
  return Status::ok();
}

}  // namespace

void registerTensorOps(HandlerTable& t) {
  t["Constant"] = opConstant;
  t["Identity"] = opIdentity;
  t["Dropout"] = opDropout;
  t["Size"] = opSize;
  t["Range"] = opRange;
  t["EyeLike"] = opEyeLike;
  t["Shape"] = opShape;
  t["ConstantOfShape"] = opConstantOfShape;
  t["Concat"] = opConcat;
  t["Reshape"] = opReshape;
  t["Flatten"] = opFlatten;
  t["Squeeze"] = opSqueeze;
  t["Unsqueeze"] = opUnsqueeze;
  t["Transpose"] = opTranspose;
}

}  // namespace tosakit::onnx
