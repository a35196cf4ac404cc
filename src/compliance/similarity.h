// Similarity of two tensors as TPU-MLIR's verification reports it (model_transform --tolerance):
//   cosine    = a.b / (|a| |b|), within [-1, 1]      (exactly 1 when a == b, also when both are all zero)
//   euclidean = 1 - |a - b| / (|(a + b) / 2| + 1e-7)
// computed in double over the elements' values.
#pragma once
#include "core/tensor.h"

namespace tosakit::compliance {

double cosineSimilarity(const Tensor& a, const Tensor& b);
double euclideanSimilarity(const Tensor& a, const Tensor& b);

}  // namespace tosakit::compliance
