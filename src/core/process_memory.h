// Resident memory of this process, for `tosakit bench`'s memory report, and giving freed heap back to the
// operating system after a model is loaded (parsing a text model frees hundreds of MB that glibc would
// otherwise keep resident for the rest of the process).
#pragma once

#include <cstdint>

namespace tosakit {

int64_t currentRssBytes();  // VmRSS; 0 where /proc is unavailable
int64_t peakRssBytes();     // VmHWM: the high-water mark since start or the last resetPeakRss()
// Resets the high-water mark to the current RSS (Linux /proc/self/clear_refs "5"); false if unsupported,
// in which case peakRssBytes() keeps counting from process start.
bool resetPeakRss();
// Returns free heap pages to the OS (glibc malloc_trim); a no-op elsewhere.
void returnFreedHeapToOs();

}  // namespace tosakit
