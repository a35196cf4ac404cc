// tosakit check / gen-data end to end. Expected verdicts are hand-computed from the spec formulas.
#include <gtest/gtest.h>

#include "cli_test_util.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "formats/npy/npy.h"

namespace fs = std::filesystem;
using namespace tosakit;

namespace {

using tosakit::testing::runTool;

// The report's table row of a result (the line starting with its name), "" if none.
std::string rowOf(const std::string& out, const std::string& name) {
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(pos, end - pos);
    if (line.rfind(name + " ", 0) == 0) return line;
    pos = end + 1;
  }
  return "";
}
bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}
#define EXPECT_ROW(out, name, verdict)                                                                             \
  EXPECT_TRUE(endsWith(rowOf(out, name), std::string("  ") + verdict)) << "row '" << rowOf(out, name) << "' in:\n" \
                                                                       << out

class CheckVerbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
        ("tosakit_check_" + std::to_string(::getpid()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(path("add.mlir"))
        << R"(func.func @main(%x: tensor<2xf32> loc("x"), %y: tensor<2xf32> loc("y")) -> tensor<2xf32> {
  %s = tosa.add %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}
)";
    std::ofstream(path("mm.mlir"))
        << R"(func.func @main(%a: tensor<1x2x4xf32> loc("a"), %b: tensor<1x4x3xf32> loc("b")) -> tensor<1x2x3xf32> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
  return %m : tensor<1x2x3xf32>
}
)";
    // x + y = [1.5, 2.25] exactly.
    ASSERT_TRUE(npy::writeNpz(path("in.npz"),
                              {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 2.0})},
                               {"y", Tensor::fromDoubles(DType::FP32, {2}, {0.5, 0.25})}}));
    ASSERT_TRUE(npy::writeNpz(path("ref.npz"), {{"out0", Tensor::fromDoubles(DType::FP64, {2}, {1.5, 2.25})}}));
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void writeResult(double second) {
    ASSERT_TRUE(npy::writeNpz(path("impl.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {1.5, second})}}));
  }
  fs::path dir_;
};

}  // namespace

TEST_F(CheckVerbTest, CompliantAgainstFp64Reference) {
  writeResult(2.25);
  auto r = runTool("check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " +
                   path("ref.npz"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_ROW(r.out, "out0", "compliant");
}

// ref 2.25: ilog2 = 1, ulp = 2 * 2^-23 = 2^-22. Default 0.5 ulp -> bound 2^-23: 2.25 + 2^-22 fails;
// --mode ULP:ulp=1 -> bound 2^-22: passes.
TEST_F(CheckVerbTest, UlpBoundFromMode) {
  writeResult(2.25 + std::ldexp(1.0, -22));
  std::string base =
      "check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " + path("ref.npz");
  auto r = runTool(base);
  EXPECT_EQ(r.exitCode, 1) << r.out;
  EXPECT_NE(r.out.find("out0: NOT compliant"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("element 1"), std::string::npos) << r.out;
  auto r2 = runTool(base + " --mode ULP:ulp=1");
  EXPECT_EQ(r2.exitCode, 0) << r2.out;
}

// Without --reference the reference backend computes the fp64 reference [1.5, 2.25] in precise mode (exact
// in fp32 too); 0.5 ulp allowed.
TEST_F(CheckVerbTest, ReferenceFromBackend) {
  writeResult(2.25);
  auto r =
      runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --result " + path("impl.npz"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
  writeResult(2.25 + std::ldexp(1.0, -20));  // 4 ulp off
  auto r2 =
      runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --result " + path("impl.npz"));
  EXPECT_EQ(r2.exitCode, 1) << r2.out;
}

// check --backend B judges tosakit's own run instead of a result file: x + y = [1.5, 2.25] is exact in fp32, so
// both backends are compliant per output and per op (--per-op names the op's result as the capture does).
TEST_F(CheckVerbTest, JudgesABackendsOwnRun) {
  for (const char* backend : {"fast", "ref"}) {
    auto r = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --backend " + backend);
    EXPECT_EQ(r.exitCode, 0) << r.out;
    EXPECT_ROW(r.out, "out0", "compliant");
    auto p = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --backend " + backend +
                     " --threads 1 --per-op");
    EXPECT_EQ(p.exitCode, 0) << p.out;
    EXPECT_NE(p.out.find("1 compliant, 0 not compliant"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("tosa.add"), std::string::npos) << p.out;
  }
  // The backend's outputs are really judged: forcing an absolute bound of 0 on a result that differs from the
  // fp64 reference fails. 1 + 2^-30 rounds to 1 in fp32 (2^-30 is below half an ulp of 1, 2^-24).
  ASSERT_TRUE(npy::writeNpz(path("tiny.npz"),
                            {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.0})},
                             {"y", Tensor::fromDoubles(DType::FP32, {2}, {std::ldexp(1.0, -30), 0.0})}}));
  auto f = runTool("check --model " + path("add.mlir") + " --inputs " + path("tiny.npz") +
                   " --backend fast --mode ULP:ulp=0");
  EXPECT_EQ(f.exitCode, 1) << f.out;
}

TEST_F(CheckVerbTest, BackendExcludesResult) {
  writeResult(2.25);
  auto both = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --result " +
                      path("impl.npz") + " --backend fast");
  EXPECT_EQ(both.exitCode, 4) << both.out;
  EXPECT_NE(both.out.find("exclude each other"), std::string::npos) << both.out;
  auto noInputs = runTool("check --model " + path("add.mlir") + " --backend fast");
  EXPECT_EQ(noInputs.exitCode, 4) << noInputs.out;
  EXPECT_NE(noInputs.out.find("--inputs"), std::string::npos) << noInputs.out;
  auto neither = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz"));
  EXPECT_EQ(neither.exitCode, 4) << neither.out;
  auto perOpAlone = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --result " +
                            path("impl.npz") + " --per-op");
  EXPECT_EQ(perOpAlone.exitCode, 4) << perOpAlone.out;
}

TEST_F(CheckVerbTest, BadArguments) {
  writeResult(2.25);
  auto r = runTool("check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " +
                   path("ref.npz") + " --mode NOPE");
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_NE(r.out.find("NOPE"), std::string::npos);
  auto r2 = runTool("check --model " + path("add.mlir") + " --result " + path("missing.npz") + " --reference " +
                    path("ref.npz"));
  EXPECT_EQ(r2.exitCode, 4) << r2.out;
  EXPECT_NE(r2.out.find("missing.npz"), std::string::npos);
  auto r3 = runTool("check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " +
                    path("ref.npz") + " --mode DOT_PRODUCT:s=0,ksb=1");
  EXPECT_EQ(r3.exitCode, 4) << r3.out;  // DOT_PRODUCT needs --bounds
  EXPECT_NE(r3.out.find("--bounds"), std::string::npos);
}

// gen-data for matmul, test set S2 (Appendix A 5.3.4, 5.2.3): KS = C = 4, A[n,y,c] = 1.0 when c == 0.
TEST_F(CheckVerbTest, GenDataMatmul) {
  auto r = runTool("gen-data --model " + path("mm.mlir") + " -o " + path("gen.npz") + " --set 2");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto z = npy::readNpz(path("gen.npz"));
  ASSERT_TRUE(z.isOk());
  ASSERT_EQ(z->size(), 2u);
  const Tensor& a = (*z)[0].second;
  EXPECT_EQ((*z)[0].first, "a");
  EXPECT_EQ(a.shape(), (Shape{1, 2, 4}));
  EXPECT_EQ(a.getFloat(0), 1.0);
  EXPECT_EQ(a.getFloat(4), 1.0);
  for (int64_t i = 0; i < a.size(); ++i) EXPECT_LE(std::fabs(a.getFloat(i)), 1.0);  // |set_data| / 2 <= 0.5
  auto bad = runTool("gen-data --model " + path("mm.mlir") + " -o " + path("g.npz") + " --set 9");
  EXPECT_EQ(bad.exitCode, 2) << bad.out;
}

// Inputs x = [1, 1.5], y = [2^-30, 0]: the fp64 reference is [1 + 2^-30, 1.5]. The correctly rounded fp32
// result is [1.0, 1.5] (|1 - (1 + 2^-30)| = 2^-30 <= half an ulp = 2^-24). A result 1 ulp up, 1 + 2^-23, is
// 2^-23 - 2^-30 > 2^-24 away: not compliant. The former reference (the fp32 run, 1.0) with its 1-ulp allowance
// (2^-23) accepted it; that comparison is still what --reference with an fp32 tensor does.
TEST_F(CheckVerbTest, PreciseReferenceFlagsOneUlpOff) {
  const double tiny = std::ldexp(1.0, -30);
  ASSERT_TRUE(npy::writeNpz(path("in2.npz"),
                            {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})},
                             {"y", Tensor::fromDoubles(DType::FP32, {2}, {tiny, 0.0})}}));
  std::string base =
      "check --model " + path("add.mlir") + " --inputs " + path("in2.npz") + " --result " + path("impl.npz");
  ASSERT_TRUE(npy::writeNpz(path("impl.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})}}));
  auto ok = runTool(base);
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_NE(ok.out.find("precise (fp64)"), std::string::npos) << ok.out;
  EXPECT_ROW(ok.out, "out0", "compliant");

  const double oneUlpUp = 1.0 + std::ldexp(1.0, -23);
  ASSERT_TRUE(npy::writeNpz(path("impl.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {oneUlpUp, 1.5})}}));
  auto bad = runTool(base);
  EXPECT_EQ(bad.exitCode, 1) << bad.out;
  EXPECT_NE(bad.out.find("out0: NOT compliant"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("element 0"), std::string::npos) << bad.out;

  // The old scheme: a reference rounded to fp32 ([1.0, 1.5]) and 1 ulp allowed accepts 1 + 2^-23.
  ASSERT_TRUE(npy::writeNpz(path("ref32.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})}}));
  auto old = runTool("check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " +
                     path("ref32.npz"));
  EXPECT_EQ(old.exitCode, 0) << old.out;
}

// run --precise writes fp64 outputs: 1 + 2^-30 (float64) instead of the fp32 sum 1.0.
TEST_F(CheckVerbTest, RunPreciseWritesFloat64) {
  const double tiny = std::ldexp(1.0, -30);
  ASSERT_TRUE(npy::writeNpz(path("in2.npz"),
                            {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})},
                             {"y", Tensor::fromDoubles(DType::FP32, {2}, {tiny, 0.0})}}));
  auto r = runTool("run " + path("add.mlir") + " --inputs " + path("in2.npz") + " -o " + path("p.npz") + " --precise");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto p = npy::readNpz(path("p.npz"));
  ASSERT_TRUE(p.isOk());
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].second.dtype(), DType::FP64);
  EXPECT_EQ((*p)[0].second.toDoubles(), (std::vector<double>{1.0 + tiny, 1.5}));

  auto n = runTool("run " + path("add.mlir") + " --inputs " + path("in2.npz") + " -o " + path("n.npz"));
  ASSERT_EQ(n.exitCode, 0) << n.out;
  auto q = npy::readNpz(path("n.npz"));
  ASSERT_TRUE(q.isOk());
  EXPECT_EQ((*q)[0].second.dtype(), DType::FP32);
  EXPECT_EQ((*q)[0].second.toDoubles(), (std::vector<double>{1.0, 1.5}));

  auto help = runTool("run --help");
  EXPECT_NE(help.out.find("--precise"), std::string::npos) << help.out;
}

// ---- Per-operator default rules (spec 1.10.3 and each operator's precision requirements) ----

// bf16 conv2d, 1x1 kernel, IC = 4: x = w = [1, 1, 1, 1], bias 0.5. out_ref = 4.5, out_bnd = 4.5 (the op on
// absolute values), KS = 4, acc fp32 -> ksb = ceil(4 / 2^((23-7)/2)) + 1 (bias) = 2; per-element limit
// ksb * out_bnd * 2^(-1-7) = 0.03515625. A bf16 ulp at 4.5 is 2^-5 = 0.03125: 4.53125 (1 ulp off, what two
// roundings can give) is compliant, 4.5625 (2 ulp, 0.0625) is not. The old default, 0.5 ulp, rejected both.
TEST_F(CheckVerbTest, ConvBf16UsesDotProductRule) {
  std::ofstream(path("conv.mlir")) << R"(func.func @main(%x: tensor<1x1x1x4xbf16> loc("x")) -> tensor<1x1x1x1xbf16> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1x4xbf16>}> : () -> tensor<1x1x1x4xbf16>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>, tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x1x1x1xbf16> loc("conv")
  return %c : tensor<1x1x1x1xbf16>
}
)";
  ASSERT_TRUE(npy::writeNpz(path("cin.npz"), {{"x", Tensor::fromDoubles(DType::BF16, {1, 1, 1, 4}, {1, 1, 1, 1})}}));
  std::string base =
      "check --model " + path("conv.mlir") + " --inputs " + path("cin.npz") + " --result " + path("c.npz");
  ASSERT_TRUE(npy::writeNpz(path("c.npz"), {{"out0", Tensor::fromDoubles(DType::BF16, {1, 1, 1, 1}, {4.53125})}}));
  auto ok = runTool(base);
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_ROW(ok.out, "out0", "compliant");
  EXPECT_NE(rowOf(ok.out, "out0").find("DOT_PRODUCT(KS=4, ksb=2)"), std::string::npos) << ok.out;
  EXPECT_NE(rowOf(ok.out, "out0").find("2.3.3 CONV2D"), std::string::npos) << ok.out;
  EXPECT_NE(rowOf(ok.out, "out0").find("0.889"), std::string::npos) << ok.out;  // 0.03125 / 0.03515625
  ASSERT_TRUE(npy::writeNpz(path("c.npz"), {{"out0", Tensor::fromDoubles(DType::BF16, {1, 1, 1, 1}, {4.5625})}}));
  auto bad = runTool(base);
  EXPECT_EQ(bad.exitCode, 1) << bad.out;
  EXPECT_ROW(bad.out, "out0", "NOT compliant");
  // --mode still forces one mode: 0.5 ulp rejects the 1-ulp result.
  ASSERT_TRUE(npy::writeNpz(path("c.npz"), {{"out0", Tensor::fromDoubles(DType::BF16, {1, 1, 1, 1}, {4.53125})}}));
  auto forced = runTool(base + " --mode ULP:ulp=0.5");
  EXPECT_EQ(forced.exitCode, 1) << forced.out;
}

// fp16 exp at x = 2: out_ref = e^2 = 7.389056..., err_bnd = calcAbsErrorBound(out_ref, 1+|x|, 0, 1)
// = 2^-10 * 7.389056 * 3 = 0.021647. fp16 values near it are k/256: 1897/256 = 7.41015625 is 0.02110 away
// (compliant), 1898/256 = 7.4140625 is 0.02501 away (not).
TEST_F(CheckVerbTest, ExpFp16UsesAbsErrorBound) {
  std::ofstream(path("exp.mlir")) << R"(func.func @main(%x: tensor<1xf16> loc("x")) -> tensor<1xf16> {
  %e = tosa.exp %x : (tensor<1xf16>) -> tensor<1xf16>
  return %e : tensor<1xf16>
}
)";
  ASSERT_TRUE(npy::writeNpz(path("ein.npz"), {{"x", Tensor::fromDoubles(DType::FP16, {1}, {2.0})}}));
  std::string base =
      "check --model " + path("exp.mlir") + " --inputs " + path("ein.npz") + " --result " + path("e.npz");
  ASSERT_TRUE(npy::writeNpz(path("e.npz"), {{"out0", Tensor::fromDoubles(DType::FP16, {1}, {1897.0 / 256})}}));
  auto ok = runTool(base);
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_NE(rowOf(ok.out, "out0").find("2.6.6 EXP"), std::string::npos) << ok.out;
  ASSERT_TRUE(npy::writeNpz(path("e.npz"), {{"out0", Tensor::fromDoubles(DType::FP16, {1}, {1898.0 / 256})}}));
  auto bad = runTool(base);
  EXPECT_EQ(bad.exitCode, 1) << bad.out;
  EXPECT_ROW(bad.out, "out0", "NOT compliant");
}

namespace {
// conv2d (f32, 1x1, 2 -> 3 channels) -> add -> sigmoid -> reshape.
const char* kChain =
    R"(func.func @main(%x: tensor<1x4x4x2xf32> loc("x"), %y: tensor<1x4x4x3xf32> loc("y")) -> tensor<48xf32> {
  %w = "tosa.const"() <{values = dense<[[[[0.5, -1.25]]], [[[2.0, 0.75]]], [[[-0.5, 1.5]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.1, -0.2, 0.3]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32> loc("conv")
  %a = tosa.add %c, %y : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("add")
  %s = tosa.sigmoid %a : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("sig")
  %shape = tosa.const_shape {values = dense<[48]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %r = tosa.reshape %s, %shape : (tensor<1x4x4x3xf32>, !tosa.shape<1>) -> tensor<48xf32> loc("flat")
  return %r : tensor<48xf32>
}
)";

std::vector<double> ramp(int n, double scale, double offset) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(offset + scale * double((i * 7) % 13 - 6));
  return v;
}

int countOf(const std::string& s, const std::string& what) {
  int n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}
}  // namespace

// Whole graph op by op: the implementation's dumped per-op results (here tosakit's own, from
// `run --dump-intermediates`) are all compliant; a fault injected into one op's dumped result is reported at
// that op and no other (each op is re-run on the implementation's own inputs to it).
TEST_F(CheckVerbTest, IntermediatesPinTheFaultyOp) {
  std::ofstream(path("chain.mlir")) << kChain;
  ASSERT_TRUE(npy::writeNpz(path("xin.npz"),
                            {{"x", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 2}, ramp(32, 0.25, 0.1))},
                             {"y", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 3}, ramp(48, 0.125, -0.05))}}));
  auto run = runTool("run " + path("chain.mlir") + " --inputs " + path("xin.npz") + " -o " + path("out.npz") +
                     " --dump-intermediates " + path("layers.npz"));
  ASSERT_EQ(run.exitCode, 0) << run.out;
  std::string base = "check --model " + path("chain.mlir") + " --inputs " + path("xin.npz") + " --result " +
      path("out.npz") + " --intermediates ";
  auto ok = runTool(base + path("layers.npz"));
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  for (const char* name : {"conv", "add", "sig", "flat"}) EXPECT_ROW(ok.out, name, "compliant");
  EXPECT_NE(rowOf(ok.out, "conv").find("DOT_PRODUCT"), std::string::npos) << ok.out;
  EXPECT_NE(rowOf(ok.out, "add").find("ULP(0.5)"), std::string::npos) << ok.out;
  EXPECT_NE(rowOf(ok.out, "sig").find("2.4.3 SIGMOID"), std::string::npos) << ok.out;
  EXPECT_NE(rowOf(ok.out, "flat").find("EXACT"), std::string::npos) << ok.out;

  // A faulty implementation: one op's result is off by 0.01 at element 5 (far beyond any bound at
  // |value| < 8), and the ops after it consume that faulty value (the rest of the chain is run by tosakit
  // on it, so their dumps are what a real implementation with that one faulty op would produce).
  auto layers = npy::readNpz(path("layers.npz"));
  ASSERT_TRUE(layers.isOk());
  auto layer = [&](const npy::NamedTensors& ts, const std::string& name) {
    for (const auto& [n, t] : ts)
      if (n == name) return t;
    ADD_FAILURE() << "no layer " << name;
    return Tensor();
  };
  struct Fault {
    const char* op;
    const char* tail;  // the ops after it, as a function of the faulty value %v (and %y)
  };
  const Fault faults[] = {
      {"conv", R"(  %a = tosa.add %v, %y : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("add")
  %s = tosa.sigmoid %a : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("sig")
)"},
      {"add", R"(  %s = tosa.sigmoid %v : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("sig")
)"},
      {"sig", R"(  %s = tosa.identity %v : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32> loc("unused")
)"}};
  for (const Fault& f : faults) {
    Tensor bad = layer(*layers, f.op);
    bad.setFloat(5, bad.getFloat(5) + 0.01);
    std::ofstream(path("tail.mlir"))
        << "func.func @main(%v: tensor<1x4x4x3xf32> loc(\"v\"), %y: tensor<1x4x4x3xf32> loc(\"y\")) -> tensor<48xf32> {\n"
        << f.tail << R"(  %shape = tosa.const_shape {values = dense<[48]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %r = tosa.reshape %s, %shape : (tensor<1x4x4x3xf32>, !tosa.shape<1>) -> tensor<48xf32> loc("flat")
  return %r : tensor<48xf32>
}
)";
    ASSERT_TRUE(npy::writeNpz(
        path("tin.npz"), {{"v", bad}, {"y", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 3}, ramp(48, 0.125, -0.05))}}));
    auto t = runTool("run " + path("tail.mlir") + " --inputs " + path("tin.npz") + " -o " + path("tout.npz") +
                     " --dump-intermediates " + path("tlayers.npz"));
    ASSERT_EQ(t.exitCode, 0) << t.out;
    auto tl = npy::readNpz(path("tlayers.npz"));
    ASSERT_TRUE(tl.isOk());
    npy::NamedTensors dump;
    for (const auto& [n, x] : *layers)
      dump.emplace_back(
          n, n == f.op ? bad : [&] {
            for (const auto& [m, y] : *tl)
              if (m == n) return y;  // recomputed after the fault
            return x;                // before the fault
          }());
    ASSERT_TRUE(npy::writeNpz(path("bad.npz"), dump));
    auto r = runTool(base + path("bad.npz") + " --json");
    EXPECT_EQ(r.exitCode, 1) << f.op << "\n" << r.out;
    EXPECT_EQ(countOf(r.out, "\"verdict\": \"not_compliant\""), 1) << f.op << "\n" << r.out;
    EXPECT_EQ(countOf(r.out, "\"verdict\": \"compliant\""), 3) << f.op << "\n" << r.out;
    std::string mark = "\"name\": \"" + std::string(f.op) + "\"";
    size_t at = r.out.find(mark);
    ASSERT_NE(at, std::string::npos) << r.out;
    size_t next = r.out.find("\"name\":", at + 1);
    std::string entry = r.out.substr(at, next == std::string::npos ? std::string::npos : next - at);
    EXPECT_NE(entry.find("\"verdict\": \"not_compliant\""), std::string::npos) << f.op << "\n" << r.out;
    EXPECT_NE(entry.find("element 5"), std::string::npos) << entry;
  }
}

// Without intermediates a multi-op graph's output went through three inexact operators: no single rule
// applies, check says so (and which ops) instead of inventing a bound.
TEST_F(CheckVerbTest, MultiOpOutputNotJudgedWithoutIntermediates) {
  std::ofstream(path("chain.mlir")) << kChain;
  ASSERT_TRUE(npy::writeNpz(path("xin.npz"),
                            {{"x", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 2}, ramp(32, 0.25, 0.1))},
                             {"y", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 3}, ramp(48, 0.125, -0.05))}}));
  ASSERT_EQ(runTool("run " + path("chain.mlir") + " --inputs " + path("xin.npz") + " -o " + path("out.npz")).exitCode,
            0);
  std::string cmd =
      "check --model " + path("chain.mlir") + " --inputs " + path("xin.npz") + " --result " + path("out.npz");
  auto r = runTool(cmd);
  EXPECT_EQ(r.exitCode, 7) << r.out;  // never a silent pass
  EXPECT_ROW(r.out, "out0", "not judged");
  EXPECT_NE(r.out.find("--intermediates"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'conv'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not judged: 1 output(s) without a verdict"), std::string::npos) << r.out;
  auto j = runTool(cmd + " --json");
  EXPECT_EQ(j.exitCode, 7) << j.out;
  EXPECT_NE(j.out.find("\"overall_verdict\": \"not_judged\""), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"exit_code\": 7"), std::string::npos) << j.out;
  EXPECT_NE(j.out.find("\"not_judged_summary\""), std::string::npos) << j.out;
  auto allowed = runTool(cmd + " --allow-not-judged");
  EXPECT_EQ(allowed.exitCode, 0) << allowed.out;
  EXPECT_ROW(allowed.out, "out0", "not judged");
  EXPECT_NE(allowed.out.find("accepted by --allow-not-judged"), std::string::npos) << allowed.out;
}

// An output reached through exact data movement keeps the rule of the op that produced its data: conv2d ->
// reshape is judged by CONV2D's dot-product rule.
TEST_F(CheckVerbTest, MovementKeepsTheProducersRule) {
  std::ofstream(path("cr.mlir")) << R"(func.func @main(%x: tensor<1x1x1x4xbf16> loc("x")) -> tensor<1xbf16> {
  %w = "tosa.const"() <{values = dense<1.0> : tensor<1x1x1x4xbf16>}> : () -> tensor<1x1x1x4xbf16>
  %b = "tosa.const"() <{values = dense<0.5> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x1x1x4xbf16>, tensor<1x1x1x4xbf16>, tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x1x1x1xbf16>
  %shape = tosa.const_shape {values = dense<[1]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %r = tosa.reshape %c, %shape : (tensor<1x1x1x1xbf16>, !tosa.shape<1>) -> tensor<1xbf16>
  return %r : tensor<1xbf16>
}
)";
  ASSERT_TRUE(npy::writeNpz(path("cin.npz"), {{"x", Tensor::fromDoubles(DType::BF16, {1, 1, 1, 4}, {1, 1, 1, 1})}}));
  ASSERT_TRUE(npy::writeNpz(path("c.npz"), {{"out0", Tensor::fromDoubles(DType::BF16, {1}, {4.53125})}}));
  auto r = runTool("check --model " + path("cr.mlir") + " --inputs " + path("cin.npz") + " --result " + path("c.npz"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(rowOf(r.out, "out0").find("DOT_PRODUCT(KS=4, ksb=2)"), std::string::npos) << r.out;
}

TEST_F(CheckVerbTest, IntermediatesBadInput) {
  std::ofstream(path("chain.mlir")) << kChain;
  writeResult(2.25);
  auto r = runTool("check --model " + path("chain.mlir") + " --inputs " + path("in.npz") + " --result " +
                   path("impl.npz") + " --intermediates " + path("nope.npz"));
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_NE(r.out.find("nope.npz"), std::string::npos) << r.out;
  auto s = runTool("check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " +
                   path("ref.npz") + " --test-set 7");
  EXPECT_EQ(s.exitCode, 2) << s.out;
}

// Dot-product statistics (1.10.3) apply to Appendix A data: fp32 matmul 1x8x8 * 1x8x8 on gen-data set S3
// (detected from the inputs' layout). KS = 8, acc = out = fp32 -> ksb = 8, T = 64. A result with every
// element off by about 4 error units (out_bnd * 2^-24 each, after rounding to fp32 between 3 and 5) passes
// the per-element test (|err| <= 8) but not the bias test (|sum| ~ 256 > 2*sqrt(8*64) = 45.3) nor the
// variance test (sum of squares ~ 1024 > 0.4*8*64 = 204.8). The correctly rounded result passes all three.
TEST_F(CheckVerbTest, DotProductStatisticsOnGenData) {
  std::ofstream(path("mm8.mlir"))
      << R"(func.func @main(%a: tensor<1x8x8xf32> loc("a"), %b: tensor<1x8x8xf32> loc("b")) -> tensor<1x8x8xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %z, %z : (tensor<1x8x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8xf32>
  return %m : tensor<1x8x8xf32>
}
)";
  ASSERT_EQ(runTool("gen-data --model " + path("mm8.mlir") + " -o " + path("g3.npz") + " --set 3").exitCode, 0);
  auto in = npy::readNpz(path("g3.npz"));
  ASSERT_TRUE(in.isOk());
  const Tensor& a = (*in)[0].second;
  const Tensor& b = (*in)[1].second;
  std::vector<double> exact(64), shifted(64);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      double ref = 0, bnd = 0;
      for (int c = 0; c < 8; ++c) {
        ref += a.getFloat(y * 8 + c) * b.getFloat(c * 8 + x);
        bnd += std::fabs(a.getFloat(y * 8 + c) * b.getFloat(c * 8 + x));
      }
      exact[size_t(y * 8 + x)] = ref;
      shifted[size_t(y * 8 + x)] = ref + 4 * bnd * std::ldexp(1.0, -24);
    }
  std::string base = "check --model " + path("mm8.mlir") + " --inputs " + path("g3.npz") + " --result " + path("r.npz");
  ASSERT_TRUE(npy::writeNpz(path("r.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {1, 8, 8}, exact)}}));
  auto ok = runTool(base);
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_NE(ok.out.find("test set S3"), std::string::npos) << ok.out;
  ASSERT_TRUE(npy::writeNpz(path("r.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {1, 8, 8}, shifted)}}));
  auto bad = runTool(base);
  EXPECT_EQ(bad.exitCode, 1) << bad.out;
  EXPECT_NE(bad.out.find("error bias"), std::string::npos) << bad.out;
  // Told the data is S1 (no bias test): the variance test still fails.
  auto s1 = runTool(base + " --test-set 1");
  EXPECT_EQ(s1.exitCode, 1) << s1.out;
  EXPECT_NE(s1.out.find("variance"), std::string::npos) << s1.out;
}

// A dumped intermediate of the wrong dtype is bad input naming the file and the tensor; a missing one makes
// the ops that need it "not judged".
TEST_F(CheckVerbTest, IntermediatesWrongOrMissing) {
  std::ofstream(path("chain.mlir")) << kChain;
  ASSERT_TRUE(npy::writeNpz(path("xin.npz"),
                            {{"x", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 2}, ramp(32, 0.25, 0.1))},
                             {"y", Tensor::fromDoubles(DType::FP32, {1, 4, 4, 3}, ramp(48, 0.125, -0.05))}}));
  ASSERT_EQ(runTool("run " + path("chain.mlir") + " --inputs " + path("xin.npz") + " -o " + path("out.npz") +
                    " --dump-intermediates " + path("layers.npz"))
                .exitCode,
            0);
  auto layers = npy::readNpz(path("layers.npz"));
  ASSERT_TRUE(layers.isOk());
  npy::NamedTensors wrong, missing;
  for (const auto& [n, t] : *layers) {
    wrong.emplace_back(
        n, n == "conv" ? Tensor::fromDoubles(DType::I32, t.shape(), std::vector<double>(size_t(t.size()), 1.0)) : t);
    if (n != "add") missing.emplace_back(n, t);
  }
  ASSERT_TRUE(npy::writeNpz(path("wrong.npz"), wrong));
  ASSERT_TRUE(npy::writeNpz(path("missing.npz"), missing));
  std::string base = "check --model " + path("chain.mlir") + " --inputs " + path("xin.npz") + " --result " +
      path("out.npz") + " --intermediates ";
  auto w = runTool(base + path("wrong.npz"));
  EXPECT_EQ(w.exitCode, 4) << w.out;
  EXPECT_NE(w.out.find("wrong.npz: 'conv'"), std::string::npos) << w.out;
  auto m = runTool(base + path("missing.npz"));
  EXPECT_EQ(m.exitCode, 7) << m.out;  // ops without a verdict
  EXPECT_EQ(runTool(base + path("missing.npz") + " --allow-not-judged").exitCode, 0);
  EXPECT_ROW(m.out, "add", "not judged");
  EXPECT_ROW(m.out, "sig", "not judged");
  EXPECT_ROW(m.out, "conv", "compliant");
  EXPECT_ROW(m.out, "flat", "compliant");
}
