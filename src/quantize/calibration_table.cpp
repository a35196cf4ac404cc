// TPU-MLIR's calibration table text format (technical reference Fig. 7.3): read, write, name checks.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/file_io.h"
#include "quantize/fake_quant.h"
#include "tosakit/calibrate.h"

namespace tosakit {

const CalibrationEntry* CalibrationTable::find(const std::string& name) const {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::string CalibrationTable::headerValue(const std::string& key) const {
  for (const auto& [k, v] : header)
    if (k == key) return v;
  return {};
}

void CalibrationTable::setHeader(const std::string& key, const std::string& value) {
  for (auto& [k, v] : header)
    if (k == key) {
      v = value;
      return;
    }
  header.emplace_back(key, value);
}

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A finite number filling the whole token (strtod accepts "nan"/"inf"; a table must not hold them).
bool parseNumber(const std::string& token, double& out) {
  if (token.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(token.c_str(), &end);
  return end == token.c_str() + token.size() && errno == 0 && std::isfinite(out);
}

// Splits off the last three whitespace-separated fields; the rest (trimmed) is the name.
bool splitEntry(const std::string& line, std::string& name, std::string fields[3]) {
  std::string rest = trim(line);
  for (int k = 2; k >= 0; --k) {
    size_t sp = rest.find_last_of(" \t");
    if (sp == std::string::npos) return false;
    fields[k] = rest.substr(sp + 1);
    rest = trim(rest.substr(0, sp));
  }
  name = rest;
  return !name.empty();
}

}  // namespace

Result<CalibrationTable> parseCalibrationTable(const std::string& text, const std::string& context) {
  CalibrationTable table;
  std::istringstream in(text);
  std::string line;
  std::set<std::string> seen;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    std::string t = trim(line);
    if (t.empty()) continue;
    std::string where = context + ":" + std::to_string(lineNo);
    if (t[0] == '#') {
      std::string body =
          trim(t.substr(t.find_first_not_of('#') == std::string::npos ? t.size() : t.find_first_not_of('#')));
      size_t colon = body.find(':');
      if (colon != std::string::npos && colon > 0)
        table.header.emplace_back(trim(body.substr(0, colon)), trim(body.substr(colon + 1)));
      continue;
    }
    CalibrationEntry e;
    std::string f[3];
    if (!splitEntry(t, e.name, f))
      return Status::parse(where + ": expected '<op_name> <threshold> <min> <max>', got '" + t + "'");
    if (!parseNumber(f[0], e.threshold) || !parseNumber(f[1], e.min) || !parseNumber(f[2], e.max))
      return Status::parse(where + ": tensor '" + e.name + "': threshold, min and max must be finite numbers");
    if (e.threshold < 0) return Status::parse(where + ": tensor '" + e.name + "': negative threshold " + f[0]);
    if (e.min > e.max) return Status::parse(where + ": tensor '" + e.name + "': min " + f[1] + " > max " + f[2]);
    if (!seen.insert(e.name).second) return Status::parse(where + ": tensor '" + e.name + "' listed twice");
    table.entries.push_back(std::move(e));
  }
  if (table.entries.empty()) return Status::parse(context + ": calibration table lists no tensor");
  return table;
}

Result<CalibrationTable> readCalibrationTable(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::io(path + ": cannot open calibration table");
  std::stringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return Status::io(path + ": cannot read calibration table");
  return parseCalibrationTable(ss.str(), path);
}

std::string formatCalibrationTable(const CalibrationTable& table) {
  std::string out;
  for (const auto& [k, v] : table.header) out += "# " + k + ": " + v + "\n";
  out += "###\n# op_name    threshold      min      max\n";
  char buf[96];
  for (const auto& e : table.entries) {
    std::snprintf(buf, sizeof buf, " %.7f %.7f %.7f\n", e.threshold, e.min, e.max);
    out += e.name + buf;
  }
  return out;
}

Status writeCalibrationTable(const std::string& path, const CalibrationTable& table) {
  for (const auto& e : table.entries)
    if (e.name.empty() || e.name.find_first_of("\n\r") != std::string::npos || e.name[0] == '#' ||
        trim(e.name) != e.name)
      return Status::unsupported(path + ": tensor name '" + e.name + "' cannot be written in a calibration table");
  return writeFileAtomic(path, formatCalibrationTable(table));
}

std::vector<std::string> calibrationTensorNames(const ir::Function& fn) {
  std::vector<std::string> names;
  quantize::forEachTensorName(fn, [&](const ir::Value*, const std::string& name, bool) { names.push_back(name); });
  return names;
}

Status checkCalibrationTableNames(const CalibrationTable& table, const ir::Function& fn, const std::string& context) {
  std::vector<std::string> names = calibrationTensorNames(fn);
  std::set<std::string> known(names.begin(), names.end());
  for (const auto& e : table.entries) {
    if (known.count(e.name)) continue;
    // A loop body runs more often than it appears: "body_op#7" is known when "body_op" is.
    size_t hash = e.name.rfind('#');
    if (hash != std::string::npos && hash > 0 && known.count(e.name.substr(0, hash))) continue;
    return Status::invalid(context + ": calibration table names tensor '" + e.name + "', which function @" + fn.name +
                           " does not have");
  }
  return Status::ok();
}

std::string calibrationMethodName(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::Kld: return "kld";
    case CalibrationMethod::MinMax: return "minmax";
    case CalibrationMethod::Percentile9999: return "percentile9999";
    case CalibrationMethod::Mse: return "mse";
    case CalibrationMethod::Octav: return "octav";
    case CalibrationMethod::AciqGauss: return "aciq_gauss";
    case CalibrationMethod::AciqLaplace: return "aciq_laplace";
  }
  return "?";
}

Result<CalibrationMethod> parseCalibrationMethod(const std::string& name) {
  for (auto m :
       {CalibrationMethod::Kld, CalibrationMethod::MinMax, CalibrationMethod::Percentile9999, CalibrationMethod::Mse,
        CalibrationMethod::Octav, CalibrationMethod::AciqGauss, CalibrationMethod::AciqLaplace})
    if (calibrationMethodName(m) == name) return m;
  return Status::invalid("unknown calibration method '" + name +
                         "' (kld, minmax, percentile9999, mse, octav, aciq_gauss, aciq_laplace)");
}

}  // namespace tosakit
