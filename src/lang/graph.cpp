// tosakit::lang Graph: state, emission helpers, compile/save/run.
#include <cmath>
#include <stdexcept>

#include "ir/validate.h"
#include "lang/lang_internal.h"
#include "tosakit/model_io.h"

namespace tosakit::lang {

void fail(Status s) { throw OpError{std::move(s)}; }

DType storageType(DType t) {
  if (t == DType::U8) return DType::I8;
  if (t == DType::U16) return DType::I16;
  return t;
}

bool isLangType(DType t) {
  switch (t) {
    case DType::I8:
    case DType::U8:
    case DType::I16:
    case DType::U16:
    case DType::I32:
    case DType::FP32: return true;
    default: return false;
  }
}

Shape broadcastOrFail(const Shape& a, const Shape& b) {
  auto s = ir::broadcastShape(a, b);
  if (!s)
    invalid("shapes " + ValueType::tensor(DType::FP32, a).toString() + " and " +
            ValueType::tensor(DType::FP32, b).toString() + " do not broadcast (same rank, dims equal or 1)");
  return *s;
}

int normAxis(int axis, int rank, const char* what) {
  int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    invalid(std::string(what) + " " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return a;
}

Graph::Impl::Impl(std::string functionName) : module(std::make_unique<ir::Module>()), b(*module, functionName) {}

Var Graph::Impl::apply(const char* opn, const std::vector<Var>& inputs, const std::function<Var()>& lower) {
  auto r = applyMany(opn, inputs, [&] { return std::vector<Var>{lower()}; });
  return r.empty() ? Var{Var::kError} : r[0];
}

std::vector<Var> Graph::Impl::applyMany(const char* opn, const std::vector<Var>& inputs,
                                        const std::function<std::vector<Var>()>& lower) {
  for (Var v : inputs)
    if (v.id == Var::kError) return {};
  opName = std::string(opn) + "_" + std::to_string(++opCount);
  step = 0;
  try {
    for (Var v : inputs)
      if (v.id >= int(vars.size())) invalid("unknown tensor handle " + std::to_string(v.id));
    return lower();
  } catch (const OpError& e) {
    if (error.isOk()) error = Status::error(e.status.code(), std::string(opn) + ": " + e.status.message());
  } catch (const std::exception& e) {
    if (error.isOk()) error = Status::internal(std::string(opn) + ": " + e.what());
  }
  return {};
}

const VarInfo& Graph::Impl::info(Var v) const {
  if (v.id < 0 || v.id >= int(vars.size())) invalid("a required tensor is missing");
  return vars[size_t(v.id)];
}

Var Graph::Impl::make(Value* v, DType logical, std::optional<Tensor> coeff) {
  vars.push_back({v, logical, std::move(coeff)});
  return Var{int(vars.size()) - 1};
}

const Tensor& Graph::Impl::coeffOf(Var v, const char* what) const {
  const VarInfo& i = info(v);
  if (!i.coeff) invalid(std::string(what) + " must be a coeff (constant) tensor");
  return *i.coeff;
}

std::string Graph::Impl::loc() { return opName + "." + std::to_string(step++); }

Value* Graph::Impl::op(const std::string& name, std::vector<Value*> operands, ValueType rt,
                       std::map<std::string, ir::Attribute> attrs) {
  return b.op1(name, std::move(operands), std::move(rt), std::move(attrs), loc());
}

Value* Graph::Impl::constant(const Tensor& t) {
  Tensor s = t;
  if (t.dtype() == DType::U8 || t.dtype() == DType::U16) {
    s = Tensor(storageType(t.dtype()), t.shape());
    for (int64_t i = 0; i < t.size(); ++i) s.setInt(i, t.getInt(i));  // keeps the low bits
  }
  return b.constant(std::move(s), loc());
}

Value* Graph::Impl::constI32(const std::vector<int64_t>& values, const Shape& shape) {
  return constant(Tensor::fromInts(DType::I32, shape, values));
}

Value* Graph::Impl::constF32(const std::vector<double>& values, const Shape& shape) {
  return constant(Tensor::fromDoubles(DType::FP32, shape, values));
}

Value* Graph::Impl::splat(DType storage, double v, int rank) {
  Tensor t(storage, Shape(size_t(rank), 1));
  if (isFloat(storage))
    t.setFloat(0, v);
  else
    t.setInt(0, int64_t(v));
  return constant(t);
}

Value* Graph::Impl::shapeConst(const std::vector<int64_t>& v) { return b.constShape(v, loc()); }

Value* Graph::Impl::zp(DType storage, int64_t v) { return b.scalar1(storage, double(v), loc()); }

Value* Graph::Impl::rescale(Value* x, DType outStorage, int64_t mult, int shift, int64_t izp, int64_t ozp, bool inU,
                            bool outU) {
  ir::RescaleAttrs a;
  a.multiplier = {mult};
  a.shift = {shift};
  a.inputZp = izp;
  a.outputZp = ozp;
  a.inputUnsigned = inU;
  a.outputUnsigned = outU;
  return b.rescale(x, outStorage, a, loc());
}

Value* Graph::Impl::cast(Value* x, DType to) {
  if (x->type.dtype == to) return x;
  return op("tosa.cast", {x}, ValueType::tensor(to, x->type.dims));
}

// TOSA 1.0 has no unsigned tensors: unsigned values enter i32 through RESCALE's input_unsigned (which
// cannot produce i32 directly), signed ones through CAST.
Value* Graph::Impl::widen(Value* x, DType logical) {
  switch (logical) {
    case DType::I8:
    case DType::I16: return cast(x, DType::I32);
    case DType::I32: return x;
    case DType::U8: return cast(rescale(x, DType::I16, 1 << 30, 30, 0, 0, true, false), DType::I32);
    case DType::U16: {
      // u16 - 32768 fits i16; add it back in i32.
      Value* s = rescale(x, DType::I16, 1 << 30, 30, 32768, 0, true, false);
      return binary("tosa.add", cast(s, DType::I32), splat(DType::I32, 32768, x->type.rank()), DType::I32);
    }
    default: invalid(std::string("integer tensor expected, got ") + std::string(dtypeName(logical)));
  }
}

Value* Graph::Impl::toF32(Value* x, DType logical) {
  if (logical == DType::FP32) return x;
  if (logical == DType::U8 || logical == DType::U16) x = widen(x, logical);
  return cast(x, DType::FP32);
}

// TOSA CLAMP has no i32 form: MAXIMUM then MINIMUM with constants.
Value* Graph::Impl::clampI32(Value* x, int64_t lo, int64_t hi) {
  int r = x->type.rank();
  Value* m = binary("tosa.maximum", x, splat(DType::I32, double(lo), r), DType::I32);
  return binary("tosa.minimum", m, splat(DType::I32, double(hi), r), DType::I32);
}

Value* Graph::Impl::clampF32(Value* x, double lo, double hi) {
  return op(
      "tosa.clamp", {x}, x->type,
      {{"min_val", ir::Attribute::floating(lo, DType::FP32)}, {"max_val", ir::Attribute::floating(hi, DType::FP32)}});
}

Value* Graph::Impl::narrow(Value* x, DType out) {
  switch (out) {
    case DType::I32: return x;
    case DType::I8:
    case DType::I16: return cast(clampI32(x, dtypeMin(out), dtypeMax(out)), out);
    case DType::U8: {
      // [0, 255] through i16, then RESCALE to the unsigned 8-bit pattern.
      Value* s = cast(clampI32(x, 0, 255), DType::I16);
      return rescale(s, DType::I8, 1 << 30, 30, 0, 0, false, true);
    }
    case DType::U16: {
      Value* c = clampI32(x, 0, 65535);
      Value* s = cast(binary("tosa.sub", c, splat(DType::I32, 32768, x->type.rank()), DType::I32), DType::I16);
      return rescale(s, DType::I16, 1 << 30, 30, 0, 32768, false, true);
    }
    default: invalid(std::string("integer output type expected, got ") + std::string(dtypeName(out)));
  }
}

Value* Graph::Impl::ars(Value* x, Value* s, bool round) {
  Shape sh = broadcastOrFail(x->type.dims, s->type.dims);
  return op("tosa.arithmetic_right_shift", {x, s}, ValueType::tensor(x->type.dtype, sh),
            {{"round", ir::Attribute::boolean(round)}});
}

Value* Graph::Impl::lls(Value* x, Value* s) {
  Shape sh = broadcastOrFail(x->type.dims, s->type.dims);
  return op("tosa.logical_left_shift", {x, s}, ValueType::tensor(x->type.dtype, sh));
}

Value* Graph::Impl::roundShift(Value* x, int s) {
  if (s < 0 || s > 31) invalid("shift " + std::to_string(s) + " outside [0, 31]");
  if (s == 0) return x;
  return ars(x, splat(DType::I32, s, x->type.rank()), true);
}

Value* Graph::Impl::roundShiftT(Value* x, Value* s) { return ars(x, s, true); }

Value* Graph::Impl::binary(const char* tosaOp, Value* a, Value* b2, DType rt) {
  Shape sh = broadcastOrFail(a->type.dims, b2->type.dims);
  return op(tosaOp, {a, b2}, ValueType::tensor(rt, sh));
}

Value* Graph::Impl::mulI32(Value* a, Value* b2, int shift) {
  Shape sh = broadcastOrFail(a->type.dims, b2->type.dims);
  return op("tosa.mul", {a, b2, zp(DType::I8, shift)}, ValueType::tensor(DType::I32, sh));
}

Value* Graph::Impl::mulF32(Value* a, Value* b2) {
  Shape sh = broadcastOrFail(a->type.dims, b2->type.dims);
  return op("tosa.mul", {a, b2, zp(DType::I8, 0)}, ValueType::tensor(DType::FP32, sh));
}

Value* Graph::Impl::unary(const char* tosaOp, Value* x) { return op(tosaOp, {x}, x->type); }

Value* Graph::Impl::negate(Value* x) {
  DType t = x->type.dtype;
  return op("tosa.negate", {x, zp(t, 0), zp(t, 0)}, x->type);
}

Value* Graph::Impl::cmp(const char* tosaOp, Value* a, Value* b2) { return binary(tosaOp, a, b2, DType::Bool); }

Value* Graph::Impl::selectV(Value* pred, Value* a, Value* b2) {
  Shape sh = broadcastOrFail(broadcastOrFail(pred->type.dims, a->type.dims), b2->type.dims);
  return op("tosa.select", {pred, a, b2}, ValueType::tensor(a->type.dtype, sh));
}

// round(v * scale) half away from zero, exactly: scale (an fp32 value) = M * 2^-E with M < 2^31, so
// |v| * scale rounded half up is apply_scale_32(|v|, M, E) = (|v| * M + 2^(E-1)) >> E (TOSA RESCALE), whose
// REQUIRE needs |v| < 2^(E-1): `bound` is the caller's bound on |v|.
Value* Graph::Impl::roundScaleHalfAway(Value* v, double scale, int64_t bound) {
  if (!(scale > 0)) invalid("scale must be positive");
  int e = 0;
  double m = std::frexp(scale, &e);  // scale = m * 2^e, m in [0.5, 1)
  int64_t mult = int64_t(std::ldexp(m, 31));
  int shift = 31 - e;
  while (mult >= (int64_t(1) << 31)) {
    mult >>= 1;
    --shift;
  }
  while (shift > 62 && mult % 2 == 0) {
    mult >>= 1;
    --shift;
  }
  if (shift < 2 || shift > 62 || double(mult) * std::ldexp(1.0, -shift) != scale)
    unsupported("scale " + std::to_string(scale) + " cannot be applied exactly by a TOSA RESCALE");
  if (bound >= (int64_t(1) << (shift - 1)) || bound > (int64_t(1) << 31) - 1)
    unsupported("intermediate values up to " + std::to_string(bound) + " with scale " + std::to_string(scale) +
                " exceed what TOSA RESCALE reproduces exactly (|value| < 2^" + std::to_string(shift - 1) + ")");
  Value* a = unary("tosa.abs", v);
  Value* r = rescale(a, DType::I32, mult, shift, 0, 0, false, false);
  Value* neg = cmp("tosa.greater", splat(DType::I32, 0, v->type.rank()), v);
  return selectV(neg, negate(r), r);
}

// floor(|x|) + (frac >= 0.5), sign restored: adding 0.5 before FLOOR would round in fp32 (0.49999997).
Value* Graph::Impl::roundHalfAwayF32(Value* x) {
  Value* a = unary("tosa.abs", x);
  Value* fl = unary("tosa.floor", a);
  Value* frac = binary("tosa.sub", a, fl, DType::FP32);
  Value* up = cmp("tosa.greater_equal", frac, splat(DType::FP32, 0.5, x->type.rank()));
  Value* one = selectV(up, splat(DType::FP32, 1.0, x->type.rank()), splat(DType::FP32, 0.0, x->type.rank()));
  Value* r = binary("tosa.add", fl, one, DType::FP32);
  Value* neg = cmp("tosa.greater", splat(DType::FP32, 0.0, x->type.rank()), x);
  return selectV(neg, negate(r), r);
}

Value* Graph::Impl::reshape(Value* x, const Shape& s) {
  if (x->type.dims == s) return x;
  return op("tosa.reshape", {x, shapeConst(s)}, ValueType::tensor(x->type.dtype, s));
}

Value* Graph::Impl::transpose(Value* x, const std::vector<int64_t>& perm) {
  Shape out;
  for (int64_t p : perm) out.push_back(x->type.dims.at(size_t(p)));
  return op("tosa.transpose", {x}, ValueType::tensor(x->type.dtype, out),
            {{"perms", ir::Attribute::intArray(perm, DType::I32)}});
}

Value* Graph::Impl::slice(Value* x, const Shape& start, const Shape& size) {
  if (size == x->type.dims) return x;
  return op("tosa.slice", {x, shapeConst(start), shapeConst(size)}, ValueType::tensor(x->type.dtype, size));
}

Value* Graph::Impl::concatV(const std::vector<Value*>& xs, int axis) {
  if (xs.size() == 1) return xs[0];
  Shape s = xs[0]->type.dims;
  s[size_t(axis)] = 0;
  for (Value* x : xs) s[size_t(axis)] += x->type.dims[size_t(axis)];
  return op("tosa.concat", xs, ValueType::tensor(xs[0]->type.dtype, s),
            {{"axis", ir::Attribute::integer(axis, DType::I32)}});
}

Value* Graph::Impl::tileV(Value* x, const std::vector<int64_t>& multiples) {
  Shape s = x->type.dims;
  bool same = true;
  for (size_t i = 0; i < s.size(); ++i) {
    s[i] *= multiples[i];
    same = same && multiples[i] == 1;
  }
  if (same) return x;
  return op("tosa.tile", {x, shapeConst(multiples)}, ValueType::tensor(x->type.dtype, s));
}

Value* Graph::Impl::padConst(Value* x, const std::vector<int64_t>& padding, double value) {
  Shape s = x->type.dims;
  for (size_t i = 0; i < s.size(); ++i) s[i] += padding[2 * i] + padding[2 * i + 1];
  return op("tosa.pad", {x, shapeConst(padding), b.scalar1(x->type.dtype, value, loc())},
            ValueType::tensor(x->type.dtype, s));
}

Value* Graph::Impl::reverse(Value* x, int axis) {
  return op("tosa.reverse", {x}, x->type, {{"axis", ir::Attribute::integer(axis, DType::I32)}});
}

Value* Graph::Impl::reduceV(const char* tosaOp, Value* x, int axis) {
  Shape s = x->type.dims;
  s[size_t(axis)] = 1;
  return op(tosaOp, {x}, ValueType::tensor(x->type.dtype, s), {{"axis", ir::Attribute::integer(axis, DType::I32)}});
}

Value* Graph::Impl::toNHWC(Value* x) {
  if (x->type.rank() == 5) return transpose(x, {0, 2, 3, 4, 1});
  return transpose(x, {0, 2, 3, 1});
}

Value* Graph::Impl::toNCHW(Value* x) {
  if (x->type.rank() == 5) return transpose(x, {0, 4, 1, 2, 3});
  return transpose(x, {0, 3, 1, 2});
}

// ---- Graph ----------------------------------------------------------------------------------------

namespace {

// A U8/U16 argument or result (stored as i8/i16) is marked "tosakit.lang_type" = "u8"/"u16"; u8 also as
// "tosakit.onnx_type" = "uint8", the record `tosakit run` and the Python Session read to take and give uint8
// data for an i8 argument/result (include/tosakit/io_adapt.h).
void markUnsigned(ir::Function& f, bool isArg, size_t i, DType t) {
  if (t != DType::U8 && t != DType::U16) return;
  auto set = [&](const std::string& k, const std::string& v) {
    if (isArg)
      f.setArgAttr(i, k, ir::Attribute::string(v));
    else
      f.setResultAttr(i, k, ir::Attribute::string(v));
  };
  set("tosakit.lang_type", std::string(dtypeName(t)));
  if (t == DType::U8) set("tosakit.onnx_type", "uint8");
}

}  // namespace

Graph::Graph(std::string functionName) : impl_(std::make_unique<Impl>(std::move(functionName))) {}
Graph::~Graph() = default;
Graph::Graph(Graph&&) noexcept = default;
Graph& Graph::operator=(Graph&&) noexcept = default;

Var Graph::input(const std::string& name, DType dtype, const std::vector<int64_t>& shape) {
  return impl_->apply("input", {}, [&] {
    if (!isLangType(dtype))
      invalid("element type " + std::string(dtypeName(dtype)) + " of '" + name +
              "' is not one of i8, u8, i16, u16, i32, fp32");
    for (int64_t d : shape)
      if (d < 1) invalid("input '" + name + "' has a dimension < 1");
    for (const Value* a : impl_->b.function().inputs())
      if (a->name == name) invalid("input name '" + name + "' used twice");
    Value* v = impl_->b.input(ValueType::tensor(storageType(dtype), shape), name);
    markUnsigned(impl_->b.function(), true, size_t(v->index), dtype);
    return impl_->make(v, dtype);
  });
}

Var Graph::coeff(const Tensor& data, const std::string& name) {
  return impl_->apply("coeff", {}, [&] {
    if (!isLangType(data.dtype()))
      invalid("element type " + std::string(dtypeName(data.dtype())) + " is not one of i8, u8, i16, u16, i32, fp32");
    Value* v = impl_->constant(data);
    if (!name.empty()) v->definingOp->loc.name = name;
    return impl_->make(v, data.dtype(), data);
  });
}

void Graph::output(Var v, const std::string& name) {
  impl_->apply("output", {v}, [&] {
    impl_->info(v);
    for (auto& o : impl_->outputs)
      if (o.second == name) invalid("output name '" + name + "' used twice");
    impl_->outputs.push_back({v.id, name});
    return v;
  });
}

DType Graph::dtype(Var v) const {
  return v.valid() && v.id < int(impl_->vars.size()) ? impl_->vars[size_t(v.id)].type : DType::FP32;
}

std::vector<int64_t> Graph::shape(Var v) const {
  return v.valid() && v.id < int(impl_->vars.size()) ? impl_->vars[size_t(v.id)].value->type.dims
                                                     : std::vector<int64_t>{};
}

Status Graph::status() const { return impl_->error; }

namespace {

// Copy of a flat function (the graphs built here have no regions) with its return appended.
std::unique_ptr<ir::Module> finishedCopy(const Graph::Impl& g) {
  auto m = std::make_unique<ir::Module>();
  const ir::Function& src = const_cast<ir::Builder&>(g.b).function();
  ir::Builder b(*m, src.name);
  std::map<const Value*, Value*> map;
  for (const Value* a : src.inputs()) map[a] = b.input(a->type, a->name);
  b.function().argAttrs = src.argAttrs;
  for (const auto& op : src.body.ops) {
    std::vector<Value*> operands;
    for (const Value* o : op->operands) operands.push_back(map.at(o));
    std::vector<ValueType> types;
    for (const Value* r : op->results) types.push_back(r->type);
    ir::Operation& c = b.create(op->name, operands, types, op->attrs, op->loc);
    for (size_t i = 0; i < op->results.size(); ++i) {
      c.results[i]->name = op->results[i]->name;
      map[op->results[i]] = c.results[i];
    }
  }
  std::vector<Value*> outs;
  std::vector<std::string> names;
  for (const auto& [id, name] : g.outputs) {
    Value* v = map.at(g.vars[size_t(id)].value);
    // A graph input returned directly, or one value under two names: give the output its own op.
    outs.push_back(v);
    names.push_back(name);
  }
  b.output(outs, names);
  for (size_t i = 0; i < g.outputs.size(); ++i)
    markUnsigned(b.function(), false, i, g.vars[size_t(g.outputs[i].first)].type);
  m->target = g.target;
  return m;
}

}  // namespace

std::unique_ptr<ir::Module> Graph::module() const {
  if (!impl_->error.isOk() || impl_->outputs.empty()) return nullptr;
  return finishedCopy(*impl_);
}

Status Graph::compile(const ir::TargetEnv& target) {
  TK_RETURN_IF_ERROR(impl_->error);
  if (impl_->outputs.empty()) return Status::invalid("compile: the graph has no outputs (call output())");
  auto m = finishedCopy(*impl_);
  auto diags = ir::validateModule(*m, target);
  if (!diags.empty()) {
    std::string msg = "compile: the graph is not valid TOSA for the target:";
    bool unsupportedOnly = true;
    for (const auto& d : diags) {
      msg += "\n  " + d.toString();
      unsupportedOnly = unsupportedOnly && d.kind == ir::Diagnostic::Kind::Unsupported;
    }
    return unsupportedOnly ? Status::unsupported(msg) : Status::invalid(msg);
  }
  // Upstream MLIR 22 prints an empty extension list as "extensions = []" and cannot parse it back: a target
  // without extensions is checked but not recorded, so saved .mlir files stay loadable.
  if (!target.extensions.empty()) impl_->target = target;
  return Status::ok();
}

Status Graph::save(const std::string& path) const {
  TK_RETURN_IF_ERROR(impl_->error);
  auto m = module();
  if (!m) return Status::invalid("save: the graph has no outputs (call output())");
  return saveModel(*m, path);
}

namespace {

// U8/U16 tensors <-> the i8/i16 bit patterns of the TOSA graph.
Tensor retype(const Tensor& t, DType to) {
  Tensor r(to, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) r.setInt(i, t.getInt(i));
  return r;
}

}  // namespace

Result<NamedTensors> Graph::run(const NamedTensors& inputs, const SessionOptions& options) const {
  auto m = module();
  if (!m) return impl_->error.isOk() ? Status::invalid("run: the graph has no outputs (call output())") : impl_->error;
  const ir::Function& f = impl_->b.function();
  NamedTensors in;
  for (const auto& [name, t] : inputs) {
    DType want = t.dtype();
    for (const Value* a : f.inputs())
      if (a->name == name) want = a->type.dtype;
    bool unsignedView =
        (t.dtype() == DType::U8 && want == DType::I8) || (t.dtype() == DType::U16 && want == DType::I16);
    in.push_back({name, unsignedView ? retype(t, want) : t});
  }
  auto s = Session::create(std::move(m), options);
  if (!s) return s.status();
  RunResult rr;
  TK_RETURN_IF_ERROR((*s)->run(in, rr));
  for (size_t i = 0; i < rr.outputs.size() && i < impl_->outputs.size(); ++i) {
    DType t = impl_->vars[size_t(impl_->outputs[i].first)].type;
    if (t == DType::U8 || t == DType::U16) rr.outputs[i].second = retype(rr.outputs[i].second, t);
  }
  return std::move(rr.outputs);
}

}  // namespace tosakit::lang
