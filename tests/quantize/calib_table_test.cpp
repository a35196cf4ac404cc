// Calibration table I/O in TPU-MLIR's format (technical reference Fig. 7.3) and the name check.
#include "calib_test_util.h"
#include "ir/builder.h"
#include "tosakit/calibrate.h"

namespace {

using namespace tosakit;

// The example of Fig. 7.3, verbatim (its first lines).
const char* kTpuMlirTable = R"(# generated time: 2022-08-11 10:00:59.743675
# histogram number: 2048
# sample number: 100
# tune number: 5
###
# op_name    threshold      min      max
images 1.0000080 0.0000000 1.0000080
122_Conv 56.4281803 -102.5830231 97.6811752
124_Mul 38.1586478 -0.2784646 97.6811752
)";

TEST(CalibrationTable, ReadsTpuMlirExample) {
  auto t = parseCalibrationTable(kTpuMlirTable, "cali.txt");
  ASSERT_TRUE(t) << t.status().toString();
  ASSERT_EQ(t->entries.size(), 3u);
  EXPECT_EQ(t->headerValue("sample number"), "100");
  EXPECT_EQ(t->headerValue("tune number"), "5");
  EXPECT_EQ(t->headerValue("histogram number"), "2048");
  const CalibrationEntry* e = t->find("122_Conv");
  ASSERT_NE(e, nullptr);
  EXPECT_DOUBLE_EQ(e->threshold, 56.4281803);
  EXPECT_DOUBLE_EQ(e->min, -102.5830231);
  EXPECT_DOUBLE_EQ(e->max, 97.6811752);
}

TEST(CalibrationTable, WriteThenReadRoundTripsAtSevenDecimals) {
  CalibrationTable t;
  t.setHeader("histogram number", "2048");
  t.setHeader("sample number", "3");
  t.entries = {{"x", 1.25, -1.25, 0.5}, {"conv 1/relu", 6.0000001, 0, 6.0000001}, {"out:1#2", 1e-5, -1e-5, 0}};
  std::string text = formatCalibrationTable(t);
  EXPECT_NE(text.find("# op_name    threshold      min      max\n"), std::string::npos);
  EXPECT_NE(text.find("x 1.2500000 -1.2500000 0.5000000\n"), std::string::npos);
  auto back = parseCalibrationTable(text, "t");
  ASSERT_TRUE(back) << back.status().toString();
  ASSERT_EQ(back->entries.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(back->entries[i].name, t.entries[i].name);
    EXPECT_NEAR(back->entries[i].threshold, t.entries[i].threshold, 5e-8);
    EXPECT_NEAR(back->entries[i].min, t.entries[i].min, 5e-8);
    EXPECT_NEAR(back->entries[i].max, t.entries[i].max, 5e-8);
  }
  EXPECT_EQ(back->headerValue("sample number"), "3");
}

TEST(CalibrationTable, MalformedLinesAreParseErrorsNamingTheLine) {
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"a 1 2\n", "cali.txt:1: expected"},
      {"# c\nx 1 nan 2\n", "cali.txt:2: tensor 'x'"},
      {"x 1 2 abc\n", "cali.txt:1: tensor 'x'"},
      {"x -1 0 1\n", "negative threshold"},
      {"x 1 2 1\n", "min 2 > max 1"},
      {"x 1 0 1\nx 1 0 1\n", "listed twice"},
      {"# only comments\n", "lists no tensor"},
  };
  for (const auto& c : cases) {
    auto t = parseCalibrationTable(c.text, "cali.txt");
    ASSERT_FALSE(t) << c.text;
    EXPECT_EQ(t.status().code(), StatusCode::ParseError);
    EXPECT_NE(t.status().message().find(c.expect), std::string::npos) << t.status().message();
  }
}

TEST(CalibrationTable, NameCheckAcceptsGraphTensorsAndNamesTheFirstUnknown) {
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::FP32, {2}), "x");
  auto* y = b.op1("tosa.abs", {x}, ir::ValueType::tensor(DType::FP32, {2}), {}, "magnitude");
  b.output({y}, {"y"});
  ir::Function& fn = *m.function("main");
  auto names = calibrationTensorNames(fn);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "magnitude"}));
  CalibrationTable t;
  t.entries = {{"x", 1, -1, 1}, {"magnitude", 1, 0, 1}};
  EXPECT_TRUE(checkCalibrationTableNames(t, fn, "cali.txt"));
  t.entries.push_back({"conv9", 1, 0, 1});
  Status s = checkCalibrationTableNames(t, fn, "cali.txt");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "cali.txt: calibration table names tensor 'conv9', which function @main does not have");
}

TEST(CalibrationTable, WriteRefusesNamesTheFormatCannotCarry) {
  CalibrationTable t;
  t.entries = {{"# looks like a comment", 1, 0, 1}};
  std::string p = "/nonexistent-dir-calib/t.txt";
  EXPECT_EQ(writeCalibrationTable(p, t).code(), StatusCode::Unsupported);
}

}  // namespace
