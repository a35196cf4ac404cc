// A runtime-typed tensor: element type, shape and a byte buffer in the storage format of core/dtype.h.
// Reference kernels read and write elements through the int64/double accessors (one small typed dispatch per
// access) or convert whole tensors with toInts()/toDoubles().
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tosakit {

using Shape = std::vector<int64_t>;

// Product of the dimensions (1 for rank 0). Dynamic (-1) dimensions are not allowed.
int64_t numElements(const Shape& shape);
// "1x3x224x224" ("" for rank 0); "?" for a dynamic dimension.
std::string shapeToString(const Shape& shape);

class Tensor {
 public:
  Tensor() = default;
  // Zero-filled tensor.
  Tensor(DType dtype, Shape shape);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return int(shape_.size()); }
  int64_t size() const { return size_; }  // number of elements
  uint8_t* data() { return data_.data(); }
  const uint8_t* data() const { return data_.data(); }
  size_t byteSize() const { return data_.size(); }
  // Same data, new shape with the same element count.
  void reshape(Shape shape);

  // Integer value of element i: sign-extended for signed types, zero-extended for unsigned and bool.
  // For float types: the float bit pattern, zero-extended.
  int64_t getInt(int64_t i) const;
  // Stores the low bits of v (two's complement truncation to the type's width; i4 and i48 are stored
  // sign-extended). For float types: stores v as a bit pattern.
  void setInt(int64_t i, int64_t v);
  // Value of element i as a double (exact for every format; integer types converted).
  double getFloat(int64_t i) const;
  // Rounds v to the element format (ties to even, see core/numeric.h). For integer types: truncates
  // toward zero then setInt (callers that need spec semantics convert first).
  void setFloat(int64_t i, double v);

  std::vector<int64_t> toInts() const;
  std::vector<double> toDoubles() const;
  static Tensor fromInts(DType dtype, Shape shape, const std::vector<int64_t>& values);
  static Tensor fromDoubles(DType dtype, Shape shape, const std::vector<double>& values);

  // Row-major linear index of a multi-dimensional index.
  int64_t offset(const std::vector<int64_t>& index) const;

  // Same dtype, shape and bytes.
  bool identical(const Tensor& other) const;
  // Short human-readable form: "i8[1x4x4x2]" and the first values.
  std::string summary(int maxValues = 8) const;

 private:
  DType dtype_ = DType::FP32;
  Shape shape_;
  int64_t size_ = 0;
  std::vector<uint8_t> data_;
};

}  // namespace tosakit
