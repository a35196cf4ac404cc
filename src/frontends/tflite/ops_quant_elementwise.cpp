// Pre-quantized elementwise operators whose TFLite 2.9 kernel is a function of one input value: ABS, RELU, RELU6,
// RELU_N1_TO_1 (int8 and int16), GELU and RSQRT (int8). The import evaluates TFLite's own arithmetic on every input
// value (256 for int8: tosa.table; 65536 for int16: a gathered table), so the graph equals the kernel by
// construction.
#include <cmath>
#include <limits>

#include "frontends/tflite/tflite_fixedpoint.h"
#include "frontends/tflite/tflite_internal.h"
#include "frontends/tflite/tflite_quant.h"

namespace tosakit::tflite {
namespace {

// Input 0 and output 0 of an int8 or int16 (zero points 0) elementwise operator, the same type in and out.
Result<std::pair<QParams, QParams>> elementwiseParams(Importer& im) {
  const DType t = im.in(0).dtype;
  if (t == DType::I16) return int16UnaryParams(im);
  if (t != DType::I8 || im.out(0).dtype != DType::I8)
    return Status::unsupported("quantized elementwise operator other than int8 -> int8 or int16 -> int16");
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  return std::pair{*x, *y};
}

// f maps a raw input value to TFLite's raw output (before saturation to the type's range).
Status elementwiseTable(Importer& im, const QParams& y, const std::function<int32_t(int32_t)>& f) {
  if (im.in(0).dtype == DType::I16)
    return int16GatherTable(im, y, [&](int16_t v) { return int16_t(std::clamp<int32_t>(f(v), -32768, 32767)); });
  return tableOut(im, y, f);
}

struct Requant {
  int32_t multiplier = 0;
  int shift = 0;
};

// TFLite's QuantizeMultiplier of the float quotient input_scale / output_scale (widened to double).
Requant scaleRatio(const QParams& x, const QParams& y) {
  int64_t q = 0, shift = 0;
  fixedpoint::quantizeMultiplier(double(float(x.scale) / float(y.scale)), q, shift);
  return {int32_t(q), int(shift)};
}

bool shiftInRange(const Requant& r) { return r.shift >= -31 && r.shift <= 30; }

// ABS (elementwise.cc AbsEvalQuantized): |x - zx|, requantized unless the float scales are equal, plus zy.
Status qAbs(Importer& im) {
  auto q = elementwiseParams(im);
  if (!q) return q.status();
  const QParams& x = q->first;  // named, not a structured binding: lambdas below capture them (clang 14)
  const QParams& y = q->second;
  const bool rescale = float(x.scale) != float(y.scale);
  const Requant r = scaleRatio(x, y);
  if (rescale && !shiftInRange(r)) return Status::unsupported("ABS scale ratio out of TFLite's range");
  return elementwiseTable(im, y, [&](int32_t v) {
    const int32_t a = std::abs(v - int32_t(x.zp));
    return int32_t(y.zp) + (rescale ? fixedpoint::multiplyByQuantizedMultiplier(a, r.multiplier, r.shift) : a);
  });
}

// RELU / RELU6 / RELU_N1_TO_1 (activations.cc QuantizedReluX): zy + MBQM(x - zx, sx / sy), clamped to
// [max(min, zy + roundf(lo / sy)), min(max, zy + roundf(hi / sy))] (an infinite hi: the type's max).
Status qReluX(Importer& im, float lo, float hi) {
  auto q = elementwiseParams(im);
  if (!q) return q.status();
  const QParams& x = q->first;
  const QParams& y = q->second;
  const Requant r = scaleRatio(x, y);
  if (!shiftInRange(r)) return Status::unsupported("RELU scale ratio out of TFLite's range");
  const bool wide = im.in(0).dtype == DType::I16;
  const int32_t tmin = wide ? -32768 : -128, tmax = wide ? 32767 : 127;
  const float sy = float(y.scale);
  auto level = [&](float f) {
    return std::clamp<double>(double(y.zp) + double(std::round(f / sy)), double(tmin) - 1, double(tmax) + 1);
  };
  const int32_t qlo = std::max<int32_t>(tmin, int32_t(level(lo)));
  const int32_t qhi = std::isinf(hi) ? tmax : std::min<int32_t>(tmax, int32_t(level(hi)));
  return elementwiseTable(im, y, [&](int32_t v) {
    const int32_t out =
        int32_t(y.zp) + fixedpoint::multiplyByQuantizedMultiplier(v - int32_t(x.zp), r.multiplier, r.shift);
    return std::clamp(out, qlo, qhi);
  });
}

// TFLite 2.9's reference_ops::GeluTransform / GeluTransformApproximate (the erf form multiplies by the double
// constant 1/sqrt(2), so erf runs in double).
float geluF(float v) { return float(0.5f * v * (1.f + std::erf(v * M_SQRT1_2))); }
float geluApproximateF(float v) {
  constexpr float kSqrt2dPi = float(M_2_SQRTPI * M_SQRT1_2);
  return 0.5f * v * (1.f + std::tanh(kSqrt2dPi * (v + 0.044715f * v * v * v)));
}

// GELU int8 (gelu.cc PopulateLookupTable): dequantized in float, transformed, rounded half away from zero, zy
// added in float.
Status qGelu(Importer& im) {
  if (im.in(0).dtype != DType::I8) return Status::unsupported("quantized GELU other than int8 (TFLite refuses it)");
  auto q = elementwiseParams(im);
  if (!q) return q.status();
  const QParams& x = q->first;
  const QParams& y = q->second;
  const auto* o = im.options<fb::GeluOptions>();
  float (*transform)(float) = o && o->approximate() ? geluApproximateF : geluF;
  const float inScale = float(x.scale), inverse = 1.0f / float(y.scale);
  return elementwiseTable(im, y, [&](int32_t v) {
    const float rescaled = std::round(transform(inScale * float(v - int32_t(x.zp))) * inverse);
    return int32_t(std::clamp(rescaled + float(y.zp), -129.0f, 128.0f));
  });
}

// gemmlowp's SaturatingRoundingMultiplyByPOT<e> on a raw int32: a saturating left shift for e > 0.
int32_t saturatingShiftLeft(int32_t x, int e) {
  const int32_t threshold = int32_t((int64_t(1) << (31 - e)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return int32_t(uint32_t(x) << e);
}

// TFLite's GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1): 1 / sqrt(input) as a Q31 multiplier and a
// (left) shift, by five Newton-Raphson steps in gemmlowp's 3-integer-bit fixed point.
void invSqrtMultiplier(int32_t input, int32_t& multiplier, int& shift) {
  if (input <= 1) {
    multiplier = std::numeric_limits<int32_t>::max();
    shift = 0;
    return;
  }
  shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const int pairs = (__builtin_clz(uint32_t(input)) - 1) / 2 - 1;
  shift -= pairs;
  input <<= 2 * pairs;
  using fixedpoint::roundingDoublingHighMul;
  const int32_t in3 = input >> 1;                                  // F3
  const int32_t halfIn = fixedpoint::roundingDivideByPOT(in3, 1);  // F3
  const int32_t halfThree = (1 << 28) + (1 << 27);                 // F3 1.5
  int32_t x = 1 << 28;                                             // F3 1.0
  for (int i = 0; i < 5; ++i) {
    const int32_t x3 = saturatingShiftLeft(roundingDoublingHighMul(roundingDoublingHighMul(x, x), x), 6);  // F9 -> F3
    const int32_t d = int32_t(uint32_t(roundingDoublingHighMul(halfThree, x)) -
                              uint32_t(roundingDoublingHighMul(halfIn, x3)));  // F6, wrapping as gemmlowp's raw sub
    x = saturatingShiftLeft(d, 3);                                             // F6 -> F3
  }
  multiplier = roundingDoublingHighMul(x, 1518500250);  // times sqrt(2)/2 in F0
  if (shift < 0) {
    multiplier = int32_t(uint32_t(multiplier) << -shift);
    shift = 0;
  }
  shift = -shift;
}

// RSQRT int8 (elementwise.cc RsqrtEvalQuantized): x - zx == 0 gives 127; otherwise the inverse square root as a
// multiplier applied to 1 at 20 extra bits, then MBQM by 1 / (sqrt(sx) sy) (shift - 20), plus zy. TFLite fails
// the invocation on inputs below the zero point; the table holds 127 there (no TOSA graph can fail at run time).
Status qRsqrt(Importer& im) {
  if (im.in(0).dtype != DType::I8) return Status::unsupported("quantized RSQRT other than int8 (TFLite refuses it)");
  auto q = elementwiseParams(im);
  if (!q) return q.status();
  const QParams& x = q->first;
  const QParams& y = q->second;
  int64_t m = 0, e = 0;
  fixedpoint::quantizeMultiplier(1.0 / double(std::sqrt(float(x.scale)) * float(y.scale)), m, e);
  constexpr int kShift = 20;
  return elementwiseTable(im, y, [&](int32_t v) {
    const int32_t value = v - int32_t(x.zp);
    if (value <= 0) return int32_t(127);
    int32_t inv = 0;
    int invShift = 0;
    invSqrtMultiplier(value, inv, invShift);
    const int32_t data = fixedpoint::multiplyByQuantizedMultiplier(1, inv, invShift + kShift);
    return fixedpoint::multiplyByQuantizedMultiplier(data, int32_t(m), int(e) - kShift) + int32_t(y.zp);
  });
}

}  // namespace

void registerQuantElementwiseOps(HandlerTable& t) {
  using Op = fb::BuiltinOperator;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  t.quantized[int(Op::ABS)] = qAbs;
  t.quantized[int(Op::RELU)] = [](Importer& im) { return qReluX(im, 0.0f, kInf); };
  t.quantized[int(Op::RELU6)] = [](Importer& im) { return qReluX(im, 0.0f, 6.0f); };
  t.quantized[int(Op::RELU_N1_TO_1)] = [](Importer& im) {
    if (im.in(0).dtype != DType::I8) return Status::unsupported("int16 RELU_N1_TO_1 (TFLite refuses it)");
    return qReluX(im, -1.0f, 1.0f);
  };
  t.quantized[int(Op::GELU)] = qGelu;
  t.quantized[int(Op::RSQRT)] = qRsqrt;
}

}  // namespace tosakit::tflite
