// prepareInputs, the one front door for a function's inputs (include/tosakit/inputs.h): every source (an .npz,
// NAME=.npy files, tensors in memory) gets the same adaptation, and an error names the file the tensor came
// from. Expected values are written here by hand from the conventions in include/tosakit/npz.h and
// include/tosakit/io_adapt.h.
#include "tosakit/inputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tosakit/model_io.h"
#include "tosakit/npz.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;

fs::path dir() {
  fs::path d = fs::path(TOSAKIT_BINARY_DIR) / "formats-tests" / "inputs";
  fs::create_directories(d);
  return d;
}

// @main(x: 2xi32 recorded as ONNX int64, b: 2xbf16) -> x.
std::unique_ptr<ir::Module> model() {
  const std::string path = (dir() / "m.mlir").string();
  std::ofstream(path) << R"(func.func @main(%x: tensor<2xi32> {tosakit.name = "x", tosakit.onnx_type = "int64"},
    %b: tensor<2xbf16> {tosakit.name = "b"}) -> tensor<2xi32> {
  return %x : tensor<2xi32>
}
)";
  auto m = loadModel(path);
  EXPECT_TRUE(m.isOk()) << m.status().message();
  return m ? std::move(*m) : nullptr;
}

std::string npz(const std::string& name, const NamedTensors& tensors) {
  std::string path = (dir() / name).string();
  EXPECT_TRUE(npy::writeNpz(path, tensors).isOk());
  return path;
}

TEST(PrepareInputs, EverySourceIsAdaptedToTheArguments) {
  auto m = model();
  ASSERT_TRUE(m);
  const ir::Function& fn = *m->function("main");
  // int64 (ONNX Runtime's type) -> i32; uint16 bit patterns -> bf16: 0x3F80 = 1.0, 0xC000 = -2.0.
  InputSources s = InputSources::fromNpz(npz("in.npz", {{"x", Tensor::fromInts(DType::I64, {2}, {7, -8})}}));
  s.tensors.emplace_back("b", Tensor::fromInts(DType::U16, {2}, {0x3F80, 0xC000}));
  auto p = prepareInputs(fn, s);
  ASSERT_TRUE(p.isOk()) << p.status().message();
  ASSERT_EQ(p->tensors.size(), 2u);
  EXPECT_EQ(p->tensors[0].first, "x");
  EXPECT_EQ(p->tensors[0].second.dtype(), DType::I32);
  EXPECT_EQ(p->tensors[0].second.getInt(1), -8);
  EXPECT_EQ(p->tensors[1].second.dtype(), DType::BF16);
  EXPECT_EQ(p->tensors[1].second.getFloat(0), 1.0);
  EXPECT_EQ(p->tensors[1].second.getFloat(1), -2.0);
}

TEST(PrepareInputs, ErrorsNameTheFileAndInput) {
  auto m = model();
  ASSERT_TRUE(m);
  const ir::Function& fn = *m->function("main");
  // 2^31 does not fit the i32 the model carries the int64 input as.
  std::string big = npz("big.npz", {{"x", Tensor::fromInts(DType::I64, {2}, {0, int64_t(1) << 31})}});
  auto r = prepareInputs(fn, InputSources::fromNpz(big));
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument);
  EXPECT_EQ(r.status().message().rfind(big + ": input 'x'", 0), 0u) << r.status().message();
  // An unknown name, from a .npy given by name: the file is named and the inputs the function takes listed.
  std::string npyPath = (dir() / "z.npy").string();
  ASSERT_TRUE(npy::writeNpy(npyPath, Tensor::fromInts(DType::I64, {2}, {1, 2})).isOk());
  InputSources named;
  named.files.emplace_back("z", npyPath);
  r = prepareInputs(fn, named);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(r.status().message().find(npyPath + ": unknown input 'z' (function @main takes: x, b)"), std::string::npos)
      << r.status().message();
  // The same name from two sources.
  InputSources twice = InputSources::fromNpz(npz("x.npz", {{"x", Tensor::fromInts(DType::I64, {2}, {1, 2})}}));
  twice.tensors.emplace_back("x", Tensor::fromInts(DType::I32, {2}, {1, 2}));
  r = prepareInputs(fn, twice);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("input 'x' given twice"), std::string::npos) << r.status().message();
  // A bf16 argument cannot be given as float64 (the convention carries it as uint16 bits).
  r = prepareInputs(fn, InputSources::fromTensors({{"b", Tensor::fromDoubles(DType::FP64, {2}, {1, 2})}}));
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("input 'b'"), std::string::npos) << r.status().message();
}

TEST(PrepareInputs, SamplesAndSyntheticData) {
  auto m = model();
  ASSERT_TRUE(m);
  const ir::Function& fn = *m->function("main");
  // A two-input function takes .npz samples only.
  auto one = loadSample((dir() / "z.npy").string(), fn);
  ASSERT_FALSE(one.isOk());
  EXPECT_EQ(one.status().code(), StatusCode::InvalidArgument);
  auto sample = loadSample(npz("s.npz", {{"x", Tensor::fromInts(DType::I64, {2}, {3, 4})}}), fn);
  ASSERT_TRUE(sample.isOk()) << sample.status().message();
  EXPECT_EQ((*sample)[0].second.dtype(), DType::I32);
  // Synthetic data: the declared types, floats within [-1, 1], the same values for the same seed.
  auto a = syntheticInputs(fn), b = syntheticInputs(fn);
  ASSERT_TRUE(a.isOk() && b.isOk());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[1].second.dtype(), DType::BF16);
  for (int64_t i = 0; i < 2; ++i) {
    EXPECT_LE(std::abs((*a)[1].second.getFloat(i)), 1.0);
    EXPECT_EQ((*a)[0].second.getInt(i), (*b)[0].second.getInt(i));
  }
}

}  // namespace
}  // namespace tosakit
