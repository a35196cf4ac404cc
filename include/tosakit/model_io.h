// Load and save models by file extension: .mlir (MLIR TOSA text), .spv (SPIR-V TOSA.001000.1 graph), .tosa
// (Arm's TOSA flatbuffer, serialization schema 1.0).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit {

// When upstream MLIR 22's verifier rejects a .mlir module that still parses, the module is loaded unverified
// and the verifier's message is appended to `notes`: tosakit's own spec checks (validation and the kernels'
// ERROR_IFs) then give the verdict, because where upstream and the spec disagree the spec wins.
Result<std::unique_ptr<ir::Module>> loadModel(const std::string& path, std::vector<std::string>* notes = nullptr);
// Writes atomically (temporary file + rename): a failure leaves no partial file.
Status saveModel(const ir::Module& m, const std::string& path);
// Readable text of a binary model file (`tosakit dis`): .spv disassembly or a dump of a .tosa flatbuffer.
Result<std::string> disassembleModel(const std::string& path);

}  // namespace tosakit
