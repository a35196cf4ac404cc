// MLIR TOSA dialect text <-> tosakit IR. This header is MLIR-free; only src/formats/mlir/*.cpp include MLIR.
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::mlirio {

// Parses and verifies a module (pretty or generic syntax) and converts it. Errors name the op and its
// source location ("model.mlir:12:5: 'tosa.foo' ...").
Result<std::unique_ptr<ir::Module>> importMlirFile(const std::string& path);
Result<std::unique_ptr<ir::Module>> importMlirString(const std::string& text, const std::string& bufferName);

// Upstream-valid pretty text; op names become NameLoc locations so layers stay identifiable.
// withLocations: print `loc(...)` (upstream's -mlir-print-debuginfo form).
Result<std::string> exportMlir(const ir::Module& m, bool withLocations = true);

}  // namespace tosakit::mlirio
