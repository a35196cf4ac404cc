// benchModel (include/tosakit/bench.h): timing, memory and the per-op profile, the same for every door.
#include <algorithm>
#include <chrono>
#include <iomanip>
#include <map>
#include <sstream>

#include "core/process_memory.h"
#include "tosakit/bench.h"
#include "tosakit/model_io.h"

namespace tosakit {

namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void summarize(BenchReport& r) {
  std::vector<double> ms = r.runMs;
  std::sort(ms.begin(), ms.end());
  if (ms.empty()) return;
  r.minMs = ms.front();
  r.maxMs = ms.back();
  size_t n = ms.size();
  r.medianMs = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
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

Result<NamedTensors> benchInputs(const ir::Function& fn, const BenchOptions& o, std::vector<std::string>& notes) {
  const InputSources& in = o.inputs;
  if (in.npzFiles.empty() && in.files.empty() && in.tensors.empty()) return syntheticInputs(fn);
  auto prepared = prepareInputs(fn, in);
  if (!prepared) return prepared.status();
  notes.insert(notes.end(), prepared->notes.begin(), prepared->notes.end());
  return std::move(prepared->tensors);
}

// Warmup, then the timed runs (profiling on for those only).
Status timeRuns(Session& sess, const NamedTensors& inputs, const BenchOptions& o, BenchReport& r) {
  RunOptions ro;
  ro.function = o.function;
  RunResult result;
  for (int i = 0; i < o.warmup; ++i) TK_RETURN_IF_ERROR(sess.run(inputs, result, ro));
  sess.backend().setProfiling(o.profile);
  for (int i = 0; i < std::max(1, o.iterations); ++i) {
    auto t0 = Clock::now();
    TK_RETURN_IF_ERROR(sess.run(inputs, result, ro));
    r.runMs.push_back(msSince(t0));
  }
  return Status::ok();
}

void printTypeTable(std::ostream& out, const PlanStats& st) {
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
  out << "\nper op type (ms per run):\n";
  out << std::left << std::setw(52) << "op type" << std::right << std::setw(6) << "count" << std::setw(10) << "ms"
      << std::setw(8) << "%" << std::setw(10) << "GFLOP/s"
      << "\n";
  for (auto& [type, a] : types) {
    out << std::left << std::setw(52) << type << std::right << std::setw(6) << a.count << std::setw(10) << std::fixed
        << std::setprecision(3) << a.ms << std::setw(8) << std::setprecision(1) << (total > 0 ? 100 * a.ms / total : 0)
        << std::setw(10);
    if (a.flops > 0 && a.ms > 0)
      out << std::setprecision(1) << a.flops / a.ms / 1e6;
    else
      out << "";
    out << "\n";
  }
}

void printOpTable(std::ostream& out, const PlanStats& st) {
  out << "\nper op (ms per run):\n";
  for (const OpProfile& p : st.steps) {
    double per = p.runs ? p.totalMs / p.runs : 0;
    out << "  " << std::left << std::setw(40) << (p.location.empty() ? "-" : p.location) << " " << std::setw(44)
        << p.opType << " " << std::setw(34) << p.impl << std::right << std::fixed << std::setprecision(3)
        << std::setw(9) << per;
    if (p.flops > 0 && per > 0) out << std::setprecision(1) << std::setw(9) << p.flops / per / 1e6 << " GFLOP/s";
    out << "\n";
  }
  std::map<std::string, int> fallback;
  for (const OpProfile& p : st.steps)
    if (p.fallback) ++fallback[p.opType];
  out << "\nreference fallbacks: ";
  if (fallback.empty()) out << "none";
  bool first = true;
  for (auto& [op, n] : fallback) {
    out << (first ? "" : ", ") << op << " x" << n;
    first = false;
  }
  out << "\n";
}

// "; while compiling: P MiB = Rx" when compiling was measured on its own.
std::string compilePeakNote(const BenchMemory& mem, double ratio) {
  if (!mem.peakIsRunOnly || mem.compilePeak <= 0) return "";
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << "; while compiling " << mem.compilePeak / 1048576.0
    << " MiB = " << std::setprecision(2) << ratio << "x";
  return o.str();
}

}  // namespace

double BenchReport::memoryRatio() const {
  const int64_t planBytes = plan.constantBytes + plan.arenaBytes;
  return planBytes ? double(memory.modelBytes()) / double(planBytes) : 0.0;
}

double BenchReport::compileMemoryRatio() const {
  const int64_t planBytes = plan.constantBytes + plan.arenaBytes;
  return planBytes ? double(memory.aboveLoad(memory.compilePeak)) / double(planBytes) : 0.0;
}

Result<BenchReport> benchModel(const std::string& model, const BenchOptions& o) {
  BenchReport r;
  r.model = model;
  r.memory.beforeLoad = currentRssBytes();
  auto t0 = Clock::now();
  auto module = loadModel(model, &r.notes);
  if (!module) return module.status();
  r.loadMs = msSince(t0);
  const bool canReset = resetPeakRss();  // loading a text model peaks far above what running needs
  const ir::Function* fn = (*module)->function(o.function);
  if (!fn) return Status::invalid(model + ": no function '" + o.function + "'").withParameter("function");
  auto inputs = benchInputs(*fn, o, r.notes);
  if (!inputs) return inputs.status();
  auto session = Session::create(std::move(*module), o.session);
  if (!session) return session.status();
  Session& sess = **session;
  t0 = Clock::now();
  TK_RETURN_IF_ERROR(sess.prepare(o.function));
  r.compileMs = msSince(t0);
  if (canReset) {
    r.memory.compilePeak = peakRssBytes();
    r.memory.peakIsRunOnly = resetPeakRss();
  }
  TK_RETURN_IF_ERROR(timeRuns(sess, *inputs, o, r));
  summarize(r);
  r.plan = sess.planStats(o.function);
  r.memory.runPeak = peakRssBytes();
  r.backend = o.session.backend;
  r.threads = o.session.threads;
  r.isa = r.backend == "fast" ? fastIsaLevel() : "";
  r.profiled = o.profile;
  return r;
}

std::string BenchReport::toText() const {
  std::ostringstream out;
  out << "model: " << model << "  backend: " << backend
      << "  threads: " << (threads ? std::to_string(threads) : std::string("all"))
      << (backend == "fast" ? "  isa: " + isa : std::string()) << "\n";
  out << std::fixed << std::setprecision(3) << "load: " << loadMs << " ms  compile: " << compileMs
      << " ms\nlatency over " << runMs.size() << " runs (ms): min " << minMs << "  median " << medianMs << "  max "
      << maxMs << "\n";
  const char* peakWhat = memory.peakIsRunOnly ? "peak RSS while running " : "peak RSS (whole process) ";
  if (plan.compiled)
    out << std::setprecision(1) << "memory: weights " << plan.constantBytes / 1048576.0 << " MiB ("
        << plan.releasedConstantBytes / 1048576.0 << " MiB of them only packed), activation arena "
        << plan.arenaBytes / 1048576.0 << " MiB; " << peakWhat << memory.runPeak / 1048576.0 << " MiB, "
        << memory.modelBytes() / 1048576.0 << " MiB above the process before loading = " << std::setprecision(2)
        << memoryRatio() << "x (weights + arena)" << compilePeakNote(memory, compileMemoryRatio()) << "\n";
  else
    out << std::setprecision(1) << "memory: " << peakWhat << memory.runPeak / 1048576.0 << " MiB, "
        << memory.modelBytes() / 1048576.0 << " MiB above the process before loading (no compiled plan)\n";
  if (profiled) {
    printTypeTable(out, plan);
    printOpTable(out, plan);
  }
  return out.str();
}

std::string BenchReport::toJson() const {
  std::ostringstream j;
  j << std::setprecision(6) << "{\"model\":\"" << jsonEscape(model) << "\",\"backend\":\"" << backend
    << "\",\"threads\":" << threads << ",\"isa\":\"" << isa << "\",\"load_ms\":" << loadMs
    << ",\"compile_ms\":" << compileMs << ",\"iterations\":" << runMs.size() << ",\"latency_ms\":{\"min\":" << minMs
    << ",\"median\":" << medianMs << ",\"max\":" << maxMs << "},\"peak_rss_bytes\":" << memory.runPeak
    << ",\"rss_before_load_bytes\":" << memory.beforeLoad << ",\"model_rss_bytes\":" << memory.modelBytes()
    << ",\"memory_ratio\":" << memoryRatio() << ",\"compile_peak_rss_bytes\":" << memory.compilePeak
    << ",\"compile_memory_ratio\":" << compileMemoryRatio() << ",\"weights_bytes\":" << plan.constantBytes
    << ",\"weights_released_bytes\":" << plan.releasedConstantBytes << ",\"arena_bytes\":" << plan.arenaBytes
    << ",\"fallback_ops\":[";
  bool first = true;
  for (const OpProfile& p : plan.steps)
    if (p.fallback) {
      j << (first ? "" : ",") << "\"" << jsonEscape(p.opType) << "\"";
      first = false;
    }
  j << "]}";
  return j.str();
}

}  // namespace tosakit
