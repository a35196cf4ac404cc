// --backend / --threads, shared by every verb that runs a model.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

#include "tosakit/session.h"

namespace tosakit::cli {

struct BackendFlags {
  std::string backend;  // empty: the verb's default
  int threads = 0;      // 0: all cores
  std::string isa;      // empty: TOSAKIT_ISA or the CPU's level
  // `defaultBackend` is what the verb uses without --backend ("fast" for running models; "ref" for check).
  void add(CLI::App* cmd, const std::string& defaultBackend = "fast");
  // Fills SessionOptions::backend/threads. --precise (fp64) runs only on the reference backend, so a verb
  // with `precise` set uses "ref" unless --backend fast was asked for (then Session::create says why not).
  void apply(SessionOptions& so, bool precise = false) const;

 private:
  std::string default_ = "fast";
};

}  // namespace tosakit::cli
