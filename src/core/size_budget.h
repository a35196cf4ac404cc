// Overflow-safe size arithmetic and the process memory budget.
//
// Every reader that allocates from a size read out of a file (an MLIR type, an npy header, an ONNX
// initializer, a SPIR-V constant, a shape folded at import) asks checkAllocation() first, so a 200-byte file
// declaring a 4 TB tensor is a clear InvalidArgument ("bad input", exit 4) instead of std::bad_alloc.
// The budget bounds each single request (one tensor, one buffer); it is not a running total.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"

namespace tosakit {

// a * b and a + b for non-negative operands; nullopt on int64 overflow.
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);

// Product of the dimensions (1 for rank 0). InvalidArgument for a negative (dynamic) dimension or an
// element count that overflows int64.
Result<int64_t> checkedNumElements(const Shape& shape);
// Bytes tosakit's storage of a tensor of this type and shape takes (core/dtype.h storageBytes).
Result<int64_t> checkedByteSize(DType dtype, const Shape& shape);

// The per-request budget in bytes. Default: half of the physical memory (or of the cgroup memory limit when
// lower), at least 64 MiB. setMemoryBudget(0) restores the default. Thread-safe.
int64_t memoryBudget();
int64_t defaultMemoryBudget();
void setMemoryBudget(int64_t bytes);

// Ok when a tensor of `dtype` and `shape` may be allocated: no negative dimension, no overflow, within the
// budget. Otherwise InvalidArgument "<what>: bad input: tensor<...> needs N bytes, more than the memory
// budget of M bytes (--max-memory)". `what` names the file/op/tensor ("model.mlir: tosa.const %3").
Status checkAllocation(DType dtype, const Shape& shape, const std::string& what);
// Same for a raw byte count (a blob, a buffer of `count` elements of `elementBytes`).
Status checkAllocationBytes(int64_t bytes, const std::string& what);
Status checkAllocationElements(int64_t count, int64_t elementBytes, const std::string& what);
// Before a reader loads a whole file into memory: Ok unless `path` is a regular file larger than the budget
// (a sparse file can claim terabytes without taking disk space). Missing files are left to the reader's open.
Status checkFileSize(const std::string& path);

// "1048576", "512K", "64M", "2G", "1T" (binary multiples, case-insensitive, optional trailing "B"/"iB").
Result<int64_t> parseByteSize(std::string_view text);
// "4.0 TB"-style short human form (binary multiples), for messages.
std::string formatBytes(int64_t bytes);

}  // namespace tosakit
