// The TOSA.001000.1 extended instruction set: one instruction per TOSA operator. The operand list of each
// instruction is generated from the spec text (tools/gen_spirv_table.py -> spirv_tosa_table_gen.inc); this
// header adds how each operand maps to the tosakit IR (MLIR 22 TOSA): leading constant operands are IR
// attributes, the rest are IR operands in the same order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tosakit::spirv {

enum class SpvOperandKind {
  Bool,        // OpTypeBool constant
  U32,         // OpTypeInt 32 0 constant (integers and enums)
  Scalar,      // constant scalar of the input element type (clamp min_val/max_val)
  Tensor,      // OpTypeTensorARM value (constant when mustBeConstant)
  TensorList,  // variadic tensors (concat)
};

struct SpvOperandDesc {
  const char* name;
  SpvOperandKind kind;
  bool mustBeConstant;
  int intBits;  // required integer element width of a tensor operand, 0 = any
  int length;   // required length of a rank-1 tensor operand, -1 = any
};

struct SpvInstrDesc {
  uint32_t number;
  const char* specName;  // "CONV2D"
  std::vector<SpvOperandDesc> operands;
  std::string irName;  // "tosa.conv2d"
  int numAttrs = 0;    // leading operands that are IR attributes
};

// IR attribute the idx-th operand of `d` maps to (its spec name), or "" when it is an IR operand.
const std::vector<SpvInstrDesc>& tosaInstructions();
const SpvInstrDesc* instrByNumber(uint32_t n);
const SpvInstrDesc* instrByIrName(const std::string& irName);

// Enums ("Enumerated types" of the spec). Return 0 / "" when unknown.
uint32_t enumValue(const std::string& attr, const std::string& caseName);
std::string enumName(const std::string& attr, uint32_t value);
bool isEnumAttr(const std::string& attr);  // nan_mode, rounding_mode, mode
// acc_type_t <-> DType (INT32=1 FP16=2 FP32=3 INT48=4).
uint32_t accTypeValue(DType t);
bool accTypeFromValue(uint32_t v, DType& out);
// IR operand slots that are !tosa.shape values (SPIR-V: rank-1 i32 tensors).
bool isShapeOperand(const std::string& irName, const std::string& operand);

}  // namespace tosakit::spirv
