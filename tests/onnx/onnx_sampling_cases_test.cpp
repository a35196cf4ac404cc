// GridSample and RoiAlign (ops_sampling.cpp: tosa.gather at run-time coordinates) against the ONNX backend
// node test data (the independent oracle) and a hand-computed RoiAlign in both modes.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

class OnnxSamplingCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxSamplingCase, Passes) { EXPECT_TRUE(runNodeCase(GetParam())); }  // grid, rois: run-time data
const std::vector<std::string> kCases = {
    "test_gridsample",
    "test_gridsample_aligncorners_true",
    "test_gridsample_bicubic",
    "test_gridsample_bilinear",
    "test_gridsample_border_padding",
    "test_gridsample_nearest",
    "test_gridsample_reflection_padding",
    "test_gridsample_zeros_padding",
    "test_roialign_aligned_false",
    "test_roialign_aligned_true",
};
INSTANTIATE_TEST_SUITE_P(Node, OnnxSamplingCase, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

TEST(OnnxSampling, GridSampleVerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_gridsample_bicubic")); }
TEST(OnnxSampling, RoiAlignVerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_roialign_aligned_true")); }

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}
Pb strAttr(const std::string& name, const std::string& v) { return Pb().bytes(1, name).bytes(4, v).varint(20, 3); }

std::string roiAlignModel(const std::string& mode, int64_t samplingRatio) {
  Pb g;
  g.msg(1,
        node({"RoiAlign",
              "roi",
              {"x", "rois", "idx"},
              {"y"},
              {strAttr("mode", mode), intAttr("output_height", 1), intAttr("output_width", 1),
               intAttr("sampling_ratio", samplingRatio)}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {1, 1, 2, 2}));
  g.msg(11, valueInfo("rois", {1, 4}));
  g.msg(11, Pb().bytes(1, "idx").msg(2, tensorType({1}, 7 /*INT64*/)));
  g.msg(12, valueInfo("y", {1, 1, 1, 1}));
  return model(g, 16);
}

// X = [[1, 2], [3, 4]], roi (0, 0, 2, 2), half_pixel: the region starts at -0.5 and is 2 pixels wide; one
// sample per bin at (0.5, 0.5): bilinear weights 1/4 each. avg = (1 + 2 + 3 + 4) / 4 = 2.5; max (the largest
// weighted corner, as ONNX Runtime defines it) = 4 / 4 = 1.
double roiAlign(const std::string& mode) {
  auto m = onnx::importOnnxBytes(roiAlignModel(mode, 1), "roi.onnx", unchecked());
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  if (!m.isOk()) return -1;
  auto s = Session::create(std::move(*m));
  RunResult r;
  Status st = (*s)->run({{"x", Tensor::fromDoubles(DType::FP32, {1, 1, 2, 2}, {1, 2, 3, 4})},
                         {"rois", Tensor::fromDoubles(DType::FP32, {1, 4}, {0, 0, 2, 2})},
                         {"idx", Tensor::fromInts(DType::I32, {1}, {0})}},
                        r);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return st.isOk() ? r.outputs[0].second.getFloat(0) : -1;
}
TEST(OnnxSampling, RoiAlignAvgHandComputed) { EXPECT_EQ(roiAlign("avg"), 2.5); }
TEST(OnnxSampling, RoiAlignMaxHandComputed) { EXPECT_EQ(roiAlign("max"), 1.0); }

// sampling_ratio 0 makes the sample count depend on the run-time region size: named as unsupported.
TEST(OnnxSampling, AdaptiveSamplingIsUnsupported) {
  auto m = onnx::importOnnxBytes(roiAlignModel("avg", 0), "roi0.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().message().find("'roi' (RoiAlign): RoiAlign sampling_ratio 0"), std::string::npos)
      << m.status().toString();
}

}  // namespace
}  // namespace tosakit::onnxtest
