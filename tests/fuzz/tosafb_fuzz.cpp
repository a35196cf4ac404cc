// libFuzzer harness for the TOSA flatbuffer reader (src/formats/tosafb). Every input must give a module or an
// error with a message, never a crash; the dump must not crash either; a module that re-encodes must decode to
// an equal module.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/size_budget.h"
#include "formats/tosafb/tosafb_io.h"

using namespace tosakit;

// A 64 MiB budget (core/size_budget.h): with -malloc_limit_mb=256 any allocation that skipped the check is a
// finding.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // FlatBuffers reads scalars in place: the buffer is aligned as a file read into memory is.
  std::string bytes(reinterpret_cast<const char*>(data), size);
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  auto dump = tosafb::disassembleTosaBytes(p, size, "fuzz.tosa");
  if (!dump && dump.status().message().empty()) std::abort();
  auto m = tosafb::decodeTosa(p, size, "fuzz.tosa");
  if (!m) {
    if (m.status().message().empty()) std::abort();
    return 0;
  }
  auto again = tosafb::encodeTosa(**m);
  if (!again) return 0;  // e.g. a dimension the writer cannot express
  auto back = tosafb::decodeTosa(again->bytes.data(), again->bytes.size(), "fuzz2.tosa");
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
