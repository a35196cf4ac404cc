// Names of the discardable attributes a quantized module records (include/tosakit/quantize.h): real =
// scale * (q - zero point) on the op producing a quantized value, and on quantized arguments / results.
#pragma once

namespace tosakit::quantize {

inline constexpr const char* kScaleAttr = "tosakit.qscale";
inline constexpr const char* kZpAttr = "tosakit.qzp";

}  // namespace tosakit::quantize
