// libFuzzer harness for TFLite import (src/frontends/tflite): mutated .tflite bytes through importTfliteBytes
// (FlatBuffers verifier, index and size checks, constant folding of DEQUANTIZE / DENSIFY, the lowerings), then
// static validation of the graph built, as `tosakit import` does before writing. Every input must give a module
// or an error with a message; no crash, no sanitizer report, no allocation beyond the budget.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/size_budget.h"
#include "frontends/tflite/tflite_import.h"
#include "ir/validate.h"

using namespace tosakit;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto m = tflite::importTfliteBytes(bytes, "fuzz.tflite");
  if (!m) {
    if (m.status().message().empty()) std::abort();
    return 0;
  }
  for (const auto& d : ir::validateModule(**m, ir::TargetEnv::all()))
    if (d.message.empty()) std::abort();
  return 0;
}
