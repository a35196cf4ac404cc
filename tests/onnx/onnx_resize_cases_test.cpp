// Resize forms tosa.resize cannot express (cubic, tf_half_pixel_for_nn, tf_crop_and_resize, other ranks),
// lowered to one constant interpolation matrix per axis (ops_resize.cpp), against the ONNX backend node test
// data (the independent oracle). roi/scales/sizes are bound (they fix the output shape and the matrices).
// The nearest/linear cases that tosa.resize takes are in onnx_node_test.cpp.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

class OnnxResizeCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxResizeCase, Passes) {
  // Inputs after X (roi, scales, sizes; only the ones present have data files) are all bound.
  EXPECT_TRUE(runNodeCase(GetParam(), {1, 2, 3}));
}
const std::vector<std::string> kCases = {
    "test_resize_downsample_scales_cubic", "test_resize_downsample_scales_cubic_A_n0p5_exclude_outside",
    "test_resize_downsample_scales_cubic_align_corners", "test_resize_downsample_sizes_cubic",
    "test_resize_upsample_scales_cubic", "test_resize_upsample_scales_cubic_A_n0p5_exclude_outside",
    "test_resize_upsample_scales_cubic_align_corners", "test_resize_upsample_scales_cubic_asymmetric",
    "test_resize_upsample_sizes_cubic", "test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn",
    "test_resize_tf_crop_and_resize",
};
INSTANTIATE_TEST_SUITE_P(Node, OnnxResizeCase, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

TEST(OnnxResize, CubicVerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_resize_upsample_scales_cubic", {1})); }

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

// Resize of X given `sizes` (an initializer) with the given attributes.
std::string resizeModel(const std::vector<int64_t>& in, const std::vector<int64_t>& sizes, std::vector<Pb> attrs) {
  Pb g;
  g.msg(1, node({"Resize", "resize", {"x", "", "", "sizes"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("sizes", {int64_t(sizes.size())}, sizes));
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", sizes));
  return model(g, 13);
}

Pb strAttr(const std::string& name, const std::string& v) { return Pb().bytes(1, name).bytes(4, v).varint(20, 3); }

// A rank-5 linear resize (not 4-D: the matrix path), asymmetric, [0, 10] -> 4 samples at x = o / 2:
// 0 -> 0, 0.5 -> 5, 1 -> 10, 1.5 -> between index 1 and index 2, clamped to the edge -> 10.
TEST(OnnxResize, Rank5LinearHandComputed) {
  auto m = onnx::importOnnxBytes(
      resizeModel({1, 1, 1, 1, 2}, {1, 1, 1, 1, 4},
                  {strAttr("mode", "linear"), strAttr("coordinate_transformation_mode", "asymmetric")}),
      "resize5.onnx", unchecked());
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.resize"), 0);
  auto s = Session::create(std::move(*m));
  ASSERT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  ASSERT_TRUE((*s)->run({{"x", Tensor::fromDoubles(DType::FP32, {1, 1, 1, 1, 2}, {0, 10})}}, r).isOk());
  EXPECT_EQ(r.outputs[0].second.toDoubles(), (std::vector<double>{0, 5, 10, 10}));
}

TEST(OnnxResize, UnsupportedAndMalformedForms) {
  {
    auto m = onnx::importOnnxBytes(resizeModel({1, 1, 2, 2}, {1, 1, 4, 4}, {intAttr("antialias", 1)}), "aa.onnx",
                                   unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
    EXPECT_NE(m.status().message().find("'resize' (Resize): Resize antialias"), std::string::npos)
        << m.status().toString();
  }
  {
    auto m = onnx::importOnnxBytes(resizeModel({1, 1, 2, 2}, {1, 1, 4, 4}, {strAttr("mode", "bicubic")}),
                                   "mode.onnx", unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
    EXPECT_NE(m.status().message().find("Resize mode 'bicubic'"), std::string::npos) << m.status().toString();
  }
}

}  // namespace
}  // namespace tosakit::onnxtest
