#include "formats/mlir/mlir_context.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace tosakit::mlirio {

using llvm::dyn_cast;

std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::tosa::TosaDialect>();
  auto ctx = std::make_unique<mlir::MLIRContext>(registry, mlir::MLIRContext::Threading::DISABLED);
  ctx->loadAllAvailableDialects();
  ctx->allowUnregisteredDialects(true);
  return ctx;
}

namespace {
// Depth-first: the first name and the first file position found.
void collectLocation(mlir::Location loc, ir::Location& out) {
  if (auto n = dyn_cast<mlir::NameLoc>(loc)) {
    if (out.name.empty()) out.name = n.getName().str();
    collectLocation(n.getChildLoc(), out);
  } else if (auto f = dyn_cast<mlir::FileLineColRange>(loc)) {
    if (out.file.empty()) {
      out.file = f.getFilename().str();
      out.line = int(f.getStartLine());
      out.col = int(f.getStartColumn());
    }
  } else if (auto fused = dyn_cast<mlir::FusedLoc>(loc)) {
    for (mlir::Location l : fused.getLocations()) collectLocation(l, out);
  } else if (auto call = dyn_cast<mlir::CallSiteLoc>(loc)) {
    collectLocation(call.getCallee(), out);
    collectLocation(call.getCaller(), out);
  } else if (auto opaque = dyn_cast<mlir::OpaqueLoc>(loc)) {
    collectLocation(opaque.getFallbackLocation(), out);
  }
}
}  // namespace

ir::Location toLocation(mlir::Location loc) {
  ir::Location out;
  collectLocation(loc, out);
  return out;
}

std::string locString(mlir::Location loc) {
  ir::Location l = toLocation(loc);
  std::string pos = l.file.empty() ? "" : l.file + ":" + std::to_string(l.line) + ":" + std::to_string(l.col);
  if (!pos.empty() && !l.name.empty()) return pos + " ('" + l.name + "')";
  if (!pos.empty()) return pos;
  if (!l.name.empty()) return "'" + l.name + "'";
  return "<unknown location>";
}

DiagnosticCapture::DiagnosticCapture(mlir::MLIRContext* ctx)
    : handler_(ctx, [this](mlir::Diagnostic& d) {
        if (d.getSeverity() == mlir::DiagnosticSeverity::Error && first_.empty()) {
          first_ = locString(d.getLocation()) + ": " + d.str();
          // Notes add context, except "see current operation", which would print the whole op (constants!).
          for (mlir::Diagnostic& note : d.getNotes()) {
            std::string n = note.str();
            if (n.rfind("see current operation", 0) == 0) continue;
            first_ += "; note: " + n;
            break;
          }
        }
        return mlir::success();
      }) {}

}  // namespace tosakit::mlirio
