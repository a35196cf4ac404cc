// `tosakit check` on outputs of a WHILE_LOOP (and other sequences) through the CLI: spec 1.10.3 "Operator
// sequence precision requirement" with correctly rounded ops (ADD: 0.5 ulp, 2.5.1) leaves one result, the
// per-iteration rounded one. Expected values are hand calculations shown at each test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "../cli/cli_test_util.h"
#include "formats/npy/npy.h"

namespace fs = std::filesystem;
using namespace tosakit;
using tosakit::testing::runTool;

namespace {

// out = x; repeat n times: out = out + c (c a constant). Output named "out0".
const char* kAddLoop = R"(func.func @main(%x: tensor<2xf32> loc("x"), %n: tensor<i32> loc("n")) -> tensor<2xf32> {
  %c = "tosa.const"() <{values = dense<[8.940696716308594E-8, 0.5]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %r:3 = tosa.while_loop (%i = %n, %k = %c, %acc = %x) : (tensor<i32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
    %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %more = tosa.greater %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %more : tensor<i1>
  } do {
  ^bb0(%bi: tensor<i32>, %bk: tensor<2xf32>, %bacc: tensor<2xf32>):
    %sum = tosa.add %bacc, %bk : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = tosa.sub %bi, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %next, %bk, %sum : tensor<i32>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#2 : tensor<2xf32>
}
)";

// The same loop with EXP in the body: not correctly rounded, no single rule.
const char* kExpLoop = R"(func.func @main(%x: tensor<2xf32> loc("x"), %n: tensor<i32> loc("n")) -> tensor<2xf32> {
  %r:2 = tosa.while_loop (%i = %n, %acc = %x) : (tensor<i32>, tensor<2xf32>) -> (tensor<i32>, tensor<2xf32>) {
    %zero = "tosa.const"() <{values = dense<0> : tensor<i32>}> : () -> tensor<i32>
    %more = tosa.greater %i, %zero : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %more : tensor<i1>
  } do {
  ^bb0(%bi: tensor<i32>, %bacc: tensor<2xf32>):
    %e = tosa.exp %bacc : (tensor<2xf32>) -> tensor<2xf32>
    %one = "tosa.const"() <{values = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %next = tosa.sub %bi, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %next, %e : tensor<i32>, tensor<2xf32>
  }
  return %r#1 : tensor<2xf32>
}
)";

class CheckSequenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
        ("tosakit_checkseq_" + std::to_string(::getpid()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& f) const { return (dir_ / f).string(); }
  void writeModel(const char* text) { std::ofstream(path("m.mlir")) << text; }
  void writeInputs(double x0, double x1, int n) {
    ASSERT_TRUE(npy::writeNpz(path("in.npz"),
                              {{"x", Tensor::fromDoubles(DType::FP32, {2}, {x0, x1})},
                               {"n", Tensor::fromDoubles(DType::I32, {}, {double(n)})}}));
  }
  tosakit::testing::CmdResult check(double out0, double out1, const std::string& extra = "") {
    EXPECT_TRUE(npy::writeNpz(path("out.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {out0, out1})}}));
    return runTool("check --model " + path("m.mlir") + " --inputs " + path("in.npz") + " --result " + path("out.npz") +
                   extra);
  }
  fs::path dir_;
};

const double kUlp1 = std::ldexp(1.0, -23);  // fp32 ulp in [1, 2)

}  // namespace

// x = 1, c = 0.75 ulp(1) = 3 * 2^-25, four iterations. Each ADD is correctly rounded (2.5.1: 0.5 ulp):
//   1 + 0.75u -> 1 + 1u;  1 + 1.75u -> 1 + 2u;  1 + 2.75u -> 1 + 3u;  1 + 3.75u -> 1 + 4u   (no ties)
// so the only compliant result is 1 + 4u. The fp64 value of the whole loop, 1 + 3u, is representable in fp32:
// an implementation accumulating in fp64 gives it, and it is NOT compliant (it is not what a sequence of
// compliant ADDs with fp32 results gives, 1.10.3). Element 1: 2 + 4 * 0.5 = 4 exactly.
TEST_F(CheckSequenceTest, WhileLoopOfAddsIsJudgedPerIteration) {
  writeModel(kAddLoop);
  writeInputs(1.0, 2.0, 4);
  auto ok = check(1 + 4 * kUlp1, 4.0);
  EXPECT_EQ(ok.exitCode, 0) << ok.out;
  EXPECT_NE(ok.out.find("EXACT(sequence of correctly rounded ops: add) [1.10.3 Operator sequence]"), std::string::npos)
      << ok.out;
  EXPECT_NE(ok.out.find("1 compliant, 0 not compliant, 0 not judged"), std::string::npos) << ok.out;

  auto fp64 = check(1 + 3 * kUlp1, 4.0);
  EXPECT_EQ(fp64.exitCode, 1) << fp64.out;
  EXPECT_NE(fp64.out.find("element 0"), std::string::npos) << fp64.out;
  EXPECT_NE(fp64.out.find("0 compliant, 1 not compliant"), std::string::npos) << fp64.out;

  auto off = check(1 + 4 * kUlp1, 4.0 + 4 * kUlp1);  // element 1 one ulp(4) off
  EXPECT_EQ(off.exitCode, 1) << off.out;
  EXPECT_NE(off.out.find("element 1"), std::string::npos) << off.out;

  // JSON for machines: the same verdict and rule.
  auto js = check(1 + 4 * kUlp1, 4.0, " --json");
  EXPECT_EQ(js.exitCode, 0) << js.out;
  EXPECT_NE(js.out.find("\"verdict\": \"compliant\""), std::string::npos) << js.out;
  EXPECT_NE(js.out.find("\"section\": \"1.10.3 Operator sequence\""), std::string::npos) << js.out;
}

// Zero iterations: the output is the input, x = [1 + 3u, 2].
TEST_F(CheckSequenceTest, WhileLoopWithoutIterations) {
  writeModel(kAddLoop);
  writeInputs(1 + 3 * kUlp1, 2.0, 0);
  EXPECT_EQ(check(1 + 3 * kUlp1, 2.0).exitCode, 0);
  EXPECT_EQ(check(1 + 4 * kUlp1, 2.0).exitCode, 1);
}

// EXP (2.6.6) allows an absolute error bound, not 0.5 ulp: iterating it has no single result, so check says
// "not judged" (exit 7) naming the op and pointing to --intermediates instead of inventing a bound.
TEST_F(CheckSequenceTest, LoopOverInexactOpIsNotJudged) {
  writeModel(kExpLoop);
  writeInputs(0.5, -1.0, 2);
  auto r = check(1.0, 1.0);
  EXPECT_EQ(r.exitCode, 7) << r.out;
  EXPECT_NE(r.out.find("not judged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tosa.while_loop"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--intermediates"), std::string::npos) << r.out;
}

// Without --inputs the sequence cannot be re-executed: not judged, saying what to give.
TEST_F(CheckSequenceTest, SequenceNeedsInputs) {
  writeModel(kAddLoop);
  ASSERT_TRUE(npy::writeNpz(path("out.npz"), {{"out0", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 2.0})}}));
  auto r =
      runTool("check --model " + path("m.mlir") + " --result " + path("out.npz") + " --reference " + path("out.npz"));
  EXPECT_EQ(r.exitCode, 7) << r.out;
  EXPECT_NE(r.out.find("not judged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("give inputs"), std::string::npos) << r.out;
}
