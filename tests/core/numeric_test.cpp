// Exhaustive tests of core/numeric over every encoding of fp8e4m3, fp8e5m2, fp16 and bf16, against an
// independent decoder written here from the format definitions (spec 1.11 "Number formats", OCP FP8 for
// e4m3/e5m2, IEEE 754 binary16, bf16 = upper half of fp32), and cross-checks against the compiler's
// _Float16 and float conversions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/numeric.h"

using namespace tosakit;

namespace {

struct Fmt {
  DType t;
  int E, M, bias;
  bool hasInf;
  const char* name;
};

const Fmt kFormats[] = {
    {DType::FP8E4M3, 4, 3, 7, false, "fp8e4m3"},
    {DType::FP8E5M2, 5, 2, 15, true, "fp8e5m2"},
    {DType::FP16, 5, 10, 15, true, "fp16"},
    {DType::BF16, 8, 7, 127, true, "bf16"},
};

int totalBits(const Fmt& f) { return 1 + f.E + f.M; }

// Independent decoder: (-1)^s * 2^(e-bias) * (1 + m/2^M), subnormals (-1)^s * 2^(1-bias) * (m/2^M).
// e4m3 (OCP "fn"): no infinity, only S.1111.111 is NaN. Others: IEEE-like all-ones exponent.
double refDecode(const Fmt& f, uint32_t bits) {
  int s = (bits >> (f.E + f.M)) & 1;
  uint32_t e = (bits >> f.M) & ((1u << f.E) - 1);
  uint32_t m = bits & ((1u << f.M) - 1);
  uint32_t eMax = (1u << f.E) - 1, mMax = (1u << f.M) - 1;
  double sign = s ? -1.0 : 1.0;
  if (f.hasInf && e == eMax) return m == 0 ? sign * INFINITY : NAN;
  if (!f.hasInf && e == eMax && m == mMax) return NAN;
  double frac = double(m) / std::pow(2.0, f.M);
  if (e == 0) return sign * std::pow(2.0, 1 - f.bias) * frac;
  return sign * std::pow(2.0, int(e) - f.bias) * (1.0 + frac);
}

bool mantissaEven(const Fmt& f, uint32_t bits) { return (bits & 1u) == 0; }

}  // namespace

TEST(Numeric, DecodeEveryEncodingMatchesFormula) {
  for (const Fmt& f : kFormats) {
    for (uint32_t b = 0; b < (1u << totalBits(f)); ++b) {
      double want = refDecode(f, b), got = decodeFloatBits(f.t, b);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << f.name << " bits " << b;
      } else {
        EXPECT_EQ(got, want) << f.name << " bits " << b;
        EXPECT_EQ(std::signbit(got), std::signbit(want)) << f.name << " bits " << b;
      }
    }
  }
}

TEST(Numeric, Fp8e4m3SpecialValues) {
  // OCP FP8 E4M3: max normal S.1111.110 = 448, S.1111.111 = NaN, no infinity.
  EXPECT_EQ(decodeFloatBits(DType::FP8E4M3, 0x7E), 448.0);
  EXPECT_EQ(decodeFloatBits(DType::FP8E4M3, 0xFE), -448.0);
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E4M3, 0x7F)));
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E4M3, 0xFF)));
  EXPECT_EQ(decodeFloatBits(DType::FP8E4M3, 0x78), 256.0);                // exponent all-ones is finite: 2^(15-7)
  EXPECT_EQ(decodeFloatBits(DType::FP8E4M3, 0x01), std::ldexp(1.0, -9));  // min subnormal 2^-6 * 1/8
  // E5M2: max 57344 = 1.75 * 2^15, 0x7C = inf, 0x7D..0x7F NaN.
  EXPECT_EQ(decodeFloatBits(DType::FP8E5M2, 0x7B), 57344.0);
  EXPECT_EQ(decodeFloatBits(DType::FP8E5M2, 0x7C), INFINITY);
  EXPECT_EQ(decodeFloatBits(DType::FP8E5M2, 0xFC), -INFINITY);
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E5M2, 0x7D)));
  EXPECT_EQ(decodeFloatBits(DType::FP16, 0x7BFF), 65504.0);
  EXPECT_EQ(decodeFloatBits(DType::FP16, 0x0001), std::ldexp(1.0, -24));
}

#if defined(__FLT16_MAX__)
TEST(Numeric, Fp16MatchesCompilerFloat16) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t bits = uint16_t(b);
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    double want = double(h);
    double got = decodeFloatBits(DType::FP16, b);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << b;
      continue;
    }
    EXPECT_EQ(got, want) << b;
    EXPECT_EQ(std::signbit(got), std::signbit(want)) << b;
  }
  // Encoding random doubles (wide range, incl. overflow and subnormals) agrees with the compiler's
  // double -> _Float16 conversion (IEEE round to nearest even).
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> ex(-30, 18);
  for (int n = 0; n < 200000; ++n) {
    double v = std::ldexp(mant(rng), ex(rng));
    _Float16 h = _Float16(v);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    ASSERT_EQ(encodeFloatBits(DType::FP16, v), want) << v;
    ASSERT_EQ(roundToFloat(DType::FP16, v), double(h)) << v;
  }
}
#endif

TEST(Numeric, Bf16IsUpperHalfOfFp32) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint32_t f32 = b << 16;
    float f;
    std::memcpy(&f, &f32, 4);
    double got = decodeFloatBits(DType::BF16, b);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(got)) << b;
    } else {
      EXPECT_EQ(got, double(f)) << b;
      EXPECT_EQ(std::signbit(got), std::signbit(f)) << b;
    }
  }
}

TEST(Numeric, RoundTripEveryEncoding) {
  for (const Fmt& f : kFormats) {
    for (uint32_t b = 0; b < (1u << totalBits(f)); ++b) {
      double v = decodeFloatBits(f.t, b);
      uint32_t back = encodeFloatBits(f.t, v);
      if (std::isnan(v)) {
        EXPECT_TRUE(std::isnan(decodeFloatBits(f.t, back))) << f.name << " bits " << b;
      } else {
        EXPECT_EQ(back, b) << f.name << " bits " << b;
      }
    }
  }
}

// For every pair of neighbouring non-negative finite values a < b (from 0 through the subnormals up to the
// maximum): the midpoint rounds to the one with an even mantissa (ties to even), values just above/below
// the midpoint round to b/a. The same holds mirrored for negative values.
TEST(Numeric, MidpointsRoundTiesToEven) {
  for (const Fmt& f : kFormats) {
    std::vector<uint32_t> pos;  // encodings of non-negative finite values, ascending
    uint32_t signBit = 1u << (totalBits(f) - 1);
    for (uint32_t b = 0; b < signBit; ++b)
      if (std::isfinite(refDecode(f, b))) pos.push_back(b);
    std::sort(pos.begin(), pos.end(), [&](uint32_t x, uint32_t y) { return refDecode(f, x) < refDecode(f, y); });
    for (size_t i = 0; i + 1 < pos.size(); ++i) {
      uint32_t lo = pos[i], hi = pos[i + 1];
      double a = refDecode(f, lo), b = refDecode(f, hi);
      double mid = (a + b) / 2;  // exact in fp64 for these narrow formats
      uint32_t even = mantissaEven(f, lo) ? lo : hi;
      ASSERT_EQ(encodeFloatBits(f.t, mid), even) << f.name << " mid " << mid;
      ASSERT_EQ(encodeFloatBits(f.t, -mid), even | signBit) << f.name << " mid " << -mid;
      ASSERT_EQ(encodeFloatBits(f.t, std::nextafter(mid, INFINITY)), hi) << f.name << " above " << mid;
      ASSERT_EQ(encodeFloatBits(f.t, std::nextafter(mid, 0.0)), lo) << f.name << " below " << mid;
      ASSERT_EQ(encodeFloatBits(f.t, -std::nextafter(mid, INFINITY)), hi | signBit) << f.name;
      ASSERT_EQ(encodeFloatBits(f.t, -std::nextafter(mid, 0.0)), lo | signBit) << f.name;
      ASSERT_EQ(roundToFloat(f.t, std::nextafter(mid, INFINITY)), b) << f.name;
    }
  }
}

// Overflow (spec round_to_nearest_float: out of range -> infinity of the right sign; with no infinity
// (fp8e4m3) -> NaN). The overflow threshold is max + ulp(max)/2: ties go to even.
TEST(Numeric, Overflow) {
  // fp16: max 65504 (mantissa all ones, odd), ulp 32: 65520 is a tie -> rounds away to inf.
  EXPECT_EQ(encodeFloatBits(DType::FP16, 65520.0), 0x7C00u);
  EXPECT_EQ(encodeFloatBits(DType::FP16, std::nextafter(65520.0, 0.0)), 0x7BFFu);
  EXPECT_EQ(encodeFloatBits(DType::FP16, -65520.0), 0xFC00u);
  EXPECT_EQ(encodeFloatBits(DType::FP16, 1e300), 0x7C00u);
  EXPECT_EQ(encodeFloatBits(DType::FP16, INFINITY), 0x7C00u);
  EXPECT_EQ(encodeFloatBits(DType::FP16, -INFINITY), 0xFC00u);
  // e5m2: max 57344 = 1.11b * 2^15, ulp 8192: tie at 61440 -> inf.
  EXPECT_EQ(encodeFloatBits(DType::FP8E5M2, 61440.0), 0x7Cu);
  EXPECT_EQ(encodeFloatBits(DType::FP8E5M2, std::nextafter(61440.0, 0.0)), 0x7Bu);
  EXPECT_EQ(encodeFloatBits(DType::FP8E5M2, -1e10), 0xFCu);
  // bf16: max = (2 - 2^-7) * 2^127, half ulp 2^119: tie -> inf.
  double bfMax = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
  EXPECT_EQ(encodeFloatBits(DType::BF16, bfMax + std::ldexp(1.0, 119)), 0x7F80u);
  EXPECT_EQ(encodeFloatBits(DType::BF16, std::nextafter(bfMax + std::ldexp(1.0, 119), 0.0)), 0x7F7Fu);
  // e4m3: max 448 = 1.110b * 2^8 (even mantissa), the next step 480 would be the NaN encoding. 464 is the
  // tie and goes to the even 448; anything above 464 is out of range -> NaN (sign kept in the pattern).
  EXPECT_EQ(encodeFloatBits(DType::FP8E4M3, 464.0), 0x7Eu);
  EXPECT_EQ(encodeFloatBits(DType::FP8E4M3, -464.0), 0xFEu);
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E4M3, encodeFloatBits(DType::FP8E4M3, std::nextafter(464.0, 1e9)))));
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E4M3, encodeFloatBits(DType::FP8E4M3, -500.0))));
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E4M3, encodeFloatBits(DType::FP8E4M3, INFINITY))));
  EXPECT_TRUE(std::isnan(decodeFloatBits(DType::FP8E4M3, encodeFloatBits(DType::FP8E4M3, -INFINITY))));
  EXPECT_TRUE(std::isnan(roundToFloat(DType::FP8E4M3, 1e6)));
}

TEST(Numeric, SubnormalsAndSignedZero) {
  for (const Fmt& f : kFormats) {
    uint32_t signBit = 1u << (totalBits(f) - 1);
    double minSub = std::ldexp(1.0, 1 - f.bias - f.M);
    EXPECT_EQ(encodeFloatBits(f.t, minSub), 1u) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, -minSub), signBit | 1u) << f.name;
    // Half the smallest subnormal is a tie between 0 (even) and it: -> +-0.
    EXPECT_EQ(encodeFloatBits(f.t, minSub / 2), 0u) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, -minSub / 2), signBit) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, minSub * 0.75), 1u) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, 1e-300), 0u) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, -1e-300), signBit) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, 0.0), 0u) << f.name;
    EXPECT_EQ(encodeFloatBits(f.t, -0.0), signBit) << f.name;
    double nz = decodeFloatBits(f.t, signBit);
    EXPECT_EQ(nz, 0.0);
    EXPECT_TRUE(std::signbit(nz)) << f.name;
    EXPECT_TRUE(std::signbit(roundToFloat(f.t, -0.0))) << f.name;
    // Largest subnormal rounds up into the smallest normal when just past the midpoint.
    double minNormal = std::ldexp(1.0, 1 - f.bias);
    EXPECT_EQ(encodeFloatBits(f.t, minNormal), 1u << f.M) << f.name;
    EXPECT_TRUE(std::isnan(decodeFloatBits(f.t, encodeFloatBits(f.t, NAN)))) << f.name;
  }
}

TEST(Numeric, Fp32MatchesFloatCast) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mant(-2.0, 2.0);
  std::uniform_int_distribution<int> ex(-160, 130);  // subnormals, normals and overflow
  for (int n = 0; n < 500000; ++n) {
    double v = std::ldexp(mant(rng), ex(rng));
    float f = float(v);
    uint32_t want;
    std::memcpy(&want, &f, 4);
    ASSERT_EQ(encodeFloatBits(DType::FP32, v), want) << v;
    ASSERT_EQ(decodeFloatBits(DType::FP32, want), double(f)) << v;
    ASSERT_EQ(roundToFloat(DType::FP32, v), double(f)) << v;
  }
  // Random fp32 bit patterns decode like the float they are.
  std::uniform_int_distribution<uint32_t> bitsDist;
  for (int n = 0; n < 200000; ++n) {
    uint32_t b = bitsDist(rng);
    float f;
    std::memcpy(&f, &b, 4);
    double got = decodeFloatBits(DType::FP32, b);
    if (std::isnan(f))
      ASSERT_TRUE(std::isnan(got));
    else
      ASSERT_EQ(got, double(f)) << b;
  }
  EXPECT_EQ(roundToFloat(DType::FP64, 0.1), 0.1);
}

TEST(Numeric, SignAndZeroExtend) {
  EXPECT_EQ(signExtend(0xF, 4), -1);
  EXPECT_EQ(signExtend(0x7, 4), 7);
  EXPECT_EQ(signExtend(0x8, 4), -8);
  EXPECT_EQ(signExtend(int64_t(1) << 47, 48), -(int64_t(1) << 47));
  EXPECT_EQ(signExtend((int64_t(1) << 47) - 1, 48), (int64_t(1) << 47) - 1);
  EXPECT_EQ(zeroExtend(-1, 8), 255);
  EXPECT_EQ(zeroExtend(-1, 32), 4294967295LL);
  EXPECT_EQ(signExtend(-5, 64), -5);
}
