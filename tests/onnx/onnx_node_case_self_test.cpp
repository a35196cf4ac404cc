// Self-test of runNodeCase (onnx_node_case.h): a supported case passes, and the comparison really compares:
// a wrong expected value (test_add run against test_sub's outputs is not possible through the API, so the
// comparator is checked directly on hand-made tensors).
#include "onnx_node_case.h"

namespace tosakit::onnxtest {
namespace {

TEST(OnnxNodeCase, SupportedCasePasses) { EXPECT_TRUE(runNodeCase("test_relu")); }

TEST(OnnxNodeCase, MissingCaseFails) { EXPECT_FALSE(runNodeCase("test_no_such_case")); }

TEST(OnnxNodeCase, ComparatorToleranceAndExactness) {
  // rtol 1e-3, atol 1e-5: |1.0005 - 1| = 5e-4 <= 1e-5 + 1e-3 * 1 passes; |1.002 - 1| = 2e-3 fails.
  Tensor want = Tensor::fromDoubles(DType::FP32, {1}, {1.0});
  EXPECT_EQ(compareOutput(Tensor::fromDoubles(DType::FP32, {1}, {1.0005}), want, "x"), "");
  EXPECT_NE(compareOutput(Tensor::fromDoubles(DType::FP32, {1}, {1.002}), want, "x"), "");
  // Integers exactly; i32 result against an int64 expectation compares values.
  EXPECT_EQ(compareOutput(Tensor::fromInts(DType::I32, {2}, {7, -3}), Tensor::fromInts(DType::I64, {2}, {7, -3}), "x"),
            "");
  EXPECT_NE(compareOutput(Tensor::fromInts(DType::I32, {2}, {7, -2}), Tensor::fromInts(DType::I64, {2}, {7, -3}), "x"),
            "");
  // uint8 200 is carried as i8 -56 (200 - 256).
  EXPECT_EQ(compareOutput(Tensor::fromInts(DType::I8, {1}, {-56}), Tensor::fromInts(DType::U8, {1}, {200}), "x"), "");
  // Shape mismatch.
  EXPECT_NE(compareOutput(Tensor::fromDoubles(DType::FP32, {2}, {1, 1}), want, "x"), "");
}

}  // namespace
}  // namespace tosakit::onnxtest
