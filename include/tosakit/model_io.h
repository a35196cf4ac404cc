// Load and save models by file extension: .mlir (MLIR TOSA text), .spv (SPIR-V TOSA.001000.1 graph).
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit {

Result<std::unique_ptr<ir::Module>> loadModel(const std::string& path);
// Writes atomically (temporary file + rename): a failure leaves no partial file.
Status saveModel(const ir::Module& m, const std::string& path);
// Write a whole file atomically.
Status writeFileAtomic(const std::string& path, const std::string& bytes);

}  // namespace tosakit
