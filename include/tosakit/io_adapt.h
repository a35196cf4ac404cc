// ONNX-faithful inputs and outputs of an imported model, shared by `tosakit run`, the C++ Session users and
// the Python package. An ONNX import records what the TOSA signature lost (docs/ONNX.md, "Run-time types"):
// each argument's and result's ONNX element type (`tosakit.onnx_type`) and the graph inputs the function does
// not take (`tosakit.onnx_unused_inputs`). Modules without these records pass through unchanged.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit {

// Inputs as ONNX Runtime takes them -> the function's arguments:
// - int64 data of an argument imported as i32: narrowed; a value outside int32 is InvalidArgument naming the
//   input and the first offending (flat) index;
// - uint8 data of an argument carried as i8: the same bits;
// - a graph input the function does not take (only its shape or type is read, unused, or bound at import):
//   its shape (and bound values) are checked against the import, then it is dropped with a note in `notes`;
// - any other name: InvalidArgument listing the inputs the model takes, except for a function `tosakit cut`
//   made (function attribute "tosakit.cut_from"): it is ignored, with one note counting them.
// Other tensors pass unchanged (Session::run checks their dtype and shape).
Result<NamedTensors> adaptInputs(const ir::Function& fn, const NamedTensors& given,
                                 std::vector<std::string>* notes = nullptr);

// Outputs (in the function's result order) back to their ONNX element types: i32 -> int64, i8 -> uint8.
NamedTensors adaptOutputs(const ir::Function& fn, NamedTensors outputs);

// The names a caller may give: the arguments, then the graph inputs the function does not take.
std::vector<std::string> acceptedInputNames(const ir::Function& fn);

}  // namespace tosakit
