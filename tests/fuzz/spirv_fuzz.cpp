// libFuzzer harness for the SPIR-V TOSA graph reader (src/formats/spirv). Every input must give a module or a
// ParseError with a message, never a crash; a module that re-encodes must decode to an equal module.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/size_budget.h"
#include "formats/spirv/spirv_io.h"

using namespace tosakit;

// A 64 MiB budget (core/size_budget.h): with -malloc_limit_mb=256 any allocation that skipped the check is a
// finding.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  auto words = spirv::wordsFromBytes(bytes, "fuzz.spv");
  if (!words) {
    if (words.status().message().empty()) std::abort();
    return 0;
  }
  (void)spirv::disassembleWords(words->data(), words->size());
  auto m = spirv::decodeSpirv(words->data(), words->size(), "fuzz.spv", {});
  if (!m) {
    if (m.status().message().empty()) std::abort();
    return 0;
  }
  auto again = spirv::encodeSpirv(**m);
  if (!again) return 0;  // e.g. unranked tensors decode but have no static SPIR-V type here
  auto back = spirv::decodeSpirv(again->words.data(), again->words.size(), "fuzz2.spv", again->sidecar);
  if (!back) {
    std::fprintf(stderr, "re-encoded module does not decode: %s\n", back.status().message().c_str());
    std::abort();
  }
  std::string why;
  if (!ir::modulesEqual(**m, **back, &why)) {
    std::fprintf(stderr, "re-encoded module differs: %s\n", why.c_str());
    std::abort();
  }
  return 0;
}
