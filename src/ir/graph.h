// The TOSA graph: a Module of Functions; a Function is a Block of Operations over Values. Operations carry
// typed attributes and may own Regions (cond_if then/else, while_loop cond/body). Mirrors the MLIR TOSA
// dialect closely so MLIR and SPIR-V round trips are exact, without depending on MLIR.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/tensor.h"

namespace tosakit::ir {

// Type of a Value: a ranked tensor (dims may be -1 when dynamic), an unranked tensor, or a TOSA shape
// value (!tosa.shape<N>, element dtype I64, dims = {N}).
struct ValueType {
  enum class Kind { Tensor, UnrankedTensor, Shape };
  Kind kind = Kind::Tensor;
  DType dtype = DType::FP32;
  Shape dims;

  static ValueType tensor(DType dtype, Shape dims) { return {Kind::Tensor, dtype, std::move(dims)}; }
  static ValueType unranked(DType dtype) { return {Kind::UnrankedTensor, dtype, {}}; }
  static ValueType shape(int64_t rank) { return {Kind::Shape, DType::I64, {rank}}; }
  bool isShape() const { return kind == Kind::Shape; }
  bool isStatic() const;  // ranked tensor with no dynamic dim, or a shape value
  int rank() const { return int(dims.size()); }
  bool operator==(const ValueType& o) const { return kind == o.kind && dtype == o.dtype && dims == o.dims; }
  bool operator!=(const ValueType& o) const { return !(*this == o); }
  // "tensor<1x4xi8>", "tensor<*xf32>", "!tosa.shape<4>" in tosakit dtype names ("tensor<1x4xfp16>").
  std::string toString() const;
};

// Source location: a name (MLIR NameLoc, e.g. an ONNX node name) and/or file:line:col.
struct Location {
  std::string name;
  std::string file;
  int line = 0;
  int col = 0;
  bool empty() const { return name.empty() && file.empty(); }
  std::string toString() const;  // "conv1 (model.mlir:12:5)", "model.mlir:12:5", "conv1" or ""
  bool operator==(const Location& o) const {
    return name == o.name && file == o.file && line == o.line && col == o.col;
  }
};

// Typed attribute value. Integer and float scalars keep their MLIR element type (clamp's min_val : i8);
// arrays keep their element width (array<i64: ...>); enums keep their case name ("DOUBLE_ROUND").
struct Attribute {
  enum class Kind { Bool, Int, Float, String, Enum, Type, IntArray, BoolArray, Tensor, Symbol };
  Kind kind = Kind::Bool;
  bool b = false;
  int64_t i = 0;
  double f = 0;
  DType dtype = DType::I64;              // Int/Float: scalar type; Type: the type; IntArray: element type (I8..I64)
  std::string s;                         // String / Enum case / Symbol name
  std::vector<int64_t> ints;             // IntArray / BoolArray
  std::shared_ptr<const Tensor> tensor;  // Tensor (dense constants)

  static Attribute boolean(bool v) {
    Attribute a;
    a.kind = Kind::Bool;
    a.b = v;
    return a;
  }
  static Attribute integer(int64_t v, DType t = DType::I64) {
    Attribute a;
    a.kind = Kind::Int;
    a.i = v;
    a.dtype = t;
    return a;
  }
  static Attribute floating(double v, DType t = DType::FP32) {
    Attribute a;
    a.kind = Kind::Float;
    a.f = v;
    a.dtype = t;
    return a;
  }
  static Attribute string(std::string v) {
    Attribute a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
  }
  static Attribute enumCase(std::string v) {
    Attribute a;
    a.kind = Kind::Enum;
    a.s = std::move(v);
    return a;
  }
  static Attribute type(DType t) {
    Attribute a;
    a.kind = Kind::Type;
    a.dtype = t;
    return a;
  }
  static Attribute intArray(std::vector<int64_t> v, DType elem = DType::I64) {
    Attribute a;
    a.kind = Kind::IntArray;
    a.ints = std::move(v);
    a.dtype = elem;
    return a;
  }
  static Attribute boolArray(std::vector<int64_t> v) {
    Attribute a;
    a.kind = Kind::BoolArray;
    a.ints = std::move(v);
    a.dtype = DType::Bool;
    return a;
  }
  static Attribute dense(Tensor t) {
    Attribute a;
    a.kind = Kind::Tensor;
    a.tensor = std::make_shared<const Tensor>(std::move(t));
    a.dtype = a.tensor->dtype();
    return a;
  }
  static Attribute symbol(std::string name) {
    Attribute a;
    a.kind = Kind::Symbol;
    a.s = std::move(name);
    return a;
  }

  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }
  std::string toString() const;
};

class Operation;
class Block;

// An SSA value: a function/block argument or an operation result.
class Value {
 public:
  ValueType type;
  std::string name;                 // user-visible name (from a NameLoc), may be empty
  Operation* definingOp = nullptr;  // null for block arguments
  Block* ownerBlock = nullptr;      // for block arguments
  int index = 0;                    // result number or argument number
  int id = 0;                       // unique within a Module, for printing and maps
};

struct Region;

class Operation {
 public:
  std::string name;  // full dialect name: "tosa.conv2d", "tosa.yield", "func.return"
  std::vector<Value*> operands;
  std::vector<Value*> results;
  std::map<std::string, Attribute> attrs;
  std::vector<std::unique_ptr<Region>> regions;
  Location loc;
  Block* parent = nullptr;

  bool hasAttr(const std::string& k) const { return attrs.count(k) != 0; }
  const Attribute* attr(const std::string& k) const;
  // Convenience getters with defaults for absent attributes.
  int64_t intAttr(const std::string& k, int64_t def = 0) const;
  double floatAttr(const std::string& k, double def = 0) const;
  bool boolAttr(const std::string& k, bool def = false) const;
  std::vector<int64_t> intArrayAttr(const std::string& k) const;
  std::string strAttr(const std::string& k, const std::string& def = {}) const;  // String or Enum
  // Name for messages: "tosa.conv2d 'conv1'" or "tosa.conv2d at model.mlir:3:7".
  std::string describe() const;
};

class Block {
 public:
  std::vector<Value*> args;
  std::vector<std::unique_ptr<Operation>> ops;  // last op is the terminator (func.return / tosa.yield)
  Region* parent = nullptr;
  Operation* terminator() const { return ops.empty() ? nullptr : ops.back().get(); }
};

struct Region {
  std::vector<std::unique_ptr<Block>> blocks;  // TOSA regions have exactly one block
  Operation* parent = nullptr;
};

class Module;

class Function {
 public:
  std::string name;
  Block body;  // body.args are the inputs; the terminator's operands the outputs
  std::vector<ValueType> resultTypes;
  std::vector<std::string> resultNames;  // names from the results' locations (may be empty strings)
  // Discardable metadata of arguments and results (MLIR's per-argument/result dictionaries), keyed by
  // "tosakit.*" names: the ONNX element type of an imported argument ("tosakit.onnx_type"), the
  // preprocessing recipe recorded at import ("tosakit.preprocess"), a quantized tensor's scale/zero point.
  // Indexed like inputs()/resultTypes; may be shorter (missing = no attributes). Kept through MLIR text and
  // SPIR-V (its sidecar).
  std::vector<std::map<std::string, Attribute>> argAttrs;
  std::vector<std::map<std::string, Attribute>> resultAttrs;
  const Attribute* argAttr(size_t i, const std::string& key) const;
  const Attribute* resultAttr(size_t i, const std::string& key) const;
  void setArgAttr(size_t i, const std::string& key, Attribute a);
  void setResultAttr(size_t i, const std::string& key, Attribute a);
  // Discardable function-level metadata (MLIR's discardable func attributes), e.g. the ONNX graph inputs the
  // imported function no longer takes ("tosakit.onnx_unused_inputs"). Kept like argAttrs.
  std::map<std::string, Attribute> attrs;
  Location loc;
  Module* module = nullptr;

  const std::vector<Value*>& inputs() const { return body.args; }
  std::vector<Value*> outputs() const;
  // Public names as the CLI and npz files use them: the value's name if it has one, else argN / outN.
  std::string inputName(size_t i) const;
  std::string outputName(size_t i) const;
};

// Module-level variable (tosa.variable): a named, typed, stateful tensor with an optional initial value.
struct Variable {
  std::string name;
  ValueType type;
  std::optional<Tensor> initialValue;
  Location loc;
};

// Target of a module (tosa.target_env or CLI flags): profiles, extensions, level.
struct TargetEnv {
  std::vector<std::string> profiles;    // "pro_int", "pro_fp"
  std::vector<std::string> extensions;  // "int16", "int4", "bf16", "fp8e4m3", "fp8e5m2", "fft", "variable",
                                        // "controlflow", "doubleround", "inexactround", "dynamic"
  std::string level = "8k";             // "8k" or "none"
  std::string specVersion = "1.0";
  bool hasProfile(const std::string& p) const;
  bool hasExtension(const std::string& e) const;
  // All profiles and extensions at level 8K: the default when neither module nor CLI names a target.
  static TargetEnv all();
};

class Module {
 public:
  Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  std::vector<std::unique_ptr<Function>> functions;
  std::vector<Variable> variables;
  std::optional<TargetEnv> target;  // from tosa.target_env when present

  Function* function(const std::string& name) const;
  Function& addFunction(const std::string& name);
  // Allocates a Value owned by the module.
  Value* newValue(ValueType type, std::string name = {});
  int valueCount() const { return int(values_.size()); }

 private:
  std::vector<std::unique_ptr<Value>> values_;
};

// Structural equality: same functions, ops (names, attributes, locations, operand wiring, types), names,
// variables and target. On mismatch `why` says where.
bool modulesEqual(const Module& a, const Module& b, std::string* why = nullptr);

// Debug printer: an MLIR-like, human-readable dump (not meant to be parsed back).
std::string printModule(const Module& m);

}  // namespace tosakit::ir
