#include "preprocess_flags.h"

namespace tosakit::cli {

void addPreprocessFlags(CLI::App* cmd, PreprocessOptions& o) {
  cmd->add_option("--mean", o.mean, "Image preprocessing: per-channel mean, e.g. 123.675,116.28,103.53 (default 0)")
      ->delimiter(',');
  cmd->add_option("--scale", o.scale, "Image preprocessing: per-channel scale, y = (x - mean) * scale (default 1)")
      ->delimiter(',');
  cmd->add_option("--pixel-format", o.pixelFormat, "Image preprocessing: rgb, bgr (default) or gray")
      ->check(CLI::IsMember({"rgb", "bgr", "gray"}));
  cmd->add_option("--channel-format", o.channelFormat,
                  "Image preprocessing: nchw or nhwc layout of the image input (default: read off its shape)")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  cmd->add_option("--resize-dims", o.resizeDims,
                  "Image preprocessing: resize to H,W before centre-cropping to the input (default: the input's)")
      ->delimiter(',')
      ->expected(2);
  cmd->add_flag("--keep-aspect-ratio", o.keepAspectRatio,
                "Image preprocessing: resize keeping the aspect ratio, padding with 0 (centred)");
}

}  // namespace tosakit::cli
