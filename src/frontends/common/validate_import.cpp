// An imported graph checked before anyone writes or runs it (include/tosakit/import.h).
#include "ir/validate.h"
#include "tosakit/import.h"

namespace tosakit {

Status validateImportedModule(const ir::Module& m, const std::string& modelName) {
  ir::ValidateOptions opts;
  opts.allowRegionCaptures = true;  // as Session: the reference backend runs regions that use outer values
  auto diags = ir::validateModule(m, ir::TargetEnv::all(), opts);
  if (diags.empty()) return Status::ok();
  const ir::Diagnostic& d = diags.front();
  std::string msg = modelName + ": the imported graph is not valid at level 8k: " + d.toString() +
      (diags.size() > 1 ? " (+" + std::to_string(diags.size() - 1) + " more)" : "");
  return d.kind == ir::Diagnostic::Kind::Unsupported ? Status::unsupported(msg) : Status::invalid(msg);
}

}  // namespace tosakit
