// Recurrent layers RNN, GRU and LSTM, unrolled over the (static) sequence length into TOSA matmuls and
// elementwise ops. Everything runs on rank-3 [1, batch, features] values so tosa.matmul applies directly.
// Gate order (ONNX): RNN i; GRU z, r, h; LSTM i, o, f, c. Weights may be constants or run-time tensors.
#include <cmath>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

enum class Cell { Rnn, Gru, Lstm };

struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

struct RnnSpec {
  Cell cell;
  int gates;  // 1, 3, 4
  int64_t T, B, I, H, dirs;
  bool batchFirst;  // layout = 1
  float clip = 0;   // 0 = no clip
  bool linearBeforeReset = false, inputForget = false;
  std::vector<Activation> acts;  // per direction: f, g[, h]
};

class RnnBuilder {
 public:
  RnnBuilder(Importer& im, const RnnSpec& s) : im_(im), s_(s) {}

  Value* slice(Value* x, Shape start, Shape size) {
    Value* st = im_.b.constShape(start, im_.aux("start"));
    Value* sz = im_.b.constShape(size, im_.aux("size"));
    return im_.b.op1("tosa.slice", {x, st, sz}, ValueType::tensor(x->type.dtype, size), {}, im_.aux("slice"));
  }
  // Gate k of a [1, B, G*H] value.
  Value* gate(Value* x, int k) { return slice(x, {0, 0, k * s_.H}, {1, s_.B, s_.H}); }
  Value* add(Value* a, Value* c) { return im_.b.add(a, c, im_.aux("add")); }
  Value* sub(Value* a, Value* c) { return im_.b.sub(a, c, im_.aux("sub")); }
  Value* mul(Value* a, Value* c) { return im_.mul(a, c); }
  Value* matmul(Value* a, Value* c) { return im_.matmul3(a, c); }

  Result<Value*> activate(Value* x, const Activation& a) {
    const size_t r = 3;
    if (a.name == "Sigmoid") return im_.unary("tosa.sigmoid", x);
    if (a.name == "Tanh") return im_.unary("tosa.tanh", x);
    if (a.name == "Relu") return im_.clampF(x, 0.0, kFltMax);
    if (a.name == "Affine") return add(mul(x, im_.scalarF(a.alpha, r)), im_.scalarF(a.beta, r));
    if (a.name == "HardSigmoid")
      return im_.clampF(add(mul(x, im_.scalarF(a.alpha, r)), im_.scalarF(a.beta, r)), 0.0, 1.0);
    if (a.name == "ScaledTanh")
      return mul(im_.unary("tosa.tanh", mul(x, im_.scalarF(a.beta, r))), im_.scalarF(a.alpha, r));
    if (a.name == "LeakyRelu") {
      Value* ge = im_.binary("tosa.greater_equal", x, im_.scalarF(0.0f, r), DType::Bool);
      return im_.b.op1("tosa.select", {ge, x, mul(x, im_.scalarF(a.alpha, r))}, x->type, {}, im_.aux("select"));
    }
    return Status::unsupported("recurrent activation '" + a.name + "'");
  }
  Value* clip(Value* x) { return s_.clip > 0 ? im_.clampF(x, -s_.clip, s_.clip) : x; }

  // One direction. xw: [T][1,B,G*H] = X_t W^T + Wb (+ Rb except GRU's h gate), rT: [1,H,G*H], rb: [1,1,G*H],
  // p: peepholes [1,1,3H] or null, masks: [T][1,B,1] bools (sequence_lens) or empty.
  Status runDirection(int d, bool reverse, const std::vector<Value*>& xw, Value* rT, Value* rbH, Value* p, Value* h0,
                      Value* c0, const std::vector<Value*>& masks, std::vector<Value*>& ys, Value*& hLast,
                      Value*& cLast) {
    const Activation* a = &s_.acts[size_t(d) * (s_.cell == Cell::Lstm ? 3 : s_.cell == Cell::Gru ? 2 : 1)];
    Value* h = h0;
    Value* c = c0;
    ys.assign(size_t(s_.T), nullptr);
    for (int64_t step = 0; step < s_.T; ++step) {
      const int64_t t = reverse ? s_.T - 1 - step : step;
      Value* hr = matmul(h, rT);  // [1, B, G*H]
      Value *hNew = nullptr, *cNew = nullptr;
      if (s_.cell == Cell::Rnn) {
        auto v = activate(clip(add(xw[size_t(t)], hr)), a[0]);
        if (!v) return v.status();
        hNew = *v;
      } else if (s_.cell == Cell::Gru) {
        auto z = activate(clip(add(gate(xw[size_t(t)], 0), gate(hr, 0))), a[0]);
        if (!z) return z.status();
        auto r = activate(clip(add(gate(xw[size_t(t)], 1), gate(hr, 1))), a[0]);
        if (!r) return r.status();
        Value* hPre;
        if (s_.linearBeforeReset) {
          hPre = add(gate(xw[size_t(t)], 2), mul(*r, add(gate(hr, 2), rbH)));
        } else {
          Value* rh = mul(*r, h);
          Value* rhR = gate(matmul(rh, rT), 2);
          hPre = add(add(gate(xw[size_t(t)], 2), rhR), rbH);
        }
        auto hh = activate(clip(hPre), a[1]);
        if (!hh) return hh.status();
        // H = (1 - z) * hh + z * H_prev
        Value* one = im_.scalarF(1.0f, 3);
        hNew = add(mul(sub(one, *z), *hh), mul(*z, h));
      } else {
        Value* pre[4];
        for (int k = 0; k < 4; ++k) pre[k] = add(gate(xw[size_t(t)], k), gate(hr, k));
        if (p) {
          pre[0] = add(pre[0], mul(slice(p, {0, 0, 0}, {1, 1, s_.H}), c));
          pre[2] = add(pre[2], mul(slice(p, {0, 0, 2 * s_.H}, {1, 1, s_.H}), c));
        }
        auto i = activate(clip(pre[0]), a[0]);
        if (!i) return i.status();
        Value* f;
        if (s_.inputForget) {
          f = sub(im_.scalarF(1.0f, 3), *i);
        } else {
          auto fr = activate(clip(pre[2]), a[0]);
          if (!fr) return fr.status();
          f = *fr;
        }
        auto g = activate(clip(pre[3]), a[1]);
        if (!g) return g.status();
        cNew = add(mul(f, c), mul(*i, *g));
        Value* oPre = pre[1];
        if (p) oPre = add(oPre, mul(slice(p, {0, 0, s_.H}, {1, 1, s_.H}), cNew));
        auto o = activate(clip(oPre), a[0]);
        if (!o) return o.status();
        auto hc = activate(cNew, a[2]);
        if (!hc) return hc.status();
        hNew = mul(*o, *hc);
      }
      if (!masks.empty()) {
        // Past a sequence's length: the state holds and the output is 0.
        Value* m = masks[size_t(t)];
        Value* zero = im_.scalarF(0.0f, 3);
        ys[size_t(t)] = im_.b.op1("tosa.select", {m, hNew, zero}, hNew->type, {}, im_.aux("select"));
        hNew = im_.b.op1("tosa.select", {m, hNew, h}, hNew->type, {}, im_.aux("select"));
        if (cNew) cNew = im_.b.op1("tosa.select", {m, cNew, c}, cNew->type, {}, im_.aux("select"));
      } else {
        ys[size_t(t)] = hNew;
      }
      h = hNew;
      if (cNew) c = cNew;
    }
    hLast = h;
    cLast = c;
    return Status::ok();
  }

 private:
  Importer& im_;
  const RnnSpec& s_;
};

std::vector<Activation> defaultActivations(Cell cell) {
  if (cell == Cell::Rnn) return {{"Tanh"}};
  if (cell == Cell::Gru) return {{"Sigmoid"}, {"Tanh"}};
  return {{"Sigmoid"}, {"Tanh"}, {"Tanh"}};
}

// ONNX's default alpha/beta for the activations that take them.
Activation withDefaults(const std::string& name) {
  Activation a{name};
  if (name == "LeakyRelu") a.alpha = 0.01f;
  if (name == "HardSigmoid") a.alpha = 0.2f, a.beta = 0.5f;
  if (name == "Affine") a.alpha = 1.0f;
  if (name == "ScaledTanh") a.alpha = 1.0f, a.beta = 1.0f;
  return a;
}

Status opRecurrent(Importer& im, const NodeProto& n, Cell cell) {
  RnnSpec s;
  s.cell = cell;
  s.gates = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  OVal& w = im.val(n, 1);
  OVal& r = im.val(n, 2);
  if (x.shape.size() != 3 || w.shape.size() != 3 || r.shape.size() != 3)
    return Status::invalid(n.op_type() + " X, W and R must be rank 3");
  s.batchFirst = im.attrInt(n, "layout", 0) != 0;
  s.T = s.batchFirst ? x.shape[1] : x.shape[0];
  s.B = s.batchFirst ? x.shape[0] : x.shape[1];
  s.I = x.shape[2];
  s.dirs = w.shape[0];
  s.H = im.attrInt(n, "hidden_size", w.shape[1] / s.gates);
  const std::string direction = im.attrStr(n, "direction", "forward");
  if ((direction == "bidirectional") != (s.dirs == 2) || (s.dirs != 1 && s.dirs != 2))
    return Status::invalid(n.op_type() + " direction '" + direction + "' does not match W's first dim");
  if (w.shape[1] != s.gates * s.H || w.shape[2] != s.I || r.shape != Shape{s.dirs, s.gates * s.H, s.H})
    return Status::invalid(n.op_type() + " W/R shapes do not match hidden_size and the input");
  s.clip = im.attrFloat(n, "clip", 0.0f);
  s.linearBeforeReset = im.attrInt(n, "linear_before_reset", 0) != 0;
  s.inputForget = im.attrInt(n, "input_forget", 0) != 0;
  auto actNames = im.attr(n, "activations");
  const auto defaults = defaultActivations(cell);
  if (actNames && actNames->strings_size() > 0) {
    auto alphas = im.attrFloats(n, "activation_alpha").value_or(std::vector<float>{});
    auto betas = im.attrFloats(n, "activation_beta").value_or(std::vector<float>{});
    if (size_t(actNames->strings_size()) != defaults.size() * size_t(s.dirs))
      return Status::invalid(n.op_type() + " needs " + std::to_string(defaults.size() * size_t(s.dirs)) +
                             " activations");
    for (int k = 0; k < actNames->strings_size(); ++k) {
      Activation a = withDefaults(actNames->strings(k));
      if (size_t(k) < alphas.size()) a.alpha = alphas[size_t(k)];
      if (size_t(k) < betas.size()) a.beta = betas[size_t(k)];
      s.acts.push_back(a);
    }
  } else {
    for (int d = 0; d < s.dirs; ++d) s.acts.insert(s.acts.end(), defaults.begin(), defaults.end());
  }
  RnnBuilder rb(im, s);
  const int64_t GH = s.gates * s.H;

  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* X = *xv;
  if (s.batchFirst) X = im.b.transpose(X, {1, 0, 2}, im.aux("to_seq_major"));  // [T, B, I]
  auto wv = im.get(w, Layout::Plain);
  if (!wv) return wv.status();
  auto rv = im.get(r, Layout::Plain);
  if (!rv) return rv.status();
  Value* bias = nullptr;
  if (im.hasInput(n, 3)) {
    auto bv = im.get(im.val(n, 3), Layout::Plain);
    if (!bv) return bv.status();
    bias = *bv;  // [dirs, 2*G*H]
  }
  // sequence_lens: masks mask[t] = t < len[b], [1, B, 1].
  std::vector<Value*> masks;
  if (im.hasInput(n, 4)) {
    OVal& lens = im.val(n, 4);
    bool full = lens.isConst();
    if (full)
      for (int64_t i = 0; i < lens.c->size(); ++i) full &= lens.c->getInt(i) == s.T;
    if (!full) {
      if (direction != "forward") return Status::unsupported(n.op_type() + " sequence_lens with reverse direction");
      auto lv = im.get(lens, Layout::Plain);
      if (!lv) return lv.status();
      Value* l3 = im.b.reshape(im.castTo(*lv, DType::I32), {1, s.B, 1}, im.aux("lens"));
      for (int64_t t = 0; t < s.T; ++t)
        masks.push_back(im.binary("tosa.greater", l3, im.scalarOf(DType::I32, double(t), 3), DType::Bool));
    }
  }
  auto state = [&](int idx, int d) -> Result<Value*> {  // initial_h / initial_c of direction d, [1, B, H]
    if (!im.hasInput(n, idx)) return im.constF(Tensor(DType::FP32, {1, s.B, s.H}));
    auto v = im.get(im.val(n, idx), Layout::Plain);
    if (!v) return v.status();
    Value* st = *v;
    if (s.batchFirst) st = im.b.transpose(st, {1, 0, 2}, im.aux("to_dir_major"));  // [dirs, B, H]
    return rb.slice(st, {d, 0, 0}, {1, s.B, s.H});
  };

  std::vector<std::vector<Value*>> ys(size_t(s.dirs));
  std::vector<Value*> hs(size_t(s.dirs)), cs(size_t(s.dirs));
  Value* xFlat = im.b.reshape(X, {1, s.T * s.B, s.I}, im.aux("reshape"));
  for (int d = 0; d < s.dirs; ++d) {
    Value* wT = im.b.transpose(rb.slice(*wv, {d, 0, 0}, {1, GH, s.I}), {0, 2, 1}, im.aux("transpose"));
    Value* rT = im.b.transpose(rb.slice(*rv, {d, 0, 0}, {1, GH, s.H}), {0, 2, 1}, im.aux("transpose"));
    Value* xw = rb.matmul(xFlat, wT);  // [1, T*B, GH]
    Value* rbH = nullptr;
    if (bias) {
      Value* wb = im.b.reshape(rb.slice(bias, {d, 0}, {1, GH}), {1, 1, GH}, im.aux("reshape"));
      Value* rbias = im.b.reshape(rb.slice(bias, {d, GH}, {1, GH}), {1, 1, GH}, im.aux("reshape"));
      if (cell == Cell::Gru) {
        // GRU's h gate keeps Rb_h apart (it sits inside r * (...) with linear_before_reset): add Rb of z, r only.
        Value* rbZR = rb.slice(rbias, {0, 0, 0}, {1, 1, 2 * s.H});
        Value* zeros = im.constF(Tensor(DType::FP32, {1, 1, s.H}));
        Value* rbNoH = im.b.op1("tosa.concat", {rbZR, zeros}, ValueType::tensor(DType::FP32, {1, 1, GH}),
                                {{"axis", ir::Attribute::integer(2, DType::I32)}}, im.aux("concat"));
        xw = rb.add(xw, rb.add(wb, rbNoH));
        rbH = rb.slice(rbias, {0, 0, 2 * s.H}, {1, 1, s.H});
      } else {
        xw = rb.add(xw, rb.add(wb, rbias));
      }
    }
    if (!rbH) rbH = im.constF(Tensor(DType::FP32, {1, 1, s.H}));
    std::vector<Value*> xwSteps;
    for (int64_t t = 0; t < s.T; ++t) xwSteps.push_back(rb.slice(xw, {0, t * s.B, 0}, {1, s.B, GH}));
    Value* p = nullptr;
    if (cell == Cell::Lstm && im.hasInput(n, 7)) {
      auto pv = im.get(im.val(n, 7), Layout::Plain);
      if (!pv) return pv.status();
      p = im.b.reshape(rb.slice(*pv, {d, 0}, {1, 3 * s.H}), {1, 1, 3 * s.H}, im.aux("reshape"));
    }
    auto h0 = state(5, d);
    if (!h0) return h0.status();
    auto c0 = state(6, d);
    if (!c0) return c0.status();
    const bool reverse = direction == "reverse" || d == 1;
    TK_RETURN_IF_ERROR(rb.runDirection(d, reverse, xwSteps, rT, rbH, p, *h0, cell == Cell::Lstm ? *c0 : nullptr, masks,
                                       ys[size_t(d)], hs[size_t(d)], cs[size_t(d)]));
  }
  auto concat = [&](std::vector<Value*> parts, int64_t axis, const std::string& name) {
    if (parts.size() == 1) return parts[0];
    Shape os = parts[0]->type.dims;
    os[size_t(axis)] = 0;
    for (Value* v : parts) os[size_t(axis)] += v->type.dims[size_t(axis)];
    return im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, os),
                    {{"axis", ir::Attribute::integer(axis, DType::I32)}}, name);
  };
  // Y: [T, dirs, B, H] (layout 0) or [B, T, dirs, H] (layout 1).
  if (im.hasOutput(n, 0)) {
    std::vector<Value*> steps;
    for (int64_t t = 0; t < s.T; ++t) {
      std::vector<Value*> perDir;
      for (int d = 0; d < s.dirs; ++d) perDir.push_back(ys[size_t(d)][size_t(t)]);
      steps.push_back(concat(perDir, 0, im.aux("concat")));  // [dirs, B, H]
    }
    Value* y = im.b.reshape(concat(steps, 0, im.aux("concat")), {s.T, s.dirs, s.B, s.H}, im.aux("reshape"));
    if (s.batchFirst) y = im.b.transpose(y, {2, 0, 1, 3}, im.aux("transpose"));
    y->definingOp->loc.name = im.loc;
    im.setValue(n, 0, y, Layout::Plain);
  }
  // Y_h / Y_c: [dirs, B, H] (layout 0) or [B, dirs, H] (layout 1).
  auto finalState = [&](std::vector<Value*>& parts, int out) {
    Value* v = concat(parts, 0, im.aux("concat"));
    if (s.batchFirst)
      v = im.b.transpose(v, {1, 0, 2}, im.aux("transpose"));
    else if (parts.size() == 1)
      v = im.b.op1("tosa.identity", {v}, v->type, {}, im.aux("identity"));
    v->definingOp->loc.name = im.loc + ":" + std::to_string(out);
    im.setValue(n, out, v, Layout::Plain);
  };
  if (im.hasOutput(n, 1)) finalState(hs, 1);
  if (cell == Cell::Lstm && im.hasOutput(n, 2)) finalState(cs, 2);
  return Status::ok();
}

}  // namespace

void registerRecurrentOps(HandlerTable& t) {
  t["RNN"] = [](Importer& im, const NodeProto& n) { return opRecurrent(im, n, Cell::Rnn); };
  t["GRU"] = [](Importer& im, const NodeProto& n) { return opRecurrent(im, n, Cell::Gru); };
  t["LSTM"] = [](Importer& im, const NodeProto& n) { return opRecurrent(im, n, Cell::Lstm); };
}

}  // namespace tosakit::onnx
