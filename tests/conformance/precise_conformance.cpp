// Precise-mode oracle: runs the positive conformance vectors with floating-point outputs on the reference
// backend in precise mode (SessionOptions::precise: every float computed unrounded in fp64) and compares the
// fp64 outputs with Arm's own fp64 reference (expected<i>_fp64.npy), the strongest oracle we have.
//
//   precise_conformance [VECTORS_DIR] [--filter SUBSTRING] [--verbose]
//
// Each float output P (fp64) of a vector is judged twice:
//   1. compliance: P rounded to the declared output type must pass the vector's own compliance mode against
//      its fp64 reference and bounds (EXACT: against expected<i>.npy), exactly as run_conformance judges the
//      normal-mode output;
//   2. agreement: P itself must match Arm's fp64 reference R up to fp64 evaluation differences:
//      |P - R| <= 2^-48 * M + 2^-1074, with M = max(|R|, bounds) for DOT_PRODUCT / ABS_ERROR bound tensors
//      (a sum of absolute terms: summation order moves an fp64 sum by about n * 2^-53 of it) and M = |R|
//      otherwise; NaN must match NaN and an infinity the same infinity. (With a zero tolerance 10 vectors
//      differ, by one or two fp64 ulps: SIGMOID and bilinear RESIZE evaluated in another order.)
//      Outputs without an fp64 reference (EXACT mode) must equal expected<i>.npy exactly before any
//      rounding, except CAST, whose EXACT result is itself a rounding of the input.
// Integer outputs of these vectors are checked exactly. Negative vectors (with a model.mlir that imports) must
// end in an ERROR_IF verdict in precise mode too: the spec's checks still judge the declared types.
// Last line: "N passed, N failed, N skipped" (skipped: vectors without a float output, without model.mlir, or
// rejected at import).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "compliance/compliance.h"
#include "conformance_vectors.h"
#include "formats/npy/npy.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace tosakit;
using conformance::gatherInputs;
using conformance::readAs;

namespace {

// The declared-type result an implementation would produce from P by a final round to nearest.
Tensor roundTo(const Tensor& p, DType t) {
  Tensor out(t, p.shape());
  for (int64_t i = 0; i < p.size(); ++i) out.setFloat(i, p.getFloat(i));
  return out;
}

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// Agreement of the precise output with Arm's fp64 reference (see the file comment); "" when it holds.
std::string agreement(const Tensor& p, const Tensor& r, const Tensor* bounds) {
  if (p.size() != r.size()) return "size " + std::to_string(p.size()) + " vs reference " + std::to_string(r.size());
  for (int64_t i = 0; i < p.size(); ++i) {
    double pv = p.getFloat(i), rv = r.getFloat(i);
    bool ok;
    if (std::isnan(rv))
      ok = std::isnan(pv);
    else if (std::isinf(rv))
      ok = pv == rv;
    else {
      double m = std::fabs(rv);
      if (bounds) m = std::max(m, std::fabs(bounds->getFloat(i)));
      ok = std::fabs(pv - rv) <= std::ldexp(m, -48) + std::ldexp(1.0, -1074);
    }
    if (!ok) return "element " + std::to_string(i) + ": precise " + num(pv) + ", fp64 reference " + num(rv);
  }
  return "";
}

// "" when the vector passes; otherwise the reason. `floatOutputs` counts the float outputs judged.
int unroundedOutputs = 0;  // float outputs with at least one value not representable in the declared type

std::string judge(const fs::path& dir, const json& tj, int& floatOutputs) {
  auto mod = loadModel((dir / "model.mlir").string());
  if (!mod) return "import: " + mod.status().message();
  SessionOptions so;
  so.target = ir::TargetEnv::all();
  so.precise = true;
  auto session = Session::create(std::move(*mod), so);
  if (!session) return "session: " + session.status().message();
  const ir::Function* fn = (*session)->module().function("main");
  if (!fn) return "model has no @main";
  NamedTensors inputs;
  if (Status s = gatherInputs(dir, tj, *fn, inputs); !s) return s.message();
  RunResult rr;
  if (Status s = (*session)->run(inputs, rr); !s) return "run: " + s.toString();
  const json& outs = tj.at("outputs");
  if (outs.size() != rr.outputs.size()) return "output count differs";
  const json* comp = tj.contains("compliance") && tj["compliance"].is_object() && tj["compliance"].contains("tensors")
      ? &tj["compliance"]["tensors"]
      : nullptr;
  const std::string op = tj.value("op", std::string());
  for (size_t i = 0; i < outs.size(); ++i) {
    const json& o = outs[i];
    std::string name = o.at("name").get<std::string>();
    const Tensor& p = rr.outputs[i].second;
    DType declared = fn->resultTypes[i].dtype;
    if (!isFloat(declared)) {
      auto e = readAs(dir / o.at("file").get<std::string>(), declared, name);
      if (!e) return name + ": " + e.status().message();
      auto r = compliance::checkTensor(compliance::ComplianceMode{}, p, *e);
      if (!r.pass) return name + " (integer): " + r.reason;
      continue;
    }
    if (p.dtype() != DType::FP64) return name + ": precise output has dtype " + std::string(dtypeName(p.dtype()));
    floatOutputs++;
    compliance::ComplianceMode mode;
    if (comp && comp->contains(name)) {
      auto m = compliance::parseComplianceJson((*comp)[name].dump());
      if (!m) return name + ": " + m.status().message();
      mode = *m;
    }
    Tensor rounded = roundTo(p, declared);
    for (int64_t k = 0; k < p.size(); ++k)
      if (rounded.getFloat(k) != p.getFloat(k) && !std::isnan(p.getFloat(k))) {
        unroundedOutputs++;
        break;
      }
    if (mode.mode == "EXACT" || !o.contains("fp64_file")) {
      auto e = readAs(dir / o.at("file").get<std::string>(), declared, name);
      if (!e) return name + ": " + e.status().message();
      compliance::ComplianceMode exact;
      auto r = compliance::checkTensor(exact, rounded, *e);
      if (!r.pass) return name + " EXACT (rounded precise output): " + r.reason;
      if (op != "cast")
        for (int64_t k = 0; k < p.size(); ++k) {
          double pv = p.getFloat(k), ev = e->getFloat(k);
          if (!(pv == ev || (std::isnan(pv) && std::isnan(ev))))
            return name + " EXACT: element " + std::to_string(k) + ": precise " + num(pv) + ", expected " + num(ev);
        }
      continue;
    }
    auto ref = npy::readNpy((dir / o.at("fp64_file").get<std::string>()).string());
    if (!ref) return name + ": " + ref.status().message();
    std::optional<Tensor> bounds;
    if (o.contains("bounds_fp64_file")) {
      auto b = npy::readNpy((dir / o.at("bounds_fp64_file").get<std::string>()).string());
      if (!b) return name + ": " + b.status().message();
      bounds = std::move(*b);
    }
    auto r = compliance::checkTensor(mode, rounded, *ref, bounds ? &*bounds : nullptr);
    if (!r.pass) return name + " " + mode.mode + " (rounded precise output): " + r.reason;
    const bool boundIsMagnitude = mode.mode == "DOT_PRODUCT" || mode.mode == "ABS_ERROR";
    std::string a = agreement(p, *ref, boundIsMagnitude && bounds ? &*bounds : nullptr);
    if (!a.empty()) return name + " " + mode.mode + " agreement with fp64 reference: " + a;
  }
  return "";
}

// Negative vectors: precise mode must reach the same ERROR_IF verdict (SpecError) as normal mode, since the
// spec's checks judge the declared types. "" when it does; "skip" when the MLIR import already rejects the
// model (run_conformance counts that as the verifier's verdict).
std::string judgeNegative(const fs::path& dir, const json& tj) {
  auto mod = loadModel((dir / "model.mlir").string());
  if (!mod) return "skip";
  SessionOptions so;
  so.target = ir::TargetEnv::all();
  so.precise = true;
  auto session = Session::create(std::move(*mod), so);
  if (!session)
    return session.status().code() == StatusCode::SpecError ? "" : "session: " + session.status().toString();
  const ir::Function* fn = (*session)->module().function("main");
  if (!fn) return "model has no @main";
  NamedTensors inputs;
  if (Status s = gatherInputs(dir, tj, *fn, inputs); !s) return s.message();
  RunResult rr;
  Status s = (*session)->run(inputs, rr);
  if (s.code() == StatusCode::SpecError) return "";
  return "expected an ERROR_IF verdict (" + tj.value("expected_failure_desc", std::string("?")) + "), got " +
      (s.isOk() ? std::string("a successful run") : s.toString());
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = TOSAKIT_CONFORMANCE_DIR, filter;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (a == "--verbose" || a == "-v")
      verbose = true;
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: precise_conformance [VECTORS_DIR] [--filter SUBSTRING] [--verbose]\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "precise_conformance: unknown option " << a << "\n";
      return 2;
    } else
      root = a;
  }
  auto found = conformance::findVectors(root, filter);
  if (!found) {
    std::cerr << "precise_conformance: " << found.status().message() << "\n";
    return 2;
  }
  const std::vector<fs::path>& vectors = *found;
  int passed = 0, failed = 0, skipped = 0, floatOutputs = 0, negatives = 0;
  for (const fs::path& dir : vectors) {
    std::string id = dir.parent_path().filename().string() + "/" + dir.filename().string();
    std::ifstream is(dir / "test.json");
    json tj = json::parse(is, nullptr, false);
    if (tj.is_discarded()) {
      std::cout << "FAIL " << id << ": malformed test.json\n";
      failed++;
      continue;
    }
    bool hasFloatOutput = false;
    for (const json& o : tj.value("outputs", json::array())) {
      auto d = parseDType(o.value("dtype", std::string()));  // fp32, fp16, bf16, fp8e4m3, fp8e5m2, int8, ...
      if (d && isFloat(*d)) hasFloatOutput = true;
    }
    if (tj.value("expected_result", "valid") == "error" && fs::exists(dir / "model.mlir")) {
      std::string why = judgeNegative(dir, tj);
      if (why == "skip") {
        skipped++;
      } else if (why.empty()) {
        passed++;
        negatives++;
        if (verbose) std::cout << "PASS " << id << " (ERROR_IF verdict)\n";
      } else {
        failed++;
        std::cout << "FAIL " << id << ": " << why << "\n";
      }
      continue;
    }
    if (tj.value("expected_result", "valid") == "error" || !fs::exists(dir / "model.mlir") || !hasFloatOutput) {
      skipped++;
      continue;
    }
    int n = 0;
    std::string why = judge(dir, tj, n);
    floatOutputs += n;
    if (why.empty()) {
      passed++;
      if (verbose) std::cout << "PASS " << id << "\n";
    } else {
      failed++;
      std::cout << "FAIL " << id << ": " << why << "\n";
    }
  }
  std::cout << floatOutputs << " float outputs judged in precise mode (" << unroundedOutputs
            << " hold values finer than their declared type); " << negatives
            << " negative vectors reached their ERROR_IF verdict in precise mode\n";
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  if (passed + failed == 0) {  // an empty or wrong directory must not pass
    std::cerr << "precise_conformance: no vector judged under " << root << "\n";
    return 1;
  }
  return failed == 0 ? 0 : 1;
}
