// The preprocessing recipe recorded at import (include/tosakit/preprocess.h): JSON text in a String
// argument attribute, so it survives MLIR text and SPIR-V like every discardable attribute.
#include <nlohmann/json.hpp>

#include "tosakit/preprocess.h"

namespace tosakit {

std::string PreprocessRecipe::toJson() const {
  nlohmann::json j;
  j["mean"] = mean;
  j["scale"] = scale;
  j["pixel_format"] = pixelFormat;
  j["channel_format"] = channelFormat;
  if (!resizeDims.empty()) j["resize_dims"] = resizeDims;
  j["keep_aspect_ratio"] = keepAspectRatio;
  return j.dump();
}

Result<PreprocessRecipe> PreprocessRecipe::fromJson(const std::string& text, const std::string& context) {
  PreprocessRecipe r;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object()) return Status::parse(context + ": preprocessing recipe is not a JSON object");
    if (j.contains("mean")) r.mean = j.at("mean").get<std::vector<double>>();
    if (j.contains("scale")) r.scale = j.at("scale").get<std::vector<double>>();
    if (j.contains("pixel_format")) r.pixelFormat = j.at("pixel_format").get<std::string>();
    if (j.contains("channel_format")) r.channelFormat = j.at("channel_format").get<std::string>();
    if (j.contains("resize_dims")) r.resizeDims = j.at("resize_dims").get<std::vector<int64_t>>();
    if (j.contains("keep_aspect_ratio")) r.keepAspectRatio = j.at("keep_aspect_ratio").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    return Status::parse(context + ": malformed preprocessing recipe: " + e.what());
  }
  if (r.pixelFormat != "rgb" && r.pixelFormat != "bgr" && r.pixelFormat != "gray")
    return Status::parse(context + ": pixel format '" + r.pixelFormat + "' (expected rgb, bgr or gray)");
  if (r.channelFormat != "nchw" && r.channelFormat != "nhwc")
    return Status::parse(context + ": channel format '" + r.channelFormat + "' (expected nchw or nhwc)");
  if (!r.resizeDims.empty() && (r.resizeDims.size() != 2 || r.resizeDims[0] <= 0 || r.resizeDims[1] <= 0))
    return Status::parse(context + ": resize dims must be two positive numbers H,W");
  return r;
}

Status PreprocessRecipe::checkAgainst(const ir::ValueType& arg, const std::string& argName) const {
  std::string what = "input '" + argName + "'";
  if (arg.kind != ir::ValueType::Kind::Tensor || arg.rank() != 4 || !arg.isStatic())
    return Status::invalid(what + ": an image input needs a static rank-4 shape, not " + arg.toString());
  int64_t channels = channelFormat == "nchw" ? arg.dims[1] : arg.dims[3];
  int64_t want = pixelFormat == "gray" ? 1 : 3;
  if (channels != want)
    return Status::invalid(what + ": " + pixelFormat + " images have " + std::to_string(want) + " channel(s), but " +
                           channelFormat + " shape " + arg.toString() + " has " + std::to_string(channels));
  for (const auto* v : {&mean, &scale})
    if (v->size() != 1 && int64_t(v->size()) != channels)
      return Status::invalid(what + ": mean/scale need 1 or " + std::to_string(channels) + " values, got " +
                             std::to_string(v->size()));
  int64_t h = channelFormat == "nchw" ? arg.dims[2] : arg.dims[1];
  int64_t w = channelFormat == "nchw" ? arg.dims[3] : arg.dims[2];
  if (!resizeDims.empty() && (resizeDims[0] < h || resizeDims[1] < w))
    return Status::invalid(what + ": resize_dims " + std::to_string(resizeDims[0]) + "," +
                           std::to_string(resizeDims[1]) + " is smaller than the input's " + std::to_string(h) + "," +
                           std::to_string(w));
  return Status::ok();
}

Result<std::optional<PreprocessRecipe>> preprocessRecipe(const ir::Function& fn, size_t argIndex) {
  const ir::Attribute* a = fn.argAttr(argIndex, kPreprocessAttr);
  if (!a) return std::optional<PreprocessRecipe>();
  std::string context = "input '" + fn.inputName(argIndex) + "'";
  if (a->kind != ir::Attribute::Kind::String)
    return Status::parse(context + ": " + kPreprocessAttr + " must be a string attribute holding JSON");
  auto r = PreprocessRecipe::fromJson(a->s, context);
  if (!r) return r.status();
  return std::optional<PreprocessRecipe>(std::move(*r));
}

void setPreprocessRecipe(ir::Function& fn, size_t argIndex, const PreprocessRecipe& recipe) {
  fn.setArgAttr(argIndex, kPreprocessAttr, ir::Attribute::string(recipe.toJson()));
}

bool PreprocessOptions::given() const {
  return !mean.empty() || !scale.empty() || !pixelFormat.empty() || !channelFormat.empty() || !resizeDims.empty() ||
      keepAspectRatio;
}

namespace {

// The recipe of one image argument: the options given, the rest read off its shape (TPU-MLIR's defaults).
PreprocessRecipe recipeFor(const ir::ValueType& t, const PreprocessOptions& o) {
  PreprocessRecipe r;
  r.channelFormat = !o.channelFormat.empty() ? o.channelFormat : (t.dims[1] == 1 || t.dims[1] == 3) ? "nchw" : "nhwc";
  int64_t channels = r.channelFormat == "nchw" ? t.dims[1] : t.dims[3];
  r.pixelFormat = !o.pixelFormat.empty() ? o.pixelFormat : channels == 1 ? "gray" : "bgr";
  if (!o.mean.empty()) r.mean = o.mean;
  if (!o.scale.empty()) r.scale = o.scale;
  if (r.pixelFormat == "gray" && o.mean.empty()) r.mean = {0};
  if (r.pixelFormat == "gray" && o.scale.empty()) r.scale = {1};
  r.resizeDims = o.resizeDims;
  r.keepAspectRatio = o.keepAspectRatio;
  return r;
}

}  // namespace

Status recordPreprocessRecipes(ir::Module& m, const PreprocessOptions& options) {
  if (!options.given()) return Status::ok();
  int recorded = 0;
  for (auto& fn : m.functions)
    for (size_t i = 0; i < fn->inputs().size(); ++i) {
      const ir::ValueType& t = fn->inputs()[i]->type;
      if (t.rank() != 4) continue;
      PreprocessRecipe r = recipeFor(t, options);
      TK_RETURN_IF_ERROR(r.checkAgainst(t, fn->inputName(i)).withParameter("preprocess"));
      setPreprocessRecipe(*fn, i, r);
      ++recorded;
    }
  if (recorded == 0)
    return Status::invalid("the model has no rank-4 (image) input to preprocess").withParameter("preprocess");
  return Status::ok();
}

}  // namespace tosakit
