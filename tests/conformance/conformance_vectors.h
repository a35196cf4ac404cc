// Shared by the conformance runners (run_conformance.cpp, precise_conformance.cpp): finding the vectors under
// TOSAKIT_CONFORMANCE_DIR (<group>/<vector>/test.json, unpacked from tests/data/conformance) and reading their npy
// inputs in @main's types.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "formats/npy/npy.h"
#include "tosakit/session.h"

namespace tosakit::conformance {

namespace fs = std::filesystem;
using json = nlohmann::json;

// An npy file converted to the declared element type (the vectors' convention for bf16/fp8/i4/i48).
inline Result<Tensor> readAs(const fs::path& file, DType want, const std::string& what) {
  auto t = npy::readNpy(file.string());
  if (!t) return t.status();
  return npy::adaptToDType(*t, want, what);
}

// The vector's inputs (test.json "inputs"), in @main's argument order and types.
inline Status gatherInputs(const fs::path& dir, const json& tj, const ir::Function& fn, NamedTensors& inputs) {
  const json& ins = tj.at("inputs");
  if (ins.size() != fn.inputs().size())
    return Status::invalid("test.json lists " + std::to_string(ins.size()) + " inputs, @main takes " +
                           std::to_string(fn.inputs().size()));
  for (size_t i = 0; i < ins.size(); ++i) {
    std::string file = ins[i].at("file").get<std::string>();
    auto t = readAs(dir / file, fn.inputs()[i]->type.dtype, file);
    if (!t) return t.status();
    inputs.emplace_back(fn.inputName(i), std::move(*t));
  }
  return Status::ok();
}

// Without a filter, every vector summary.json lists must be there: a partly unpacked set must not pass.
inline Status checkComplete(const std::string& root, size_t found) {
  std::ifstream is(fs::path(root) / "summary.json");
  json summary = json::parse(is, nullptr, false);
  if (summary.is_discarded() || !summary.is_array())
    return Status::invalid(root + "/summary.json: missing or malformed");
  if (summary.size() != found)
    return Status::invalid(root + ": " + std::to_string(found) + " vector directories, summary.json lists " +
                           std::to_string(summary.size()));
  return Status::ok();
}

// Every vector directory under root whose "<group>/<vector>" id contains filter, sorted; an error when root
// is not a directory or, without a filter, when a vector summary.json lists is missing.
inline Result<std::vector<fs::path>> findVectors(const std::string& root, const std::string& filter) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return Status::invalid(root + ": not a directory");
  std::vector<fs::path> vectors;
  for (const auto& g : fs::directory_iterator(root)) {
    if (!g.is_directory()) continue;
    for (const auto& t : fs::directory_iterator(g.path())) {
      if (!t.is_directory() || !fs::exists(t.path() / "test.json")) continue;
      std::string id = g.path().filename().string() + "/" + t.path().filename().string();
      if (!filter.empty() && id.find(filter) == std::string::npos) continue;
      vectors.push_back(t.path());
    }
  }
  std::sort(vectors.begin(), vectors.end());
  if (filter.empty())
    if (Status st = checkComplete(root, vectors.size()); !st) return st;
  return vectors;
}

}  // namespace tosakit::conformance
