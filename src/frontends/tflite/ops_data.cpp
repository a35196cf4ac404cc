// Data movement and reductions of any element type TOSA carries (float32, int32, int8, bool; int8 max/min and
// arg max/min on the raw values): SQUEEZE,
// EXPAND_DIMS, TRANSPOSE, SLICE, STRIDED_SLICE (unit strides), SPLIT, SPLIT_V, PACK, UNPACK, TILE, BROADCAST_TO,
// SPACE_TO_DEPTH, SUM / REDUCE_MAX / REDUCE_MIN / REDUCE_PROD, ARG_MAX / ARG_MIN, CAST. Shapes come from the
// model and are checked (Importer::setOut).
#include <algorithm>
#include <cstdint>

#include "frontends/tflite/tflite_internal.h"

namespace tosakit::tflite {
namespace {

// Run-time element types these lowerings move around.
Status requireCarried(Importer& im, int i) {
  const DType t = im.in(i).dtype;
  if (t != DType::FP32 && t != DType::I32 && t != DType::I8 && t != DType::I16 && t != DType::Bool)
    return Status::unsupported("input " + std::to_string(i) + " is " + std::string(dtypeName(t)));
  return Status::ok();
}

// Input i's constant integer values (shapes, axes, begins, ...).
Result<std::vector<int64_t>> constInts(Importer& im, int i, const char* what) {
  auto t = im.constIn(i, what);
  if (!t) return t.status();
  if (!isInteger((*t)->dtype())) return Status::invalid(std::string(what) + " must be integers");
  return (*t)->toInts();
}

Value* slice(Importer& im, Value* x, const Shape& start, const Shape& size, const std::string& what) {
  return im.b.op1("tosa.slice",
                  {x, im.b.constShape(start, im.aux(what + "_start")), im.b.constShape(size, im.aux(what + "_size"))},
                  ValueType::tensor(x->type.dtype, size), {}, im.aux(what));
}

// The declared output shape as a reshape of input 0 (SQUEEZE, EXPAND_DIMS: the options only restate it).
Status reshapeToDeclared(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const Shape& out = im.out(0).shape;
  if (numElements(out) != numElements(im.in(0).shape)) return Status::invalid("the output changes the element count");
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0, im.b.reshape(*x, out, im.loc));
}

Status opTranspose(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  auto perm = constInts(im, 1, "perm");
  if (!perm) return perm.status();
  const size_t rank = im.in(0).shape.size();
  std::vector<int64_t> p = *perm;
  std::vector<bool> seen(rank, false);
  if (p.size() != rank)
    return Status::invalid("perm has " + std::to_string(p.size()) + " entries for rank " + std::to_string(rank));
  for (int64_t& a : p) {
    if (a < 0) a += int64_t(rank);
    if (a < 0 || a >= int64_t(rank) || seen[size_t(a)]) return Status::invalid("perm is not a permutation");
    seen[size_t(a)] = true;
  }
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0, im.b.transpose(*x, p, im.loc));
}

Status opSlice(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  auto begin = constInts(im, 1, "begin");
  if (!begin) return begin.status();
  auto size = constInts(im, 2, "size");
  if (!size) return size.status();
  const Shape& xs = im.in(0).shape;
  if (begin->size() != xs.size() || size->size() != xs.size()) return Status::invalid("begin/size of the wrong length");
  Shape start(xs.size()), count(xs.size());
  for (size_t d = 0; d < xs.size(); ++d) {
    start[d] = (*begin)[d];
    count[d] = (*size)[d] == -1 ? xs[d] - start[d] : (*size)[d];
    if (start[d] < 0 || count[d] < 0 || start[d] + count[d] > xs[d]) return Status::invalid("slice out of range");
  }
  auto x = im.get(0);
  if (!x) return x.status();
  Value* y = slice(im, *x, start, count, "slice");
  y->definingOp->loc.name = im.loc;
  return im.setOut(0, y);
}

// STRIDED_SLICE with unit strides, begin/end masks, negative indices and shrink_axis_mask (no ellipsis or
// new_axis masks): a tosa.slice, then a reshape to the declared shape.
Status opStridedSlice(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const auto* o = im.options<fb::StridedSliceOptions>();
  if (!o) return Status::invalid("STRIDED_SLICE without options");
  if (o->ellipsis_mask() || o->new_axis_mask() || o->offset())
    return Status::unsupported("STRIDED_SLICE with ellipsis_mask, new_axis_mask or offset");
  auto begin = constInts(im, 1, "begin");
  if (!begin) return begin.status();
  auto end = constInts(im, 2, "end");
  if (!end) return end.status();
  auto strides = constInts(im, 3, "strides");
  if (!strides) return strides.status();
  const Shape& xs = im.in(0).shape;
  const size_t rank = xs.size();
  if (begin->size() > rank || end->size() != begin->size() || strides->size() != begin->size())
    return Status::invalid("begin/end/strides of inconsistent lengths");
  Shape start(rank, 0), count = xs;
  for (size_t d = 0; d < begin->size(); ++d) {
    if ((*strides)[d] != 1) return Status::unsupported("STRIDED_SLICE with a stride other than 1");
    const int64_t dim = xs[d];
    auto norm = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
    int64_t b = (o->begin_mask() >> d) & 1 ? 0 : norm((*begin)[d]);
    int64_t e = (o->end_mask() >> d) & 1 ? dim : norm((*end)[d]);
    if ((o->shrink_axis_mask() >> d) & 1) {
      b = (*begin)[d] < 0 ? (*begin)[d] + dim : (*begin)[d];
      if (b < 0 || b >= dim) return Status::invalid("STRIDED_SLICE shrinks an axis at an index out of range");
      e = b + 1;
    }
    start[d] = b;
    count[d] = std::max<int64_t>(e - b, 0);
  }
  auto x = im.get(0);
  if (!x) return x.status();
  Value* y = slice(im, *x, start, count, "slice");
  if (numElements(count) != numElements(im.out(0).shape))
    return Status::invalid("the output's size differs from the slice's");
  return im.setOut(0, im.b.reshape(y, im.out(0).shape, im.loc));
}

// Slices of input `data` along `axis` with the given sizes, one per output.
Status splitInto(Importer& im, int data, int64_t axis, const std::vector<int64_t>& sizes) {
  TK_RETURN_IF_ERROR(requireCarried(im, data));
  const Shape& xs = im.in(data).shape;
  if (axis < 0) axis += int64_t(xs.size());
  if (axis < 0 || axis >= int64_t(xs.size())) return Status::invalid("split axis out of range");
  if (int(sizes.size()) != im.numOutputs())
    return Status::invalid("split into " + std::to_string(sizes.size()) + " parts, " + std::to_string(im.numOutputs()) +
                           " outputs");
  auto x = im.get(data);
  if (!x) return x.status();
  int64_t offset = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    Shape start(xs.size(), 0), size = xs;
    start[size_t(axis)] = offset;
    size[size_t(axis)] = sizes[k];
    offset += sizes[k];
    if (sizes[k] < 0 || offset > xs[size_t(axis)]) return Status::invalid("split sizes exceed the axis");
    Value* y = slice(im, *x, start, size, "split" + std::to_string(k));
    TK_RETURN_IF_ERROR(im.setOut(int(k), y));
  }
  return Status::ok();
}

Status opSplit(Importer& im) {
  auto axis = constInts(im, 0, "axis");
  if (!axis) return axis.status();
  if (axis->size() != 1) return Status::invalid("SPLIT axis must be one value");
  const Shape& xs = im.in(1).shape;
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + int64_t(xs.size()) : (*axis)[0];
  const int64_t n = im.numOutputs();
  if (a < 0 || a >= int64_t(xs.size()) || n <= 0 || xs[size_t(a)] % n != 0)
    return Status::invalid("SPLIT does not divide the axis");
  return splitInto(im, 1, a, std::vector<int64_t>(size_t(n), xs[size_t(a)] / n));
}

Status opSplitV(Importer& im) {
  auto sizes = constInts(im, 1, "size_splits");
  if (!sizes) return sizes.status();
  auto axis = constInts(im, 2, "axis");
  if (!axis) return axis.status();
  if (axis->size() != 1) return Status::invalid("SPLIT_V axis must be one value");
  const Shape& xs = im.in(0).shape;
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + int64_t(xs.size()) : (*axis)[0];
  if (a < 0 || a >= int64_t(xs.size())) return Status::invalid("SPLIT_V axis out of range");
  std::vector<int64_t> s = *sizes;
  int64_t known = 0, unknown = -1;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == -1) {
      if (unknown >= 0) return Status::invalid("SPLIT_V with two -1 sizes");
      unknown = int64_t(k);
    } else {
      known += s[k];
    }
  }
  if (unknown >= 0) s[size_t(unknown)] = xs[size_t(a)] - known;
  return splitInto(im, 0, a, s);
}

Status opPack(Importer& im) {
  const auto* o = im.options<fb::PackOptions>();
  if (!o) return Status::invalid("PACK without options");
  const Shape& s0 = im.in(0).shape;
  int64_t axis = o->axis() < 0 ? o->axis() + int64_t(s0.size()) + 1 : o->axis();
  if (axis < 0 || axis > int64_t(s0.size())) return Status::invalid("PACK axis out of range");
  Shape unit = s0;
  unit.insert(unit.begin() + axis, 1);
  std::vector<Value*> parts;
  for (int i = 0; i < im.numInputs(); ++i) {
    TK_RETURN_IF_ERROR(requireCarried(im, i));
    if (im.in(i).shape != s0) return Status::invalid("PACK inputs of different shapes");
    auto v = im.get(i);
    if (!v) return v.status();
    parts.push_back(im.b.reshape(*v, unit, im.aux("unit" + std::to_string(i))));
  }
  Shape out = unit;
  out[size_t(axis)] = int64_t(parts.size());
  Value* y = im.b.op1("tosa.concat", parts, ValueType::tensor(parts[0]->type.dtype, out),
                      {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.loc);
  return im.setOut(0, y);
}

Status opUnpack(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const auto* o = im.options<fb::UnpackOptions>();
  if (!o) return Status::invalid("UNPACK without options");
  const Shape& xs = im.in(0).shape;
  int64_t axis = o->axis() < 0 ? o->axis() + int64_t(xs.size()) : o->axis();
  if (axis < 0 || axis >= int64_t(xs.size()) || xs[size_t(axis)] != im.numOutputs())
    return Status::invalid("UNPACK axis");
  auto x = im.get(0);
  if (!x) return x.status();
  for (int k = 0; k < im.numOutputs(); ++k) {
    Shape start(xs.size(), 0), size = xs;
    start[size_t(axis)] = k;
    size[size_t(axis)] = 1;
    Value* s = slice(im, *x, start, size, "part" + std::to_string(k));
    TK_RETURN_IF_ERROR(im.setOut(k, im.b.reshape(s, im.out(k).shape, im.aux("unpack" + std::to_string(k)))));
  }
  return Status::ok();
}

Status opTile(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  auto mult = constInts(im, 1, "multiples");
  if (!mult) return mult.status();
  const Shape& xs = im.in(0).shape;
  if (mult->size() != xs.size()) return Status::invalid("multiples of the wrong length");
  Shape out = xs;
  for (size_t d = 0; d < xs.size(); ++d) out[d] *= (*mult)[d];
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0,
                   im.b.op1("tosa.tile", {*x, im.b.constShape(*mult, im.aux("multiples"))},
                            ValueType::tensor((*x)->type.dtype, out), {}, im.loc));
}

// BROADCAST_TO: tile each unit dimension up to the declared shape.
Status opBroadcastTo(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const Shape& out = im.out(0).shape;
  auto x = im.get(0);
  if (!x) return x.status();
  Value* v = im.toRank(*x, out.size());
  std::vector<int64_t> mult;
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t in = v->type.dims[d];
    if (in != out[d] && in != 1)
      return Status::invalid("BROADCAST_TO from " + shapeToString(v->type.dims) + " to " + shapeToString(out));
    mult.push_back(in == out[d] ? 1 : out[d]);
  }
  return im.setOut(0,
                   im.b.op1("tosa.tile", {v, im.b.constShape(mult, im.aux("multiples"))},
                            ValueType::tensor(v->type.dtype, out), {}, im.loc));
}

// SPACE_TO_DEPTH: [N,H,W,C] -> [N,H/b,b,W/b,b,C] -> [N,H/b,W/b,b,b,C] -> [N,H/b,W/b,b*b*C].
Status opSpaceToDepth(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const auto* o = im.options<fb::SpaceToDepthOptions>();
  const Shape& xs = im.in(0).shape;
  if (!o || o->block_size() <= 0 || xs.size() != 4)
    return Status::invalid("SPACE_TO_DEPTH needs a positive block size and rank 4");
  const int64_t b = o->block_size();
  if (xs[1] % b || xs[2] % b) return Status::invalid("SPACE_TO_DEPTH block does not divide the spatial size");
  auto x = im.get(0);
  if (!x) return x.status();
  Value* r = im.b.reshape(*x, {xs[0], xs[1] / b, b, xs[2] / b, b, xs[3]}, im.aux("split"));
  Value* t = im.b.transpose(r, {0, 1, 3, 2, 4, 5}, im.aux("gather_blocks"));
  return im.setOut(0, im.b.reshape(t, {xs[0], xs[1] / b, xs[2] / b, b * b * xs[3]}, im.loc));
}

// SUM / REDUCE_MAX / REDUCE_MIN / REDUCE_PROD over constant axes, keep_dims from the declared shape.
Status opReduce(Importer& im, const std::string& tosaOp) {
  const DType t = im.in(0).dtype;
  // int8 max/min compare the raw values, as TFLite does (its output is quantized like its input).
  const bool rawExtreme = t == DType::I8 && (tosaOp == "tosa.reduce_max" || tosaOp == "tosa.reduce_min");
  if (t != DType::FP32 && !(t == DType::I32 && tosaOp != "tosa.reduce_product") && !rawExtreme)
    return Status::unsupported("reduction of " + std::string(dtypeName(t)));
  auto axes = constInts(im, 1, "axes");
  if (!axes) return axes.status();
  const Shape& xs = im.in(0).shape;
  std::vector<int64_t> list;
  for (int64_t a : *axes) {
    if (a < 0) a += int64_t(xs.size());
    if (a < 0 || a >= int64_t(xs.size())) return Status::invalid("reduction axis out of range");
    if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
  }
  auto x = im.get(0);
  if (!x) return x.status();
  Value* v = *x;
  for (int64_t a : list) {
    Shape s = v->type.dims;
    s[size_t(a)] = 1;
    v = im.b.op1(tosaOp, {v}, ValueType::tensor(t, s), {{"axis", ir::Attribute::integer(a, DType::I32)}},
                 im.aux(tosaOp.substr(5)));
  }
  return im.setOut(0, im.b.reshape(v, im.out(0).shape, im.loc));
}

// ARG_MAX / ARG_MIN along a constant axis, int32 output (ARG_MIN as the arg max of -x).
Status opArg(Importer& im, bool isMax) {
  const DType t = im.in(0).dtype;
  if (t != DType::FP32 && t != DType::I8) return Status::unsupported("ARG_MAX/ARG_MIN of " + std::string(dtypeName(t)));
  if (im.out(0).dtype != DType::I32)
    return Status::unsupported("ARG_MAX/ARG_MIN with an int64 output (TOSA 1.0 has no int64)");
  auto axis = constInts(im, 1, "axis");
  if (!axis || axis->size() != 1) return axis ? Status::invalid("axis must be one value") : axis.status();
  const Shape& xs = im.in(0).shape;
  int64_t a = (*axis)[0] < 0 ? (*axis)[0] + int64_t(xs.size()) : (*axis)[0];
  if (a < 0 || a >= int64_t(xs.size())) return Status::invalid("axis out of range");
  auto x = im.get(0);
  if (!x) return x.status();
  Value* v = *x;
  // ARG_MIN: the arg max of an order-reversing map, -x for float, ~x = -1 - x for int8 (no overflow).
  if (!isMax && t == DType::FP32) v = im.b.sub(im.scalarOf(DType::FP32, 0, xs.size()), v, im.aux("negate"));
  if (!isMax && t == DType::I8) v = im.b.op1("tosa.bitwise_not", {v}, v->type, {}, im.aux("reverse_order"));
  Shape out = xs;
  out.erase(out.begin() + a);
  return im.setOut(0,
                   im.b.op1("tosa.argmax", {v}, ValueType::tensor(DType::I32, out),
                            {{"axis", ir::Attribute::integer(a, DType::I32)}}, im.loc));
}

Status opCast(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const DType to = im.out(0).dtype;
  if (to != DType::FP32 && to != DType::I32 && to != DType::Bool && to != DType::I8 && to != DType::I16)
    return Status::unsupported("CAST to " + std::string(dtypeName(to)));
  if (isFloat(im.in(0).dtype) && !isFloat(to) && to != DType::Bool)
    return Status::unsupported("CAST from float to integer (TFLite truncates, TOSA rounds)");
  auto x = im.get(0);
  if (!x) return x.status();
  return im.setOut(0, im.b.op1("tosa.cast", {*x}, ValueType::tensor(to, im.in(0).shape), {}, im.loc));
}

// Run-time int32 indices of input i as an i32 value (constant int64 indices narrowed when they fit).
Result<Value*> indexInput(Importer& im, int i) {
  const TVal& t = im.in(i);
  if (t.dtype == DType::I32) return im.get(i);
  if (t.dtype != DType::I64 || !t.isConst())
    return Status::unsupported("indices of type " + std::string(dtypeName(t.dtype)));
  Tensor narrow(DType::I32, t.shape);
  for (int64_t k = 0; k < narrow.size(); ++k) {
    const int64_t v = t.c->getInt(k);
    if (v < INT32_MIN || v > INT32_MAX) return Status::invalid("an index outside int32");
    narrow.setInt(k, v);
  }
  return im.constant(std::move(narrow), "indices_i32");
}

// Constant indices must lie in [0, limit) (TFLite refuses others at run time; TOSA leaves them undefined).
Status checkConstIndices(Importer& im, int i, const std::vector<int64_t>& limits) {
  const TVal& t = im.in(i);
  if (!t.isConst()) return Status::ok();
  const size_t d = limits.size();
  for (int64_t k = 0; k < t.c->size(); ++k) {
    const int64_t v = t.c->getInt(k), limit = limits[size_t(k) % d];
    if (v < 0 || v >= limit)
      return Status::invalid("index " + std::to_string(v) + " out of range [0, " + std::to_string(limit) + ")");
  }
  return Status::ok();
}

// values [N, K, C] gathered at flat indices [W] (the same for every n): [N, W, C] reshaped to the declared shape.
Status gatherFlat(Importer& im, Value* x, int64_t n, int64_t k, int64_t c, Value* flatIndex) {
  const int64_t w = numElements(flatIndex->type.dims);
  Value* idx = im.b.reshape(flatIndex, {1, w}, im.aux("indices_row"));
  if (n > 1)
    idx = im.b.op1("tosa.tile", {idx, im.b.constShape({n, 1}, im.aux("per_batch"))},
                   ValueType::tensor(DType::I32, {n, w}), {}, im.aux("indices_tiled"));
  Value* values = im.b.reshape(x, {n, k, c}, im.aux("values"));
  Value* g = im.b.op1("tosa.gather", {values, idx}, ValueType::tensor(x->type.dtype, {n, w, c}), {}, im.aux("gather"));
  if (numElements(im.out(0).shape) != n * w * c) return Status::invalid("the output's size differs from the gather's");
  return im.setOut(0, im.b.reshape(g, im.out(0).shape, im.loc));
}

// GATHER along `axis` (batch_dims 0): x viewed as [outer, K, inner], the indices flattened.
Status opGather(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const auto* o = im.options<fb::GatherOptions>();
  if (o && o->batch_dims() != 0) return Status::unsupported("GATHER with batch_dims");
  const Shape& xs = im.in(0).shape;
  int64_t axis = o ? o->axis() : 0;
  if (axis < 0) axis += int64_t(xs.size());
  if (axis < 0 || axis >= int64_t(xs.size())) return Status::invalid("GATHER axis out of range");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= xs[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < xs.size(); ++d) inner *= xs[d];
  TK_RETURN_IF_ERROR(checkConstIndices(im, 1, {xs[size_t(axis)]}));
  auto idx = indexInput(im, 1);
  if (!idx) return idx.status();
  auto x = im.get(0);
  if (!x) return x.status();
  return gatherFlat(im, *x, outer, xs[size_t(axis)], inner, *idx);
}

// GATHER_ND: indices [..., D] address the first D dimensions; their flat index sum(i_d stride_d) gathers rows of
// x viewed as [1, prod(first D), rest].
Status opGatherNd(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const Shape& xs = im.in(0).shape;
  const Shape& is = im.in(1).shape;
  if (is.empty() || is.back() < 1 || is.back() > int64_t(xs.size()))
    return Status::invalid("GATHER_ND indices' last dimension must be in [1, rank]");
  const size_t depth = size_t(is.back());
  std::vector<int64_t> strides(depth), limits(xs.begin(), xs.begin() + long(depth));
  int64_t k = 1, c = 1;
  for (size_t d = depth; d-- > 0;) strides[d] = k, k *= xs[d];
  for (size_t d = depth; d < xs.size(); ++d) c *= xs[d];
  TK_RETURN_IF_ERROR(checkConstIndices(im, 1, limits));
  auto idx = indexInput(im, 1);
  if (!idx) return idx.status();
  auto x = im.get(0);
  if (!x) return x.status();
  Shape strideShape(is.size(), 1);
  strideShape.back() = int64_t(depth);
  Tensor st(DType::I32, strideShape);
  for (size_t d = 0; d < depth; ++d) st.setInt(int64_t(d), strides[d]);
  Value* scaled = im.b.mul(*idx, im.constant(std::move(st), "strides"), 0, im.aux("scaled_indices"));
  Shape summed = is;
  summed.back() = 1;
  Value* flat = im.b.op1("tosa.reduce_sum", {scaled}, ValueType::tensor(DType::I32, summed),
                         {{"axis", ir::Attribute::integer(int64_t(is.size()) - 1, DType::I32)}}, im.aux("flat_index"));
  return gatherFlat(im, *x, 1, k, c, flat);
}

// MIRROR_PAD: per axis, the reversed edge slices (REFLECT leaves the edge row out, SYMMETRIC repeats it)
// concatenated around the tensor.
Status opMirrorPad(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  const auto* o = im.options<fb::MirrorPadOptions>();
  const int64_t skip = o && o->mode() == fb::MirrorPadMode::SYMMETRIC ? 0 : 1;
  auto pads = constInts(im, 1, "paddings");
  if (!pads) return pads.status();
  const size_t rank = im.in(0).shape.size();
  if (pads->size() != 2 * rank) return Status::invalid("paddings must be [rank, 2]");
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* v = *xv;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t before = (*pads)[2 * d], after = (*pads)[2 * d + 1], n = v->type.dims[d];
    if (before < 0 || after < 0 || before + skip > n || after + skip > n)
      return Status::invalid("MIRROR_PAD padding larger than the axis allows");
    if (!before && !after) continue;
    const std::string tag = "axis" + std::to_string(d);
    auto edge = [&](int64_t start, int64_t size, const std::string& what) {
      Shape st(rank, 0), sz = v->type.dims;
      st[d] = start;
      sz[d] = size;
      Value* s = slice(im, v, st, sz, what);
      return im.b.op1("tosa.reverse", {s}, s->type, {{"axis", ir::Attribute::integer(int64_t(d), DType::I32)}},
                      im.aux(what + "_reversed"));
    };
    std::vector<Value*> parts;
    if (before) parts.push_back(edge(skip, before, tag + "_before"));
    parts.push_back(v);
    if (after) parts.push_back(edge(n - after - skip, after, tag + "_after"));
    Shape out = v->type.dims;
    out[d] += before + after;
    v = im.b.op1("tosa.concat", parts, ValueType::tensor(v->type.dtype, out),
                 {{"axis", ir::Attribute::integer(int64_t(d), DType::I32)}}, im.aux(tag));
  }
  return im.setOut(0, im.b.reshape(v, im.out(0).shape, im.loc));
}

// SPACE_TO_BATCH_ND [N, S1..SM, R...] with blocks b and paddings: padded (zero, or the zero point of a quantized
// tensor, as TFLite), viewed as [N, S1/b1, b1, ..., R], block dimensions moved in front, [b1..bM N, S/b..., R].
Status opSpaceToBatch(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  auto block = constInts(im, 1, "block_shape");
  if (!block) return block.status();
  auto pads = constInts(im, 2, "paddings");
  if (!pads) return pads.status();
  const Shape& xs = im.in(0).shape;
  const size_t m = block->size();
  if (m < 1 || xs.size() < m + 1 || pads->size() != 2 * m)
    return Status::invalid("block_shape/paddings of the wrong size");
  std::vector<int64_t> padding(2 * xs.size(), 0);
  Shape padded = xs, split = {xs[0]}, perm, out = {xs[0]};
  for (size_t d = 0; d < m; ++d) {
    const int64_t b = (*block)[d], p0 = (*pads)[2 * d], p1 = (*pads)[2 * d + 1];
    padded[d + 1] += p0 + p1;
    if (b < 1 || p0 < 0 || p1 < 0 || padded[d + 1] % b)
      return Status::invalid("SPACE_TO_BATCH_ND block does not divide the padded size");
    padding[2 * (d + 1)] = p0;
    padding[2 * (d + 1) + 1] = p1;
    split.push_back(padded[d + 1] / b);
    split.push_back(b);
    out[0] *= b;
    out.push_back(padded[d + 1] / b);
  }
  for (size_t d = m + 1; d < xs.size(); ++d) split.push_back(xs[d]), out.push_back(xs[d]);
  for (size_t d = 0; d < m; ++d) perm.push_back(int64_t(2 + 2 * d));
  perm.push_back(0);
  for (size_t d = 0; d < m; ++d) perm.push_back(int64_t(1 + 2 * d));
  for (size_t d = m + 1; d < xs.size(); ++d) perm.push_back(int64_t(2 * m + d - m));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const DType t = im.in(0).dtype;
  const QuantParams& q = im.in(0).quant;
  const double padValue = isFloat(t) || q.zeroPoint.empty() ? 0 : double(q.zeroPoint[0]);
  Value* v = *xv;
  if (padded != xs)
    v = im.b.op1("tosa.pad",
                 {v, im.b.constShape(padding, im.aux("padding")), im.b.scalar1(t, padValue, im.aux("pad_const"))},
                 ValueType::tensor(t, padded), {}, im.aux("padded"));
  Value* r = im.b.transpose(im.b.reshape(v, split, im.aux("blocks")), perm, im.aux("blocks_first"));
  return im.setOut(0, im.b.reshape(r, out, im.loc));
}

// BATCH_TO_SPACE_ND, the inverse: [b1..bM N, S..., R] -> [b1.., N, S1, ..] -> [N, S1, b1, ..., R] -> merged,
// then the crops sliced off.
Status opBatchToSpace(Importer& im) {
  TK_RETURN_IF_ERROR(requireCarried(im, 0));
  auto block = constInts(im, 1, "block_shape");
  if (!block) return block.status();
  auto crops = constInts(im, 2, "crops");
  if (!crops) return crops.status();
  const Shape& xs = im.in(0).shape;
  const size_t m = block->size();
  if (m < 1 || xs.size() < m + 1 || crops->size() != 2 * m)
    return Status::invalid("block_shape/crops of the wrong size");
  int64_t prod = 1;
  for (int64_t b : *block) {
    if (b < 1) return Status::invalid("BATCH_TO_SPACE_ND block must be positive");
    prod *= b;
  }
  if (xs[0] % prod) return Status::invalid("BATCH_TO_SPACE_ND batch is not a multiple of the blocks");
  Shape split(block->begin(), block->end()), perm = {int64_t(m)}, merged = {xs[0] / prod};
  split.push_back(xs[0] / prod);
  for (size_t d = 1; d < xs.size(); ++d) split.push_back(xs[d]);
  for (size_t d = 0; d < m; ++d) {
    perm.push_back(int64_t(m + 1 + d));
    perm.push_back(int64_t(d));
    merged.push_back(xs[d + 1] * (*block)[d]);
  }
  for (size_t d = m + 1; d < xs.size(); ++d) perm.push_back(int64_t(m + d)), merged.push_back(xs[d]);
  Shape start(xs.size(), 0), size = merged;
  for (size_t d = 0; d < m; ++d) {
    const int64_t c0 = (*crops)[2 * d], c1 = (*crops)[2 * d + 1];
    if (c0 < 0 || c1 < 0 || c0 + c1 > merged[d + 1]) return Status::invalid("BATCH_TO_SPACE_ND crops exceed the size");
    start[d + 1] = c0;
    size[d + 1] = merged[d + 1] - c0 - c1;
  }
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* r = im.b.transpose(im.b.reshape(*xv, split, im.aux("blocks")), perm, im.aux("interleaved"));
  Value* y = slice(im, im.b.reshape(r, merged, im.aux("merged")), start, size, "cropped");
  return im.setOut(0, im.b.reshape(y, im.out(0).shape, im.loc));
}

}  // namespace

void registerDataOps(HandlerTable& t) {
  using Op = fb::BuiltinOperator;
  auto add = [&](Op op, OpHandler h) { t.builtin[int(op)] = std::move(h); };
  add(Op::SQUEEZE, reshapeToDeclared);
  add(Op::EXPAND_DIMS, reshapeToDeclared);
  add(Op::TRANSPOSE, opTranspose);
  add(Op::SLICE, opSlice);
  add(Op::STRIDED_SLICE, opStridedSlice);
  add(Op::SPLIT, opSplit);
  add(Op::SPLIT_V, opSplitV);
  add(Op::PACK, opPack);
  add(Op::UNPACK, opUnpack);
  add(Op::TILE, opTile);
  add(Op::BROADCAST_TO, opBroadcastTo);
  add(Op::SPACE_TO_DEPTH, opSpaceToDepth);
  add(Op::SUM, [](Importer& im) { return opReduce(im, "tosa.reduce_sum"); });
  add(Op::REDUCE_MAX, [](Importer& im) { return opReduce(im, "tosa.reduce_max"); });
  add(Op::REDUCE_MIN, [](Importer& im) { return opReduce(im, "tosa.reduce_min"); });
  add(Op::REDUCE_PROD, [](Importer& im) { return opReduce(im, "tosa.reduce_product"); });
  add(Op::ARG_MAX, [](Importer& im) { return opArg(im, true); });
  add(Op::ARG_MIN, [](Importer& im) { return opArg(im, false); });
  add(Op::CAST, opCast);
  add(Op::GATHER, opGather);
  add(Op::GATHER_ND, opGatherNd);
  add(Op::MIRROR_PAD, opMirrorPad);
  add(Op::SPACE_TO_BATCH_ND, opSpaceToBatch);
  add(Op::BATCH_TO_SPACE_ND, opBatchToSpace);
}

}  // namespace tosakit::tflite
