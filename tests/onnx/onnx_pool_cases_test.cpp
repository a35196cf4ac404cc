// Pooling (ops_pool.cpp) against the ONNX backend test data (node and pytorch-converted: the independent
// oracle), plus hand-computed LpPool values and the unsupported/malformed forms.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

class OnnxPoolCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxPoolCase, Passes) { EXPECT_TRUE(runNodeCase(GetParam())); }

const std::vector<std::string> kNodeCases = {
    // 1-D and 3-D (unit-height 2-D pools; separable 3-D pools)
    "test_averagepool_1d_default", "test_averagepool_3d_default", "test_maxpool_1d_default", "test_maxpool_3d_default",
    // 2-D
    "test_averagepool_2d_ceil", "test_averagepool_2d_default", "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad", "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad", "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides", "test_averagepool_2d_same_lower", "test_averagepool_2d_same_upper",
    "test_averagepool_2d_strides", "test_maxpool_2d_ceil", "test_maxpool_2d_default", "test_maxpool_2d_pads",
    "test_maxpool_2d_precomputed_pads", "test_maxpool_2d_precomputed_same_upper", "test_maxpool_2d_precomputed_strides",
    "test_maxpool_2d_same_lower", "test_maxpool_2d_same_upper", "test_maxpool_2d_strides",
    // dilations and Indices (shifted slices), uint8 (i8 bits with the top bit flipped)
    "test_maxpool_2d_dilations", "test_maxpool_with_argmax_2d_precomputed_pads",
    "test_maxpool_with_argmax_2d_precomputed_strides", "test_maxpool_2d_uint8",
    // global pools
    "test_globalaveragepool", "test_globalaveragepool_precomputed", "test_globalmaxpool",
    "test_globalmaxpool_precomputed",
    // MaxUnpool (tosa.scatter)
    "test_maxunpool_export_without_output_shape",
};
INSTANTIATE_TEST_SUITE_P(Node, OnnxPoolCase, ::testing::ValuesIn(kNodeCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

// output_shape (bound) pads the unpooled tensor at the end.
TEST(OnnxPool, MaxUnpoolWithOutputShape) { EXPECT_TRUE(runNodeCaseVerified("test_maxunpool_export_with_output_shape", {2})); }
TEST(OnnxPool, Pool3dVerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_maxpool_3d_default")); }
TEST(OnnxPool, DilatedVerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_maxpool_2d_dilations")); }

constexpr const char* kPytorch = "/usr/share/libonnx-testdata/data/pytorch-converted";
class OnnxPoolPytorchCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxPoolPytorchCase, Passes) { EXPECT_TRUE(runNodeCase(GetParam(), {}, kPytorch)); }
const std::vector<std::string> kPytorchCases = {
    "test_AvgPool1d", "test_AvgPool1d_stride", "test_AvgPool2d", "test_AvgPool2d_stride", "test_AvgPool3d",
    "test_AvgPool3d_stride", "test_AvgPool3d_stride1_pad0_gpu_input", "test_MaxPool1d", "test_MaxPool1d_stride",
    "test_MaxPool1d_stride_padding_dilation", "test_MaxPool2d", "test_MaxPool2d_stride_padding_dilation",
    "test_MaxPool3d", "test_MaxPool3d_stride", "test_MaxPool3d_stride_padding",
};
INSTANTIATE_TEST_SUITE_P(PytorchConverted, OnnxPoolPytorchCase, ::testing::ValuesIn(kPytorchCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

std::string poolModel(const std::string& op, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                      std::vector<Pb> attrs) {
  Pb g;
  g.msg(1, node({op, "pool", {"x"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", out));
  return model(g, 17);
}

Tensor runPool(const std::string& bytes, Tensor x) {
  auto m = onnx::importOnnxBytes(bytes, "pool.onnx", unchecked());
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  if (!m.isOk()) return {};
  auto s = Session::create(std::move(*m));
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  if (!s.isOk()) return {};
  RunResult r;
  Status st = (*s)->run({{"x", std::move(x)}}, r);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return st.isOk() && !r.outputs.empty() ? r.outputs[0].second : Tensor();
}

// LpPool p=1, kernel 2, pads 1/1 over [1, -2, 3]: windows [0,1] [1,-2] [-2,3] [3,0] -> 1, 3, 5, 3.
TEST(OnnxPool, LpPool1dHandComputed) {
  Tensor y = runPool(poolModel("LpPool", {1, 1, 3}, {1, 1, 4},
                               {intsAttr("kernel_shape", {2}), intsAttr("pads", {1, 1}), intAttr("p", 1)}),
                     Tensor::fromDoubles(DType::FP32, {1, 1, 3}, {1, -2, 3}));
  ASSERT_EQ(y.size(), 4);
  EXPECT_EQ(y.toDoubles(), (std::vector<double>{1, 3, 5, 3}));
}

// GlobalLpPool p=2 over [[3, 4], [0, 0]] = sqrt(9 + 16) = 5; an all-zero plane gives 0 (not NaN).
TEST(OnnxPool, GlobalLpPoolHandComputed) {
  Tensor y = runPool(poolModel("GlobalLpPool", {1, 2, 2, 2}, {1, 2, 1, 1}, {}),
                     Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, {3, 4, 0, 0, 0, 0, 0, 0}));
  ASSERT_EQ(y.size(), 2);
  EXPECT_NEAR(y.getFloat(0), 5.0, 1e-5);
  EXPECT_EQ(y.getFloat(1), 0.0);
}

void expectImportError(const std::string& bytes, StatusCode code, const std::string& part) {
  auto m = onnx::importOnnxBytes(bytes, "pool.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), code) << m.status().toString();
  EXPECT_NE(m.status().message().find(part), std::string::npos) << m.status().toString();
}

TEST(OnnxPool, UnsupportedAndMalformedForms) {
  expectImportError(poolModel("AveragePool", {1, 1, 6, 6}, {1, 1, 4, 4},
                              {intsAttr("kernel_shape", {2, 2}), intsAttr("dilations", {2, 2})}),
                    StatusCode::Unsupported, "'pool' (AveragePool): AveragePool with dilations");
  expectImportError(poolModel("MaxPool", {1, 1, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1}, {intsAttr("kernel_shape", {2, 2, 2, 2})}),
                    StatusCode::Unsupported, "'pool' (MaxPool): 4-D pooling");
  expectImportError(poolModel("MaxPool", {1, 1, 4, 4}, {1, 1, 3, 3}, {intsAttr("kernel_shape", {2})}),
                    StatusCode::InvalidArgument, "'pool' (MaxPool): kernel_shape must have 2 values");
  expectImportError(poolModel("MaxPool", {1, 1, 4, 4}, {1, 1, 3, 3},
                              {intsAttr("kernel_shape", {2, 2}), Pb().bytes(1, "auto_pad").bytes(4, "SAME").varint(20, 3)}),
                    StatusCode::InvalidArgument, "auto_pad 'SAME' is not");
}

}  // namespace
}  // namespace tosakit::onnxtest
