// SPIR-V opcodes, capabilities and enumerants used by the TOSA graph reader/writer (values from the SPIR-V
// 1.6 spec, SPV_ARM_graph, SPV_ARM_tensors, SPV_KHR_bfloat16, SPV_EXT_float8, SPV_EXT_replicated_composites).
#pragma once
#include <cstdint>

namespace tosakit::spirv {

constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kVersion16 = 0x00010600;
constexpr const char* kTosaSetName = "TOSA.001000.1";

enum Op : uint32_t {
  OpNop = 0,
  OpSource = 3,
  OpSourceExtension = 4,
  OpName = 5,
  OpMemberName = 6,
  OpString = 7,
  OpLine = 8,
  OpExtension = 10,
  OpExtInstImport = 11,
  OpExtInst = 12,
  OpMemoryModel = 14,
  OpCapability = 17,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeArray = 28,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpConstantTrue = 41,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpConstantNull = 46,
  OpVariable = 59,
  OpDecorate = 71,
  OpCompositeExtract = 81,
  OpNoLine = 317,
  OpModuleProcessed = 330,
  OpTypeTensorARM = 4163,
  OpGraphConstantARM = 4181,
  OpGraphEntryPointARM = 4182,
  OpGraphARM = 4183,
  OpGraphInputARM = 4184,
  OpGraphSetOutputARM = 4185,
  OpGraphEndARM = 4186,
  OpTypeGraphARM = 4190,
  OpConstantCompositeReplicateEXT = 4461,
  OpDecorateString = 5632,
};

enum Capability : uint32_t {
  CapShader = 1,
  CapFloat16 = 9,
  CapInt64 = 11,
  CapInt16 = 22,
  CapInt8 = 39,
  CapTensorsARM = 4174,
  CapGraphARM = 4191,
  CapFloat8EXT = 4212,
  CapBFloat16TypeKHR = 5116,
  CapReplicatedCompositesEXT = 6024,
};

enum FPEncoding : uint32_t {
  FPEncBFloat16KHR = 0,
  FPEncFloat8E4M3EXT = 4214,
  FPEncFloat8E5M2EXT = 4215,
};

constexpr uint32_t kStorageUniformConstant = 0;
constexpr uint32_t kAddressingLogical = 0;
constexpr uint32_t kMemoryModelGLSL450 = 1;
constexpr uint32_t kDecorationUserSemantic = 5635;

}  // namespace tosakit::spirv
