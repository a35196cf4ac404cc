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

// TFLite's CheckedLog2: whether x is a power of two to within 1e-3 in log2 (float arithmetic, as TFLite).
inline bool checkedLog2(float x, int& log2) {
  const float l = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(l);
  log2 = int(rounded);
  return std::abs(l - rounded) < 1e-3f;
}

// TFLite 2.9's uint16 sigmoid table for its int16 LOGISTIC and TANH: about 65536 sigmoid(i / 24), but not plain
// rounding of it, so the values are read out of TFLite itself (tools/tflite/probe_sigmoid_table.py prints them
// and checks the emulation below against TFLite on all 65536 inputs).
inline constexpr uint16_t kSigmoidTable[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794, 41432, 42064, 42688,
    43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409,
    51865, 52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433,
    57724, 58007, 58280, 58544, 58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110,
    61279, 61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990, 63090, 63186,
    63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308,
    64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900,
    64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208,
    65221, 65234, 65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360, 65367,
    65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433, 65438, 65442, 65445, 65449,
    65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513,
    65514, 65515, 65516, 65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529, 65529, 65530, 65530,
    65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533,
    65533, 65533, 65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535};

// The int16 kernels' input rescaling (general scales): multiplier scale * 3 * 4096 doubled until above
// 32767 / 2, truncated; the shift counts the doublings.
inline void sigmoidInputMultiplier(float scale, int32_t& multiplier, int& shift) {
  double m = double(scale) * 4096.0 * 3.0;
  shift = 0;
  while (m <= 32767.0 / 2.0 && shift <= 30) {
    ++shift;
    m *= 2.0;
  }
  multiplier = int32_t(m);
}

// reference_integer_ops::Logistic (tanh false) or Tanh on one int16 value: the input rescaled to 1/(3 * 4096)
// (x 2 for tanh: tanh(x) = 2 sigmoid(2x) - 1), the table interpolated on its absolute value with 9 (tanh: 8)
// fractional bits, the symmetry applied, rounded back to Q15.
inline int16_t sigmoidOrTanh16(int16_t q, int32_t multiplier, int shift, bool tanh) {
  const int32_t round = shift > 0 ? int32_t(1) << (shift - 1) : 0;
  const int32_t d = (int32_t(q) * multiplier + round) >> shift;
  const uint32_t a = uint32_t(d < 0 ? -int64_t(d) : d);
  const int fracBits = tanh ? 8 : 9;
  const uint32_t uh = a >> fracBits;
  if (!tanh) {
    uint32_t r = 0x7FFFu << 10;
    if (uh < 255) r = (uint32_t(kSigmoidTable[uh]) << 9) + (a & 0x1FF) * (kSigmoidTable[uh + 1] - kSigmoidTable[uh]);
    r = d >= 0 ? r + (1u << 9) : (1u << 25) - r + (1u << 9) - 1;
    return int16_t(r >> 10);
  }
  int32_t r = int32_t(0xFFFF) << 8;
  if (uh < 255)
    r = (int32_t(kSigmoidTable[uh]) << 8) + int32_t(a & 0xFF) * (int32_t(kSigmoidTable[uh + 1]) - kSigmoidTable[uh]);
  r = d >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
  return int16_t(r >> 8);
}

// TFLite's gen_lut: a 513-entry Q15 table of f over [lo, hi] whose entries are biased by half the interpolation
// error at each interval's midpoint (std::round is half away from zero, as TFLite's), the last entry f(hi).
inline void genLut(double (*f)(double), double lo, double hi, int16_t (&table)[513]) {
  const double step = (hi - lo) / 512.0, half = step / 2.0;
  auto q15 = [](double v) { return std::round(v * 32768.0); };
  for (int i = 0; i < 512; ++i) {
    const double sample = q15(f(lo + i * step));
    const double interpolated = std::round((f(lo + (i + 1) * step) * 32768.0 + sample) / 2.0);
    const double bias = std::round((interpolated - q15(f(lo + i * step + half))) / 2.0);
    table[i] = int16_t(std::clamp(sample - bias, -32768.0, 32767.0));
  }
  table[512] = int16_t(std::clamp(q15(f(hi)), -32768.0, 32767.0));
}

// TFLite's generic_int16_table_lookup: entry 256 + (v >> 7) and the next, interpolated on the 7 low bits with
// rounding half up, the sum wrapped to int16 as TFLite's cast does.
inline int16_t int16TableLookup(int16_t v, const int16_t (&table)[513]) {
  const int index = 256 + (v >> 7), offset = v & 0x7F;
  const int32_t slope = int32_t(table[index + 1]) - table[index];
  return int16_t(uint16_t(int32_t(table[index]) + ((slope * offset + 64) >> 7)));
}

}  // namespace tosakit::tflite::fixedpoint
