// Loss operators: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.
//
// Both work on a rank-3 view [N, C, D] of the input (D: the product of the extra dims d1..dk, 1 when there are
// none), which keeps every TOSA op at rank 3 whatever k is. The labels are run-time i32 data: the per-class
// value is picked with a one-hot mask, tosa.equal(labels [N,1,D], iota [1,C,1]) -> [N,C,D], a select and a
// reduce_sum over C; the class weight is picked the same way. Labels equal to ignore_index get weight 0.
//   loss[n,d] = -input[n, t[n,d], d] * w[n,d],  w[n,d] = weight[t[n,d]] (1 without weights), 0 when ignored
//   reduction: none -> loss [N, d1..dk]; sum -> sum(loss); mean -> sum(loss) / sum(w)
// SoftmaxCrossEntropyLoss is the NLL of log_softmax(scores) over C, composed locally (max, sub, exp, sum, log),
// and may also return that log_softmax (output 1, shape of the scores).
#include <optional>
#include <string>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

ir::Attribute axisAttr(int64_t a) { return ir::Attribute::integer(a, DType::I32); }

Value* reduceAxis(Importer& im, const std::string& op, Value* x, int64_t axis) {
  Shape s = x->type.dims;
  s[size_t(axis)] = 1;
  return im.b.op1(op, {x}, ValueType::tensor(x->type.dtype, s), {{"axis", axisAttr(axis)}}, im.aux(op.substr(5)));
}

Value* select(Importer& im, Value* cond, Value* a, Value* c) {
  auto s = ir::broadcastShape(ir::broadcastShape(a->type.dims, c->type.dims).value(), cond->type.dims);
  return im.b.op1("tosa.select", {cond, a, c}, ValueType::tensor(a->type.dtype, *s), {}, im.aux("select"));
}

struct LossArgs {
  Value* input = nullptr;   // [N, C, D] float (log-probabilities)
  Value* labels = nullptr;  // [N, 1, D] i32
  Value* weight = nullptr;  // [1, C, 1] float, or null
  std::optional<int64_t> ignoreIndex;
  std::string reduction;
  Shape noneShape;  // [N, d1..dk]
};

// The shared NLL lowering; the returned value yields the loss (its op is named after the node).
Value* nllLoss(Importer& im, const LossArgs& a) {
  const DType ft = a.input->type.dtype;
  const int64_t N = a.input->type.dims[0], C = a.input->type.dims[1], D = a.input->type.dims[2];
  Tensor iotaT(DType::I32, {1, C, 1});
  for (int64_t c = 0; c < C; ++c) iotaT.setInt(c, c);
  Value* hit = im.binary("tosa.equal", a.labels, im.constF(std::move(iotaT)), DType::Bool);  // [N,C,D]
  Value* zero = im.scalarOf(ft, 0, 3);
  Value* picked = reduceAxis(im, "tosa.reduce_sum", select(im, hit, a.input, zero), 1);  // [N,1,D]
  // w: the applied weight of each element; null means 1 everywhere.
  Value* w = nullptr;
  if (a.weight) w = reduceAxis(im, "tosa.reduce_sum", select(im, hit, a.weight, zero), 1);
  if (a.ignoreIndex) {
    Value* ignored = im.binary("tosa.equal", a.labels, im.scalarOf(DType::I32, double(*a.ignoreIndex), 3), DType::Bool);
    w = select(im, ignored, zero, w ? w : im.scalarOf(ft, 1, 3));
  }
  Value* loss =
      im.b.op1("tosa.negate", {picked, im.b.scalar1(ft, 0), im.b.scalar1(ft, 0)}, picked->type, {}, im.aux("negate"));
  if (w) loss = im.mul(loss, w);
  if (a.reduction == "none") return im.b.reshape(loss, a.noneShape, im.aux("reshape"));
  Value* sum = reduceAxis(im, "tosa.reduce_sum", reduceAxis(im, "tosa.reduce_sum", loss, 0), 2);  // [1,1,1]
  if (a.reduction == "mean") {
    Value* total = w ? reduceAxis(im, "tosa.reduce_sum", reduceAxis(im, "tosa.reduce_sum", w, 0), 2)
                     : im.scalarOf(ft, double(N * D), 3);
    sum = im.divideF32(sum, total);
  }
  return im.b.reshape(sum, {}, im.aux("reshape"));
}

// Reads the operands shared by both losses: input (0, rank >= 2, float), labels (1, [N, d1..dk], integer),
// weight (2, optional, [C]) and the attributes.
Status lossArgs(Importer& im, const NodeProto& n, Value* input3, const Shape& inShape, LossArgs& a) {
  OVal& t = im.val(n, 1);
  if (isFloat(t.dtype) || t.dtype == DType::Bool) return Status::invalid("labels must be integers");
  Shape want = inShape;
  want.erase(want.begin() + 1);
  if (t.shape != want)
    return Status::invalid("labels shape " + shapeToString(t.shape) + " does not match the input's " +
                           shapeToString(want));
  auto rt = im.rtType(t);
  if (!rt) return rt.status();
  if (isUnsignedBits(t.dtype)) return Status::unsupported("uint8 labels (TOSA has no unsigned comparison)");
  auto tv = im.get(t, Layout::Plain);
  if (!tv) return tv.status();
  const int64_t N = input3->type.dims[0], C = input3->type.dims[1], D = input3->type.dims[2];
  a.input = input3;
  a.labels = im.castTo(im.b.reshape(*tv, {N, 1, D}, im.aux("reshape")), DType::I32);
  if (im.hasInput(n, 2)) {
    OVal& w = im.val(n, 2);
    if (w.dtype != im.val(n, 0).dtype)
      return Status::invalid("weight type " + std::string(dtypeName(w.dtype)) + " differs from the input's");
    if (w.shape != Shape{C}) return Status::invalid("weight shape " + shapeToString(w.shape) + ", want [C]");
    auto wv = im.get(w, Layout::Plain);
    if (!wv) return wv.status();
    a.weight = im.b.reshape(*wv, {1, C, 1}, im.aux("reshape"));
  }
  if (im.attr(n, "ignore_index")) a.ignoreIndex = im.attrInt(n, "ignore_index", 0);
  a.reduction = im.attrStr(n, "reduction", "mean");
  if (a.reduction != "none" && a.reduction != "sum" && a.reduction != "mean")
    return Status::invalid("reduction '" + a.reduction + "' (want none, sum or mean)");
  a.noneShape = want;
  return Status::ok();
}

// The input as [N, C, D], float.
Result<Value*> input3(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (!isFloat(x.dtype))
    return Status::unsupported("element type " + std::string(dtypeName(x.dtype)) + " (float only)");
  auto rt = im.rtType(x);
  if (!rt) return rt.status();
  if (x.shape.size() < 2) return Status::invalid("input must have rank >= 2 ([N, C, d1..dk])");
  int64_t D = 1;
  for (size_t i = 2; i < x.shape.size(); ++i) D *= x.shape[i];
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv;
  return im.reshapeTo(*xv, {x.shape[0], x.shape[1], D}, im.aux("reshape"));
}

Status opNll(Importer& im, const NodeProto& n) {
  if (n.input_size() < 2) return Status::invalid("needs input and target");
  auto x = input3(im, n);
  if (!x) return x.status();
  LossArgs a;
  TK_RETURN_IF_ERROR(lossArgs(im, n, *x, im.val(n, 0).shape, a));
  Value* loss = nllLoss(im, a);
  return im.setResult(n, loss, Layout::Plain);
}

Status opSce(Importer& im, const NodeProto& n) {
  if (n.input_size() < 2) return Status::invalid("needs scores and labels");
  auto x = input3(im, n);
  if (!x) return x.status();
  // log_softmax over C: (x - max) - log(sum(exp(x - max))).
  Value* m = reduceAxis(im, "tosa.reduce_max", *x, 1);
  Value* s = im.b.sub(*x, m, im.aux("sub"));
  Value* lse = im.unary("tosa.log", reduceAxis(im, "tosa.reduce_sum", im.unary("tosa.exp", s), 1));
  Value* logp = im.b.sub(s, lse, im.aux("log_prob"));
  LossArgs a;
  TK_RETURN_IF_ERROR(lossArgs(im, n, logp, im.val(n, 0).shape, a));
  Value* loss = nllLoss(im, a);
  loss->definingOp->loc.name = im.loc;
  im.setValue(n, 0, loss, Layout::Plain);
  if (im.hasOutput(n, 1)) {
    Value* lp = im.reshapeTo(logp, im.val(n, 0).shape, im.aux("log_prob"));
    im.setValue(n, 1, lp, Layout::Plain);
  }
  return Status::ok();
}

}  // namespace

void registerLossOps(HandlerTable& t) {
  t["NegativeLogLikelihoodLoss"] = opNll;
  t["SoftmaxCrossEntropyLoss"] = opSce;
}

}  // namespace tosakit::onnx
