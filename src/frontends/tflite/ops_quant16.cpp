// Pre-quantized int16 activations (TFLite's 16x8 scheme, zero point 0) whose TFLite kernel is a function of
// one int16 value: the import evaluates TFLite's arithmetic on all 65536 inputs and the graph looks the result up
// with tosa.gather (tosa.table's int16 form interpolates on the raw input, which TFLite's kernels do not), so
// the graph equals TFLite's kernel bit for bit by construction.
#include <cmath>
#include <functional>
#include <map>

#include "frontends/tflite/tflite_fixedpoint.h"
#include "frontends/tflite/tflite_internal.h"
#include "frontends/tflite/tflite_quant.h"

namespace tosakit::tflite {
namespace {

constexpr int64_t kInt16Values = 65536;

// table[index] for an i32 index tensor of any shape (tosa.gather over the flattened indices); `table` is
// [1, K, 1] and every index must lie in [0, K).
Value* lookup(Importer& im, Tensor table, Value* index, const std::string& what) {
  const Shape shape = index->type.dims;
  const int64_t count = numElements(shape);
  const DType dtype = table.dtype();
  Value* gathered = im.b.op1(
      "tosa.gather",
      {im.constant(std::move(table), what + "_table"), im.b.reshape(index, {1, count}, im.aux(what + "_index"))},
      ValueType::tensor(dtype, {1, count, 1}), {}, im.aux(what));
  return im.b.reshape(gathered, shape, im.aux(what + "_shaped"));
}

// x (int16) mapped through f: index x + 32768 into the 65536-entry int16 table of f.
Status gatherTable16(Importer& im, const QParams& y, const std::function<int16_t(int16_t)>& f) {
  Tensor table(DType::I16, {1, kInt16Values, 1});
  for (int32_t v = -32768; v <= 32767; ++v) table.setInt(v + 32768, f(int16_t(v)));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const Shape& xs = im.in(0).shape;
  Value* wide = im.b.op1("tosa.cast", {*xv}, ValueType::tensor(DType::I32, xs), {}, im.aux("x_i32"));
  Value* index = im.b.add(wide, im.scalarOf(DType::I32, 32768, xs.size()), im.aux("index"));
  return setQuantOut(im, 0, lookup(im, std::move(table), index, "lookup"), fb::ActivationFunctionType::NONE, y);
}

}  // namespace

Status int16GatherTable(Importer& im, const QParams& y, const std::function<int16_t(int16_t)>& f) {
  return gatherTable16(im, y, f);
}

Result<std::pair<QParams, QParams>> int16UnaryParams(Importer& im) {
  if (im.out(0).dtype != DType::I16) return Status::unsupported("int16 operator with a non-int16 output");
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if (x->zp != 0 || y->zp != 0) return Status::unsupported("int16 activations with a non-zero zero point");
  return std::pair{*x, *y};
}

// TFLite 2.9 takes the interpolated sigmoid table (reference_integer_ops) unless the input scale is 2^-12 (TANH:
// also 2^-11, to within CheckedLog2's tolerance): those take gemmlowp's fixed-point kernel, not reproduced here.
Status int16SigmoidOrTanh(Importer& im, bool tanh) {
  auto q = int16UnaryParams(im);
  if (!q) return q.status();
  const auto& [x, y] = *q;
  int outLog2 = 0;
  if (!fixedpoint::checkedLog2(float(y.scale), outLog2) || outLog2 != -15)
    return Status::unsupported("int16 LOGISTIC/TANH whose output scale is not 2^-15 (TFLite refuses it)");
  int inLog2 = 0;
  if (fixedpoint::checkedLog2(float(x.scale), inLog2) && (12 + inLog2 == 0 || (tanh && 12 + inLog2 == 1)))
    return Status::unsupported("int16 LOGISTIC/TANH with input scale 2^" + std::to_string(inLog2) +
                               " (TFLite's gemmlowp kernel for that scale is not reproduced)");
  int32_t multiplier = 0;
  int shift = 0;
  fixedpoint::sigmoidInputMultiplier(float(x.scale), multiplier, shift);
  return gatherTable16(im, y, [&](int16_t v) { return fixedpoint::sigmoidOrTanh16(v, multiplier, shift, tanh); });
}

namespace {

double expF(double v) { return std::exp(v); }
double oneOverOnePlusF(double v) { return 1.0 / (1.0 + v); }

// a << b or (a >> b rounded half up) on i32, b broadcast: TOSA's shifts with a per-row shift amount.
Value* shiftLeft(Importer& im, Value* a, Value* b, const std::string& what) {
  return im.b.op1("tosa.logical_left_shift", {a, b}, a->type, {}, im.aux(what));
}
// clamp of an i32 value (TOSA 1.0's clamp has no i32 form): maximum, then minimum.
Value* clampI32(Importer& im, Value* a, int32_t lo, int32_t hi, const std::string& what) {
  const size_t rank = a->type.dims.size();
  Value* up = im.b.op1("tosa.maximum", {a, im.scalarOf(DType::I32, lo, rank)}, a->type, {}, im.aux(what + "_lo"));
  return im.b.op1("tosa.minimum", {up, im.scalarOf(DType::I32, hi, rank)}, a->type, {}, im.aux(what));
}
Value* shiftRightRounded(Importer& im, Value* a, Value* b, const std::string& what) {
  return im.b.op1("tosa.arithmetic_right_shift", {a, b}, a->type, {{"round", ir::Attribute::boolean(true)}},
                  im.aux(what));
}

}  // namespace

// SOFTMAX int16 -> int16 as TFLite 2.9's reference_ops::SoftmaxInt16, in integers throughout:
// e = exp_lut(MultiplyByQuantizedMultiplier(x - max, scale beta 65535 / 10) + 32767) -- a function of max - x in
// [0, 65535], gathered from a table computed at import; the i32 sum of e per row; h = clz(sum); the reciprocal
// one_over_one_plus_x_lut(clamp(((sum << (h - 1)) + 2^13 >> 14) - 3 2^15)) -- gathered from a second table;
// y = clamp((e r + 2^(30 - h)) >> (31 - h), 0, 32767).
Status int16Softmax(Importer& im) {
  auto q = int16UnaryParams(im);
  if (!q) return q.status();
  const auto& [x, y] = *q;
  if (std::abs(y.scale * 32768.0 - 1.0) > 1e-3)
    return Status::unsupported("int16 SOFTMAX whose output scale is not 2^-15 (TFLite refuses it)");
  const Shape& xs = im.in(0).shape;
  if (xs.empty() || xs.back() <= 0) return Status::invalid("softmax of an empty or rank-0 tensor");
  if (xs.back() > 65535)
    return Status::unsupported("int16 SOFTMAX over more than 65535 classes (TFLite's sum overflows)");
  const auto* o = im.options<fb::SoftmaxOptions>();
  const float beta = o ? o->beta() : 1.0f;
  int64_t mult = 0, shift = 0;
  fixedpoint::quantizeMultiplier(double(float(x.scale) * beta) / (10.0 / 65535.0), mult, shift);
  if (shift > 15) return Status::unsupported("int16 SOFTMAX with input scale x beta that overflows TFLite's int32");
  int16_t expLut[513], recLut[513];
  fixedpoint::genLut(expF, -10.0, 0.0, expLut);
  fixedpoint::genLut(oneOverOnePlusF, 0.0, 1.0, recLut);
  Tensor expTable(DType::I16, {1, kInt16Values, 1}), recTable(DType::I16, {1, kInt16Values, 1});
  for (int32_t d = 0; d < kInt16Values; ++d) {
    const int32_t scaled = fixedpoint::multiplyByQuantizedMultiplier(-d, int32_t(mult), int(shift)) + 32767;
    expTable.setInt(d, fixedpoint::int16TableLookup(int16_t(std::clamp(scaled, -32768, 32767)), expLut));
    recTable.setInt(d, fixedpoint::int16TableLookup(int16_t(d - 32768), recLut));
  }
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const size_t rank = xs.size(), last = rank - 1;
  Shape one = xs;
  one[last] = 1;
  auto c = [&](int64_t v) { return im.scalarOf(DType::I32, double(v), rank); };
  const std::map<std::string, ir::Attribute> lastAxis = {{"axis", ir::Attribute::integer(int64_t(last), DType::I32)}};
  Value* xi = im.b.op1("tosa.cast", {*xv}, ValueType::tensor(DType::I32, xs), {}, im.aux("x_i32"));
  Value* max = im.b.op1("tosa.reduce_max", {xi}, ValueType::tensor(DType::I32, one), lastAxis, im.aux("max"));
  Value* e16 = lookup(im, std::move(expTable), im.b.sub(max, xi, im.aux("max_minus_x")), "exp");
  Value* e = im.b.op1("tosa.cast", {e16}, ValueType::tensor(DType::I32, xs), {}, im.aux("exp_i32"));
  Value* sum = im.b.op1("tosa.reduce_sum", {e}, ValueType::tensor(DType::I32, one), lastAxis, im.aux("sum_exp"));
  Value* h = im.b.op1("tosa.clz", {sum}, sum->type, {}, im.aux("headroom_plus_one"));
  Value* normalized = shiftLeft(im, sum, im.b.sub(h, c(1), im.aux("h_minus_1")), "normalized");
  Value* shifted = shiftRightRounded(im, normalized, c(14), "shifted_sum");
  // the reciprocal table's index: clamp(shifted - 98304, -32768, 32767) + 32768
  Value* recIndex = clampI32(im, im.b.sub(shifted, c(65536), im.aux("rec_offset")), 0, 65535, "rec_index");
  Value* r16 = lookup(im, std::move(recTable), recIndex, "reciprocal");
  Value* r = im.b.op1("tosa.cast", {r16}, ValueType::tensor(DType::I32, one), {}, im.aux("reciprocal_i32"));
  Value* product = im.b.mul(e, r, 0, im.aux("product"));
  Value* rightShift = im.b.sub(c(31), h, im.aux("right_shift"));
  Value* scaled = shiftRightRounded(im, product, rightShift, "scaled");
  Value* clamped = clampI32(im, scaled, 0, 32767, "saturate");
  Value* out = im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I16, xs), {}, im.aux("to_i16"));
  return setQuantOut(im, 0, out, fb::ActivationFunctionType::NONE, y);
}

}  // namespace tosakit::tflite
