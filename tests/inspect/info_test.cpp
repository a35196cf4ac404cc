// tosakit info on models/default/model.mlir (hand-written: an int8 conv2d -> rescale -> clamp and an fp32
// conv2d -> add). Expected figures are hand calculations from the model text, written out below.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../cli/cli_test_util.h"
#include "tosakit/inspect.h"

namespace tosakit {
namespace {

const std::string kModel = std::string(TOSAKIT_SOURCE_DIR) + "/models/default/model.mlir";

ModelInfo infoOf(const std::string& path) {
  auto module = loadInspectableModel(path);
  EXPECT_TRUE(module) << module.status().toString();
  auto info = inspectModel(**module);
  EXPECT_TRUE(info) << info.status().toString();
  return *info;
}

TEST(Info, MacsPerConvolutionByHand) {
  ModelInfo info = infoOf(kModel);
  ASSERT_EQ(info.macs.size(), 2u);
  // int8 conv: output 1x4x4x3 (48 values), weight OHWI 3x3x3x2: 3*3*2 = 18 MACs each -> 864.
  EXPECT_EQ(info.macs[0].macs, 48 * 18);
  // fp32 conv: output 1x2x2x2 (8 values), weight 2x3x3x3: 27 MACs each -> 216.
  EXPECT_EQ(info.macs[1].macs, 8 * 27);
  EXPECT_EQ(info.totalMacs, 1080);
}

TEST(Info, ParametersExcludeZeroPointsAndRescaleConstants) {
  ModelInfo info = infoOf(kModel);
  // i8 weight 3x3x3x2 = 54, i32 bias 3, fp32 weight 2x3x3x3 = 54 and bias 2.
  EXPECT_EQ(info.parameters["i8"].count, 54);
  EXPECT_EQ(info.parameters["i8"].bytes, 54);
  EXPECT_EQ(info.parameters["i32"].count, 3);
  EXPECT_EQ(info.parameters["i32"].bytes, 12);
  EXPECT_EQ(info.parameters["fp32"].count, 56);
  EXPECT_EQ(info.parameters["fp32"].bytes, 224);
  EXPECT_EQ(info.parameterCount, 113);
  // input/weight zero points, rescale multiplier/shift/input zp/output zp, the fp32 zero point.
  EXPECT_EQ(info.quantConstants.count, 7);
}

TEST(Info, OpCountsNeededTargetAndPrecisions) {
  ModelInfo info = infoOf(kModel);
  EXPECT_EQ(info.opCounts["tosa.const"], 11);
  EXPECT_EQ(info.opCounts["tosa.conv2d"], 2);
  EXPECT_EQ(info.opTotal, 16);
  // Both profiles (an int8 and an fp32 conv); DOUBLE_ROUND rescale needs EXT-DOUBLEROUND (spec 2.13.2).
  EXPECT_EQ(info.neededProfiles, (std::vector<std::string>{"pro_int", "pro_fp"}));
  EXPECT_EQ(info.neededExtensions, (std::vector<std::string>{"doubleround"}));
  // conv2d(i8 in), rescale(-> i8), clamp(i8) are I8; conv2d fp32 and add are FP32.
  EXPECT_EQ(info.layersByPrecision["I8"], 3);
  EXPECT_EQ(info.layersByPrecision["FP32"], 2);
  EXPECT_EQ(info.layerTotal, 5);
  EXPECT_EQ(info.inputs.size(), 3u);
  EXPECT_EQ(info.inputs[0].name, "x");
  EXPECT_EQ(info.inputs[0].type, "tensor<1x4x4x2xi8>");
}

TEST(Info, FastPlanMemoryIsReported) {
  ModelInfo info = infoOf(kModel);
  ASSERT_TRUE(info.planAvailable) << info.planError;
  EXPECT_GT(info.arenaBytes, 0);
  EXPECT_EQ(info.planPeakBytes, info.arenaBytes + info.planWeightBytes);
}

TEST(Info, UnknownFunctionIsAnError) {
  auto module = loadInspectableModel(kModel);
  ASSERT_TRUE(module);
  InfoOptions opts;
  opts.function = "nope";
  auto info = inspectModel(**module, opts);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.status().code(), StatusCode::InvalidArgument);
}

TEST(InfoCli, JsonMatchesTheLibrary) {
  auto r = testing::runTool("info " + kModel + " --json");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["macs"]["total"], 1080);
  EXPECT_EQ(j["parameters"]["count"], 113);
  EXPECT_EQ(j["layers"]["by_precision"]["I8"], 3);
}

TEST(InfoCli, MissingAndMalformedFilesAreOneLineErrors) {
  auto missing = testing::runTool("info /nonexistent/model.mlir");
  EXPECT_EQ(missing.exitCode, 4) << missing.out;
  EXPECT_EQ(std::count(missing.out.begin(), missing.out.end(), '\n'), 1) << missing.out;
  auto bad = testing::runTool("info " + std::string(TOSAKIT_SOURCE_DIR) + "/tests/data/mlir/bad_syntax.mlir");
  EXPECT_EQ(bad.exitCode, 4) << bad.out;
  auto fn = testing::runTool("info " + kModel + " --function nope");
  EXPECT_EQ(fn.exitCode, 4) << fn.out;
  EXPECT_NE(fn.out.find("nope"), std::string::npos);
}

}  // namespace
}  // namespace tosakit
