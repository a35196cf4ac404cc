// TFLite frontend: imports a TensorFlow Lite model (.tflite, FlatBuffers "TFL3") into a TOSA ir::Module.
// This header is FlatBuffers-free on purpose: callers (the CLI, Python, tests) never see the generated types.
//
//   auto m = tflite::importTflite("face_detection_short_range.tflite");   // Result<std::unique_ptr<ir::Module>>
//
// TFLite is NHWC like TOSA: no layout change anywhere. Arguments and results take the TFLite tensor names (the
// signature's names when the model has a signature); every op yielding an operator's output carries that
// output tensor's name as its location. docs/TFLITE.md lists the operators and types.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::tflite {

struct TfliteImportOptions {
  bool validateLevel = true;  // check the result at level 8K (tosakit::validateImportedModule, import.h)
  std::string functionName = "main";
};

// Imports a .tflite file. Errors: IOError (unreadable), ParseError (not a TFLite FlatBuffer, truncated, fails
// the FlatBuffers verifier, indices or buffers out of range: exit 4), InvalidArgument (a tensor larger than the
// memory budget or the level, contradicting shapes), Unsupported (one error listing every operator that
// cannot be expressed, with its index and output tensor name).
Result<std::unique_ptr<ir::Module>> importTflite(const std::string& path, const TfliteImportOptions& options = {});
// Same, from the file's bytes; `name` is used in messages.
Result<std::unique_ptr<ir::Module>> importTfliteBytes(const std::string& bytes, const std::string& name,
                                                      const TfliteImportOptions& options = {});
// True when `path` names a TFLite model: extension .tflite, or the FlatBuffers identifier "TFL3" at offset 4.
bool isTfliteFile(const std::string& path);

}  // namespace tosakit::tflite
