// `tosakit convert IN -o OUT` (every verb that writes a file takes -o/--output), the positional
// `convert IN OUT` alias, and the usage errors (exit 2, no output file).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "formats/mlir/mlir_io.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;

const char* kModel =
    R"(func.func @main(%arg0: tensor<2xi32> {tosakit.name = "x"}) -> (tensor<2xi32> {tosakit.name = "y"}) {
  %0 = tosa.add %arg0, %arg0 : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}
)";

struct Dir {
  fs::path p = fs::temp_directory_path() / ("tosakit_convert_cli_" + std::to_string(::getpid()));
  Dir() { fs::create_directories(p); }
  ~Dir() { fs::remove_all(p); }
};

int tosakit(const std::string& args) {
  int rc = std::system((std::string(TOSAKIT_TOOL) + " " + args + " 2>/dev/null").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(ConvertCli, OutputFlagAndPositionalAlias) {
  Dir d;
  std::ofstream(d.p / "m.mlir") << kModel;
  const std::string in = (d.p / "m.mlir").string();
  ASSERT_EQ(tosakit("convert " + in + " -o " + (d.p / "a.spv").string()), 0);
  ASSERT_EQ(tosakit("convert " + (d.p / "a.spv").string() + " --output " + (d.p / "b.mlir").string()), 0);
  ASSERT_EQ(tosakit("convert " + in + " " + (d.p / "c.spv").string()), 0);  // the older positional form
  auto src = mlirio::importMlirFile(in);
  auto back = mlirio::importMlirFile((d.p / "b.mlir").string());
  ASSERT_TRUE(src.isOk() && back.isOk());
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(**src, **back, &why)) << why;
  EXPECT_TRUE(fs::exists(d.p / "c.spv"));
}

TEST(ConvertCli, UsageErrors) {
  Dir d;
  std::ofstream(d.p / "m.mlir") << kModel;
  const std::string in = (d.p / "m.mlir").string();
  EXPECT_EQ(tosakit("convert " + in), 2);  // no output
  EXPECT_EQ(tosakit("convert " + in + " -o " + (d.p / "x.spv").string() + " " + (d.p / "y.spv").string()), 2);
  EXPECT_FALSE(fs::exists(d.p / "x.spv"));
  EXPECT_FALSE(fs::exists(d.p / "y.spv"));
}

}  // namespace
}  // namespace tosakit
