// tosakit: a toolchain for TOSA 1.0. git-style verbs; each lives in its own file.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <map>
#include <new>
#include <vector>

#include <unistd.h>

#include "memory_flag.h"
#include "verbs.h"

namespace tosakit::cli {

int exitCodeFor(const Status& s) {
  switch (s.code()) {
    case StatusCode::Ok: return kExitOk;
    case StatusCode::SpecError: return kExitSpecError;
    case StatusCode::Unpredictable: return kExitUnpredictable;
    case StatusCode::InvalidArgument:
    case StatusCode::ParseError:
    case StatusCode::IOError: return kExitBadInput;
    case StatusCode::Unsupported: return kExitUnsupported;
    case StatusCode::Internal: return kExitInternal;
  }
  return kExitInternal;
}

// The flags of the few parameters spelled otherwise.
std::string flagOf(const std::string& parameter) {
  static const std::map<std::string, std::string> spelledOtherwise = {
      {"preprocess", "--mean/--scale/--pixel-format/--channel-format/--resize-dims/--keep-aspect-ratio"},
      {"input_shapes", "--input-shape"},
      {"bind_inputs", "--bind/--bind-inputs"},
      {"search_threshold", "--search threshold"},
  };
  if (auto it = spelledOtherwise.find(parameter); it != spelledOtherwise.end()) return it->second;
  std::string flag = "--" + parameter;
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

int report(const Status& s) {
  if (s.isOk()) return kExitOk;
  const Status worded = s.parameter().empty() ? s : s.withContext(flagOf(s.parameter()));
  std::cerr << "tosakit: " << worded.toString() << "\n";
  return exitCodeFor(s);
}

void printNotes(const std::vector<std::string>& notes) {
  for (const auto& n : notes) std::cerr << "tosakit: note: " << n << "\n";
}

// GNU OpenMP (the runtime of Debian's oneDNN) lets idle pool threads spin up to ~300k iterations at every
// barrier. On a machine with more runnable threads than cores, a spinning thread burns the time slice the
// thread it waits for needs: measured on a shared 2-core machine, `bench --threads 2` of mobilenet_v2 took a
// median 571 ms spinning vs 9.7 ms passive. On an idle machine spinning is the faster choice (the same bench:
// 5.5 ms spinning vs 7.0 ms passive; 2.2 vs 3.4 ms on a later build). libgomp reads OMP_WAIT_POLICY only when
// it loads, so the verbs that run models re-execute themselves once with OMP_WAIT_POLICY=PASSIVE when the
// machine is busy now, unless the user chose a policy (OMP_WAIT_POLICY or GOMP_SPINCOUNT set).
//
// "Busy now" is the number of other runnable threads at start (/proc/loadavg's running count, the most of
// three samples 1 ms apart, less this process) plus the threads this run will use exceeding the cores. Not
// the 1-minute load average: it lags by a minute, so a benchmark that alternates with another program (ONNX
// Runtime spinning 2 threads in bench/vs_onnxruntime.sh) would find its own peer's past load and wait
// passively on an idle machine. Failure to read the count or to re-execute just continues as is.
int threadsRequested(int argc, char** argv, long cores) {
  for (int i = 2; i < argc; ++i) {
    const char* v = nullptr;
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      v = argv[i + 1];
    else if (std::strncmp(argv[i], "--threads=", 10) == 0)
      v = argv[i] + 10;
    if (v) {
      const long n = std::strtol(v, nullptr, 10);
      return int(n > 0 && n < cores ? n : cores);
    }
  }
  return int(cores);  // the default: all cores
}

long otherRunnableThreads() {
  long most = 0;
  for (int sample = 0; sample < 3; ++sample) {
    if (sample > 0) usleep(1000);
    FILE* f = std::fopen("/proc/loadavg", "r");
    if (!f) return 0;
    double l1, l5, l15;
    long running = 0, total = 0;
    const bool read = std::fscanf(f, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &running, &total) == 5;
    std::fclose(f);
    if (!read) return 0;
    most = std::max(most, running - 1);  // the count includes this process
  }
  return most;
}

bool machineIsBusy(int argc, char** argv) {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores <= 0) return false;
  return otherRunnableThreads() + threadsRequested(argc, argv, cores) > cores;
}

void preferPassiveOpenMpWait(int argc, char** argv) {
  static const char* const kRunsModels[] = {"run", "bench", "calibrate", "qtable", "compare", "quantize", "visual"};
  if (argc < 2 || std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  bool runsModels = false;
  for (const char* verb : kRunsModels) runsModels = runsModels || std::strcmp(argv[1], verb) == 0;
  if (!runsModels || !machineIsBusy(argc, argv) || setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  execv("/proc/self/exe", argv);
}

}  // namespace tosakit::cli

int main(int argc, char** argv) {
  using namespace tosakit::cli;
  preferPassiveOpenMpWait(argc, argv);
  CLI::App app{"tosakit: execute, validate, check, import and convert TOSA 1.0 graphs", "tosakit"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every verb");
  std::vector<VerbAction> actions;
  actions.push_back(addRunVerb(app));
  actions.push_back(addValidateVerb(app));
  actions.push_back(addVersionVerb(app));
  actions.push_back(addCheckVerb(app));
  actions.push_back(addGenDataVerb(app));
  actions.push_back(addImportVerb(app));
  actions.push_back(addConvertVerb(app));
  actions.push_back(addDisVerb(app));
  actions.push_back(addCalibrateVerb(app));
  actions.push_back(addQtableVerb(app));
  actions.push_back(addQuantizeVerb(app));
  actions.push_back(addCompareVerb(app));
  actions.push_back(addBenchVerb(app));
  actions.push_back(addInfoVerb(app));
  actions.push_back(addCutVerb(app));
  actions.push_back(addGraphVerb(app));
  actions.push_back(addVisualVerb(app));
  actions.push_back(addExportQdqVerb(app));
  // --max-memory on every verb that reads models or data (all but version), new verbs included.
  for (CLI::App* verb : app.get_subcommands({}))
    if (verb->get_name() != "version") addMaxMemoryFlag(verb);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) { return app.exit(e); } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  // Each verb's action returns -1 unless its subcommand was the one parsed. Sizes read from files are checked
  // against the memory budget before allocating; anything that still throws is reported here, never an abort.
  try {
    for (auto& a : actions) {
      int rc = a();
      if (rc >= 0) return rc;
    }
  } catch (const std::bad_alloc&) {
    return report(tosakit::Status::internal(
        "out of memory (std::bad_alloc); a smaller --max-memory turns oversized inputs into a clear error"));
  } catch (const std::exception& e) {
    return report(tosakit::Status::internal(std::string("unexpected exception: ") + e.what()));
  } catch (...) { return report(tosakit::Status::internal("unexpected exception")); }
  return kExitUsage;
}
