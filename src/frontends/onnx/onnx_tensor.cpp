// TensorProto <-> tosakit Tensor, and reading ONNX protobuf files.
#include "frontends/onnx/onnx_internal.h"

#include "core/size_budget.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tosakit::onnx {

Result<std::string> readFileBytes(const std::string& path) {
  TK_RETURN_IF_ERROR(checkFileSize(path));
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

// Element count of `dims`, or an error for a negative dimension or a count that does not fit in int64.
static Result<int64_t> checkedCount(const Shape& dims, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return Status::parse(what + ": negative dimension in tensor shape " + shapeToString(dims));
    if (d != 0 && n > INT64_MAX / d)
      return Status::parse(what + ": tensor shape " + shapeToString(dims) + " has too many elements");
    n *= d;
  }
  return n;
}

// Number of values stored in the typed field that holds this element type (raw_data aside).
static int64_t typedCount(const ::onnx::TensorProto& tp) {
  switch (tp.data_type()) {
    case ::onnx::TensorProto::FLOAT: return tp.float_data_size();
    case ::onnx::TensorProto::DOUBLE: return tp.double_data_size();
    case ::onnx::TensorProto::INT64: return tp.int64_data_size();
    default: return tp.int32_data_size();  // int32, int16, int8, uint8, uint16, bool
  }
}

Result<Tensor> tensorFromProto(const ::onnx::TensorProto& tp, const std::string& what) {
  if (tp.data_location() == ::onnx::TensorProto::EXTERNAL)
    return Status::unsupported(what + ": tensors with external data are not supported");
  auto dt = dtypeFromOnnx(tp.data_type(), what);
  if (!dt) return dt.status();
  Shape shape(tp.dims().begin(), tp.dims().end());
  // The sizes are checked against the data actually present before allocating: dims are untrusted, and a
  // huge shape with little data must be an error, not an allocation failure.
  auto count = checkedCount(shape, what);
  if (!count) return count.status();
  const int64_t n = *count;
  TK_RETURN_IF_ERROR(checkAllocation(*dt, shape, what));
  if (tp.has_raw_data()) {
    // raw_data is little-endian, densely packed; bool is one byte per element like tosakit's storage.
    const uint64_t have = tp.raw_data().size(), elem = storageBytes(*dt);
    if (have % elem != 0 || uint64_t(n) != have / elem) {
      std::string expected = uint64_t(n) <= UINT64_MAX / elem ? std::to_string(uint64_t(n) * elem)
                                                              : std::to_string(n) + " x " + std::to_string(elem);
      return Status::parse(what + ": raw_data holds " + std::to_string(have) + " bytes, expected " + expected +
                           " for shape " + shapeToString(shape));
    }
    Tensor t(*dt, shape);
    std::memcpy(t.data(), tp.raw_data().data(), t.byteSize());
    return t;
  }
  if (tp.data_type() == ::onnx::TensorProto::FLOAT16 || tp.data_type() == ::onnx::TensorProto::BFLOAT16)
    return Status::unsupported(what + ": fp16/bf16 tensors must use raw_data");
  if (typedCount(tp) != n)
    return Status::parse(what + ": tensor holds " + std::to_string(typedCount(tp)) + " values, expected " +
                         std::to_string(n) + " for shape " + shapeToString(shape));
  Tensor t(*dt, shape);
  switch (tp.data_type()) {
    case ::onnx::TensorProto::FLOAT:
      for (int64_t i = 0; i < n; ++i) t.setFloat(i, tp.float_data(int(i)));
      return t;
    case ::onnx::TensorProto::DOUBLE:
      for (int64_t i = 0; i < n; ++i) t.setFloat(i, tp.double_data(int(i)));
      return t;
    case ::onnx::TensorProto::INT64:
      for (int64_t i = 0; i < n; ++i) t.setInt(i, tp.int64_data(int(i)));
      return t;
    default:
      // int32, int16, int8, uint8, uint16, bool are stored in int32_data.
      for (int64_t i = 0; i < n; ++i) t.setInt(i, tp.int32_data(int(i)));
      return t;
  }
}

Result<std::pair<std::string, Tensor>> loadOnnxTensor(const std::string& path) {
  auto bytes = readFileBytes(path);
  if (!bytes) return bytes.status();
  ::onnx::TensorProto tp;
  if (!tp.ParseFromString(*bytes))
    return Status::parse(path + ": not a valid ONNX TensorProto (truncated or not a protobuf)");
  auto t = tensorFromProto(tp, path);
  if (!t) return t.status();
  return std::make_pair(tp.name(), std::move(*t));
}

}  // namespace tosakit::onnx
