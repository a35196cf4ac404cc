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

class CheckVerbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tosakit_check_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(path("add.mlir")) << R"(func.func @main(%x: tensor<2xf32> loc("x"), %y: tensor<2xf32> loc("y")) -> tensor<2xf32> {
  %s = tosa.add %x, %y : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %s : tensor<2xf32>
}
)";
    std::ofstream(path("mm.mlir")) << R"(func.func @main(%a: tensor<1x2x4xf32> loc("a"), %b: tensor<1x4x3xf32> loc("b")) -> tensor<1x2x3xf32> {
  %za = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zb = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.matmul %a, %b, %za, %zb : (tensor<1x2x4xf32>, tensor<1x4x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x3xf32>
  return %m : tensor<1x2x3xf32>
}
)";
    // x + y = [1.5, 2.25] exactly.
    ASSERT_TRUE(npy::writeNpz(path("in.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 2.0})},
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
  EXPECT_NE(r.out.find("out0: compliant"), std::string::npos) << r.out;
}

// ref 2.25: ilog2 = 1, ulp = 2 * 2^-23 = 2^-22. Default 0.5 ulp -> bound 2^-23: 2.25 + 2^-22 fails;
// --mode ULP:ulp=1 -> bound 2^-22: passes.
TEST_F(CheckVerbTest, UlpBoundFromMode) {
  writeResult(2.25 + std::ldexp(1.0, -22));
  std::string base = "check --model " + path("add.mlir") + " --result " + path("impl.npz") + " --reference " +
                     path("ref.npz");
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
  auto r = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --result " + path("impl.npz"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
  writeResult(2.25 + std::ldexp(1.0, -20));  // 4 ulp off
  auto r2 = runTool("check --model " + path("add.mlir") + " --inputs " + path("in.npz") + " --result " + path("impl.npz"));
  EXPECT_EQ(r2.exitCode, 1) << r2.out;
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
  ASSERT_TRUE(npy::writeNpz(path("in2.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})},
                                              {"y", Tensor::fromDoubles(DType::FP32, {2}, {tiny, 0.0})}}));
  std::string base = "check --model " + path("add.mlir") + " --inputs " + path("in2.npz") + " --result " +
                     path("impl.npz");
  ASSERT_TRUE(npy::writeNpz(path("impl.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})}}));
  auto ok = runTool(base);
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_NE(ok.out.find("precise (fp64)"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("out0: compliant"), std::string::npos) << ok.out;

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
  ASSERT_TRUE(npy::writeNpz(path("in2.npz"), {{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})},
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
