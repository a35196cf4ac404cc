// Image inputs (TPU-MLIR's model_transform preprocessing, technical reference 3.2.1 and 7.3.2): the recipe
// recorded at import as the argument attribute "tosakit.preprocess", and the image loader (a jpg/png/bmp
// decoded and resized with OpenCV) behind the one front door for inputs, include/tosakit/inputs.h.
//
// Implemented by one library, tosakit_image (src/formats/image): the recipe and its attribute helpers
// (preprocess_recipe.cpp), the file loaders with OpenCV imgcodecs/imgproc (image_input.cpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosakit/npz.h"

namespace tosakit {

// Tensors by input name (the same type as Session's).
using NamedTensors = npy::NamedTensors;

inline constexpr const char* kPreprocessAttr = "tosakit.preprocess";

// Image -> tensor, in this order: decode (OpenCV, BGR); resize to resizeDims (H,W; default the argument's
// H,W) with bilinear interpolation, or with keepAspectRatio scale by min(H/h, W/w), resize, and pad with 0
// centred; centre-crop to the argument's H,W; convert to pixelFormat; y = (x - mean[c]) * scale[c];
// lay out as channelFormat (nchw or nhwc), repeat over the batch.
struct PreprocessRecipe {
  std::vector<double> mean = {0, 0, 0};
  std::vector<double> scale = {1, 1, 1};
  std::string pixelFormat = "bgr";     // rgb | bgr | gray (TPU-MLIR's default: bgr)
  std::string channelFormat = "nchw";  // nchw | nhwc
  std::vector<int64_t> resizeDims;     // {H, W}; empty = the argument's H, W
  bool keepAspectRatio = false;

  // Compact JSON: {"mean":[..],"scale":[..],"pixel_format":"rgb","channel_format":"nchw",
  // "resize_dims":[H,W],"keep_aspect_ratio":false}.
  std::string toJson() const;
  static Result<PreprocessRecipe> fromJson(const std::string& json, const std::string& context);
  // Checks the recipe against an argument type: rank 4, channels 3 (rgb/bgr) or 1 (gray) at the place
  // channelFormat says, mean/scale with one value per channel (or one for all), resize dims >= H, W.
  Status checkAgainst(const ir::ValueType& arg, const std::string& argName) const;
};

// What a user gives at import (TPU-MLIR's model_transform --mean/--scale/...): fields left empty are read off
// each image argument's shape (channel format from where 1 or 3 channels are, gray for 1 channel, else bgr).
struct PreprocessOptions {
  std::vector<double> mean;
  std::vector<double> scale;
  std::string pixelFormat;    // rgb | bgr | gray
  std::string channelFormat;  // nchw | nhwc
  std::vector<int64_t> resizeDims;
  bool keepAspectRatio = false;
  bool given() const;
};
// Records the recipe on every rank-4 argument of every function (nothing when no option is given).
// InvalidArgument, parameter "preprocess", when there is no rank-4 argument or a recipe does not fit one.
Status recordPreprocessRecipes(ir::Module& m, const PreprocessOptions& options);

// The recipe recorded on argument `argIndex`, or nullopt when there is none (ParseError when malformed).
Result<std::optional<PreprocessRecipe>> preprocessRecipe(const ir::Function& fn, size_t argIndex);
void setPreprocessRecipe(ir::Function& fn, size_t argIndex, const PreprocessRecipe& recipe);

// True for the image file extensions accepted (.jpg .jpeg .png .bmp, any case).
bool isImageFile(const std::string& path);
// Decodes and preprocesses an image for argument `argIndex` of fn, by its recorded recipe; without one, by
// TPU-MLIR's defaults (bgr, mean 0, scale 1) with the channel format read off the argument's shape.
// An integer argument (the uint8 image of a fused-preprocess graph, i8 carrying uint8 bits) receives the
// resized pixels without mean/scale. ParseError when the file does not decode.
Result<Tensor> loadImage(const std::string& path, const ir::Function& fn, size_t argIndex);
// The sample files of a dataset directory (.npz, .npy and images), sorted by name. IOError when the
// directory cannot be read; an empty list is not an error here.
Result<std::vector<std::string>> listDataset(const std::string& dir);
// The first `limit` (all when <= 0) sample files of a dataset; InvalidArgument when it holds none.
Result<std::vector<std::string>> datasetSamples(const std::string& dir, int64_t limit = 0);

}  // namespace tosakit
