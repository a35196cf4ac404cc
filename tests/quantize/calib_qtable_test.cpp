// `tosakit qtable` (TPU-MLIR's run_qtable, 7.5.4): a calibration table whose last conv's threshold is far
// too small saturates that layer's int8 output (|min| near 3, threshold 0.5): all-int8 output cosine falls far
// below 0.95, and only keeping that layer and the clip that requantizes it in float lifts it above (the other
// layers' int8 error is small), so the search must return exactly those two; bad input as the README says. A fused group (QtableGroup): an input
// saturated by its thresholds before a transpose -> conv -> ReLU is repaired only when all three are float.
#include <cmath>

#include "../cli/cli_test_util.h"
#include "calib_test_util.h"
#include "formats/npy/npy.h"

namespace fs = std::filesystem;

namespace {

using namespace tosakit;
using tosakit::testing::runTool;

class QtableCli : public tosakit::testing::ScratchDir {
 protected:
  void SetUp() override {
    ScratchDir::SetUp();
    // conv2 feeds a clamp, not the output directly: an op whose value reaches only fp32 outputs hands on its
    // dequantized accumulator and never uses its own threshold (docs/QUANTIZATION.md), so here it is the clamp
    // after conv2 that requantizes it.
    std::string model = tosakit::testing::kConvReluConv;
    model.replace(model.find("  return %c2"), std::string::npos,
                  "  %y = tosa.clamp %c2 {max_val = 1.0E+2 : f32, min_val = -1.0E+2 : f32} : (tensor<1x4x4x2xf32>) -> "
                  "tensor<1x4x4x2xf32> loc(\"clip\")\n  return %y : tensor<1x4x4x2xf32>\n}\n");
    write("conv.mlir", model);
    fs::create_directories(path("data"));
    tosakit::testing::writeConvSamples(path("data"), 4, 5, [](const std::string& p, const std::vector<double>& v) {
      ASSERT_TRUE(npy::writeNpy(p, Tensor::fromDoubles(DType::FP32, {1, 4, 4, 2}, v)));
    });
    // Thresholds of the minmax table, except the output layer's: 0.5 instead of its |min| (about 3).
    ASSERT_EQ(runTool("calibrate " + path("conv.mlir") + " --dataset " + path("data") + " --method minmax -o " +
                      path("good.txt"))
                  .exitCode,
              0);
    std::ifstream in(path("good.txt"));
    std::string line, text;
    while (std::getline(in, line))
      text += (line.rfind("conv2 ", 0) == 0 ? "conv2 0.5000000" + line.substr(line.find(' ', 6)) : line) + "\n";
    write("bad.txt", text);
  }
  std::string read(const std::string& name) {
    std::ifstream f(path(name));
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
};

TEST_F(QtableCli, KeepsExactlyTheSaturatedOutputLayerInFloat) {
  auto r = runTool("qtable " + path("conv.mlir") + " --dataset " + path("data") + " --calibration-table " +
                   path("bad.txt") + " --expected-cos 0.95 --loss-table " + path("loss.txt") + " -o " + path("q.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::string q = read("q.txt");
  // A float conv2 alone is quantized again, with its own saturating threshold, by the INT8 clip after it: the
  // two together repair it.
  EXPECT_NE(q.find("# op_name quantize_mode\nclip F32\nconv2 F32\n"), std::string::npos) << q;
  EXPECT_EQ(q.find("conv1 F32"), std::string::npos) << q;
  EXPECT_NE(q.find("# float layers: 2 of 4"), std::string::npos) << q;
  // The loss table lists every layer.
  std::string loss = read("loss.txt");
  EXPECT_NE(loss.find("\nconv2 "), std::string::npos) << loss;
  EXPECT_NE(loss.find("\nclip "), std::string::npos) << loss;
  EXPECT_NE(loss.find("\nconv1 "), std::string::npos) << loss;
  EXPECT_NE(loss.find("\nrelu "), std::string::npos) << loss;
  // The table it wrote is one `tosakit quantize --quantize-table` accepts.
  auto qz = runTool("quantize " + path("conv.mlir") + " --quantize INT8 --calibration-table " + path("bad.txt") +
                    " --quantize-table " + path("q.txt") + " -o " + path("mixed.mlir"));
  EXPECT_EQ(qz.exitCode, 0) << qz.out;
}

// x (NCHW) -> transpose -> conv1 -> relu -> conv2, the stem of an imported CNN. With thresholds 0.2 for x and the
// transpose (the samples reach 2), every int8 form of those values saturates: the INT8 transpose quantizes x,
// a float conv1 reads that saturated transpose, an INT8 conv1 after a float transpose quantizes with the
// transpose's threshold, and a float ReLU after an INT8 conv1 reads a conv computed on saturated input. Only the
// three in float together carry x unclipped to conv2, whose input threshold (the ReLU's) is the minmax one.
constexpr const char* kTransposeConvReluConv =
    R"(func.func @main(%x: tensor<1x2x4x4xf32> loc("x")) -> tensor<1x4x4x2xf32> {
  %w1 = "tosa.const"() <{values = dense<[[[[8.0, -4.0]]], [[[0.05, 0.1]]], [[[1.0, -0.5]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b1 = "tosa.const"() <{values = dense<[0.5, 0.01, -0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %w2 = "tosa.const"() <{values = dense<[[[[0.1, 2.0, -1.0]]], [[[-0.2, 3.0, 0.5]]]]> : tensor<2x1x1x3xf32>}> : () -> tensor<2x1x1x3xf32>
  %b2 = "tosa.const"() <{values = dense<[0.0, 0.1]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %t = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x4x2xf32> loc("transpose")
  %c1 = tosa.conv2d %t, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32> loc("conv1")
  %r = tosa.clamp %c1 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("relu")
  %c2 = tosa.conv2d %r, %w2, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32> loc("conv2")
  return %c2 : tensor<1x4x4x2xf32>
}
)";

class QtableGroup : public tosakit::testing::ScratchDir {
 protected:
  void SetUp() override {
    ScratchDir::SetUp();
    write("stem.mlir", kTransposeConvReluConv);
    fs::create_directories(path("data"));
    tosakit::testing::writeConvSamples(path("data"), 4, 5, [](const std::string& p, const std::vector<double>& v) {
      ASSERT_TRUE(npy::writeNpy(p, Tensor::fromDoubles(DType::FP32, {1, 2, 4, 4}, v)));
    });
    ASSERT_EQ(runTool("calibrate " + path("stem.mlir") + " --dataset " + path("data") + " --method minmax -o " +
                      path("good.txt"))
                  .exitCode,
              0);
    std::ifstream in(path("good.txt"));
    std::string line, text;
    while (std::getline(in, line)) {
      bool saturate = line.rfind("x ", 0) == 0 || line.rfind("transpose ", 0) == 0;
      text +=
          (saturate ? line.substr(0, line.find(' ')) + " 0.2000000" + line.substr(line.find(' ', line.find(' ') + 1))
                    : line) +
          "\n";
    }
    write("bad.txt", text);
  }
  std::string read(const std::string& name) {
    std::ifstream f(path(name));
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }
};

TEST_F(QtableGroup, KeepsTheTransposeConvReluGroupInFloat) {
  ASSERT_NE(read("bad.txt").find("\nx 0.2000000 -"), std::string::npos) << read("bad.txt");
  ASSERT_NE(read("bad.txt").find("\ntranspose 0.2000000 -"), std::string::npos) << read("bad.txt");
  auto r =
      runTool("qtable " + path("stem.mlir") + " --dataset " + path("data") + " --calibration-table " + path("bad.txt") +
              " --expected-cos 0.95 --max-float-layers 3 --loss-table " + path("loss.txt") + " -o " + path("q.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::string q = read("q.txt");
  EXPECT_NE(q.find("# op_name quantize_mode\ntranspose F32\nconv1 F32\nrelu F32\n"), std::string::npos) << q;
  EXPECT_EQ(q.find("conv2 F32"), std::string::npos) << q;
  EXPECT_NE(q.find("# float layers: 3 of 4"), std::string::npos) << q;
  EXPECT_EQ(q.find("not reached"), std::string::npos) << q;
  // The group is the loss table's first candidate; its layers alone are listed too.
  std::string loss = read("loss.txt");
  EXPECT_NE(loss.find("# op_name cosine loss\ntranspose + conv1 + relu "), std::string::npos) << loss;
  for (const char* layer : {"\ntranspose ", "\nconv1 ", "\nrelu ", "\nconv2 "})
    EXPECT_NE(loss.find(layer), std::string::npos) << layer << "\n" << loss;
  auto qz = runTool("quantize " + path("stem.mlir") + " --quantize INT8 --calibration-table " + path("bad.txt") +
                    " --quantize-table " + path("q.txt") + " -o " + path("mixed.mlir"));
  EXPECT_EQ(qz.exitCode, 0) << qz.out;
}

TEST_F(QtableCli, NoFloatLayerWhenAllInt8ReachesTheTarget) {
  auto r = runTool("qtable " + path("conv.mlir") + " --dataset " + path("data") + " --calibration-table " +
                   path("bad.txt") + " --expected-cos 0.5 -o " + path("q.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::string q = read("q.txt");
  EXPECT_NE(q.find("# float layers: 0 of 4"), std::string::npos) << q;
  EXPECT_NE(q.find("# op_name quantize_mode\n"), std::string::npos) << q;
  EXPECT_EQ(q.substr(q.find("# op_name quantize_mode\n") + 24), "") << q;
}

// --outputs: the search measures the worst of the named outputs (each averaged over the samples). The model
// also returns the ReLU, which INT8 keeps well: naming it alone, all-INT8 reaches the target; by default every
// output counts and the saturated clip decides.
TEST_F(QtableCli, OutputsNamesTheOutputsThatMustReachTheTarget) {
  std::string model = read("conv.mlir");
  model.replace(model.find("-> tensor<1x4x4x2xf32> {"), std::string("-> tensor<1x4x4x2xf32> {").size(),
                "-> (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>) {");
  model.replace(model.find("return %y : tensor<1x4x4x2xf32>"), std::string("return %y : tensor<1x4x4x2xf32>").size(),
                "return %y, %r : tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>");
  write("two.mlir", model);
  auto base = "qtable " + path("two.mlir") + " --dataset " + path("data") + " --calibration-table " + path("bad.txt") +
      " --expected-cos 0.95 -o " + path("q.txt");
  auto relu = runTool(base + " --outputs out1");
  ASSERT_EQ(relu.exitCode, 0) << relu.out;
  EXPECT_NE(read("q.txt").find("# float layers: 0 of 4"), std::string::npos) << read("q.txt");
  auto both = runTool(base);
  ASSERT_EQ(both.exitCode, 0) << both.out;
  EXPECT_NE(read("q.txt").find("# op_name quantize_mode\nclip F32\nconv2 F32\n"), std::string::npos) << read("q.txt");
  fs::remove(path("q.txt"));
  auto unknown = runTool(base + " --outputs out1,nope");
  EXPECT_EQ(unknown.exitCode, 4) << unknown.out;
  EXPECT_NE(unknown.out.find("'nope' is not an output of the model"), std::string::npos) << unknown.out;
  EXPECT_FALSE(fs::exists(path("q.txt")));
}

// --worst-sample: the all-INT8 cosine the table reports is the smallest over the samples, not their mean; both
// recomputed here from `run` outputs of the float and the INT8 model, the cosine by hand.
TEST_F(QtableCli, WorstSampleMeasuresTheWorstSampleInsteadOfTheMean) {
  ASSERT_EQ(runTool("quantize " + path("conv.mlir") + " --quantize INT8 --calibration-table " + path("bad.txt") +
                    " -o " + path("int8.mlir"))
                .exitCode,
            0);
  double worst = 2, sum = 0;
  for (int k = 0; k < 4; ++k) {
    std::string in = path("data/s" + std::to_string(k) + ".npy");
    ASSERT_EQ(runTool("run " + path("conv.mlir") + " --input x=" + in + " -o " + path("f.npz")).exitCode, 0);
    ASSERT_EQ(runTool("run " + path("int8.mlir") + " --input x=" + in + " -o " + path("q.npz")).exitCode, 0);
    auto f = npy::readNpz(path("f.npz"));
    auto q = npy::readNpz(path("q.npz"));
    ASSERT_TRUE(f && q && f->size() == 1 && q->size() == 1);
    const Tensor &a = (*f)[0].second, &b = (*q)[0].second;
    double ab = 0, aa = 0, bb = 0;
    for (int64_t i = 0; i < a.size(); ++i)
      ab += a.getFloat(i) * b.getFloat(i), aa += a.getFloat(i) * a.getFloat(i), bb += b.getFloat(i) * b.getFloat(i);
    double c = ab / std::sqrt(aa * bb);
    worst = std::min(worst, c), sum += c;
  }
  ASSERT_LT(worst, sum / 4 - 1e-4);  // the samples differ, so the two measures do
  auto allInt8 = [&](const std::string& extra) {
    auto r = runTool("qtable " + path("conv.mlir") + " --dataset " + path("data") + " --calibration-table " +
                     path("bad.txt") + " --expected-cos 0.1 " + extra + " -o " + path("q.txt"));
    EXPECT_EQ(r.exitCode, 0) << r.out;
    std::string q = read("q.txt");
    size_t at = q.find("# all-INT8 cos: ");
    return at == std::string::npos ? -9.0 : std::stod(q.substr(at + 16));
  };
  EXPECT_NEAR(allInt8(""), sum / 4, 1e-5);
  EXPECT_NEAR(allInt8("--worst-sample"), worst, 1e-5);
}

TEST_F(QtableCli, BadInputIsOneLineExitFourAndNoTable) {
  write("unknown.txt", "x 1 -1 1\nconv9 1 0 1\n");
  fs::create_directories(path("empty"));
  struct Case {
    std::string args;
    std::string expect;
  } cases[] = {
      {"--dataset " + path("data") + " --calibration-table " + path("unknown.txt"),
       "calibration table names tensor 'conv9', which function @main does not have"},
      {"--dataset " + path("empty") + " --calibration-table " + path("bad.txt"), "dataset holds no sample"},
      {"--dataset " + path("data") + " --calibration-table " + path("missing.txt"), "cannot open calibration table"},
  };
  for (const auto& c : cases) {
    auto r = runTool("qtable " + path("conv.mlir") + " " + c.args + " -o " + path("q.txt"));
    EXPECT_EQ(r.exitCode, 4) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(path("q.txt")));
  }
}

}  // namespace

// --search block (the default) finds the greedy search's table from prefixes of the loss table: the same three
// layers, and no more quantized models measured than the greedy's (the counts `qtable` prints).
TEST_F(QtableGroup, BlockSearchFindsTheGreedyTable) {
  auto measured = [](const std::string& out) {
    size_t at = out.find(" quantized models measured");
    size_t from = out.rfind(' ', at - 1);
    return at == std::string::npos ? -1 : std::stoi(out.substr(from + 1, at - from - 1));
  };
  std::string base = "qtable " + path("stem.mlir") + " --dataset " + path("data") + " --calibration-table " +
      path("bad.txt") + " --expected-cos 0.95 --max-float-layers 3 -o " + path("q.txt");
  auto greedy = runTool(base + " --search greedy --sensitivity-num 0");
  ASSERT_EQ(greedy.exitCode, 0) << greedy.out;
  std::string greedyTable = read("q.txt");
  auto block = runTool(base);
  ASSERT_EQ(block.exitCode, 0) << block.out;
  std::string blockTable = read("q.txt");
  for (const std::string& t : {greedyTable, blockTable}) {
    EXPECT_NE(t.find("# float layers: 3 of 4"), std::string::npos) << t;
    for (const char* layer : {"\ntranspose F32\n", "\nconv1 F32\n", "\nrelu F32\n"})
      EXPECT_NE(t.find(layer), std::string::npos) << layer << "\n" << t;
  }
  EXPECT_GT(measured(block.out), 0) << block.out;
  EXPECT_LE(measured(block.out), measured(greedy.out)) << block.out << greedy.out;
}
