#include "fast/kernels/chain_operands.h"

namespace tosakit::fast {

const ir::ValueType& operandType(const OpChain& c, size_t k, size_t j) { return c.ops[k]->operands[j]->type; }
const ir::ValueType& resultType(const OpChain& c, size_t k) { return c.ops[k]->results[0]->type; }

const Tensor* constOperand(const OpChain& c, size_t k, size_t j) {
  if (k >= c.constants.size() || j >= c.constants[k].size()) return nullptr;
  return c.constants[k][j];
}

std::optional<int64_t> constScalarInt(const OpChain& c, size_t k, size_t j) {
  const Tensor* t = constOperand(c, k, j);
  if (!t || t->size() != 1 || !isInteger(t->dtype())) return std::nullopt;
  return t->getInt(0);
}

std::optional<int64_t> zeroPoint(const OpChain& c, size_t k, size_t j) {
  const Tensor* t = constOperand(c, k, j);
  if (!t || t->size() != 1) return std::nullopt;
  if (isFloat(t->dtype())) return t->getFloat(0) == 0.0 ? std::optional<int64_t>(0) : std::nullopt;
  return t->getInt(0);
}

std::optional<DType> accType(const ir::Operation& op) {
  const ir::Attribute* a = op.attr("acc_type");
  if (!a || a->kind != ir::Attribute::Kind::Type) return std::nullopt;
  return a->dtype;
}

bool isStatic(const ir::ValueType& t) { return t.kind == ir::ValueType::Kind::Tensor && t.isStatic(); }

std::optional<ConvWindow> convWindow(const ir::Operation& op) {
  ConvWindow w{op.intArrayAttr("pad"), op.intArrayAttr("stride"), op.intArrayAttr("dilation")};
  if (w.pad.size() != 4 || w.stride.size() != 2 || w.dilation.size() != 2) return std::nullopt;
  for (int64_t v : w.pad)
    if (v < 0) return std::nullopt;
  if (w.stride[0] < 1 || w.stride[1] < 1 || w.dilation[0] < 1 || w.dilation[1] < 1) return std::nullopt;
  return w;
}

}  // namespace tosakit::fast
