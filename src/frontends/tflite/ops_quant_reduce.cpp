// Pre-quantized int8 MEAN (other than TFLite's special global-average kernel, ops_quant.cpp) and SUM, as TFLite
// 2.9's reduce kernels compute them. Both sum the raw int8 values in int32. With the output quantized exactly like
// the input, MEAN is that sum divided by the count truncating toward zero (reference_ops::Mean) and SUM is the sum
// wrapped to int8 (an int8 accumulator). Otherwise both take QuantizedMeanOrSum's float requantization: scale =
// input_scale / output_scale (float), MEAN round(float(sum) / count * scale - zx scale) + zy saturated, SUM
// round(float(sum) scale - zx scale count) + zy wrapped to int8; round is half away from zero. Every float step
// is one IEEE single operation in TFLite and in TOSA (the division correctly rounded, frontends::divideF32).
#include <cmath>

#include "frontends/common/float_arith.h"
#include "frontends/tflite/tflite_internal.h"
#include "frontends/tflite/tflite_quant.h"

namespace tosakit::tflite {
namespace {

// ((v + 128) & 255) - 128: an i32 value wrapped to int8's range, as a C++ cast to int8_t does.
Value* wrapToInt8(Importer& im, Value* v) {
  const size_t rank = v->type.dims.size();
  auto c = [&](double k) { return im.scalarOf(DType::I32, k, rank); };
  Value* low = im.b.op1("tosa.bitwise_and", {im.b.add(v, c(128), im.aux("wrap_offset")), c(255)}, v->type, {},
                        im.aux("wrap_low_byte"));
  return im.b.sub(low, c(128), im.aux("wrapped"));
}

// Round half away from zero of f32 values (std::round): floor(|u| + 1/2) with the sign back, exact for |u| < 2^23;
// larger values are integers already.
Value* roundHalfAway(Importer& im, Value* u) {
  const ValueType t = u->type;
  const ValueType b = ValueType::tensor(DType::Bool, t.dims);
  const size_t rank = t.dims.size();
  auto f = [&](double k) { return im.scalarOf(DType::FP32, k, rank); };
  Value* a = im.b.op1("tosa.abs", {u}, t, {}, im.aux("abs"));
  Value* fl = im.b.op1("tosa.floor", {im.b.add(a, f(0.5), im.aux("abs_plus_half"))}, t, {}, im.aux("abs_rounded"));
  Value* big = im.b.op1("tosa.greater_equal", {a, f(8388608.0)}, b, {}, im.aux("integral"));
  Value* r = im.b.op1("tosa.select", {big, a, fl}, t, {}, im.aux("magnitude"));
  Value* negative = im.b.op1("tosa.greater", {f(0), u}, b, {}, im.aux("negative"));
  return im.b.op1("tosa.select", {negative, im.b.sub(f(0), r, im.aux("negated")), r}, t, {}, im.aux("rounded"));
}

}  // namespace

Status int8MeanOrSum(Importer& im, bool sum) {
  if (im.in(0).dtype != DType::I8 || im.out(0).dtype != DType::I8)
    return Status::unsupported("quantized MEAN/SUM other than int8 -> int8");
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  const Shape& xs = im.in(0).shape;
  auto axes = reductionAxes(im, xs.size());
  if (!axes) return axes.status();
  int64_t count = 1;
  for (int64_t a : *axes) count *= xs[size_t(a)];
  if (count <= 0) return Status::unsupported("quantized MEAN/SUM over an empty axis");
  if (count >= (int64_t(1) << 23)) return Status::unsupported("quantized MEAN/SUM over more than 2^23 elements");
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* s = im.b.op1("tosa.cast", {*xv}, ValueType::tensor(DType::I32, xs), {}, im.aux("x_i32"));
  for (int64_t a : *axes) {
    Shape r = s->type.dims;
    r[size_t(a)] = 1;
    s = im.b.op1("tosa.reduce_sum", {s}, ValueType::tensor(DType::I32, r),
                 {{"axis", ir::Attribute::integer(a, DType::I32)}}, im.aux("sum"));
  }
  const size_t rank = xs.size();
  const Shape reduced = s->type.dims;
  auto toI8 = [&](Value* v) {
    Value* r = im.b.op1("tosa.cast", {v}, ValueType::tensor(DType::I8, reduced), {}, im.aux("to_i8"));
    return setQuantOut(im, 0, im.b.reshape(r, im.out(0).shape, im.loc), fb::ActivationFunctionType::NONE, *y);
  };
  // TFLite compares the float scales and the zero points
  if (float(x->scale) == float(y->scale) && x->zp == y->zp) {
    if (sum) return toI8(wrapToInt8(im, s));
    return toI8(
        im.b.op1("tosa.intdiv", {s, im.scalarOf(DType::I32, double(count), rank)}, s->type, {}, im.aux("mean")));
  }
  const float scale = float(x->scale) / float(y->scale);
  const float bias = sum ? float(-x->zp) * scale * float(count) : float(-x->zp) * scale;
  const ValueType f32 = ValueType::tensor(DType::FP32, reduced);
  auto f = [&](double k) { return im.scalarOf(DType::FP32, k, rank); };
  Value* v = im.b.op1("tosa.cast", {s}, f32, {}, im.aux("sum_f32"));
  if (!sum) v = frontends::divideF32(im.b, v, f(double(count)), im.aux("mean"));
  Value* u = im.b.add(im.b.mul(v, f(scale), 0, im.aux("scaled")), f(bias), im.aux("biased"));
  Value* r = roundHalfAway(im, u);
  if (!sum) {
    Value* shifted = im.b.add(r, f(double(y->zp)), im.aux("plus_zp"));
    Value* clamped = im.clampF(shifted, -128, 127, "saturate");
    return toI8(im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I32, reduced), {}, im.aux("mean_i32")));
  }
  // the rounded float converted to int as TFLite does (in range: |r| < 2^31 for any scale a model holds)
  Value* ri = im.b.op1("tosa.cast", {im.clampF(r, -2147483520.0, 2147483520.0, "int_range")},
                       ValueType::tensor(DType::I32, reduced), {}, im.aux("sum_i32"));
  return toI8(wrapToInt8(im, im.b.add(ri, im.scalarOf(DType::I32, double(y->zp), rank), im.aux("plus_zp"))));
}

}  // namespace tosakit::tflite
