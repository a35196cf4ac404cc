#include "compliance/similarity.h"

#include <algorithm>
#include <cmath>

namespace tosakit::compliance {

double cosineSimilarity(const Tensor& a, const Tensor& b) {
  double dot = 0, na = 0, nb = 0;
  bool identical = true;
  for (int64_t i = 0; i < a.size() && i < b.size(); ++i) {
    double x = a.getFloat(i), y = b.getFloat(i);
    identical = identical && x == y;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  // Equal tensors are exactly similar: the quotient below can round to 1 - ulp (or 1 + ulp), and a tolerance
  // of 1 must accept a tensor compared with itself.
  if (identical || (na == 0 && nb == 0)) return 1.0;
  if (na == 0 || nb == 0) return 0.0;
  return std::clamp(dot / (std::sqrt(na) * std::sqrt(nb)), -1.0, 1.0);
}

double euclideanSimilarity(const Tensor& a, const Tensor& b) {
  double diff = 0, mean = 0;
  for (int64_t i = 0; i < a.size() && i < b.size(); ++i) {
    double x = a.getFloat(i), y = b.getFloat(i);
    diff += (x - y) * (x - y);
    mean += (x + y) * (x + y) / 4;
  }
  return 1.0 - std::sqrt(diff) / (std::sqrt(mean) + 1e-7);
}

}  // namespace tosakit::compliance
