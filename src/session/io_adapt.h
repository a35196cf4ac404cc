// Internal: the record of graph inputs an imported function does not take ("tosakit.onnx_unused_inputs",
// a JSON list written by the ONNX importer). Public API: include/tosakit/io_adapt.h.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::ioadapt {

struct DroppedInput {
  std::string name;
  std::string onnxType;  // "float32", "int64", ...
  Shape shape;
  std::string reason;                         // "shape_only", "type_only", "unused", "bound"
  std::optional<std::vector<double>> values;  // a bound input's values (small ones only)
};

// Parses the function's record; an absent record is an empty list, a malformed one a ParseError.
Result<std::vector<DroppedInput>> droppedInputs(const ir::Function& fn);
// One given tensor for fn: the argument it becomes (ONNX Runtime's types adapted, include/tosakit/io_adapt.h),
// or nullopt when fn does not take it: a graph input the import dropped (checked, noted) or, for a function
// `tosakit cut` made, any other name (*ignoredByCut set). Unknown names are InvalidArgument.
Result<std::optional<Tensor>> adaptInput(const ir::Function& fn, const std::vector<DroppedInput>& dropped,
                                         const std::string& name, const Tensor& t, std::vector<std::string>* notes,
                                         bool* ignoredByCut);
// The note counting the tensors a cut function ignored.
std::string ignoredByCutNote(const ir::Function& fn, int64_t count);
// tosakit's DType for an ONNX element type name ("int64" -> I64); nullopt if unknown.
std::optional<DType> dtypeOfOnnxName(const std::string& name);

}  // namespace tosakit::ioadapt
