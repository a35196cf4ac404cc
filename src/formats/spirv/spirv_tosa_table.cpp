#include "formats/spirv/spirv_tosa_table.h"

#include <cctype>

namespace tosakit::spirv {

namespace {

struct RawInstr {
  uint32_t number;
  const char* specName;
  std::vector<SpvOperandDesc> operands;
};

// Generated from the spec; see tools/gen_spirv_table.py.
const RawInstr kRaw[] = {
#include "formats/spirv/spirv_tosa_table_gen.inc"
};

std::vector<SpvInstrDesc> build() {
  std::vector<SpvInstrDesc> out;
  for (const RawInstr& r : kRaw) {
    SpvInstrDesc d;
    d.number = r.number;
    d.specName = r.specName;
    d.operands = r.operands;
    d.irName = "tosa.";
    for (const char* p = r.specName; *p; ++p) d.irName += char(std::tolower(static_cast<unsigned char>(*p)));
    // Attributes are the leading constant operands, up to the first non-constant (input) operand.
    int n = 0;
    while (n < int(d.operands.size()) && d.operands[size_t(n)].mustBeConstant) ++n;
    d.numAttrs = n;
    out.push_back(std::move(d));
  }
  return out;
}

struct EnumCase {
  const char* attr;
  const char* name;
  uint32_t value;
};
// Spec "Enumerated types"; IR attribute names as in MLIR 22.
const EnumCase kEnums[] = {
    {"mode", "NEAREST_NEIGHBOR", 1},      {"mode", "BILINEAR", 2},
    {"nan_mode", "PROPAGATE", 1},         {"nan_mode", "IGNORE", 2},
    {"rounding_mode", "SINGLE_ROUND", 1}, {"rounding_mode", "INEXACT_ROUND", 2},
    {"rounding_mode", "DOUBLE_ROUND", 3},
};

}  // namespace

const std::vector<SpvInstrDesc>& tosaInstructions() {
  static const std::vector<SpvInstrDesc> table = build();
  return table;
}

const SpvInstrDesc* instrByNumber(uint32_t n) {
  for (const auto& d : tosaInstructions())
    if (d.number == n) return &d;
  return nullptr;
}

const SpvInstrDesc* instrByIrName(const std::string& irName) {
  for (const auto& d : tosaInstructions())
    if (d.irName == irName) return &d;
  return nullptr;
}

uint32_t enumValue(const std::string& attr, const std::string& caseName) {
  for (const auto& e : kEnums)
    if (attr == e.attr && caseName == e.name) return e.value;
  return 0;
}

std::string enumName(const std::string& attr, uint32_t value) {
  for (const auto& e : kEnums)
    if (attr == e.attr && value == e.value) return e.name;
  return {};
}

bool isEnumAttr(const std::string& attr) { return attr == "mode" || attr == "nan_mode" || attr == "rounding_mode"; }

uint32_t accTypeValue(DType t) {
  switch (t) {
    case DType::I32: return 1;
    case DType::FP16: return 2;
    case DType::FP32: return 3;
    case DType::I48: return 4;
    default: return 0;
  }
}

bool accTypeFromValue(uint32_t v, DType& out) {
  switch (v) {
    case 1: out = DType::I32; return true;
    case 2: out = DType::FP16; return true;
    case 3: out = DType::FP32; return true;
    case 4: out = DType::I48; return true;
    default: return false;
  }
}

bool isShapeOperand(const std::string& irName, const std::string& operand) {
  if (irName == "tosa.reshape") return operand == "shape";
  if (irName == "tosa.slice") return operand == "start" || operand == "size";
  if (irName == "tosa.tile") return operand == "multiples";
  if (irName == "tosa.pad") return operand == "padding";
  if (irName == "tosa.resize") return operand == "scale" || operand == "offset" || operand == "border";
  return false;
}

}  // namespace tosakit::spirv
