// DFT, STFT, window functions, MelWeightMatrix and Det (ops_signal.cpp) against the ONNX backend node test
// data (the independent oracle). Bound inputs are the ones the backend runner binds: window sizes, all of
// MelWeightMatrix's scalars, STFT's frame_step and frame_length.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

TEST(OnnxSignal, HannWindow) { EXPECT_TRUE(runNodeCaseVerified("test_hannwindow", {0})); }
TEST(OnnxSignal, HannWindowSymmetric) { EXPECT_TRUE(runNodeCase("test_hannwindow_symmetric", {0})); }
TEST(OnnxSignal, HammingWindow) { EXPECT_TRUE(runNodeCase("test_hammingwindow", {0})); }
TEST(OnnxSignal, HammingWindowSymmetric) { EXPECT_TRUE(runNodeCase("test_hammingwindow_symmetric", {0})); }
TEST(OnnxSignal, BlackmanWindow) { EXPECT_TRUE(runNodeCase("test_blackmanwindow", {0})); }
TEST(OnnxSignal, BlackmanWindowSymmetric) { EXPECT_TRUE(runNodeCase("test_blackmanwindow_symmetric", {0})); }
TEST(OnnxSignal, MelWeightMatrix) { EXPECT_TRUE(runNodeCase("test_melweightmatrix", {0, 1, 2, 3, 4})); }

TEST(OnnxSignal, Dft) { EXPECT_TRUE(runNodeCaseVerified("test_dft")); }
TEST(OnnxSignal, DftAxis) { EXPECT_TRUE(runNodeCaseVerified("test_dft_axis")); }
TEST(OnnxSignal, DftInverse) { EXPECT_TRUE(runNodeCase("test_dft_inverse")); }
TEST(OnnxSignal, Stft) { EXPECT_TRUE(runNodeCaseVerified("test_stft", {1, 2})); }
TEST(OnnxSignal, StftWithWindow) { EXPECT_TRUE(runNodeCase("test_stft_with_window", {1})); }

TEST(OnnxSignal, Det2d) { EXPECT_TRUE(runNodeCaseVerified("test_det_2d")); }
TEST(OnnxSignal, DetBatched) { EXPECT_TRUE(runNodeCase("test_det_nd")); }

std::string unaryModel(const std::string& op, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                       std::vector<Pb> attrs = {}) {
  Pb g;
  g.msg(1, node({op, "op", {"x"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", out));
  return model(g, 17);
}

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

// Det beyond 4x4 would need pivoting: named as unsupported with the size.
TEST(OnnxSignal, LargeDetIsUnsupported) {
  auto m = onnx::importOnnxBytes(unaryModel("Det", {5, 5}, {}), "det5.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().message().find("'op' (Det): Det of 5x5 matrices"), std::string::npos) << m.status().toString();
}

// DFT's axis must name a signal dim (not the batch or the component dim): malformed.
TEST(OnnxSignal, DftAxisOutOfRangeIsInvalid) {
  auto m = onnx::importOnnxBytes(unaryModel("DFT", {1, 8, 1}, {1, 8, 2}, {intAttr("axis", 2)}), "dft.onnx",
                                 unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
  EXPECT_NE(m.status().message().find("'op' (DFT): DFT axis 2 is out of range"), std::string::npos)
      << m.status().toString();
}

}  // namespace
}  // namespace tosakit::onnxtest
