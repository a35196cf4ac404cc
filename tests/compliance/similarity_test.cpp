// TPU-MLIR's cosine / euclidean similarity, with hand-computed values.
#include <gtest/gtest.h>

#include <cmath>

#include "compliance/similarity.h"

namespace tosakit::compliance {
namespace {

Tensor f32(std::vector<double> v) { return Tensor::fromDoubles(DType::FP32, {int64_t(v.size())}, v); }

TEST(SimilarityTest, HandComputed) {
  // Identical: cosine 1, euclidean 1 - 0 = 1.
  EXPECT_DOUBLE_EQ(cosineSimilarity(f32({1, 2, 3}), f32({1, 2, 3})), 1.0);
  EXPECT_NEAR(euclideanSimilarity(f32({1, 2, 3}), f32({1, 2, 3})), 1.0, 1e-12);
  // Orthogonal [1,0] vs [0,1]: cosine 0; |a-b| = sqrt(2), |(a+b)/2| = sqrt(0.5): 1 - 2 = -1.
  EXPECT_DOUBLE_EQ(cosineSimilarity(f32({1, 0}), f32({0, 1})), 0.0);
  EXPECT_NEAR(euclideanSimilarity(f32({1, 0}), f32({0, 1})), -1.0, 1e-6);
  // Parallel but scaled: [1,2,2] vs [2,4,4]: cosine 1; |a-b| = 3, |(a+b)/2| = |[1.5,3,3]| = 4.5: 1 - 3/4.5 = 1/3.
  EXPECT_NEAR(cosineSimilarity(f32({1, 2, 2}), f32({2, 4, 4})), 1.0, 1e-12);
  EXPECT_NEAR(euclideanSimilarity(f32({1, 2, 2}), f32({2, 4, 4})), 1.0 / 3.0, 1e-7);
  // Both zero: cosine defined as 1.
  EXPECT_DOUBLE_EQ(cosineSimilarity(f32({0, 0}), f32({0, 0})), 1.0);
}

TEST(SimilarityTest, IdenticalTensorsAreExactlySimilar) {
  // a.a / (|a| |a|) rounds to 1 -/+ ulp for 12 of these 20 vectors (checked with numpy): a tensor compared
  // with itself must still meet a tolerance of 1, and a cosine never exceeds 1.
  for (int k = 1; k <= 20; ++k) {
    std::vector<double> v;
    for (int i = 0; i < 1000; ++i) v.push_back(double(float(std::sin(i * 0.37 * k + 0.1))));
    EXPECT_EQ(cosineSimilarity(f32(v), f32(v)), 1.0) << "k = " << k;
    EXPECT_EQ(euclideanSimilarity(f32(v), f32(v)), 1.0) << "k = " << k;
  }
}

}  // namespace
}  // namespace tosakit::compliance
