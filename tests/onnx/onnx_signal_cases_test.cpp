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
  auto m =
      onnx::importOnnxBytes(unaryModel("DFT", {1, 8, 1}, {1, 8, 2}, {intAttr("axis", 2)}), "dft.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
  EXPECT_NE(m.status().message().find("'op' (DFT): DFT axis 2 is out of range"), std::string::npos)
      << m.status().toString();
}

// A window whose output_datatype is DOUBLE (11): the graph output would be float64, which TOSA 1.0 lacks.
TEST(OnnxSignal, DoubleWindowIsUnsupported) {
  Pb g;
  g.msg(1, node({"HannWindow", "op", {"size"}, {"y"}, {intAttr("output_datatype", 11)}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("size", {}, {4}));
  g.msg(12, valueInfo("y", {4}));
  auto m = onnx::importOnnxBytes(model(g, 17), "hann.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().message().find("'op' (HannWindow): output_datatype"), std::string::npos)
      << m.status().toString();
}

// inverse together with onesided (a half-spectrum input) is not lowered: named as unsupported.
TEST(OnnxSignal, InverseOnesidedDftIsUnsupported) {
  auto m =
      onnx::importOnnxBytes(unaryModel("DFT", {1, 8, 2}, {1, 5, 2}, {intAttr("inverse", 1), intAttr("onesided", 1)}),
                            "dft.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().message().find("'op' (DFT): an inverse one-sided DFT"), std::string::npos)
      << m.status().toString();
}

}  // namespace
}  // namespace tosakit::onnxtest
