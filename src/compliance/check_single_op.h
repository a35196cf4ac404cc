// Running one operator of a graph on its own: the fp64 reference of a single op (spec 1.10.3
// operation_fp64) on given operand values, and the element index maps of exact data-movement chains.
#pragma once
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::compliance {

// Runs `op` alone on the reference backend in precise mode. `operands` holds one tensor per operand of op
// in the operand's declared dtype (shape operands may be empty tensors: they are cloned from their
// tosa.const_shape). Operands defined by tosa.const stay constants (with the given values), others become
// function arguments. Returns the op's results (floats as FP64).
Result<std::vector<Tensor>> runOpPrecise(const ir::Operation& op, const std::vector<Tensor>& operands,
                                         const ir::TargetEnv& target);

// Exact data-movement operators through which an output keeps the rule of the operator that produced its
// data (one data operand, every output element a copy of one input element).
bool isMovementOp(const std::string& opName);

// For a chain out = m_k(...m_1(src)) of movement ops (chain[0] consumes src, chain.back() produces out):
// for each element of out, the linear index of the element of src it copies.
Result<std::vector<int64_t>> movementIndexMap(const std::vector<const ir::Operation*>& chain,
                                              const ir::TargetEnv& target);

}  // namespace tosakit::compliance
