// Operands TOSA 1.0 takes as tensors import as run-time tensors (issue 14): conv/transposed-conv weights and
// biases, BatchNormalization parameters, Trilu's k, and quantization scales / zero points / weights. Each family
// runs ONNX backend node cases (libonnx-testdata: the expected outputs come from ONNX's reference
// implementation, an independent oracle) with NOTHING bound at import, and checks the parameter really is a
// function argument (not folded to a constant).
#include <gtest/gtest.h>

#include "onnx_node_case.h"

namespace tosakit::onnxtest {
namespace {

// The imported function takes `count` arguments when nothing is bound (every input run-time).
void expectArguments(const std::string& caseName, size_t count) {
  auto m = onnx::importOnnx(std::string(kOnnxNodeDataDir) + "/" + caseName + "/model.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ((*m)->function("main")->inputs().size(), count) << caseName;
}

TEST(OnnxRunTimeOperands, ConvWeightsAndBias) {
  EXPECT_TRUE(runNodeCase("test_basic_conv_with_padding"));
  EXPECT_TRUE(runNodeCase("test_conv_with_strides_and_asymmetric_padding"));
  EXPECT_TRUE(runNodeCase("test_conv_with_autopad_same"));
  expectArguments("test_basic_conv_with_padding", 2);  // x, W
}

TEST(OnnxRunTimeOperands, ConvTransposeWeights) {
  for (const char* c : {"test_convtranspose", "test_convtranspose_1d", "test_convtranspose_3d",
                        "test_convtranspose_dilations", "test_convtranspose_pads", "test_convtranspose_output_shape"})
    EXPECT_TRUE(runNodeCase(c)) << c;
  expectArguments("test_convtranspose_dilations", 2);
}

TEST(OnnxRunTimeOperands, BatchNormalizationParameters) {
  EXPECT_TRUE(runNodeCase("test_batchnorm_example"));
  EXPECT_TRUE(runNodeCase("test_batchnorm_epsilon"));
  expectArguments("test_batchnorm_example", 5);  // x, scale, B, mean, var
}

TEST(OnnxRunTimeOperands, TriluK) {
  for (const char* c : {"test_tril_neg", "test_tril_pos", "test_triu_neg", "test_triu_pos", "test_triu_out_pos",
                        "test_tril_out_neg", "test_triu_square_neg"})
    EXPECT_TRUE(runNodeCase(c)) << c;
  expectArguments("test_triu_pos", 2);  // x, k
}

TEST(OnnxRunTimeOperands, QuantizationParameters) {
  for (const char* c :
       {"test_dequantizelinear", "test_dequantizelinear_axis", "test_quantizelinear", "test_quantizelinear_axis",
        "test_qlinearmatmul_2D", "test_qlinearmatmul_3D", "test_qlinearconv", "test_matmulinteger",
        "test_convinteger_with_padding", "test_basic_convinteger"})
    EXPECT_TRUE(runNodeCase(c)) << c;
  expectArguments("test_qlinearconv", 8);  // x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp
  expectArguments("test_matmulinteger", 4);
}

}  // namespace
}  // namespace tosakit::onnxtest
