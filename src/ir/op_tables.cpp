// Lookups over the generated operator tables (op_tables_gen.cpp) and the level table of spec 1.7.
#include "ir/op_tables.h"

#include <cctype>
#include <map>

namespace tosakit::ir::spec {

const OpSpec* findOp(const std::string& mlirName) {
  static const std::map<std::string, const OpSpec*> byName = [] {
    std::map<std::string, const OpSpec*> m;
    for (const OpSpec& op : allOps()) m[op.mlirName] = &op;
    return m;
  }();
  auto it = byName.find(mlirName);
  return it == byName.end() ? nullptr : it->second;
}

const ArgSpec* findArg(const OpSpec& op, const std::string& name) {
  for (const ArgSpec& a : op.args)
    if (name == a.name) return &a;
  return nullptr;
}

bool isProfile(const std::string& id) { return id == "pro_int" || id == "pro_fp"; }

std::string profileOrExtensionName(const std::string& id) {
  std::string up;
  for (char c : id) up += (c == '_') ? '-' : char(std::toupper(static_cast<unsigned char>(c)));
  return isProfile(id) ? up : "EXT-" + up;
}

std::string requirementToString(const Requirement& r) {
  std::string s;
  for (size_t i = 0; i < r.size(); ++i) {
    if (i) s += " and ";
    for (size_t j = 0; j < r[i].size(); ++j) {
      if (j) s += " or ";
      s += profileOrExtensionName(r[i][j]);
    }
  }
  return s;
}

const LevelLimits* levelLimits(const std::string& level) {
  // Spec 1.7, Table 4 "Level maxima".
  static const LevelLimits kNone = {32, 2147483647, 2147483647, 2048, 63, 256, 256};
  static const LevelLimits k8K = {6, 8192, 8192, 256, 31, 6, 64};
  if (level == "8k" || level == "8K") return &k8K;
  if (level == "none") return &kNone;
  return nullptr;
}

}  // namespace tosakit::ir::spec
