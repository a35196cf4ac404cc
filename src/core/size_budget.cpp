#include "core/size_budget.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace tosakit {

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

Result<int64_t> checkedNumElements(const Shape& shape) {
  for (int64_t d : shape) {
    if (d < 0) return Status::invalid("shape " + shapeToString(shape) + " has a negative or dynamic dimension");
  }
  for (int64_t d : shape) {
    if (d == 0) return int64_t(0);  // before any overflow: a zero dimension makes the product 0
  }
  int64_t n = 1;
  for (int64_t d : shape) {
    auto m = checkedMul(n, d);
    if (!m) return Status::invalid("shape " + shapeToString(shape) + " has more elements than fit in int64");
    n = *m;
  }
  return n;
}

Result<int64_t> checkedByteSize(DType dtype, const Shape& shape) {
  auto n = checkedNumElements(shape);
  if (!n) return n.status();
  auto bytes = checkedMul(*n, int64_t(storageBytes(dtype)));
  if (!bytes) {
    return Status::invalid(std::string(dtypeName(dtype)) + "[" + shapeToString(shape) +
                           "] has more bytes than fit in int64");
  }
  return *bytes;
}

namespace {

constexpr int64_t kMinDefaultBudget = int64_t(64) << 20;

int64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0) return 0;
  auto total = checkedMul(pages, pageSize);
  return total ? *total : INT64_MAX;
}

// cgroup v2 limit of this process's group ("max" or unreadable: no limit).
int64_t cgroupMemoryLimit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return 0;
  try {
    return std::stoll(text);
  } catch (...) { return 0; }
}

std::atomic<int64_t>& budgetOverride() {
  static std::atomic<int64_t> bytes{0};
  return bytes;
}

std::string describe(DType dtype, const Shape& shape) {
  return std::string(dtypeName(dtype)) + "[" + shapeToString(shape) + "]";
}

Status overBudget(const std::string& what, const std::string& thing, int64_t bytes) {
  std::string human = bytes >= 1024 ? " (" + formatBytes(bytes) + ")" : "";
  return Status::invalid(what + ": " + thing + " needs " + std::to_string(bytes) + " bytes" + human +
                         ", more than the memory budget of " + formatBytes(memoryBudget()))
      .withParameter("max_memory");
}

}  // namespace

int64_t defaultMemoryBudget() {
  static const int64_t bytes = [] {
    int64_t total = physicalMemoryBytes();
    int64_t group = cgroupMemoryLimit();
    if (group > 0 && (total == 0 || group < total)) total = group;
    if (total == 0) return int64_t(4) << 30;  // unknown: 4 GiB
    return std::max(total / 2, kMinDefaultBudget);
  }();
  return bytes;
}

int64_t memoryBudget() {
  int64_t b = budgetOverride().load(std::memory_order_relaxed);
  return b > 0 ? b : defaultMemoryBudget();
}

void setMemoryBudget(int64_t bytes) { budgetOverride().store(bytes > 0 ? bytes : 0, std::memory_order_relaxed); }

Status checkAllocation(DType dtype, const Shape& shape, const std::string& what) {
  auto bytes = checkedByteSize(dtype, shape);
  if (!bytes) return Status::invalid(what + ": " + bytes.status().message());
  if (*bytes > memoryBudget()) return overBudget(what, describe(dtype, shape), *bytes);
  return Status::ok();
}

Status checkAllocationBytes(int64_t bytes, const std::string& what) {
  if (bytes < 0) return Status::invalid(what + ": negative size " + std::to_string(bytes));
  if (bytes > memoryBudget()) return overBudget(what, "a buffer", bytes);
  return Status::ok();
}

Status checkFileSize(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Status::ok();
  uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return Status::ok();
  if (size <= uintmax_t(memoryBudget())) return Status::ok();
  return overBudget(path, "reading the whole file", int64_t(std::min<uintmax_t>(size, INT64_MAX)));
  return Status::ok();
}

Status checkAllocationElements(int64_t count, int64_t elementBytes, const std::string& what) {
  if (count < 0 || elementBytes < 0) {
    return Status::invalid(what + ": negative size " + std::to_string(count) + " x " + std::to_string(elementBytes));
  }
  auto bytes = checkedMul(count, elementBytes);
  if (!bytes) {
    return Status::invalid(what + ": " + std::to_string(count) + " elements of " + std::to_string(elementBytes) +
                           " bytes do not fit in int64");
  }
  if (*bytes > memoryBudget()) return overBudget(what, std::to_string(count) + " elements", *bytes);
  return Status::ok();
}

Result<int64_t> parseByteSize(std::string_view text) {
  const std::string original(text);
  auto bad = [&] { return Status::invalid("bad byte size '" + original + "' (expected e.g. 1048576, 512K, 64M, 2G)"); };
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 18) return bad();
  int64_t value = std::stoll(std::string(text.substr(0, i)));
  std::string suffix;
  for (char c : text.substr(i)) suffix += char(std::toupper(static_cast<unsigned char>(c)));
  if (suffix.size() >= 2 && suffix.substr(suffix.size() - 2) == "IB")
    suffix.resize(suffix.size() - 2);
  else if (!suffix.empty() && suffix.back() == 'B')
    suffix.pop_back();
  int shift = 0;
  if (suffix.empty())
    shift = 0;
  else if (suffix == "K")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (suffix == "T")
    shift = 40;
  else
    return bad();
  auto bytes = checkedMul(value, int64_t(1) << shift);
  if (!bytes || *bytes <= 0) return bad();
  return *bytes;
}

std::string formatBytes(int64_t bytes) {
  static const char* const kUnits[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 6) {
    v /= 1024.0;
    ++unit;
  }
  char buf[48];
  if (unit == 0)
    std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace tosakit
