// libFuzzer harness for ONNX import (src/frontends/onnx): mutated ModelProto bytes through importOnnxBytes
// with the options `tosakit import` uses by default (ONNX checker and shape inference on, opset conversion on),
// then static validation of the graph built, as `tosakit import` does before writing. Constant folding at import
// runs the reference backend (src/ref), so its kernels are exercised too. Every input must give a module or an
// error with a message; no crash, no sanitizer report, no allocation beyond the budget.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/size_budget.h"
#include "frontends/onnx/onnx_import.h"
#include "ir/validate.h"

using namespace tosakit;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  onnx::OnnxImportOptions opts;
  auto m = onnx::importOnnxBytes(bytes, "fuzz.onnx", opts);
  if (!m) {
    if (m.status().message().empty()) std::abort();
    return 0;
  }
  ir::ValidateOptions vo;
  vo.allowRegionCaptures = true;
  for (const auto& d : ir::validateModule(**m, ir::TargetEnv::all(), vo))
    if (d.message.empty()) std::abort();
  return 0;
}
