// Conv and ConvTranspose beyond 2-D group-1 (ops_conv.cpp): 1-D (unit height), 3-D (tosa.conv3d), dilated
// and 3-D/grouped transposed convolutions, against the ONNX backend test data (node, pytorch-converted) and a
// hand-computed grouped case. The 2-D node cases are in onnx_node_test.cpp.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

// Weights and bias are model parameters: bound (the backend runner does the same).
TEST(OnnxConv, ConvTranspose1d) { EXPECT_TRUE(runNodeCaseVerified("test_convtranspose_1d", {1})); }
TEST(OnnxConv, ConvTranspose3d) { EXPECT_TRUE(runNodeCaseVerified("test_convtranspose_3d", {1})); }
TEST(OnnxConv, ConvTransposeDilations) { EXPECT_TRUE(runNodeCaseVerified("test_convtranspose_dilations", {1})); }

constexpr const char* kPytorch = "/usr/share/libonnx-testdata/data/pytorch-converted";
class OnnxConvPytorchCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxConvPytorchCase, Passes) { EXPECT_TRUE(runNodeCase(GetParam(), {}, kPytorch)); }
const std::vector<std::string> kPytorchCases = {
    "test_Conv1d",
    "test_Conv1d_dilated",
    "test_Conv1d_groups",
    "test_Conv1d_pad1",
    "test_Conv1d_pad1size1",
    "test_Conv1d_pad2",
    "test_Conv1d_pad2size1",
    "test_Conv1d_stride",
    "test_Conv2d",
    "test_Conv2d_depthwise",
    "test_Conv2d_depthwise_padded",
    "test_Conv2d_depthwise_strided",
    "test_Conv2d_depthwise_with_multiplier",
    "test_Conv2d_dilated",
    "test_Conv2d_groups",
    "test_Conv2d_groups_thnn",
    "test_Conv2d_no_bias",
    "test_Conv2d_padding",
    "test_Conv2d_strided",
    "test_Conv3d",
    "test_Conv3d_dilated",
    "test_Conv3d_dilated_strided",
    "test_Conv3d_groups",
    "test_Conv3d_no_bias",
    "test_Conv3d_stride",
    "test_Conv3d_stride_padding",
    "test_ConvTranspose2d",
    "test_ConvTranspose2d_no_bias",
};
INSTANTIATE_TEST_SUITE_P(PytorchConverted, OnnxConvPytorchCase, ::testing::ValuesIn(kPytorchCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

// Grouped 1-D ConvTranspose, stride 2, kernel 2 (the zero-insertion path), hand computed:
//   x ch0 = [1, 2], ch1 = [3, 4]; w group 0 = [1, 10], group 1 = [2, 20]
//   y ch0 = [1*1, 1*10, 2*1, 2*10] = [1, 10, 2, 20]; y ch1 = [3*2, 3*20, 4*2, 4*20] = [6, 60, 8, 80].
TEST(OnnxConv, GroupedConvTranspose1dHandComputed) {
  Pb g;
  g.msg(1, node({"ConvTranspose", "deconv", {"x", "W"}, {"y"}, {intAttr("group", 2), intsAttr("strides", {2})}}));
  g.bytes(2, "g");
  g.msg(5, floatTensor("W", {2, 1, 2}, {1, 10, 2, 20}));
  g.msg(11, valueInfo("x", {1, 2, 2}));
  g.msg(12, valueInfo("y", {1, 2, 4}));
  auto m = onnx::importOnnxBytes(model(g), "deconv.onnx", unchecked());
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  auto s = Session::create(std::move(*m));
  ASSERT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  ASSERT_TRUE((*s)->run({{"x", Tensor::fromDoubles(DType::FP32, {1, 2, 2}, {1, 2, 3, 4})}}, r).isOk());
  EXPECT_EQ(r.outputs[0].second.toDoubles(), (std::vector<double>{1, 10, 2, 20, 6, 60, 8, 80}));
}

TEST(OnnxConv, UnsupportedAndMalformedForms) {
  {  // 4-D convolution (rank 6 input): named as unsupported
    Pb g;
    g.msg(1, node({"Conv", "conv", {"x", "W"}, {"y"}, {}}));
    g.bytes(2, "g");
    g.msg(5, floatTensor("W", {1, 1, 1, 1, 1, 1}, {1}));
    g.msg(11, valueInfo("x", {1, 1, 2, 2, 2, 2}));
    g.msg(12, valueInfo("y", {1, 1, 2, 2, 2, 2}));
    auto m = onnx::importOnnxBytes(model(g), "conv4d.onnx", unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
    EXPECT_NE(m.status().message().find("'conv' (Conv): 4-D Conv"), std::string::npos) << m.status().toString();
  }
  {  // a 1-D conv with two strides is malformed
    Pb g;
    g.msg(1, node({"Conv", "conv", {"x", "W"}, {"y"}, {intsAttr("strides", {1, 1})}}));
    g.bytes(2, "g");
    g.msg(5, floatTensor("W", {1, 1, 2}, {1, 1}));
    g.msg(11, valueInfo("x", {1, 1, 4}));
    g.msg(12, valueInfo("y", {1, 1, 3}));
    auto m = onnx::importOnnxBytes(model(g), "conv1d.onnx", unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
    EXPECT_NE(m.status().message().find("'conv' (Conv): strides must have 1 value"), std::string::npos)
        << m.status().toString();
  }
}

}  // namespace
}  // namespace tosakit::onnxtest
