// MLIR TOSA dialect text <-> tosakit IR. This header is MLIR-free; only src/formats/mlir/*.cpp include MLIR.
//
// Conventions (both directions use the same rules, so import(export(m)) == m; docs/MLIR.md has examples):
// - Ops: every `tosa.*` op and `func.return` map 1:1 to an ir::Operation with the same name. Attributes are
//   converted generically (see Attribute in ir/graph.h); TOSA enum attributes become enum cases
//   ("DOUBLE_ROUND"); `dense<...>` and `dense_resource<...>` constants become tensors (tosa.const_shape's
//   index elements as I64). The `name` of tosa.variable_read/variable_write is a Symbol attribute.
// - Default-valued attributes are canonicalized away on import, as MLIR's printer elides them:
//   nan_mode = PROPAGATE and local_bound = false are dropped; consumers apply those defaults.
// - Input names: the argument attribute `tosakit.name = "x"`, else the argument's `loc("x")` NameLoc.
//   Result names: the result attribute `tosakit.name = "y"`. Export writes `tosakit.name` for every
//   named input/output (and `loc("x")` on named arguments when withLocations).
// - Locations: NameLoc -> Location.name, FileLineColLoc -> file/line/col, NameLoc wrapping a file location
//   -> both, FusedLoc/CallSiteLoc -> the first name and first file position found.
// - Module: func.func -> Function; tosa.variable -> Variable; module attribute tosa.target_env -> TargetEnv
//   with MLIR's spellings: profiles "pro_int"/"pro_fp", extensions "int16", "int4", "bf16", "fp8e4m3",
//   "fp8e5m2", "fft", "variable", "controlflow", "doubleround", "inexactround", "dynamic", ...,
//   level "8k"/"none", specVersion "1.0".
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace tosakit::mlirio {

struct ImportOptions {
  // Run MLIR's verifier after parsing (errors -> ParseError). Off: import structurally valid text the MLIR
  // verifier rejects (e.g. conformance ERROR_IF graphs) so tosakit's own validator can judge it.
  bool verify = true;
};

// Parses and verifies a module (pretty or generic syntax) and converts it. Errors name the op and its
// source location ("model.mlir:12:5: 'tosa.foo' ..."): ParseError for syntax/verifier errors, IOError for an
// unreadable file, Unsupported for ops/attributes/types tosakit does not represent.
Result<std::unique_ptr<ir::Module>> importMlirFile(const std::string& path, const ImportOptions& options = {});
Result<std::unique_ptr<ir::Module>> importMlirString(const std::string& text, const std::string& bufferName,
                                                     const ImportOptions& options = {});

// Upstream-valid pretty text; op names become NameLoc locations so layers stay identifiable.
// withLocations: print `loc(...)` (upstream's -mlir-print-debuginfo form). The module is verified with
// MLIR's verifier first; a failure names the op.
Result<std::string> exportMlir(const ir::Module& m, bool withLocations = true);

}  // namespace tosakit::mlirio
