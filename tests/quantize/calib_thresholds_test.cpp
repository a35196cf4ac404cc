// Threshold methods of calibration (technical reference 7.4) against an independent numpy calculation on the
// same histograms (tests/quantize/calib_oracle.py), plus the closed forms / fixed points they are defined by.
#include <cmath>
#include <cstdint>
#include <vector>

#include "calib_test_util.h"
#include "formats/npy/npy.h"
#include "quantize/thresholds.h"

namespace {

using namespace tosakit;
using namespace tosakit::quantize;
using tosakit::testing::keyValues;
using tosakit::testing::oracle;

class ThresholdTest : public tosakit::testing::ScratchDir {
 protected:
  // The oracle's thresholds of `hist` over [0, absMax].
  std::map<std::string, double> numpyThresholds(const std::vector<int64_t>& hist, double absMax) {
    std::string file = path("hist.npy");
    EXPECT_TRUE(npy::writeNpy(file, Tensor::fromInts(DType::I64, {int64_t(hist.size())}, hist)));
    char arg[64];
    std::snprintf(arg, sizeof arg, " %.17g", absMax);
    return keyValues(oracle("hist " + file + arg));
  }
  void expectAllMethodsMatch(const std::vector<int64_t>& hist, double absMax) {
    auto want = numpyThresholds(hist, absMax);
    ASSERT_EQ(want.size(), 5u);
    EXPECT_NEAR(kldThreshold(hist, absMax), want["kld"], 1e-9 * absMax);
    EXPECT_NEAR(percentileThreshold(hist, absMax), want["percentile9999"], 1e-9 * absMax);
    EXPECT_NEAR(octavThreshold(hist, absMax), want["octav"], 1e-9 * absMax);
    EXPECT_NEAR(mseThreshold(hist, absMax), want["mse"], 1e-9 * absMax);
    EXPECT_NEAR(maxThreshold(absMax), want["minmax"], 1e-12);
  }
};

// Laplace-like decay with two far outliers: the shape where clipping pays.
std::vector<int64_t> laplaceHistogram() {
  std::vector<int64_t> h(2048);
  for (size_t j = 0; j < h.size(); ++j) h[j] = int64_t(std::llround(1e6 * std::exp(-double(j) / 90.0)));
  h[1500] += 3;
  h[2047] += 1;
  return h;
}

// Gaussian-like half bell that fills most of the range, with empty bins (a sparse, quantized-looking tensor).
std::vector<int64_t> sparseGaussianHistogram() {
  std::vector<int64_t> h(2048);
  for (size_t j = 0; j < h.size(); j += 3) h[j] = int64_t(std::llround(5e4 * std::exp(-std::pow(j / 700.0, 2))));
  return h;
}

TEST_F(ThresholdTest, LaplaceHistogramAllMethodsMatchNumpy) { expectAllMethodsMatch(laplaceHistogram(), 12.5); }

TEST_F(ThresholdTest, SparseGaussianHistogramAllMethodsMatchNumpy) {
  expectAllMethodsMatch(sparseGaussianHistogram(), 0.731);
}

TEST_F(ThresholdTest, PseudoRandomHistogramWithOtherBinCountMatchesNumpy) {
  std::vector<int64_t> h(1024);
  uint64_t s = 12345;
  for (auto& c : h) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    c = int64_t((s >> 33) % 1000) * (s % 5 == 0 ? 0 : 1);
  }
  expectAllMethodsMatch(h, 3.0);
}

TEST_F(ThresholdTest, KldClipsTheOutliersOfALaplaceTensor) {
  double t = kldThreshold(laplaceHistogram(), 12.5);
  EXPECT_LT(t, 12.5 * 1500 / 2048);  // the cut falls before the outliers...
  EXPECT_GT(t, 12.5 * 128 / 2048);   // ...but not at the first candidate
}

TEST_F(ThresholdTest, OctavResultIsTheFixedPointOfItsIteration) {
  auto h = laplaceHistogram();
  const double absMax = 12.5, width = absMax / 2048;
  double s = octavThreshold(h, absMax);
  double clippedAbs = 0, clipped = 0, inRange = 0;
  for (size_t j = 0; j < h.size(); ++j) {
    double x = (j + 0.5) * width;
    if (x > s)
      clippedAbs += x * h[j], clipped += h[j];
    else
      inRange += h[j];
  }
  double next = clippedAbs / (std::pow(4.0, -8) / 3 * inRange + clipped);
  EXPECT_NEAR(next, s, 1e-5);
}

TEST_F(ThresholdTest, AciqAlphasAreTheClosedFormMinimizers) {
  auto alpha = keyValues(oracle("aciq 8"));
  // sigma = 1 (Gaussian) and b = 1 (Laplace), mean 0, absmax far away.
  EXPECT_NEAR(aciqGaussThreshold(0, 1, 1000), alpha["gauss"], 2e-4);
  EXPECT_NEAR(aciqLaplaceThreshold(0, 1, 1000), alpha["laplace"], 2e-4);
  // Banner et al., Table 1: 3.92 sigma and 9.89 b at 8 bits.
  EXPECT_NEAR(aciqGaussThreshold(0, 1, 1000), 3.92, 0.01);
  EXPECT_NEAR(aciqLaplaceThreshold(0, 1, 1000), 9.89, 0.01);
  // Scale and mean: alpha scales with sigma/b and the clip is centred on the mean; never beyond absmax.
  EXPECT_NEAR(aciqGaussThreshold(-0.5, 2, 1000), 0.5 + 2 * alpha["gauss"], 5e-4);
  EXPECT_NEAR(aciqLaplaceThreshold(0.25, 0.1, 1000), 0.25 + 0.1 * alpha["laplace"], 5e-4);
  EXPECT_DOUBLE_EQ(aciqLaplaceThreshold(0, 1, 3.0), 3.0);
}

TEST_F(ThresholdTest, AllZeroTensorGetsTheMinimumThreshold) {
  std::vector<int64_t> zeros(2048, 0);
  zeros[0] = 100;
  for (double t : {kldThreshold(zeros, 0), percentileThreshold(zeros, 0), octavThreshold(zeros, 0),
                   mseThreshold(zeros, 0), maxThreshold(0), aciqGaussThreshold(0, 0, 0)})
    EXPECT_DOUBLE_EQ(t, kMinThreshold);
}

}  // namespace
