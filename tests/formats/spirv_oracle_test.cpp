// Independent checks of the SPIR-V output: upstream mlir-translate-22 --deserialize-spirv must accept the
// container (graphs, tensor types, tensor constants) and decode the constants to the values we wrote; and
// running a model from .spv gives bit-identical outputs to running it from .mlir on the reference backend.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/npy/npy.h"
#include "formats/spirv/spirv_io.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;

fs::path tempDir() {
  fs::path d = fs::temp_directory_path() / ("tosakit_spirv_oracle_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

bool haveTranslate() { return std::system("command -v mlir-translate-22 >/dev/null 2>&1") == 0; }

std::string runCapture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

std::string writeMlir(const std::string& name, const std::string& text) {
  fs::path p = tempDir() / name;
  std::ofstream(p) << text;
  return p.string();
}

// Graph with constant outputs: nested composite, null, replicate. Upstream decodes them (no TOSA instruction
// is involved, so the unknown extended instruction set is not an obstacle).
TEST(SpirvOracle, UpstreamDeserializesContainerAndConstants) {
  if (!haveTranslate()) GTEST_SKIP() << "mlir-translate-22 not installed";
  std::string src = writeMlir("consts.mlir", R"(module {
  func.func @main(%arg0: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x2xi32>, tensor<3xi32>) {
    %v1 = "tosa.const"() <{values = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
    %v2 = "tosa.const"() <{values = dense<0> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
    %v3 = "tosa.const"() <{values = dense<7> : tensor<3xi32>}> : () -> tensor<3xi32>
    return %v1, %v2, %v3 : tensor<2x2xi32>, tensor<2x2xi32>, tensor<3xi32>
  }
}
)");
  auto m = loadModel(src);
  ASSERT_TRUE(m.isOk()) << m.status().message();
  std::string spv = (tempDir() / "consts.spv").string();
  ASSERT_TRUE(spirv::writeSpirv(**m, spv).isOk());
  std::string out = runCapture("mlir-translate-22 --no-implicit-module --deserialize-spirv " + spv + " 2>&1");
  EXPECT_NE(out.find("spirv.ARM.GraphEntryPoint @main"), std::string::npos) << out;
  EXPECT_NE(out.find("spirv.ARM.Graph @main(%arg0: !spirv.arm.tensor<2x2xi32>)"), std::string::npos) << out;
  EXPECT_NE(out.find("dense<[[1, 2], [3, 4]]> : !spirv.arm.tensor<2x2xi32>"), std::string::npos) << out;
  EXPECT_NE(out.find("dense<0> : !spirv.arm.tensor<2x2xi32>"), std::string::npos) << out;
  EXPECT_NE(out.find("spirv.EXT.ConstantCompositeReplicate [7 : i32] : !spirv.arm.tensor<3xi32>"), std::string::npos)
      << out;
}

// With a TOSA instruction, upstream MLIR 22 stops at the unknown extended instruction set (documented in
// docs/SPIRV.md). If a later MLIR learns TOSA.001000.1 this test tells us.
TEST(SpirvOracle, UpstreamDoesNotKnowTosaSet) {
  if (!haveTranslate()) GTEST_SKIP() << "mlir-translate-22 not installed";
  std::string src = writeMlir("abs.mlir", R"(module {
  func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
    %v1 = tosa.abs %arg0 : (tensor<2xf32>) -> tensor<2xf32>
    return %v1 : tensor<2xf32>
  }
}
)");
  auto m = loadModel(src);
  ASSERT_TRUE(m.isOk()) << m.status().message();
  std::string spv = (tempDir() / "abs.spv").string();
  ASSERT_TRUE(spirv::writeSpirv(**m, spv).isOk());
  std::string out = runCapture("mlir-translate-22 --no-implicit-module --deserialize-spirv " + spv + " 2>&1");
  EXPECT_NE(out.find("unhandled deserialization of extended instruction set"), std::string::npos) << out;
}

Result<npy::NamedTensors> runModel(std::unique_ptr<ir::Module> m, const fs::path& dir) {
  auto s = Session::create(std::move(m));
  if (!s) return s.status();
  npy::NamedTensors inputs;
  std::vector<std::string> names = (*s)->inputNames();
  for (size_t i = 0; i < names.size(); ++i) {
    auto t = npy::readNpy((dir / ("input" + std::to_string(i) + ".npy")).string());
    if (!t) return t.status();
    // Files use numpy's carriers (bf16 as uint16 bits, ...): adapt to the declared input type.
    auto a = npy::adaptToDType(*t, (*s)->module().function("main")->inputs()[i]->type.dtype, names[i]);
    if (!a) return a.status();
    inputs.emplace_back(names[i], *a);
  }
  RunResult r;
  if (Status st = (*s)->run(inputs, r); !st) return st;
  return r.outputs;
}

// Bit-identical outputs from .mlir and from its .spv conversion, for a spread of instructions.
TEST(SpirvOracle, RunSpvEqualsRunMlir) {
  const fs::path vectors = TOSAKIT_CONFORMANCE_DIR;
  ASSERT_TRUE(fs::is_directory(vectors)) << vectors
                                         << ": conformance vectors not unpacked (target conformance_vectors)";
  int compared = 0;
  for (std::string group : {"add", "conv2d_3x3", "rescale", "matmul", "fft2d", "reshape", "concat", "pad", "clamp",
                            "mul", "table", "transpose", "reduce_sum", "gather", "resize", "cast"}) {
    fs::path dir;
    for (auto& e : fs::directory_iterator(vectors / group)) {
      std::string n = e.path().filename().string();
      if (n.find("ERRORIF") == std::string::npos && n.find("_dyn") == std::string::npos &&
          fs::exists(e.path() / "model.mlir") && (dir.empty() || e.path() < dir))
        dir = e.path();
    }
    ASSERT_FALSE(dir.empty()) << group;
    auto m = loadModel((dir / "model.mlir").string());
    ASSERT_TRUE(m.isOk()) << m.status().message();
    fs::path spv = tempDir() / (group + ".spv");
    ASSERT_TRUE(saveModel(**m, spv.string()).isOk()) << dir;
    auto fromSpv = loadModel(spv.string());
    ASSERT_TRUE(fromSpv.isOk()) << fromSpv.status().message();
    auto a = runModel(std::move(*m), dir);
    auto b = runModel(std::move(*fromSpv), dir);
    if (!a.isOk() && a.status().code() == StatusCode::Unsupported) continue;  // kernel not implemented yet
    ASSERT_TRUE(a.isOk()) << dir << ": " << a.status().message();
    ASSERT_TRUE(b.isOk()) << dir << ": " << b.status().message();
    ASSERT_EQ(a->size(), b->size());
    for (size_t k = 0; k < a->size(); ++k) {
      EXPECT_EQ((*a)[k].first, (*b)[k].first);
      EXPECT_TRUE((*a)[k].second.identical((*b)[k].second)) << dir << " output " << k;
    }
    ++compared;
  }
  EXPECT_GE(compared, 12);
}

}  // namespace
}  // namespace tosakit
