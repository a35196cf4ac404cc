// `calibrate --equalize-activations` on a residual stream (docs/QUANTIZATION.md, "Weight rewrites"): two convs
// feed an add whose result two convs read (a conv2d and a depthwise), so no conv1 -> conv2 pair may rescale it
// alone. The whole stream gets one scale per channel, s_c = a_c / A (a_c: the largest |value| of channel c
// over the stream's tensors on the samples, A = max_c a_c): both producers divide their output channel c by
// s_c, both consumers multiply their input channel c by s_c, and the function stays exactly the same.
// Expected values computed here by hand from the sample.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../cli/cli_test_util.h"
#include "calib_test_util.h"
#include "formats/npy/npy.h"
#include "tosakit/model_io.h"

using namespace tosakit;
using tosakit::testing::runTool;
namespace fs = std::filesystem;

namespace {

const std::vector<double> kX = {0.3, -0.7, 1.0, 0.2, -0.9, 0.55, 0.05, -0.4};  // x[1,2,2,2], NHWC
constexpr double kP1[2] = {1.0, 0.01}, kB1[2] = {0.0, 0.001};                  // p1: diagonal 1x1 conv and bias
constexpr double kP2[2] = {0.5, 0.005};                                        // p2: diagonal 1x1 conv, bias 0
constexpr double kC[2] = {1.0, 20.0};                                          // c: 1x1 conv 2 -> 1 channel
constexpr double kDw[2] = {2.0, 300.0};                                        // dw: 1x1 depthwise

const char* kModel =
    R"(func.func @main(%x: tensor<1x2x2x2xf32> loc("x")) -> (tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>) {
  %w1 = "tosa.const"() <{values = dense<[[[[1.0, 0.0]]], [[[0.0, 0.01]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b1 = "tosa.const"() <{values = dense<[0.0, 0.001]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %w2 = "tosa.const"() <{values = dense<[[[[0.5, 0.0]]], [[[0.0, 0.005]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b2 = "tosa.const"() <{values = dense<[0.0, 0.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %wc = "tosa.const"() <{values = dense<[[[[1.0, 20.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %bc = "tosa.const"() <{values = dense<[0.5]> : tensor<1xf32>}> : () -> tensor<1xf32>
  %wd = "tosa.const"() <{values = dense<[[[[2.0], [300.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %bd = "tosa.const"() <{values = dense<[0.0, 0.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %t1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("p1")
  %t2 = tosa.conv2d %x, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("p2")
  %r = tosa.add %t1, %t2 : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("res")
  %y1 = tosa.conv2d %r, %wc, %bc, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32> loc("c")
  %y2 = tosa.depthwise_conv2d %r, %wd, %bd, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("dw")
  return %y1, %y2 : tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>
}
)";

class CalibResidualEqualization : public tosakit::testing::ScratchDir {
 protected:
  std::string p(const std::string& name) const { return path(name); }
  std::vector<std::pair<std::string, Tensor>> runOutputs(const std::string& model, const std::string& out) {
    auto r = runTool("run " + model + " --backend ref --inputs " + p("in.npz") + " -o " + out);
    EXPECT_EQ(r.exitCode, 0) << r.out;
    auto t = npy::readNpz(out);
    EXPECT_TRUE(t.isOk());
    return t ? *t : std::vector<std::pair<std::string, Tensor>>{};
  }
};

const Tensor& weights(const ir::Function& fn, const std::string& op, int operand = 1) {
  for (const auto& o : fn.body.ops)
    if (o->loc.name == op) return *o->operands[size_t(operand)]->definingOp->attr("values")->tensor;
  static Tensor none;
  ADD_FAILURE() << "no op " << op;
  return none;
}

}  // namespace

TEST_F(CalibResidualEqualization, OneScalePerChannelOverTheStreamKeepsTheFunction) {
  std::ofstream(p("m.mlir")) << kModel;
  fs::create_directories(p("data"));
  ASSERT_TRUE(npy::writeNpy(p("data/s0.npy"), Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)).isOk());
  ASSERT_TRUE(npy::writeNpz(p("in.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)}}).isOk());
  auto c = runTool("calibrate " + p("m.mlir") + " --dataset " + p("data") +
                   " --method minmax --equalize-activations --output-model " + p("eq.mlir") + " -o " + p("cali.txt"));
  ASSERT_EQ(c.exitCode, 0) << c.out;
  EXPECT_NE(c.out.find("0 conv pair(s) equalized, 1 residual stream(s)"), std::string::npos) << c.out;

  // a_c over p1, p2 and res at the 4 positions of the sample.
  double a[2] = {0, 0};
  for (int pos = 0; pos < 4; ++pos)
    for (int ch = 0; ch < 2; ++ch) {
      double x = kX[size_t(pos * 2 + ch)], t1 = kP1[ch] * x + kB1[ch], t2 = kP2[ch] * x;
      a[ch] = std::max({a[ch], std::fabs(t1), std::fabs(t2), std::fabs(t1 + t2)});
    }
  const double amax = std::max(a[0], a[1]);
  const double s[2] = {a[0] / amax, a[1] / amax};
  ASSERT_LT(s[1], 0.01);  // channel 1 is the small one: scaled up more than 100 times

  auto eq = loadModel(p("eq.mlir"));
  ASSERT_TRUE(eq);
  const ir::Function& fn = *(*eq)->function("main");
  for (int ch = 0; ch < 2; ++ch) {
    EXPECT_NEAR(weights(fn, "p1").getFloat(ch * 3), kP1[ch] / s[ch], 1e-5 * kP1[ch] / s[ch]) << ch;  // [oc][0][0][ic]
    EXPECT_NEAR(weights(fn, "p1", 2).getFloat(ch), kB1[ch] / s[ch], 1e-5 * std::fabs(kB1[ch] / s[ch]) + 1e-9) << ch;
    EXPECT_NEAR(weights(fn, "p2").getFloat(ch * 3), kP2[ch] / s[ch], 1e-5 * kP2[ch] / s[ch]) << ch;
    EXPECT_NEAR(weights(fn, "c").getFloat(ch), kC[ch] * s[ch], 1e-5 * kC[ch] * s[ch]) << ch;
    EXPECT_NEAR(weights(fn, "dw").getFloat(ch), kDw[ch] * s[ch], 1e-5 * kDw[ch] * s[ch]) << ch;
  }
  auto before = runOutputs(p("m.mlir"), p("y.npz"));
  auto after = runOutputs(p("eq.mlir"), p("y_eq.npz"));
  ASSERT_EQ(before.size(), 2u);
  ASSERT_EQ(after.size(), 2u);
  for (size_t o = 0; o < 2; ++o)
    for (int64_t i = 0; i < before[o].second.size(); ++i)
      EXPECT_NEAR(before[o].second.getFloat(i), after[o].second.getFloat(i),
                  1e-5 * (1 + std::fabs(before[o].second.getFloat(i))))
          << o << "," << i;
}

TEST_F(CalibResidualEqualization, AStreamTheFunctionReturnsIsLeftAlone) {
  // The same graph returning the add's result as well: the stream's scale would change an output.
  std::string m = kModel;
  m.replace(m.find("-> (tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>)"),
            std::string("-> (tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>)").size(),
            "-> (tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>)");
  m.replace(m.find("return %y1, %y2 : tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>"),
            std::string("return %y1, %y2 : tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>").size(),
            "return %y1, %y2, %r : tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>");
  std::ofstream(p("m3.mlir")) << m;
  fs::create_directories(p("data"));
  ASSERT_TRUE(npy::writeNpy(p("data/s0.npy"), Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)).isOk());
  auto c = runTool("calibrate " + p("m3.mlir") + " --dataset " + p("data") +
                   " --method minmax --equalize-activations --output-model " + p("eq3.mlir") + " -o " + p("cali3.txt"));
  ASSERT_EQ(c.exitCode, 0) << c.out;
  EXPECT_NE(c.out.find("0 conv pair(s) equalized, 0 residual stream(s)"), std::string::npos) << c.out;
}
