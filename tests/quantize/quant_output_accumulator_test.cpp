// A conv whose value reaches only the fp32 outputs (through a reshape here) hands on its int32 accumulator
// dequantized per channel instead of requantizing it to 8 bits (docs/QUANTIZATION.md, "Outputs"): the output
// of a landmark model holds pixel coordinates next to small depths in one tensor, which no one 8-bit grid
// serves. Expected values by hand: y_c = S_x S_w[c] (sum_i q_x[i] q_w[c][i] + q_b[c]) with q_x = round(x / S_x),
// S_x = threshold / 127, S_w[c] = max|w_c| / 127, q_w = round(w / S_w), q_b = round(b / (S_x S_w)). The output's
// own threshold (far too small in the table) must not matter; with --quant-output it does (int8 output).
// And `calibrate --equalize-activations` on conv -> ReLU6 -> depthwise: a channel that calibration sees far
// below the others is scaled up to the tensor's range, the depthwise weights compensate, the float function
// is unchanged on the samples.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../cli/cli_test_util.h"
#include "calib_test_util.h"
#include "formats/npy/npy.h"
#include "ir/builder.h"
#include "tosakit/model_io.h"

using namespace tosakit;
using tosakit::testing::runTool;
namespace fs = std::filesystem;

namespace {

constexpr double kW[2][2] = {{0.5, -0.25}, {30.0, 2.0}};  // conv weights [out channel][in channel]
constexpr double kB[2] = {0.1, 100.0};
const std::vector<double> kX = {0.3, -0.7, 1.0, 0.2, -0.9, 0.55, 0.05, -0.4};  // x[1,2,2,2]

ir::Conv2dAttrs conv1x1() {
  ir::Conv2dAttrs ca;
  ca.pad = {0, 0, 0, 0};
  ca.accType = DType::FP32;
  return ca;
}

// x[1,2,2,2] -> conv2d 1x1 (2 -> 2 channels) 'conv' -> reshape [1,8] 'flat' -> y.
void writeConvModel(const std::string& path) {
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::FP32, {1, 2, 2, 2}), "x");
  auto* w = b.constant(Tensor::fromDoubles(DType::FP32, {2, 1, 1, 2}, {kW[0][0], kW[0][1], kW[1][0], kW[1][1]}));
  auto* bias = b.constant(Tensor::fromDoubles(DType::FP32, {2}, {kB[0], kB[1]}));
  auto* c = b.conv2d(x, w, bias, conv1x1(), "conv");
  auto* y = b.reshape(c, {1, 8}, "flat");
  b.output({y}, {"y"});
  ASSERT_TRUE(saveModel(m, path).isOk());
}

class QuantOutputAccumulator : public tosakit::testing::ScratchDir {
 protected:
  std::string p(const std::string& name) const { return path(name); }
  Tensor runOutput(const std::string& model, const std::string& out) {
    auto r = runTool("run " + model + " --backend ref --inputs " + p("in.npz") + " -o " + out);
    EXPECT_EQ(r.exitCode, 0) << r.out;
    auto t = npy::readNpz(out);
    EXPECT_TRUE(t && !t->empty());
    return t && !t->empty() ? (*t)[0].second : Tensor();
  }
};

}  // namespace

TEST_F(QuantOutputAccumulator, ConvFeedingOnlyTheOutputIsDequantizedFromItsAccumulator) {
  writeConvModel(p("m.mlir"));
  const double thrX = 1.0;
  // The output thresholds are 1.0 where the values reach 140: a requantized output would saturate.
  std::ofstream(p("cali.txt")) << "# op_name threshold min max\nx " << thrX << " -1 1\nconv 1.0 -1 1\nflat 1.0 -1 1\n";
  ASSERT_TRUE(npy::writeNpz(p("in.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)}}).isOk());
  auto q = runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") + " -o " +
                   p("q.mlir"));
  ASSERT_EQ(q.exitCode, 0) << q.out;
  Tensor y = runOutput(p("q.mlir"), p("y.npz"));
  ASSERT_EQ(y.size(), 8);
  const double sx = thrX / 127;
  for (int pos = 0; pos < 4; ++pos) {
    for (int c = 0; c < 2; ++c) {
      double sw = std::max(std::fabs(kW[c][0]), std::fabs(kW[c][1])) / 127;
      double acc = std::round(kB[c] / (sx * sw));
      for (int i = 0; i < 2; ++i) acc += std::round(kX[size_t(pos * 2 + i)] / sx) * std::round(kW[c][i] / sw);
      EXPECT_NEAR(y.getFloat(pos * 2 + c), acc * sx * sw, 1e-5 * std::fabs(acc * sx * sw)) << pos << "," << c;
    }
  }
  // --quant-output: an int8 result on the output's (saturating) grid, as recorded.
  auto qo = runTool("quantize " + p("m.mlir") + " --quantize INT8 --quant-output --calibration-table " + p("cali.txt") +
                    " -o " + p("qo.mlir"));
  ASSERT_EQ(qo.exitCode, 0) << qo.out;
  Tensor yq = runOutput(p("qo.mlir"), p("yq.npz"));
  ASSERT_EQ(yq.dtype(), DType::I8);
  EXPECT_EQ(yq.getInt(1), 127);  // 100 + ... saturates at threshold 1.0
}

TEST_F(QuantOutputAccumulator, EqualizeActivationsScalesASmallRelu6ChannelAndKeepsTheFunction) {
  // x[1,2,2,2] -> conv 1x1 'conv1' -> ReLU6 'relu6' -> depthwise 1x1 'dw' -> y. Channel 1 of relu6 is
  // 0.01 * relu(x1) + 0.001 (x1 at most 0.55 on the sample: 0.0065), channel 0 reaches 6 (clipped).
  std::ofstream(p("ae.mlir")) << R"(func.func @main(%x: tensor<1x2x2x2xf32> loc("x")) -> tensor<1x2x2x2xf32> {
  %w1 = "tosa.const"() <{values = dense<[[[[10.0, 0.0]]], [[[0.0, 0.01]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b1 = "tosa.const"() <{values = dense<[0.0, 0.001]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %w2 = "tosa.const"() <{values = dense<[[[[1.0], [500.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %b2 = "tosa.const"() <{values = dense<[0.0, 0.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("conv1")
  %r = tosa.clamp %c1 {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("relu6")
  %y = tosa.depthwise_conv2d %r, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32> loc("dw")
  return %y : tensor<1x2x2x2xf32>
}
)";
  fs::create_directories(p("ae_data"));
  ASSERT_TRUE(npy::writeNpy(p("ae_data/s0.npy"), Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)).isOk());
  ASSERT_TRUE(npy::writeNpz(p("in.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)}}).isOk());
  auto c =
      runTool("calibrate " + p("ae.mlir") + " --dataset " + p("ae_data") +
              " --method minmax --equalize-activations --output-model " + p("ae_eq.mlir") + " -o " + p("ae_cali.txt"));
  ASSERT_EQ(c.exitCode, 0) << c.out;
  EXPECT_NE(c.out.find("activation equalization: 1 conv pair(s) equalized"), std::string::npos) << c.out;
  // relu6 channel 1: max a1 = 0.01 * 0.55 + 0.001 on the sample; channel 0 reaches 6 and stays. Scaled by
  // 6 / a1 the channel spans the tensor's range; dw's weight 500 becomes 500 * a1 / 6.
  const double a1 = 0.01 * 0.55 + 0.001;
  auto eq = loadModel(p("ae_eq.mlir"));
  ASSERT_TRUE(eq);
  const ir::Function& fn = *(*eq)->function("main");
  for (const auto& op : fn.body.ops) {
    if (op->loc.name != "dw" && op->loc.name != "conv1") continue;
    const Tensor& w = *op->operands[1]->definingOp->attr("values")->tensor;
    if (op->loc.name == "dw") {
      EXPECT_NEAR(w.getFloat(0), 1.0, 1e-6);
      EXPECT_NEAR(w.getFloat(1), 500.0 * a1 / 6.0, 1e-4);
    } else {
      EXPECT_NEAR(w.getFloat(3), 0.01 * 6.0 / a1, 1e-4);
    }
  }
  Tensor a = runOutput(p("ae.mlir"), p("ae_y.npz"));
  Tensor e = runOutput(p("ae_eq.mlir"), p("ae_eq_y.npz"));
  ASSERT_EQ(a.size(), e.size());
  for (int64_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a.getFloat(i), e.getFloat(i), 1e-4) << i;
}

TEST_F(QuantOutputAccumulator, Int16ConvFeedingOnlyTheOutputRescalesItsInt48Accumulator) {
  // TOSA's CAST has no int48 source: an INT16 conv (i48 accumulator) requantizes to int16 instead of handing
  // on its accumulator. Before, the graph held cast i48 -> fp32 and did not run. Here the table's thresholds
  // fit the values (|y| <= 140), so the output is within the weights' and the grids' rounding of float.
  writeConvModel(p("m16.mlir"));
  std::ofstream(p("cali16.txt"))
      << "# op_name threshold min max\nx 1.0 -1 1\nconv 160.0 -160 160\nflat 160.0 -160 160\n";
  ASSERT_TRUE(npy::writeNpz(p("in.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, kX)}}).isOk());
  auto q = runTool("quantize " + p("m16.mlir") + " --quantize INT16 --calibration-table " + p("cali16.txt") + " -o " +
                   p("q16.mlir"));
  ASSERT_EQ(q.exitCode, 0) << q.out;
  Tensor y = runOutput(p("q16.mlir"), p("y16.npz"));
  ASSERT_EQ(y.size(), 8);
  for (int pos = 0; pos < 4; ++pos)
    for (int c = 0; c < 2; ++c) {
      // Bound: the int8 weights' half step S_w/2 = max|w_c|/254 times |x|, the int16 input's half step times
      // |w|, the output's step 160/32767.
      double want = kB[c], sw = std::max(std::fabs(kW[c][0]), std::fabs(kW[c][1])) / 127, bound = 160.0 / 32767;
      for (int i = 0; i < 2; ++i) {
        double x = kX[size_t(pos * 2 + i)];
        want += kW[c][i] * x;
        bound += sw / 2 * std::fabs(x) + std::fabs(kW[c][i]) / 32767 / 2;
      }
      EXPECT_NEAR(y.getFloat(pos * 2 + c), want, bound) << pos << "," << c;
    }
}
