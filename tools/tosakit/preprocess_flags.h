// `tosakit import` flags of TPU-MLIR's model_transform preprocessing (--mean, --scale, --pixel-format,
// --channel-format, --resize-dims, --keep-aspect-ratio): the library's PreprocessOptions (tosakit/preprocess.h).
#pragma once
#include <CLI/CLI.hpp>

#include "tosakit/preprocess.h"

namespace tosakit::cli {

void addPreprocessFlags(CLI::App* cmd, PreprocessOptions& options);

}  // namespace tosakit::cli
