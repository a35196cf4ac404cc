// `tosakit calibrate` through the CLI: every method's thresholds, min and max against numpy's own forward pass
// and threshold calculation (tests/quantize/calib_oracle.py); auto-tune, --search threshold, --we and --bc;
// bad input (exit codes, one-line errors, no output file).
#include <cmath>
#include <sstream>

#include "../cli/cli_test_util.h"
#include "calib_test_util.h"
#include "formats/npy/npy.h"
#include "tosakit/calibrate.h"
#include "tosakit/model_io.h"

namespace fs = std::filesystem;

namespace {

using namespace tosakit;
using tosakit::testing::oracle;
using tosakit::testing::runTool;

// x -> abs "magnitude" -> clamp(-2, 3) "clip": the oracle computes the same in numpy.
const char* kClampAbs = R"(func.func @main(%x: tensor<1x32x32x4xf32> loc("x")) -> tensor<1x32x32x4xf32> {
  %a = tosa.abs %x : (tensor<1x32x32x4xf32>) -> tensor<1x32x32x4xf32> loc("magnitude")
  %c = tosa.clamp %a {max_val = 3.0 : f32, min_val = -2.0 : f32} : (tensor<1x32x32x4xf32>) -> tensor<1x32x32x4xf32> loc("clip")
  return %c : tensor<1x32x32x4xf32>
}
)";

struct Expected {
  double min, max;
  std::map<std::string, double> threshold;
};

class CalibrateCli : public tosakit::testing::ScratchDir {
 protected:
  // Writes the clamp/abs model and `n` samples; returns numpy's expected table.
  std::map<std::string, Expected> clampAbsDataset(int n) {
    write("model.mlir", kClampAbs);
    fs::create_directories(path("data"));
    std::istringstream in(oracle("clampabs " + path("data") + " " + std::to_string(n) + " 2048"));
    std::map<std::string, Expected> want;
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string name, kv;
      Expected e;
      if (line.rfind("search ", 0) == 0) {  // "search METHOD COSINE"
        std::string method;
        double cos;
        ls >> name >> method >> cos;
        searchCosine[method] = cos;
        continue;
      }
      ls >> name >> e.min >> e.max;
      while (ls >> kv) e.threshold[kv.substr(0, kv.find('='))] = std::stod(kv.substr(kv.find('=') + 1));
      want[name] = e;
    }
    return want;
  }
  std::map<std::string, double> searchCosine;  // numpy's --search threshold similarities, by method
  CalibrationTable readTable(const std::string& p) {
    auto t = readCalibrationTable(p);
    EXPECT_TRUE(t) << t.status().toString();
    return t ? *t : CalibrationTable{};
  }
  // Conv model and a deterministic dataset of `n` .npy samples.
  void convDataset(int n) {
    write("conv.mlir", tosakit::testing::kConvReluConv);
    fs::create_directories(path("data"));
    tosakit::testing::writeConvSamples(path("data"), n, 99, [](const std::string& p, const std::vector<double>& v) {
      ASSERT_TRUE(npy::writeNpy(p, Tensor::fromDoubles(DType::FP32, {1, 4, 4, 2}, v)));
    });
  }
};

TEST_F(CalibrateCli, EveryMethodMatchesNumpy) {
  auto want = clampAbsDataset(6);
  ASSERT_EQ(want.size(), 3u);
  for (const char* method : {"minmax", "percentile9999", "mse", "octav", "aciq_gauss", "aciq_laplace", "kld"}) {
    std::string table = path(std::string(method) + ".txt");
    auto r = runTool("calibrate " + path("model.mlir") + " --dataset " + path("data") + " --method " + method +
                     " --tune-num 0 -o " + table);
    ASSERT_EQ(r.exitCode, 0) << method << ": " << r.out;
    CalibrationTable t = readTable(table);
    ASSERT_EQ(t.entries.size(), 3u) << method;
    EXPECT_EQ(t.entries[0].name, "x");  // inputs first, then ops in order
    EXPECT_EQ(t.entries[1].name, "magnitude");
    EXPECT_EQ(t.entries[2].name, "clip");
    EXPECT_EQ(t.headerValue("sample number"), "6");
    EXPECT_EQ(t.headerValue("histogram number"), "2048");
    EXPECT_EQ(t.headerValue("method"), method);
    for (const auto& e : t.entries) {
      const Expected& x = want.at(e.name);
      EXPECT_NEAR(e.min, x.min, 1e-6) << method << " " << e.name;
      EXPECT_NEAR(e.max, x.max, 1e-6) << method << " " << e.name;
      // The table prints 7 decimals.
      EXPECT_NEAR(e.threshold, x.threshold.at(method), 1e-6 + 1e-6 * x.max) << method << " " << e.name;
    }
  }
}

TEST_F(CalibrateCli, DefaultIsKldWithAutoTuneBetweenKldAndAbsmax) {
  auto want = clampAbsDataset(6);
  auto r = runTool("calibrate " + path("model.mlir") + " --dataset " + path("data") + " --input-num 4 -o " +
                   path("cali.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::ifstream f(path("cali.txt"));
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("# histogram number: 2048\n# sample number: 4\n# tune number: 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("###\n# op_name    threshold      min      max\n"), std::string::npos);
  CalibrationTable t = readTable(path("cali.txt"));
  EXPECT_EQ(t.headerValue("method"), "kld+tune");
  for (const auto& e : t.entries) {
    double absMax = std::max(std::fabs(e.min), std::fabs(e.max));
    EXPECT_GT(e.threshold, 0) << e.name;
    EXPECT_LE(e.threshold, absMax + 1e-6) << e.name;
  }
}

TEST_F(CalibrateCli, AutoTuneMatchesNumpy) {
  auto want = clampAbsDataset(6);
  auto r = runTool("calibrate " + path("model.mlir") + " --dataset " + path("data") +
                   " --tune-num 3 --backend ref -o " + path("cali.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  CalibrationTable t = readTable(path("cali.txt"));
  EXPECT_EQ(t.headerValue("tune number"), "3");
  for (const auto& e : t.entries)
    EXPECT_NEAR(e.threshold, want.at(e.name).threshold.at("kld_tune3"), 1e-6 + 1e-6 * e.max) << e.name;
}

TEST_F(CalibrateCli, SearchThresholdMatchesNumpyAndPicksTheMostSimilar) {
  clampAbsDataset(6);
  ASSERT_EQ(searchCosine.size(), 4u);
  auto r = runTool("calibrate " + path("model.mlir") + " --dataset " + path("data") +
                   " --search threshold --tune-num 3 --backend ref -o " + path("cali.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::string best;
  double bestCos = -2;
  for (const auto& [label, key] : std::vector<std::pair<std::string, std::string>>{
           {"kld+tune", "kld_tune3"}, {"octav", "octav"}, {"minmax", "minmax"}, {"percentile9999", "percentile9999"}}) {
    std::string note = "search threshold: " + label + ": output cosine ";
    size_t at = r.out.find(note);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_NEAR(std::stod(r.out.substr(at + note.size())), searchCosine[key], 2e-6) << label;
    if (searchCosine[key] > bestCos) best = label, bestCos = searchCosine[key];
  }
  EXPECT_EQ(readTable(path("cali.txt")).headerValue("method"), best);
}

// Per-channel max |w| of conv1's outputs and conv2's inputs.
void channelRanges(const ir::Module& m, std::vector<double>& r1, std::vector<double>& r2) {
  const ir::Function& fn = *m.function("main");
  r1.assign(3, 0);
  r2.assign(3, 0);
  for (const auto& op : fn.body.ops) {
    if (op->name != "tosa.conv2d") continue;
    const Tensor& w = *op->operands[1]->definingOp->attr("values")->tensor;
    for (int64_t i = 0; i < w.size(); ++i) {
      if (op->loc.name == "conv1") r1[size_t(i / 2)] = std::max(r1[size_t(i / 2)], std::fabs(w.getFloat(i)));
      if (op->loc.name == "conv2") r2[size_t(i % 3)] = std::max(r2[size_t(i % 3)], std::fabs(w.getFloat(i)));
    }
  }
}

TEST_F(CalibrateCli, WeightEqualizationKeepsTheFunctionAndEqualizesRanges) {
  convDataset(3);
  auto r = runTool("calibrate " + path("conv.mlir") + " --dataset " + path("data") + " --we --method minmax -o " +
                   path("cali.txt") + " --output-model " + path("conv_we.mlir"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("weight equalization: 1 conv pair(s) equalized"), std::string::npos) << r.out;
  auto before = loadModel(path("conv.mlir"));
  auto after = loadModel(path("conv_we.mlir"));
  ASSERT_TRUE(before && after);
  std::vector<double> r1, r2, e1, e2;
  channelRanges(**before, r1, r2);
  channelRanges(**after, e1, e2);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(e1[c], e2[c], 1e-6 * e1[c]) << c;                     // equal ranges after...
    EXPECT_NEAR(e1[c], std::sqrt(r1[c] * r2[c]), 1e-6 * e1[c]) << c;  // ...at the geometric mean (Nagel et al.)
  }
  // Same function: outputs of both models on a sample agree (ReLU is positively homogeneous).
  for (const char* m : {"conv", "conv_we"})
    ASSERT_EQ(runTool(std::string("run ") + path(std::string(m) + ".mlir") +
                      " --backend ref --input x=" + path("data/s0.npy") + " -o " + path(std::string(m) + "_out.npz"))
                  .exitCode,
              0);
  auto a = npy::readNpz(path("conv_out.npz"));
  auto b = npy::readNpz(path("conv_we_out.npz"));
  ASSERT_TRUE(a && b);
  for (int64_t i = 0; i < (*a)[0].second.size(); ++i)
    EXPECT_NEAR((*a)[0].second.getFloat(i), (*b)[0].second.getFloat(i), 1e-5) << i;
}

TEST_F(CalibrateCli, BiasCorrectionMatchesNumpy) {
  convDataset(3);
  auto r = runTool("calibrate " + path("conv.mlir") + " --dataset " + path("data") + " --bc --method minmax -o " +
                   path("cali.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("bias correction: 2 bias(es) corrected"), std::string::npos) << r.out;
  // Next to the table, named after the model.
  auto m = loadModel(path("conv_calibrated.mlir"));
  ASSERT_TRUE(m);
  // numpy: bias += mean over samples and positions of (float conv - conv on the fake-quantized input with
  // per-channel fake-quantized weights), with the table's thresholds.
  std::istringstream want(oracle("bc " + path("data") + " " + path("cali.txt")));
  std::map<std::string, std::vector<double>> expected;
  std::string line;
  while (std::getline(want, line)) {
    std::istringstream ls(line);
    std::string name;
    double v;
    ls >> name;
    while (ls >> v) expected[name].push_back(v);
  }
  ASSERT_EQ(expected["b1"].size(), 3u);
  ASSERT_EQ(expected["b2"].size(), 2u);
  for (const auto& op : (*m)->function("main")->body.ops) {
    if (op->name != "tosa.conv2d") continue;
    const Tensor& b = *op->operands[2]->definingOp->attr("values")->tensor;
    const auto& e = expected[op->loc.name == "conv1" ? "b1" : "b2"];
    for (int64_t c = 0; c < b.size(); ++c) EXPECT_NEAR(b.getFloat(c), e[size_t(c)], 1e-5) << op->loc.name << " " << c;
  }
}

TEST_F(CalibrateCli, BadInputIsOneLineExitFourAndNoTable) {
  write("model.mlir", kClampAbs);
  fs::create_directories(path("empty"));
  fs::create_directories(path("bad"));
  write("bad/broken.jpg", "this is not a jpeg");
  fs::create_directories(path("wrong"));
  ASSERT_TRUE(npy::writeNpy(path("wrong/a.npy"), Tensor(DType::FP32, {1, 2})));
  struct Case {
    std::string args;
    std::string expect;
  } cases[] = {
      {"--dataset " + path("empty"), "dataset holds no sample"},
      {"--dataset " + path("missing"), "missing: dataset is not a readable directory"},
      {"--dataset " + path("wrong"), "input 'x': shape [1x2], expected [1x32x32x4]"},
  };
  for (const auto& c : cases) {
    auto r = runTool("calibrate " + path("model.mlir") + " " + c.args + " -o " + path("cali.txt"));
    EXPECT_EQ(r.exitCode, 4) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(r.out.rfind("tosakit: ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find(c.expect), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(path("cali.txt")));
  }
  auto r = runTool("calibrate " + path("model.mlir") + " --dataset " + path("bad") + " --method nope -o " +
                   path("cali.txt"));
  EXPECT_EQ(r.exitCode, 2) << r.out;
}

}  // namespace
