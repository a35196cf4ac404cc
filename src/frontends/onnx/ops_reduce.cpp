// Reduce* operators.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ReduceMean/ReduceSum/ReduceMax: one TOSA reduce per axis (TOSA reduces a single axis, keeping it as 1);
// the mean multiplies the sum by 1/count. keepdims=0 drops the axes with a reshape in the plain layout.
Status opReduce(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  const int64_t r = int64_t(x.shape.size());
  // Axes: attribute up to opset 17 (ReduceSum: 12), input from then on.
  auto axesR = im.axesOf(n, 1);
  if (!axesR) return axesR.status();
  const bool keep = im.attrInt(n, "keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (*axesR && !(*axesR)->empty()) {
    for (int64_t a : **axesR) axes.push_back(normAxis(a, r));
  } else if (im.attrInt(n, "noop_with_empty_axes", 0) != 0) {
    im.vals[n.output(0)] = x;
    return Status::ok();
  } else {
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  for (int64_t a : axes)
    if (a < 0 || a >= r) return Status::invalid(n.op_type() + " axis out of range");
  Layout l = keep && x.prefersNhwc() ? Layout::Nhwc : Layout::Plain;
  auto xv = im.get(x, l);
  if (!xv) return xv.status();
  const std::string op = n.op_type() == "ReduceMax" ? "tosa.reduce_max" : "tosa.reduce_sum";
  Value* v = *xv;
  int64_t count = 1;
  for (int64_t a : axes) {
    int64_t ta = l == Layout::Nhwc ? kNhwcPos[a] : a;
    Shape s = v->type.dims;
    count *= s[size_t(ta)];
    s[size_t(ta)] = 1;
    v = im.b.op1(op, {v}, ValueType::tensor(DType::FP32, s), {{"axis", ir::Attribute::integer(ta, DType::I32)}},
               im.aux(op.substr(5)));
  }
  if (n.op_type() == "ReduceMean") v = im.mul(v, im.scalarF(float(1.0 / double(count)), v->type.dims.size()));
  if (!keep) {
    Shape out;
    for (int64_t a = 0; a < r; ++a)
      if (!std::binary_search(axes.begin(), axes.end(), a)) out.push_back(x.shape[size_t(a)]);
    v = im.b.reshape(v, out, im.aux("reshape"));
  }
  v->definingOp->loc.name = im.loc;
  im.setValue(n, 0, v, l);
  return Status::ok();
}

}  // namespace

void registerReduceOps(HandlerTable& t) {
  t["ReduceMean"] = opReduce;
  t["ReduceSum"] = opReduce;
  t["ReduceMax"] = opReduce;
}

}  // namespace tosakit::onnx
