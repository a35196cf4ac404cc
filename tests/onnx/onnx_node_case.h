// Runs one ONNX backend node test case (libonnx-testdata: model.onnx + test_data_set_*/input_i.pb, output_i.pb,
// produced by ONNX's reference implementation: an independent oracle) through tosakit import + the reference
// backend. The inputs whose indices are in `bind` are folded to constants at import (--bind-inputs: the inputs
// that feed a shape- or attribute-determining operand); the others are run-time inputs. Run-time int64 data
// is given as i32 (TOSA has no int64; the importer narrows), uint8 as i8 with the same bits (the importer's
// convention). Floats compare with rtol 1e-3, atol 1e-5 (NaN == NaN), integers and bools exactly.
//
//   TEST(OnnxElementwise, Add) { EXPECT_TRUE(runNodeCase("test_add")); }
//   TEST(OnnxTensor, Reshape) { EXPECT_TRUE(runNodeCase("test_reshape_negative_dim", {1})); }
#pragma once
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "frontends/onnx/onnx_import.h"
#include "onnx_test_util.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"

namespace tosakit::onnxtest {

inline const char* kOnnxNodeDataDir = "/usr/share/libonnx-testdata/data/node";

// The test data's tensor in the run-time type the imported function declares.
inline Result<Tensor> toRuntimeType(const Tensor& t, DType want, const std::string& what) {
  if (t.dtype() == want) return t;
  Tensor out(want, t.shape());
  if (t.dtype() == DType::U16 && want == DType::BF16) {
    // ONNX stores bfloat16 test data as uint16 bit patterns (numpy has no bfloat16).
    for (int64_t i = 0; i < t.size(); ++i) out.setInt(i, t.getInt(i));
    return out;
  }
  for (int64_t i = 0; i < t.size(); ++i) {
    if (isFloat(want)) {
      out.setFloat(i, t.getFloat(i));
      continue;
    }
    int64_t v = t.getInt(i);
    if (t.dtype() == DType::U8 && want == DType::I8) v = int64_t(int8_t(uint8_t(v)));  // same bits
    if (want == DType::I32 && (v < INT32_MIN || v > INT32_MAX))
      return Status::invalid(what + ": value " + std::to_string(v) + " does not fit in i32");
    out.setInt(i, v);
  }
  return out;
}

// Compares a tosakit output with the expected ONNX tensor; empty string when equal.
inline std::string compareOutput(const Tensor& got, const Tensor& want, const std::string& what) {
  if (got.shape() != want.shape())
    return what + ": shape " + shapeToString(got.shape()) + ", want " + shapeToString(want.shape());
  const bool floatWant = isFloat(want.dtype());
  for (int64_t i = 0; i < want.size(); ++i) {
    std::ostringstream msg;
    if (floatWant) {
      double g = got.getFloat(i), w = want.getFloat(i);
      if (std::isnan(w) && std::isnan(g)) continue;
      if (std::isinf(w) && g == w) continue;
      if (std::fabs(g - w) <= 1e-5 + 1e-3 * std::fabs(w)) continue;
      msg << what << " [" << i << "]: got " << g << ", want " << w;
      return msg.str();
    }
    int64_t g = got.getInt(i), w = want.getInt(i);
    if (want.dtype() == DType::U8 && got.dtype() == DType::I8) g = int64_t(uint8_t(int8_t(g)));
    if (g == w) continue;
    msg << what << " [" << i << "]: got " << g << ", want " << w;
    return msg.str();
  }
  return "";
}

inline ::testing::AssertionResult runNodeCase(const std::string& caseName, const std::set<int>& bind = {},
                                              const char* dataDir = kOnnxNodeDataDir) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(dataDir) / caseName;
  if (!fs::exists(dir / "model.onnx")) return ::testing::AssertionFailure() << "no test case " << dir;
  int sets = 0;
  for (int s = 0; fs::exists(dir / ("test_data_set_" + std::to_string(s))); ++s, ++sets) {
    fs::path data = dir / ("test_data_set_" + std::to_string(s));
    onnx::OnnxImportOptions opts;
    std::vector<std::pair<std::string, Tensor>> runtime;
    for (int i = 0; fs::exists(data / ("input_" + std::to_string(i) + ".pb")); ++i) {
      auto t = onnx::loadOnnxTensor((data / ("input_" + std::to_string(i) + ".pb")).string());
      if (!t) return ::testing::AssertionFailure() << caseName << ": " << t.status().toString();
      if (bind.count(i))
        opts.bindInputs[t->first] = t->second;
      else
        runtime.emplace_back(t->first, t->second);
    }
    auto m = onnx::importOnnx((dir / "model.onnx").string(), opts);
    if (!m) return ::testing::AssertionFailure() << caseName << ": import: " << m.status().toString();
    const ir::Function* fn = (*m)->function(opts.functionName);
    NamedTensors inputs;
    for (size_t i = 0; i < fn->inputs().size(); ++i) {
      const std::string name = fn->inputName(i);
      const Tensor* given = nullptr;
      for (auto& [n, t] : runtime)
        if (n == name) given = &t;
      // pytorch-converted data files carry no tensor names: they follow the graph inputs' order.
      if (!given && i < runtime.size() && runtime[i].first.empty()) given = &runtime[i].second;
      if (!given) return ::testing::AssertionFailure() << caseName << ": no test data for input '" << name << "'";
      auto t = toRuntimeType(*given, fn->inputs()[i]->type.dtype, caseName + " input '" + name + "'");
      if (!t) return ::testing::AssertionFailure() << t.status().toString();
      inputs.emplace_back(name, std::move(*t));
    }
    auto session = Session::create(std::move(*m));
    if (!session) return ::testing::AssertionFailure() << caseName << ": " << session.status().toString();
    RunResult result;
    Status st = (*session)->run(inputs, result);
    if (!st.isOk()) return ::testing::AssertionFailure() << caseName << ": run: " << st.toString();
    for (size_t o = 0;; ++o) {
      fs::path p = data / ("output_" + std::to_string(o) + ".pb");
      if (!fs::exists(p)) {
        if (o != result.outputs.size())
          return ::testing::AssertionFailure() << caseName << ": " << result.outputs.size() << " outputs, want " << o;
        break;
      }
      auto want = onnx::loadOnnxTensor(p.string());
      if (!want) return ::testing::AssertionFailure() << want.status().toString();
      if (o >= result.outputs.size()) return ::testing::AssertionFailure() << caseName << ": missing output " << o;
      std::string diff =
          compareOutput(result.outputs[o].second, want->second, caseName + " output '" + want->first + "'");
      if (!diff.empty()) return ::testing::AssertionFailure() << diff;
    }
  }
  if (sets == 0) return ::testing::AssertionFailure() << caseName << ": no test_data_set_*";
  return ::testing::AssertionSuccess();
}

// runNodeCase, and the imported MLIR (data set 0's bindings) must pass upstream mlir-opt-22's parser and TOSA
// verifiers when mlir-opt-22 is installed.
inline ::testing::AssertionResult runNodeCaseVerified(const std::string& caseName, const std::set<int>& bind = {}) {
  auto r = runNodeCase(caseName, bind);
  if (!r) return r;
  if (std::system("command -v mlir-opt-22 >/dev/null 2>&1") != 0) return r;
  namespace fs = std::filesystem;
  fs::path dir = fs::path(kOnnxNodeDataDir) / caseName;
  onnx::OnnxImportOptions opts;
  for (int i = 0; fs::exists(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")); ++i) {
    if (!bind.count(i)) continue;
    auto t = onnx::loadOnnxTensor((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    if (!t) return ::testing::AssertionFailure() << t.status().toString();
    opts.bindInputs[t->first] = t->second;
  }
  auto m = onnx::importOnnx((dir / "model.onnx").string(), opts);
  if (!m) return ::testing::AssertionFailure() << m.status().toString();
  // Test processes run in parallel: the pid keeps the temp names apart.
  const std::string stem = caseName + "_" + std::to_string(::getpid());
  std::string mlir = tempPath(stem + ".mlir"), err = tempPath(stem + ".err");
  if (!saveModel(**m, mlir).isOk()) return ::testing::AssertionFailure() << "cannot save " << mlir;
  int rc = std::system(("mlir-opt-22 '" + mlir + "' -o /dev/null 2>'" + err + "'").c_str());
  std::ifstream es(err);
  std::string errors((std::istreambuf_iterator<char>(es)), std::istreambuf_iterator<char>());
  fs::remove(mlir);
  fs::remove(err);
  if (rc != 0) return ::testing::AssertionFailure() << caseName << ": mlir-opt-22: " << errors;
  return r;
}

}  // namespace tosakit::onnxtest
