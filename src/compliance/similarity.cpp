#include "compliance/similarity.h"

#include <cmath>

namespace tosakit::compliance {

double cosineSimilarity(const Tensor& a, const Tensor& b) {
  double dot = 0, na = 0, nb = 0;
  for (int64_t i = 0; i < a.size() && i < b.size(); ++i) {
    double x = a.getFloat(i), y = b.getFloat(i);
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na == 0 && nb == 0) return 1.0;
  if (na == 0 || nb == 0) return 0.0;
  return dot / (std::sqrt(na) * std::sqrt(nb));
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
