// The shorter AVX2 rescale (src/fast/kernels/int8/simd_avx2.h rescaleHi8: the high halves of v * m + round +
// output_zp * 2^shift shifted by shift - 32) against the spec's apply_scale_32 (TOSA 1.0, 1.12.3: (value *
// multiplier + (1 << (shift - 1))) >> shift, computed here in 128 bits as a hand calculation of the formula) plus
// the output zero point, for every shift it takes (32..54), multipliers at the ends of their range and random
// ones, zero points at the ends of i8: the values around every rounding boundary that a window of results
// crosses, the ends of i32 and a dense window around 0. Then the int8 convolution that uses it (the quantizer's
// case: per-channel single rounding, shifts >= 32, i8 results) through the Session, bit-identical to the
// reference, with the counter proving the path ran where the level gives the layer to the AVX2 kernel.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "fast/cpu_features.h"
#include "fast/isa_dispatch.h"
#include "fast/kernels/int8/int8.h"
#include "fast/kernels/int8/simd_avx2.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "isa_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using fast::dnn::IntEpilogue;

// The spec's apply_scale_32 (single rounding) plus the zero point, in 128 bits.
int64_t specRescale(int32_t v, int64_t m, int64_t shift, int64_t zp) {
  const __int128 r = (__int128(v) * m + (__int128(1) << (shift - 1))) >> shift;
  return int64_t(r) + zp;
}

// 8 channels with these multipliers and one shift and zero point.
IntEpilogue epilogue8(const std::vector<int64_t>& mult, int64_t shift, int64_t zp) {
  IntEpilogue e;
  e.channels = 8, e.rescale = true, e.outputZp = zp, e.outType = DType::I8;
  e.multiplier = mult, e.shift.assign(8, shift);
  e.roundPos.assign(8, int64_t(1) << (shift - 1)), e.roundNeg = e.roundPos;
  return e;
}

TK_TARGET_AVX2 void rescaleAvx2(const fast::dnn::IntEpilogueLanes& l, const int32_t* v, int32_t* out) {
  const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), fast::dnn::rescaleHi8(x, fast::dnn::loadEpiHi8(l, 0)));
}

TEST(FastInt8RescaleHi, MatchesTheSpecFormulaForEveryShiftItTakes) {
  if (!levelHas(fast::cpu::Isa::Avx2)) GTEST_SKIP() << "ISA: rescaleHi8 needs AVX2 (level " << activeLevelName() << ")";
  std::mt19937_64 rng(9100);
  std::vector<int32_t> values;
  for (int64_t v = -70000; v <= 70000; ++v) values.push_back(int32_t(v));
  for (int64_t v : {int64_t(INT32_MIN), int64_t(INT32_MIN) + 1, int64_t(INT32_MAX), int64_t(INT32_MAX) - 1})
    values.push_back(int32_t(v));
  for (int i = 0; i < 20000; ++i) values.push_back(int32_t(uint32_t(rng())));
  int64_t checked = 0;
  for (int64_t shift = 32; shift <= 54; ++shift)
    for (int64_t zp : {-128, -1, 0, 37, 127}) {
      std::vector<int64_t> mult = {int64_t(1) << 30, (int64_t(1) << 31) - 1, 1, 0, int64_t(1) << 29, 12345, 0, 0};
      for (int ch = 4; ch < 8; ++ch) mult[size_t(ch)] = int64_t(rng() % (uint64_t(1) << 31));
      IntEpilogue e = epilogue8(mult, shift, zp);
      const std::vector<int32_t> bias(8, 0);
      fast::dnn::buildIntEpilogueLanes(e, bias.data(), 1);
      ASSERT_TRUE(e.simd.hiForm) << "shift " << shift;
      // Per channel: the values v around each boundary k * 2^shift - round of results k - 300..300 (where the
      // result steps), plus the common values; channel c of the vector gets the c-th stream.
      std::vector<std::vector<int32_t>> lanes(8, values);
      for (int ch = 0; ch < 8; ++ch) {
        const int64_t m = mult[size_t(ch)];
        if (m == 0) continue;
        for (int64_t k = -300; k <= 300; ++k) {
          const __int128 target = (__int128(k) << shift) - (__int128(1) << (shift - 1));
          const __int128 v0 = target / m;
          for (int64_t d = -2; d <= 2; ++d) {
            const __int128 v = v0 + d;
            if (v >= INT32_MIN && v <= INT32_MAX) lanes[size_t(ch)].push_back(int32_t(v));
          }
        }
      }
      size_t n = 0;
      for (const auto& l : lanes) n = std::max(n, l.size());
      for (size_t i = 0; i < n; ++i) {
        int32_t v[8], out[8];
        for (int ch = 0; ch < 8; ++ch) v[ch] = lanes[size_t(ch)][i % lanes[size_t(ch)].size()];
        rescaleAvx2(e.simd, v, out);
        for (int ch = 0; ch < 8; ++ch) {
          const int64_t want = specRescale(v[ch], mult[size_t(ch)], shift, zp);
          ASSERT_EQ(int64_t(out[ch]), want)
              << "v " << v[ch] << " m " << mult[size_t(ch)] << " shift " << shift << " zp " << zp;
          ++checked;
        }
      }
    }
  EXPECT_GT(checked, 100000000 / 4);
}

// Shifts outside [32, 54] or sign-dependent rounding terms (double rounding): not this form.
TEST(FastInt8RescaleHi, DeclinedOutsideItsRange) {
  const std::vector<int32_t> bias(8, 0);
  for (int64_t shift : {31, 55}) {
    IntEpilogue e = epilogue8(std::vector<int64_t>(8, int64_t(1) << 30), shift, 0);
    fast::dnn::buildIntEpilogueLanes(e, bias.data(), 1);
    EXPECT_FALSE(e.simd.hiForm) << shift;
  }
  IntEpilogue e = epilogue8(std::vector<int64_t>(8, int64_t(1) << 30), 40, 0);
  e.roundPos.assign(8, (int64_t(1) << 39) + (int64_t(1) << 30));
  e.roundNeg.assign(8, (int64_t(1) << 39) - (int64_t(1) << 30));
  fast::dnn::buildIntEpilogueLanes(e, bias.data(), 1);
  EXPECT_FALSE(e.simd.hiForm);
}

// conv2d -> rescale (per channel, single rounding, shifts 32..54) [-> clamp] -> i8, random layers: bit-identical
// to the reference, and the AVX2 kernel took rescaleHi8 on each where the level gives it the layer.
TEST(FastInt8RescaleHi, ConvLayersTakeItAndAreBitIdenticalToReference) {
  const bool avx2Kernel = levelHas(fast::cpu::Isa::Avx2) && !oneDnnInt8Exact();
  std::mt19937 rng(9110);
  for (int trial = 0; trial < 12; ++trial) {
    const int64_t K = trial % 3 == 0 ? 1 : 3, IC = trial % 4 == 1 ? 3 : 16 * (1 + trial % 3), OC = 8 + 12 * (trial % 5);
    const int64_t OH = 5 + trial % 4, OW = 7 + trial % 3, N = 1;
    ir::Conv2dAttrs a;
    a.pad = std::vector<int64_t>(4, K / 2), a.stride = {1, 1}, a.dilation = {1, 1};
    a.inputZp = trial % 2 ? -128 : uniform(rng, -128, 127);
    ir::RescaleAttrs ra;
    ra.perChannel = trial % 4 != 3;
    ra.roundingMode = "SINGLE_ROUND";
    for (int64_t ch = 0; ch < (ra.perChannel ? OC : 1); ++ch) {
      ra.multiplier.push_back(uniform(rng, int64_t(1) << 30, (int64_t(1) << 31) - 1));
      ra.shift.push_back(trial == 11 ? uniform(rng, 50, 54) : uniform(rng, 32, 42));
    }
    ra.outputZp = uniform(rng, -128, 127);
    const Tensor w = randomInts(DType::I8, {OC, K, K, IC}, rng, -128, 127);
    const Tensor bias = randomInts(DType::I32, {OC}, rng, -300000, 300000);
    const Tensor x = randomInts(DType::I8, {N, OH, OW, IC}, rng, -128, 127);
    auto build = [&] {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      ir::Value* y =
          b.conv2d(b.input(ir::ValueType::tensor(DType::I8, {N, OH, OW, IC}), "x"), b.constant(w), b.constant(bias), a);
      y = b.rescale(y, DType::I8, ra);
      if (trial % 2) y = b.clamp(y, -20, 110);
      b.output({y}, {"y"});
      return m;
    };
    const std::string what = "trial " + std::to_string(trial);
    const int64_t before = fast::convInt8HiFormRunsForTesting();
    RunOutcome ref = runOn(build(), "ref", {{"x", x}}, 1), fast = runOn(build(), "fast", {{"x", x}}, 1 + trial % 2);
    ASSERT_TRUE(ref.status.isOk()) << what << ": " << ref.status.toString();
    ASSERT_TRUE(fast.status.isOk()) << what << ": " << fast.status.toString();
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << what;
    const int64_t runs = fast::convInt8HiFormRunsForTesting() - before;
    if (avx2Kernel) {
      ASSERT_FALSE(fast.stats.steps.empty());
      EXPECT_EQ(fast.stats.steps[0].impl, "fast:conv_int8_avx2") << what;
      EXPECT_EQ(runs, 1) << what;
    } else {
      EXPECT_EQ(runs, 0) << what;
    }
  }
}

}  // namespace
}  // namespace tosakit::testing
