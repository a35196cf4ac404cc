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
// tosakit's DType for an ONNX element type name ("int64" -> I64); nullopt if unknown.
std::optional<DType> dtypeOfOnnxName(const std::string& name);

}  // namespace tosakit::ioadapt
