// tosakit bench through the CLI: the JSON line and profile a user reads, and bad input (missing model, inputs
// of the wrong type, unknown backend) as one-line errors with the documented exit codes.
#include <gtest/gtest.h>

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
                          "\"backend\":\"fast\"", "\"fallback_ops\":["})
    EXPECT_NE(last.find(key), std::string::npos) << key << " in " << last;
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
