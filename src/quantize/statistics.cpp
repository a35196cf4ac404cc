#include "quantize/statistics.h"

#include <algorithm>
#include <cmath>

namespace tosakit::quantize {

void RangeStats::add(const Tensor& t) {
  for (int64_t i = 0; i < t.size(); ++i) {
    double v = t.getFloat(i);
    if (!std::isfinite(v)) continue;  // NaN and infinity have no range; they cannot move a threshold
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    ++count;
  }
}

double RangeStats::absMax() const { return count ? std::max(std::fabs(min), std::fabs(max)) : 0.0; }

AbsHistogram::AbsHistogram(int64_t bins, double absMax_, double mean_)
    : counts(size_t(bins), 0), absMax(absMax_), mean(mean_) {}

void AbsHistogram::add(const Tensor& t) {
  const int64_t bins = int64_t(counts.size());
  const double scale = absMax > 0 ? double(bins) / absMax : 0.0;
  for (int64_t i = 0; i < t.size(); ++i) {
    double v = t.getFloat(i);
    if (!std::isfinite(v)) continue;
    int64_t bin = int64_t(std::fabs(v) * scale);
    counts[size_t(std::clamp<int64_t>(bin, 0, bins - 1))]++;
    double d = v - mean;
    sumAbsDev += std::fabs(d);
    sumSqDev += d * d;
    ++count;
  }
}

double AbsHistogram::stdDeviation() const { return count ? std::sqrt(sumSqDev / double(count)) : 0.0; }

}  // namespace tosakit::quantize
