// RESCALE multiplier/shift derivation (src/quantize/rescale_params.h) against exact rational arithmetic:
// every representable 16-bit (multiplier, shift) pair and every midpoint between neighbours, every fp32
// scale of whole binades for the 32-bit form, and tosa.rescale on the reference backend for every int16
// input against floor(v * m / 2^shift + 1/2) computed in 128-bit integers (TOSA 1.0 4.5.5 apply_scale_*).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/builder.h"
#include "quantize/rescale_params.h"
#include "tosakit/session.h"

using namespace tosakit;
using quantize::deriveRescale;
using i128 = __int128;

namespace {

// True when m / 2^shift is the nearest value to `scale` on the 2^-shift grid, ties rounded up:
// with scale = M * 2^E exactly (M < 2^53), |2m - M 2^(E+shift+1)| <= 1 (scaled to integers).
bool nearestOnGrid(double scale, int64_t m, int shift) {
  int e = 0;
  double f = std::frexp(scale, &e);
  i128 M = i128(std::ldexp(f, 53));
  int E = e - 53;
  int d = E + shift + 1;
  i128 twoM = i128(2) * m;
  if (d >= 0) {
    i128 x = M << d;
    i128 diff = twoM - x;
    return diff == 0 || diff == 1;  // -1 would be a tie rounded down
  }
  i128 lhs = twoM << (-d);
  i128 unit = i128(1) << (-d);
  i128 diff = lhs - M;  // in units of 2^d
  return (diff >= 0 && diff <= unit) || (diff < 0 && -diff < unit);
}

void checkDerivation(double scale, bool scale32) {
  auto p = deriveRescale(scale, scale32);
  ASSERT_TRUE(p.isOk()) << scale;
  int bits = scale32 ? 31 : 15;
  ASSERT_GE(p->shift, 2);
  ASSERT_LE(p->shift, 62);
  ASSERT_GE(p->multiplier, 0);
  ASSERT_LT(p->multiplier, int64_t(1) << bits);
  if (p->shift < 62) { ASSERT_GE(p->multiplier, int64_t(1) << (bits - 1)) << "not normalized: " << scale; }
  ASSERT_TRUE(nearestOnGrid(scale, p->multiplier, p->shift))
      << "scale " << scale << " -> " << p->multiplier << " >> " << p->shift;
}

}  // namespace

TEST(QuantRescale, EveryNormalized16BitPairRoundTrips) {
  for (int shift = 2; shift <= 62; ++shift)
    for (int64_t m = 1 << 14; m < (1 << 15); ++m) {
      auto p = deriveRescale(std::ldexp(double(m), -shift), false);
      ASSERT_TRUE(p.isOk());
      ASSERT_EQ(p->multiplier, m);
      ASSERT_EQ(p->shift, shift);
    }
}

TEST(QuantRescale, Every16BitMidpointRoundsHalfUp) {
  // (m + 1/2) / 2^shift lies exactly between two grid points: the larger multiplier wins (ties up), and the
  // top midpoint renormalizes to 2^14 with shift - 1.
  for (int shift = 3; shift <= 62; ++shift)
    for (int64_t m = 1 << 14; m < (1 << 15); ++m) {
      auto p = deriveRescale(std::ldexp(double(2 * m + 1), -(shift + 1)), false);
      ASSERT_TRUE(p.isOk());
      if (m + 1 == (1 << 15)) {
        ASSERT_EQ(p->multiplier, 1 << 14);
        ASSERT_EQ(p->shift, shift - 1);
      } else {
        ASSERT_EQ(p->multiplier, m + 1);
        ASSERT_EQ(p->shift, shift);
      }
    }
}

TEST(QuantRescale, EveryFp32ScaleOfWholeBinadesIsNearest) {
  // Every fp32 value in the binades [2^k, 2^(k+1)) for k in {-20, -1, 10}, both widths (the derivation is
  // the same in every binade but for the shift; the next test covers every binade).
  for (int k : {-20, -1, 10})
    for (uint32_t mant = 0; mant < (1u << 23); ++mant) {
      uint32_t bits = (uint32_t(k + 127) << 23) | mant;
      float f;
      std::memcpy(&f, &bits, 4);
      checkDerivation(double(f), true);
      checkDerivation(double(f), false);
    }
}

TEST(QuantRescale, EveryBinadeOfTheRepresentableRange) {
  // Binades 2^-100 .. 2^27 (32-bit; down to denormal multipliers at shift 62) and 2^-100 .. 2^11 (16-bit),
  // 4096 mantissas each, plus both edges of every binade.
  // (The top of binade 2^28 resp. 2^12 rounds up to 2^29 resp. 2^13, past the largest scale.)
  for (int k = -100; k <= 27; ++k)
    for (int64_t i = 0; i <= 4096; ++i) {
      double s = std::ldexp(1.0 + double(i) / 4096.0 - (i == 4096 ? std::ldexp(1.0, -52) : 0.0), k);
      checkDerivation(s, true);
      if (k <= 11) checkDerivation(s, false);
    }
}

TEST(QuantRescale, TooLargeAndInvalidScalesAreErrors) {
  EXPECT_TRUE(deriveRescale(std::ldexp(1.0, 28), true).isOk());
  EXPECT_FALSE(deriveRescale(std::ldexp(1.0, 29), true).isOk());
  EXPECT_FALSE(deriveRescale(std::ldexp(1.0, 13), false).isOk());
  EXPECT_FALSE(deriveRescale(0.0, true).isOk());
  EXPECT_FALSE(deriveRescale(-1.0, true).isOk());
  EXPECT_FALSE(deriveRescale(std::nan(""), true).isOk());
  // The spec's examples (2.13.2): scale 1.0 is multiplier 1<<30, shift 30 (32-bit), 1<<14, shift 14 (16-bit).
  EXPECT_EQ(deriveRescale(1.0, true)->multiplier, 1 << 30);
  EXPECT_EQ(deriveRescale(1.0, true)->shift, 30);
  EXPECT_EQ(deriveRescale(1.0, false)->multiplier, 1 << 14);
  EXPECT_EQ(deriveRescale(1.0, false)->shift, 14);
  // TPU-MLIR 6.2's example: 0.1234 -> 2119995857 >> 34 (their 31-bit multiplier; ours is the same here).
  EXPECT_EQ(deriveRescale(0.1234, true)->multiplier, 2119995857);
  EXPECT_EQ(deriveRescale(0.1234, true)->shift, 34);
}

// tosa.rescale i16 -> i32 on the reference backend for all 65536 inputs, per channel (one scale per channel),
// against floor((v - zp) * m / 2^shift + 1/2) in exact integers and |result - (v - zp) * scale| <= 1/2 + err.
TEST(QuantRescale, ReferenceRescaleOfEveryInt16MatchesExactRounding) {
  const std::vector<double> scales = {0.1234, 1.0 / 3.0, 0.0009765625, 2.5, 7.3e-5};
  const int channels = int(scales.size());
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::I16, {65536, channels}), "x");
  ir::RescaleAttrs a;
  a.perChannel = true;
  for (double s : scales) {
    auto p = deriveRescale(s, true);
    ASSERT_TRUE(p.isOk());
    a.multiplier.push_back(p->multiplier);
    a.shift.push_back(p->shift);
  }
  b.output({b.rescale(x, DType::I32, a, "r")}, {"y"});
  Tensor in(DType::I16, {65536, channels});
  for (int64_t v = 0; v < 65536; ++v)
    for (int c = 0; c < channels; ++c) in.setInt(v * channels + c, v - 32768);
  std::unique_ptr<ir::Module> owned(new ir::Module());
  // Rebuild into an owned module for the session (Module is not copyable).
  {
    ir::Builder ob(*owned, "main");
    auto* ox = ob.input(ir::ValueType::tensor(DType::I16, {65536, channels}), "x");
    ob.output({ob.rescale(ox, DType::I32, a, "r")}, {"y"});
  }
  auto session = Session::create(std::move(owned));
  ASSERT_TRUE(session.isOk()) << session.status().toString();
  RunResult rr;
  ASSERT_TRUE((*session)->run({{"x", in}}, rr).isOk());
  const Tensor& out = rr.outputs.at(0).second;
  for (int64_t v = -32768; v < 32768; ++v)
    for (int c = 0; c < channels; ++c) {
      int64_t mult = a.multiplier[size_t(c)];
      int shift = int(a.shift[size_t(c)]);
      i128 num = i128(v) * mult + (i128(1) << (shift - 1));
      i128 expected = num >= 0 ? num >> shift : -((-num + (i128(1) << shift) - 1) >> shift);  // floor
      int64_t got = out.getInt((v + 32768) * channels + c);
      ASSERT_EQ(got, int64_t(expected)) << "v=" << v << " channel " << c;
      double err = std::fabs(std::ldexp(double(mult), -shift) - scales[size_t(c)]);
      ASSERT_LE(std::fabs(double(got) - double(v) * scales[size_t(c)]), 0.5 + std::fabs(double(v)) * err + 1e-9);
    }
}

TEST(QuantRescale, DoubleRoundEqualsSingleRoundUpToShift31AndDiffersByAtMostOne) {
  auto p = deriveRescale(0.000123, true);
  ASSERT_TRUE(p.isOk());
  ASSERT_GT(p->shift, 31);
  for (int64_t v = -(1 << 20); v < (1 << 20); v += 7) {
    int64_t s = quantize::applyScale32(v, p->multiplier, p->shift, false);
    int64_t d = quantize::applyScale32(v, p->multiplier, p->shift, true);
    ASSERT_LE(std::llabs(s - d), 1);
  }
  auto q = deriveRescale(3.0, true);  // shift 29: double rounding changes nothing
  for (int64_t v = -(1 << 20); v < (1 << 20); v += 3)
    ASSERT_EQ(quantize::applyScale32(v, q->multiplier, q->shift, false),
              quantize::applyScale32(v, q->multiplier, q->shift, true));
}
