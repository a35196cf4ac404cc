#include "core/file_io.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tosakit {

std::string temporaryPathFor(const std::string& path) { return path + ".tmp-tosakit"; }

Status commitTemporaryFile(const std::string& tmp, const std::string& path) {
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    std::remove(tmp.c_str());
    return Status::io(path + ": cannot rename temporary file: " + std::strerror(e));
  }
  return Status::ok();
}

Status writeFileAtomic(const std::string& path, const void* data, size_t size) {
  std::string tmp = temporaryPathFor(path);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return Status::io(path + ": cannot write: " + std::strerror(errno));
  errno = 0;
  bool ok = size == 0 || std::fwrite(data, 1, size, f) == size;
  int savedErrno = errno;
  if (std::fclose(f) != 0) {
    ok = false;
    if (!savedErrno) savedErrno = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return Status::io(path + ": write failed: " + std::strerror(savedErrno ? savedErrno : EIO));
  }
  return commitTemporaryFile(tmp, path);
}

}  // namespace tosakit
