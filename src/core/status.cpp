#include "core/status.h"

namespace tosakit {

std::string_view statusCodeName(StatusCode c) {
  switch (c) {
    case StatusCode::Ok: return "ok";
    case StatusCode::InvalidArgument: return "invalid argument";
    case StatusCode::ParseError: return "parse error";
    case StatusCode::IOError: return "I/O error";
    case StatusCode::Unsupported: return "unsupported";
    case StatusCode::SpecError: return "error";
    case StatusCode::Unpredictable: return "unpredictable";
    case StatusCode::Internal: return "internal error";
  }
  return "?";
}

static std::string verdictMessage(const char* what, const SpecVerdict& v, const std::string& extra) {
  std::string m = v.op;
  if (!v.location.empty()) m += " at " + v.location;
  m += std::string(": ") + what + "(" + v.condition + ")";
  if (!extra.empty()) m += ": " + extra;
  return m;
}

Status Status::specError(SpecVerdict v, std::string message) {
  Status s = error(StatusCode::SpecError, verdictMessage("ERROR_IF", v, message));
  s.verdict_ = std::move(v);
  return s;
}

Status Status::unpredictable(SpecVerdict v, std::string message) {
  Status s = error(StatusCode::Unpredictable, verdictMessage("REQUIRE", v, message));
  s.verdict_ = std::move(v);
  return s;
}

std::string Status::toString() const {
  if (isOk()) return "ok";
  return std::string(statusCodeName(code_)) + ": " + message_;
}

Status Status::withContext(const std::string& context) const {
  if (isOk()) return *this;
  Status s = *this;
  s.message_ = context + ": " + message_;
  return s;
}

Status Status::withParameter(std::string name) const {
  if (isOk()) return *this;
  Status s = *this;
  s.parameter_ = std::move(name);
  return s;
}

}  // namespace tosakit
