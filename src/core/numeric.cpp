#include "core/numeric.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tosakit {

namespace {
constexpr FloatFormatDesc kFp8e4m3{4, 3, 7, false, 0x7F};
constexpr FloatFormatDesc kFp8e5m2{5, 2, 15, true, 0x7E};
constexpr FloatFormatDesc kFp16{5, 10, 15, true, 0x7E00};
constexpr FloatFormatDesc kBf16{8, 7, 127, true, 0x7FC0};
constexpr FloatFormatDesc kFp32{8, 23, 127, true, 0x7FC00000};

double maxFinite(const FloatFormatDesc& f) {
  int maxExp = (1 << f.exponentBits) - 1 - f.bias;  // exponent field all ones
  if (f.hasInfinity) {
    // All-ones exponent is inf/NaN; largest finite has exponent field all-ones minus one, full mantissa.
    return std::ldexp(2.0 - std::ldexp(1.0, -f.mantissaBits), maxExp - 1);
  }
  // fp8e4m3: all-ones exponent is finite, but mantissa all-ones there is NaN.
  return std::ldexp(2.0 - std::ldexp(1.0, 1 - f.mantissaBits), maxExp);
}
}  // namespace

const FloatFormatDesc& floatFormat(DType t) {
  switch (t) {
    case DType::FP8E4M3: return kFp8e4m3;
    case DType::FP8E5M2: return kFp8e5m2;
    case DType::FP16: return kFp16;
    case DType::BF16: return kBf16;
    default: return kFp32;
  }
}

double decodeFloatBits(DType t, uint32_t bits) {
  const FloatFormatDesc& f = floatFormat(t);
  int totalBits = 1 + f.exponentBits + f.mantissaBits;
  bool negative = (bits >> (totalBits - 1)) & 1;
  uint32_t expField = (bits >> f.mantissaBits) & ((1u << f.exponentBits) - 1);
  uint32_t mant = bits & ((1u << f.mantissaBits) - 1);
  uint32_t expAllOnes = (1u << f.exponentBits) - 1;
  double value;
  if (expField == expAllOnes && f.hasInfinity) {
    value = mant == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (expField == expAllOnes && mant == (1u << f.mantissaBits) - 1) {
    value = std::numeric_limits<double>::quiet_NaN();  // fp8e4m3 NaN: S.1111.111
  } else if (expField == 0) {
    value = std::ldexp(double(mant), 1 - f.bias - f.mantissaBits);  // zero or subnormal
  } else {
    value = std::ldexp(double(mant | (1u << f.mantissaBits)), int(expField) - f.bias - f.mantissaBits);
  }
  return negative ? -value : value;
}

uint32_t encodeFloatBits(DType t, double v) {
  const FloatFormatDesc& f = floatFormat(t);
  int totalBits = 1 + f.exponentBits + f.mantissaBits;
  uint32_t signBit = std::signbit(v) ? (1u << (totalBits - 1)) : 0u;
  if (std::isnan(v)) return f.quietNaN;
  uint32_t expAllOnes = (1u << f.exponentBits) - 1;
  uint32_t infBits = f.hasInfinity ? (expAllOnes << f.mantissaBits) : f.quietNaN;
  double a = std::fabs(v);
  if (std::isinf(a)) return f.hasInfinity ? (signBit | infBits) : f.quietNaN | signBit;
  if (a == 0.0) return signBit;

  // Quantum (spacing of representable values) at a's binade, or the subnormal spacing below the normal range.
  int minNormalExp = 1 - f.bias;
  int e = std::ilogb(a);
  int quantumExp = (e < minNormalExp ? minNormalExp : e) - f.mantissaBits;
  double q = std::ldexp(a, -quantumExp);  // exact: scaling by a power of two
  double r = std::nearbyint(q);           // default rounding mode: to nearest, ties to even
  double rounded = std::ldexp(r, quantumExp);
  if (rounded > maxFinite(f)) return f.hasInfinity ? (signBit | infBits) : (f.quietNaN | signBit);
  if (rounded == 0.0) return signBit;

  int re = std::ilogb(rounded);
  if (re < minNormalExp) {  // subnormal: exponent field 0
    uint32_t mant = uint32_t(std::ldexp(rounded, f.bias - 1 + f.mantissaBits));
    return signBit | mant;
  }
  uint32_t expField = uint32_t(re + f.bias);
  uint32_t mant = uint32_t(std::ldexp(rounded, f.mantissaBits - re)) & ((1u << f.mantissaBits) - 1);
  return signBit | (expField << f.mantissaBits) | mant;
}

double roundToFloat(DType t, double v) {
  if (t == DType::FP64) return v;
  return decodeFloatBits(t, encodeFloatBits(t, v));
}

int64_t signExtend(int64_t v, int bits) {
  if (bits >= 64) return v;
  uint64_t m = uint64_t(1) << (bits - 1);
  uint64_t x = uint64_t(v) & ((uint64_t(1) << bits) - 1);
  return int64_t((x ^ m) - m);
}

int64_t zeroExtend(int64_t v, int bits) {
  if (bits >= 64) return v;
  return int64_t(uint64_t(v) & ((uint64_t(1) << bits) - 1));
}

}  // namespace tosakit
