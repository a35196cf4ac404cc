// One file per verb; each registers its CLI11 subcommand and returns the action run when it is chosen.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"

namespace tosakit::cli {

using VerbAction = std::function<int()>;

VerbAction addRunVerb(CLI::App& app);
VerbAction addValidateVerb(CLI::App& app);
VerbAction addVersionVerb(CLI::App& app);
VerbAction addCheckVerb(CLI::App& app);
VerbAction addGenDataVerb(CLI::App& app);
VerbAction addImportVerb(CLI::App& app);
VerbAction addConvertVerb(CLI::App& app);
VerbAction addDisVerb(CLI::App& app);
VerbAction addCalibrateVerb(CLI::App& app);
VerbAction addQtableVerb(CLI::App& app);
VerbAction addQuantizeVerb(CLI::App& app);
VerbAction addCompareVerb(CLI::App& app);
VerbAction addBenchVerb(CLI::App& app);
VerbAction addInfoVerb(CLI::App& app);
VerbAction addCutVerb(CLI::App& app);
VerbAction addGraphVerb(CLI::App& app);
VerbAction addVisualVerb(CLI::App& app);
VerbAction addExportQdqVerb(CLI::App& app);

// Exit codes (documented in README.md):
enum ExitCode {
  kExitOk = 0,
  kExitSpecError = 1,      // the graph is in error (ERROR_IF / LEVEL_CHECK), or validate found violations
  kExitUsage = 2,          // bad command line
  kExitUnpredictable = 3,  // a REQUIRE failed: the result is unpredictable
  kExitBadInput = 4,       // unreadable or malformed file, missing/unknown/mis-typed input
  kExitUnsupported = 5,    // an operator or construct tosakit does not support
  kExitInternal = 6,
};

int exitCodeFor(const Status& s);
// Prints "tosakit: <kind>: <message>" on stderr and returns the exit code.
int report(const Status& s);
// An --input-shape value, "NAME=1x3x224x224" (also "NAME=1,3,224,224") (import, export-qdq).
Status parseShapeSpec(const std::string& spec, std::string& name, Shape& shape);
// The flag of a library parameter (Status::parameter): "histogram_bins" -> "--histogram-bins".
std::string flagOf(const std::string& parameter);
// Prints each note as "tosakit: note: <text>" on stderr.
void printNotes(const std::vector<std::string>& notes);

}  // namespace tosakit::cli
