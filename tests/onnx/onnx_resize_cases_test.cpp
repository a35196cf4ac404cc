// ONNX Resize / Upsample (ops_resize.cpp). Every Resize / Upsample node case of the ONNX backend data (the
// independent oracle): nearest/linear ones mostly take tosa.resize, the rest (cubic, tf_half_pixel_for_nn,
// tf_crop_and_resize) one constant interpolation matrix per axis. roi/scales/sizes are bound (they fix the output
// shape and the matrices). Opset-18 forms (axes, keep_aspect_ratio_policy, antialias) and Upsample imported
// without version conversion are hand-built models with hand-computed expectations.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

// One TEST per node case. Data file 1 is scales or sizes (roi is an initializer), bound: it fixes the output
// shape and the interpolation matrices. tf_crop_and_resize also has roi (file 1) and scales/sizes (file 2).
TEST(OnnxResize, DownsampleScalesCubic) { EXPECT_TRUE(runNodeCase("test_resize_downsample_scales_cubic", {1})); }
TEST(OnnxResize, DownsampleScalesCubicAN0p5ExcludeOutside) {
  EXPECT_TRUE(runNodeCase("test_resize_downsample_scales_cubic_A_n0p5_exclude_outside", {1}));
}
TEST(OnnxResize, DownsampleScalesCubicAlignCorners) {
  EXPECT_TRUE(runNodeCase("test_resize_downsample_scales_cubic_align_corners", {1}));
}
TEST(OnnxResize, DownsampleScalesLinear) { EXPECT_TRUE(runNodeCase("test_resize_downsample_scales_linear", {1})); }
TEST(OnnxResize, DownsampleScalesLinearAlignCorners) {
  EXPECT_TRUE(runNodeCase("test_resize_downsample_scales_linear_align_corners", {1}));
}
TEST(OnnxResize, DownsampleScalesNearest) { EXPECT_TRUE(runNodeCase("test_resize_downsample_scales_nearest", {1})); }
TEST(OnnxResize, DownsampleSizesCubic) { EXPECT_TRUE(runNodeCase("test_resize_downsample_sizes_cubic", {1})); }
TEST(OnnxResize, DownsampleSizesLinearPytorchHalfPixel) {
  EXPECT_TRUE(runNodeCase("test_resize_downsample_sizes_linear_pytorch_half_pixel", {1}));
}
TEST(OnnxResize, DownsampleSizesNearest) { EXPECT_TRUE(runNodeCase("test_resize_downsample_sizes_nearest", {1})); }
TEST(OnnxResize, DownsampleSizesNearestTfHalfPixelForNn) {
  EXPECT_TRUE(runNodeCase("test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn", {1}));
}
TEST(OnnxResize, UpsampleScalesCubic) { EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_cubic", {1})); }
TEST(OnnxResize, UpsampleScalesCubicAN0p5ExcludeOutside) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_cubic_A_n0p5_exclude_outside", {1}));
}
TEST(OnnxResize, UpsampleScalesCubicAlignCorners) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_cubic_align_corners", {1}));
}
TEST(OnnxResize, UpsampleScalesCubicAsymmetric) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_cubic_asymmetric", {1}));
}
TEST(OnnxResize, UpsampleScalesLinear) { EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_linear", {1})); }
TEST(OnnxResize, UpsampleScalesLinearAlignCorners) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_linear_align_corners", {1}));
}
TEST(OnnxResize, UpsampleScalesNearest) { EXPECT_TRUE(runNodeCase("test_resize_upsample_scales_nearest", {1})); }
TEST(OnnxResize, UpsampleSizesCubic) { EXPECT_TRUE(runNodeCase("test_resize_upsample_sizes_cubic", {1})); }
TEST(OnnxResize, UpsampleSizesNearest) { EXPECT_TRUE(runNodeCase("test_resize_upsample_sizes_nearest", {1})); }
TEST(OnnxResize, UpsampleSizesNearestCeilHalfPixel) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_sizes_nearest_ceil_half_pixel", {1}));
}
TEST(OnnxResize, UpsampleSizesNearestFloorAlignCorners) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_sizes_nearest_floor_align_corners", {1}));
}
TEST(OnnxResize, UpsampleSizesNearestRoundPreferCeilAsymmetric) {
  EXPECT_TRUE(runNodeCase("test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric", {1}));
}
TEST(OnnxResize, TfCropAndResize) { EXPECT_TRUE(runNodeCase("test_resize_tf_crop_and_resize", {1, 2})); }
// Upsample-9 (scales is file 1); the version converter turns it into a Resize before lowering.
TEST(OnnxResize, UpsampleNearest) { EXPECT_TRUE(runNodeCase("test_upsample_nearest", {1})); }

TEST(OnnxResize, CubicVerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_resize_upsample_scales_cubic", {1})); }

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

// Resize of X given `sizes` (an initializer) with the given attributes.
std::string resizeModel(const std::vector<int64_t>& in, const std::vector<int64_t>& sizes, std::vector<Pb> attrs,
                        int opset = 13) {
  Pb g;
  g.msg(1, node({"Resize", "resize", {"x", "", "", "sizes"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("sizes", {int64_t(sizes.size())}, sizes));
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", sizes));
  return model(g, opset);
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

// (ONNX Runtime 1.30, checked by hand on the same models, gives the same numbers for the antialias and
// keep_aspect_ratio_policy cases below.)
// Opset-18 antialias, [0, 10, 20, 30] -> 2 samples along W (scale 0.5, half_pixel: x = 0.5 and 2.5). The filter
// is the kernel at 0.5 * distance over taps floor(x) + i, i = start .. 1 - start (edge-clamped), normalized.
std::vector<double> runAntialias(const std::string& mode) {
  auto m = onnx::importOnnxBytes(
      resizeModel({1, 1, 1, 4}, {1, 1, 1, 2}, {strAttr("mode", mode), intAttr("antialias", 1)}, 18), "aa.onnx",
      unchecked());
  if (!m.isOk()) {
    ADD_FAILURE() << m.status().toString();
    return {};
  }
  auto s = Session::create(std::move(*m));
  if (!s.isOk()) {
    ADD_FAILURE() << s.status().toString();
    return {};
  }
  RunResult r;
  Status st = (*s)->run({{"x", Tensor::fromDoubles(DType::FP32, {1, 1, 1, 4}, {0, 10, 20, 30})}}, r);
  if (!st.isOk()) {
    ADD_FAILURE() << st.toString();
    return {};
  }
  return r.outputs[0].second.toDoubles();
}

// Linear: start = floor(-1 / 0.5) + 1 = -1, 4 taps i = -1..2 at 0.5 * (i - 0.5) = -0.75 -0.25 0.25 0.75, tent
// 1 - |.| = .25 .75 .75 .25, normalized .125 .375 .375 .125. x = 0.5: taps -1..2 -> 0 0 10 20: 6.25;
// x = 2.5: taps 1..4 -> 10 20 30 30: 23.75 (without antialias: 5 and 25).
TEST(OnnxResize, AntialiasLinearHandComputed) {
  auto r = runAntialias("linear");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0], 6.25, 1e-5);
  EXPECT_NEAR(r[1], 23.75, 1e-5);
}

// Cubic (A = -0.75): start = floor(-2 / 0.5) + 1 = -3, 8 taps i = -3..4 at 0.5 * (i - 0.5) = +-0.25, +-0.75,
// +-1.25, +-1.75: 1.25|x|^3 - 2.25x^2 + 1 (|x| <= 1) -> .87890625, .26171875; -0.75|x|^3 + 3.75x^2 - 6|x| + 3
// -> -.10546875, -.03515625; sum 2, so halved: .439453125 .130859375 -.052734375 -.017578125.
// x = 0.5: taps -3..4 -> 0 0 0 0 10 20 30 30: 4.39453125 + 2.6171875 - 1.58203125 - 0.52734375 = 4.90234375;
// x = 2.5 by symmetry of the input (30 - v reversed is v): 30 - 4.90234375 = 25.09765625.
TEST(OnnxResize, AntialiasCubicHandComputed) {
  auto r = runAntialias("cubic");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0], 4.90234375, 1e-5);
  EXPECT_NEAR(r[1], 25.09765625, 1e-5);
}

// Nearest ignores antialias (it only shapes the linear / cubic filters): x = 0.5, 2.5 round_prefer_floor -> 0, 2.
TEST(OnnxResize, AntialiasNearestIgnored) { EXPECT_EQ(runAntialias("nearest"), (std::vector<double>{0, 20})); }

// Non-float32 data (integer nearest resizes, float16) is not lowered: the error names the node and the type.
TEST(OnnxResize, NonFloatElementTypeUnsupported) {
  Pb g;
  g.msg(1, node({"Resize", "resize", {"x", "", "", "sizes"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("sizes", {4}, {1, 1, 4, 4}));
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({1, 1, 2, 2}, 6 /*INT32*/)));
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType({1, 1, 4, 4}, 6)));
  auto m = onnx::importOnnxBytes(model(g, 13), "int.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().message().find("'resize' (Resize): element type"), std::string::npos) << m.status().toString();
}

TEST(OnnxResize, MalformedMode) {
  {
    auto m = onnx::importOnnxBytes(resizeModel({1, 1, 2, 2}, {1, 1, 4, 4}, {strAttr("mode", "bicubic")}), "mode.onnx",
                                   unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
    EXPECT_NE(m.status().message().find("Resize mode 'bicubic'"), std::string::npos) << m.status().toString();
  }
}

// Opset-18 Resize (axes, keep_aspect_ratio_policy), hand-built: scales or sizes (listing only `axes`) as an
// initializer; nearest with asymmetric / floor sampling, so out[o] = in[floor(o / scale)].
std::string resizeModel18(const std::vector<int64_t>& in, const std::string& param, const std::vector<int64_t>& sizes,
                          const std::vector<float>& scales, const std::vector<int64_t>& out, std::vector<Pb> attrs) {
  attrs.push_back(strAttr("coordinate_transformation_mode", "asymmetric"));
  attrs.push_back(strAttr("nearest_mode", "floor"));
  Pb g;
  if (param == "sizes")
    g.msg(1, node({"Resize", "resize", {"x", "", "", "p"}, {"y"}, std::move(attrs)}));
  else
    g.msg(1, node({"Resize", "resize", {"x", "", "p"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  if (param == "sizes")
    g.msg(5, int64Tensor("p", {int64_t(sizes.size())}, sizes));
  else
    g.msg(5, floatTensor("p", {int64_t(scales.size())}, scales));
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", out));
  return model(g, 18);
}

Result<std::vector<double>> runResize18(const std::string& bytes, const Shape& in, const std::vector<double>& x) {
  auto m = onnx::importOnnxBytes(bytes, "r18.onnx", unchecked());
  if (!m.isOk()) return m.status();
  auto s = Session::create(std::move(*m));
  if (!s.isOk()) return s.status();
  RunResult r;
  TK_RETURN_IF_ERROR((*s)->run({{"x", Tensor::fromDoubles(DType::FP32, in, x)}}, r));
  return r.outputs[0].second.toDoubles();
}

// axes = [-1], scales = [2]: only W doubles; [[1, 2], [3, 4]] -> [[1, 1, 2, 2], [3, 3, 4, 4]].
TEST(OnnxResize, Opset18AxesScales) {
  auto r = runResize18(resizeModel18({1, 1, 2, 2}, "scales", {}, {2}, {1, 1, 2, 4}, {intsAttr("axes", {-1})}),
                       {1, 1, 2, 2}, {1, 2, 3, 4});
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_EQ(*r, (std::vector<double>{1, 1, 2, 2, 3, 3, 4, 4}));
}

// [2, 4] -> sizes [4, 6] on axes [2, 3]: per-axis scales 2 and 1.5.
// not_larger takes 1.5 for both: out = [3, 6]; H samples floor(o / 1.5) = 0, 0, 1; W: 0, 0, 1, 2, 2, 3.
// Rows [1 2 3 4], [5 6 7 8] -> 1 1 2 3 3 4 / 1 1 2 3 3 4 / 5 5 6 7 7 8.
TEST(OnnxResize, Opset18KeepAspectRatioNotLarger) {
  auto r = runResize18(resizeModel18({1, 1, 2, 4}, "sizes", {4, 6}, {}, {1, 1, 3, 6},
                                     {intsAttr("axes", {2, 3}), strAttr("keep_aspect_ratio_policy", "not_larger")}),
                       {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_EQ(*r, (std::vector<double>{1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8}));
}

// not_smaller takes 2 for both: out = [4, 8], every element repeated twice along H and W.
TEST(OnnxResize, Opset18KeepAspectRatioNotSmaller) {
  auto r = runResize18(resizeModel18({1, 1, 2, 4}, "sizes", {4, 6}, {}, {1, 1, 4, 8},
                                     {intsAttr("axes", {2, 3}), strAttr("keep_aspect_ratio_policy", "not_smaller")}),
                       {1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  const std::vector<double> row0 = {1, 1, 2, 2, 3, 3, 4, 4}, row1 = {5, 5, 6, 6, 7, 7, 8, 8};
  std::vector<double> want;
  for (const auto* row : {&row0, &row0, &row1, &row1}) want.insert(want.end(), row->begin(), row->end());
  EXPECT_EQ(*r, want);
}

TEST(OnnxResize, Opset18BadAxesAndPolicyAreInvalid) {
  struct Bad {
    std::vector<Pb> attrs;
    const char* msg;
  };
  std::vector<Bad> bad = {
      {{intsAttr("axes", {4})}, "'resize' (Resize): Resize axes value 4 is out of range or repeated"},
      {{intsAttr("axes", {3, -1})}, "'resize' (Resize): Resize axes value -1 is out of range or repeated"},
      {{intsAttr("axes", {3}), strAttr("keep_aspect_ratio_policy", "fit")},
       "'resize' (Resize): Resize keep_aspect_ratio_policy 'fit'"},
  };
  for (auto& c : bad) {
    auto m = onnx::importOnnxBytes(resizeModel18({1, 1, 2, 2}, "scales", {}, {2}, {1, 1, 2, 4}, c.attrs), "bad.onnx",
                                   unchecked());
    ASSERT_FALSE(m.isOk()) << c.msg;
    EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
    EXPECT_NE(m.status().message().find(c.msg), std::string::npos) << m.status().toString();
  }
}

// Upsample imported as is (no version conversion): scales from an attribute (opset 7) or an initializer
// (opset 9).
std::string upsampleModel(int opset, const std::vector<int64_t>& in, const std::vector<float>& scales,
                          const std::vector<int64_t>& out, const std::string& mode) {
  Pb g;
  Pb modeAttr = strAttr("mode", mode);
  if (opset < 9) {
    Pb sc = Pb().bytes(1, "scales");
    for (float f : scales) sc.f32(7, f);
    sc.varint(20, 6);  // FLOATS
    g.msg(1, node({"Upsample", "up", {"x"}, {"y"}, {modeAttr, sc}}));
  } else {
    g.msg(1, node({"Upsample", "up", {"x", "scales"}, {"y"}, {modeAttr}}));
  }
  g.bytes(2, "g");
  if (opset >= 9) g.msg(5, floatTensor("scales", {int64_t(scales.size())}, scales));
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", out));
  return model(g, opset);
}

std::vector<double> runUpsample(const std::string& bytes, const Shape& in, const std::vector<double>& x) {
  onnx::OnnxImportOptions o = unchecked();
  o.convertOpset = false;
  auto m = onnx::importOnnxBytes(bytes, "up.onnx", o);
  if (!m.isOk()) {
    ADD_FAILURE() << m.status().toString();
    return {};
  }
  auto s = Session::create(std::move(*m));
  if (!s.isOk()) {
    ADD_FAILURE() << s.status().toString();
    return {};
  }
  RunResult r;
  Status st = (*s)->run({{"x", Tensor::fromDoubles(DType::FP32, in, x)}}, r);
  if (!st.isOk()) {
    ADD_FAILURE() << st.toString();
    return {};
  }
  return r.outputs[0].second.toDoubles();
}

// Upsample nearest repeats each element `scale` times (out(x) = in(floor(x / 3))): [1, 2] -> [1,1,1,2,2,2].
// (Rounding x / 3 to nearest instead would give 2 at x = 2.)
TEST(OnnxResize, UpsampleOpset7NearestAttrScales) {
  EXPECT_EQ(runUpsample(upsampleModel(7, {1, 1, 1, 2}, {1, 1, 1, 3}, {1, 1, 1, 6}, "nearest"), {1, 1, 1, 2}, {1, 2}),
            (std::vector<double>{1, 1, 1, 2, 2, 2}));
}

// Upsample linear, asymmetric: along W (scale 2) x = o / 2 samples 0, 0.5, 1, 1.5 (clamped to the edge), H is
// kept: row [0, 10] -> 0 5 10 10; row [20, 30] -> 20 25 30 30.
TEST(OnnxResize, UpsampleOpset9LinearInputScales) {
  EXPECT_EQ(
      runUpsample(upsampleModel(9, {1, 1, 2, 2}, {1, 1, 1, 2}, {1, 1, 2, 4}, "linear"), {1, 1, 2, 2}, {0, 10, 20, 30}),
      (std::vector<double>{0, 5, 10, 10, 20, 25, 30, 30}));
}

TEST(OnnxResize, UpsampleBadModeIsInvalid) {
  onnx::OnnxImportOptions o = unchecked();
  o.convertOpset = false;
  auto m = onnx::importOnnxBytes(upsampleModel(9, {1, 1, 2, 2}, {1, 1, 2, 2}, {1, 1, 4, 4}, "cubic"), "up.onnx", o);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << m.status().toString();
  EXPECT_NE(m.status().message().find("'up' (Upsample): Upsample mode 'cubic'"), std::string::npos)
      << m.status().toString();
}

}  // namespace
}  // namespace tosakit::onnxtest
