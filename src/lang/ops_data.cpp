// Data arrangement / shape / reduction BMLang operators: permute, tile, broadcast, concat, split, pad,
// reshape, squeeze, expand_dims, index_select, reduce, arg, topk, sort, upsample, interpolate.
#include <algorithm>
#include <limits>
#include <numeric>

#include "lang/lang_internal.h"

namespace tosakit::lang {

namespace {

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

Value* sliceAxis(Graph::Impl& g, Value* x, int axis, int64_t start, int64_t len) {
  Shape st(x->type.dims.size(), 0), sz = x->type.dims;
  st[size_t(axis)] = start;
  sz[size_t(axis)] = len;
  return g.slice(x, st, sz);
}

Value* padAxis(Graph::Impl& g, Value* x, int axis, int64_t before, int64_t after, PadType mode) {
  if (before == 0 && after == 0) return x;
  const int64_t n = x->type.dims[size_t(axis)];
  std::vector<Value*> parts;
  auto edge = [&](int64_t at, int64_t times) {
    std::vector<int64_t> m(x->type.dims.size(), 1);
    m[size_t(axis)] = times;
    return g.tileV(sliceAxis(g, x, axis, at, 1), m);
  };
  if (mode == PadType::PAD_REFLECT && (before > n - 1 || after > n - 1))
    invalid("reflect padding must be smaller than the dimension");
  if (mode == PadType::PAD_SYMMETRIC && (before > n || after > n))
    invalid("symmetric padding must not exceed the dimension");
  if (before > 0) {
    if (mode == PadType::PAD_EDGE)
      parts.push_back(edge(0, before));
    else if (mode == PadType::PAD_REFLECT)
      parts.push_back(g.reverse(sliceAxis(g, x, axis, 1, before), axis));
    else
      parts.push_back(g.reverse(sliceAxis(g, x, axis, 0, before), axis));
  }
  parts.push_back(x);
  if (after > 0) {
    if (mode == PadType::PAD_EDGE)
      parts.push_back(edge(n - 1, after));
    else if (mode == PadType::PAD_REFLECT)
      parts.push_back(g.reverse(sliceAxis(g, x, axis, n - 1 - after, after), axis));
    else
      parts.push_back(g.reverse(sliceAxis(g, x, axis, n - after, after), axis));
  }
  return g.concatV(parts, axis);
}

// An integer tensor in an order-preserving TOSA domain ARGMAX accepts (i8 or i16): u8/u16 shifted by
// -128/-32768.
Value* argDomain(Graph::Impl& g, Value* x, DType t) {
  switch (t) {
    case DType::I8:
    case DType::I16:
    case DType::FP32: return x;
    case DType::U8: return g.rescale(x, DType::I8, 1 << 30, 30, 0, -128, true, false);
    case DType::U16: return g.rescale(x, DType::I16, 1 << 30, 30, 32768, 0, true, false);
    default: unsupported("arg of an i32 tensor: TOSA ARGMAX takes 8/16-bit integers or floats");
  }
}

Value* argIndex(Graph::Impl& g, Var x, int axis, bool isMin) {
  Value* v = argDomain(g, g.val(x), g.type(x));
  // min: argmax of -x (floats) or ~x = -x - 1 (integers, no overflow); ties keep the first index.
  if (isMin) v = g.type(x) == DType::FP32 ? g.negate(v) : g.unary("tosa.bitwise_not", v);
  Shape s = v->type.dims;
  Shape flat = s;
  flat.erase(flat.begin() + axis);
  Value* idx = g.op("tosa.argmax", {v}, ValueType::tensor(DType::I32, flat),
                    {{"axis", ir::Attribute::integer(axis, DType::I32)}});
  s[size_t(axis)] = 1;
  return g.reshape(idx, s);
}

// max/min/sum over one axis (kept with size 1) in the computation domain of the type.
Value* reduceOne(Graph::Impl& g, Value* x, DType t, ReduceMethod m, int axis) {
  const char* op = m == ReduceMethod::REDUCE_MAX ? "tosa.reduce_max"
      : m == ReduceMethod::REDUCE_MIN            ? "tosa.reduce_min"
      : m == ReduceMethod::REDUCE_PROD           ? "tosa.reduce_product"
                                                 : "tosa.reduce_sum";
  (void)t;
  return g.reduceV(op, x, axis);
}

}  // namespace

Var Graph::permute(Var x, const std::vector<int>& order) {
  return impl_->apply("permute", {x}, [&] {
    const int r = int(impl_->dims(x).size());
    std::vector<int64_t> perm;
    std::vector<bool> seen(size_t(r), false);
    if (int(order.size()) != r) invalid("order must have one entry per dimension");
    for (int o : order) {
      int a = normAxis(o, r, "order entry");
      if (seen[size_t(a)]) invalid("order repeats axis " + std::to_string(a));
      seen[size_t(a)] = true;
      perm.push_back(a);
    }
    return impl_->make(impl_->transpose(impl_->val(x), perm), impl_->type(x));
  });
}

Var Graph::tile(Var x, const std::vector<int>& reps) {
  return impl_->apply("tile", {x}, [&] {
    if (reps.size() != impl_->dims(x).size()) invalid("reps must have one entry per dimension");
    std::vector<int64_t> m;
    for (int r : reps) {
      if (r < 1) invalid("reps must be >= 1");
      m.push_back(r);
    }
    Value* v = impl_->tileV(impl_->val(x), m);
    if (v == impl_->val(x)) v = impl_->op("tosa.identity", {v}, v->type);
    return impl_->make(v, impl_->type(x));
  });
}

Var Graph::broadcast(Var x, const std::vector<int>& times) { return tile(x, times); }

Var Graph::concat(const std::vector<Var>& xs, int axis) {
  return impl_->apply("concat", xs, [&] {
    if (xs.empty()) invalid("no tensors to concatenate");
    const Shape& s0 = impl_->dims(xs[0]);
    int a = normAxis(axis, int(s0.size()), "axis");
    std::vector<Value*> vs;
    for (Var v : xs) {
      const Shape& s = impl_->dims(v);
      if (impl_->type(v) != impl_->type(xs[0])) invalid("tensors of different types");
      if (s.size() != s0.size()) invalid("tensors of different ranks");
      for (size_t d = 0; d < s.size(); ++d)
        if (int(d) != a && s[d] != s0[d]) invalid("dimension " + std::to_string(d) + " differs");
      vs.push_back(impl_->val(v));
    }
    Value* c = vs.size() == 1 ? impl_->op("tosa.identity", {vs[0]}, vs[0]->type) : impl_->concatV(vs, a);
    return impl_->make(c, impl_->type(xs[0]));
  });
}

std::vector<Var> Graph::split(Var x, int axis, int num, const std::vector<int>& size) {
  return impl_->applyMany("split", {x}, [&] {
    const Shape& s = impl_->dims(x);
    int a = normAxis(axis, int(s.size()), "axis");
    std::vector<int64_t> sizes;
    if (size.empty()) {
      if (num < 1 || s[size_t(a)] % num != 0)
        invalid("dimension " + std::to_string(s[size_t(a)]) + " does not split into " + std::to_string(num) +
                " equal parts");
      sizes.assign(size_t(num), s[size_t(a)] / num);
    } else {
      if (num != int(size.size())) invalid("num must equal the number of sizes");
      for (int z : size) {
        if (z < 1) invalid("sizes must be >= 1");
        sizes.push_back(z);
      }
      if (std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != s[size_t(a)])
        invalid("sizes do not add up to the dimension");
    }
    std::vector<Var> out;
    int64_t at = 0;
    for (int64_t z : sizes) {
      Value* v = sliceAxis(*impl_, impl_->val(x), a, at, z);
      if (v == impl_->val(x)) v = impl_->op("tosa.identity", {v}, v->type);
      out.push_back(impl_->make(v, impl_->type(x)));
      at += z;
    }
    return out;
  });
}

Var Graph::pad(Var x, double pad_val, const std::vector<int>& paddings, PadType mode) {
  return impl_->apply("pad", {x}, [&] {
    const Shape& s = impl_->dims(x);
    if (paddings.size() != 2 * s.size()) invalid("paddings must have 2 entries per dimension");
    for (int q : paddings)
      if (q < 0) invalid("paddings must be >= 0");
    Value* v = impl_->val(x);
    if (mode == PadType::PAD_CONSTANT) {
      if (impl_->type(x) != DType::FP32 &&
          (pad_val < double(dtypeMin(impl_->type(x))) || pad_val > double(dtypeMax(impl_->type(x)))))
        invalid("pad_val outside the tensor's type");
      v = impl_->padConst(v, std::vector<int64_t>(paddings.begin(), paddings.end()), pad_val);
    } else {
      for (size_t d = 0; d < s.size(); ++d) v = padAxis(*impl_, v, int(d), paddings[2 * d], paddings[2 * d + 1], mode);
    }
    if (v == impl_->val(x)) v = impl_->op("tosa.identity", {v}, v->type);
    return impl_->make(v, impl_->type(x));
  });
}

Var Graph::reshape(Var x, const std::vector<int>& shape) {
  return impl_->apply("reshape", {x}, [&] {
    const Shape& s = impl_->dims(x);
    Shape out;
    int infer = -1;
    int64_t known = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      int64_t d = shape[i];
      if (d == 0) {
        if (i >= s.size()) invalid("0 at position " + std::to_string(i) + " has no input dimension to keep");
        d = s[i];
      }
      if (d == -1) {
        if (infer >= 0) invalid("more than one -1");
        infer = int(i);
        out.push_back(1);
        continue;
      }
      if (d < 1) invalid("dimension " + std::to_string(d) + " is not allowed");
      known *= d;
      out.push_back(d);
    }
    if (infer >= 0) {
      if (numel(s) % known != 0) invalid("cannot infer the -1 dimension");
      out[size_t(infer)] = numel(s) / known;
    }
    if (numel(out) != numel(s)) invalid("element count changes");
    Value* v = impl_->val(x);
    v = out == s ? impl_->op("tosa.identity", {v}, v->type) : impl_->reshape(v, out);
    return impl_->make(v, impl_->type(x));
  });
}

Var Graph::squeeze(Var x, const std::vector<int>& axis) {
  return impl_->apply("squeeze", {x}, [&] {
    const Shape& s = impl_->dims(x);
    std::vector<bool> drop(s.size(), false);
    for (int a : axis) {
      int n = normAxis(a, int(s.size()), "axis");
      if (s[size_t(n)] != 1)
        invalid("axis " + std::to_string(a) + " has size " + std::to_string(s[size_t(n)]) + ", not 1");
      drop[size_t(n)] = true;
    }
    Shape out;
    for (size_t i = 0; i < s.size(); ++i)
      if (!(axis.empty() ? s[i] == 1 : drop[i])) out.push_back(s[i]);
    Value* v = impl_->val(x);
    v = out == s ? impl_->op("tosa.identity", {v}, v->type) : impl_->reshape(v, out);
    return impl_->make(v, impl_->type(x));
  });
}

Var Graph::expand_dims(Var x, int axis, int ndims) {
  return impl_->apply("expand_dims", {x}, [&] {
    Shape s = impl_->dims(x);
    if (ndims < 1) invalid("ndims must be >= 1");
    int a = normAxis(axis, int(s.size()) + 1, "axis");
    s.insert(s.begin() + a, size_t(ndims), 1);
    return impl_->make(impl_->reshape(impl_->val(x), s), impl_->type(x));
  });
}

// GATHER over [outer, K, inner] with the indices repeated for every outer row.
Var Graph::index_select(Var x, int dim, Var index) {
  return impl_->apply("index_select", {x, index}, [&] {
    Graph::Impl& g = *impl_;
    const Shape& s = g.dims(x);
    int a = normAxis(dim, int(s.size()), "dim");
    if (g.dims(index).size() != 1) invalid("index must be 1-D");
    DType it = g.type(index);
    if (it == DType::FP32) invalid("index must be an integer tensor");
    const int64_t W = g.dims(index)[0];
    const int64_t outer = numel(Shape(s.begin(), s.begin() + a)), K = s[size_t(a)],
                  inner = numel(Shape(s.begin() + a + 1, s.end()));
    if (g.info(index).coeff)
      for (int64_t v : g.info(index).coeff->toInts())
        if (v < 0 || v >= K) invalid("index " + std::to_string(v) + " outside [0, " + std::to_string(K) + ")");
    Value* values = g.reshape(g.val(x), {outer, K, inner});
    Value* idx = g.reshape(g.widen(g.val(index), it), {1, W});
    idx = g.tileV(idx, {outer, 1});
    Value* r = g.op("tosa.gather", {values, idx}, ValueType::tensor(values->type.dtype, {outer, W, inner}));
    Shape out = s;
    out[size_t(a)] = W;
    return g.make(g.reshape(r, out), g.type(x));
  });
}

Var Graph::reduce(Var x, const ReduceParam& p) {
  return impl_->apply("reduce", {x}, [&] {
    Graph::Impl& g = *impl_;
    const Shape& s = g.dims(x);
    DType t = g.type(x);
    bool isInt = t != DType::FP32;
    if (isInt && (p.method == ReduceMethod::REDUCE_MEAN || p.method == ReduceMethod::REDUCE_PROD))
      invalid("REDUCE_MEAN and REDUCE_PROD take fp32 tensors");
    std::vector<int> axes;
    for (int a : p.axis_list) axes.push_back(normAxis(a, int(s.size()), "axis"));
    if (axes.empty()) invalid("axis_list is empty");
    std::sort(axes.begin(), axes.end());
    axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
    Value* v = isInt ? g.widen(g.val(x), t) : g.val(x);
    int64_t count = 1;
    for (int a : axes) {
      v = reduceOne(g, v, t, p.method, a);
      count *= s[size_t(a)];
    }
    if (p.method == ReduceMethod::REDUCE_MEAN)
      v = g.mulF32(v, g.splat(DType::FP32, 1.0 / double(count), v->type.rank()));
    if (isInt) v = g.narrow(v, t);
    if (!p.keep_dims) {
      Shape out;
      for (size_t i = 0; i < s.size(); ++i)
        if (std::find(axes.begin(), axes.end(), int(i)) == axes.end()) out.push_back(s[i]);
      v = g.reshape(v, out);
    }
    return g.make(v, t);
  });
}

Var Graph::arg(Var x, const ArgParam& p) {
  return impl_->apply("arg", {x}, [&] {
    if (p.method != 0 && p.method != 1) invalid("method must be 0 (max) or 1 (min)");
    int a = normAxis(p.axis, int(impl_->dims(x).size()), "axis");
    return impl_->make(argIndex(*impl_, x, a, p.method == 1), DType::I32);
  });
}

std::vector<Var> Graph::topk(Var x, const TopkParam& p) {
  return impl_->applyMany("topk", {x}, [&] {
    Graph::Impl& g = *impl_;
    if (p.k != 1)
      unsupported("k = " + std::to_string(p.k) + ": TOSA 1.0 has no sort; only k = 1 (ARGMAX) is expressible");
    int a = normAxis(p.axis, int(g.dims(x).size()), "axis");
    DType t = g.type(x);
    ReduceMethod m = p.descending ? ReduceMethod::REDUCE_MAX : ReduceMethod::REDUCE_MIN;
    Value* v = t == DType::FP32 ? g.val(x) : g.widen(g.val(x), t);
    v = reduceOne(g, v, t, m, a);
    if (t != DType::FP32) v = g.narrow(v, t);
    Var values = g.make(v, t);
    Var idx = g.make(argIndex(g, x, a, !p.descending), DType::I32);
    return std::vector<Var>{values, idx};
  });
}

std::vector<Var> Graph::sort(Var x, int, bool, bool) {
  return impl_->applyMany("sort", {x}, [&]() -> std::vector<Var> { unsupported("TOSA 1.0 has no sort operator"); });
}

Var Graph::upsample(Var x, int scale) {
  return impl_->apply("upsample", {x}, [&] {
    Graph::Impl& g = *impl_;
    const Shape& s = g.dims(x);
    if (s.size() != 4) invalid("input must be NCHW");
    if (scale < 1) invalid("scale must be >= 1");
    Value* v = g.reshape(g.val(x), {s[0], s[1], s[2], 1, s[3], 1});
    v = g.tileV(v, {1, 1, 1, scale, 1, scale});
    v = g.reshape(v, {s[0], s[1], s[2] * scale, s[3] * scale});
    if (v == g.val(x)) v = g.op("tosa.identity", {v}, v->type);
    return g.make(v, g.type(x));
  });
}

// TOSA RESIZE samples the input at (out * d + offset) / n: align_corners n = O - 1, d = I - 1; half-pixel
// centres n = 2 O, d = 2 I, offset = I - O; otherwise n = O, d = I. NEAREST rounds half up (TOSA).
Var Graph::interpolate(Var x, const std::vector<int>& size, const std::vector<float>& scale_factor,
                       const InterpolateParam& p) {
  return impl_->apply("interpolate", {x}, [&] {
    Graph::Impl& g = *impl_;
    const Shape& s = g.dims(x);
    if (s.size() != 4) invalid("input must be NCHW");
    if (g.type(x) != DType::FP32) invalid("interpolate takes fp32 input");
    int64_t out[2];
    for (int i = 0; i < 2; ++i) {
      if (!size.empty()) {
        if (size.size() != 2) invalid("size must have 2 entries");
        out[i] = size[size_t(i)];
      } else {
        if (scale_factor.size() != 2) invalid("give size or 2 scale factors");
        out[i] = int64_t(double(s[size_t(2 + i)]) * double(scale_factor[size_t(i)]));
      }
      if (out[i] < 1) invalid("output size must be >= 1");
    }
    std::vector<int64_t> scale, offset, border;
    for (int i = 0; i < 2; ++i) {
      int64_t in = s[size_t(2 + i)], o = out[i], n, d, off = 0;
      if (p.align_corners && o > 1 && in > 1) {
        n = o - 1;
        d = in - 1;
      } else if (p.half_pixel_centers) {
        n = 2 * o;
        d = 2 * in;
        off = in - o;
      } else {
        n = o;
        d = in;
      }
      scale.push_back(n);
      scale.push_back(d);
      offset.push_back(off);
      border.push_back((o - 1) * d - (in - 1) * n + off);
    }
    Value* v = g.toNHWC(g.val(x));
    Value* y = g.op(
        "tosa.resize", {v, g.shapeConst(scale), g.shapeConst(offset), g.shapeConst(border)},
        ValueType::tensor(DType::FP32, {s[0], out[0], out[1], s[1]}),
        {{"mode", ir::Attribute::enumCase(p.method == InterpolateMode::NEAREST ? "NEAREST_NEIGHBOR" : "BILINEAR")}});
    return g.make(g.toNCHW(y), DType::FP32);
  });
}

}  // namespace tosakit::lang
