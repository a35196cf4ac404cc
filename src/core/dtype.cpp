#include "core/dtype.h"

namespace tosakit {

namespace {
struct DTypeInfo {
  DType type;
  const char* name;
  size_t bytes;
  int bits;
  bool isFloat;
  bool isUnsigned;
};
constexpr DTypeInfo kInfo[] = {
    {DType::Bool, "bool", 1, 1, false, true},       {DType::I4, "i4", 1, 4, false, false},
    {DType::I8, "i8", 1, 8, false, false},          {DType::I16, "i16", 2, 16, false, false},
    {DType::I32, "i32", 4, 32, false, false},       {DType::I48, "i48", 8, 48, false, false},
    {DType::I64, "i64", 8, 64, false, false},       {DType::U8, "u8", 1, 8, false, true},
    {DType::U16, "u16", 2, 16, false, true},        {DType::U32, "u32", 4, 32, false, true},
    {DType::FP8E4M3, "fp8e4m3", 1, 8, true, false}, {DType::FP8E5M2, "fp8e5m2", 1, 8, true, false},
    {DType::FP16, "fp16", 2, 16, true, false},      {DType::BF16, "bf16", 2, 16, true, false},
    {DType::FP32, "fp32", 4, 32, true, false},      {DType::FP64, "fp64", 8, 64, true, false},
};
const DTypeInfo& info(DType t) { return kInfo[static_cast<int>(t)]; }
}  // namespace

size_t storageBytes(DType t) { return info(t).bytes; }
int bitWidth(DType t) { return info(t).bits; }
bool isFloat(DType t) { return info(t).isFloat; }
bool isInteger(DType t) { return !info(t).isFloat && t != DType::Bool; }
bool isUnsigned(DType t) { return info(t).isUnsigned && t != DType::Bool; }
std::string_view dtypeName(DType t) { return info(t).name; }

std::optional<DType> parseDType(std::string_view name) {
  for (const auto& i : kInfo)
    if (name == i.name) return i.type;
  return std::nullopt;
}

int64_t dtypeMin(DType t) {
  if (t == DType::Bool || isUnsigned(t)) return 0;
  int bits = bitWidth(t);
  return bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
}

int64_t dtypeMax(DType t) {
  if (t == DType::Bool) return 1;
  int bits = bitWidth(t);
  if (isUnsigned(t)) return int64_t((uint64_t(1) << bits) - 1);
  return bits == 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
}

}  // namespace tosakit
