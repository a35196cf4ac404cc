// `tosakit import` flags of TPU-MLIR's model_transform preprocessing (--mean, --scale, --pixel-format,
// --channel-format, --resize-dims, --keep-aspect-ratio), recorded on the image inputs as "tosakit.preprocess".
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::cli {

struct PreprocessFlags {
  std::vector<double> mean;
  std::vector<double> scale;
  std::string pixelFormat;
  std::string channelFormat;
  std::vector<int64_t> resizeDims;
  bool keepAspectRatio = false;

  void add(CLI::App* cmd);
  bool given() const;
  // Records the recipe on every rank-4 argument of every function; error when there is none or a recipe does
  // not fit an argument's shape.
  Status apply(ir::Module& m) const;
};

}  // namespace tosakit::cli
