// .tosa (TOSA flatbuffer) through the CLI: convert both ways, run from .tosa gives the same outputs as from
// .mlir, dis prints it; hostile .tosa files (truncated, wrong identifier, offsets out of range, a 4 TB
// constant in 304 bytes) are exit 4 with one line naming the file and no output file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_test_util.h"
#include "formats/npy/npy.h"

namespace fs = std::filesystem;

namespace {

using tosakit::testing::CmdResult;
using tosakit::testing::runTool;

class TosaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
        ("tosakit_tosafb_cli_" + std::to_string(::getpid()) + "_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    write("add.mlir", R"(func.func @main(%x: tensor<2x2xi32> loc("x")) -> tensor<2x2xi32> {
  %c = "tosa.const"() <{values = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
  %y = tosa.add %x, %c : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32> loc("sum")
  return %y : tensor<2x2xi32>
}
)");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& n) const { return (dir_ / n).string(); }
  void write(const std::string& n, const std::string& text) const { std::ofstream(dir_ / n, std::ios::binary) << text; }
  std::string read(const std::string& n) const {
    std::ifstream is(dir_ / n, std::ios::binary);
    std::ostringstream ss;
    ss << is.rdbuf();
    return ss.str();
  }
  fs::path dir_;
};

void expectBadFile(const CmdResult& r, const std::string& file, const std::string& what) {
  EXPECT_EQ(r.exitCode, 4) << what << ": " << r.out;
  EXPECT_NE(r.out.find(file), std::string::npos) << what << ": " << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << what << ": " << r.out;
}

TEST_F(TosaCli, ConvertRunAndDis) {
  ASSERT_EQ(runTool("convert " + path("add.mlir") + " -o " + path("add.tosa")).exitCode, 0);
  ASSERT_EQ(runTool("gen-data --model " + path("add.mlir") + " -o " + path("in.npz")).exitCode, 0);
  for (const char* backend : {"ref", "fast"}) {
    std::string b = std::string(" --backend ") + backend;
    CmdResult a = runTool("run " + path("add.mlir") + " --inputs " + path("in.npz") + " -o " + path("a.npz") + b);
    CmdResult t = runTool("run " + path("add.tosa") + " --inputs " + path("in.npz") + " -o " + path("t.npz") + b);
    ASSERT_EQ(a.exitCode, 0) << a.out;
    ASSERT_EQ(t.exitCode, 0) << t.out;
    auto fromMlir = tosakit::npy::readNpz(path("a.npz"));
    auto fromTosa = tosakit::npy::readNpz(path("t.npz"));
    ASSERT_TRUE(fromMlir.isOk() && fromTosa.isOk());
    ASSERT_EQ(fromMlir->size(), 1u);
    ASSERT_EQ(fromTosa->size(), 1u);
    EXPECT_EQ((*fromMlir)[0].first, (*fromTosa)[0].first);
    EXPECT_TRUE((*fromMlir)[0].second.identical((*fromTosa)[0].second)) << backend;
  }
  EXPECT_EQ(runTool("validate " + path("add.tosa")).exitCode, 0);
  ASSERT_EQ(runTool("convert " + path("add.tosa") + " -o " + path("back.mlir")).exitCode, 0);
  EXPECT_NE(read("back.mlir").find("tosa.add"), std::string::npos);
  CmdResult dis = runTool("dis " + path("add.tosa"));
  EXPECT_EQ(dis.exitCode, 0) << dis.out;
  EXPECT_NE(dis.out.find("ADD(x, "), std::string::npos) << dis.out;
  EXPECT_NE(dis.out.find("INT32[2x2] data 16 B [1, 2, 3, 4]"), std::string::npos) << dis.out;
}

// An independent decoder: Debian's flatc turns the binary back into JSON with tosakit's schema.
TEST_F(TosaCli, FlatcDecodesTheFile) {
  if (std::system("flatc --version > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "flatc (flatbuffers-compiler) not installed";
  ASSERT_EQ(runTool("convert " + path("add.mlir") + " -o " + path("add.tosa")).exitCode, 0);
  std::string schema = std::string(TOSAKIT_SOURCE_DIR) + "/src/formats/tosafb/tosa.fbs";
  std::string cmd = "flatc --json --strict-json --raw-binary -o " + dir_.string() + " " + schema + " -- " +
      path("add.tosa") + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string json = read("add.json");
  std::string flat;  // whitespace removed
  for (char c : json)
    if (!std::isspace(static_cast<unsigned char>(c))) flat += c;
  EXPECT_NE(flat.find(R"("_major":1,"_minor":0)"), std::string::npos) << json;
  EXPECT_NE(flat.find(R"("op":"ADD","attribute_type":"AddAttribute")"), std::string::npos) << json;
  EXPECT_NE(flat.find(R"("inputs":["x","t"],"outputs":["sum"])"), std::string::npos) << json;
  // The constant [[1,2],[3,4]] as INT32 little endian.
  EXPECT_NE(flat.find(R"("shape":[2,2],"type":"INT32","data":[1,0,0,0,2,0,0,0,3,0,0,0,4,0,0,0])"), std::string::npos)
      << json;
}

// The bundled real models: PaddleOCR's classifier imported to .tosa converts back to exactly the MLIR the
// direct import writes, and its INT8 quantization from and to .tosa too; the default model and SPIR-V
// (.spv -> .tosa -> .spv) come back byte for byte.
TEST_F(TosaCli, RealModelsRoundTrip) {
  std::string models = std::string(TOSAKIT_SOURCE_DIR) + "/models/";
  std::string imp = "import " + models + "ppocr_cls/model.onnx --input-shape x=1x3x48x192 -o ";
  ASSERT_EQ(runTool(imp + path("cls.mlir")).exitCode, 0);
  ASSERT_EQ(runTool(imp + path("cls.tosa")).exitCode, 0);
  ASSERT_EQ(runTool("convert " + path("cls.tosa") + " -o " + path("cls_back.mlir")).exitCode, 0);
  EXPECT_EQ(read("cls.mlir"), read("cls_back.mlir"));
  ASSERT_EQ(runTool("calibrate " + path("cls.tosa") + " --dataset " + models + "ppocr_cls/calib --input-num 2 -o " +
                    path("cali.txt"))
                .exitCode,
            0);
  std::string q = " --quantize INT8 --calibration-table " + path("cali.txt") + " -o ";
  ASSERT_EQ(runTool("quantize " + path("cls.mlir") + q + path("q.mlir")).exitCode, 0);
  ASSERT_EQ(runTool("quantize " + path("cls.tosa") + q + path("q.tosa")).exitCode, 0);
  ASSERT_EQ(runTool("convert " + path("q.tosa") + " -o " + path("q_back.mlir")).exitCode, 0);
  EXPECT_EQ(read("q.mlir"), read("q_back.mlir"));
  std::string def = models + "default/model.mlir";
  ASSERT_EQ(runTool("convert " + def + " -o " + path("d.spv")).exitCode, 0);
  ASSERT_EQ(runTool("convert " + path("d.spv") + " -o " + path("d.tosa")).exitCode, 0);
  ASSERT_EQ(runTool("convert " + path("d.tosa") + " -o " + path("d_back.spv")).exitCode, 0);
  EXPECT_EQ(read("d.spv"), read("d_back.spv"));
}

TEST_F(TosaCli, HostileFilesAreExit4) {
  ASSERT_EQ(runTool("convert " + path("add.mlir") + " -o " + path("add.tosa")).exitCode, 0);
  std::string good = read("add.tosa");
  write("truncated.tosa", good.substr(0, good.size() / 2));
  std::string wrongId = good;
  wrongId.replace(4, 4, "TFL3");
  write("wrong_id.tosa", wrongId);
  std::string farRoot = good;
  farRoot.replace(0, 4, std::string("\xf0\xff\xff\x7f", 4));  // root table offset past the end
  write("far_root.tosa", farRoot);
  for (const char* f : {"truncated.tosa", "wrong_id.tosa", "far_root.tosa"}) {
    expectBadFile(runTool("validate " + path(f)), f, std::string("validate ") + f);
    expectBadFile(runTool("dis " + path(f)), f, std::string("dis ") + f);
    expectBadFile(runTool("convert " + path(f) + " -o " + path("out.mlir")), f, std::string("convert ") + f);
    EXPECT_FALSE(fs::exists(path("out.mlir"))) << f;
  }
  // tests/fuzz/regressions/const_4tb.tosa: flatc -b of const_4tb.tosa.json, an FP32[100000x100000x100]
  // constant (4e12 bytes) holding 4 bytes of data.
  std::string hostile = std::string(TOSAKIT_SOURCE_DIR) + "/tests/fuzz/regressions/const_4tb.tosa";
  CmdResult r = runTool("run " + hostile + " -o " + path("o.npz"));
  expectBadFile(r, "const_4tb.tosa", "run const_4tb");
  EXPECT_NE(r.out.find("4000000000000"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("o.npz")));
}

}  // namespace
