// `tosakit run` of an imported ONNX model takes exactly the inputs ONNX Runtime takes (issue 14): int64 data
// narrowed to the i32 the TOSA function declares (range-checked), uint8 carried as i8 bits, inputs the function
// does not read (Shape's input) accepted with their shape checked; outputs written back in their ONNX element
// types unless --tosa-types. Through the user's door: tosakit import / convert / run. Expected values are
// hand-computed in the comments.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "formats/npy/npy.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

// Work files named after the running test: ctest runs this file's tests in parallel processes, which must not
// share (and overwrite) each other's models, inputs and outputs.
std::string testPath(const std::string& name) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return tempPath(std::string(t ? t->name() : "none") + "_" + name);
}
std::string writeTestFile(const std::string& name, const std::string& bytes) {
  const std::string p = testPath(name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

constexpr int kFloat = 1, kUint8 = 2, kInt64 = 7;

Pb typedInfo(const std::string& name, const std::vector<int64_t>& dims, int elemType) {
  return Pb().bytes(1, name).msg(2, tensorType(dims, elemType));
}

// x: int64[3], y: uint8[3], s: float[2,2] (read only by Shape).
// sum = x + x (int64), yy = Identity(y) (uint8), shape = Shape(s) (int64 [2, 2]).
std::string ioModel() {
  Pb g;
  g.msg(1, node({"Add", "add", {"x", "x"}, {"sum"}, {}}));
  g.msg(1, node({"Identity", "id", {"y"}, {"yy"}, {}}));
  g.msg(1, node({"Shape", "shape", {"s"}, {"shape"}, {}}));
  g.bytes(2, "io");
  g.msg(11, typedInfo("x", {3}, kInt64));
  g.msg(11, typedInfo("y", {3}, kUint8));
  g.msg(11, typedInfo("s", {2, 2}, kFloat));
  g.msg(12, typedInfo("sum", {3}, kInt64));
  g.msg(12, typedInfo("yy", {3}, kUint8));
  g.msg(12, typedInfo("shape", {2}, kInt64));
  return model(g);
}

struct Cli {
  int code = 0;
  std::string err;
};

Cli tosakit(const std::string& args) {
  std::string errFile = testPath("io_adapt_stderr.txt");
  int rc = std::system((std::string(TOSAKIT_TOOL) + " " + args + " >/dev/null 2>" + errFile).c_str());
  std::ifstream in(errFile);
  std::stringstream ss;
  ss << in.rdbuf();
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, ss.str()};
}

std::string writeInputs(const std::string& name, const NamedTensors& ts) {
  std::string p = testPath(name);
  EXPECT_TRUE(npy::writeNpz(p, ts).isOk());
  return p;
}

NamedTensors goodInputs() {
  return {{"x", Tensor::fromInts(DType::I64, {3}, {1, -2, 1000000000})},
          {"y", Tensor::fromInts(DType::U8, {3}, {0, 200, 255})},
          {"s", Tensor::fromDoubles(DType::FP32, {2, 2}, {0, 0, 0, 0})}};
}

class OnnxIoAdapt : public ::testing::Test {
 protected:
  void SetUp() override {
    onnxPath = writeTestFile("io_adapt.onnx", ioModel());
    mlir = testPath("io_adapt.mlir");
    out = testPath("io_adapt_out.npz");
    std::remove(out.c_str());
    Cli c = tosakit("import " + onnxPath + " -o " + mlir);
    ASSERT_EQ(c.code, 0) << c.err;
  }
  std::string onnxPath, mlir, out;
};

void expectOnnxOutputs(const std::string& out) {
  auto r = npy::readNpz(out);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->size(), 3u);
  // sum = 2x: [2, -4, 2000000000] as int64 (ONNX Runtime's type).
  EXPECT_EQ((*r)[0].first, "sum");
  EXPECT_EQ((*r)[0].second.dtype(), DType::I64);
  EXPECT_TRUE((*r)[0].second.identical(Tensor::fromInts(DType::I64, {3}, {2, -4, 2000000000})));
  // yy = y: [0, 200, 255] as uint8 (the i8 bits 0, -56, -1 inside).
  EXPECT_EQ((*r)[1].second.dtype(), DType::U8);
  EXPECT_TRUE((*r)[1].second.identical(Tensor::fromInts(DType::U8, {3}, {0, 200, 255})));
  // shape = [2, 2] as int64.
  EXPECT_TRUE((*r)[2].second.identical(Tensor::fromInts(DType::I64, {2}, {2, 2})));
}

TEST_F(OnnxIoAdapt, OnnxRuntimeInputsAndOutputTypes) {
  std::string in = writeInputs("io_adapt_in.npz", goodInputs());
  Cli c = tosakit("run " + mlir + " --inputs " + in + " -o " + out);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.err.find("note: input 's' is not used at run time (only its shape is read"), std::string::npos) << c.err;
  expectOnnxOutputs(out);
}

TEST_F(OnnxIoAdapt, KeptThroughSpirv) {
  std::string spv = testPath("io_adapt.spv");
  Cli conv = tosakit("convert " + mlir + " -o " + spv);
  ASSERT_EQ(conv.code, 0) << conv.err;
  std::string in = writeInputs("io_adapt_in_spv.npz", goodInputs());
  Cli c = tosakit("run " + spv + " --inputs " + in + " -o " + out);
  ASSERT_EQ(c.code, 0) << c.err;
  expectOnnxOutputs(out);
}

TEST_F(OnnxIoAdapt, TosaTypesFlag) {
  std::string in = writeInputs("io_adapt_in2.npz", goodInputs());
  Cli c = tosakit("run " + mlir + " --inputs " + in + " -o " + out + " --tosa-types");
  ASSERT_EQ(c.code, 0) << c.err;
  auto r = npy::readNpz(out);
  ASSERT_TRUE(r.isOk());
  EXPECT_EQ((*r)[0].second.dtype(), DType::I32);
  EXPECT_EQ((*r)[1].second.dtype(), DType::I8);
  EXPECT_TRUE((*r)[1].second.identical(Tensor::fromInts(DType::I8, {3}, {0, -56, -1})));  // 200 - 256, 255 - 256
}

TEST_F(OnnxIoAdapt, Int64OutOfRangeIsBadInput) {
  NamedTensors ins = goodInputs();
  ins[0].second = Tensor::fromInts(DType::I64, {3}, {0, 3000000000, int64_t(1) << 40});
  std::string in = writeInputs("io_adapt_big.npz", ins);
  Cli c = tosakit("run " + mlir + " --inputs " + in + " -o " + out);
  EXPECT_EQ(c.code, 4) << c.err;
  EXPECT_NE(c.err.find("input 'x': value 3000000000 at index 1 does not fit in int32"), std::string::npos) << c.err;
  EXPECT_FALSE(std::ifstream(out).good()) << "no output file on error";
}

TEST_F(OnnxIoAdapt, ShapeOnlyInputWithWrongShapeRefused) {
  NamedTensors ins = goodInputs();
  ins[2].second = Tensor::fromDoubles(DType::FP32, {3, 2}, {0, 0, 0, 0, 0, 0});
  std::string in = writeInputs("io_adapt_badshape.npz", ins);
  Cli c = tosakit("run " + mlir + " --inputs " + in + " -o " + out);
  EXPECT_EQ(c.code, 4) << c.err;
  EXPECT_NE(c.err.find("input 's' has shape 3x2, the model was imported with 2x2"), std::string::npos) << c.err;
}

TEST_F(OnnxIoAdapt, ShapeOnlyInputMayBeOmittedUnknownInputRefused) {
  NamedTensors ins = goodInputs();
  ins.pop_back();  // ONNX Runtime needs s; the TOSA function does not
  std::string in = writeInputs("io_adapt_nos.npz", ins);
  Cli c = tosakit("run " + mlir + " --inputs " + in + " -o " + out);
  EXPECT_EQ(c.code, 0) << c.err;
  ins.emplace_back("zz", Tensor::fromDoubles(DType::FP32, {1}, {0}));
  in = writeInputs("io_adapt_zz.npz", ins);
  c = tosakit("run " + mlir + " --inputs " + in + " -o " + out);
  EXPECT_EQ(c.code, 4) << c.err;
  EXPECT_NE(c.err.find("unknown input 'zz' (function @main takes: x, y, s)"), std::string::npos) << c.err;
}

TEST_F(OnnxIoAdapt, RecordedInTheModule) {
  std::ifstream in(mlir);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  EXPECT_NE(text.find("tosakit.onnx_type = \"int64\""), std::string::npos) << text;
  EXPECT_NE(text.find("tosakit.onnx_type = \"uint8\""), std::string::npos) << text;
  EXPECT_NE(text.find("tosakit.onnx_unused_inputs"), std::string::npos) << text;
}

// A bound input (--bind-inputs) is accepted at run time with the bound value, refused with another one.
TEST(OnnxIoAdaptBound, BoundInputCheckedAgainstItsValue) {
  // y = Reshape(x, shape): shape is bound at import.
  Pb g;
  g.msg(1, node({"Reshape", "r", {"x", "shape"}, {"y"}, {}}));
  g.bytes(2, "bound");
  g.msg(11, typedInfo("x", {2, 3}, kFloat));
  g.msg(11, typedInfo("shape", {2}, kInt64));
  g.msg(12, typedInfo("y", {3, 2}, kFloat));
  std::string onnxPath = writeTestFile("io_bound.onnx", model(g));
  std::string mlir = testPath("io_bound.mlir"), out = testPath("io_bound_out.npz");
  Tensor shape = Tensor::fromInts(DType::I64, {2}, {3, 2});
  std::string bind = writeInputs("io_bound_bind.npz", {{"shape", shape}});
  Cli c = tosakit("import " + onnxPath + " -o " + mlir + " --bind-inputs " + bind);
  ASSERT_EQ(c.code, 0) << c.err;
  Tensor x = Tensor::fromDoubles(DType::FP32, {2, 3}, {1, 2, 3, 4, 5, 6});
  c = tosakit("run " + mlir + " --inputs " + writeInputs("io_bound_in.npz", {{"x", x}, {"shape", shape}}) + " -o " +
              out);
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_NE(c.err.find("input 'shape' is not used at run time (its value was bound at import)"), std::string::npos);
  Tensor other = Tensor::fromInts(DType::I64, {2}, {2, 3});
  c = tosakit("run " + mlir + " --inputs " + writeInputs("io_bound_in2.npz", {{"x", x}, {"shape", other}}) + " -o " +
              out);
  EXPECT_EQ(c.code, 4);
  EXPECT_NE(c.err.find("input 'shape' was bound to other values at import"), std::string::npos) << c.err;
}

}  // namespace
}  // namespace tosakit::onnxtest
