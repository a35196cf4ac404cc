// Activations, the softmax family and the normalization layers against the ONNX backend node test data
// (independent oracle: ONNX's reference implementation), plus hand-built models for operators newer than the
// test data (Gelu, Mish, GroupNormalization) and LpNormalization, with expected values computed by hand
// (formulas in the comments, evaluated with a calculator), and the unsupported forms.
// Bound inputs: Clip min/max, PRelu slope (one case bound, one run-time), LayerNormalization / InstanceNormalization
// scale and bias (model parameters; InstanceNormalization also once at run time).
#include <cstdlib>
#include <fstream>

#include "onnx_node_case.h"
#include "onnx_test_util.h"
#include "tosakit/model_io.h"

namespace tosakit::onnxtest {
namespace {

// ---- node cases: activations and the softmax family ----
TEST(OnnxActivation, Celu) { EXPECT_TRUE(runNodeCase("test_celu")); }
TEST(OnnxActivation, Clip) { EXPECT_TRUE(runNodeCase("test_clip", {1, 2})); }
TEST(OnnxActivation, ClipDefaultInbounds) { EXPECT_TRUE(runNodeCase("test_clip_default_inbounds")); }
TEST(OnnxActivation, ClipDefaultInt8Inbounds) { EXPECT_TRUE(runNodeCase("test_clip_default_int8_inbounds")); }
TEST(OnnxActivation, ClipDefaultInt8Max) { EXPECT_TRUE(runNodeCase("test_clip_default_int8_max", {1})); }
TEST(OnnxActivation, ClipDefaultInt8Min) { EXPECT_TRUE(runNodeCase("test_clip_default_int8_min", {1})); }
TEST(OnnxActivation, ClipDefaultMax) { EXPECT_TRUE(runNodeCase("test_clip_default_max", {1})); }
TEST(OnnxActivation, ClipDefaultMin) { EXPECT_TRUE(runNodeCase("test_clip_default_min", {1})); }
TEST(OnnxActivation, ClipExample) { EXPECT_TRUE(runNodeCase("test_clip_example", {1, 2})); }
TEST(OnnxActivation, ClipInbounds) { EXPECT_TRUE(runNodeCase("test_clip_inbounds", {1, 2})); }
TEST(OnnxActivation, ClipOutbounds) { EXPECT_TRUE(runNodeCase("test_clip_outbounds", {1, 2})); }
TEST(OnnxActivation, ClipSplitbounds) { EXPECT_TRUE(runNodeCase("test_clip_splitbounds", {1, 2})); }
TEST(OnnxActivation, Elu) { EXPECT_TRUE(runNodeCase("test_elu")); }
TEST(OnnxActivation, EluDefault) { EXPECT_TRUE(runNodeCase("test_elu_default")); }
TEST(OnnxActivation, EluExample) { EXPECT_TRUE(runNodeCase("test_elu_example")); }
TEST(OnnxActivation, HardmaxAxis0) { EXPECT_TRUE(runNodeCase("test_hardmax_axis_0")); }
TEST(OnnxActivation, HardmaxAxis1) { EXPECT_TRUE(runNodeCase("test_hardmax_axis_1")); }
TEST(OnnxActivation, HardmaxAxis2) { EXPECT_TRUE(runNodeCase("test_hardmax_axis_2")); }
TEST(OnnxActivation, HardmaxDefaultAxis) { EXPECT_TRUE(runNodeCase("test_hardmax_default_axis")); }
TEST(OnnxActivation, HardmaxExample) { EXPECT_TRUE(runNodeCase("test_hardmax_example")); }
TEST(OnnxActivation, HardmaxNegativeAxis) { EXPECT_TRUE(runNodeCase("test_hardmax_negative_axis")); }
TEST(OnnxActivation, HardmaxOneHot) { EXPECT_TRUE(runNodeCase("test_hardmax_one_hot")); }
TEST(OnnxActivation, Hardsigmoid) { EXPECT_TRUE(runNodeCase("test_hardsigmoid")); }
TEST(OnnxActivation, HardsigmoidDefault) { EXPECT_TRUE(runNodeCase("test_hardsigmoid_default")); }
TEST(OnnxActivation, HardsigmoidExample) { EXPECT_TRUE(runNodeCase("test_hardsigmoid_example")); }
TEST(OnnxActivation, Hardswish) { EXPECT_TRUE(runNodeCase("test_hardswish")); }
TEST(OnnxActivation, Leakyrelu) { EXPECT_TRUE(runNodeCase("test_leakyrelu")); }
TEST(OnnxActivation, LeakyreluDefault) { EXPECT_TRUE(runNodeCase("test_leakyrelu_default")); }
TEST(OnnxActivation, LeakyreluExample) { EXPECT_TRUE(runNodeCase("test_leakyrelu_example")); }
TEST(OnnxActivation, LogsoftmaxAxis0) { EXPECT_TRUE(runNodeCase("test_logsoftmax_axis_0")); }
TEST(OnnxActivation, LogsoftmaxAxis1) { EXPECT_TRUE(runNodeCase("test_logsoftmax_axis_1")); }
TEST(OnnxActivation, LogsoftmaxAxis2) { EXPECT_TRUE(runNodeCase("test_logsoftmax_axis_2")); }
TEST(OnnxActivation, LogsoftmaxDefaultAxis) { EXPECT_TRUE(runNodeCase("test_logsoftmax_default_axis")); }
TEST(OnnxActivation, LogsoftmaxExample1) { EXPECT_TRUE(runNodeCase("test_logsoftmax_example_1")); }
TEST(OnnxActivation, LogsoftmaxLargeNumber) { EXPECT_TRUE(runNodeCase("test_logsoftmax_large_number")); }
TEST(OnnxActivation, LogsoftmaxNegativeAxis) { EXPECT_TRUE(runNodeCase("test_logsoftmax_negative_axis")); }
TEST(OnnxActivation, PreluBroadcast) { EXPECT_TRUE(runNodeCase("test_prelu_broadcast")); }
TEST(OnnxActivation, PreluExample) { EXPECT_TRUE(runNodeCase("test_prelu_example", {1})); }
TEST(OnnxActivation, Relu) { EXPECT_TRUE(runNodeCase("test_relu")); }
TEST(OnnxActivation, Selu) { EXPECT_TRUE(runNodeCase("test_selu")); }
TEST(OnnxActivation, SeluDefault) { EXPECT_TRUE(runNodeCase("test_selu_default")); }
TEST(OnnxActivation, SeluExample) { EXPECT_TRUE(runNodeCase("test_selu_example")); }
TEST(OnnxActivation, ShrinkHard) { EXPECT_TRUE(runNodeCase("test_shrink_hard")); }
TEST(OnnxActivation, ShrinkSoft) { EXPECT_TRUE(runNodeCase("test_shrink_soft")); }
TEST(OnnxActivation, Sigmoid) { EXPECT_TRUE(runNodeCase("test_sigmoid")); }
TEST(OnnxActivation, SigmoidExample) { EXPECT_TRUE(runNodeCase("test_sigmoid_example")); }
TEST(OnnxActivation, SoftmaxAxis0) { EXPECT_TRUE(runNodeCase("test_softmax_axis_0")); }
TEST(OnnxActivation, SoftmaxAxis1) { EXPECT_TRUE(runNodeCase("test_softmax_axis_1")); }
TEST(OnnxActivation, SoftmaxAxis2) { EXPECT_TRUE(runNodeCase("test_softmax_axis_2")); }
TEST(OnnxActivation, SoftmaxDefaultAxis) { EXPECT_TRUE(runNodeCase("test_softmax_default_axis")); }
TEST(OnnxActivation, SoftmaxExample) { EXPECT_TRUE(runNodeCase("test_softmax_example")); }
TEST(OnnxActivation, SoftmaxLargeNumber) { EXPECT_TRUE(runNodeCase("test_softmax_large_number")); }
TEST(OnnxActivation, SoftmaxNegativeAxis) { EXPECT_TRUE(runNodeCase("test_softmax_negative_axis")); }
TEST(OnnxActivation, Softplus) { EXPECT_TRUE(runNodeCase("test_softplus")); }
TEST(OnnxActivation, SoftplusExample) { EXPECT_TRUE(runNodeCase("test_softplus_example")); }
TEST(OnnxActivation, Softsign) { EXPECT_TRUE(runNodeCase("test_softsign")); }
TEST(OnnxActivation, SoftsignExample) { EXPECT_TRUE(runNodeCase("test_softsign_example")); }
TEST(OnnxActivation, Tanh) { EXPECT_TRUE(runNodeCase("test_tanh")); }
TEST(OnnxActivation, TanhExample) { EXPECT_TRUE(runNodeCase("test_tanh_example")); }
TEST(OnnxActivation, Thresholdedrelu) { EXPECT_TRUE(runNodeCase("test_thresholdedrelu")); }
TEST(OnnxActivation, ThresholdedreluDefault) { EXPECT_TRUE(runNodeCase("test_thresholdedrelu_default")); }
TEST(OnnxActivation, ThresholdedreluExample) { EXPECT_TRUE(runNodeCase("test_thresholdedrelu_example")); }

// ---- node cases: normalization ----
TEST(OnnxActivationNorm, InstancenormEpsilon) { EXPECT_TRUE(runNodeCase("test_instancenorm_epsilon", {1, 2})); }
TEST(OnnxActivationNorm, InstancenormExample) { EXPECT_TRUE(runNodeCase("test_instancenorm_example")); }
TEST(OnnxActivationNorm, LayerNormalization2dAxis0) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis0", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization2dAxis1) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis1", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization2dAxisNegative1) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis_negative_1", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization2dAxisNegative2) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis_negative_2", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization3dAxis0Epsilon) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis0_epsilon", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization3dAxis1Epsilon) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis1_epsilon", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization3dAxis2Epsilon) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis2_epsilon", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization3dAxisNegative1Epsilon) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis_negative_1_epsilon", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization3dAxisNegative2Epsilon) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis_negative_2_epsilon", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization3dAxisNegative3Epsilon) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis_negative_3_epsilon", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxis0) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis0", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxis1) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis1", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxis2) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis2", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxis3) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis3", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxisNegative1) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_1", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxisNegative2) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_2", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxisNegative3) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_3", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalization4dAxisNegative4) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_4", {1, 2}));
}
TEST(OnnxActivationNorm, LayerNormalizationDefaultAxis) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_default_axis", {1, 2}));
}
TEST(OnnxActivationNorm, Lrn) { EXPECT_TRUE(runNodeCase("test_lrn")); }
TEST(OnnxActivationNorm, LrnDefault) { EXPECT_TRUE(runNodeCase("test_lrn_default")); }
TEST(OnnxActivationNorm, Mvn) { EXPECT_TRUE(runNodeCase("test_mvn")); }

// ---- node cases: _expanded function bodies (basic ops of the other families) ----
TEST(OnnxActivationExpanded, CeluExpanded) { EXPECT_TRUE(runNodeCase("test_celu_expanded")); }
TEST(OnnxActivationExpanded, HardswishExpanded) { EXPECT_TRUE(runNodeCase("test_hardswish_expanded")); }
TEST(OnnxActivationExpanded, LayerNormalization2dAxis0Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis0_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization2dAxis1Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis1_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization2dAxisNegative1Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis_negative_1_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization2dAxisNegative2Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_2d_axis_negative_2_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization3dAxis0EpsilonExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis0_epsilon_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization3dAxis1EpsilonExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis1_epsilon_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization3dAxis2EpsilonExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis2_epsilon_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization3dAxisNegative1EpsilonExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis_negative_1_epsilon_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization3dAxisNegative2EpsilonExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis_negative_2_epsilon_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization3dAxisNegative3EpsilonExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_3d_axis_negative_3_epsilon_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxis0Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis0_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxis1Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis1_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxis2Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis2_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxis3Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis3_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxisNegative1Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_1_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxisNegative2Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_2_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxisNegative3Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_3_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalization4dAxisNegative4Expanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_4d_axis_negative_4_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LayerNormalizationDefaultAxisExpanded) {
  EXPECT_TRUE(runNodeCase("test_layer_normalization_default_axis_expanded", {1, 2}));
}
TEST(OnnxActivationExpanded, LogsoftmaxAxis0Expanded) { EXPECT_TRUE(runNodeCase("test_logsoftmax_axis_0_expanded")); }
TEST(OnnxActivationExpanded, LogsoftmaxAxis1Expanded) { EXPECT_TRUE(runNodeCase("test_logsoftmax_axis_1_expanded")); }
TEST(OnnxActivationExpanded, LogsoftmaxAxis2Expanded) { EXPECT_TRUE(runNodeCase("test_logsoftmax_axis_2_expanded")); }
TEST(OnnxActivationExpanded, LogsoftmaxDefaultAxisExpanded) {
  EXPECT_TRUE(runNodeCase("test_logsoftmax_default_axis_expanded"));
}
TEST(OnnxActivationExpanded, LogsoftmaxExample1Expanded) {
  EXPECT_TRUE(runNodeCase("test_logsoftmax_example_1_expanded"));
}
TEST(OnnxActivationExpanded, LogsoftmaxLargeNumberExpanded) {
  EXPECT_TRUE(runNodeCase("test_logsoftmax_large_number_expanded"));
}
TEST(OnnxActivationExpanded, LogsoftmaxNegativeAxisExpanded) {
  EXPECT_TRUE(runNodeCase("test_logsoftmax_negative_axis_expanded"));
}
TEST(OnnxActivationExpanded, MvnExpanded) { EXPECT_TRUE(runNodeCase("test_mvn_expanded")); }
TEST(OnnxActivationExpanded, SoftmaxAxis0Expanded) { EXPECT_TRUE(runNodeCase("test_softmax_axis_0_expanded")); }
TEST(OnnxActivationExpanded, SoftmaxAxis1Expanded) { EXPECT_TRUE(runNodeCase("test_softmax_axis_1_expanded")); }
TEST(OnnxActivationExpanded, SoftmaxAxis2Expanded) { EXPECT_TRUE(runNodeCase("test_softmax_axis_2_expanded")); }
TEST(OnnxActivationExpanded, SoftmaxDefaultAxisExpanded) {
  EXPECT_TRUE(runNodeCase("test_softmax_default_axis_expanded"));
}
TEST(OnnxActivationExpanded, SoftmaxExampleExpanded) { EXPECT_TRUE(runNodeCase("test_softmax_example_expanded")); }
TEST(OnnxActivationExpanded, SoftmaxLargeNumberExpanded) {
  EXPECT_TRUE(runNodeCase("test_softmax_large_number_expanded"));
}
TEST(OnnxActivationExpanded, SoftmaxNegativeAxisExpanded) {
  EXPECT_TRUE(runNodeCase("test_softmax_negative_axis_expanded"));
}

// Run-time Clip bounds (min/max computed in the graph) lower to MAXIMUM/MINIMUM instead of CLAMP.
TEST(OnnxActivation, ClipRunTimeBounds) { EXPECT_TRUE(runNodeCase("test_clip")); }
TEST(OnnxActivation, ClipSplitboundsRunTime) { EXPECT_TRUE(runNodeCase("test_clip_splitbounds")); }
TEST(OnnxActivation, ClipDefaultInt8MinRunTime) { EXPECT_TRUE(runNodeCase("test_clip_default_int8_min")); }
TEST(OnnxActivation, ClipDefaultInt8MaxRunTime) { EXPECT_TRUE(runNodeCase("test_clip_default_int8_max")); }

// The constant-bound Clip is one CLAMP with integer bounds for int8.
TEST(OnnxActivation, ClipInt8IsOneClamp) {
  const std::string dir = std::string(kOnnxNodeDataDir) + "/test_clip_default_int8_min";
  onnx::OnnxImportOptions opts;
  auto t = onnx::loadOnnxTensor(dir + "/test_data_set_0/input_1.pb");
  ASSERT_TRUE(t.isOk());
  opts.bindInputs[t->first] = t->second;
  auto m = onnx::importOnnx(dir + "/model.onnx", opts);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.clamp"), 1);
  EXPECT_EQ((*m)->function("main")->inputs()[0]->type.dtype, DType::I8);
}

// The MLIR written for each lowering passes upstream mlir-opt-22 (parse + TOSA verifiers) when installed.
TEST(OnnxActivation, LoweringsPassMlirOpt) {
  if (std::system("command -v mlir-opt-22 >/dev/null 2>&1") != 0) GTEST_SKIP() << "mlir-opt-22 not installed";
  const std::vector<std::pair<std::string, std::set<int>>> cases = {
      {"test_relu", {}},
      {"test_clip", {1, 2}},
      {"test_clip", {}},
      {"test_clip_default_int8_min", {1}},
      {"test_clip_default_int8_max", {}},
      {"test_leakyrelu", {}},
      {"test_prelu_broadcast", {}},
      {"test_prelu_example", {1}},
      {"test_elu", {}},
      {"test_selu", {}},
      {"test_celu", {}},
      {"test_softplus", {}},
      {"test_softsign", {}},
      {"test_thresholdedrelu", {}},
      {"test_shrink_soft", {}},
      {"test_hardmax_axis_1", {}},
      {"test_softmax_axis_0", {}},
      {"test_logsoftmax_axis_1", {}},
      {"test_layer_normalization_3d_axis1_epsilon", {1, 2}},
      {"test_instancenorm_example", {}},
      {"test_mvn", {}},
      {"test_lrn", {}},
      {"test_hardsigmoid", {}},
      {"test_hardswish", {}}};
  for (const auto& [name, bind] : cases) {
    const std::string dir = std::string(kOnnxNodeDataDir) + "/" + name;
    onnx::OnnxImportOptions opts;
    for (int i : bind) {
      auto t = onnx::loadOnnxTensor(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
      ASSERT_TRUE(t.isOk()) << t.status().toString();
      opts.bindInputs[t->first] = t->second;
    }
    auto m = onnx::importOnnx(dir + "/model.onnx", opts);
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    const std::string mlir = tempPath(name + "_act.mlir"), err = tempPath(name + "_act.err");
    ASSERT_TRUE(saveModel(**m, mlir).isOk());
    int rc = std::system(("mlir-opt-22 '" + mlir + "' -o /dev/null 2>'" + err + "'").c_str());
    std::ifstream es(err);
    std::string errors((std::istreambuf_iterator<char>(es)), std::istreambuf_iterator<char>());
    EXPECT_EQ(rc, 0) << name << ": " << errors;
    std::filesystem::remove(mlir);
    std::filesystem::remove(err);
  }
}

// ---- hand-built models ----

inline Pb strAttr(const std::string& name, const std::string& v) {
  return Pb().bytes(1, name).bytes(4, v).varint(20, 3);  // AttributeProto.s, type STRING
}

// One node `op` on x (shape xs) -> y (shape xs), with extra initializers; returns y for the given x.
Result<Tensor> runHand(const std::string& op, const std::vector<Pb>& attrs, const Shape& xs, std::vector<double> x,
                       int opset, const std::vector<Pb>& inits = {}, const std::vector<std::string>& extraInputs = {}) {
  Pb g;
  std::vector<std::string> ins = {"x"};
  for (const auto& e : extraInputs) ins.push_back(e);
  g.msg(1, node({op, "n0", ins, {"y"}, attrs}));
  g.bytes(2, "g");
  for (const auto& i : inits) g.msg(5, i);
  g.msg(11, valueInfo("x", xs));
  g.msg(12, valueInfo("y", xs));
  onnx::OnnxImportOptions opts;
  opts.keepNchwIo = true;
  auto m = onnx::importOnnxBytes(model(g, opset), op + ".onnx", opts);
  if (!m) return m.status();
  auto s = Session::create(std::move(*m));
  if (!s) return s.status();
  RunResult r;
  TK_RETURN_IF_ERROR((*s)->run({{"x", Tensor::fromDoubles(DType::FP32, xs, x)}}, r));
  return r.outputs.at(0).second;
}

Tensor floats(Shape s, std::vector<double> v) { return Tensor::fromDoubles(DType::FP32, std::move(s), v); }

// Gelu(x) = x * Phi(x): Phi(-1) = 0.158655254, Phi(1) = 0.841344746, Phi(2) = 0.977249868.
TEST(OnnxActivation, GeluHandComputed) {
  auto y = runHand("Gelu", {}, {4}, {-1, 0, 1, 2}, 20);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y, floats({4}, {-0.158655254, 0, 0.841344746, 1.954499736}), 1e-4, 1e-6, "gelu");
}

// tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))); x = 1: tanh(0.833563) = 0.682384 -> 0.841192.
TEST(OnnxActivation, GeluTanhHandComputed) {
  auto y = runHand("Gelu", {strAttr("approximate", "tanh")}, {4}, {-1, 0, 1, 2}, 20);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y, floats({4}, {-0.158808009, 0, 0.841191991, 1.954597694}), 1e-4, 1e-6, "gelu tanh");
}

// Mish(x) = x tanh(ln(1 + e^x)): x = 1: ln(1 + e) = 1.313262, tanh = 0.865098; x = -1: ln(1 + 1/e) = 0.313262,
// tanh = 0.303401 -> -0.303401; x = 2: ln(1 + e^2) = 2.126928, tanh = 0.971979 -> 1.943959.
TEST(OnnxActivation, MishHandComputed) {
  auto y = runHand("Mish", {}, {4}, {-1, 0, 1, 2}, 18);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y, floats({4}, {-0.303401461, 0, 0.865098388, 1.943958960}), 1e-4, 1e-6, "mish");
}

// Softplus for large |x| (no overflow): softplus(100) = 100, softplus(-100) = e^-100 ~ 0.
TEST(OnnxActivation, SoftplusLargeInputs) {
  auto y = runHand("Softplus", {}, {2}, {100, -100}, 13);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y, floats({2}, {100, 0}), 1e-6, 1e-6, "softplus");
}

// LpNormalization along the last axis: p = 2: [3, 4] / 5, [1, -1] / sqrt(2); p = 1: [3, 4] / 7, [1, -1] / 2.
TEST(OnnxActivationNorm, LpNormalizationHandComputed) {
  auto y2 = runHand("LpNormalization", {intAttr("p", 2)}, {2, 2}, {3, 4, 1, -1}, 13);
  ASSERT_TRUE(y2.isOk()) << y2.status().toString();
  expectClose(*y2, floats({2, 2}, {0.6, 0.8, 0.707106781, -0.707106781}), 1e-5, 1e-6, "p2");
  auto y1 = runHand("LpNormalization", {intAttr("p", 1)}, {2, 2}, {3, 4, 1, -1}, 13);
  ASSERT_TRUE(y1.isOk()) << y1.status().toString();
  expectClose(*y1, floats({2, 2}, {3.0 / 7, 4.0 / 7, 0.5, -0.5}), 1e-5, 1e-6, "p1");
}

// GroupNormalization-18 (scale/bias per group), x [1, 4, 1, 2], 2 groups, eps 1e-5:
// group 0 = [1, 2, 3, 4]: mean 2.5, var 1.25 -> (v - 2.5) / sqrt(1.25001) = [-1.341635, -0.447212, 0.447212, 1.341635]
// group 1 = [5, 6, 7, 9]: mean 6.75, var 2.1875, scale 2, bias 1 -> 2 (v - 6.75) / sqrt(2.18751) + 1
//   = [-1.366427, -0.014183, 1.338061, 4.042548].
TEST(OnnxActivationNorm, GroupNormalizationHandComputed) {
  auto y = runHand("GroupNormalization", {intAttr("num_groups", 2)}, {1, 4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 9}, 18,
                   {floatTensor("s", {2}, {1, 2}), floatTensor("b", {2}, {0, 1})}, {"s", "b"});
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y,
              floats({1, 4, 1, 2},
                     {-1.341635420, -0.447211807, 0.447211807, 1.341635420, -1.366426504, -0.014182788, 1.338060929,
                      4.042548363}),
              1e-4, 1e-5, "group norm");
}

// Softmax-11 coerces the input to 2-D at `axis`: x [1, 2, 2] with axis 1 is one row of 4:
// x = ln [1, 2, 3, 4] -> [1, 2, 3, 4] / 10.
TEST(OnnxActivation, Softmax11CoercesTo2D) {
  auto y = runHand("Softmax", {intAttr("axis", 1)}, {1, 2, 2}, {0, std::log(2.0), std::log(3.0), std::log(4.0)}, 11);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y, floats({1, 2, 2}, {0.1, 0.2, 0.3, 0.4}), 1e-5, 1e-6, "softmax-11");
}

// Hardmax-11, same coercion: the first maximum of the whole row of 4 (ties: the first one).
TEST(OnnxActivation, Hardmax11CoercesTo2D) {
  auto y = runHand("Hardmax", {intAttr("axis", 1)}, {1, 2, 2}, {1, 5, 5, 2}, 11);
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  expectClose(*y, floats({1, 2, 2}, {0, 1, 0, 0}), 0, 0, "hardmax-11");
}

// float16 Softmax runs in float16: x = [0, ln 3] (ln 3 = 1.0986 in fp16) -> [0.25, 0.75].
TEST(OnnxActivation, SoftmaxFloat16) {
  Pb g;
  g.msg(1, node({"Softmax", "sm", {"x"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({2}, 10 /*FLOAT16*/)));
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType({2}, 10)));
  auto m = onnx::importOnnxBytes(model(g, 13), "sm16.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.cast"), 0);
  auto s = Session::create(std::move(*m));
  ASSERT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  ASSERT_TRUE((*s)->run({{"x", Tensor::fromDoubles(DType::FP16, {2}, {0, std::log(3.0)})}}, r).isOk());
  EXPECT_EQ(r.outputs.at(0).second.dtype(), DType::FP16);
  expectClose(r.outputs.at(0).second, floats({2}, {0.25, 0.75}), 2e-3, 1e-4, "softmax fp16");
}

// ---- unsupported forms: the error names the node and the reason ----

TEST(OnnxActivation, SoftmaxOfIntegersIsUnsupported) {
  Pb g;
  g.msg(1, node({"Softmax", "sm", {"x"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({2, 3}, 6 /*INT32*/)));
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType({2, 3}, 6)));
  auto m = onnx::importOnnxBytes(model(g, 13), "sm.onnx");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported);
  EXPECT_NE(m.status().message().find("'sm' (Softmax)"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("i32"), std::string::npos) << m.status().message();
}

TEST(OnnxActivation, ClipOfUint8IsUnsupported) {
  Pb g;
  g.msg(1, node({"Clip", "clip", {"x"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({4}, 2 /*UINT8*/)));
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType({4}, 2)));
  auto m = onnx::importOnnxBytes(model(g, 13), "clip.onnx");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported);
  EXPECT_NE(m.status().message().find("'clip' (Clip)"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("uint8"), std::string::npos) << m.status().message();
}

TEST(OnnxActivationNorm, LayerNormalizationDoubleStashIsUnsupported) {
  auto y = runHand("LayerNormalization", {intAttr("stash_type", 11)}, {2, 2}, {1, 2, 3, 4}, 17,
                   {floatTensor("s", {2}, {1, 1})}, {"s"});
  ASSERT_FALSE(y.isOk());
  EXPECT_EQ(y.status().code(), StatusCode::Unsupported);
  EXPECT_NE(y.status().message().find("stash_type"), std::string::npos) << y.status().message();
}

TEST(OnnxActivationNorm, GroupNormalizationBadGroupsIsInvalid) {
  auto y = runHand("GroupNormalization", {intAttr("num_groups", 3)}, {1, 4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 9}, 18,
                   {floatTensor("s", {3}, {1, 1, 1}), floatTensor("b", {3}, {0, 0, 0})}, {"s", "b"});
  ASSERT_FALSE(y.isOk());
  EXPECT_NE(y.status().message().find("num_groups"), std::string::npos) << y.status().message();
}

}  // namespace
}  // namespace tosakit::onnxtest
