// tosakit cut on models/default/model.mlir (an int8 conv2d -> rescale -> clamp and an fp32 conv2d -> add):
// the subgraph run on the original's intermediates dump reproduces the original outputs (bit for bit for the
// integer part); bad names are one-line errors and leave no file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "../cli/cli_test_util.h"
#include "formats/npy/npy.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"

namespace fs = std::filesystem;

namespace tosakit {
namespace {

const std::string kSource = TOSAKIT_SOURCE_DIR;
const std::string kModel = kSource + "/models/default/model.mlir";
const std::string kInputs = kSource + "/models/default/inputs.npz";

class Cut : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(TOSAKIT_BINARY_DIR) / "inspect-tests" /
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    auto r = testing::runTool("run " + kModel + " --backend ref --inputs " + kInputs + " -o " + path("out.npz") +
                              " --dump-intermediates " + path("layers.npz"));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    auto layers = npy::readNpz(path("layers.npz"));
    ASSERT_TRUE(layers) << layers.status().toString();
    for (auto& [name, t] : *layers) layerNames_.push_back(name);
  }
  std::string path(const std::string& f) const { return (dir_ / f).string(); }
  // The dump's name of the first layer whose name starts with `prefix` ("rescale_" + value id: the default model's
  // ops have no location names).
  std::string layer(const std::string& prefix, int nth = 0) const {
    for (const auto& n : layerNames_)
      if (n.rfind(prefix, 0) == 0 && nth-- == 0) return n;
    ADD_FAILURE() << "no layer " << prefix;
    return {};
  }
  Tensor tensor(const std::string& file, const std::string& name) const {
    auto ts = npy::readNpz(path(file));
    EXPECT_TRUE(ts) << ts.status().toString();
    for (auto& [n, t] : *ts)
      if (n == name) return t;
    ADD_FAILURE() << file << " has no " << name;
    return Tensor();
  }

  fs::path dir_;
  std::vector<std::string> layerNames_;
};

TEST_F(Cut, IntegerTailIsBitIdentical) {
  const std::string rescale = layer("rescale_");
  auto r = testing::runTool("cut " + kModel + " --inputs " + rescale + " --outputs out0 -o " + path("sub.mlir"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  auto sub = loadModel(path("sub.mlir"));
  ASSERT_TRUE(sub) << sub.status().toString();
  const ir::Function& fn = *(*sub)->functions.front();
  ASSERT_EQ(fn.inputs().size(), 1u);
  EXPECT_EQ(fn.inputName(0), rescale);
  // Only the clamp (and its return) is left: the convs, the rescale and every constant are dropped.
  ASSERT_EQ(fn.body.ops.size(), 2u);
  EXPECT_EQ(fn.body.ops[0]->name, "tosa.clamp");
  for (const std::string backend : {"ref", "fast"}) {
    r = testing::runTool("run " + path("sub.mlir") + " --backend " + backend + " --inputs " + path("layers.npz") +
                         " -o " + path("sub_out.npz"));
    ASSERT_EQ(r.exitCode, 0) << r.out;
    EXPECT_TRUE(tensor("sub_out.npz", "out0").identical(tensor("out.npz", "out0"))) << backend;
  }
}

TEST_F(Cut, IntegerFromTheConvAccumulatorIsBitIdentical) {
  const std::string conv = layer("conv2d_");
  auto r = testing::runTool("cut " + kModel + " --inputs " + conv + " --outputs out0 -o " + path("sub.spv"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  r = testing::runTool("run " + path("sub.spv") + " --inputs " + path("layers.npz") + " -o " + path("sub_out.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  EXPECT_TRUE(tensor("sub_out.npz", "out0").identical(tensor("out.npz", "out0")));
}

TEST_F(Cut, FloatTailWithinTolerance) {
  const std::string conv = layer("conv2d_", 1);  // the fp32 conv
  auto r = testing::runTool("cut " + kModel + " --inputs " + conv + ",y --outputs out1 -o " + path("sub.mlir"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  // The bundle: the dump (for the conv result) and the model's own inputs (for y, an original input).
  auto layers = npy::readNpz(path("layers.npz"));
  ASSERT_TRUE(layers);
  auto originals = npy::readNpz(kInputs);
  ASSERT_TRUE(originals);
  npy::NamedTensors bundle = *layers;
  for (auto& [n, t] : *originals) bundle.emplace_back(n, t);
  ASSERT_TRUE(npy::writeNpz(path("bundle.npz"), bundle));
  r = testing::runTool("run " + path("sub.mlir") + " --inputs " + path("bundle.npz") + " -o " + path("sub_out.npz"));
  ASSERT_EQ(r.exitCode, 0) << r.out;
  Tensor got = tensor("sub_out.npz", "out1"), want = tensor("out.npz", "out1");
  ASSERT_EQ(got.size(), want.size());
  for (int64_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got.getFloat(i), want.getFloat(i), 1e-6 * (1 + std::fabs(want.getFloat(i)))) << i;
}

TEST_F(Cut, UnknownNameIsAOneLineErrorWithoutOutput) {
  auto r = testing::runTool("cut " + kModel + " --inputs nosuch --outputs out0 -o " + path("sub.mlir"));
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find("'nosuch'"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("sub.mlir")));
}

TEST_F(Cut, OutputNeedingAnUngivenInputIsAnError) {
  const std::string rescale = layer("rescale_");
  auto r = testing::runTool("cut " + kModel + " --inputs " + rescale + " --outputs out0,out1 -o " + path("sub.mlir"));
  EXPECT_EQ(r.exitCode, 4) << r.out;
  EXPECT_NE(r.out.find("output 'out1' depends on function input"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("sub.mlir")));
}

TEST_F(Cut, NameInsideAControlFlowRegionIsUnsupported) {
  const std::string cf = kSource + "/tests/data/mlir/control_flow.mlir";
  auto r = testing::runTool("cut " + cf + " --function select_add_sub --inputs then_add --outputs out0 -o " +
                            path("sub.mlir"));
  EXPECT_EQ(r.exitCode, 5) << r.out;
  EXPECT_NE(r.out.find("control-flow region"), std::string::npos) << r.out;
  // Cutting around the cond_if keeps its regions whole.
  r = testing::runTool("cut " + cf + " --function select_add_sub --inputs arg0,arg1,arg2 --outputs out0 -o " +
                       path("sub.mlir"));
  EXPECT_EQ(r.exitCode, 0) << r.out;
}

}  // namespace
}  // namespace tosakit
