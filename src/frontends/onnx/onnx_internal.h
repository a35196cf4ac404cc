// Internal to the ONNX frontend: may include the ONNX protobuf headers (the public onnx_import.h does not).
#pragma once
#include <onnx/onnx_pb.h>

#include <string>

#include "core/status.h"
#include "core/tensor.h"
#include "frontends/onnx/onnx_import.h"

namespace tosakit::onnx {

Result<std::string> readFileBytes(const std::string& path);
Result<DType> dtypeFromOnnx(int32_t onnxType, const std::string& what);
// TensorProto -> Tensor (raw_data or typed fields); `what` names the tensor in messages.
Result<Tensor> tensorFromProto(const ::onnx::TensorProto& tp, const std::string& what);
// Parses serialized ModelProto bytes, runs the checker and the version converter to opset 17 as the options say
// (importer.cpp); `name` (the file) prefixes errors.
Result<::onnx::ModelProto> parseModel(const std::string& bytes, const std::string& name, const OnnxImportOptions& opts);

}  // namespace tosakit::onnx
