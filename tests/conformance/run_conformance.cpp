// Conformance runner: judges tosakit on the TOSA 1.0 conformance vectors (tests/data/conformance, unpacked into
// the build tree).
//
//   run_conformance [VECTORS_DIR] [--filter SUBSTRING] [--verbose] [--log FILE] [--timeout SECONDS]
//
// For each vector directory <group>/<test>: reads test.json, imports model.mlir, reads input<i>.npy
// (converted to the declared argument types), runs @main on the reference backend (Session, all profiles and
// extensions, level 8K) and judges:
//   positive tests: each output with the compliance mode test.json names (EXACT against expected<i>.npy;
//     other modes against expected<i>_fp64.npy and bounds<i>_fp64.npy, see src/compliance/compliance.h);
//   negative tests: the run must end in a SpecError verdict (ERROR_IF / LEVEL_CHECK). A model the MLIR
//     verifier rejects at import also counts as an error verdict (counted separately).
// Negative tests without model.mlir (MLIR cannot express a wrong input/output list) are "not applicable", and
// so are negative tests whose model.mlir upstream MLIR cannot parse either (test.json mlir_parse=fail) when
// the import error is a syntax error rather than a verifier diagnostic; both are listed separately.
// Each vector runs in a child process, so a crash or hang in a kernel fails that vector only.
// --via tosa: each model is first written as a TOSA flatbuffer (.tosa, src/formats/tosafb), read back from
// that file (which must give a structurally identical module, ir::modulesEqual, with every 1.0 attribute in
// the schema's own fields) and run from it; a negative model the .tosa reader rejects counts as rejected.
// Output: one line per op group, totals, the most common failure reasons, and a last line
// "N passed, N failed, N skipped" (skipped = not applicable). Failures go to the log file.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "compliance/compliance.h"
#include "conformance_vectors.h"
#include "formats/mlir/mlir_io.h"
#include "formats/npy/npy.h"
#include "formats/tosafb/tosafb_io.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace tosakit;
using conformance::gatherInputs;
using conformance::readAs;

namespace {

enum class Verdict { Pass, Fail, NotApplicable };

struct Outcome {
  Verdict verdict = Verdict::Fail;
  std::string reason;      // failure reason, or how a negative test was rejected
  std::string rejectedBy;  // negative tests: "run", "session", "import-verifier"
};

std::string oneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

Outcome failed(std::string why) { return {Verdict::Fail, oneLine(std::move(why)), ""}; }

// MLIR verifier diagnostics name the op: "file:3:7: 'tosa.conv2d' op ..." (syntax errors do not).
bool isVerifierError(const Status& s) {
  return s.code() == StatusCode::SpecError || s.message().find("' op ") != std::string::npos;
}

Outcome judgeOutputs(const fs::path& dir, const json& tj, const RunResult& rr) {
  const json& outs = tj.at("outputs");
  if (outs.size() != rr.outputs.size())
    return failed("test.json lists " + std::to_string(outs.size()) + " outputs, the run produced " +
                  std::to_string(rr.outputs.size()));
  const json* comp = nullptr;
  if (tj.contains("compliance") && tj["compliance"].is_object() && tj["compliance"].contains("tensors"))
    comp = &tj["compliance"]["tensors"];
  for (size_t i = 0; i < outs.size(); ++i) {
    const json& o = outs[i];
    std::string name = o.at("name").get<std::string>();
    const Tensor& impl = rr.outputs[i].second;
    compliance::ComplianceMode mode;
    if (comp && comp->contains(name)) {
      auto m = compliance::parseComplianceJson((*comp)[name].dump());
      if (!m) return failed(name + ": " + m.status().message());
      mode = *m;
    }
    // Shape values (tosa.const_shape) record no tensor shape.
    std::vector<int64_t> shape =
        o.contains("shape") && o["shape"].is_array() ? o["shape"].get<std::vector<int64_t>>() : impl.shape();
    if (impl.shape() != Shape(shape.begin(), shape.end()))
      return failed(name + ": output shape " + shapeToString(impl.shape()) + ", expected " +
                    shapeToString(Shape(shape.begin(), shape.end())));
    Tensor ref;
    std::optional<Tensor> bounds;
    if (mode.mode == "EXACT" || !o.contains("fp64_file")) {
      auto t = readAs(dir / o.at("file").get<std::string>(), impl.dtype(), name);
      if (!t) return failed(name + ": " + t.status().message());
      ref = std::move(*t);
      if (mode.mode != "EXACT") mode.mode = "EXACT";
    } else {
      auto t = npy::readNpy((dir / o.at("fp64_file").get<std::string>()).string());
      if (!t) return failed(name + ": " + t.status().message());
      ref = std::move(*t);
      if (o.contains("bounds_fp64_file")) {
        auto b = npy::readNpy((dir / o.at("bounds_fp64_file").get<std::string>()).string());
        if (!b) return failed(name + ": " + b.status().message());
        bounds = std::move(*b);
      }
    }
    compliance::ComplianceResult r = compliance::checkTensor(mode, impl, ref, bounds ? &*bounds : nullptr);
    if (!r.pass) return failed(name + " " + mode.mode + ": " + r.reason);
  }
  return {Verdict::Pass, "", ""};
}

// Backend the vectors run on (--backend): "ref" (the golden model) or "fast" (compiled plans).
std::string g_backend = "ref";

// Interchange format the models go through before they run (--via): "" (none) or "tosa".
std::string g_via;

// Writes the module as .tosa, reads it back from the file and checks the round trip. On failure returns null
// with `why` set (`rejected`: the reader refused the file, as opposed to a round trip that differs).
std::unique_ptr<ir::Module> viaTosa(const ir::Module& m, std::string& why, bool& rejected) {
  rejected = false;
  auto enc = tosafb::encodeTosa(m);
  if (!enc) {
    why = "tosa write: " + enc.status().toString();
    return nullptr;
  }
  for (const std::string& a : enc->extensionAttrs)
    if (a.find(": tosakit.") == std::string::npos) {
      why = "tosa write: attribute outside the 1.0 tables: " + a;
      return nullptr;
    }
  fs::path tmp = fs::temp_directory_path() / ("run_conformance_" + std::to_string(getpid()) + ".tosa");
  {
    std::ofstream os(tmp, std::ios::binary);
    os.write(reinterpret_cast<const char*>(enc->bytes.data()), std::streamsize(enc->bytes.size()));
  }
  auto back = loadModel(tmp.string());
  fs::remove(tmp);
  if (!back) {
    rejected = true;
    why = "tosa read: " + back.status().toString();
    return nullptr;
  }
  std::string diff;
  if (!ir::modulesEqual(m, **back, &diff)) {
    why = "tosa round trip differs: " + diff;
    return nullptr;
  }
  return std::move(*back);
}

// Runs a module on the vector's inputs; returns the run status (module errors included).
Status runModule(std::unique_ptr<ir::Module> module, const fs::path& dir, const json& tj, RunResult& rr,
                 std::string& stage) {
  stage = "session";
  SessionOptions so;
  so.target = ir::TargetEnv::all();
  so.backend = g_backend;
  so.threads = 1;
  auto session = Session::create(std::move(module), so);
  if (!session) return session.status();
  stage = "inputs";
  const ir::Function* fn = (*session)->module().function("main");
  if (!fn) return Status::invalid("model has no @main");
  NamedTensors inputs;
  TK_RETURN_IF_ERROR(gatherInputs(dir, tj, *fn, inputs));
  stage = "run";
  return (*session)->run(inputs, rr);
}

Outcome judgeVector(const fs::path& dir) {
  std::ifstream is(dir / "test.json");
  if (!is) return failed("cannot read test.json");
  json tj = json::parse(is, nullptr, false);
  if (tj.is_discarded()) return failed("malformed test.json");
  bool negative = tj.value("expected_result", "valid") == "error";
  fs::path model = dir / "model.mlir";
  if (!fs::exists(model)) {
    if (negative) return {Verdict::NotApplicable, "no model.mlir", ""};
    return failed("positive test without model.mlir");
  }
  auto mod = loadModel(model.string());
  if (!mod) {
    if (!negative) return failed("import: " + mod.status().message());
    // Upstream MLIR cannot parse it either (test.json mlir_parse=fail) and the error is syntax, not a
    // verifier diagnostic: like the vectors without model.mlir, no MLIR consumer can express this test.
    if (!isVerifierError(mod.status()) && tj.value("mlir_parse", std::string()) == "fail")
      return {Verdict::NotApplicable, "unparseable model.mlir: " + oneLine(mod.status().message()), "unparseable"};
    if (!isVerifierError(mod.status()))
      return failed("import (not a verifier error; test.json mlir_parse=" + tj.value("mlir_parse", std::string("?")) +
                    "): " + mod.status().message());
    // Would tosakit's own validator/kernels catch it too? Import without the MLIR verifier and run.
    mlirio::ImportOptions noVerify;
    noVerify.verify = false;
    auto raw = mlirio::importMlirFile(model.string(), noVerify);
    std::string by = "import-verifier";
    if (raw) {
      RunResult rr;
      std::string stage;
      if (runModule(std::move(*raw), dir, tj, rr, stage).code() == StatusCode::SpecError) by += "+tosakit-" + stage;
    }
    return {Verdict::Pass, oneLine(mod.status().message()), by};
  }
  if (g_via == "tosa") {
    std::string why;
    bool rejected = false;
    auto back = viaTosa(**mod, why, rejected);
    if (!back && negative && rejected) return {Verdict::Pass, oneLine(why), "tosa-reader"};
    if (!back) return failed(why);
    *mod = std::move(back);
  }
  RunResult rr;
  std::string stage;
  Status s = runModule(std::move(*mod), dir, tj, rr, stage);
  if (negative) {
    if (s.code() == StatusCode::SpecError) return {Verdict::Pass, oneLine(s.message()), stage};
    if (s.isOk())
      return failed("expected an ERROR_IF verdict (" + tj.value("expected_failure_desc", std::string("?")) +
                    "), but the graph ran");
    return failed("expected an ERROR_IF verdict (" + tj.value("expected_failure_desc", std::string("?")) + "), got " +
                  s.toString());
  }
  if (!s.isOk()) return failed(stage + ": " + s.toString());
  return judgeOutputs(dir, tj, rr);
}

// Runs judgeVector in a child process with a time limit.
Outcome judgeIsolated(const fs::path& dir, int timeoutSec) {
  int fds[2];
  if (pipe(fds) != 0) return judgeVector(dir);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return judgeVector(dir);
  }
  if (pid == 0) {
    close(fds[0]);
    Outcome o;
    try {
      o = judgeVector(dir);
    } catch (const std::exception& e) { o = failed(std::string("exception: ") + e.what()); }
    std::string msg = std::to_string(int(o.verdict)) + "\t" + o.rejectedBy + "\t" + o.reason;
    size_t off = 0;
    while (off < msg.size()) {
      ssize_t n = write(fds[1], msg.data() + off, msg.size() - off);
      if (n <= 0) break;
      off += size_t(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string buf;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSec);
  bool timedOut = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = poll(&p, 1, int(std::min<int64_t>(left.count(), 1000)));
    if (r < 0) break;
    if (r == 0) continue;
    char tmp[4096];
    ssize_t n = read(fds[0], tmp, sizeof tmp);
    if (n <= 0) break;
    buf.append(tmp, size_t(n));
  }
  close(fds[0]);
  if (timedOut) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timedOut) return failed("timeout after " + std::to_string(timeoutSec) + " s");
  if (WIFSIGNALED(status)) return failed("crashed (signal " + std::to_string(WTERMSIG(status)) + ")");
  size_t t1 = buf.find('\t'), t2 = t1 == std::string::npos ? t1 : buf.find('\t', t1 + 1);
  if (t2 == std::string::npos) return failed("child exited without a verdict");
  Outcome o;
  o.verdict = Verdict(std::stoi(buf.substr(0, t1)));
  o.rejectedBy = buf.substr(t1 + 1, t2 - t1 - 1);
  o.reason = buf.substr(t2 + 1);
  return o;
}

// Failure reason with numbers and quoted names blurred, to count similar failures together.
std::string reasonKey(const std::string& r) {
  std::string k;
  for (size_t i = 0; i < r.size() && k.size() < 90; ++i) {
    char c = r[i];
    if ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == 'e') {
      if (c == 'e' && !(i > 0 && r[i - 1] >= '0' && r[i - 1] <= '9')) {
        k += c;
        continue;
      }
      if (k.empty() || k.back() != '#') k += '#';
      continue;
    }
    k += c;
  }
  return k;
}

struct GroupStats {
  int posPass = 0, posFail = 0, negPass = 0, negFail = 0, na = 0;
};

}  // namespace

int main(int argc, char** argv) {
  std::string root = TOSAKIT_CONFORMANCE_DIR;
  std::string filter, logPath = "conformance_failures.log";
  bool verbose = false;
  int timeoutSec = 120;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "run_conformance: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--filter")
      filter = next();
    else if (a == "--verbose" || a == "-v")
      verbose = true;
    else if (a == "--log")
      logPath = next();
    else if (a == "--timeout")
      timeoutSec = std::stoi(next());
    else if (a == "--backend")
      g_backend = next();
    else if (a == "--via")
      g_via = next();
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: run_conformance [VECTORS_DIR] [--filter SUBSTRING] [--verbose] [--log FILE] "
                   "[--timeout SECONDS] [--backend ref|fast] [--via tosa]\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "run_conformance: unknown option " << a << "\n";
      return 2;
    } else
      root = a;
  }
  if (!g_via.empty() && g_via != "tosa") {
    std::cerr << "run_conformance: --via takes tosa\n";
    return 2;
  }
  auto found = conformance::findVectors(root, filter);
  if (!found) {
    std::cerr << "run_conformance: " << found.status().message() << "\n";
    return 2;
  }
  const std::vector<fs::path>& vectors = *found;
  std::ofstream log(logPath);
  std::map<std::string, GroupStats> groups;
  std::map<std::string, int> reasons, rejectedBy;
  std::vector<std::string> notApplicable, unparseable;
  int passed = 0, failedCount = 0;
  for (const fs::path& dir : vectors) {
    std::string group = dir.parent_path().filename().string();
    std::string id = group + "/" + dir.filename().string();
    bool negative = false;
    {
      std::ifstream is(dir / "test.json");
      json tj = json::parse(is, nullptr, false);
      negative = !tj.is_discarded() && tj.value("expected_result", "valid") == "error";
    }
    Outcome o = judgeIsolated(dir, timeoutSec);
    GroupStats& gs = groups[group];
    if (o.verdict == Verdict::NotApplicable) {
      gs.na++;
      if (o.rejectedBy == "unparseable") {
        unparseable.push_back(id);
        log << id << ": not applicable: " << o.reason << "\n";
      } else {
        notApplicable.push_back(id);
      }
      continue;
    }
    bool ok = o.verdict == Verdict::Pass;
    if (ok) {
      passed++;
      (negative ? gs.negPass : gs.posPass)++;
      if (negative) rejectedBy[o.rejectedBy]++;
    } else {
      failedCount++;
      (negative ? gs.negFail : gs.posFail)++;
      reasons[(negative ? "[neg] " : "[pos] ") + reasonKey(o.reason)]++;
      log << id << ": " << o.reason << "\n";
    }
    if (verbose)
      std::cout << (ok ? "PASS " : "FAIL ") << id
                << (ok ? (o.rejectedBy.empty() ? "" : " [error verdict: " + o.rejectedBy + "]") : ": " + o.reason)
                << "\n";
  }
  std::cout << "group                          positive(pass/total)  negative(pass/total)  n/a\n";
  GroupStats tot;
  for (const auto& [g, s] : groups) {
    char line[256];
    std::snprintf(line, sizeof line, "%-30s %8d/%-12d %8d/%-12d %3d\n", g.c_str(), s.posPass, s.posPass + s.posFail,
                  s.negPass, s.negPass + s.negFail, s.na);
    std::cout << line;
    tot.posPass += s.posPass;
    tot.posFail += s.posFail;
    tot.negPass += s.negPass;
    tot.negFail += s.negFail;
    tot.na += s.na;
  }
  std::cout << "positive tests: " << tot.posPass << "/" << tot.posPass + tot.posFail << " passed\n";
  std::cout << "negative tests: " << tot.negPass << "/" << tot.negPass + tot.negFail << " passed";
  if (!rejectedBy.empty()) {
    std::cout << " (error verdict from:";
    for (const auto& [k, n] : rejectedBy) std::cout << " " << (k.empty() ? "?" : k) << "=" << n;
    std::cout << ")";
  }
  std::cout << "\n";
  std::cout << "not applicable (negative, no model.mlir: MLIR cannot express the error): " << notApplicable.size()
            << "\n";
  std::cout << "not applicable (negative, model.mlir unparseable by upstream MLIR too, mlir_parse=fail, not a "
               "verifier error): "
            << unparseable.size() << "\n";
  for (const auto& n : unparseable) std::cout << "  n/a " << n << "\n";
  log << "\n# not applicable (no model.mlir)\n";
  for (const auto& n : notApplicable) {
    log << n << "\n";
    std::cout << "  n/a " << n << "\n";
  }
  if (!reasons.empty()) {
    std::vector<std::pair<int, std::string>> top;
    for (const auto& [k, n] : reasons) top.emplace_back(n, k);
    std::sort(top.rbegin(), top.rend());
    std::cout << "most common failure reasons:\n";
    for (size_t i = 0; i < top.size() && i < 15; ++i)
      std::cout << "  " << top[i].first << "x " << top[i].second << "\n";
    std::cout << "failures written to " << logPath << "\n";
  }
  std::cout << passed << " passed, " << failedCount << " failed, " << notApplicable.size() + unparseable.size()
            << " skipped\n";
  if (passed + failedCount == 0) {  // an empty or wrong directory must not pass
    std::cerr << "run_conformance: no vector judged under " << root << "\n";
    return 1;
  }
  return failedCount == 0 ? 0 : 1;
}
