#include "preprocess_flags.h"

#include "tosakit/preprocess.h"

namespace tosakit::cli {

void PreprocessFlags::add(CLI::App* cmd) {
  cmd->add_option("--mean", mean, "Image preprocessing: per-channel mean, e.g. 123.675,116.28,103.53 (default 0)")
      ->delimiter(',');
  cmd->add_option("--scale", scale, "Image preprocessing: per-channel scale, y = (x - mean) * scale (default 1)")
      ->delimiter(',');
  cmd->add_option("--pixel-format", pixelFormat, "Image preprocessing: rgb, bgr (default) or gray")
      ->check(CLI::IsMember({"rgb", "bgr", "gray"}));
  cmd->add_option("--channel-format", channelFormat,
                  "Image preprocessing: nchw or nhwc layout of the image input (default: read off its shape)")
      ->check(CLI::IsMember({"nchw", "nhwc"}));
  cmd->add_option("--resize-dims", resizeDims,
                  "Image preprocessing: resize to H,W before centre-cropping to the input (default: the input's)")
      ->delimiter(',')
      ->expected(2);
  cmd->add_flag("--keep-aspect-ratio", keepAspectRatio,
                "Image preprocessing: resize keeping the aspect ratio, padding with 0 (centred)");
}

bool PreprocessFlags::given() const {
  return !mean.empty() || !scale.empty() || !pixelFormat.empty() || !channelFormat.empty() || !resizeDims.empty() ||
      keepAspectRatio;
}

Status PreprocessFlags::apply(ir::Module& m) const {
  if (!given()) return Status::ok();
  int recorded = 0;
  for (auto& fn : m.functions)
    for (size_t i = 0; i < fn->inputs().size(); ++i) {
      const ir::ValueType& t = fn->inputs()[i]->type;
      if (t.rank() != 4) continue;
      PreprocessRecipe r;
      r.channelFormat = !channelFormat.empty() ? channelFormat : (t.dims[1] == 1 || t.dims[1] == 3) ? "nchw" : "nhwc";
      int64_t channels = r.channelFormat == "nchw" ? t.dims[1] : t.dims[3];
      r.pixelFormat = !pixelFormat.empty() ? pixelFormat : channels == 1 ? "gray" : "bgr";
      if (!mean.empty()) r.mean = mean;
      if (!scale.empty()) r.scale = scale;
      if (r.pixelFormat == "gray" && mean.empty()) r.mean = {0};
      if (r.pixelFormat == "gray" && scale.empty()) r.scale = {1};
      r.resizeDims = resizeDims;
      r.keepAspectRatio = keepAspectRatio;
      TK_RETURN_IF_ERROR(r.checkAgainst(t, fn->inputName(i)));
      setPreprocessRecipe(*fn, i, r);
      ++recorded;
    }
  if (recorded == 0)
    return Status::invalid("--mean/--scale/--pixel-format/...: the model has no rank-4 (image) input to preprocess");
  return Status::ok();
}

}  // namespace tosakit::cli
