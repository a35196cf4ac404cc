// Internal to src/formats/mlir: the MLIR context, diagnostics capture and location helpers shared by
// mlir_import.cpp and mlir_export.cpp. Includes MLIR headers: never include it from outside this folder.
#pragma once
#include <memory>
#include <string>

#include "ir/graph.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"

namespace tosakit::mlirio {

// A fresh single-threaded context with the func and tosa dialects loaded. Unregistered dialects are allowed
// so that the importer can reject unknown ops by name instead of failing inside the parser.
std::unique_ptr<mlir::MLIRContext> makeContext();

// NameLoc -> name, FileLineColLoc -> file/line/col; fused/call-site locations: first name and position.
ir::Location toLocation(mlir::Location loc);
// "file:line:col ('name')", "file:line:col", "'name'" or "<unknown location>".
std::string locString(mlir::Location loc);

// Collects the first error MLIR reports (with its location) instead of printing it to stderr.
class DiagnosticCapture {
 public:
  explicit DiagnosticCapture(mlir::MLIRContext* ctx);
  const std::string& first() const { return first_; }

 private:
  std::string first_;
  mlir::ScopedDiagnosticHandler handler_;
};

template <typename T>
std::string printed(T x) {
  std::string s;
  llvm::raw_string_ostream os(s);
  x.print(os);
  return s;
}

}  // namespace tosakit::mlirio
