// Writing files so that a failure never leaves a partial output: write PATH.tmp-tosakit, then rename.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace tosakit {

// The temporary name a file is written under before it is renamed into place.
std::string temporaryPathFor(const std::string& path);
// Renames a finished temporary file onto `path`; on failure removes it and names `path` in the error.
Status commitTemporaryFile(const std::string& tmp, const std::string& path);
// Writes `size` bytes atomically (temporary file + rename).
Status writeFileAtomic(const std::string& path, const void* data, size_t size);
inline Status writeFileAtomic(const std::string& path, const std::string& bytes) {
  return writeFileAtomic(path, bytes.data(), bytes.size());
}
inline Status writeFileAtomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  return writeFileAtomic(path, bytes.data(), bytes.size());
}

}  // namespace tosakit
