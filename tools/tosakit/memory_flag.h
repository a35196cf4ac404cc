// --max-memory BYTES: the memory budget (core/size_budget.h) of verbs that read models or data.
// main.cpp adds it to every verb but `version` (new verbs get it without a call); addMaxMemoryFlag(cmd) is
// idempotent, so a verb may also call it itself. The value (1048576, 512K, 64M, 2G; binary multiples) is applied
// while the command line is parsed, before the verb runs; a malformed value is a usage error (exit 2).
#pragma once
#include <CLI/CLI.hpp>

namespace tosakit::cli {

CLI::Option* addMaxMemoryFlag(CLI::App* cmd);

}  // namespace tosakit::cli
