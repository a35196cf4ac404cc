// Discardable per-argument/result/function attributes (Function::argAttrs/resultAttrs/attrs): kept through
// MLIR text (func arg_attrs/res_attrs dictionaries and func attributes) and SPIR-V (UserSemantic decorations
// "tosakit.attr KEY KIND PAYLOAD" on the interface variables and the graph, docs/SPIRV.md). Expected values
// are read off the hand-written MLIR below; upstream mlir-opt-22 parses our exported text when installed.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/mlir/mlir_io.h"
#include "formats/spirv/spirv_io.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;
using ir::Attribute;

// A JSON recipe with quotes, spaces, a newline and non-ASCII text: stored as a plain string attribute.
const std::string kRecipe = std::string(R"({"mean": [0.485, 0.456], "layout": "NCHW",)") + "\n" + R"( "note": "µ"})";

std::string sourceText() {
  return std::string(R"(func.func @main(%arg0: tensor<2xi32> {tosakit.name = "x", tosakit.onnx_type = "int64",
      tosakit.preprocess = "{\"mean\": [0.485, 0.456], \"layout\": \"NCHW\",\n \"note\": \"µ\"}"},
    %arg1: tensor<2xi8> {tosakit.scale = 2.500000e-01 : f32, tosakit.zp = -3 : i32, tosakit.flag = true,
      tosakit.axes = array<i64: 1, 2>, tosakit.std = dense<[1.5, -2.0]> : tensor<2xf32>,
      tosakit.unit = 0.1 : f64, tosakit.type = i8, other.dialect = unit})
    -> (tensor<2xi32> {tosakit.name = "y", tosakit.onnx_type = "int64"}, tensor<2xi8>)
    attributes {tosakit.onnx_unused_inputs = "shape_only:2x3:float32"} {
  return %arg0, %arg1 : tensor<2xi32>, tensor<2xi8>
}
)");
}

fs::path tempDir() {
  fs::path dir = fs::temp_directory_path() / ("tosakit_func_attrs_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string readFile(const fs::path& p) {
  std::ifstream is(p, std::ios::binary);
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

void expectSourceAttrs(const ir::Function& f) {
  ASSERT_NE(f.argAttr(0, "tosakit.onnx_type"), nullptr);
  EXPECT_EQ(*f.argAttr(0, "tosakit.onnx_type"), Attribute::string("int64"));
  EXPECT_EQ(*f.argAttr(0, "tosakit.preprocess"), Attribute::string(kRecipe));
  EXPECT_EQ(f.argAttr(0, "tosakit.name"), nullptr);  // the name is the value's name
  EXPECT_EQ(f.inputName(0), "x");
  EXPECT_EQ(*f.argAttr(1, "tosakit.scale"), Attribute::floating(0.25, DType::FP32));
  EXPECT_EQ(*f.argAttr(1, "tosakit.zp"), Attribute::integer(-3, DType::I32));
  EXPECT_EQ(*f.argAttr(1, "tosakit.flag"), Attribute::boolean(true));
  EXPECT_EQ(*f.argAttr(1, "tosakit.axes"), Attribute::intArray({1, 2}));
  EXPECT_EQ(*f.argAttr(1, "tosakit.std"), Attribute::dense(Tensor::fromDoubles(DType::FP32, {2}, {1.5, -2.0})));
  EXPECT_EQ(*f.argAttr(1, "tosakit.unit"), Attribute::floating(0.1, DType::FP64));
  EXPECT_EQ(*f.argAttr(1, "tosakit.type"), Attribute::type(DType::I8));
  EXPECT_EQ(f.argAttr(1, "other.dialect"), nullptr);  // a unit attribute of another dialect is discarded
  EXPECT_EQ(*f.resultAttr(0, "tosakit.onnx_type"), Attribute::string("int64"));
  EXPECT_EQ(f.resultAttr(1, "tosakit.onnx_type"), nullptr);
  ASSERT_EQ(f.attrs.count("tosakit.onnx_unused_inputs"), 1u);
  EXPECT_EQ(f.attrs.at("tosakit.onnx_unused_inputs"), Attribute::string("shape_only:2x3:float32"));
}

TEST(FuncAttrs, MlirTextRoundTrip) {
  auto m = mlirio::importMlirString(sourceText(), "attrs.mlir");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  expectSourceAttrs(*(*m)->functions[0]);
  auto text = mlirio::exportMlir(**m);
  ASSERT_TRUE(text.isOk()) << text.status().message();
  EXPECT_NE(text->find("tosakit.onnx_type = \"int64\""), std::string::npos) << *text;
  EXPECT_NE(text->find("tosakit.onnx_unused_inputs"), std::string::npos) << *text;
  auto back = mlirio::importMlirString(*text, "exported.mlir");
  ASSERT_TRUE(back.isOk()) << back.status().message();
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(**m, **back, &why)) << why;
  if (std::system("command -v mlir-opt-22 >/dev/null 2>&1") == 0) {
    fs::path p = tempDir() / "exported.mlir";
    std::ofstream(p) << *text;
    EXPECT_EQ(std::system(("mlir-opt-22 '" + p.string() + "' -o /dev/null").c_str()), 0);
    fs::remove_all(p.parent_path());
  }
}

TEST(FuncAttrs, ModulesEqualSeesAttributes) {
  auto a = mlirio::importMlirString(sourceText(), "attrs.mlir");
  auto b = mlirio::importMlirString(sourceText(), "attrs.mlir");
  ASSERT_TRUE(a.isOk() && b.isOk());
  std::string why;
  (*b)->functions[0]->setArgAttr(1, "tosakit.zp", Attribute::integer(-4, DType::I32));
  EXPECT_FALSE(ir::modulesEqual(**a, **b, &why));
  EXPECT_NE(why.find("argument attributes"), std::string::npos) << why;
  (*b)->functions[0]->setArgAttr(1, "tosakit.zp", Attribute::integer(-3, DType::I32));
  EXPECT_TRUE(ir::modulesEqual(**a, **b, &why)) << why;
  (*b)->functions[0]->attrs.clear();
  EXPECT_FALSE(ir::modulesEqual(**a, **b, &why));
  // Trailing empty dictionaries are the same as none.
  (*a)->functions[0]->attrs.clear();
  (*a)->functions[0]->resultAttrs.resize(2);
  EXPECT_TRUE(ir::modulesEqual(**a, **b, &why)) << why;
}

TEST(FuncAttrs, SpirvRoundTrip) {
  auto m = mlirio::importMlirString(sourceText(), "attrs.mlir");
  ASSERT_TRUE(m.isOk()) << m.status().message();
  auto bin = spirv::encodeSpirv(**m);
  ASSERT_TRUE(bin.isOk()) << bin.status().message();
  auto back = spirv::decodeSpirv(bin->words.data(), bin->words.size(), "attrs.spv", bin->sidecar);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  expectSourceAttrs(*(*back)->functions[0]);
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(**m, **back, &why)) << why;
}

TEST(FuncAttrs, SpirvExactFloatsAndTensors) {
  auto m = mlirio::importMlirString(sourceText(), "attrs.mlir");
  ASSERT_TRUE(m.isOk());
  ir::Function& f = *(*m)->functions[0];
  // 0.1 is not exact in binary: the hexadecimal float text keeps every bit; NaN and -0 survive too.
  f.setResultAttr(1, "tosakit.scale", Attribute::floating(0.1, DType::FP64));
  f.setResultAttr(1, "tosakit.neg_zero", Attribute::floating(-0.0, DType::FP32));
  f.setResultAttr(1, "tosakit.bf16", Attribute::dense(Tensor::fromDoubles(DType::BF16, {2, 1}, {1.0, -3.5})));
  f.setResultAttr(1, "tosakit.scalar", Attribute::dense(Tensor::fromInts(DType::I8, {}, {-7})));
  f.setResultAttr(1, "tosakit.empty", Attribute::dense(Tensor::fromInts(DType::I32, {0}, {})));
  f.setResultAttr(1, "tosakit.enum", Attribute::enumCase("DOUBLE_ROUND"));
  f.setResultAttr(1, "tosakit.bools", Attribute::boolArray({1, 0, 1}));
  auto bin = spirv::encodeSpirv(**m);
  ASSERT_TRUE(bin.isOk()) << bin.status().message();
  auto back = spirv::decodeSpirv(bin->words.data(), bin->words.size(), "attrs.spv", bin->sidecar);
  ASSERT_TRUE(back.isOk()) << back.status().message();
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(**m, **back, &why)) << why;
  EXPECT_TRUE(std::signbit((*back)->functions[0]->resultAttr(1, "tosakit.neg_zero")->f));
}

TEST(FuncAttrs, SpirvRefusesUnencodableAndMalformed) {
  auto m = mlirio::importMlirString(sourceText(), "attrs.mlir");
  ASSERT_TRUE(m.isOk());
  ir::Function& f = *(*m)->functions[0];
  f.setArgAttr(0, "tosakit.nul", Attribute::string(std::string("a\0b", 3)));
  auto bin = spirv::encodeSpirv(**m);
  ASSERT_FALSE(bin.isOk());
  EXPECT_EQ(bin.status().code(), StatusCode::Unsupported);
  EXPECT_NE(bin.status().message().find("tosakit.nul"), std::string::npos) << bin.status().message();
  f.argAttrs[0].erase("tosakit.nul");
  // Corrupt the kind of one decoration: the reader reports a parse error naming the attribute.
  bin = spirv::encodeSpirv(**m);
  ASSERT_TRUE(bin.isOk());
  std::string bytes(reinterpret_cast<const char*>(bin->words.data()), bin->words.size() * 4);
  size_t at = bytes.find("tosakit.attr tosakit.zp int:");
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at + std::strlen("tosakit.attr tosakit.zp "), 3, "qqq");
  std::vector<uint32_t> words(bin->words.size());
  std::memcpy(words.data(), bytes.data(), bytes.size());
  auto back = spirv::decodeSpirv(words.data(), words.size(), "bad.spv", bin->sidecar);
  ASSERT_FALSE(back.isOk());
  EXPECT_EQ(back.status().code(), StatusCode::ParseError);
  EXPECT_NE(back.status().message().find("tosakit.zp"), std::string::npos) << back.status().message();
}

// The user's door: `tosakit convert` MLIR -> SPIR-V -> MLIR keeps the attributes.
TEST(FuncAttrs, ConvertVerbKeepsThem) {
  fs::path dir = tempDir();
  std::ofstream(dir / "in.mlir") << sourceText();
  std::string tool = TOSAKIT_TOOL;
  std::string a = (dir / "in.mlir").string(), b = (dir / "m.spv").string(), c = (dir / "out.mlir").string();
  ASSERT_EQ(std::system((tool + " convert '" + a + "' -o '" + b + "'").c_str()), 0);
  ASSERT_EQ(std::system((tool + " convert '" + b + "' -o '" + c + "'").c_str()), 0);
  auto src = mlirio::importMlirFile(a);
  auto out = mlirio::importMlirFile(c);
  ASSERT_TRUE(src.isOk() && out.isOk()) << out.status().message();
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(**src, **out, &why)) << why;
  EXPECT_NE(readFile(c).find("tosakit.preprocess"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tosakit
