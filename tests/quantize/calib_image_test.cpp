// Image inputs through `tosakit run --input x=IMAGE` and `tosakit calibrate`: OpenCV decoding and the
// preprocessing recipe (mean/scale, rgb/bgr/gray, nchw/nhwc, resize, keep-aspect-ratio, centre crop) against
// numpy's own computation on images PIL wrote (tests/quantize/calib_oracle.py images), and the recipe
// recorded by `tosakit import`.
#include <cmath>

#include "../cli/cli_test_util.h"
#include "calib_test_util.h"
#include "formats/npy/npy.h"
#include "tosakit/calibrate.h"
#include "tosakit/model_io.h"
#include "tosakit/preprocess.h"

namespace fs = std::filesystem;

namespace {

using namespace tosakit;
using tosakit::testing::oracle;
using tosakit::testing::runTool;

// An identity model whose input carries `recipeJson` (MLIR-escaped) as tosakit.preprocess.
std::string identityModel(const std::string& shape, const std::string& recipeJson) {
  std::string attr = recipeJson.empty() ? "" : " {tosakit.preprocess = \"" + recipeJson + "\"}";
  std::string t = "tensor<" + shape + "xf32>";
  return "func.func @main(%x: " + t + attr + " loc(\"x\")) -> " + t + " {\n  %y = tosa.identity %x : (" + t + ") -> " +
      t + " loc(\"y\")\n  return %y : " + t + "\n}\n";
}

class ImageInput : public tosakit::testing::ScratchDir {
 protected:
  void SetUp() override {
    ScratchDir::SetUp();
    oracle("images " + dir_.string());
  }
  // Runs the identity model on `image` and compares its output with numpy's expected array.
  void expectPreprocessed(const std::string& shape, const std::string& recipe, const std::string& image,
                          const std::string& expected, double tolerance) {
    write("m.mlir", identityModel(shape, recipe));
    auto r = runTool("run " + path("m.mlir") + " --backend ref --input x=" + path(image) + " -o " + path("out.npz"));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    auto out = npy::readNpz(path("out.npz"));
    auto want = npy::readNpy(path(expected));
    ASSERT_TRUE(out && want);
    const Tensor& got = (*out)[0].second;
    ASSERT_EQ(got.shape(), want->shape()) << expected;
    for (int64_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got.getFloat(i), want->getFloat(i), tolerance) << expected << " element " << i;
  }
};

TEST_F(ImageInput, RgbNchwMeanScale) {
  expectPreprocessed(
      "1x3x5x6", R"({\"mean\":[1,2,3],\"scale\":[0.5,0.25,2],\"pixel_format\":\"rgb\",\"channel_format\":\"nchw\"})",
      "img.png", "exp_rgb_nchw.npy", 1e-6);
}

TEST_F(ImageInput, BgrNhwcRepeatedOverTheBatch) {
  expectPreprocessed("2x5x6x3", R"({\"pixel_format\":\"bgr\",\"channel_format\":\"nhwc\"})", "img.png",
                     "exp_bgr_nhwc.npy", 0);
}

TEST_F(ImageInput, WithoutARecipeTpuMlirDefaultsApply) {
  // bgr, mean 0, scale 1; nhwc read off the shape.
  expectPreprocessed("2x5x6x3", "", "img.png", "exp_bgr_nhwc.npy", 0);
}

TEST_F(ImageInput, GrayIsBt601Luma) {
  // OpenCV's fixed-point luma may differ from the rounded float formula by one level.
  expectPreprocessed("1x1x5x6", R"({\"pixel_format\":\"gray\",\"mean\":[0],\"scale\":[1]})", "img.png", "exp_gray.npy",
                     1.0);
}

TEST_F(ImageInput, ResizeIsBilinearWithHalfPixelCentres) {
  // OpenCV's 8-bit bilinear uses 11-bit fixed-point weights and rounds to uint8: within one level.
  expectPreprocessed("1x3x6x8", R"({\"pixel_format\":\"rgb\"})", "small.png", "exp_resize.npy", 1.0);
}

TEST_F(ImageInput, KeepAspectRatioPadsWithZeroCentred) {
  expectPreprocessed("1x8x8x3", R"({\"pixel_format\":\"rgb\",\"channel_format\":\"nhwc\",\"keep_aspect_ratio\":true})",
                     "wide.png", "exp_keep.npy", 0);
}

TEST_F(ImageInput, ResizeDimsThenCentreCrop) {
  expectPreprocessed("1x3x3x4", R"({\"pixel_format\":\"rgb\",\"resize_dims\":[5,6]})", "img.png", "exp_crop.npy", 0);
}

TEST_F(ImageInput, CalibrateAcceptsImages) {
  write("m.mlir", identityModel("1x3x5x6", R"({\"mean\":[1,2,3],\"scale\":[0.5,0.25,2],\"pixel_format\":\"rgb\"})"));
  fs::create_directories(path("data"));
  fs::copy_file(path("img.png"), path("data/a.png"));
  auto r =
      runTool("calibrate " + path("m.mlir") + " --dataset " + path("data") + " --method minmax -o " + path("cali.txt"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto t = readCalibrationTable(path("cali.txt"));
  ASSERT_TRUE(t);
  auto want = npy::readNpy(path("exp_rgb_nchw.npy"));
  double lo = 1e300, hi = -1e300;
  for (int64_t i = 0; i < want->size(); ++i) lo = std::min(lo, want->getFloat(i)), hi = std::max(hi, want->getFloat(i));
  ASSERT_NE(t->find("x"), nullptr);
  EXPECT_NEAR(t->find("x")->min, lo, 1e-6);
  EXPECT_NEAR(t->find("x")->max, hi, 1e-6);
}

TEST_F(ImageInput, UndecodableImageIsOneLineExitFour) {
  write("m.mlir", identityModel("1x3x5x6", ""));
  write("broken.jpg", "not a jpeg at all");
  fs::create_directories(path("data"));
  write("data/broken.png", "\x89PNG\r\n\x1a\n truncated");
  for (const std::string& cmd :
       {"run " + path("m.mlir") + " --input x=" + path("broken.jpg") + " -o " + path("o.npz"),
        "calibrate " + path("m.mlir") + " --dataset " + path("data") + " -o " + path("o.npz")}) {
    auto r = runTool(cmd);
    EXPECT_EQ(r.exitCode, 4) << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
    EXPECT_NE(r.out.find("cannot decode image"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(path("o.npz")));
  }
}

TEST_F(ImageInput, ImportRecordsTheRecipeAndItSurvivesSpirv) {
  auto r = runTool("import " TOSAKIT_SOURCE_DIR "/models/ppocr_cls/model.onnx --input-shape x=1x3x48x192 -o " +
                   path("cls.mlir") +
                   " --mean 127.5,127.5,127.5 --scale 0.0078431,0.0078431,0.0078431 --pixel-format rgb "
                   "--resize-dims 60,200 --keep-aspect-ratio");
  ASSERT_EQ(r.exitCode, 0) << r.out;
  ASSERT_EQ(runTool("convert " + path("cls.mlir") + " " + path("cls.spv")).exitCode, 0);
  for (const char* file : {"cls.mlir", "cls.spv"}) {
    auto m = loadModel(path(file));
    ASSERT_TRUE(m) << file;
    auto recipe = preprocessRecipe(*(*m)->function("main"), 0);
    ASSERT_TRUE(recipe && *recipe) << file;
    const PreprocessRecipe& p = **recipe;
    EXPECT_EQ(p.mean, (std::vector<double>{127.5, 127.5, 127.5})) << file;
    EXPECT_EQ(p.scale, (std::vector<double>{0.0078431, 0.0078431, 0.0078431})) << file;
    EXPECT_EQ(p.pixelFormat, "rgb");
    EXPECT_EQ(p.channelFormat, "nchw");
    EXPECT_EQ(p.resizeDims, (std::vector<int64_t>{60, 200}));
    EXPECT_TRUE(p.keepAspectRatio);
  }
  // A recipe that does not fit the input is refused at import (gray needs one channel).
  r = runTool("import " TOSAKIT_SOURCE_DIR "/models/ppocr_cls/model.onnx --input-shape x=1x3x48x192 -o " +
              path("bad.mlir") + " --pixel-format gray");
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_NE(r.out.find("gray images have 1 channel(s)"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("bad.mlir")));
}

}  // namespace
