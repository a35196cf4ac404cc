// Per-tensor calibration statistics, accumulated sample by sample so memory stays bounded by the number of
// tensors (never by the number of samples): running min/max/mean (pass 1), then a histogram of |x| over
// [0, absmax] and the central moments the ACIQ estimators need (pass 2, once absmax and the mean are known).
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "core/tensor.h"

namespace tosakit::quantize {

struct RangeStats {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0;
  int64_t count = 0;
  void add(const Tensor& t);
  double absMax() const;
  double mean() const { return count ? sum / double(count) : 0.0; }
};

// Histogram of |x| with `bins` equal bins over [0, absMax] (numpy.histogram's convention: the last bin
// includes its right edge, values beyond absMax fall into it), plus E|x - mean| and E(x - mean)^2.
struct AbsHistogram {
  AbsHistogram() = default;
  AbsHistogram(int64_t bins, double absMax, double mean);
  void add(const Tensor& t);
  double width() const { return counts.empty() ? 0.0 : absMax / double(counts.size()); }
  double meanAbsDeviation() const { return count ? sumAbsDev / double(count) : 0.0; }
  double stdDeviation() const;

  std::vector<int64_t> counts;
  double absMax = 0;
  double mean = 0;
  double sumAbsDev = 0;
  double sumSqDev = 0;
  int64_t count = 0;
};

}  // namespace tosakit::quantize
