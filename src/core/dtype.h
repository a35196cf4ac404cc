// Element types of TOSA tensors and how tosakit stores them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tosakit {

// Storage: bool/i4/i8/u8/fp8 one byte (i4 unpacked, sign-extended), i16/u16/fp16/bf16 two bytes
// (floats as bit patterns), i32/u32/fp32 four, i48/i64/fp64 eight (i48 sign-extended in an int64).
enum class DType : uint8_t {
  Bool,
  I4,
  I8,
  I16,
  I32,
  I48,
  I64,
  U8,
  U16,
  U32,
  FP8E4M3,
  FP8E5M2,
  FP16,
  BF16,
  FP32,
  FP64,
};

inline constexpr DType kAllDTypes[] = {
    DType::Bool, DType::I4,  DType::I8,      DType::I16,     DType::I32,  DType::I48,  DType::I64,  DType::U8,
    DType::U16,  DType::U32, DType::FP8E4M3, DType::FP8E5M2, DType::FP16, DType::BF16, DType::FP32, DType::FP64};

size_t storageBytes(DType t);
// Bits of the number format (i4 -> 4, i48 -> 48, bool -> 1).
int bitWidth(DType t);
bool isFloat(DType t);
bool isInteger(DType t);  // signed or unsigned integer, not bool
bool isUnsigned(DType t);
// TOSA spec / tosakit name: "bool", "i4", "i8", ..., "fp8e4m3", "fp8e5m2", "fp16", "bf16", "fp32", "fp64".
std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view name);
// Smallest/largest representable integer of an integer type (bool: 0/1).
int64_t dtypeMin(DType t);
int64_t dtypeMax(DType t);

}  // namespace tosakit
