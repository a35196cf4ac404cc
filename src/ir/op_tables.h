// Per-operator data of the TOSA 1.0 specification, chapter 2 (2.3.1 ARGMAX .. 2.18.1 CONST_SHAPE): the
// argument tables, the Compile Time Constant Status tables and the Supported Data Types tables, with the
// pairing of MLIR 22 operand/result positions to spec arguments. op_tables_gen.cpp is generated from the spec
// text by tools/gen_op_tables.py; regenerate it rather than editing it.
#pragma once
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tosakit::ir::spec {

enum class ArgKind { Input, Output, Attribute };

struct FixedType {
  bool present = false;
  DType dtype = DType::Bool;
};

struct ArgSpec {
  const char* name;  // "input_zp"
  ArgKind kind;
  const char* type;     // as the spec writes it: "T<in_t>", "i32_t", "tensor_list_t", "shape_t<[4]>"
  const char* typeVar;  // column of the supported-data-types table this argument's elements take ("in_t"), or ""
  FixedType fixed;      // element type when the spec fixes it (MUL shift: T<i8_t>)
  const char* shape;    // "[N,IH,IW,IC]", "shape1", "-"
  int rankMin;          // -1 when the argument has no rank (lists, scalar attributes)
  int rankMax;          // absolute, or an offset to MAX_RANK when rankMaxRelative ("MAX_RANK - 1" -> -1)
  bool rankMaxRelative;
};

// An MLIR operand or result: the spec argument it carries; variadic ones (concat's input1, cond_if's
// input_list) take all remaining positions.
struct MlirArg {
  const char* specArg;
  bool variadic;
};

// Row of a Compile Time Constant Status table: `arg` must be a compile-time constant under the listed
// profiles unless one of `disabledBy` (EXT-DYNAMIC) is in the target.
struct CtcSpec {
  const char* arg;
  std::vector<const char*> profiles;
  std::vector<const char*> disabledBy;
};

// One cell of a supported-data-types row: type variable -> element type. `isDType` is false for cells that
// are not element types (TABLE_SIZE "513", CUSTOM's "-", CONST_SHAPE's tensor_size_t).
struct TypeBinding {
  const char* var;    // "in_t"
  const char* value;  // as written: "i8_t"
  bool isDType;
  DType dtype;
};

// Profile/extension requirement of a row, as a conjunction of alternatives: "PRO-INT or PRO-FP" is
// {{"pro_int","pro_fp"}}, "EXT-VARIABLE and PRO-FP" is {{"variable"},{"pro_fp"}}, "EXT-BF16" is {{"bf16"}}.
using Requirement = std::vector<std::vector<const char*>>;

struct TypeRow {
  Requirement requires_;
  const char* mode;  // "signed 8x8 with int32 accumulate"
  std::vector<TypeBinding> types;
};

struct OpSpec {
  const char* section;   // "2.3.3"
  const char* specName;  // "CONV2D"
  const char* mlirName;  // "tosa.conv2d"
  std::vector<ArgSpec> args;
  std::vector<MlirArg> operands;
  std::vector<MlirArg> results;
  std::vector<CtcSpec> ctc;
  std::vector<TypeRow> types;
};

// All operators of the spec, in spec order.
const std::vector<OpSpec>& allOps();
// By MLIR name ("tosa.conv2d"); null for unknown names.
const OpSpec* findOp(const std::string& mlirName);
const ArgSpec* findArg(const OpSpec& op, const std::string& name);

// Spec names: "pro_int" -> "PRO-INT", "bf16" -> "EXT-BF16".
std::string profileOrExtensionName(const std::string& id);
bool isProfile(const std::string& id);  // "pro_int" / "pro_fp"
// "EXT-INT16 or PRO-INT" style text of a requirement.
std::string requirementToString(const Requirement& r);

// Level maxima (spec 1.7, Table 4) for "8k" and "none".
struct LevelLimits {
  int64_t maxRank, maxKernel, maxStride, maxScale, maxLog2Size, maxNesting, maxTensorListSize;
};
// Null for an unknown level name.
const LevelLimits* levelLimits(const std::string& level);

}  // namespace tosakit::ir::spec
