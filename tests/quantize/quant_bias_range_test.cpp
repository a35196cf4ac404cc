// `tosakit quantize --quantize INT8` on a convolution whose bias does not fit int32 at S_x * S_w: a channel
// with a bias of 1.0, a weight of 1e-3 and an input threshold of 1e-3 has S_x S_w = (1e-3/127)^2 = 6.2e-11,
// so the bias would be 1.6e10 accumulator units (> 2^31). The quantizer must coarsen that channel's weight
// scale (bias at most 2^30 units) rather than saturate the bias — a saturated bias means a wrong result and an
// accumulator overflow, which the reference backend refuses (TOSA: unpredictable). PP-OCRv4's recognizer has
// such channels. Expected values by hand: y_c = b_c + w_c x (a 1x1 convolution of one input channel).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../cli/cli_test_util.h"
#include "formats/npy/npy.h"
#include "ir/builder.h"
#include "tosakit/model_io.h"

using namespace tosakit;
using tosakit::testing::runTool;
namespace fs = std::filesystem;

namespace {

fs::path workDir() {
  fs::path d = fs::path(TOSAKIT_BINARY_DIR) / "quantize-tests" / "bias_range";
  fs::create_directories(d);
  return d;
}
std::string p(const std::string& name) { return (workDir() / name).string(); }

constexpr double kW[2] = {1e-3, 0.5};  // weights of output channels 0 and 1
constexpr double kB[2] = {1.0, 0.1};   // biases
constexpr double kX[4] = {1e-3, -1e-3, 5e-4, 0.0};

// x[1,2,2,1] -> conv2d 1x1, two output channels 'conv' -> y.
void writeModel(const std::string& path) {
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::FP32, {1, 2, 2, 1}), "x");
  auto* w = b.constant(Tensor::fromDoubles(DType::FP32, {2, 1, 1, 1}, {kW[0], kW[1]}), "conv/weight");
  auto* bias = b.constant(Tensor::fromDoubles(DType::FP32, {2}, {kB[0], kB[1]}), "conv/bias");
  ir::Conv2dAttrs ca;
  ca.pad = {0, 0, 0, 0};
  ca.accType = DType::FP32;
  auto* c = b.conv2d(x, w, bias, ca, "conv");
  b.output({c}, {"y"});
  ASSERT_TRUE(saveModel(m, path).isOk());
}

}  // namespace

TEST(QuantBiasRange, LargeBiasOnTinyScalesIsExactNotSaturated) {
  writeModel(p("m.mlir"));
  // Thresholds: the input's 1e-3 (its range), the output's 1.0 (channel 0 is 1 +- 1e-6).
  std::ofstream(p("cali.txt")) << "# op_name threshold min max\nx 0.001 -0.001 0.001\nconv 1.0 0.0995 1.000001\n";
  ASSERT_TRUE(
      npy::writeNpz(p("in.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {1, 2, 2, 1}, {kX[0], kX[1], kX[2], kX[3]})}})
          .isOk());
  auto q = runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") + " -o " +
                   p("q.mlir"));
  ASSERT_EQ(q.exitCode, 0) << q.out;
  for (std::string backend : {"ref", "fast"}) {
    std::string out = p("y_" + backend + ".npz");
    auto r = runTool("run " + p("q.mlir") + " --inputs " + p("in.npz") + " -o " + out + " --backend " + backend);
    ASSERT_EQ(r.exitCode, 0) << backend << ": " << r.out;
    auto y = npy::readNpz(out);
    ASSERT_TRUE(y.isOk());
    const Tensor& t = (*y)[0].second;
    ASSERT_EQ(t.size(), 8);
    // Output step 1/127: the int8 result is the float one rounded to that grid (half a step), plus the input's
    // and weights' rounding, which is far below it here.
    const double tol = 0.5 / 127 + 1e-4;
    for (int i = 0; i < 4; ++i)
      for (int c = 0; c < 2; ++c)
        EXPECT_NEAR(t.getFloat(i * 2 + c), kB[c] + kW[c] * kX[i], tol) << backend << " pixel " << i << " channel " << c;
  }
}
