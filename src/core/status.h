// Explicit error values: every failure is carried up as a Status to one place that reports it.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace tosakit {

enum class StatusCode {
  Ok,
  InvalidArgument,  // bad user input: wrong name, shape, dtype, flag
  ParseError,       // malformed file
  IOError,          // cannot open/read/write
  Unsupported,      // valid but not implemented / not expressible
  SpecError,        // an ERROR_IF or LEVEL_CHECK of the TOSA spec failed: the graph is in error
  Unpredictable,    // a REQUIRE of the TOSA spec failed: the result is unpredictable
  Internal,
};

std::string_view statusCodeName(StatusCode c);

// For SpecError/Unpredictable: which op, where, and the failing condition (the spec's text).
struct SpecVerdict {
  std::string op;        // e.g. "tosa.conv2d"
  std::string location;  // the op's location (name or file:line:col)
  std::string
      condition;  // e.g. "OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1"
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(StatusCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }
  static Status invalid(std::string m) { return error(StatusCode::InvalidArgument, std::move(m)); }
  static Status parse(std::string m) { return error(StatusCode::ParseError, std::move(m)); }
  static Status io(std::string m) { return error(StatusCode::IOError, std::move(m)); }
  static Status unsupported(std::string m) { return error(StatusCode::Unsupported, std::move(m)); }
  static Status internal(std::string m) { return error(StatusCode::Internal, std::move(m)); }
  static Status specError(SpecVerdict v, std::string message = {});
  static Status unpredictable(SpecVerdict v, std::string message = {});

  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::optional<SpecVerdict>& verdict() const { return verdict_; }
  // One line: "<code>: <message>".
  std::string toString() const;
  // Prefix the message with context, e.g. the file name: "model.mlir: <message>".
  Status withContext(const std::string& context) const;
  // The caller-given parameter the error is about, in snake_case ("histogram_bins", "tolerance"), empty when
  // none. Library messages name no door's spelling of it; each door words it its own way from this field (the
  // CLI its flag, --histogram-bins; Python its keyword, histogram_bins=).
  const std::string& parameter() const { return parameter_; }
  Status withParameter(std::string name) const;

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
  std::string parameter_;
  std::optional<SpecVerdict> verdict_;
};

// A value or the Status saying why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Status s) : v_(std::move(s)) {}
  bool isOk() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return isOk(); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  Status status() const { return isOk() ? Status::ok() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

#define TK_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::tosakit::Status tk_status__ = (expr);      \
    if (!tk_status__.isOk()) return tk_status__; \
  } while (0)

}  // namespace tosakit
