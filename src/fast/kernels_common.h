// Helpers shared by the fast backend's own kernels.
#pragma once
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

}  // namespace tosakit::fast
