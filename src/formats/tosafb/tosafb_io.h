// Arm's TOSA flatbuffer (`.tosa`, serialization schema 1.0: tosa.fbs in this folder). Flatbuffers-free header:
// the generated code stays inside src/formats/tosafb. docs/TOSA_FLATBUFFER.md describes the mapping.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::tosafb {

struct EncodeResult {
  std::vector<uint8_t> bytes;
  // IR attributes the 1.0 attribute tables could not carry as the IR holds them (kept in tosakit's extension
  // fields): "op 'loc': key". Empty for a graph plain 1.0 readers see completely.
  std::vector<std::string> extensionAttrs;
};

// Encodes a module. Unsupported (naming the op or tensor) for what the 1.0 schema cannot express: element
// types without a DType (i64 tensors, unsigned, fp64), operations outside TOSA 1.0, dimensions beyond int32.
Result<EncodeResult> encodeTosa(const ir::Module& m);
// Writes PATH atomically.
Status writeTosa(const ir::Module& m, const std::string& path);

// Decodes a buffer after verifying all of it (flatbuffers::Verifier, identifier "TOSA"). Malformed or
// hostile input is ParseError / InvalidArgument (exit 4) naming `file`; sizes are checked against the
// memory budget before anything is allocated.
Result<std::unique_ptr<ir::Module>> decodeTosa(const uint8_t* data, size_t size, const std::string& file);
Result<std::unique_ptr<ir::Module>> readTosa(const std::string& path);

// Readable dump of a .tosa file: version, regions, blocks, tensors (type, shape, constant data), operators
// with their attributes, inputs, outputs and locations.
Result<std::string> disassembleTosa(const std::string& path);
Result<std::string> disassembleTosaBytes(const uint8_t* data, size_t size, const std::string& file);

}  // namespace tosakit::tosafb
