// Control flow with static shapes: If, Loop, Scan.
// - If: a constant condition picks its branch; a run-time condition evaluates both branches (ONNX ops have no
//   side effects) and selects per output with tosa.select, which needs both branches to yield equal shapes.
// - Loop with a constant trip count and a body whose condition stays constant true is unrolled; scan outputs
//   are concatenated (a data-dependent stop would give data-dependent scan output shapes).
// - Scan is unrolled over its (static) scan axis.
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

const ::onnx::GraphProto* graphAttr(Importer& im, const NodeProto& n, const char* name) {
  auto* a = im.attr(n, name);
  return a && a->has_g() ? &a->g() : nullptr;
}

OVal constOVal(Tensor t) {
  OVal v;
  v.shape = t.shape();
  v.dtype = t.dtype();
  v.c = std::make_shared<const Tensor>(std::move(t));
  return v;
}

Value* concatValues(Importer& im, const std::vector<Value*>& parts, int64_t axis) {
  Shape os = parts[0]->type.dims;
  os[size_t(axis)] = 0;
  for (Value* v : parts) os[size_t(axis)] += v->type.dims[size_t(axis)];
  return im.b.op1("tosa.concat", parts, ValueType::tensor(parts[0]->type.dtype, os),
                  {{"axis", ir::Attribute::integer(axis, DType::I32)}}, im.aux("concat"));
}

// Stacks per-iteration values along a new `axis` (scan outputs).
Result<OVal> stack(Importer& im, std::vector<OVal>& items, int64_t axis) {
  std::vector<Value*> parts;
  for (OVal& it : items) {
    auto v = im.get(it, Layout::Plain);
    if (!v) return v.status();
    Shape s = it.shape;
    s.insert(s.begin() + axis, 1);
    parts.push_back(im.b.reshape(*v, s, im.aux("unsqueeze")));
  }
  OVal out;
  Value* v = concatValues(im, parts, axis);
  out.shape = v->type.dims;
  out.dtype = items[0].dtype;
  out.plain = v;
  return out;
}

Status opIf(Importer& im, const NodeProto& n) {
  const auto* thenG = graphAttr(im, n, "then_branch");
  const auto* elseG = graphAttr(im, n, "else_branch");
  if (!thenG || !elseG) return Status::invalid("If without then_branch/else_branch");
  OVal& cond = im.val(n, 0);
  std::vector<OVal> thenOut, elseOut;
  if (cond.isConst()) {
    TK_RETURN_IF_ERROR(im.inlineGraph(cond.c->getInt(0) ? *thenG : *elseG, {}, thenOut));
    for (size_t i = 0; i < thenOut.size() && int(i) < n.output_size(); ++i) im.setOut(n, int(i), thenOut[i]);
    return Status::ok();
  }
  TK_RETURN_IF_ERROR(im.inlineGraph(*thenG, {}, thenOut));
  TK_RETURN_IF_ERROR(im.inlineGraph(*elseG, {}, elseOut));
  if (thenOut.size() != elseOut.size()) return Status::invalid("If branches yield different output counts");
  auto c = im.get(cond, Layout::Plain);
  if (!c) return c.status();
  for (size_t i = 0; i < thenOut.size() && int(i) < n.output_size(); ++i) {
    if (thenOut[i].shape != elseOut[i].shape)
      return Status::unsupported("If branches yield different shapes " + shapeToString(thenOut[i].shape) + " and " +
                                 shapeToString(elseOut[i].shape) + " (data-dependent shape)");
    auto a = im.get(thenOut[i], Layout::Plain);
    if (!a) return a.status();
    auto b = im.get(elseOut[i], Layout::Plain);
    if (!b) return b.status();
    Value* cr = im.b.reshape(*c, Shape(thenOut[i].shape.size(), 1), im.aux("cond"));
    Value* out = im.b.op1("tosa.select", {cr, *a, *b}, (*a)->type, {}, im.loc);
    im.setValue(n, int(i), out, Layout::Plain, thenOut[i].dtype);
  }
  return Status::ok();
}

Status opLoop(Importer& im, const NodeProto& n) {
  const auto* body = graphAttr(im, n, "body");
  if (!body) return Status::invalid("Loop without a body");
  if (!im.hasInput(n, 0)) return Status::unsupported("Loop without a trip count (data-dependent iteration count)");
  OVal& m = im.val(n, 0);
  if (!m.isConst()) return Status::unsupported("run-time Loop trip count (bind it: it determines the output shapes)");
  const int64_t trips = m.c->getInt(0);
  if (trips < 0 || trips > 4096) return Status::unsupported("Loop trip count " + std::to_string(trips));
  if (im.hasInput(n, 1)) {
    OVal& cond = im.val(n, 1);
    if (!cond.isConst()) return Status::unsupported("run-time Loop condition (data-dependent iteration count)");
    if (!cond.c->getInt(0)) {
      for (int i = 2; i < n.input_size(); ++i) im.setOut(n, i - 2, im.val(n, i));
      return Status::ok();
    }
  }
  const int carried = n.input_size() - 2;
  const int scans = body->output_size() - 1 - carried;
  if (scans < 0) return Status::invalid("Loop body outputs do not match its loop-carried inputs");
  std::vector<OVal> state;
  for (int i = 2; i < n.input_size(); ++i) state.push_back(im.val(n, i));
  std::vector<std::vector<OVal>> scanItems{size_t(scans)};
  for (int64_t it = 0; it < trips; ++it) {
    std::vector<OVal> in = {constOVal(Tensor::fromInts(DType::I64, {}, {it})),
                            constOVal(Tensor::fromInts(DType::Bool, {}, {1}))};
    in.insert(in.end(), state.begin(), state.end());
    std::vector<OVal> out;
    TK_RETURN_IF_ERROR(im.inlineGraph(*body, in, out));
    if (!out[0].isConst() || !out[0].c->getInt(0)) {
      if (!out[0].isConst())
        return Status::unsupported("Loop body condition computed at run time (data-dependent stop)");
      if (scans > 0) return Status::unsupported("Loop stopping early with scan outputs");
      state.assign(out.begin() + 1, out.begin() + 1 + carried);
      break;
    }
    state.assign(out.begin() + 1, out.begin() + 1 + carried);
    for (int s = 0; s < scans; ++s) scanItems[size_t(s)].push_back(out[size_t(1 + carried + s)]);
  }
  for (int i = 0; i < carried && i < n.output_size(); ++i) im.setOut(n, i, state[size_t(i)]);
  for (int s = 0; s < scans && carried + s < n.output_size(); ++s) {
    if (scanItems[size_t(s)].empty()) return Status::unsupported("Loop with zero iterations and scan outputs");
    auto st = stack(im, scanItems[size_t(s)], 0);
    if (!st) return st.status();
    im.setOut(n, carried + s, *st);
  }
  return Status::ok();
}

// Scan (opset 9+; opset 8 has a leading batch axis and sequence_lens, handled when the lengths are full).
Status opScan(Importer& im, const NodeProto& n) {
  const auto* body = graphAttr(im, n, "body");
  if (!body) return Status::invalid("Scan without a body");
  const int64_t numScanInputs = im.attrInt(n, "num_scan_inputs", 0);
  const bool v8 = im.opset < 9;
  const int first = v8 ? 1 : 0;  // opset 8: input 0 is sequence_lens
  if (v8 && im.hasInput(n, 0)) return Status::unsupported("Scan-8 sequence_lens");
  const int numInputs = n.input_size() - first;
  const int numStates = numInputs - int(numScanInputs);
  if (numStates < 0) return Status::invalid("Scan num_scan_inputs exceeds its inputs");
  const int numScanOutputs = body->output_size() - numStates;
  auto dirIn = im.attrInts(n, v8 ? "directions" : "scan_input_directions").value_or(std::vector<int64_t>{});
  auto axesIn = im.attrInts(n, "scan_input_axes").value_or(std::vector<int64_t>{});
  auto dirOut = im.attrInts(n, "scan_output_directions").value_or(std::vector<int64_t>{});
  auto axesOut = im.attrInts(n, "scan_output_axes").value_or(std::vector<int64_t>{});
  // Opset 8 carries a batch axis 0 on every input/output: only batch 1 is handled (squeezed away).
  std::vector<OVal> state;
  for (int i = 0; i < numStates; ++i) state.push_back(im.val(n, first + i));
  std::vector<OVal> scanIn;
  for (int i = 0; i < numScanInputs; ++i) scanIn.push_back(im.val(n, first + numStates + i));
  auto squeezeBatch = [&](OVal& v) -> Result<OVal> {
    if (v.shape.empty() || v.shape[0] != 1) return Status::unsupported("Scan-8 with batch size != 1");
    auto x = im.get(v, Layout::Plain);
    if (!x) return x.status();
    OVal o;
    o.shape = Shape(v.shape.begin() + 1, v.shape.end());
    o.dtype = v.dtype;
    o.plain = im.b.reshape(*x, o.shape, im.aux("squeeze"));
    return o;
  };
  if (v8) {
    for (auto& s : state) {
      auto q = squeezeBatch(s);
      if (!q) return q.status();
      s = *q;
    }
    for (auto& s : scanIn) {
      auto q = squeezeBatch(s);
      if (!q) return q.status();
      s = *q;
    }
  }
  int64_t length = -1;
  std::vector<int64_t> axis(size_t(numScanInputs), 0);
  for (int i = 0; i < numScanInputs; ++i) {
    if (size_t(i) < axesIn.size())
      axis[size_t(i)] = normAxis(axesIn[size_t(i)], int64_t(scanIn[size_t(i)].shape.size()));
    int64_t len = scanIn[size_t(i)].shape.at(size_t(axis[size_t(i)]));
    if (length >= 0 && len != length) return Status::invalid("Scan inputs differ in sequence length");
    length = len;
  }
  if (length < 0) return Status::invalid("Scan without scan inputs");
  std::vector<std::vector<OVal>> outs{size_t(numScanOutputs)};
  for (int64_t t = 0; t < length; ++t) {
    std::vector<OVal> in = state;
    for (int i = 0; i < numScanInputs; ++i) {
      OVal& x = scanIn[size_t(i)];
      const int64_t a = axis[size_t(i)];
      const int64_t pos = size_t(i) < dirIn.size() && dirIn[size_t(i)] ? length - 1 - t : t;
      auto xv = im.get(x, Layout::Plain);
      if (!xv) return xv.status();
      Shape start(x.shape.size(), 0), size = x.shape;
      start[size_t(a)] = pos;
      size[size_t(a)] = 1;
      Value* st = im.b.constShape(start, im.aux("start"));
      Value* sz = im.b.constShape(size, im.aux("size"));
      Value* sl =
          im.b.op1("tosa.slice", {*xv, st, sz}, ValueType::tensor((*xv)->type.dtype, size), {}, im.aux("slice"));
      OVal e;
      e.shape = x.shape;
      e.shape.erase(e.shape.begin() + a);
      e.dtype = x.dtype;
      e.plain = im.b.reshape(sl, e.shape, im.aux("squeeze"));
      in.push_back(e);
    }
    std::vector<OVal> out;
    TK_RETURN_IF_ERROR(im.inlineGraph(*body, in, out));
    state.assign(out.begin(), out.begin() + numStates);
    for (int s = 0; s < numScanOutputs; ++s) outs[size_t(s)].push_back(out[size_t(numStates + s)]);
  }
  auto withBatch = [&](OVal v) -> Result<OVal> {
    if (!v8) return v;
    auto x = im.get(v, Layout::Plain);
    if (!x) return x.status();
    OVal o;
    o.shape = v.shape;
    o.shape.insert(o.shape.begin(), 1);
    o.dtype = v.dtype;
    o.plain = im.b.reshape(*x, o.shape, im.aux("unsqueeze"));
    return o;
  };
  for (int i = 0; i < numStates && i < n.output_size(); ++i) {
    auto o = withBatch(state[size_t(i)]);
    if (!o) return o.status();
    im.setOut(n, i, *o);
  }
  for (int s = 0; s < numScanOutputs && numStates + s < n.output_size(); ++s) {
    auto& items = outs[size_t(s)];
    if (size_t(s) < dirOut.size() && dirOut[size_t(s)]) std::reverse(items.begin(), items.end());
    int64_t a = size_t(s) < axesOut.size() ? normAxis(axesOut[size_t(s)], int64_t(items[0].shape.size()) + 1) : 0;
    auto st = stack(im, items, a);
    if (!st) return st.status();
    auto o = withBatch(*st);
    if (!o) return o.status();
    im.setOut(n, numStates + s, *o);
  }
  return Status::ok();
}

}  // namespace

void registerControlFlowOps(HandlerTable& t) {
  t["If"] = opIf;
  t["Loop"] = opLoop;
  t["Scan"] = opScan;
}

}  // namespace tosakit::onnx
