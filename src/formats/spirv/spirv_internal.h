// Internal: the instruction stream of a SPIR-V binary, shared by the validator, reader and disassembler.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace tosakit::spirv {

struct Instr {
  uint32_t opcode = 0;
  size_t offset = 0;          // word index of the instruction's first word
  std::vector<uint32_t> ops;  // operand words (after the opcode word)
};

// Split into instructions; checks header and word counts only.
Result<std::vector<Instr>> splitInstructions(const uint32_t* words, size_t count, const std::string& file);
// Literal string starting at operand `first`; `next` receives the operand index after it. False if unterminated.
bool literalString(const Instr& in, size_t first, std::string& out, size_t* next = nullptr);
const char* opcodeName(uint32_t opcode);

}  // namespace tosakit::spirv
