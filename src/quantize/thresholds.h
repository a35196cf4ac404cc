// Threshold algorithms of TPU-MLIR's calibration (technical reference 7.4), each from the |x| histogram of
// statistics.h (`hist` counts over [0, absMax], bin width absMax / hist.size()) or from moments. Every
// function returns a threshold in (0, absMax]; a tensor that is all zero gets kMinThreshold.
#pragma once
#include <cstdint>
#include <vector>

namespace tosakit::quantize {

constexpr double kMinThreshold = 1e-5;

// KLD (7.4.1, TensorRT's entropy calibration): for every cut i = stride, 2*stride, ..., bins, P is hist[0:i]
// with the outliers hist[i:] added to bin i-1; Q quantizes hist[0:i] into `levels` groups of i/levels bins and
// spreads each group's sum evenly over its bins where P is non-zero; both are smoothed (zeros get eps=1e-4,
// taken evenly from the non-zero bins) and normalized; the cut with the smallest KL(P||Q) gives threshold
// (i + 0.5) * width, at most absMax. The chapter's cut positions: stride 128, levels 128 (int8).
double kldThreshold(const std::vector<int64_t>& hist, double absMax, int64_t levels = 128, int64_t stride = 128);

// Percentile: the upper edge of the first bin at which the cumulative fraction reaches `fraction`.
double percentileThreshold(const std::vector<int64_t>& hist, double absMax, double fraction = 0.9999);

// Octav (7.4.3): fixed point of s = sum|x|*1{|x|>s} / ((4^-B / 3) * sum 1{0<|x|<=s} + sum 1{|x|>s}), the
// elements being the bin centres weighted by their counts; s_0 = absMax, at most 20 iterations, stop when
// |s_{n+1} - s_n| < epsilon.
double octavThreshold(const std::vector<int64_t>& hist, double absMax, int bits = 8, double epsilon = 1e-5);

// MSE: the candidate amax (bin upper edges from bin `startBin` on) minimizing the squared error of
// fake-quantizing the bin centres symmetrically to 2^(B-1)-1 levels: round(c * L / amax) clamped to L,
// times amax / L; errors weighted by the counts.
double mseThreshold(const std::vector<int64_t>& hist, double absMax, int bits = 8, int64_t startBin = 128);

// ACIQ (7.4.4, Banner et al.): the clipping value alpha minimizing the expected quantization MSE of a
// Gaussian (alpha = 3.92 sigma at 8 bits) or Laplace (alpha = 9.89 b, b = E|x - mean|) distribution, around
// the mean: threshold = min(|mean| + alpha, absMax).
double aciqGaussThreshold(double mean, double sigma, double absMax, int bits = 8);
double aciqLaplaceThreshold(double mean, double b, double absMax, int bits = 8);

// minmax: the threshold is the largest |x| seen.
double maxThreshold(double absMax);

}  // namespace tosakit::quantize
