// Quantized operators lowered to integer TOSA: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger.
//
// uint8 run-time tensors are carried as i8 bits (importer.h). Integer products run on TOSA's i8 conv2d/matmul
// with zero points: a uint8 operand is first re-centred to int8 by a RESCALE (input_unsigned, input_zp 128),
// and its zero point moves by -128 with it, so (x - zp) is unchanged. The i32 accumulator is requantized with
// RESCALE (SINGLE_ROUND) by multiplier/shift pairs derived from the float scales; RESCALE cannot write uint8
// from i32 (spec 2.13.2 ERROR_IF), so uint8 outputs take a second exact RESCALE from int8 (output_zp 128).
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>

#include "frontends/onnx/importer.h"
#include "frontends/onnx/quant_internal.h"

namespace tosakit::onnx {

using ir::RescaleAttrs;

// scale ~= multiplier / 2^shift with a 32-bit multiplier normalized to [2^30, 2^31) (spec 2.13.2: "a scaling
// of m*2^-n can be represented using multiplier=(1<<30)*m, shift=(30+n)").
Result<std::pair<int64_t, int64_t>> scaleToMultiplierShift(double scale) {
  if (!(scale > 0) || !std::isfinite(scale)) return Status::unsupported("quantization scale " + std::to_string(scale));
  int exp = 0;
  const double m = std::frexp(scale, &exp);  // scale = m * 2^exp, m in [0.5, 1)
  int64_t multiplier = std::llround(m * double(int64_t(1) << 31));
  if (multiplier == (int64_t(1) << 31)) {
    multiplier >>= 1;
    ++exp;
  }
  int64_t shift = 31 - exp;
  if (shift > 62) {  // below 2^-32: drop low multiplier bits (the product is far below one output step)
    multiplier >>= std::min<int64_t>(shift - 62, 31);
    shift = 62;
  }
  if (shift < 2) return Status::unsupported("requantization scale " + std::to_string(scale) + " is above 2^29");
  return std::make_pair(multiplier, shift);
}

namespace {

RescaleAttrs identityRescale() {
  RescaleAttrs a;
  a.multiplier = {int64_t(1) << 30};
  a.shift = {30};
  return a;
}

// clamp of an i32 value (TOSA's CLAMP has no i32 row): minimum(maximum(v, lo), hi).
Value* clampI32(Importer& im, Value* v, int64_t lo, int64_t hi) {
  const size_t rank = v->type.dims.size();
  Value* ge = im.binary("tosa.maximum", v, im.scalarOf(DType::I32, double(lo), rank), DType::I32);
  return im.binary("tosa.minimum", ge, im.scalarOf(DType::I32, double(hi), rank), DType::I32);
}

}  // namespace

bool isQuantType(DType t) { return t == DType::U8 || t == DType::I8; }

// A run-time uint8/int8 value as int8 with the same (x - zp) differences: uint8 moves by -128.
Value* toSignedI8(Importer& im, Value* x, DType onnxType) {
  if (onnxType != DType::U8) return x;
  RescaleAttrs a = identityRescale();
  a.inputZp = 128;
  a.inputUnsigned = true;
  return im.b.rescale(x, DType::I8, a, im.aux("to_int8"));
}

namespace {

// A constant uint8/int8 tensor as int8 (uint8 moves by -128).
Tensor toSignedI8(const Tensor& t) {
  Tensor out(DType::I8, t.shape());
  const int64_t offset = t.dtype() == DType::U8 ? 128 : 0;
  for (int64_t i = 0; i < t.size(); ++i) out.setInt(i, t.getInt(i) - offset);
  return out;
}

}  // namespace

Value* roundToQuantized(Importer& im, Value* f, int64_t zp, int64_t lo, int64_t hi) {
  const size_t rank = f->type.dims.size();
  Value* r = im.b.add(im.castTo(f, DType::I32), im.scalarOf(DType::I32, double(zp), rank), im.aux("zero_point"));
  Value* clamped = clampI32(im, r, lo, hi);
  return im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I8, clamped->type.dims), {}, im.loc);
}

// i32 accumulator -> uint8 (as i8 bits) or int8 with `scales` (one, or one per channel of the last dim).
Result<Value*> requantize(Importer& im, Value* acc, const std::vector<double>& scales, int64_t zp, DType outType,
                          int64_t lo, int64_t hi) {
  const int64_t qmin = outType == DType::U8 ? 0 : -128;
  lo = std::max(lo, qmin);
  hi = std::min(hi, qmin + 255);
  if (im.opts.requantizeLikeOrt) {
    // ONNX Runtime (MlasRequantizeOutput): float(acc) * scale in float32, rounded half to even (CAST), + zp.
    const size_t rank = acc->type.dims.size();
    Shape s(rank, 1);
    s.back() = int64_t(scales.size());
    std::vector<double> fs;
    for (double x : scales) fs.push_back(double(float(x)));
    Value* prod = im.b.mul(im.castTo(acc, DType::FP32), im.constF(Tensor::fromDoubles(DType::FP32, s, fs)), 0,
                           im.aux("requantize"));
    return roundToQuantized(im, prod, zp, lo, hi);
  }
  RescaleAttrs a;
  for (double s : scales) {
    auto ms = scaleToMultiplierShift(s);
    if (!ms) return ms.status();
    a.multiplier.push_back(ms->first);
    a.shift.push_back(ms->second);
  }
  a.perChannel = scales.size() > 1;
  // uint8 is computed as int8 (clip to [-128, 127] with zp - 128), then moved by +128 exactly.
  const int64_t offset = outType == DType::I8 ? 0 : 128;
  const int64_t loS = std::max<int64_t>(lo, offset - 128) - offset;
  const int64_t hiS = std::min<int64_t>(hi, offset + 127) - offset;
  const bool narrowed = loS > -128 || hiS < 127;
  a.outputZp = zp - offset;
  if (outType == DType::I8 && !narrowed) return im.b.rescale(acc, DType::I8, a, im.loc);
  Value* s8 = im.b.rescale(acc, DType::I8, a, im.aux("requantize"));
  if (narrowed) s8 = im.b.clamp(s8, double(loS), double(hiS), outType == DType::I8 ? im.loc : im.aux("clamp"));
  if (outType == DType::I8) return s8;
  RescaleAttrs u = identityRescale();
  u.outputZp = 128;
  u.outputUnsigned = true;
  return im.b.rescale(s8, DType::I8, u, im.loc);
}

namespace {

// A constant scalar or 1-element input as a double; `what` names it in errors.
Result<std::vector<double>> constFloats(Importer& im, const NodeProto& n, int i, const char* what) {
  auto t = im.constInput(n, i, what);
  if (!t)
    return Status::unsupported(std::string("run-time ") + what + " (TOSA needs constant quantization parameters)");
  std::vector<double> v;
  for (int64_t k = 0; k < (*t)->size(); ++k) v.push_back((*t)->getFloat(k));
  return v;
}

// A quantization scale that is zero, negative, NaN or infinite makes the model malformed.
Status checkScales(const std::vector<double>& scales, const NodeProto& n) {
  for (double s : scales)
    if (!(s > 0) || !std::isfinite(s))
      return Status::invalid(n.op_type() + " scale " + std::to_string(s) + " (must be positive and finite)");
  return Status::ok();
}

// Zero point input i (optional: 0 of `defaultType`); returns the values and the ONNX type.
Result<std::pair<std::vector<int64_t>, DType>> zeroPoints(Importer& im, const NodeProto& n, int i, DType defaultType) {
  if (!im.hasInput(n, i)) return std::make_pair(std::vector<int64_t>{0}, defaultType);
  auto t = im.constInput(n, i, "zero point");
  if (!t) return Status::unsupported("run-time zero point (TOSA needs constant quantization parameters)");
  std::vector<int64_t> v;
  for (int64_t k = 0; k < (*t)->size(); ++k) v.push_back((*t)->getInt(k));
  return std::make_pair(v, (*t)->dtype());
}

bool allEqual(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != v[0]) return false;
  return true;
}

// A per-axis parameter vector as a constant broadcastable against a rank-`rank` tensor along `axis`.
Tensor alongAxis(DType dt, const std::vector<double>& v, size_t rank, int64_t axis) {
  Shape s(rank, 1);
  if (v.size() > 1) s[size_t(axis)] = int64_t(v.size());
  return Tensor::fromDoubles(dt, s, v);
}

// ---- run-time quantization parameters: float arithmetic ----
//
// TOSA's RESCALE multipliers/shifts and its conv/matmul zero points are compile-time values; when a scale,
// zero point or weight is a run-time tensor the same formulas run in float32 on exact integers: (x - zp) is an
// integer of at most 9 bits, products and sums are exact while |accumulator| < 2^24 (docs/ONNX.md), and the
// final CAST to int rounds half to even like ONNX's saturate(round(.)).

// A run-time value of ONNX type `onnxType` as exact float32 (uint8 from its i8 carrier, int types via i32).
Value* toFloatExact(Importer& im, Value* v, DType onnxType) {
  if (isFloat(v->type.dtype)) return im.castTo(v, DType::FP32);
  Value* i = im.castTo(v, DType::I32);
  if (onnxType == DType::U8)  // sign-extended by the cast: keep the low 8 bits
    i = im.b.op1("tosa.bitwise_and", {i, im.scalarOf(DType::I32, 255, i->type.dims.size())}, i->type, {},
                 im.aux("to_uint8"));
  return im.castTo(i, DType::FP32);
}

bool anyRunTime(Importer& im, const NodeProto& n, std::initializer_list<int> inputs) {
  for (int i : inputs)
    if (im.hasInput(n, i) && !im.val(n, i).isConst()) return true;
  return false;
}

// Input i (a scale or zero point: one value, or one per index of `axis`) as fp32 of rank `rank` broadcasting
// along `axis`; `def` when the optional input is absent.
Result<Value*> paramAsFloat(Importer& im, const NodeProto& n, int i, size_t rank, int64_t axis, double def) {
  Shape s(rank, 1);
  if (!im.hasInput(n, i)) return im.constF(Tensor::fromDoubles(DType::FP32, s, {def}));
  OVal& p = im.val(n, i);
  const int64_t count = numElements(p.shape);
  if (count > 1) {
    if (axis < 0 || axis >= int64_t(rank)) return Status::invalid("per-axis parameter without a valid axis");
    s[size_t(axis)] = count;
  }
  if (p.isConst()) {
    std::vector<double> v;
    for (int64_t k = 0; k < p.c->size(); ++k)
      v.push_back(isFloat(p.c->dtype()) ? p.c->getFloat(k) : double(p.c->getInt(k)));
    return im.constF(Tensor::fromDoubles(DType::FP32, s, v));
  }
  auto pv = im.get(p, Layout::Plain);
  if (!pv) return pv.status();
  return toFloatExact(im, im.reshapeTo(*pv, s, im.aux("param")), p.dtype);
}

// An operand minus its zero point, in float32: x - zp (x plain, its ONNX type `x.dtype`).
Result<Value*> centeredFloat(Importer& im, const NodeProto& n, OVal& x, int zpInput, int64_t axis) {
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* xf = toFloatExact(im, *xv, x.dtype);
  auto zp = paramAsFloat(im, n, zpInput, x.shape.size(), axis, 0);
  if (!zp) return zp.status();
  return im.b.sub(xf, *zp, im.aux("centered"));
}

// saturate(round_half_even(acc * scale) + zp) to the 8-bit type `outType` (carried as i8 bits); acc, scale and
// zp are fp32 of equal rank.
Value* quantizeFloat(Importer& im, Value* accScaled, Value* zp, DType outType) {
  Value* r = im.castTo(accScaled, DType::I32);
  Value* z = im.castTo(zp, DType::I32);
  Value* withZp = im.b.add(r, z, im.aux("add_zero_point"));
  const int64_t lo = outType == DType::U8 ? 0 : -128, hi = outType == DType::U8 ? 255 : 127;
  Value* clamped = clampI32(im, withZp, lo, hi);
  return im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I8, clamped->type.dims), {}, im.loc);
}

// ---- QuantizeLinear / DequantizeLinear ----

// QuantizeLinear whose y_scale and/or zero point are run-time values (e.g. DynamicQuantizeLinear's expanded
// graph; per tensor or per axis): the same float math as the constant form, with the parameters as tensors.
Status quantizeLinearRunTime(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, im.val(n, 1)));
  DType outType = DType::U8;
  if (im.hasInput(n, 2)) outType = im.val(n, 2).dtype;
  if (!isQuantType(outType)) return Status::unsupported("QuantizeLinear to " + std::string(dtypeName(outType)));
  const size_t rank = x.shape.size();
  const int64_t axis = normAxis(im.attrInt(n, "axis", 1), int64_t(rank));
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  auto sv = paramAsFloat(im, n, 1, rank, axis, 1);
  if (!sv) return sv.status();
  auto zv = paramAsFloat(im, n, 2, rank, axis, 0);
  if (!zv) return zv.status();
  Value* q = im.divideF32(im.castTo(*xv, DType::FP32), *sv);
  im.setValue(n, 0, quantizeFloat(im, q, *zv, outType), Layout::Plain, outType);
  return Status::ok();
}

// ---- QuantizeLinear by a constant scale: one multiply and a verified correction ----
//
// ONNX (and ONNX Runtime's MLAS) computes q = round_half_even(fl32(x / s)). TOSA has no float divide and
// divideF32's exact quotient costs 18 full-tensor ops. With s constant this shorter sequence is used when an
// import-time check proves it gives the same integers as the exact quotient for every float32 x:
//   x' = clamp(x, xLo, xHi)           xLo, xHi: (lo - zp)*s, (hi - zp)*s rounded, so |q| = |x'/s| <= 256
//   y  = fl(x' * c)                   c = fl(1/s)
//   q0 = fl(fl(y + M) - M)            M = 1.5 * 2^16: y rounded to a multiple of 2^-7 (|q0 - q| < 2^-7)
//   r  = x' - q0*s1 - q0*s2 - q0*s3   s = s1 + s2 + s3 exactly, 8-bit parts: q0*si exact (16 x 8 bits)
//   A  = fl(q0 + fl(r * c))           then cast to i32 (half to even) + zp, already in [lo, hi]
// Why it is close (e: s in [2^(e-1), 2^e)): for |q| >= 1/4, ulp(x') >= |q| 2^(e-25); with |q - q0| < 2^-7,
// |s2| <= 2^(e-9) and |s3| <= 2^(e-17), the partial differences x' - q0*s1 (< s 2^-7 + |q0| 2^(e-8)), then
// - q0*s2 and - q0*s3 are each below 2^24 units of min(ulp(x'), 2^-7 ulp(si)), the grid both operands lie on:
// they are exact, r = x' - q0*s. fl(r*c) is then off by |r/s| * 2^-24 < 2^-32 (c's error) plus
// half an ulp of a value below 2^-7 (2^-31), so q0 + fl(r*c) = q + e with |e| < 2^-30. For |q| < 1/4 every
// term is below 1/4 + 2^-20 and both give 0. rint(fl(.)) only steps at the rounding midpoints next to the
// half-integers h = n + 0.5, so the two integers can differ only for x' within 2^-30 s of such a midpoint
// times s: within 2 floats of fl(h*s). checkCheapQuantize compares both on the 64 floats either side of every
// h*s of the output range, at xLo, xHi and at +-inf, evaluating each op in float32 exactly as TOSA does (via
// double: exact for a product of two floats, innocuous double rounding for + and -). A scale for which any
// differs (none of 800 random scales in 2^-9..1 did) keeps the exact division.
struct CheapQuantConsts {
  float c, s1, s2, s3, xLo, xHi;
};

constexpr float kRoundMagic = 98304.0f;  // 1.5 * 2^16: fl(fl(y + M) - M) rounds y to a multiple of 2^-7

float mulF(float a, float b) { return float(double(a) * double(b)); }
float addF(float a, float b) { return float(double(a) + double(b)); }
float subF(float a, float b) { return float(double(a) - double(b)); }

// The emitted sequence on one value, op by op.
int64_t cheapQuantized(float x, const CheapQuantConsts& k) {
  const float xc = std::min(std::max(x, k.xLo), k.xHi);
  const float q0 = subF(addF(mulF(xc, k.c), kRoundMagic), kRoundMagic);
  const float r = subF(subF(subF(xc, mulF(q0, k.s1)), mulF(q0, k.s2)), mulF(q0, k.s3));
  return int64_t(std::nearbyint(addF(q0, mulF(r, k.c))));
}

// ONNX's definition: round_half_even(fl32(x / s)), saturated to [lo, hi] after + zp.
int64_t exactQuantized(float x, float s, int64_t zp, int64_t lo, int64_t hi) {
  const double q = std::nearbyint(float(double(x) / double(s)));  // +-inf stays infinite: clamp in double
  return int64_t(std::clamp(q + double(zp), double(lo), double(hi)));
}

// v rounded to a multiple of `unit` (a power of two).
double roundTo(double v, double unit) { return std::nearbyint(v / unit) * unit; }

// The constants for scale s, or nullopt where the argument's assumptions (no overflow or underflow) fail.
std::optional<CheapQuantConsts> cheapQuantConsts(double scale, int64_t zp, int64_t lo, int64_t hi) {
  const float s = float(scale);
  if (!(s >= 0x1p-60f && s <= 0x1p60f) || std::max(std::abs(lo - zp), std::abs(hi - zp)) > 256) return std::nullopt;
  int e = 0;
  std::frexp(double(s), &e);  // s in [2^(e-1), 2^e)
  const double s1 = roundTo(s, std::ldexp(1.0, e - 8));
  const double s2 = roundTo(double(s) - s1, std::ldexp(1.0, e - 16));
  const double s3 = double(s) - s1 - s2;  // a multiple of ulp(s) below 2^(e-17): 8 bits
  return CheapQuantConsts{float(1.0 / double(s)),    float(s1), float(s2), float(s3), float(double(lo - zp) * s),
                          float(double(hi - zp) * s)};
}

bool checkCheapQuantize(const CheapQuantConsts& k, float s, int64_t zp, int64_t lo, int64_t hi) {
  auto same = [&](float x) {
    const int64_t cheap = cheapQuantized(x, k) + zp;
    return cheap >= lo && cheap <= hi && cheap == exactQuantized(x, s, zp, lo, hi);
  };
  if (!same(k.xLo) || !same(k.xHi) || !same(-INFINITY) || !same(INFINITY)) return false;
  for (int64_t n = lo - zp; n < hi - zp; ++n) {
    const float center = float((double(n) + 0.5) * s);
    float up = center, down = center;
    for (int i = 0; i <= 64; ++i, up = std::nextafter(up, INFINITY), down = std::nextafter(down, -INFINITY))
      if (!same(up) || !same(down)) return false;
  }
  return true;
}

// The cheap sequence for per-tensor or per-axis constants, or nullptr where a check fails.
Value* cheapQuantize(Importer& im, Value* x, const std::vector<double>& scales, const std::vector<double>& zps,
                     int64_t lo, int64_t hi, size_t rank, int64_t axis) {
  std::vector<double> c, s1, s2, s3, xLo, xHi;
  for (size_t i = 0; i < scales.size(); ++i) {
    const auto zp = int64_t(zps[i]);
    auto k = cheapQuantConsts(scales[i], zp, lo, hi);
    if (!k || !checkCheapQuantize(*k, float(scales[i]), zp, lo, hi)) return nullptr;
    c.push_back(k->c);
    s1.push_back(k->s1);
    s2.push_back(k->s2);
    s3.push_back(k->s3);
    xLo.push_back(k->xLo);
    xHi.push_back(k->xHi);
  }
  auto param = [&](const std::vector<double>& v) { return im.constF(alongAxis(DType::FP32, v, rank, axis)); };
  Value* xc = scales.size() == 1 ? im.b.clamp(x, xLo[0], xHi[0], im.aux("clamp"))
                                 : im.binary("tosa.minimum", im.binary("tosa.maximum", x, param(xLo)), param(xHi));
  Value* cv = param(c);
  Value* magic = im.scalarF(kRoundMagic, rank);
  Value* q0 = im.b.sub(im.b.add(im.b.mul(xc, cv, 0, im.aux("mul")), magic, im.aux("add")), magic, im.aux("sub"));
  Value* r = xc;
  for (const auto* part : {&s1, &s2, &s3}) r = im.b.sub(r, im.b.mul(q0, param(*part), 0, im.aux("mul")), im.aux("sub"));
  Value* a = im.b.add(q0, im.b.mul(r, cv, 0, im.aux("mul")), im.aux("add"));
  Value* rounded = im.castTo(a, DType::I32);
  // int8 with one zero point: a RESCALE by 1 adds it and narrows in one step (the values are already in range).
  if (lo == -128 && std::all_of(zps.begin(), zps.end(), [&](double z) { return z == zps[0]; })) {
    RescaleAttrs plusZp = identityRescale();
    plusZp.outputZp = int64_t(zps[0]);
    return im.b.rescale(rounded, DType::I8, plusZp, im.loc);
  }
  Value* withZp =
      im.b.add(rounded, im.b.constant(alongAxis(DType::I32, zps, rank, axis), im.aux("zero_point")), im.aux("add"));
  return im.b.op1("tosa.cast", {withZp}, ValueType::tensor(DType::I8, withZp->type.dims), {}, im.loc);
}

// QuantizeLinear to int16 (ONNX's 16-bit QDQ, opset 21): saturate(round_half_even(x / scale) + zp) by the
// exact division, in an i16 value (uint16 has no TOSA carrier: unsupported by runtimeDType).
Status quantizeLinearInt16(Importer& im, const NodeProto& n, OVal& x, const std::vector<double>& scale,
                           std::vector<int64_t> zp) {
  const int64_t rank = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 1), rank);
  if (scale.size() > 1 && (axis < 0 || axis >= rank || x.shape[size_t(axis)] != int64_t(scale.size())))
    return Status::invalid("QuantizeLinear scale length does not match the axis");
  if (zp.size() != 1 && zp.size() != scale.size())
    return Status::invalid("QuantizeLinear zero point length does not match the scale");
  std::vector<double> zps(zp.begin(), zp.end());
  if (zps.size() != scale.size()) zps.assign(scale.size(), zps[0]);
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* q = im.divideF32(*xv, im.constF(alongAxis(DType::FP32, scale, size_t(rank), axis)));
  Value* withZp =
      im.b.add(im.castTo(q, DType::I32),
               im.b.constant(alongAxis(DType::I32, zps, size_t(rank), axis), im.aux("zero_point")), im.aux("add"));
  Value* clamped = clampI32(im, withZp, -32768, 32767);
  im.setValue(n, 0, im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I16, clamped->type.dims), {}, im.loc),
              Layout::Plain, DType::I16);
  return Status::ok();
}

Status opQuantizeLinear(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (!im.val(n, 1).isConst() || (im.hasInput(n, 2) && !im.val(n, 2).isConst())) return quantizeLinearRunTime(im, n);
  auto scale = constFloats(im, n, 1, "y_scale");
  if (!scale) return scale.status();
  TK_RETURN_IF_ERROR(checkScales(*scale, n));
  auto zp = zeroPoints(im, n, 2, DType::U8);
  if (!zp) return zp.status();
  DType outType = zp->second;
  if (outType == DType::I16) return quantizeLinearInt16(im, n, x, *scale, zp->first);
  if (!isQuantType(outType)) return Status::unsupported("QuantizeLinear to " + std::string(dtypeName(outType)));
  // Graph inputs keep uint8 when --qdq-integer-io will make them uint8 arguments.
  const bool graphInput = im.producers.count(n.input(0)) == 0 && !x.isConst();
  const bool shifted = outType == DType::U8 && !(graphInput && im.opts.qdqIntegerIo) && carriesU8AsI8(im, n.output(0));
  if (shifted) {
    for (int64_t& z : zp->first) z -= 128;
    outType = DType::I8;
    im.shiftedU8.insert(n.output(0));
  }
  const int64_t rank = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 1), rank);
  const bool perAxis = scale->size() > 1;
  if (perAxis && (axis < 0 || axis >= rank || x.shape[size_t(axis)] != int64_t(scale->size())))
    return Status::invalid("QuantizeLinear scale length does not match the axis");
  const int64_t lo = outType == DType::U8 ? 0 : -128, hi = outType == DType::U8 ? 255 : 127;
  std::vector<double> zps;
  for (int64_t z : zp->first) zps.push_back(double(z));
  if (zps.size() != scale->size()) zps.assign(scale->size(), zps[0]);
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  if (Value* cheap = cheapQuantize(im, *xv, *scale, zps, lo, hi, size_t(rank), axis)) {
    im.setValue(n, 0, cheap, Layout::Plain, outType);
    return Status::ok();
  }
  // y = saturate(round_half_even(x / scale) + zp): the cast rounds to nearest even (spec CAST), the zero point
  // is added after rounding (adding it before would move ties), then clamp and keep the low 8 bits.
  Value* q = im.divideF32(*xv, im.constF(alongAxis(DType::FP32, *scale, size_t(rank), axis)));
  Value* r = im.castTo(q, DType::I32);
  Value* withZp =
      im.b.add(r, im.b.constant(alongAxis(DType::I32, zps, size_t(rank), axis), im.aux("zero_point")), im.aux("add"));
  Value* clamped = clampI32(im, withZp, lo, hi);
  Value* out = im.b.op1("tosa.cast", {clamped}, ValueType::tensor(DType::I8, clamped->type.dims), {}, im.loc);
  im.setValue(n, 0, out, Layout::Plain, outType);
  return Status::ok();
}

// Run-time x_scale / x_zero_point: y = (x - zp) * scale in float32 (x - zp exact, one rounding).
Status dequantizeLinearRunTime(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, im.val(n, 1)));
  const int64_t rank = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 1), rank);
  auto centered = centeredFloat(im, n, x, 2, axis);
  if (!centered) return centered.status();
  auto scale = paramAsFloat(im, n, 1, size_t(rank), axis, 1);
  if (!scale) return scale.status();
  im.setValue(n, 0, im.b.mul(*centered, *scale, 0, im.loc), Layout::Plain);
  return Status::ok();
}

Status opDequantizeLinear(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (!isQuantType(x.dtype) && x.dtype != DType::I32 && x.dtype != DType::I16)
    return Status::unsupported("DequantizeLinear of " + std::string(dtypeName(x.dtype)));
  if (anyRunTime(im, n, {1, 2})) return dequantizeLinearRunTime(im, n);
  auto scale = constFloats(im, n, 1, "x_scale");
  if (!scale) return scale.status();
  TK_RETURN_IF_ERROR(checkScales(*scale, n));
  const bool shifted = im.shiftedU8.count(n.input(0)) > 0;  // uint8 carried as int8 u - 128
  auto zp = zeroPoints(im, n, 2, shifted ? DType::U8 : x.dtype);
  if (!zp) return zp.status();
  if (shifted && zp->second == DType::U8) {
    for (int64_t& z : zp->first) z -= 128;
    zp->second = DType::I8;
  }
  const int64_t rank = int64_t(x.shape.size());
  const int64_t axis = normAxis(im.attrInt(n, "axis", 1), rank);
  const size_t channels = scale->size();
  if (channels > 1 && (axis < 0 || axis >= rank || x.shape[size_t(axis)] != int64_t(channels)))
    return Status::invalid("DequantizeLinear scale length does not match the axis");
  if (zp->first.size() != 1 && zp->first.size() != channels)
    return Status::invalid("DequantizeLinear zero point length does not match the scale");
  if (zp->second != x.dtype) return Status::invalid("DequantizeLinear zero point type differs from the input type");
  std::vector<double> zps;
  for (int64_t z : zp->first) zps.push_back(double(z));
  if (zps.size() != channels) zps.assign(channels, zps[0]);
  // Recorded for QDQ folding (qdq_fold.cpp): the integer input and its parameters.
  Importer::DequantSource& d = im.dequantized[n.output(0)];
  d = {n.input(0), *scale, {}, axis, x.dtype};
  for (double z : zps) d.zps.push_back(int64_t(z));
  if (x.isConst()) {
    // y = (x - zp) * scale in float32 (x - zp is exact; the product rounds once, as the reference does).
    const Tensor& t = *x.c;
    Tensor y(DType::FP32, t.shape());
    int64_t inner = 1;
    for (int64_t d = axis + 1; d < rank; ++d) inner *= t.shape()[size_t(d)];
    for (int64_t i = 0; i < t.size(); ++i) {
      size_t c = channels > 1 ? size_t((i / inner) % int64_t(channels)) : 0;
      y.setFloat(i, double(float(double(t.getInt(i)) - zps[c]) * float((*scale)[c])));
    }
    im.setConst(n, 0, std::move(y));
    return Status::ok();
  }
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  Value* v = im.castTo(*xv, DType::I32);
  if (x.dtype == DType::U8) {
    // i8 bits -> uint8 value: sign-extended by the cast, keep the low 8 bits.
    v = im.b.op1("tosa.bitwise_and", {v, im.scalarOf(DType::I32, 255, size_t(rank))}, v->type, {}, im.aux("to_uint8"));
  }
  v = im.b.sub(v, im.b.constant(alongAxis(DType::I32, zps, size_t(rank), axis), im.aux("zero_point")), im.aux("sub"));
  Value* f = im.castTo(v, DType::FP32);
  Value* out = im.b.mul(f, im.constF(alongAxis(DType::FP32, *scale, size_t(rank), axis)), 0, im.loc);
  im.setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

// DynamicQuantizeLinear (uint8): scale = (max(0, max x) - min(0, min x)) / 255, zp = saturate(round(-min / scale)),
// y = saturate(round(x / scale) + zp). The statistics are run-time values, so it is float math plus casts.
Status opDynamicQuantizeLinear(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  const size_t rank = x.shape.size();
  Value* flat = im.b.reshape(*xv, {1, numElements(x.shape)}, im.aux("flatten"));
  auto reduce = [&](const char* op) {
    return im.b.op1(op, {flat}, ValueType::tensor(DType::FP32, {1, 1}),
                    {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux(op + 5));
  };
  Value* zero = im.scalarF(0.0f, 2);
  Value* hi = im.binary("tosa.maximum", reduce("tosa.reduce_max"), zero);
  Value* lo = im.binary("tosa.minimum", reduce("tosa.reduce_min"), zero);
  Value* scale = im.divideF32(im.b.sub(hi, lo, im.aux("range")), im.scalarF(255.0f, 2));
  // zp = saturate(round(0 - min / scale)) in [0, 255].
  Value* zpF = im.b.sub(zero, im.divideF32(lo, scale), im.aux("neg"));
  Value* zpI = im.castTo(zpF, DType::I32);
  Value* zpC = clampI32(im, zpI, 0, 255);
  Value* q = im.castTo(im.divideF32(flat, scale), DType::I32);
  Value* y = im.b.add(q, zpC, im.aux("add"));
  Value* yC = clampI32(im, y, 0, 255);
  Value* y8 = im.b.op1("tosa.cast", {yC}, ValueType::tensor(DType::I8, yC->type.dims), {}, im.aux("cast"));
  im.setValue(n, 0, im.b.reshape(y8, x.shape, im.loc), Layout::Plain, DType::U8);
  if (im.hasOutput(n, 1)) im.setValue(n, 1, im.b.reshape(scale, {}, im.aux("y_scale")), Layout::Plain);
  if (im.hasOutput(n, 2)) {
    Value* z8 = im.b.op1("tosa.cast", {zpC}, ValueType::tensor(DType::I8, {1, 1}), {}, im.aux("cast"));
    im.setValue(n, 2, im.b.reshape(z8, {}, im.aux("y_zero_point")), Layout::Plain, DType::U8);
  }
  (void)rank;
  return Status::ok();
}

// ---- integer products ----

}  // namespace

// Σ (x - x_zp)(w - w_zp) as a TOSA i8 conv2d (group 1) or depthwise_conv2d with an i32 accumulator (2-D). Inputs: x (run-time
// uint8/int8), the constant weight [M, C, KH, KW], zero points, and an optional i32 bias.
Result<Value*> integerConv(Importer& im, const NodeProto& n, OVal& x, const Tensor& w, int64_t xZp, int64_t wZp,
                           const Tensor* bias, const std::string& locName) {
  if (x.shape.size() != 4) return Status::unsupported("only 2-D quantized convolution is supported");
  if (!isQuantType(x.dtype) || !isQuantType(w.dtype())) return Status::unsupported("conv operand types must be 8-bit");
  const Shape& ws = w.shape();
  const int64_t group = im.attrInt(n, "group", 1), C = x.shape[1];
  const bool depthwise = group > 1 && group == C && ws.size() == 4 && ws[1] == 1 && ws[0] % C == 0;
  if (group != 1 && !depthwise) return Status::unsupported("grouped quantized convolution (other than depthwise)");
  if (ws.size() != 4 || ws[1] * group != C) return Status::invalid("weight shape does not match the input channels");
  std::vector<int64_t> strides = im.attrInts(n, "strides").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> dil = im.attrInts(n, "dilations").value_or(std::vector<int64_t>{1, 1});
  std::vector<int64_t> pads = im.attrInts(n, "pads").value_or(std::vector<int64_t>{0, 0, 0, 0});
  TK_RETURN_IF_ERROR(checkSpatial(strides, 2, 1, "strides"));
  TK_RETURN_IF_ERROR(checkSpatial(dil, 2, 1, "dilations"));
  TK_RETURN_IF_ERROR(checkSpatial(pads, 4, 0, "pads"));
  const int64_t in[2] = {x.shape[2], x.shape[3]}, k[2] = {ws[2], ws[3]};
  TK_RETURN_IF_ERROR(autoPads(im.attrStr(n, "auto_pad", "NOTSET"), {in[0], in[1]}, {k[0], k[1]}, strides, dil, pads));
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  Value* xs = toSignedI8(im, *xv, x.dtype);
  int64_t pt = pads[0], pl = pads[1], pb = pads[2], pr = pads[3];
  const int64_t cutH = trimPadding(in[0], k[0], strides[0], dil[0], pt, pb);
  const int64_t cutW = trimPadding(in[1], k[1], strides[1], dil[1], pl, pr);
  if (cutH || cutW) {
    const Shape& s = xs->type.dims;
    auto sl = im.sliceNhwc(xs, {0, 0, 0, 0}, {s[0], s[1] - cutH, s[2] - cutW, s[3]});
    if (!sl) return sl.status();
    xs = *sl;
  }
  ir::Conv2dAttrs ca;
  ca.pad = {pt, pb, pl, pr};
  ca.stride = strides;
  ca.dilation = dil;
  ca.accType = DType::I32;
  ca.inputZp = xZp - (x.dtype == DType::U8 ? 128 : 0);
  ca.weightZp = wZp - (w.dtype() == DType::U8 ? 128 : 0);
  Value* bv = im.b.constant(bias ? *bias : Tensor(DType::I32, {ws[0]}), im.aux("bias"));
  if (!depthwise) {
    Value* wv = im.b.constant(permuteTensor(toSignedI8(w), {0, 2, 3, 1}), im.aux("weight"));  // OIHW -> OHWI
    return im.b.conv2d(xs, wv, bv, ca, locName);
  }
  // Depthwise: output channel c*mult + m reads input channel c; TOSA's weight is [KH, KW, C, mult].
  const int64_t mult = ws[0] / C;
  Tensor hwcm = permuteTensor(reshapeTensor(toSignedI8(w), {C, mult, ws[2], ws[3]}), {2, 3, 0, 1});
  Value* wv = im.b.constant(std::move(hwcm), im.aux("weight"));
  const Shape& s = xs->type.dims;
  const int64_t oh = (s[1] - 1 + pt + pb - (k[0] - 1) * dil[0]) / strides[0] + 1;
  const int64_t ow = (s[2] - 1 + pl + pr - (k[1] - 1) * dil[1]) / strides[1] + 1;
  Value* izp = im.b.scalar1(DType::I8, double(ca.inputZp), im.aux("input_zp"));
  Value* wzp = im.b.scalar1(DType::I8, double(ca.weightZp), im.aux("weight_zp"));
  return im.b.op1("tosa.depthwise_conv2d", {xs, wv, bv, izp, wzp}, ValueType::tensor(DType::I32, {s[0], oh, ow, ws[0]}),
                  {{"pad", ir::Attribute::intArray(ca.pad)},
                   {"stride", ir::Attribute::intArray(strides)},
                   {"dilation", ir::Attribute::intArray(dil)},
                   {"acc_type", ir::Attribute::type(DType::I32)}},
                  locName);
}

// The single zero point of a weight (TOSA's weight_zp is per tensor).
Result<int64_t> perTensorZp(const std::vector<int64_t>& zps, const char* what) {
  if (!allEqual(zps))
    return Status::unsupported(std::string("per-channel ") + what + " (TOSA's zero points are per tensor)");
  return zps[0];
}

namespace {

// Float conv of (x - x_zp) by (w - w_zp) (+ bias): the exact integer accumulator as fp32, NHWC. Inputs: x, w and
// their zero points at indices xi, xzpi, wi, wzpi; bias at bi (< 0: none).
Result<Value*> floatIntegerConv(Importer& im, const NodeProto& n, int xi, int xzpi, int wi, int wzpi, int bi) {
  OVal &x = im.val(n, xi), &w = im.val(n, wi);
  if (x.shape.size() != 4) return Status::unsupported("only 2-D quantized convolution is supported");
  if (!isQuantType(x.dtype) || !isQuantType(w.dtype)) return Status::unsupported("conv operand types must be 8-bit");
  auto xc = centeredFloat(im, n, x, xzpi, 1);
  if (!xc) return xc.status();
  auto wc = centeredFloat(im, n, w, wzpi, 0);  // w_zero_point: one, or one per output channel
  if (!wc) return wc.status();
  Value* bias = nullptr;
  if (bi >= 0 && im.hasInput(n, bi)) {
    OVal& b = im.val(n, bi);
    auto bv = im.get(b, Layout::Plain);
    if (!bv) return bv.status();
    bias = toFloatExact(im, *bv, b.dtype);
  }
  Value* xNhwc = im.b.transpose(*xc, {0, 2, 3, 1}, im.aux("to_nhwc"));
  return floatConv2dNhwc(im, n, xNhwc, x.shape, *wc, bias);
}

Status opConvInteger(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (anyRunTime(im, n, {1, 2, 3})) {
    auto acc = floatIntegerConv(im, n, 0, 2, 1, 3, -1);
    if (!acc) return acc.status();
    im.setValue(n, 0, im.castTo(*acc, DType::I32), Layout::Nhwc);
    return Status::ok();
  }
  auto w = im.constInput(n, 1, "weight");
  if (!w) return w.status();
  auto xZp = zeroPoints(im, n, 2, x.dtype);
  if (!xZp) return xZp.status();
  auto wZp = zeroPoints(im, n, 3, (*w)->dtype());
  if (!wZp) return wZp.status();
  auto xz = perTensorZp(xZp->first, "input zero point");
  if (!xz) return xz.status();
  auto wz = perTensorZp(wZp->first, "weight zero point");
  if (!wz) return wz.status();
  auto y = integerConv(im, n, x, **w, *xz, *wz, nullptr, im.loc);
  if (!y) return y.status();
  im.setValue(n, 0, *y, Layout::Nhwc);
  return Status::ok();
}

// QLinearConv with any run-time parameter: y = saturate(round(acc * (x_scale * w_scale[c] / y_scale)) + y_zp).
Status qlinearConvRunTime(Importer& im, const NodeProto& n) {
  auto acc = floatIntegerConv(im, n, 0, 2, 3, 5, 8);
  if (!acc) return acc.status();
  DType outType = im.hasInput(n, 7) ? im.val(n, 7).dtype : im.val(n, 0).dtype;
  if (!isQuantType(outType)) return Status::unsupported("QLinearConv output type");
  // NHWC: per-channel parameters along the last axis.
  auto xs = paramAsFloat(im, n, 1, 4, 3, 1);
  auto ws = paramAsFloat(im, n, 4, 4, 3, 1);
  auto ys = paramAsFloat(im, n, 6, 4, 3, 1);
  auto yz = paramAsFloat(im, n, 7, 4, 3, 0);
  for (auto* r : {&xs, &ws, &ys, &yz})
    if (!*r) return r->status();
  Value* scale = im.divideF32(im.mul(*xs, *ws), *ys);
  Value* y = quantizeFloat(im, im.mul(*acc, scale), *yz, outType);
  im.setValue(n, 0, y, Layout::Nhwc, outType);
  return Status::ok();
}

Status opQLinearConv(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  if (anyRunTime(im, n, {1, 2, 3, 4, 5, 6, 7, 8})) return qlinearConvRunTime(im, n);
  auto xScale = constFloats(im, n, 1, "x_scale");
  if (!xScale) return xScale.status();
  auto xZp = zeroPoints(im, n, 2, x.dtype);
  if (!xZp) return xZp.status();
  auto w = im.constInput(n, 3, "weight");
  if (!w) return w.status();
  auto wScale = constFloats(im, n, 4, "w_scale");
  if (!wScale) return wScale.status();
  auto wZp = zeroPoints(im, n, 5, (*w)->dtype());
  if (!wZp) return wZp.status();
  auto yScale = constFloats(im, n, 6, "y_scale");
  if (!yScale) return yScale.status();
  auto yZp = zeroPoints(im, n, 7, x.dtype);
  if (!yZp) return yZp.status();
  const Tensor* bias = nullptr;
  if (im.hasInput(n, 8)) {
    auto b = im.constInput(n, 8, "bias");
    if (!b) return b.status();
    if ((*b)->dtype() != DType::I32) return Status::invalid("QLinearConv bias must be int32");
    bias = *b;
  }
  auto xz = perTensorZp(xZp->first, "input zero point");
  if (!xz) return xz.status();
  auto wz = perTensorZp(wZp->first, "weight zero point");
  if (!wz) return wz.status();
  if (!isQuantType(yZp->second)) return Status::unsupported("QLinearConv output type");
  auto acc = integerConv(im, n, x, **w, *xz, *wz, bias, im.aux("conv"));
  if (!acc) return acc.status();
  // Output channel c: x_scale * w_scale[c] / y_scale (per channel = the last NHWC dim).
  std::vector<double> scales;
  for (double ws : *wScale) scales.push_back((*xScale)[0] * ws / (*yScale)[0]);
  auto y = requantize(im, *acc, scales, yZp->first[0], yZp->second);
  if (!y) return y.status();
  im.setValue(n, 0, *y, Layout::Nhwc, yZp->second);
  return Status::ok();
}

}  // namespace

// Σ_k (a - a_zp)(b - b_zp) on tosa.matmul (i8 x i8 -> i32): same-batch or 2-D B forms of numpy matmul.
Result<Value*> integerMatmul(Importer& im, OVal& a, OVal& bm, int64_t aZp, int64_t bZp, Shape& outShape) {
  if (!isQuantType(a.dtype) || !isQuantType(bm.dtype)) return Status::unsupported("matmul operand types must be 8-bit");
  const Shape as = a.shape, bs = bm.shape;
  if (as.size() < 2 || bs.size() < 2) return Status::unsupported("integer MatMul of 1-D operands");
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) return Status::invalid("MatMul inner dimensions differ");
  const Shape aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  const int64_t na = numElements(aBatch), nb = numElements(bBatch);
  auto av = im.get(a, Layout::Plain);
  if (!av) return av.status();
  auto bv = im.get(bm, Layout::Plain);
  if (!bv) return bv.status();
  Value* A = toSignedI8(im, *av, a.dtype);
  Value* B = toSignedI8(im, *bv, bm.dtype);
  if (nb == 1) {
    A = im.b.reshape(A, {1, na * M, K}, im.aux("reshapeA"));
    B = im.b.reshape(B, {1, K, N}, im.aux("reshapeB"));
  } else if (aBatch == bBatch) {
    A = im.b.reshape(A, {na, M, K}, im.aux("reshapeA"));
    B = im.b.reshape(B, {nb, K, N}, im.aux("reshapeB"));
  } else {
    return Status::unsupported("integer MatMul with broadcast batch dimensions");
  }
  Value* azp = im.b.scalar1(DType::I8, double(aZp - (a.dtype == DType::U8 ? 128 : 0)), im.aux("a_zp"));
  Value* bzp = im.b.scalar1(DType::I8, double(bZp - (bm.dtype == DType::U8 ? 128 : 0)), im.aux("b_zp"));
  const Shape& s = A->type.dims;
  Value* y =
      im.b.op1("tosa.matmul", {A, B, azp, bzp}, ValueType::tensor(DType::I32, {s[0], s[1], N}), {}, im.aux("matmul"));
  outShape = aBatch;
  outShape.push_back(M);
  outShape.push_back(N);
  return y;
}

namespace {

// Float matmul of (a - a_zp) by (b - b_zp): the exact integer accumulator as fp32 in the ONNX output shape.
// a_zp: one value (or one per row of a); b_zp: one value or one per column of b.
Result<Value*> floatIntegerMatmul(Importer& im, const NodeProto& n, int ai, int azpi, int bi, int bzpi) {
  OVal &a = im.val(n, ai), &bm = im.val(n, bi);
  if (!isQuantType(a.dtype) || !isQuantType(bm.dtype)) return Status::unsupported("matmul operand types must be 8-bit");
  const Shape as = a.shape, bs = bm.shape;
  if (as.size() < 2 || bs.size() < 2) return Status::unsupported("integer MatMul of 1-D operands");
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) return Status::invalid("MatMul inner dimensions differ");
  const Shape aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  const int64_t na = numElements(aBatch), nb = numElements(bBatch);
  auto A = centeredFloat(im, n, a, azpi, int64_t(as.size()) - 2);
  if (!A) return A.status();
  auto B = centeredFloat(im, n, bm, bzpi, int64_t(bs.size()) - 1);
  if (!B) return B.status();
  Value *A3 = nullptr, *B3 = nullptr;
  if (nb == 1) {
    A3 = im.b.reshape(*A, {1, na * M, K}, im.aux("reshapeA"));
    B3 = im.b.reshape(*B, {1, K, N}, im.aux("reshapeB"));
  } else if (aBatch == bBatch) {
    A3 = im.b.reshape(*A, {na, M, K}, im.aux("reshapeA"));
    B3 = im.b.reshape(*B, {nb, K, N}, im.aux("reshapeB"));
  } else {
    return Status::unsupported("integer MatMul with broadcast batch dimensions");
  }
  Shape out = aBatch;
  out.push_back(M);
  out.push_back(N);
  return im.b.reshape(im.matmul3(A3, B3), out, im.aux("reshape"));
}

Status opMatMulInteger(Importer& im, const NodeProto& n) {
  OVal &a = im.val(n, 0), &bm = im.val(n, 1);
  if (anyRunTime(im, n, {2, 3})) {
    auto acc = floatIntegerMatmul(im, n, 0, 2, 1, 3);
    if (!acc) return acc.status();
    im.setValue(n, 0, im.castTo(*acc, DType::I32), Layout::Plain);
    return Status::ok();
  }
  auto aZp = zeroPoints(im, n, 2, a.dtype);
  if (!aZp) return aZp.status();
  auto bZp = zeroPoints(im, n, 3, bm.dtype);
  if (!bZp) return bZp.status();
  auto az = perTensorZp(aZp->first, "A zero point");
  if (!az) return az.status();
  auto bz = perTensorZp(bZp->first, "B zero point");
  if (!bz) return bz.status();
  Shape out;
  auto y = integerMatmul(im, a, bm, *az, *bz, out);
  if (!y) return y.status();
  im.setValue(n, 0, im.b.reshape(*y, out, im.loc), Layout::Plain);
  return Status::ok();
}

// QLinearMatMul with any run-time scale or zero point: saturate(round(acc * (a_scale * b_scale / y_scale)) + y_zp).
Status qlinearMatMulRunTime(Importer& im, const NodeProto& n) {
  auto acc = floatIntegerMatmul(im, n, 0, 2, 3, 5);
  if (!acc) return acc.status();
  const size_t rank = (*acc)->type.dims.size();
  const int64_t last = int64_t(rank) - 1;
  DType outType = im.hasInput(n, 7) ? im.val(n, 7).dtype : im.val(n, 0).dtype;
  if (!isQuantType(outType)) return Status::unsupported("QLinearMatMul output type");
  auto as = paramAsFloat(im, n, 1, rank, last - 1, 1);
  auto bs = paramAsFloat(im, n, 4, rank, last, 1);
  auto ys = paramAsFloat(im, n, 6, rank, last, 1);
  auto yz = paramAsFloat(im, n, 7, rank, last, 0);
  for (auto* r : {&as, &bs, &ys, &yz})
    if (!*r) return r->status();
  Value* scale = im.divideF32(im.mul(*as, *bs), *ys);
  im.setValue(n, 0, quantizeFloat(im, im.mul(*acc, scale), *yz, outType), Layout::Plain, outType);
  return Status::ok();
}

Status opQLinearMatMul(Importer& im, const NodeProto& n) {
  OVal &a = im.val(n, 0), &bm = im.val(n, 3);
  if (anyRunTime(im, n, {1, 2, 4, 5, 6, 7})) return qlinearMatMulRunTime(im, n);
  auto aScale = constFloats(im, n, 1, "a_scale");
  if (!aScale) return aScale.status();
  auto aZp = zeroPoints(im, n, 2, a.dtype);
  if (!aZp) return aZp.status();
  auto bScale = constFloats(im, n, 4, "b_scale");
  if (!bScale) return bScale.status();
  auto bZp = zeroPoints(im, n, 5, bm.dtype);
  if (!bZp) return bZp.status();
  auto yScale = constFloats(im, n, 6, "y_scale");
  if (!yScale) return yScale.status();
  auto yZp = zeroPoints(im, n, 7, a.dtype);
  if (!yZp) return yZp.status();
  auto az = perTensorZp(aZp->first, "a zero point");
  if (!az) return az.status();
  auto bz = perTensorZp(bZp->first, "b zero point");
  if (!bz) return bz.status();
  if (aScale->size() != 1) return Status::unsupported("per-row a_scale");
  if (!isQuantType(yZp->second)) return Status::unsupported("QLinearMatMul output type");
  Shape out;
  auto acc = integerMatmul(im, a, bm, *az, *bz, out);
  if (!acc) return acc.status();
  // Per-column b_scale maps to RESCALE's per-channel multipliers over the last dim (N).
  std::vector<double> scales;
  for (double bs : *bScale) scales.push_back((*aScale)[0] * bs / (*yScale)[0]);
  auto y = requantize(im, *acc, scales, yZp->first[0], yZp->second);
  if (!y) return y.status();
  im.setValue(n, 0, im.b.reshape(*y, out, im.aux("reshape")), Layout::Plain, yZp->second);
  return Status::ok();
}

}  // namespace

void registerQuantOps(HandlerTable& t) {
  t["QuantizeLinear"] = opQuantizeLinear;
  t["DequantizeLinear"] = opDequantizeLinear;
  t["DynamicQuantizeLinear"] = opDynamicQuantizeLinear;
  t["ConvInteger"] = opConvInteger;
  t["QLinearConv"] = opQLinearConv;
  t["MatMulInteger"] = opMatMulInteger;
  t["QLinearMatMul"] = opQLinearMatMul;
}

}  // namespace tosakit::onnx
