// Running one operator of a graph on its own: the fp64 reference of a single op (spec 1.10.3
// operation_fp64) on given operand values, and the element index maps of exact data-movement chains.
#pragma once
#include <functional>
#include <optional>
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
// data: every output element a copy of one element of a data operand (or of PAD's pad value). RESHAPE,
// TRANSPOSE, SLICE, REVERSE, TILE, IDENTITY, PAD, CONCAT, GATHER, SCATTER, and CAST between identical types.
bool isMovementOp(const ir::Operation& op);

// Whether operand i of a movement op carries elements into its result (GATHER's indices, SCATTER's indices
// and shape operands do not).
bool isDataOperand(const ir::Operation& op, size_t i);

// The elements an output of movement ops copies: the values before the movement (sources: results of
// non-movement ops, graph inputs, constants) and, per output element, the source and the linear index in it.
struct Provenance {
  std::vector<const ir::Value*> sources;
  std::vector<int32_t> source;   // per output element: index into `sources`
  std::vector<int64_t> element;  // per output element: linear index in that source
};

// Values of operands that steer movement without being copied (GATHER/SCATTER indices): nullopt when unknown.
using OperandLookup = std::function<Result<std::optional<Tensor>>(const ir::Value*)>;

// Traces `out` back through movement ops (any number, any DAG of them) to its sources by running the
// movement re-typed to i32 on the element ids of the sources (reference backend). A value not produced by a
// movement op is its own single source.
Result<Provenance> traceMovement(const ir::Value* out, const OperandLookup& lookup);

}  // namespace tosakit::compliance
