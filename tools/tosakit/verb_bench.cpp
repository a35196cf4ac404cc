// tosakit bench: load and compile time, then latency min/median/max of repeated runs; --profile adds time per
// op type and per op (GFLOP/s for conv/matmul) and names the ops that fell back to reference kernels.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "backend_flags.h"
#include "core/process_memory.h"
#include "tosakit/backend.h"
#include "tosakit/inputs.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
#include "tosakit/session.h"
#include "verbs.h"

namespace tosakit::cli {
namespace {

struct BenchArgs {
  std::string model;
  std::string function = "main";
  std::string inputsNpz;
  int warmup = 3;
  int iterations = 20;
  bool profile = false;
  bool json = false;
  // No TargetFlags: their --profile (TOSA profiles) would clash with bench's --profile (op timings); the
  // target comes from the module's tosa.target_env or is all profiles and extensions at level 8K.
  BackendFlags backend;
};

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

// --inputs prepared as `run` prepares them, or deterministic random data.
Result<NamedTensors> benchInputs(const BenchArgs& a, const ir::Function& fn) {
  if (a.inputsNpz.empty()) return syntheticInputs(fn);
  auto prepared = prepareInputs(fn, InputSources::fromNpz(a.inputsNpz));
  if (!prepared) return prepared.status();
  printNotes(prepared->notes);
  return std::move(prepared->tensors);
}

struct Latency {
  double min = 0, median = 0, max = 0;
};

Latency summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Latency l;
  if (ms.empty()) return l;
  l.min = ms.front();
  l.max = ms.back();
  size_t n = ms.size();
  l.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return l;
}

std::string jsonEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

void printProfile(const PlanStats& st, int iterations) {
  struct Agg {
    double ms = 0, flops = 0;
    int count = 0;
  };
  std::map<std::string, Agg> byType;
  double total = 0;
  for (const OpProfile& p : st.steps) {
    Agg& a = byType[p.opType];
    double per = p.runs ? p.totalMs / p.runs : 0;
    a.ms += per;
    a.flops += p.flops;
    ++a.count;
    total += per;
  }
  std::vector<std::pair<std::string, Agg>> types(byType.begin(), byType.end());
  std::sort(types.begin(), types.end(), [](auto& x, auto& y) { return x.second.ms > y.second.ms; });
  std::cout << "\nper op type (ms per run):\n";
  std::cout << std::left << std::setw(52) << "op type" << std::right << std::setw(6) << "count" << std::setw(10) << "ms"
            << std::setw(8) << "%" << std::setw(10) << "GFLOP/s"
            << "\n";
  for (auto& [type, a] : types) {
    std::cout << std::left << std::setw(52) << type << std::right << std::setw(6) << a.count << std::setw(10)
              << std::fixed << std::setprecision(3) << a.ms << std::setw(8) << std::setprecision(1)
              << (total > 0 ? 100 * a.ms / total : 0) << std::setw(10);
    if (a.flops > 0 && a.ms > 0)
      std::cout << std::setprecision(1) << a.flops / a.ms / 1e6;
    else
      std::cout << "";
    std::cout << "\n";
  }
  std::cout << "\nper op (ms per run):\n";
  for (const OpProfile& p : st.steps) {
    double per = p.runs ? p.totalMs / p.runs : 0;
    std::cout << "  " << std::left << std::setw(40) << (p.location.empty() ? "-" : p.location) << " " << std::setw(44)
              << p.opType << " " << std::setw(34) << p.impl << std::right << std::fixed << std::setprecision(3)
              << std::setw(9) << per;
    if (p.flops > 0 && per > 0) std::cout << std::setprecision(1) << std::setw(9) << p.flops / per / 1e6 << " GFLOP/s";
    std::cout << "\n";
  }
  std::map<std::string, int> fallback;
  for (const OpProfile& p : st.steps)
    if (p.fallback) ++fallback[p.opType];
  std::cout << "\nreference fallbacks: ";
  if (fallback.empty()) std::cout << "none";
  bool first = true;
  for (auto& [op, n] : fallback) {
    std::cout << (first ? "" : ", ") << op << " x" << n;
    first = false;
  }
  std::cout << "\n";
  (void)iterations;
}

// Memory while running, TPU-MLIR's and issue 11's measure: the process's peak RSS from the end of compiling to
// the end of the timed runs, above its RSS before the model was loaded (libraries and the runtime are not the
// model's), against what the plan must hold (weights + the activation arena). Compiling is reported on its
// own: packing a layer's weights holds that layer twice for a moment (resnet18's largest, 9.4 MB), so its peak
// is above the running one.
struct MemoryReport {
  int64_t beforeLoad = 0;   // RSS of the process before the model is read
  int64_t compilePeak = 0;  // VmHWM over compiling (reset after loading), 0 when the mark cannot be reset
  int64_t runPeak = 0;      // VmHWM over the runs (reset after compiling) or over the whole process
  bool peakIsRunOnly = false;
  int64_t aboveLoad(int64_t peak) const { return std::max<int64_t>(0, peak - beforeLoad); }
  int64_t modelBytes() const { return aboveLoad(runPeak); }
};

// "; while compiling: P MiB = Rx" when compiling was measured on its own.
std::string compilePeakNote(const MemoryReport& mem, double ratio) {
  if (!mem.peakIsRunOnly || mem.compilePeak <= 0) return "";
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << "; while compiling " << mem.compilePeak / 1048576.0
    << " MiB = " << std::setprecision(2) << ratio << "x";
  return o.str();
}

int benchVerb(const BenchArgs& a) {
  MemoryReport mem;
  mem.beforeLoad = currentRssBytes();
  auto t0 = Clock::now();
  std::vector<std::string> notes;
  auto module = loadModel(a.model, &notes);
  if (!module) return report(module.status());
  double loadMs = msSince(t0);
  const bool canReset = resetPeakRss();  // loading a text model peaks far above what running needs
  printNotes(notes);
  const ir::Function* fn = (*module)->function(a.function);
  if (!fn) return report(Status::invalid(a.model + ": no function '" + a.function + "'"));
  auto benchData = benchInputs(a, *fn);
  if (!benchData) return report(benchData.status());
  const NamedTensors& inputs = *benchData;

  SessionOptions so;
  a.backend.apply(so);
  auto session = Session::create(std::move(*module), so);
  if (!session) return report(session.status());
  Session& sess = **session;
  t0 = Clock::now();
  if (Status s = sess.prepare(a.function); !s) return report(s);
  double compileMs = msSince(t0);
  if (canReset) {
    mem.compilePeak = peakRssBytes();
    mem.peakIsRunOnly = resetPeakRss();
  }

  RunOptions ro;
  ro.function = a.function;
  RunResult result;
  for (int i = 0; i < a.warmup; ++i)
    if (Status s = sess.run(inputs, result, ro); !s) return report(s);
  sess.backend().setProfiling(a.profile);
  std::vector<double> times;
  for (int i = 0; i < std::max(1, a.iterations); ++i) {
    auto r0 = Clock::now();
    if (Status s = sess.run(inputs, result, ro); !s) return report(s);
    times.push_back(msSince(r0));
  }
  Latency lat = summarize(times);
  PlanStats st = sess.planStats(a.function);
  mem.runPeak = peakRssBytes();
  const int64_t planBytes = st.constantBytes + st.arenaBytes;
  const double memRatio = planBytes ? double(mem.modelBytes()) / double(planBytes) : 0.0;
  const double compileRatio = planBytes ? double(mem.aboveLoad(mem.compilePeak)) / double(planBytes) : 0.0;

  std::cout << "model: " << a.model << "  backend: " << so.backend
            << "  threads: " << (so.threads ? std::to_string(so.threads) : std::string("all"))
            << (so.backend == "fast" ? "  isa: " + fastIsaLevel() : std::string()) << "\n";
  std::cout << std::fixed << std::setprecision(3) << "load: " << loadMs << " ms  compile: " << compileMs
            << " ms\nlatency over " << times.size() << " runs (ms): min " << lat.min << "  median " << lat.median
            << "  max " << lat.max << "\n";
  const char* peakWhat = mem.peakIsRunOnly ? "peak RSS while running " : "peak RSS (whole process) ";
  if (st.compiled)
    std::cout << std::setprecision(1) << "memory: weights " << st.constantBytes / 1048576.0 << " MiB ("
              << st.releasedConstantBytes / 1048576.0 << " MiB of them only packed), activation arena "
              << st.arenaBytes / 1048576.0 << " MiB; " << peakWhat << mem.runPeak / 1048576.0 << " MiB, "
              << mem.modelBytes() / 1048576.0 << " MiB above the process before loading = " << std::setprecision(2)
              << memRatio << "x (weights + arena)" << compilePeakNote(mem, compileRatio) << "\n";
  else
    std::cout << std::setprecision(1) << "memory: " << peakWhat << mem.runPeak / 1048576.0 << " MiB, "
              << mem.modelBytes() / 1048576.0 << " MiB above the process before loading (no compiled plan)\n";
  if (a.profile) printProfile(st, int(times.size()));
  if (a.json) {
    std::ostringstream j;
    j << std::setprecision(6) << "{\"model\":\"" << jsonEscape(a.model) << "\",\"backend\":\"" << so.backend
      << "\",\"threads\":" << so.threads << ",\"isa\":\"" << (so.backend == "fast" ? fastIsaLevel() : "")
      << "\",\"load_ms\":" << loadMs << ",\"compile_ms\":" << compileMs << ",\"iterations\":" << times.size()
      << ",\"latency_ms\":{\"min\":" << lat.min << ",\"median\":" << lat.median << ",\"max\":" << lat.max
      << "},\"peak_rss_bytes\":" << mem.runPeak << ",\"rss_before_load_bytes\":" << mem.beforeLoad
      << ",\"model_rss_bytes\":" << mem.modelBytes() << ",\"memory_ratio\":" << memRatio
      << ",\"compile_peak_rss_bytes\":" << mem.compilePeak << ",\"compile_memory_ratio\":" << compileRatio
      << ",\"weights_bytes\":" << st.constantBytes << ",\"weights_released_bytes\":" << st.releasedConstantBytes
      << ",\"arena_bytes\":" << st.arenaBytes << ",\"fallback_ops\":[";
    bool first = true;
    for (const OpProfile& p : st.steps)
      if (p.fallback) {
        j << (first ? "" : ",") << "\"" << jsonEscape(p.opType) << "\"";
        first = false;
      }
    j << "]}";
    std::cout << j.str() << "\n";
  }
  return kExitOk;
}

}  // namespace

VerbAction addBenchVerb(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "Measure compile time and run latency of a model");
  cmd->add_option("model", args->model, "Model file (.mlir or .spv)")->required();
  cmd->add_option("--function", args->function, "Function to run")->capture_default_str();
  cmd->add_option("--inputs", args->inputsNpz, "Inputs keyed by name (.npz); default: deterministic random data");
  cmd->add_option("--warmup", args->warmup, "Untimed runs first")->capture_default_str()->check(CLI::NonNegativeNumber);
  cmd->add_option("--iterations", args->iterations, "Timed runs")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("--profile", args->profile, "Time per op type and per op, GFLOP/s, reference fallbacks");
  cmd->add_flag("--json", args->json, "Print one JSON object as the last line");
  args->backend.add(cmd, "fast");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return benchVerb(*args);
  };
}

}  // namespace tosakit::cli
