// Data movement and reductions of any element type TOSA carries (float32, int32, int8, bool; int8 max/min and
// arg max/min on the raw values): SQUEEZE,
// EXPAND_DIMS, TRANSPOSE, SLICE, STRIDED_SLICE (unit strides), SPLIT, SPLIT_V, PACK, UNPACK, TILE, BROADCAST_TO,
// SPACE_TO_DEPTH, SUM / REDUCE_MAX / REDUCE_MIN / REDUCE_PROD, ARG_MAX / ARG_MIN, CAST. Shapes come from the
// model and are checked (Importer::setOut).
#include <algorithm>

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
}

}  // namespace tosakit::tflite
