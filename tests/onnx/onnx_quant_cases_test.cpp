// Quantized ONNX operators against the ONNX backend node test data (independent oracle: ONNX's reference
// implementation). Scales and zero points (and conv weights) are bound: TOSA needs them as constants.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

TEST(OnnxQuant, QuantizeLinear) { EXPECT_TRUE(runNodeCase("test_quantizelinear", {1, 2})); }
TEST(OnnxQuant, QuantizeLinearAxis) { EXPECT_TRUE(runNodeCase("test_quantizelinear_axis", {1, 2})); }
TEST(OnnxQuant, DequantizeLinear) { EXPECT_TRUE(runNodeCase("test_dequantizelinear", {1, 2})); }
TEST(OnnxQuant, DequantizeLinearAxis) { EXPECT_TRUE(runNodeCase("test_dequantizelinear_axis", {1, 2})); }
TEST(OnnxQuant, QLinearConv) { EXPECT_TRUE(runNodeCase("test_qlinearconv", {1, 2, 3, 4, 5, 6, 7})); }
TEST(OnnxQuant, QLinearMatMul2D) { EXPECT_TRUE(runNodeCase("test_qlinearmatmul_2D", {1, 2, 4, 5, 6, 7})); }
TEST(OnnxQuant, QLinearMatMul3D) { EXPECT_TRUE(runNodeCase("test_qlinearmatmul_3D", {1, 2, 4, 5, 6, 7})); }
TEST(OnnxQuant, MatMulInteger) { EXPECT_TRUE(runNodeCase("test_matmulinteger", {2, 3})); }
TEST(OnnxQuant, ConvIntegerBasic) { EXPECT_TRUE(runNodeCase("test_basic_convinteger", {1, 2})); }
TEST(OnnxQuant, ConvIntegerWithPadding) { EXPECT_TRUE(runNodeCase("test_convinteger_with_padding", {1, 2})); }
TEST(OnnxQuant, ConvIntegerWithoutPadding) { EXPECT_TRUE(runNodeCase("test_convinteger_without_padding", {1, 2})); }
TEST(OnnxQuant, DynamicQuantizeLinear) { EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear")); }
TEST(OnnxQuant, DynamicQuantizeLinearMaxAdjusted) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_max_adjusted"));
}
TEST(OnnxQuant, DynamicQuantizeLinearMinAdjusted) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_min_adjusted"));
}

// The integer lowering really uses RESCALE and an i8 conv (not float math).
TEST(OnnxQuant, QLinearConvLowersToIntegerConvAndRescale) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(kOnnxNodeDataDir) / "test_qlinearconv";
  onnx::OnnxImportOptions opts;
  for (int i = 1; i <= 7; ++i) {
    auto t = onnx::loadOnnxTensor((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    ASSERT_TRUE(t.isOk());
    opts.bindInputs[t->first] = t->second;
  }
  auto m = onnx::importOnnx((dir / "model.onnx").string(), opts);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.conv2d"), 1);
  EXPECT_GE(countOps(**m, "tosa.rescale"), 2);
  const ir::Function* fn = (*m)->function("main");
  EXPECT_EQ(fn->inputs()[0]->type.dtype, DType::I8);  // uint8 input carried as i8 bits
}

// Run-time per-tensor scale and zero point: float fallback (x / scale rounded half to even, + zp, saturated).
TEST(OnnxQuant, QuantizeLinearRunTimeScale) { EXPECT_TRUE(runNodeCaseVerified("test_quantizelinear")); }
// The expanded DynamicQuantizeLinear computes y_scale/y_zero_point in the graph (ReduceMin/Max, Div, Clip,
// Round, Cast to uint8), so its QuantizeLinear sees run-time parameters.
TEST(OnnxQuant, DynamicQuantizeLinearExpanded) { EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_expanded")); }
TEST(OnnxQuant, DynamicQuantizeLinearMaxAdjustedExpanded) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_max_adjusted_expanded"));
}
TEST(OnnxQuant, DynamicQuantizeLinearMinAdjustedExpanded) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_min_adjusted_expanded"));
}

// A run-time per-axis scale is lowered in float arithmetic (issue 14): nothing bound, outputs as ONNX's reference.
TEST(OnnxQuant, RunTimePerAxisScale) {
  auto m = onnx::importOnnx(std::string(kOnnxNodeDataDir) + "/test_quantizelinear_axis/model.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ((*m)->function("main")->inputs().size(), 3u);  // x, y_scale, y_zero_point
  EXPECT_TRUE(runNodeCase("test_quantizelinear_axis"));
}

}  // namespace
}  // namespace tosakit::onnxtest
