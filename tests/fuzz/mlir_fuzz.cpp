// libFuzzer harness for tosakit's side of MLIR text loading (src/formats/mlir/mlir_import.cpp): the parsed
// module's conversion into the IR and static validation (src/ir/validate.cpp), the way `tosakit validate`
// loads a model (verified first, unverified if the MLIR verifier rejects it). MLIR's own parser is upstream
// code (not instrumented here). Every input must give a module or an error with a message, never a crash,
// a sanitizer report or an allocation beyond the budget (run with -malloc_limit_mb above the budget).
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/size_budget.h"
#include "formats/mlir/mlir_io.h"
#include "ir/validate.h"

using namespace tosakit;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);  // -malloc_limit_mb=256 turns any unchecked allocation into a finding
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto m = mlirio::importMlirString(text, "fuzz.mlir");
  if (!m) {
    if (m.status().message().empty()) std::abort();
    mlirio::ImportOptions unverified;
    unverified.verify = false;
    m = mlirio::importMlirString(text, "fuzz.mlir", unverified);
    if (!m) {
      if (m.status().message().empty()) std::abort();
      return 0;
    }
  }
  for (const char* level : {"8k", "none"}) {
    ir::TargetEnv target = ir::TargetEnv::all();
    target.level = level;
    for (const auto& d : ir::validateModule(**m, target))
      if (d.message.empty()) std::abort();
  }
  return 0;
}
