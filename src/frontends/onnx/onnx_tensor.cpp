// TensorProto <-> tosakit Tensor, and reading ONNX protobuf files.
#include "frontends/onnx/onnx_internal.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace tosakit::onnx {

Result<std::string> readFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::io(path + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::io(path + ": read error");
  return ss.str();
}

Result<DType> dtypeFromOnnx(int32_t t, const std::string& what) {
  using TP = ::onnx::TensorProto;
  switch (t) {
    case TP::FLOAT: return DType::FP32;
    case TP::FLOAT16: return DType::FP16;
    case TP::BFLOAT16: return DType::BF16;
    case TP::DOUBLE: return DType::FP64;
    case TP::INT64: return DType::I64;
    case TP::INT32: return DType::I32;
    case TP::INT16: return DType::I16;
    case TP::INT8: return DType::I8;
    case TP::UINT8: return DType::U8;
    case TP::UINT16: return DType::U16;
    case TP::BOOL: return DType::Bool;
    default: break;
  }
  std::string name = TP::DataType_IsValid(t) ? TP::DataType_Name(TP::DataType(t)) : std::to_string(t);
  return Status::unsupported(what + ": ONNX element type " + name + " is not supported");
}

Result<Tensor> tensorFromProto(const ::onnx::TensorProto& tp, const std::string& what) {
  if (tp.data_location() == ::onnx::TensorProto::EXTERNAL)
    return Status::unsupported(what + ": tensors with external data are not supported");
  auto dt = dtypeFromOnnx(tp.data_type(), what);
  if (!dt) return dt.status();
  Shape shape(tp.dims().begin(), tp.dims().end());
  for (int64_t d : shape)
    if (d < 0) return Status::parse(what + ": negative dimension in tensor");
  Tensor t(*dt, shape);
  const int64_t n = t.size();
  if (tp.has_raw_data()) {
    // raw_data is little-endian, densely packed; bool is one byte per element like tosakit's storage.
    if (tp.raw_data().size() != t.byteSize())
      return Status::parse(what + ": raw_data holds " + std::to_string(tp.raw_data().size()) + " bytes, expected " +
                           std::to_string(t.byteSize()) + " for shape " + shapeToString(shape));
    std::memcpy(t.data(), tp.raw_data().data(), t.byteSize());
    return t;
  }
  auto sizeError = [&](int64_t got) {
    return Status::parse(what + ": tensor holds " + std::to_string(got) + " values, expected " + std::to_string(n));
  };
  switch (tp.data_type()) {
    case ::onnx::TensorProto::FLOAT:
      if (tp.float_data_size() != n) return sizeError(tp.float_data_size());
      for (int64_t i = 0; i < n; ++i) t.setFloat(i, tp.float_data(int(i)));
      return t;
    case ::onnx::TensorProto::DOUBLE:
      if (tp.double_data_size() != n) return sizeError(tp.double_data_size());
      for (int64_t i = 0; i < n; ++i) t.setFloat(i, tp.double_data(int(i)));
      return t;
    case ::onnx::TensorProto::INT64:
      if (tp.int64_data_size() != n) return sizeError(tp.int64_data_size());
      for (int64_t i = 0; i < n; ++i) t.setInt(i, tp.int64_data(int(i)));
      return t;
    case ::onnx::TensorProto::FLOAT16:
    case ::onnx::TensorProto::BFLOAT16:
      return Status::unsupported(what + ": fp16/bf16 tensors must use raw_data");
    default:
      // int32, int16, int8, uint8, uint16, bool are stored in int32_data.
      if (tp.int32_data_size() != n) return sizeError(tp.int32_data_size());
      for (int64_t i = 0; i < n; ++i) t.setInt(i, tp.int32_data(int(i)));
      return t;
  }
}

Result<std::pair<std::string, Tensor>> loadOnnxTensor(const std::string& path) {
  auto bytes = readFileBytes(path);
  if (!bytes) return bytes.status();
  ::onnx::TensorProto tp;
  if (!tp.ParseFromString(*bytes)) return Status::parse(path + ": not a valid ONNX TensorProto (truncated or not a protobuf)");
  auto t = tensorFromProto(tp, path);
  if (!t) return t.status();
  return std::make_pair(tp.name(), std::move(*t));
}

}  // namespace tosakit::onnx
