// libFuzzer harness for the .npy / .npz readers: every input is tried as both. Beyond "no crash, no sanitizer
// report", it checks one property: a tensor that parses serializes back to bytes that parse to the same tensor.
#include <cstdint>
#include <cstdlib>

#include "core/size_budget.h"
#include "formats/npy/npy.h"

using namespace tosakit;

// A 64 MiB budget (core/size_budget.h): with -malloc_limit_mb=256 any allocation that skipped the check is a
// finding.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto t = npy::parseNpy(data, size, "fuzz.npy");
  if (t.isOk()) {
    std::vector<uint8_t> bytes = npy::serializeNpy(*t);
    auto back = npy::parseNpy(bytes.data(), bytes.size(), "roundtrip.npy");
    if (!back.isOk() || !back->identical(*t)) std::abort();
    // The range-checked conversions of the numpy convention.
    if (t->dtype() == DType::I8) (void)npy::adaptToDType(*t, DType::I4, "fuzz");
    if (t->dtype() == DType::I64) (void)npy::adaptToDType(*t, DType::I48, "fuzz");
  } else if (t.status().message().empty()) {
    std::abort();  // every error must say why
  }
  auto z = npy::parseNpz(data, size, "fuzz.npz");
  if (!z.isOk() && z.status().message().empty()) std::abort();
  return 0;
}
