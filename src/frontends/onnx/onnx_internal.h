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

}  // namespace tosakit::onnx
