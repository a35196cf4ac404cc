// Sample files as function inputs: images decoded and preprocessed with OpenCV as TPU-MLIR's
// model_transform does (include/tosakit/preprocess.h), .npy/.npz as numpy wrote them.
#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tosakit/preprocess.h"

namespace tosakit {

namespace {

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

// libpng and libjpeg print their warnings ("libpng error: ...", "Corrupt JPEG data") straight to stderr;
// the CLI's contract is one error line, so stderr is muted while a codec runs.
class MutedStderr {
 public:
  MutedStderr() : saved_(::dup(STDERR_FILENO)) {
    int null = ::open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null >= 0) ::dup2(null, STDERR_FILENO);
    if (null >= 0) ::close(null);
  }
  ~MutedStderr() {
    if (saved_ < 0) return;
    ::dup2(saved_, STDERR_FILENO);
    ::close(saved_);
  }
  MutedStderr(const MutedStderr&) = delete;
  MutedStderr& operator=(const MutedStderr&) = delete;

 private:
  int saved_;
};

// Decodes with OpenCV from the file's bytes (imdecode: no OpenCV file-name handling, no console output).
Result<cv::Mat> decode(const std::string& path, bool gray) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::io(path + ": cannot open image");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return Status::parse(path + ": cannot decode image (empty file)");
  cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
  cv::Mat img;
  try {
    MutedStderr mute;
    img = cv::imdecode(bytes, cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) { return Status::parse(path + ": cannot decode image: " + e.msg); }
  if (img.empty() || img.depth() != CV_8U) return Status::parse(path + ": cannot decode image");
  if (gray) cv::cvtColor(img, img, cv::COLOR_BGR2GRAY);
  return img;
}

// Resize to (rh, rw) — keeping the aspect ratio and padding with 0 centred when asked — then centre-crop to
// (h, w) (TPU-MLIR's preprocess: resize_dims, keep_aspect_ratio with pad_type center, crop to the input).
cv::Mat resizeAndCrop(const cv::Mat& img, int64_t rh, int64_t rw, bool keepAspect, int64_t h, int64_t w) {
  cv::Mat resized;
  if (keepAspect) {
    double ratio = std::min(double(rh) / img.rows, double(rw) / img.cols);
    int nh = std::max(1, int(img.rows * ratio)), nw = std::max(1, int(img.cols * ratio));
    cv::Mat scaled;
    cv::resize(img, scaled, cv::Size(nw, nh), 0, 0, cv::INTER_LINEAR);
    resized = cv::Mat::zeros(int(rh), int(rw), img.type());
    scaled.copyTo(resized(cv::Rect(int((rw - nw) / 2), int((rh - nh) / 2), nw, nh)));
  } else {
    cv::resize(img, resized, cv::Size(int(rw), int(rh)), 0, 0, cv::INTER_LINEAR);
  }
  return resized(cv::Rect(int((rw - w) / 2), int((rh - h) / 2), int(w), int(h))).clone();
}

// The recipe to use for an argument: the recorded one, else TPU-MLIR's defaults with the layout read off the
// shape (channels 1 or 3 at dim 1 -> nchw, else nhwc).
Result<PreprocessRecipe> recipeFor(const ir::Function& fn, size_t argIndex) {
  auto recorded = preprocessRecipe(fn, argIndex);
  if (!recorded) return recorded.status();
  if (*recorded) return **recorded;
  PreprocessRecipe r;
  const ir::ValueType& t = fn.inputs()[argIndex]->type;
  if (t.rank() == 4) {
    bool nchw = t.dims[1] == 1 || t.dims[1] == 3;
    r.channelFormat = nchw ? "nchw" : "nhwc";
    if ((nchw ? t.dims[1] : t.dims[3]) == 1) r.pixelFormat = "gray";
  }
  return r;
}

double perChannel(const std::vector<double>& v, int c) { return v.size() == 1 ? v[0] : v[size_t(c)]; }

}  // namespace

bool isImageFile(const std::string& path) {
  std::string ext = lowerExtension(path);
  return ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".bmp";
}

Result<Tensor> loadImage(const std::string& path, const ir::Function& fn, size_t argIndex) {
  if (argIndex >= fn.inputs().size()) return Status::invalid(path + ": no input " + std::to_string(argIndex));
  auto recipe = recipeFor(fn, argIndex);
  if (!recipe) return recipe.status();
  const ir::ValueType& type = fn.inputs()[argIndex]->type;
  TK_RETURN_IF_ERROR(recipe->checkAgainst(type, fn.inputName(argIndex)).withContext(path));
  const bool nchw = recipe->channelFormat == "nchw";
  const int64_t n = type.dims[0], c = nchw ? type.dims[1] : type.dims[3];
  const int64_t h = nchw ? type.dims[2] : type.dims[1], w = nchw ? type.dims[3] : type.dims[2];
  const int64_t rh = recipe->resizeDims.empty() ? h : recipe->resizeDims[0];
  const int64_t rw = recipe->resizeDims.empty() ? w : recipe->resizeDims[1];

  auto decoded = decode(path, recipe->pixelFormat == "gray");
  if (!decoded) return decoded.status();
  cv::Mat img;
  try {
    img = resizeAndCrop(*decoded, rh, rw, recipe->keepAspectRatio, h, w);
    if (recipe->pixelFormat == "rgb") cv::cvtColor(img, img, cv::COLOR_BGR2RGB);
  } catch (const cv::Exception& e) { return Status::invalid(path + ": cannot resize image: " + e.msg); }
  // Integer argument: the raw pixels (a fused-preprocess graph normalizes them itself).
  const bool raw = !isFloat(type.dtype);
  Tensor t(type.dtype, type.dims);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t ch = 0; ch < c; ++ch) {
          double pixel = img.ptr<uint8_t>(int(y))[x * c + ch];
          int64_t at = nchw ? ((b * c + ch) * h + y) * w + x : ((b * h + y) * w + x) * c + ch;
          if (raw)
            t.setInt(at, int64_t(pixel));
          else
            t.setFloat(at, (pixel - perChannel(recipe->mean, int(ch))) * perChannel(recipe->scale, int(ch)));
        }
  return t;
}

Result<std::vector<std::string>> listDataset(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return Status::io(dir + ": dataset is not a readable directory");
  std::vector<std::string> files;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string p = it->path().string(), ext = lowerExtension(p);
    if (ext == ".npz" || ext == ".npy" || isImageFile(p)) files.push_back(p);
  }
  if (ec) return Status::io(dir + ": cannot list dataset: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<std::string>> datasetSamples(const std::string& dir, int64_t limit) {
  auto files = listDataset(dir);
  if (!files) return files.status();
  if (files->empty()) return Status::invalid(dir + ": dataset holds no sample (.npz, .npy, .jpg, .jpeg, .png, .bmp)");
  if (limit > 0 && int64_t(files->size()) > limit) files->resize(size_t(limit));
  return files;
}

}  // namespace tosakit
