#include "core/tensor.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "core/numeric.h"

namespace tosakit {

int64_t numElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shapeToString(const Shape& shape) {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += "x";
    s += shape[i] < 0 ? "?" : std::to_string(shape[i]);
  }
  return s;
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  size_ = numElements(shape_);
  data_.assign(size_t(size_) * storageBytes(dtype_), 0);
}

void Tensor::reshape(Shape shape) {
  shape_ = std::move(shape);
  size_ = numElements(shape_);
}

namespace {
template <typename T>
T load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * sizeof(T), sizeof(T));
  return v;
}
template <typename T>
void store(uint8_t* p, int64_t i, T v) {
  std::memcpy(p + i * sizeof(T), &v, sizeof(T));
}
}  // namespace

int64_t Tensor::getInt(int64_t i) const {
  const uint8_t* p = data_.data();
  switch (dtype_) {
    case DType::Bool: return load<uint8_t>(p, i) ? 1 : 0;
    case DType::I4: return signExtend(load<int8_t>(p, i), 4);
    case DType::I8: return load<int8_t>(p, i);
    case DType::I16: return load<int16_t>(p, i);
    case DType::I32: return load<int32_t>(p, i);
    case DType::I48: return signExtend(load<int64_t>(p, i), 48);
    case DType::I64: return load<int64_t>(p, i);
    case DType::U8:
    case DType::FP8E4M3:
    case DType::FP8E5M2: return load<uint8_t>(p, i);
    case DType::U16:
    case DType::FP16:
    case DType::BF16: return load<uint16_t>(p, i);
    case DType::U32:
    case DType::FP32: return load<uint32_t>(p, i);
    case DType::FP64: return load<int64_t>(p, i);
  }
  return 0;
}

void Tensor::setInt(int64_t i, int64_t v) {
  uint8_t* p = data_.data();
  switch (dtype_) {
    case DType::Bool: store<uint8_t>(p, i, v ? 1 : 0); break;
    case DType::I4: store<int8_t>(p, i, int8_t(signExtend(v, 4))); break;
    case DType::I8:
    case DType::U8:
    case DType::FP8E4M3:
    case DType::FP8E5M2: store<uint8_t>(p, i, uint8_t(v)); break;
    case DType::I16:
    case DType::U16:
    case DType::FP16:
    case DType::BF16: store<uint16_t>(p, i, uint16_t(v)); break;
    case DType::I32:
    case DType::U32:
    case DType::FP32: store<uint32_t>(p, i, uint32_t(v)); break;
    case DType::I48: store<int64_t>(p, i, signExtend(v, 48)); break;
    case DType::I64:
    case DType::FP64: store<int64_t>(p, i, v); break;
  }
}

double Tensor::getFloat(int64_t i) const {
  switch (dtype_) {
    case DType::FP8E4M3:
    case DType::FP8E5M2:
    case DType::FP16:
    case DType::BF16: return decodeFloatBits(dtype_, uint32_t(getInt(i)));
    case DType::FP32: return load<float>(data_.data(), i);
    case DType::FP64: return load<double>(data_.data(), i);
    default: return double(getInt(i));
  }
}

void Tensor::setFloat(int64_t i, double v) {
  switch (dtype_) {
    case DType::FP8E4M3:
    case DType::FP8E5M2:
    case DType::FP16:
    case DType::BF16: setInt(i, encodeFloatBits(dtype_, v)); break;
    case DType::FP32: store<float>(data_.data(), i, float(v)); break;  // hardware round-to-nearest-even
    case DType::FP64: store<double>(data_.data(), i, v); break;
    default: setInt(i, std::isfinite(v) ? int64_t(std::trunc(v)) : 0); break;
  }
}

std::vector<int64_t> Tensor::toInts() const {
  std::vector<int64_t> out(static_cast<size_t>(size_));
  for (int64_t i = 0; i < size_; ++i) out[size_t(i)] = getInt(i);
  return out;
}

std::vector<double> Tensor::toDoubles() const {
  std::vector<double> out(static_cast<size_t>(size_));
  for (int64_t i = 0; i < size_; ++i) out[size_t(i)] = getFloat(i);
  return out;
}

Tensor Tensor::fromInts(DType dtype, Shape shape, const std::vector<int64_t>& values) {
  Tensor t(dtype, std::move(shape));
  for (int64_t i = 0; i < t.size() && i < int64_t(values.size()); ++i) t.setInt(i, values[size_t(i)]);
  return t;
}

Tensor Tensor::fromDoubles(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t(dtype, std::move(shape));
  for (int64_t i = 0; i < t.size() && i < int64_t(values.size()); ++i) t.setFloat(i, values[size_t(i)]);
  return t;
}

int64_t Tensor::offset(const std::vector<int64_t>& index) const {
  int64_t off = 0;
  for (size_t d = 0; d < shape_.size(); ++d) off = off * shape_[d] + index[d];
  return off;
}

bool Tensor::identical(const Tensor& o) const { return dtype_ == o.dtype_ && shape_ == o.shape_ && data_ == o.data_; }

std::string Tensor::summary(int maxValues) const {
  std::ostringstream os;
  os << dtypeName(dtype_) << "[" << shapeToString(shape_) << "]{";
  for (int64_t i = 0; i < size_ && i < maxValues; ++i) {
    if (i) os << ", ";
    if (isFloat(dtype_))
      os << getFloat(i);
    else
      os << getInt(i);
  }
  if (size_ > maxValues) os << ", ...";
  os << "}";
  return os.str();
}

}  // namespace tosakit
