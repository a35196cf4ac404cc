#include "quantize/thresholds.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

namespace tosakit::quantize {

namespace {

double clampThreshold(double t, double absMax) {
  if (!(absMax > 0)) return kMinThreshold;
  return std::clamp(t, kMinThreshold, absMax);
}

// Zero entries get eps, taken evenly from the non-zero entries (TensorRT/MXNet's _smooth_distribution).
// False when there is no non-zero entry.
bool smooth(std::vector<double>& p, double eps = 1e-4) {
  size_t zeros = size_t(std::count(p.begin(), p.end(), 0.0));
  size_t nonZeros = p.size() - zeros;
  if (nonZeros == 0) return false;
  double eps1 = eps * double(zeros) / double(nonZeros);
  for (double& v : p) v = v == 0 ? eps : v - eps1;
  return true;
}

void normalize(std::vector<double>& p) {
  double s = std::accumulate(p.begin(), p.end(), 0.0);
  if (s > 0)
    for (double& v : p) v /= s;
}

// KL(P || Q) of two normalized distributions of equal length (terms with p = 0 contribute 0).
double klDivergence(const std::vector<double>& p, const std::vector<double>& q) {
  double kl = 0;
  for (size_t j = 0; j < p.size(); ++j)
    if (p[j] > 0) kl += p[j] * std::log(p[j] / q[j]);
  return kl;
}

// P and Q of the KLD search for cut `cut`; false when the cut has no usable distribution.
bool kldDistributions(const std::vector<int64_t>& hist, int64_t cut, int64_t levels, std::vector<double>& p,
                      std::vector<double>& q) {
  p.assign(hist.begin(), hist.begin() + cut);
  double outliers = 0;
  for (size_t j = size_t(cut); j < hist.size(); ++j) outliers += double(hist[j]);
  p[size_t(cut - 1)] += outliers;
  q.assign(size_t(cut), 0.0);
  const int64_t merged = cut / levels;  // bins per quantization level (cut is a multiple of levels)
  for (int64_t level = 0; level < levels; ++level) {
    int64_t begin = level * merged, end = level == levels - 1 ? cut : begin + merged;
    double sum = 0;
    int64_t nonZero = 0;
    for (int64_t j = begin; j < end; ++j) {
      sum += double(hist[size_t(j)]);
      nonZero += p[size_t(j)] != 0;
    }
    if (nonZero == 0) continue;
    for (int64_t j = begin; j < end; ++j)
      if (p[size_t(j)] != 0) q[size_t(j)] = sum / double(nonZero);
  }
  if (!smooth(p) || !smooth(q)) return false;
  normalize(p);
  normalize(q);
  return true;
}

// Golden-section search for the minimum of a unimodal f on [lo, hi].
double minimizeUnimodal(const std::function<double(double)>& f, double lo, double hi) {
  const double r = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - r * (b - a), d = a + r * (b - a);
  double fc = f(c), fd = f(d);
  for (int it = 0; it < 200 && b - a > 1e-12 * (1 + std::fabs(b)); ++it) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - r * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + r * (b - a), fd = f(d);
    }
  }
  return (a + b) / 2;
}

// Rounding noise of a uniform quantizer with 2^bits levels over [-alpha, alpha]: alpha^2 / (3 * 4^bits).
double roundingNoise(double alpha, int bits) { return alpha * alpha / (3.0 * std::pow(4.0, bits)); }

}  // namespace

double kldThreshold(const std::vector<int64_t>& hist, double absMax, int64_t levels, int64_t stride) {
  const int64_t bins = int64_t(hist.size());
  if (!(absMax > 0) || bins < levels) return clampThreshold(absMax, absMax);
  double bestKl = std::numeric_limits<double>::infinity();
  int64_t bestCut = bins;
  std::vector<double> p, q;
  for (int64_t cut = stride; cut <= bins; cut += stride) {
    if (cut < levels || !kldDistributions(hist, cut, levels, p, q)) continue;
    double kl = klDivergence(p, q);
    if (kl < bestKl) bestKl = kl, bestCut = cut;
  }
  double width = absMax / double(bins);
  return clampThreshold((double(bestCut) + 0.5) * width, absMax);
}

double percentileThreshold(const std::vector<int64_t>& hist, double absMax, double fraction) {
  double total = 0;
  for (int64_t c : hist) total += double(c);
  if (total == 0 || hist.empty()) return clampThreshold(0, absMax);
  double width = absMax / double(hist.size()), cumulative = 0;
  for (size_t j = 0; j < hist.size(); ++j) {
    cumulative += double(hist[j]);
    if (cumulative / total >= fraction) return clampThreshold(double(j + 1) * width, absMax);
  }
  return clampThreshold(absMax, absMax);
}

double octavThreshold(const std::vector<int64_t>& hist, double absMax, int bits, double epsilon) {
  if (hist.empty() || !(absMax > 0)) return clampThreshold(0, absMax);
  const double width = absMax / double(hist.size());
  const double roundingWeight = std::pow(4.0, -bits) / 3.0;
  double s = absMax;
  for (int n = 0; n < 20; ++n) {
    double clippedAbs = 0, clipped = 0, inRange = 0;
    for (size_t j = 0; j < hist.size(); ++j) {
      double centre = (double(j) + 0.5) * width, count = double(hist[j]);
      if (centre > s)
        clippedAbs += centre * count, clipped += count;
      else
        inRange += count;  // every centre is > 0
    }
    double denominator = roundingWeight * inRange + clipped;
    if (denominator == 0) break;
    double next = clippedAbs / denominator;
    bool converged = std::fabs(next - s) < epsilon;
    s = next;
    if (converged) break;
  }
  return clampThreshold(s, absMax);
}

double mseThreshold(const std::vector<int64_t>& hist, double absMax, int bits, int64_t startBin) {
  const int64_t bins = int64_t(hist.size());
  if (bins == 0 || !(absMax > 0)) return clampThreshold(0, absMax);
  const double width = absMax / double(bins), levels = std::pow(2.0, bits - 1) - 1;
  double bestErr = std::numeric_limits<double>::infinity(), best = absMax;
  for (int64_t edge = std::min(startBin, bins); edge <= bins; ++edge) {
    double amax = double(edge) * width, err = 0;
    for (int64_t j = 0; j < bins; ++j) {
      if (hist[size_t(j)] == 0) continue;
      double centre = (double(j) + 0.5) * width;
      double q = std::min(std::nearbyint(centre * levels / amax), levels) * amax / levels;
      err += double(hist[size_t(j)]) * (centre - q) * (centre - q);
    }
    if (err < bestErr) bestErr = err, best = amax;
  }
  return clampThreshold(best, absMax);
}

double aciqGaussThreshold(double mean, double sigma, double absMax, int bits) {
  if (!(sigma > 0)) return clampThreshold(std::fabs(mean), absMax);
  // Expected MSE of clipping N(0, sigma^2) to [-alpha, alpha] plus the rounding noise (Banner et al., eq. 5).
  auto mse = [&](double alpha) {
    double r = alpha / sigma;
    double clip = sigma * sigma *
        ((r * r + 1) * std::erfc(r / std::sqrt(2.0)) - std::sqrt(2.0 / M_PI) * r * std::exp(-r * r / 2));
    return clip + roundingNoise(alpha, bits);
  };
  double alpha = minimizeUnimodal(mse, 0, 20 * sigma);
  return clampThreshold(std::fabs(mean) + alpha, absMax);
}

double aciqLaplaceThreshold(double mean, double b, double absMax, int bits) {
  if (!(b > 0)) return clampThreshold(std::fabs(mean), absMax);
  // Expected MSE of clipping Laplace(0, b) to [-alpha, alpha] plus the rounding noise: 2 b^2 e^(-alpha/b) + ...
  auto mse = [&](double alpha) { return 2 * b * b * std::exp(-alpha / b) + roundingNoise(alpha, bits); };
  double alpha = minimizeUnimodal(mse, 0, 50 * b);
  return clampThreshold(std::fabs(mean) + alpha, absMax);
}

double maxThreshold(double absMax) { return clampThreshold(absMax, absMax); }

}  // namespace tosakit::quantize
