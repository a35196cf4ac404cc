// SPIR-V graphs (SPV_ARM_graph + SPV_ARM_tensors) with the TOSA.001000.1 extended instruction set.
// MLIR-free. See docs/SPIRV.md for the mapping and the sidecar file of large constants.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::spirv {

// Constants with more elements than this go to OpGraphConstantARM + the sidecar npz.
constexpr int64_t kMaxInlineConstantElements = 64;

struct SpirvBinary {
  std::vector<uint32_t> words;
  // GraphConstantID (as decimal string) -> tensor, for the sidecar npz; empty when no large constants.
  std::vector<std::pair<std::string, Tensor>> sidecar;
};

// Encode a module. Fails (Unsupported, naming the op) on constructs with no TOSA.001000.1 instruction.
Result<SpirvBinary> encodeSpirv(const ir::Module& m);
// Write MODEL.spv and, if needed, MODEL.spv.npz next to it.
Status writeSpirv(const ir::Module& m, const std::string& path);

// Decode a binary. `file` names the input in messages; `sidecar` supplies OpGraphConstantARM data.
Result<std::unique_ptr<ir::Module>> decodeSpirv(const uint32_t* words, size_t count, const std::string& file,
                                                const std::vector<std::pair<std::string, Tensor>>& sidecar);
// Read PATH (and PATH.npz when the binary has graph constants). Validates structure first.
Result<std::unique_ptr<ir::Module>> readSpirv(const std::string& path);

// Structural validation only (header, ids, operand counts, graph rules). "FILE: word N: reason".
Status validateSpirv(const uint32_t* words, size_t count, const std::string& file);

// Human-readable disassembly (spirv-dis-like, with TOSA instruction names).
Result<std::string> disassemble(const std::string& path);
std::string disassembleWords(const uint32_t* words, size_t count);

// Bytes <-> words (little-endian file; a byte-swapped magic is accepted and swapped).
Result<std::vector<uint32_t>> wordsFromBytes(const std::string& bytes, const std::string& file);

}  // namespace tosakit::spirv
