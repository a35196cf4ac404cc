// Pre-quantized operators whose TFLite kernels are neither a plain requantization nor a table: int8/int16
// REDUCE_PROD (TFLite requantizes after every multiplication, in element order) and uint8 RESIZE_BILINEAR
// (TFLite 2.9's optimized uint8 kernel interpolates in float, unlike the int8 one).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "frontends/tflite/tflite_fixedpoint.h"
#include "frontends/tflite/tflite_internal.h"
#include "frontends/tflite/tflite_quant.h"

namespace tosakit::tflite {
namespace {

// Above this many elements per output the unrolled product chain (two ops per element) is refused.
constexpr int64_t kProdChainLimit = 256;

// TFLite's MultiplyByQuantizedMultiplier for int64 values: the Q31 multiplier rounded to 16 bits (saturating
// at 0x7FFF) and one rounding right shift by 15 - shift, ties up.
struct Multiplier16 {
  int64_t multiplier = 0;
  int64_t shift = 0;  // the total right shift, 15 - TFLite's shift
};

Multiplier16 multiplier16(double scale) {
  int64_t q = 0, shift = 0;
  fixedpoint::quantizeMultiplier(scale, q, shift);
  return {q < 0x7FFF0000 ? (q + (1 << 15)) >> 16 : 0x7FFF, 15 - shift};
}

// v moved to the front: the kept axes in order, then the reduced ones in order, as [kept elements, reduced].
Value* reducedLast(Importer& im, Value* v, const std::vector<int64_t>& axes) {
  const Shape& s = v->type.dims;
  std::vector<int64_t> perm;
  int64_t kept = 1, reduced = 1;
  for (size_t a = 0; a < s.size(); ++a)
    if (std::find(axes.begin(), axes.end(), int64_t(a)) == axes.end()) perm.push_back(int64_t(a)), kept *= s[a];
  for (int64_t a : axes) perm.push_back(a), reduced *= s[size_t(a)];
  std::vector<int64_t> identity(s.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (perm != identity) v = im.b.transpose(v, perm, im.aux("reduced_last"));
  return im.b.reshape(v, {kept, reduced}, im.aux("rows"));
}

}  // namespace

// REDUCE_PROD int8 / int16 as TFLite 2.9's reference_ops::QuantizedReduceProd: per output, p = x0 - zx, then
// for each further element in the input's row-major order p = MBQM64(p (xi - zx), s) with
// s = sx / sy^(1/n) (n the reduced count), and y = MBQM64(p, s) + zy saturated. MBQM64(v, s) is
// (v m + 2^(S-1)) >> S with TFLite's 16-bit multiplier m: tosa.mul with shift S of p and (xi - zx) m, whose
// 64-bit product and rounding shift are exactly that (m (xi - zx) fits in i32 for int8 and int16 inputs).
Status quantizedReduceProd(Importer& im) {
  const DType t = im.in(0).dtype;
  if ((t != DType::I8 && t != DType::I16) || im.out(0).dtype != t)
    return Status::unsupported("quantized REDUCE_PROD other than int8 -> int8 or int16 -> int16");
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if (t == DType::I16 && (x->zp != 0 || y->zp != 0))
    return Status::invalid("int16 REDUCE_PROD with a non-zero zero point");
  const Shape& xs = im.in(0).shape;
  auto axes = reductionAxes(im, xs.size());
  if (!axes) return axes.status();
  const int64_t total = numElements(xs), outCount = numElements(im.out(0).shape);
  if (total == 0 || outCount == 0 || total % outCount != 0)
    return Status::unsupported("quantized REDUCE_PROD of an empty tensor");
  const int64_t n = total / outCount;  // TFLite's reduced_axis_size
  if (n > kProdChainLimit)
    return Status::unsupported("quantized REDUCE_PROD over more than " + std::to_string(kProdChainLimit) +
                               " elements per output");
  // TFLite's scales are floats, widened to double for the n-th root
  const double scaling = double(float(x->scale)) / std::pow(double(float(y->scale)), 1.0 / double(n));
  if (!std::isfinite(scaling) || !(scaling > 0)) return Status::unsupported("REDUCE_PROD scaling overflows");
  const Multiplier16 m = multiplier16(scaling);
  if (m.shift < 1 || m.shift > 63)
    return Status::unsupported("REDUCE_PROD scaling " + std::to_string(scaling) + " outside tosa.mul's shift range");
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* rows = reducedLast(im, *xv, *axes);
  const int64_t kept = rows->type.dims[0];
  Value* wide = im.b.op1("tosa.cast", {rows}, ValueType::tensor(DType::I32, {kept, n}), {}, im.aux("x_i32"));
  Value* d = im.b.sub(wide, im.scalarOf(DType::I32, double(x->zp), 2), im.aux("minus_zp"));
  Value* dm = im.b.mul(d, im.scalarOf(DType::I32, double(m.multiplier), 2), 0, im.aux("times_multiplier"));
  const ValueType column = ValueType::tensor(DType::I32, {kept, 1});
  auto col = [&](Value* v, int64_t j) {
    const std::string what = "element" + std::to_string(j);
    return im.b.op1(
        "tosa.slice",
        {v, im.b.constShape({0, j}, im.aux(what + "_start")), im.b.constShape({kept, 1}, im.aux(what + "_size"))},
        column, {}, im.aux(what));
  };
  Value* p = col(d, 0);
  for (int64_t j = 1; j < n; ++j) p = im.b.mul(p, col(dm, j), int(m.shift), im.aux("product" + std::to_string(j)));
  Value* scaled = im.b.mul(p, im.scalarOf(DType::I32, double(m.multiplier), 2), int(m.shift), im.aux("scaled"));
  Value* shifted = im.b.add(scaled, im.scalarOf(DType::I32, double(y->zp), 2), im.aux("plus_zp"));
  const bool wide16 = t == DType::I16;
  // saturation in i32 (TOSA 1.0's clamp has no i32 form): maximum, then minimum
  Value* low = im.b.op1("tosa.maximum", {shifted, im.scalarOf(DType::I32, wide16 ? -32768 : -128, 2)}, shifted->type,
                        {}, im.aux("saturate_low"));
  Value* clamped = im.b.op1("tosa.minimum", {low, im.scalarOf(DType::I32, wide16 ? 32767 : 127, 2)}, shifted->type, {},
                            im.aux("saturate"));
  Value* narrow = im.b.op1("tosa.cast", {clamped}, ValueType::tensor(t, {kept, 1}), {}, im.aux("narrow"));
  return setQuantOut(im, 0, im.b.reshape(narrow, im.out(0).shape, im.aux("reshape")), fb::ActivationFunctionType::NONE,
                     *y);
}

namespace {

// One output coordinate of TFLite's ComputeInterpolationValues: the float source position and its two
// neighbours (every step one float operation, as TFLite compiles it without contraction).
struct Sample {
  float pos = 0;
  int64_t lo = 0, hi = 0;
};

Sample interpolationValues(int64_t out, float scale, bool half, int64_t inSize) {
  Sample s;
  if (half) {
    volatile float shifted = float(out) + 0.5f;  // volatile: no fused multiply-add, whatever the compiler flags
    volatile float product = shifted * scale;
    s.pos = product - 0.5f;
  } else {
    s.pos = float(out) * scale;
  }
  s.lo = std::max<int64_t>(int64_t(std::floor(s.pos)), 0);
  s.hi = std::min<int64_t>(int64_t(std::ceil(s.pos)), inSize - 1);
  return s;
}

float resizeScale(int64_t in, int64_t out, bool align) {
  return align && out > 1 ? float(in - 1) / float(out - 1) : float(in) / float(out);
}

}  // namespace

// uint8 RESIZE_BILINEAR as TFLite 2.9's optimized_ops::ResizeBilinear for uint8 (ResizeBilinearGenericSmallChannel):
// the four neighbours' raw uint8 values as floats times float weights computed from float source positions,
// summed left to right, plus 0.5, truncated. The weights and neighbour indices depend only on the output position:
// computed at import exactly as TFLite computes them; the graph gathers the four neighbours and repeats the float
// sum with TOSA's IEEE single mul and add.
Status uint8ResizeBilinear(Importer& im) {
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if (!im.out(0).fromUint8) return Status::unsupported("uint8 RESIZE_BILINEAR with a non-uint8 output");
  const auto* o = im.options<fb::ResizeBilinearOptions>();
  const bool align = o && o->align_corners(), half = o && o->half_pixel_centers();
  const Shape& xs = im.in(0).shape;
  const Shape& os = im.out(0).shape;
  if (xs.size() != 4 || os.size() != 4 || os[0] != xs[0] || os[3] != xs[3] || xs[1] <= 0 || xs[2] <= 0)
    return Status::invalid("resize needs rank-4 input and output of the same batch and channels");
  const int64_t B = xs[0], IH = xs[1], IW = xs[2], C = xs[3], OH = os[1], OW = os[2], P = OH * OW;
  const float hScale = resizeScale(IH, OH, align), wScale = resizeScale(IW, OW, align);
  std::vector<Tensor> index(4, Tensor(DType::I32, {B, P})), weight(4, Tensor(DType::FP32, {1, P, 1}));
  for (int64_t oy = 0; oy < OH; ++oy) {
    const Sample sy = interpolationValues(oy, hScale, half, IH);
    for (int64_t ox = 0; ox < OW; ++ox) {
      const Sample sx = interpolationValues(ox, wScale, half, IW);
      const int64_t pos = oy * OW + ox;
      const float fy = sy.pos - float(sy.lo), fx = sx.pos - float(sx.lo);
      const float w[4] = {(1 - fy) * (1 - fx), (1 - fy) * fx, fy * (1 - fx), fy * fx};
      const int64_t at[4] = {sy.lo * IW + sx.lo, sy.lo * IW + sx.hi, sy.hi * IW + sx.lo, sy.hi * IW + sx.hi};
      for (int k = 0; k < 4; ++k) {
        weight[size_t(k)].setFloat(pos, w[k]);
        for (int64_t b = 0; b < B; ++b) index[size_t(k)].setInt(b * P + pos, at[k]);
      }
    }
  }
  auto xv = im.get(0);
  if (!xv) return xv.status();
  Value* flat = im.b.reshape(*xv, {B, IH * IW, C}, im.aux("pixels"));
  const ValueType f32 = ValueType::tensor(DType::FP32, {B, P, C});
  Value* sum = nullptr;
  for (int k = 0; k < 4; ++k) {
    const std::string what = "corner" + std::to_string(k);
    Value* g = im.b.op1("tosa.gather", {flat, im.constant(std::move(index[size_t(k)]), what + "_index")},
                        ValueType::tensor(DType::I8, {B, P, C}), {}, im.aux(what));
    // the uint8 value: the int8 carrier plus 128, exact in float
    Value* v = im.b.add(im.b.op1("tosa.cast", {g}, f32, {}, im.aux(what + "_f32")), im.scalarOf(DType::FP32, 128, 3),
                        im.aux(what + "_uint8"));
    Value* term = im.b.mul(v, im.constant(std::move(weight[size_t(k)]), what + "_weight"), 0, im.aux(what + "_term"));
    sum = sum ? im.b.add(sum, term, im.aux("sum" + std::to_string(k))) : term;
  }
  Value* rounded = im.b.add(sum, im.scalarOf(DType::FP32, 0.5, 3), im.aux("plus_half"));
  // truncation of a non-negative value is the floor; back to the int8 carrier
  Value* fl = im.b.op1("tosa.floor", {rounded}, f32, {}, im.aux("truncated"));
  Value* moved = im.clampF(im.b.sub(fl, im.scalarOf(DType::FP32, 128, 3), im.aux("minus_128")), -128, 127, "range");
  Value* r = im.b.op1("tosa.cast", {moved}, ValueType::tensor(DType::I8, {B, P, C}), {}, im.aux("to_i8"));
  return setQuantOut(im, 0, im.b.reshape(r, os, im.aux("reshape")), fb::ActivationFunctionType::NONE, *y);
}

}  // namespace tosakit::tflite
