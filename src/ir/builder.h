// C++ builder API: the front door for constructing TOSA graphs in code (in the spirit of BMLang/TpuLang).
//   ir::Module m; ir::Builder b(m, "main");
//   auto* x = b.input(ir::ValueType::tensor(DType::I8, {1, 8, 8, 3}), "x");
//   auto* y = b.conv2d(x, w, bias, {...});
//   b.output({y}, {"y"});
#pragma once
#include <string>
#include <vector>

#include "ir/graph.h"

namespace tosakit::ir {

struct Conv2dAttrs {
  std::vector<int64_t> pad = {0, 0, 0, 0};  // top, bottom, left, right
  std::vector<int64_t> stride = {1, 1};
  std::vector<int64_t> dilation = {1, 1};
  DType accType = DType::I32;
  bool localBound = false;
  int64_t inputZp = 0;
  int64_t weightZp = 0;
};

struct RescaleAttrs {
  std::vector<int64_t> multiplier;  // one, or one per channel
  std::vector<int64_t> shift;
  int64_t inputZp = 0;
  int64_t outputZp = 0;
  bool scale32 = true;
  std::string roundingMode = "SINGLE_ROUND";  // SINGLE_ROUND, DOUBLE_ROUND, INEXACT_ROUND
  bool perChannel = false;
  bool inputUnsigned = false;
  bool outputUnsigned = false;
};

class Builder {
 public:
  // Appends to the function `name` of m, creating it if needed.
  Builder(Module& m, const std::string& functionName);
  Builder(Module& m, Function& f, Block& block) : m_(m), f_(&f), block_(&block) {}

  Module& module() { return m_; }
  Function& function() { return *f_; }
  Block& block() { return *block_; }

  Value* input(ValueType type, std::string name = {});
  // Generic op: results typed as given; attributes as given.
  Operation& create(std::string opName, std::vector<Value*> operands, std::vector<ValueType> resultTypes,
                    std::map<std::string, Attribute> attrs = {}, Location loc = {});
  Value* op1(std::string opName, std::vector<Value*> operands, ValueType resultType,
             std::map<std::string, Attribute> attrs = {}, std::string locName = {});
  void output(std::vector<Value*> values, std::vector<std::string> names = {});

  // Constants.
  Value* constant(Tensor t, std::string locName = {});
  Value* constShape(std::vector<int64_t> values, std::string locName = {});
  // Rank-1, one-element zero point / shift / multiplier tensors as TOSA 1.0 takes them.
  Value* scalar1(DType dtype, double value, std::string locName = {});

  // Common operators with their result type inferred where it is plain.
  Value* add(Value* a, Value* b, std::string locName = {});
  Value* sub(Value* a, Value* b, std::string locName = {});
  Value* mul(Value* a, Value* b, int shift = 0, std::string locName = {});
  Value* clamp(Value* x, double minVal, double maxVal, std::string locName = {});
  Value* reshape(Value* x, Shape newShape, std::string locName = {});
  Value* transpose(Value* x, std::vector<int64_t> perms, std::string locName = {});
  Value* conv2d(Value* input, Value* weight, Value* bias, const Conv2dAttrs& a, std::string locName = {});
  Value* rescale(Value* x, DType outType, const RescaleAttrs& a, std::string locName = {});

 private:
  Module& m_;
  Function* f_;
  Block* block_;
};

// Shape of a broadcast binary elementwise result (dims equal or 1); empty optional if not broadcastable.
std::optional<Shape> broadcastShape(const Shape& a, const Shape& b);

}  // namespace tosakit::ir
