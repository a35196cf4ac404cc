#include "fast/cpu_features.h"

#include <cpuid.h>

#include <array>
#include <cstdlib>
#include <mutex>

namespace tosakit::fast::cpu {
namespace {

constexpr std::array<std::string_view, 5> kNames = {"baseline", "avx2", "avx2_vnni", "avx512", "avx512_vnni"};

// AVX-VNNI is CPUID.(EAX=7, ECX=1):EAX bit 4 (GCC 12's __builtin_cpu_supports has no name for it); its VEX
// encoding needs the AVX state the OS enables for AVX2, which __builtin_cpu_supports("avx2") has checked.
bool cpuHasAvxVnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx)) return false;
  return (eax >> 4) & 1u;
}

Features detect() {
  __builtin_cpu_init();
  Features f;
  f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") &&
      __builtin_cpu_supports("bmi2");
  f.avxVnni = f.avx2 && cpuHasAvxVnni();
  f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
  f.avx512Vnni = f.avx512 && __builtin_cpu_supports("avx512vnni");
  f.avx512Vbmi = f.avx512 && __builtin_cpu_supports("avx512vbmi");
  return f;
}

// The feature that defines a level: the CPU must have it for the level to be available.
bool defining(const Features& f, Isa level) {
  switch (level) {
    case Isa::Baseline: return true;
    case Isa::Avx2: return f.avx2;
    case Isa::Avx2Vnni: return f.avxVnni;
    case Isa::Avx512: return f.avx512;
    case Isa::Avx512Vnni: return f.avx512Vnni;
  }
  return false;
}

// What a level allows of the machine's features.
Features allowedAt(Isa level, const Features& m) {
  Features f;
  f.avx2 = level != Isa::Baseline && m.avx2;
  f.avxVnni = (level == Isa::Avx2Vnni || level == Isa::Avx512Vnni) && m.avxVnni;
  f.avx512 = (level == Isa::Avx512 || level == Isa::Avx512Vnni) && m.avx512;
  f.avx512Vbmi = f.avx512 && m.avx512Vbmi;
  f.avx512Vnni = level == Isa::Avx512Vnni && m.avx512Vnni;
  return f;
}

struct State {
  std::mutex mutex;
  bool fixed = false;
  Isa level = Isa::Baseline;
  Features allowed;
  std::optional<Isa> requested;  // setLevel() before the level was fixed
  Status envStatus;
};

State& state() {
  static State s;
  return s;
}

Status checkAvailable(Isa level) {
  if (defining(machineFeatures(), level)) return Status::ok();
  std::string levels;
  for (Isa l : machineLevels()) levels += (levels.empty() ? "" : ", ") + std::string(isaName(l));
  return Status::invalid("ISA level " + std::string(isaName(level)) + " is not supported by this CPU (it supports " +
                         levels + ")");
}

// TOSAKIT_ISA, when set: a valid level the CPU supports, else an error kept for environmentStatus().
std::optional<Isa> levelFromEnvironment(Status& error) {
  const char* env = std::getenv("TOSAKIT_ISA");
  if (!env || !*env) return std::nullopt;
  const std::optional<Isa> level = parseIsa(env);
  if (!level) {
    error = Status::invalid("TOSAKIT_ISA=" + std::string(env) + ": unknown ISA level (levels: " + isaNames() + ")");
    return std::nullopt;
  }
  Status available = checkAvailable(*level);
  if (!available) {
    error = available.withContext("TOSAKIT_ISA");
    return std::nullopt;
  }
  return level;
}

// Fixes the level on first use (the caller holds the mutex).
void fix(State& s) {
  if (s.fixed) return;
  std::optional<Isa> env = s.requested ? std::nullopt : levelFromEnvironment(s.envStatus);
  s.level = s.requested ? *s.requested : env ? *env : machineIsa();
  s.allowed = allowedAt(s.level, machineFeatures());
  s.fixed = true;
}

const State& fixedState() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  fix(s);
  return s;
}

}  // namespace

std::string_view isaName(Isa isa) { return kNames[size_t(isa)]; }

std::optional<Isa> parseIsa(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return Isa(i);
  return std::nullopt;
}

std::string isaNames() {
  std::string s;
  for (std::string_view n : kNames) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

const Features& machineFeatures() {
  static const Features f = detect();
  return f;
}

Isa machineIsa() {
  const Features& f = machineFeatures();
  if (f.avx512Vnni) return Isa::Avx512Vnni;
  if (f.avx512) return Isa::Avx512;
  if (f.avxVnni) return Isa::Avx2Vnni;
  if (f.avx2) return Isa::Avx2;
  return Isa::Baseline;
}

std::vector<Isa> machineLevels() {
  std::vector<Isa> levels;
  for (size_t i = 0; i < kNames.size(); ++i)
    if (defining(machineFeatures(), Isa(i))) levels.push_back(Isa(i));
  return levels;
}

Isa activeIsa() { return fixedState().level; }

const Features& features() {
  static const Features& f = fixedState().allowed;
  return f;
}

bool has(Isa level) { return defining(features(), level); }

Status setLevel(Isa level) {
  TK_RETURN_IF_ERROR(checkAvailable(level));
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.fixed && s.level != level)
    return Status::invalid("ISA level " + std::string(isaName(level)) + ": the fast backend already runs at " +
                           std::string(isaName(s.level)) + " in this process (set it before the first model runs)");
  s.requested = level;
  return Status::ok();
}

Status setLevel(std::string_view name) {
  const std::optional<Isa> level = parseIsa(name);
  if (!level) return Status::invalid("unknown ISA level '" + std::string(name) + "' (levels: " + isaNames() + ")");
  return setLevel(*level);
}

Status environmentStatus() { return fixedState().envStatus; }

}  // namespace tosakit::fast::cpu
