// Helpers shared by info, cut and graph (src/inspect only).
#pragma once
#include <functional>
#include <string>

#include "ir/graph.h"

namespace tosakit::inspect {

// Every op of the block, nested regions included, in block order (an op before its regions' ops).
void forEachOp(const ir::Block& block, const std::function<void(const ir::Operation&)>& visit);
bool isTerminator(const ir::Operation& op);  // func.return, tosa.yield
bool isConstant(const ir::Operation& op);    // tosa.const, tosa.const_shape
// The spec argument an operand carries ("input_zp", "weight", ...) from the op tables; empty if unknown.
std::string operandArgName(const ir::Operation& op, size_t operandIndex);

}  // namespace tosakit::inspect
