// A model built with tosakit::lang through the user's other door, the CLI: `tosakit validate` and
// `tosakit run` take the saved file; u8 inputs and outputs are uint8 .npy data (the graph records them).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "formats/npy/npy.h"
#include "tosakit/lang.h"

using namespace tosakit;

namespace {

TEST(LangCli, SavedModelRunsWithTheCliOnUint8Data) {
  lang::Graph g;
  lang::Var x = g.input("x", DType::U8, {2, 4});
  lang::Var y = g.muls_shift(x, 3, 1, DType::U8);  // (3 x + 1) >> 1, saturated to u8
  g.output(y, "y");
  ASSERT_TRUE(g.compile().isOk());
  const std::string dir = testing::TempDir() + "/lang_cli";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(g.save(dir + "/m.mlir").isOk());
  Tensor in = Tensor::fromInts(DType::U8, {2, 4}, {0, 1, 2, 3, 100, 169, 170, 255});
  ASSERT_TRUE(npy::writeNpy(dir + "/x.npy", in).isOk());
  const std::string tool = TOSAKIT_TOOL;
  ASSERT_EQ(std::system((tool + " validate " + dir + "/m.mlir > /dev/null").c_str()), 0);
  std::string cmd = tool + " run " + dir + "/m.mlir --input x=" + dir + "/x.npy -o " + dir + "/out.npz";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  auto out = npy::readNpz(dir + "/out.npz");
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  const Tensor& t = (*out)[0].second;
  EXPECT_EQ(t.dtype(), DType::U8);
  // Hand-computed: (3 x) rounding>> 1 = floor((3 x + 1) / 2), saturated at 255.
  EXPECT_EQ(t.toInts(), (std::vector<int64_t>{0, 2, 3, 5, 150, 254, 255, 255}));
}

}  // namespace
