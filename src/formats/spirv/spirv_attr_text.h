// Discardable IR attributes (Function::argAttrs/resultAttrs/attrs) as the text of a SPIR-V UserSemantic
// decoration: "tosakit.attr KEY KIND[:DTYPE] PAYLOAD" (docs/SPIRV.md, "Discardable attributes"). MLIR-free.
#pragma once
#include <string>
#include <utility>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::spirv {

constexpr const char* kAttrPrefix = "tosakit.attr ";

// Fails (Unsupported) for keys with spaces and strings containing NUL (SPIR-V literal strings end at NUL).
Result<std::string> encodeAttrText(const std::string& key, const ir::Attribute& a);
// Parses a decoration string that starts with kAttrPrefix. Errors say what is malformed (no file context).
Result<std::pair<std::string, ir::Attribute>> decodeAttrText(const std::string& text);

}  // namespace tosakit::spirv
