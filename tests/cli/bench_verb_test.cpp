// tosakit bench through the CLI: the JSON line and profile a user reads, and bad input (missing model, inputs
// of the wrong type, unknown backend) as one-line errors with the documented exit codes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli_test_util.h"

namespace tosakit::testing {
namespace {

const std::string kModel = std::string(TOSAKIT_SOURCE_DIR) + "/models/default/model.mlir";

TEST(BenchVerb, JsonIsTheLastLine) {
  CmdResult r = runTool("bench " + kModel + " --warmup 1 --iterations 3 --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  std::string body = r.out.substr(0, r.out.find_last_not_of('\n') + 1);
  std::string last = body.substr(body.rfind('\n') + 1);
  EXPECT_EQ(last.rfind("{\"model\":", 0), 0u) << last;
  for (const char* key : {"\"compile_ms\":", "\"latency_ms\":{\"min\":", "\"median\":", "\"max\":", "\"iterations\":3",
                          "\"backend\":\"fast\"", "\"weights_released_bytes\":", "\"fallback_ops\":["})
    EXPECT_NE(last.find(key), std::string::npos) << key << " in " << last;
}

// The memory report of a model whose 4 MiB weight (1024 x 1024 fp32, a hand count: 4,194,304 bytes) dwarfs
// everything else: the run-time RSS above the process before loading cannot be less than those weights (they are
// resident while the model runs), and the ratio printed is that RSS over weights + arena. The weight lives only
// in the matmul's packed copy (the module's is released; the zero points stay: no kernel packs them).
TEST(BenchVerb, MemoryReportCountsTheResidentWeights) {
  std::string model =
      (std::filesystem::temp_directory_path() / ("tosakit_bench_bigw_" + std::to_string(::getpid()) + ".mlir"))
          .string();
  std::ofstream(model)
      << ("module {\n  func.func @main(%arg0: tensor<1x1x1024xf32>) -> (tensor<1x1x1024xf32>) {\n"
          "    %w = \"tosa.const\"() <{values = dense<0.5> : tensor<1x1024x1024xf32>}> : () -> tensor<1x1024x1024xf32>\n"
          "    %zp = \"tosa.const\"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>\n"
          "    %0 = tosa.matmul %arg0, %w, %zp, %zp : (tensor<1x1x1024xf32>, tensor<1x1024x1024xf32>, tensor<1xf32>, "
          "tensor<1xf32>) -> tensor<1x1x1024xf32>\n    return %0 : tensor<1x1x1024xf32>\n  }\n}\n");
  CmdResult r = runTool("bench " + model + " --iterations 2 --threads 1 --json");
  std::filesystem::remove(model);
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto field = [&](const std::string& key) {
    size_t at = r.out.rfind("\"" + key + "\":");
    EXPECT_NE(at, std::string::npos) << key << " in " << r.out;
    return at == std::string::npos ? -1.0 : std::stod(r.out.substr(at + key.size() + 3));
  };
  double weights = field("weights_bytes"), arena = field("arena_bytes"), model_rss = field("model_rss_bytes");
  EXPECT_GE(weights, 4194304.0);
  EXPECT_EQ(field("weights_released_bytes"), 4194304.0);
  EXPECT_GE(model_rss, 4194304.0);
  EXPECT_GE(field("peak_rss_bytes"), field("rss_before_load_bytes") + model_rss - 1);
  EXPECT_NEAR(field("memory_ratio"), model_rss / (weights + arena), 1e-3 * model_rss / (weights + arena));
  EXPECT_NE(r.out.find("peak RSS while running"), std::string::npos) << r.out;
  // Compiling is measured on its own: the 4 MiB weight is resident then (the module's copy, then the packed one).
  const double compileAbove = field("compile_peak_rss_bytes") - field("rss_before_load_bytes");
  EXPECT_GE(compileAbove, 4194304.0);
  EXPECT_NEAR(field("compile_memory_ratio"), compileAbove / (weights + arena), 1e-3 * compileAbove / (weights + arena));
  EXPECT_NE(r.out.find("while compiling"), std::string::npos) << r.out;
}

TEST(BenchVerb, ProfileListsStepsAndFallbacks) {
  CmdResult r = runTool("bench " + kModel + " --iterations 2 --profile --backend fast --threads 1");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_NE(r.out.find("per op type"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reference fallbacks:"), std::string::npos) << r.out;
  CmdResult ref = runTool("bench " + kModel + " --iterations 2 --backend ref");
  EXPECT_EQ(ref.exitCode, 0) << ref.out;
  EXPECT_NE(ref.out.find("backend: ref"), std::string::npos) << ref.out;
}

TEST(BenchVerb, BadInputIsOneLineWithItsExitCode) {
  CmdResult missing = runTool("bench /nonexistent/model.mlir");
  EXPECT_EQ(missing.exitCode, 4) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent/model.mlir"), std::string::npos) << missing.out;
  // The classifier's fp32 input offered to the int8 model: refused, naming the file and the input.
  std::string npz = std::string(TOSAKIT_SOURCE_DIR) + "/models/ppocr_cls/input.npz";
  CmdResult wrong = runTool("bench " + kModel + " --inputs " + npz);
  EXPECT_EQ(wrong.exitCode, 4) << wrong.out;
  EXPECT_NE(wrong.out.find(npz), std::string::npos) << wrong.out;
  EXPECT_EQ(wrong.out.find('\n'), wrong.out.size() - 1) << "not one line: " << wrong.out;
  CmdResult backend = runTool("bench " + kModel + " --backend gpu");
  EXPECT_EQ(backend.exitCode, 2) << backend.out;
}

}  // namespace
}  // namespace tosakit::testing
