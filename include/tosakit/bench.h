// `tosakit bench` as one library call (the CLI verb and Python's tosakit.bench): load and compile time, the
// latency of repeated runs, memory while running, and with profiling the time per op. Implemented by
// tosakit_workflows (src/workflows).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "tosakit/backend.h"
#include "tosakit/inputs.h"
#include "tosakit/session.h"

namespace tosakit {

struct BenchOptions {
  std::string function = "main";
  InputSources inputs;   // none given: syntheticInputs (deterministic random data)
  int warmup = 3;        // untimed runs first
  int iterations = 20;   // timed runs (at least 1)
  bool profile = false;  // time per step of the plan (PlanStats::steps)
  SessionOptions session;
};

// Memory while running (TPU-MLIR's and issue 11's measure): the process's peak RSS from the end of compiling
// to the end of the timed runs, above its RSS before the model was loaded, against what the plan must hold
// (weights + activation arena). Compiling is measured on its own when the peak can be reset: packing a
// layer's weights holds that layer twice for a moment, so its peak is above the running one.
struct BenchMemory {
  int64_t beforeLoad = 0;   // RSS before the model is read
  int64_t compilePeak = 0;  // peak over compiling, 0 when the mark cannot be reset
  int64_t runPeak = 0;      // peak over the runs, or over the whole process (peakIsRunOnly false)
  bool peakIsRunOnly = false;
  int64_t aboveLoad(int64_t peak) const { return peak > beforeLoad ? peak - beforeLoad : 0; }
  int64_t modelBytes() const { return aboveLoad(runPeak); }
};

struct BenchReport {
  std::string model;
  std::string backend;
  int threads = 0;  // 0: all cores
  std::string isa;  // the fast backend's ISA level, else empty
  double loadMs = 0;
  double compileMs = 0;
  std::vector<double> runMs;  // each timed run
  double minMs = 0, medianMs = 0, maxMs = 0;
  BenchMemory memory;
  PlanStats plan;  // steps timed when profiling
  bool profiled = false;
  std::vector<std::string> notes;  // of loading and preparing the inputs

  double memoryRatio() const;         // modelBytes / (weights + arena); 0 without a plan
  double compileMemoryRatio() const;  // compile peak above load / (weights + arena)
  // What `tosakit bench` prints: the header, times, memory and, when profiled, the per-op tables.
  std::string toText() const;
  // One JSON object (`bench --json`, bench/vs_onnxruntime.sh reads it).
  std::string toJson() const;
};

// Loads `model` (by extension), prepares `function` on the session's backend, runs it warmup + iterations
// times. Errors: loading's, the inputs', the run's; InvalidArgument (parameter "function") for a missing
// function.
Result<BenchReport> benchModel(const std::string& model, const BenchOptions& options);

}  // namespace tosakit
