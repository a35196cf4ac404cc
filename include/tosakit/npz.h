// NumPy .npy / .npz reading and writing (public API; implemented in src/formats/npy).
//
// Convention for element types numpy lacks (the one the TOSA conformance vectors use): bf16 as uint16 bit
// patterns, fp8 (e4m3fn / e5m2) as uint8 bit patterns, i4 as int8 values, i48 as int64 values.
// Files hold numpy's own dtypes; adaptToDType()/toNumpyDType() convert at the boundary where the
// TOSA type is known.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace tosakit::npy {

using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

// numpy dtypes map to: bool, int8/16/32/64 -> I8/I16/I32/I64, uint8/16/32 -> U8/U16/U32,
// float16/32/64 -> FP16/FP32/FP64. Big-endian and Fortran-order arrays are converted.
Result<Tensor> readNpy(const std::string& path);
Result<Tensor> parseNpy(const uint8_t* data, size_t size, const std::string& context);
// Writes the numpy dtype of t (after toNumpyDType). Writes to a temporary file and renames, so a failed write
// leaves no partial file.
Status writeNpy(const std::string& path, const Tensor& t);
std::vector<uint8_t> serializeNpy(const Tensor& t);

// npz: a zip of NAME.npy members, stored or deflated. Order of members is kept.
Result<NamedTensors> readNpz(const std::string& path);
Result<NamedTensors> parseNpz(const uint8_t* data, size_t size, const std::string& context);
Status writeNpz(const std::string& path, const NamedTensors& tensors, bool compress = false);
// The first tensor named `name`, or nullptr.
const Tensor* findTensor(const NamedTensors& tensors, const std::string& name);

// Convert a tensor read from a file into the TOSA type `want` by the convention above
// (e.g. U16 -> BF16 bits, I8 -> I4 with range check, I64 -> I48 with range check). Same dtype: unchanged.
// Error (naming `what`) when the file's dtype cannot carry `want`.
Result<Tensor> adaptToDType(const Tensor& t, DType want, const std::string& what);
// Tensor in the numpy dtype that carries it (BF16 -> U16 bits, FP8 -> U8 bits, I4 -> I8, I48 -> I64).
Tensor toNumpyDType(const Tensor& t);

}  // namespace tosakit::npy
