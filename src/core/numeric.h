// Floating-point number formats narrower than fp64, as bit patterns (spec 1.11 "Number formats", 4.5.4).
// Conversions into a format round to nearest, ties to even, keep subnormals and signed zero. Values outside
// the range become infinity of the right sign, or NaN for fp8e4m3, which has no infinity (OCP FP8 "fn",
// non-saturating mode).
#pragma once
#include <cstdint>

#include "core/dtype.h"

namespace tosakit {

struct FloatFormatDesc {
  int exponentBits;
  int mantissaBits;  // stored fraction bits
  int bias;
  bool hasInfinity;   // false: fp8e4m3 (exponent all-ones is finite except S.1111.111 = NaN)
  uint32_t quietNaN;  // canonical NaN produced by conversions
};

// Describes fp8e4m3, fp8e5m2, fp16, bf16, fp32. Only valid for those types.
const FloatFormatDesc& floatFormat(DType t);

// Decode the bit pattern of a value of floating-point type t (fp8e4m3 ... fp32) exactly into a double.
double decodeFloatBits(DType t, uint32_t bits);
// Round v to the nearest value of type t (ties to even) and return its bit pattern.
uint32_t encodeFloatBits(DType t, double v);
// Round v to the nearest value representable in t and return that value as a double (fp64: unchanged).
double roundToFloat(DType t, double v);

inline double fp16ToDouble(uint16_t b) { return decodeFloatBits(DType::FP16, b); }
inline uint16_t doubleToFp16(double v) { return uint16_t(encodeFloatBits(DType::FP16, v)); }
inline double bf16ToDouble(uint16_t b) { return decodeFloatBits(DType::BF16, b); }
inline uint16_t doubleToBf16(double v) { return uint16_t(encodeFloatBits(DType::BF16, v)); }

// Integer helpers: reinterpret the low `bits` bits of v as a signed / unsigned value.
int64_t signExtend(int64_t v, int bits);
int64_t zeroExtend(int64_t v, int bits);

}  // namespace tosakit
