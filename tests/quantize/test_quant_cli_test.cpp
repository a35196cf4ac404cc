// `tosakit quantize` and `tosakit compare` through the command line: bad input (one-line error, exit 4, no
// output file), recorded scales, PRO-INT validity of an all-int8 graph, integer results identical on every
// backend, and the compare verb's table/exit code. The graphs are small ones built here with ir::Builder.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "../cli/cli_test_util.h"
#include "formats/npy/npy.h"
#include "ir/builder.h"
#include "tosakit/model_io.h"
#include "tosakit/preprocess.h"
#include "tosakit/quantize.h"

using namespace tosakit;
using tosakit::testing::runTool;
namespace fs = std::filesystem;

namespace {

// One directory per test: ctest runs the cases in parallel.
fs::path workDir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = fs::path(TOSAKIT_BINARY_DIR) / "quantize-tests" / "cli" / (info ? info->name() : "shared");
  fs::create_directories(d);
  return d;
}

std::string p(const std::string& name) { return (workDir() / name).string(); }

Tensor floats(Shape s, double step, double offset = 0) {
  Tensor t(DType::FP32, s);
  for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, std::sin(double(i) * step + offset));
  return t;
}

// x[1,4,4,3] -> conv2d 3x3 (4 channels) 'conv' -> clamp 'relu' -> sigmoid 'sig' -> x*sig 'silu' (a chain)
// -> add with conv 'add' -> avg_pool2d 'pool' -> output 'y'.
void writeModel(const std::string& path) {
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::FP32, {1, 4, 4, 3}), "x");
  auto* w = b.constant(floats({4, 3, 3, 3}, 0.37), "conv/weight");
  auto* bias = b.constant(floats({4}, 1.1), "conv/bias");
  ir::Conv2dAttrs ca;
  ca.pad = {1, 1, 1, 1};
  ca.accType = DType::FP32;
  auto* c = b.conv2d(x, w, bias, ca, "conv");
  auto* r = b.clamp(c, 0.0, 3.0e38, "relu");
  auto* s = b.op1("tosa.sigmoid", {r}, r->type, {}, "sig");
  auto* silu = b.mul(r, s, 0, "silu");
  auto* sum = b.add(silu, c, "add");  // two roots (relu, conv): an integer add, silu a table
  auto* zp = b.scalar1(DType::FP32, 0);
  auto* pool =
      b.op1("tosa.avg_pool2d", {sum, zp, b.scalar1(DType::FP32, 0)}, ir::ValueType::tensor(DType::FP32, {1, 2, 2, 4}),
            {{"kernel", ir::Attribute::intArray({2, 2})},
             {"stride", ir::Attribute::intArray({2, 2})},
             {"pad", ir::Attribute::intArray({0, 0, 0, 0})},
             {"acc_type", ir::Attribute::type(DType::FP32)}},
            "pool");
  b.output({pool}, {"y"});
  ASSERT_TRUE(saveModel(m, path).isOk());
}

void writeText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A min/max table from the float model's own intermediates on the test input.
void writeTable(const std::string& model, const std::string& inputs, const std::string& table) {
  auto r =
      runTool("run " + model + " --inputs " + inputs + " -o " + p("f.npz") + " --dump-intermediates " + p("fl.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto layers = npy::readNpz(p("fl.npz"));
  ASSERT_TRUE(layers.isOk());
  auto in = npy::readNpz(inputs);
  std::string text = "# op_name threshold min max\n";
  auto line = [&](const std::string& n, const Tensor& t) {
    double lo = 0, hi = 0;
    for (int64_t i = 0; i < t.size(); ++i) {
      lo = std::min(lo, t.getFloat(i));
      hi = std::max(hi, t.getFloat(i));
    }
    text += n + " " + std::to_string(std::max(-lo, hi)) + " " + std::to_string(lo) + " " + std::to_string(hi) + "\n";
  };
  for (auto& [n, t] : *in) line(n, t);
  for (auto& [n, t] : *layers) line(n, t);
  writeText(table, text);
}

// A layer of a `run --dump-intermediates` file by name.
template <class Layers>
const Tensor& layerNamed(const Layers& layers, const std::string& n) {
  for (auto& [name, t] : layers)
    if (name == n) return t;
  throw std::runtime_error("no layer " + n);
}

// The conv's per-output-channel symmetric weight scales, max |w| / 127 over its 3x3x3 taps (chapter 6.1).
std::vector<double> weightScales127(const Tensor& w) {
  std::vector<double> sw(4, 0);
  for (int64_t i = 0; i < w.size(); ++i) sw[size_t(i / 27)] = std::max(sw[size_t(i / 27)], std::fabs(w.getFloat(i)));
  for (double& s : sw) s /= 127;
  return sw;
}

// The model's 3x3 conv (pad 1, 4x4x3 input) at output (oy, ox, c): sum of x_q * round(w / S_w[c]) over the
// taps that meet real input (padding contributes 0).
double convTapSum(const Tensor& w, const std::vector<double>& sw, const std::vector<int64_t>& xq, int oy, int ox,
                  int c) {
  double acc = 0;
  for (int ky = 0; ky < 3; ++ky)
    for (int kx = 0; kx < 3; ++kx)
      for (int ic = 0; ic < 3; ++ic) {
        int iy = oy + ky - 1, ix = ox + kx - 1;
        if (iy < 0 || iy >= 4 || ix < 0 || ix >= 4) continue;
        double wq = std::round(w.getFloat(((c * 3 + ky) * 3 + kx) * 3 + ic) / sw[size_t(c)]);
        acc += double(xq[size_t((iy * 4 + ix) * 3 + ic)]) * wq;
      }
  return acc;
}

// Calibration entries as the test wrote them: column `column` (1: threshold, 2: min, 3: max) of every entry of a calibration table.
std::map<std::string, double> readThresholds(const std::string& path, int column = 1) {
  std::map<std::string, double> t;
  std::ifstream in(path);
  std::string name;
  double thr, lo, hi;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    ls >> name >> thr >> lo >> hi;
    t[name] = column == 1 ? thr : column == 2 ? lo : hi;
  }
  return t;
}

class QuantCli : public ::testing::Test {
 protected:
  void SetUp() override {
    writeModel(p("m.mlir"));
    ASSERT_TRUE(npy::writeNpz(p("in.npz"), {{"x", floats({1, 4, 4, 3}, 0.21, 0.3)}}).isOk());
    writeTable(p("m.mlir"), p("in.npz"), p("cali.txt"));
  }
};

}  // namespace

TEST_F(QuantCli, Int8QuantInOutIsProIntAndRecordsScales) {
  fs::remove(p("q.mlir"));
  auto r = runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") +
                   " --quant-input --quant-output -o " + p("q.mlir"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto v = runTool("validate " + p("q.mlir") + " --profile pro_int");
  EXPECT_EQ(v.exitCode, 0) << v.out;
  auto m = loadModel(p("q.mlir"));
  ASSERT_TRUE(m.isOk());
  auto params = recordedQuantParams(**m);
  for (const char* name : {"x", "conv", "relu", "silu", "add", "pool", "y"}) EXPECT_TRUE(params.count(name)) << name;
  // The SiLU chain became one tosa.table; nothing float is left.
  std::ifstream in(p("q.mlir"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("tosa.table"), std::string::npos);
  EXPECT_EQ(text.find("f32"), std::string::npos);
}

// A float layer of a quantize table hands its result to INT8 consumers through a quantize (`<layer>/quant`) on
// the grid docs/QUANTIZATION.md gives: the ReLU's output (calibrated min >= 0) on TPU-MLIR's UINT8 grid
// (6.1.2), S = threshold / 255 and zero point -128; the conv's (min < 0) on the signed one, threshold / 127.
TEST_F(QuantCli, FloatLayerHandsANonNegativeTensorOnOnTheUnsignedGrid) {
  std::ofstream(p("qt.txt")) << "# op_name quantize_mode\nconv F32\nrelu F32\n";
  auto r = runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") +
                   " --quantize-table " + p("qt.txt") + " -o " + p("qt.mlir"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto m = loadModel(p("qt.mlir"));
  ASSERT_TRUE(m.isOk());
  auto params = recordedQuantParams(**m);
  auto thr = readThresholds(p("cali.txt")), mins = readThresholds(p("cali.txt"), 2);
  ASSERT_GE(mins.at("relu"), 0.0);
  ASSERT_LT(mins.at("conv"), 0.0);
  ASSERT_TRUE(params.count("relu/quant") && params.count("conv/quant"));
  EXPECT_NEAR(params.at("relu/quant").scale, thr.at("relu") / 255, 1e-9 * thr.at("relu"));
  EXPECT_EQ(params.at("relu/quant").zeroPoint, -128);
  EXPECT_NEAR(params.at("conv/quant").scale, thr.at("conv") / 127, 1e-9 * thr.at("conv"));
  EXPECT_EQ(params.at("conv/quant").zeroPoint, 0);
}

TEST_F(QuantCli, ModesRunAndStayCloseToFloat) {
  for (std::string mode : {"INT8", "INT16", "BF16", "F16", "F32"}) {
    std::string out = p("q_" + mode + ".mlir");
    std::string extra = mode == "INT8" ? " --asymmetric" : "";
    auto r =
        runTool("quantize " + p("m.mlir") + " --quantize " + mode + extra + " --calibration-table " + p("cali.txt") +
                " --test-input " + p("in.npz") + " --test-reference " + p("f.npz") + " --tolerance 0.98,0.8 -o " + out);
    EXPECT_EQ(r.exitCode, 0) << mode << ": " << r.out;
    EXPECT_TRUE(fs::exists(out)) << mode;
  }
}

TEST_F(QuantCli, IntegerResultsAreIdenticalOnEveryBackend) {
  ASSERT_EQ(runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") +
                    " --quant-input --quant-output -o " + p("qb.mlir"))
                .exitCode,
            0);
  ASSERT_TRUE(npy::writeNpz(p("qin.npz"),
                            {{"x",
                              Tensor::fromInts(DType::I8, {1, 4, 4, 3},
                                               [] {
                                                 std::vector<int64_t> v;
                                                 for (int i = 0; i < 48; ++i) v.push_back((i * 37) % 256 - 128);
                                                 return v;
                                               }())}})
                  .isOk());
  auto ref = runTool("run " + p("qb.mlir") + " --inputs " + p("qin.npz") + " -o " + p("ref.npz") + " --backend ref");
  ASSERT_EQ(ref.exitCode, 0) << ref.out;
  auto fast = runTool("run " + p("qb.mlir") + " --inputs " + p("qin.npz") + " -o " + p("fast.npz") + " --backend fast");
  ASSERT_EQ(fast.exitCode, 0) << fast.out;
  auto a = npy::readNpz(p("ref.npz")), b = npy::readNpz(p("fast.npz"));
  ASSERT_TRUE(a.isOk() && b.isOk());
  ASSERT_EQ(a->size(), b->size());
  for (size_t i = 0; i < a->size(); ++i) EXPECT_TRUE((*a)[i].second.identical((*b)[i].second)) << (*a)[i].first;
}

TEST_F(QuantCli, BadInputIsOneLineExit4AndNoOutput) {
  writeText(p("unknown.txt"), "# op_name threshold min max\nx 1 -1 1\nno_such_tensor 1 -1 1\n");
  writeText(p("lacking.txt"), "# op_name threshold min max\nx 1 -1 1\nconv 1 -1 1\n");
  writeText(p("qtable.txt"), "# op_name quantize_mode\nno_such_layer F32\n");
  writeText(p("qtable_bad.txt"), "conv FLOAT7\n");
  struct Case {
    std::string args, needle;
  } cases[] = {
      {"--quantize INT8 --calibration-table " + p("unknown.txt"), "no_such_tensor"},
      {"--quantize INT8 --calibration-table " + p("lacking.txt"), "lacks tensor"},
      {"--quantize INT8 --calibration-table " + p("cali.txt") + " --quantize-table " + p("qtable.txt"),
       "no_such_layer"},
      {"--quantize INT8 --calibration-table " + p("cali.txt") + " --quantize-table " + p("qtable_bad.txt"), "FLOAT7"},
      {"--quantize INT8", "--calibration-table"},
      {"--quantize INT9 --calibration-table " + p("cali.txt"), "INT9"},
      {"--quantize INT8 --calibration-table " + p("missing.txt"), "missing.txt"},
  };
  for (const auto& c : cases) {
    fs::remove(p("bad.mlir"));
    auto r = runTool("quantize " + p("m.mlir") + " " + c.args + " -o " + p("bad.mlir"));
    EXPECT_EQ(r.exitCode, 4) << c.args << "\n" << r.out;
    EXPECT_NE(r.out.find(c.needle), std::string::npos) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_EQ(r.out.rfind("tosakit: ", 0), 0u) << r.out;
    EXPECT_FALSE(fs::exists(p("bad.mlir"))) << c.args;
  }
}

TEST_F(QuantCli, CompareDequantizesAndFailsBelowTolerance) {
  ASSERT_EQ(runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") + " -o " +
                    p("qc.mlir"))
                .exitCode,
            0);
  ASSERT_EQ(runTool("run " + p("qc.mlir") + " --inputs " + p("in.npz") + " -o " + p("qo.npz") +
                    " --dump-intermediates " + p("ql.npz"))
                .exitCode,
            0);
  auto ok = runTool("compare " + p("fl.npz") + " " + p("ql.npz") + " --dequantize " + p("qc.mlir") +
                    " --tolerance 0.95,0.7 --html " + p("report.html"));
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_NE(ok.out.find("(dequantized)"), std::string::npos) << ok.out;
  EXPECT_TRUE(fs::exists(p("report.html")));
  // Without --dequantize the int8 codes are compared with float values: far below tolerance, exit 1.
  auto bad = runTool("compare " + p("fl.npz") + " " + p("ql.npz") + " --tolerance 0.999,0.99");
  EXPECT_EQ(bad.exitCode, 1) << bad.out;
  auto none = runTool("compare " + p("fl.npz") + " " + p("in.npz"));
  EXPECT_EQ(none.exitCode, 4) << none.out;
}

// A quantized .mlir converts to .spv: the op attributes SPIR-V has no place for go to the OUT.spv.qparams.json
// sidecar (as `quantize -o OUT.spv` writes it), and converting back restores every one of them.
TEST_F(QuantCli, ConvertQuantizedModelToSpirvKeepsItsScalesInTheSidecar) {
  ASSERT_EQ(runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") + " -o " +
                    p("qc.mlir"))
                .exitCode,
            0);
  auto toSpv = runTool("convert " + p("qc.mlir") + " " + p("qc.spv"));
  ASSERT_EQ(toSpv.exitCode, 0) << toSpv.out;
  EXPECT_TRUE(fs::exists(p("qc.spv.qparams.json")));
  auto back = runTool("convert " + p("qc.spv") + " " + p("back.mlir"));
  ASSERT_EQ(back.exitCode, 0) << back.out;
  auto count = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    size_t n = 0;
    for (size_t at = text.str().find("tosakit.qscale"); at != std::string::npos;
         at = text.str().find("tosakit.qscale", at + 1))
      ++n;
    return n;
  };
  EXPECT_GT(count(p("qc.mlir")), 0u);
  EXPECT_EQ(count(p("back.mlir")), count(p("qc.mlir")));
}

TEST_F(QuantCli, CompareAcceptsIdenticalTensorsAtToleranceOne) {
  // Values for which a.a / (|a| |a|) rounds below 1 (checked with numpy): a tensor equals itself at 1,1.
  Tensor t(DType::FP32, {1000});
  for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, std::sin(double(i) * 0.37 * 5 + 0.1));
  ASSERT_TRUE(npy::writeNpz(p("same.npz"), {{"x", t}}).isOk());
  auto same = runTool("compare " + p("same.npz") + " " + p("same.npz") + " --tolerance 1,1");
  EXPECT_EQ(same.exitCode, 0) << same.out;
  EXPECT_EQ(same.out.find("BELOW TOLERANCE"), std::string::npos) << same.out;
  // One tolerance parser for every verb: trailing text or a missing number is bad input (exit 4).
  for (const char* bad : {"0.99", "0.99,0.9x", "nan,0.9"}) {
    auto r = runTool("compare " + p("same.npz") + " " + p("same.npz") + " --tolerance " + bad);
    EXPECT_EQ(r.exitCode, 4) << bad << ": " << r.out;
    auto imp = runTool("import " + p("none.onnx") + " -o " + p("none.mlir") + " --tolerance " + bad);
    EXPECT_EQ(imp.exitCode, 4) << bad << ": " << imp.out;
    EXPECT_NE(imp.out.find("tolerance"), std::string::npos) << bad << ": " << imp.out;  // checked first
  }
}

namespace {

// Within 1e-6 of a rounding boundary, the multiplier's 31-bit approximation may round the other way.
bool nearHalf(double v) { return std::fabs(std::fabs(v - std::floor(v)) - 0.5) < 1e-6; }

}  // namespace

// conv2d -> relu -> SiLU table of the INT8 graph against the quantization math of docs/QUANTIZATION.md computed
// here in doubles from the float weights and the calibration table (6.1, 6.3.1): x_q = round(x / S_x),
// w_q = round(w / S_w[c]) with S_w[c] = max|w_c| / 127, b_q = round(b / (S_x S_w[c])),
// conv_q = clamp(round((sum x_q w_q + b_q) S_x S_w[c] / S_conv)), relu_q = max(conv_q, 0),
// silu_q = clamp(round(f(S_relu q) / S_silu) - 128) with f(v) = v sigmoid(v): SiLU of a ReLU output is
// non-negative, so calibration's min is >= 0 and the table writes TPU-MLIR's UINT8 grid, S_silu = threshold / 255
// and zero point -128 (6.1.2).
TEST_F(QuantCli, Int8ConvReluSiluMatchAnIndependentCalculation) {
  ASSERT_EQ(runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") +
                    " --quant-input --quant-output -o " + p("qi.mlir"))
                .exitCode,
            0);
  auto thr = readThresholds(p("cali.txt"));
  ASSERT_GE(readThresholds(p("cali.txt"), 2).at("silu"), 0.0);
  ASSERT_LT(readThresholds(p("cali.txt"), 2).at("conv"), 0.0);  // conv (and x) stay on the signed grid
  double sx = thr.at("x") / 127, sconv = thr.at("conv") / 127, ssilu = thr.at("silu") / 255;
  Tensor x = floats({1, 4, 4, 3}, 0.21, 0.3), w = floats({4, 3, 3, 3}, 0.37), b = floats({4}, 1.1);
  std::vector<int64_t> xq(48);
  for (int i = 0; i < 48; ++i)
    xq[size_t(i)] = std::clamp<int64_t>(int64_t(std::nearbyint(x.getFloat(i) / sx)), -128, 127);
  ASSERT_TRUE(npy::writeNpz(p("xq.npz"), {{"x", Tensor::fromInts(DType::I8, {1, 4, 4, 3}, xq)}}).isOk());
  auto r = runTool("run " + p("qi.mlir") + " --inputs " + p("xq.npz") + " -o " + p("qo.npz") +
                   " --dump-intermediates " + p("qil.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto layers = npy::readNpz(p("qil.npz"));
  ASSERT_TRUE(layers.isOk());
  auto layer = [&](const std::string& n) -> const Tensor& { return layerNamed(*layers, n); };
  const Tensor &conv = layer("conv"), &relu = layer("relu"), &silu = layer("silu");
  ASSERT_EQ(conv.dtype(), DType::I8);
  const std::vector<double> sw = weightScales127(w);
  int compared = 0;
  for (int oy = 0; oy < 4; ++oy)
    for (int ox = 0; ox < 4; ++ox)
      for (int c = 0; c < 4; ++c) {
        double acc = std::round(b.getFloat(c) / (sx * sw[size_t(c)])) + convTapSum(w, sw, xq, oy, ox, c);
        double real = acc * sx * sw[size_t(c)] / sconv;
        int64_t idx = (oy * 4 + ox) * 4 + c;
        if (nearHalf(real)) continue;
        int64_t expected = std::clamp<int64_t>(int64_t(std::floor(real + 0.5)), -128, 127);
        EXPECT_EQ(conv.getInt(idx), expected) << "conv at " << idx;
        EXPECT_EQ(relu.getInt(idx), std::max<int64_t>(expected, 0)) << "relu at " << idx;
        double v = sconv * double(std::max<int64_t>(expected, 0));
        double f = v / (1 + std::exp(-v)) / ssilu;
        if (!nearHalf(f)) {
          EXPECT_EQ(silu.getInt(idx), std::clamp<int64_t>(int64_t(std::floor(f + 0.5)) - 128, -128, 127))
              << "silu at " << idx;
          ++compared;
        }
      }
  EXPECT_GT(compared, 50);
}

// --fuse-preprocess: the argument with a recorded recipe becomes the uint8 image (i8 bits) and the graph
// applies (p - mean) * scale itself; F32 keeps everything else, so the fused graph on pixels equals the float
// graph on the normalized pixels computed here.
TEST_F(QuantCli, FusePreprocessTakesPixels) {
  auto m = loadModel(p("m.mlir"));
  ASSERT_TRUE(m.isOk());
  PreprocessRecipe r;
  r.mean = {10, 128, 250};
  r.scale = {0.02, 0.01, 0.005};
  r.channelFormat = "nhwc";
  setPreprocessRecipe(*(*m)->functions.front(), 0, r);
  ASSERT_TRUE(saveModel(**m, p("mp.mlir")).isOk());
  ASSERT_EQ(runTool("quantize " + p("mp.mlir") + " --quantize F32 --fuse-preprocess -o " + p("mp_fused.mlir")).exitCode,
            0);
  std::vector<int64_t> pixels(48);
  std::vector<double> normalized(48);
  for (int i = 0; i < 48; ++i) {
    pixels[size_t(i)] = (i * 53) % 256;
    normalized[size_t(i)] = (double(pixels[size_t(i)]) - r.mean[size_t(i % 3)]) * r.scale[size_t(i % 3)];
  }
  Tensor bits(DType::I8, {1, 4, 4, 3});
  for (int i = 0; i < 48; ++i) bits.setInt(i, pixels[size_t(i)]);  // uint8 carried as i8 bits
  ASSERT_TRUE(npy::writeNpz(p("pix.npz"), {{"x", bits}}).isOk());
  ASSERT_TRUE(npy::writeNpz(p("norm.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 3}, normalized)}}).isOk());
  auto a = runTool("run " + p("mp_fused.mlir") + " --inputs " + p("pix.npz") + " -o " + p("fused_out.npz"));
  ASSERT_EQ(a.exitCode, 0) << a.out;
  ASSERT_EQ(runTool("run " + p("mp.mlir") + " --inputs " + p("norm.npz") + " -o " + p("norm_out.npz")).exitCode, 0);
  auto x = npy::readNpz(p("fused_out.npz")), y = npy::readNpz(p("norm_out.npz"));
  ASSERT_TRUE(x.isOk() && y.isOk());
  const Tensor &fx = x->at(0).second, &fy = y->at(0).second;
  for (int64_t i = 0; i < fx.size(); ++i)
    EXPECT_NEAR(fx.getFloat(i), fy.getFloat(i), 1e-4 * (1 + std::fabs(fy.getFloat(i))));
}

// INT16 (EXT-INT16): conv within one code of the exact real computation (the i48 accumulator's rescale has a
// 16-bit multiplier), ReLU exact, and the SiLU 513-entry table exactly as TOSA 2.5.17 interpolates it:
// table[i] = clamp(round(f(S_relu 128 (i - 256)) / S_silu)), index = (q + 32768) >> 7, fraction = q & 127,
// value = (table[index] << 7) + (table[index + 1] - table[index]) * fraction, then rescaled by 2^-7.
TEST_F(QuantCli, Int16ConvReluSiluTableMatchAnIndependentCalculation) {
  ASSERT_EQ(runTool("quantize " + p("m.mlir") + " --quantize INT16 --calibration-table " + p("cali.txt") +
                    " --quant-input --quant-output -o " + p("q16.mlir"))
                .exitCode,
            0);
  auto v = runTool("validate " + p("q16.mlir") + " --profile pro_int --extension int16");
  EXPECT_EQ(v.exitCode, 0) << v.out;
  auto thr = readThresholds(p("cali.txt"));
  double sx = thr.at("x") / 32767, sconv = thr.at("conv") / 32767, ssilu = thr.at("silu") / 32767;
  Tensor x = floats({1, 4, 4, 3}, 0.21, 0.3), w = floats({4, 3, 3, 3}, 0.37), b = floats({4}, 1.1);
  std::vector<int64_t> xq(48);
  for (int i = 0; i < 48; ++i)
    xq[size_t(i)] = std::clamp<int64_t>(int64_t(std::nearbyint(x.getFloat(i) / sx)), -32768, 32767);
  ASSERT_TRUE(npy::writeNpz(p("xq16.npz"), {{"x", Tensor::fromInts(DType::I16, {1, 4, 4, 3}, xq)}}).isOk());
  auto r = runTool("run " + p("q16.mlir") + " --inputs " + p("xq16.npz") + " -o " + p("q16o.npz") +
                   " --dump-intermediates " + p("q16l.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto layers = npy::readNpz(p("q16l.npz"));
  ASSERT_TRUE(layers.isOk());
  auto layer = [&](const std::string& n) -> const Tensor& { return layerNamed(*layers, n); };
  const Tensor &conv = layer("conv"), &relu = layer("relu"), &silu = layer("silu");
  ASSERT_EQ(conv.dtype(), DType::I16);
  ASSERT_EQ(silu.dtype(), DType::I16);
  const std::vector<double> sw = weightScales127(w);
  std::vector<int64_t> table(513);
  for (int i = 0; i <= 512; ++i) {
    double in = sconv * 128.0 * double(i - 256);
    table[size_t(i)] = std::clamp<int64_t>(int64_t(std::round(in / (1 + std::exp(-in)) / ssilu)), -32768, 32767);
  }
  for (int oy = 0; oy < 4; ++oy)
    for (int ox = 0; ox < 4; ++ox)
      for (int c = 0; c < 4; ++c) {
        double acc = std::round(b.getFloat(c) / (sx * sw[size_t(c)])) + convTapSum(w, sw, xq, oy, ox, c);
        int64_t idx = (oy * 4 + ox) * 4 + c;
        double real = std::clamp(acc * sx * sw[size_t(c)] / sconv, -32768.0, 32767.0);
        EXPECT_LE(std::fabs(double(conv.getInt(idx)) - real), 1.0) << "conv at " << idx;
        EXPECT_EQ(relu.getInt(idx), std::max<int64_t>(conv.getInt(idx), 0)) << "relu at " << idx;
        int64_t q = relu.getInt(idx);
        int64_t index = (q + 32768) >> 7, fraction = q & 127;
        int64_t interp = (table[size_t(index)] << 7) + (table[size_t(index + 1)] - table[size_t(index)]) * fraction;
        int64_t expected = (interp + 64) >> 7;  // round half up of interp / 128
        EXPECT_EQ(silu.getInt(idx), std::clamp<int64_t>(expected, -32768, 32767)) << "silu at " << idx;
      }
}

// Mixed INT8/INT16 (TPU-MLIR 8.2): an INT8 graph whose quantize table makes 'conv' INT16. The i8 input is
// rescaled to the conv's int16 domain (x16 = x8 * S_x8 / S_x16, S = threshold / qmax), the conv runs 16x8 with
// an i48 accumulator and its int16 result is rescaled to int8 for the INT8 'relu' (clamp) after it. Expected
// values: the same real-number calculation as the INT8/INT16 tests above, each rescale within one code.
TEST_F(QuantCli, MixedInt8Int16LayersMeetAtRescales) {
  writeText(p("mixed.qtable"), "# op_name quantize_mode\nconv INT16\n");
  auto q = runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") +
                   " --quantize-table " + p("mixed.qtable") + " --quant-input --quant-output -o " + p("qm.mlir"));
  ASSERT_EQ(q.exitCode, 0) << q.out;
  auto v = runTool("validate " + p("qm.mlir") + " --profile pro_int --extension int16");
  EXPECT_EQ(v.exitCode, 0) << v.out;
  auto thr = readThresholds(p("cali.txt"));
  double sx8 = thr.at("x") / 127, sx16 = thr.at("x") / 32767, sconv16 = thr.at("conv") / 32767,
         sconv8 = thr.at("conv") / 127;
  Tensor x = floats({1, 4, 4, 3}, 0.21, 0.3), w = floats({4, 3, 3, 3}, 0.37), b = floats({4}, 1.1);
  std::vector<int64_t> xq8(48), xq16(48);
  for (int i = 0; i < 48; ++i) {
    xq8[size_t(i)] = std::clamp<int64_t>(int64_t(std::nearbyint(x.getFloat(i) / sx8)), -128, 127);
    xq16[size_t(i)] = int64_t(std::floor(double(xq8[size_t(i)]) * sx8 / sx16 + 0.5));  // RESCALE rounds half up
  }
  ASSERT_TRUE(npy::writeNpz(p("xm.npz"), {{"x", Tensor::fromInts(DType::I8, {1, 4, 4, 3}, xq8)}}).isOk());
  auto r = runTool("run " + p("qm.mlir") + " --inputs " + p("xm.npz") + " -o " + p("qmo.npz") +
                   " --dump-intermediates " + p("qml.npz") + " --backend ref");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto layers = npy::readNpz(p("qml.npz"));
  ASSERT_TRUE(layers.isOk());
  auto layer = [&](const std::string& n) -> const Tensor& { return layerNamed(*layers, n); };
  const Tensor &conv = layer("conv"), &relu = layer("relu");
  ASSERT_EQ(conv.dtype(), DType::I16);
  ASSERT_EQ(relu.dtype(), DType::I8);
  const std::vector<double> sw = weightScales127(w);
  for (int oy = 0; oy < 4; ++oy)
    for (int ox = 0; ox < 4; ++ox)
      for (int c = 0; c < 4; ++c) {
        double acc = std::round(b.getFloat(c) / (sx16 * sw[size_t(c)])) + convTapSum(w, sw, xq16, oy, ox, c);
        int64_t idx = (oy * 4 + ox) * 4 + c;
        double real = std::clamp(acc * sx16 * sw[size_t(c)] / sconv16, -32768.0, 32767.0);
        EXPECT_LE(std::fabs(double(conv.getInt(idx)) - real), 1.0) << "conv at " << idx;
        double relu8 = std::max(0.0, std::clamp(double(conv.getInt(idx)) * sconv16 / sconv8, -128.0, 127.0));
        EXPECT_LE(std::fabs(double(relu.getInt(idx)) - relu8), 0.5 + 1e-9) << "relu at " << idx;
      }
  // Bit-identical on the fast backend, intermediates included.
  auto fast = runTool("run " + p("qm.mlir") + " --inputs " + p("xm.npz") + " -o " + p("qmf.npz") +
                      " --dump-intermediates " + p("qmlf.npz") + " --backend fast");
  ASSERT_EQ(fast.exitCode, 0) << fast.out;
  auto fl = npy::readNpz(p("qmlf.npz"));
  ASSERT_TRUE(fl.isOk());
  ASSERT_EQ(fl->size(), layers->size());
  for (size_t i = 0; i < fl->size(); ++i) EXPECT_TRUE((*fl)[i].second.identical((*layers)[i].second)) << (*fl)[i].first;
  // And the mixed graph stays close to the float model through the user's --test-input door.
  auto t = runTool("quantize " + p("m.mlir") + " --quantize INT8 --calibration-table " + p("cali.txt") +
                   " --quantize-table " + p("mixed.qtable") + " --test-input " + p("in.npz") + " --test-reference " +
                   p("f.npz") + " --tolerance 0.98,0.8 -o " + p("qm2.mlir"));
  EXPECT_EQ(t.exitCode, 0) << t.out;
}
