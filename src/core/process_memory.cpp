#include "core/process_memory.h"

#include <cstring>
#include <fstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tosakit {

static int64_t statusFieldBytes(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const size_t n = std::strlen(key);
  while (std::getline(f, line))
    if (line.compare(0, n, key) == 0) return std::stoll(line.substr(n)) * 1024;  // the kernel reports kB
  return 0;
}

int64_t currentRssBytes() { return statusFieldBytes("VmRSS:"); }
int64_t peakRssBytes() { return statusFieldBytes("VmHWM:"); }

bool resetPeakRss() {
  std::ofstream f("/proc/self/clear_refs");
  if (!f) return false;
  f << "5";
  f.flush();
  return bool(f);
}

void returnFreedHeapToOs() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace tosakit
