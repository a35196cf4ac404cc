// Helpers shared by the fast backend's own kernels.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/status.h"

namespace tosakit::fast {

// Returned by a kernel that met a case it leaves to the golden model (an integer overflow the spec makes a
// REQUIRE, a NaN whose propagation rules differ per op): the plan reruns the step's ops on their reference
// kernels, which compute the result or the spec's verdict.
inline constexpr const char* kRerunOnReference = "fast kernel: rerun on the reference kernels";
inline Status rerunOnReference() { return Status::error(StatusCode::Unsupported, kRerunOnReference); }
inline bool isRerunOnReference(const Status& s) {
  return s.code() == StatusCode::Unsupported && s.message() == kRerunOnReference;
}

// An array whose data() is 64-byte aligned, so that each AVX-512 vector of packed weights or per-channel terms
// is loaded from one cache line: malloc aligns to 16 bytes (a large block's data sits 16 bytes into its mmapped
// pages), and an offset splits every load over two lines (mobilenet_v2's int8 depthwise layers took ~0.45 or
// ~0.59 ms by the process's luck). Movable (the buffer moves with its offset), not copyable (a copy's buffer
// could have another offset).
template <typename T>
class Aligned64 {
 public:
  Aligned64() = default;
  Aligned64(Aligned64&&) = default;
  Aligned64& operator=(Aligned64&&) = default;
  Aligned64(const Aligned64&) = delete;
  Aligned64& operator=(const Aligned64&) = delete;
  void assign(size_t n, T value) {
    buf_.assign(n + 64 / sizeof(T), value);
    size_ = n;
  }
  size_t size() const { return size_; }
  T* data() { return buf_.data() + offset(); }
  const T* data() const { return buf_.data() + offset(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }

 private:
  size_t offset() const { return (64 - reinterpret_cast<uintptr_t>(buf_.data()) % 64) % 64 / sizeof(T); }
  std::vector<T> buf_;
  size_t size_ = 0;
};

}  // namespace tosakit::fast
