// TFLite's integer primitives (gemmlowp's fixed-point helpers and TFLite's quantization utilities), written
// from their documented semantics so that the import can evaluate an int8 operator's arithmetic on all 256 inputs
// and emit the result as a tosa.table: the table then equals TFLite's kernel bit for bit by construction.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tosakit::tflite::fixedpoint {

// QuantizeMultiplier: m = q * 2^(shift - 31) with q in [2^30, 2^31); 0 -> (0, 0); tiny m -> (0, 0).
inline void quantizeMultiplier(double m, int64_t& q, int64_t& shift) {
  q = 0;
  shift = 0;
  if (m == 0) return;
  int exp = 0;
  const double frac = std::frexp(m, &exp);
  int64_t qf = int64_t(std::round(frac * double(int64_t(1) << 31)));
  if (qf == (int64_t(1) << 31)) {
    qf /= 2;
    ++exp;
  }
  if (exp < -31) return;
  q = qf;
  shift = exp;
}

// gemmlowp::SaturatingRoundingDoublingHighMul for int32: round(a b / 2^31), ties away from zero.
inline int32_t roundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = int64_t(a) * int64_t(b);
  const int64_t nudge = ab >= 0 ? (int64_t(1) << 30) : 1 - (int64_t(1) << 30);
  return int32_t((ab + nudge) / (int64_t(1) << 31));  // C++ division truncates toward zero, as gemmlowp's
}

// The int16 variant: round(a b / 2^15).
inline int16_t roundingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t(a) * int32_t(b);
  const int32_t nudge = ab >= 0 ? (1 << 14) : 1 - (1 << 14);
  return int16_t((ab + nudge) / (1 << 15));
}

// TFLite's SaturatingDoublingHighMul (hard_swish.h): the int16 high multiply without the rounding nudge.
inline int16_t doublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return int16_t((int32_t(a) * int32_t(b)) / (1 << 15));
}

// gemmlowp::RoundingDivideByPOT: x / 2^e rounded to nearest, ties away from zero.
inline int32_t roundingDivideByPOT(int32_t x, int e) {
  const int32_t mask = int32_t((int64_t(1) << e) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (remainder > threshold ? 1 : 0);
}

inline int16_t saturatingLeftShift16(int16_t v, int amount) {
  const int64_t r = int64_t(v) * (int64_t(1) << amount);
  return int16_t(std::clamp<int64_t>(r, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()));
}

// MultiplyByQuantizedMultiplier(x, q, shift).
inline int32_t multiplyByQuantizedMultiplier(int32_t x, int32_t q, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return roundingDivideByPOT(roundingDoublingHighMul(int32_t(int64_t(x) * (int64_t(1) << left)), q), right);
}

// DownScaleInt32ToInt16Multiplier: the Q31 multiplier rounded to Q15, saturating.
inline int16_t downScaleMultiplier(int32_t q) {
  constexpr int32_t kRounding = 1 << 15;
  if (q >= std::numeric_limits<int32_t>::max() - kRounding) return std::numeric_limits<int16_t>::max();
  return int16_t((q + kRounding) >> 16);
}

}  // namespace tosakit::tflite::fixedpoint
