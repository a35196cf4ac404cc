// SPIR-V TOSA.001000.1 writer/reader: encoding facts from the specs (magic, opcodes, instruction numbers),
// names and sidecar constants, export errors, and malformed binaries (ParseError "FILE: word N: ...").
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>

#include "formats/npy/npy.h"
#include "formats/spirv/spirv_io.h"
#include "formats/spirv/spirv_tosa_table.h"
#include "ir/builder.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;
using ir::ValueType;

fs::path tempDir() {
  fs::path d = fs::temp_directory_path() / ("tosakit_spirv_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

// add(x, y) -> "sum"; x, y: tensor<2x3xf32> named "x", "y".
std::unique_ptr<ir::Module> addModule() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::FP32, {2, 3}), "x");
  ir::Value* y = b.input(ValueType::tensor(DType::FP32, {2, 3}), "y");
  ir::Value* s = b.add(x, y, "sum");
  b.output({s}, {"result"});
  return m;
}

std::vector<uint32_t> encode(const ir::Module& m) {
  auto bin = spirv::encodeSpirv(m);
  EXPECT_TRUE(bin.isOk()) << bin.status().message();
  return bin.isOk() ? bin->words : std::vector<uint32_t>{};
}

Result<std::unique_ptr<ir::Module>> decode(const std::vector<uint32_t>& w) {
  return spirv::decodeSpirv(w.data(), w.size(), "t.spv", {});
}

// Facts read off spirv-tosa-001000-1.txt by hand: 66 instructions numbered 0..65; CONV2D is 2 with operands
// pad, stride, dilation, acc_type, local_bound, input, weight, bias, input_zp, weight_zp; CONCAT is 54 with
// axis then a list of tensors; RESCALE is 65.
TEST(SpirvIo, GeneratedTableMatchesSpec) {
  const auto& t = spirv::tosaInstructions();
  ASSERT_EQ(t.size(), 66u);
  for (size_t i = 0; i < t.size(); ++i) EXPECT_EQ(t[i].number, i);
  const spirv::SpvInstrDesc* conv = spirv::instrByIrName("tosa.conv2d");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->number, 2u);
  EXPECT_EQ(conv->numAttrs, 5);
  std::vector<std::string> names;
  for (const auto& o : conv->operands) names.push_back(o.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"pad", "stride", "dilation", "acc_type", "local_bound", "input", "weight", "bias",
                                      "input_zp", "weight_zp"}));
  EXPECT_TRUE(conv->operands[8].mustBeConstant);
  const spirv::SpvInstrDesc* concat = spirv::instrByNumber(54);
  ASSERT_NE(concat, nullptr);
  EXPECT_EQ(concat->irName, "tosa.concat");
  EXPECT_EQ(concat->operands.back().kind, spirv::SpvOperandKind::TensorList);
  EXPECT_EQ(spirv::instrByNumber(65)->irName, "tosa.rescale");
  EXPECT_EQ(spirv::instrByIrName("tosa.cond_if"), nullptr);
  EXPECT_EQ(spirv::enumValue("rounding_mode", "DOUBLE_ROUND"), 3u);
}

TEST(SpirvIo, HeaderAndAddInstruction) {
  auto w = encode(*addModule());
  ASSERT_GE(w.size(), 5u);
  EXPECT_EQ(w[0], 0x07230203u);  // SPIR-V magic
  EXPECT_EQ(w[1], 0x00010600u);  // version 1.6
  EXPECT_EQ(w[4], 0u);           // schema
  // Find OpExtInst (opcode 12): ADD is instruction 14 of TOSA.001000.1 with operands input1, input2.
  bool found = false;
  for (size_t i = 5; i < w.size(); i += w[i] >> 16) {
    if ((w[i] & 0xffff) == 12) {
      EXPECT_EQ(w[i] >> 16, 7u);  // opcode word + type, id, set, number, input1, input2
      EXPECT_EQ(w[i + 4], 14u);
      found = true;
    }
    if ((w[i] & 0xffff) == 4183) {
      EXPECT_EQ(w[i] >> 16, 3u);  // OpGraphARM: 3 words
    }
  }
  EXPECT_TRUE(found);
}

TEST(SpirvIo, NamesAndSidecarRoundTrip) {
  ir::Module m;
  ir::Builder b(m, "net");
  ir::Value* x = b.input(ValueType::tensor(DType::I32, {100}), "in");
  std::vector<int64_t> vals(100);
  for (int i = 0; i < 100; ++i) vals[size_t(i)] = i * 7 - 300;
  ir::Value* c = b.constant(Tensor::fromInts(DType::I32, {100}, vals), "big");
  ir::Value* s = b.add(x, c, "plus");
  b.output({s}, {"y"});
  fs::path p = tempDir() / "names.spv";
  ASSERT_TRUE(spirv::writeSpirv(m, p.string()).isOk());
  ASSERT_TRUE(fs::exists(p.string() + ".npz"));  // 100 > 64 elements: OpGraphConstantARM + sidecar
  auto z = npy::readNpz(p.string() + ".npz");
  ASSERT_TRUE(z.isOk());
  ASSERT_EQ(z->size(), 1u);
  EXPECT_EQ((*z)[0].first, "0");  // keyed by GraphConstantID
  auto back = spirv::readSpirv(p.string());
  ASSERT_TRUE(back.isOk()) << back.status().message();
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(m, **back, &why)) << why;
  const ir::Function& f = *(*back)->functions[0];
  EXPECT_EQ(f.name, "net");
  EXPECT_EQ(f.inputName(0), "in");
  EXPECT_EQ(f.outputName(0), "y");
  // Without the sidecar, the graph constant cannot be resolved: a clear error, not a crash.
  fs::remove(p.string() + ".npz");
  auto missing = spirv::readSpirv(p.string());
  ASSERT_FALSE(missing.isOk());
  EXPECT_NE(missing.status().message().find("sidecar"), std::string::npos) << missing.status().message();
}

TEST(SpirvIo, CondIfHasNoInstruction) {
  ir::Module m;
  ir::Builder b(m, "main");
  ir::Value* c = b.input(ValueType::tensor(DType::Bool, {}), "c");
  ir::Operation& op =
      b.create("tosa.cond_if", {c}, {ValueType::tensor(DType::FP32, {1})}, {}, ir::Location{"branch", "", 0, 0});
  b.output({op.results[0]});
  auto bin = spirv::encodeSpirv(m);
  ASSERT_FALSE(bin.isOk());
  EXPECT_EQ(bin.status().code(), StatusCode::Unsupported);
  EXPECT_NE(bin.status().message().find("tosa.cond_if 'branch': no instruction in TOSA.001000.1"), std::string::npos)
      << bin.status().message();
}

TEST(SpirvIo, VariablesHaveNoInstruction) {
  auto m = addModule();
  m->variables.push_back(ir::Variable{"state", ValueType::tensor(DType::FP32, {1}), std::nullopt, {}});
  auto bin = spirv::encodeSpirv(*m);
  ASSERT_FALSE(bin.isOk());
  EXPECT_NE(bin.status().message().find("tosa.variable 'state'"), std::string::npos);
}

void expectParseError(const std::vector<uint32_t>& w, const std::string& fragment) {
  auto r = decode(w);
  ASSERT_FALSE(r.isOk()) << "expected: " << fragment;
  EXPECT_EQ(r.status().code(), StatusCode::ParseError);
  EXPECT_NE(r.status().message().find("t.spv: word "), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status().message();
}

// Index of the first instruction with `opcode`.
size_t findOp(const std::vector<uint32_t>& w, uint32_t opcode) {
  for (size_t i = 5; i < w.size(); i += w[i] >> 16)
    if ((w[i] & 0xffff) == opcode) return i;
  return 0;
}

TEST(SpirvIo, MalformedBinaries) {
  const auto good = encode(*addModule());
  ASSERT_TRUE(decode(good).isOk());
  {
    auto w = good;
    w[0] = 0x12345678;
    expectParseError(w, "bad magic");
  }
  {
    auto w = good;
    w.resize(3);
    expectParseError(w, "too short");
  }
  {
    auto w = good;
    w.back() = (2u << 16) | 4186u;
    expectParseError(w, "past the end");
  }  // OpGraphEndARM claims 2 words
  {
    auto w = good;
    w.pop_back();
    expectParseError(w, "graph without OpGraphEndARM");
  }
  {
    auto w = good;
    w[3] = 2;
    expectParseError(w, "out of range");
  }  // bound too small for the ids used
  {
    auto w = good;
    w[5] = 0;
    expectParseError(w, "word count 0");
  }
  {
    auto w = good;
    size_t i = findOp(w, 12);
    w[i + 4] = 999;
    expectParseError(w, "unknown TOSA.001000.1 instruction 999");
  }
  {
    auto w = good;
    size_t i = findOp(w, 12);
    w[i + 5] = w[i + 2];
    expectParseError(w, "before its definition");
  }
  {  // an OpExtInst with one operand too few: ADD needs input1, input2
    auto w = good;
    size_t i = findOp(w, 12);
    w[i] = (6u << 16) | 12u;
    w.erase(w.begin() + long(i) + 6);
    expectParseError(w, "expected 2 operands, got 1");
  }
  {  // remove the OpGraphSetOutputARM: a graph needs at least one output
    auto w = good;
    size_t i = findOp(w, 4185);
    w.erase(w.begin() + long(i), w.begin() + long(i + (w[i] >> 16)));
    expectParseError(w, "no OpGraphSetOutputARM");
  }
  {  // a second entry point with the same name
    auto w = good;
    size_t i = findOp(w, 4182);
    std::vector<uint32_t> dup(w.begin() + long(i), w.begin() + long(i + (w[i] >> 16)));
    w.insert(w.begin() + long(i), dup.begin(), dup.end());
    expectParseError(w, "duplicate entry point name 'main'");
  }
}

TEST(SpirvIo, SemanticErrors) {
  const auto good = encode(*addModule());
  {  // the import names another instruction set
    auto w = good;
    size_t i = findOp(w, 11);
    w[i + 2] ^= 0x20;  // "TOSA..." -> "tOSA..."
    expectParseError(w, "unknown extended instruction set 'tOSA.001000.1'");
  }
  {  // the second OpGraphInputARM reuses the first one's InputIndex
    auto w = good;
    size_t i = findOp(w, 4184);
    size_t j = i + (w[i] >> 16);
    ASSERT_EQ(w[j] & 0xffff, 4184u);
    w[j + 3] = w[i + 3];
    expectParseError(w, "duplicate input index");
  }
  {  // ADD's input1 pointed at a type id instead of a tensor value
    auto w = good;
    size_t i = findOp(w, 12);
    w[i + 5] = w[i + 1];  // the result type id
    expectParseError(w, "not defined in this graph");
  }
  {  // unsupported opcode in the stream
    auto w = good;
    w.insert(w.begin() + 5, {(1u << 16) | 999u});
    expectParseError(w, "unsupported opcode 999");
  }
}

TEST(SpirvIo, DisassemblyNamesTosaInstructions) {
  const auto w = encode(*addModule());
  std::string text = spirv::disassembleWords(w.data(), w.size());
  EXPECT_NE(text.find("OpExtInstImport \"TOSA.001000.1\""), std::string::npos) << text;
  EXPECT_NE(text.find(" ADD input1=%"), std::string::npos) << text;
  EXPECT_NE(text.find("OpGraphEntryPointARM %"), std::string::npos) << text;
  EXPECT_NE(text.find("OpName"), std::string::npos) << text;
}

TEST(SpirvIo, AttributeOperandMustBeConstant) {
  // argmax(axis, nan_mode, input): point axis at the graph input instead of a constant.
  ir::Module m;
  ir::Builder b(m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::FP32, {2, 3}), "x");
  ir::Value* r = b.op1("tosa.argmax", {x}, ValueType::tensor(DType::I32, {3}),
                       {{"axis", ir::Attribute::integer(0, DType::I32)}}, "am");
  b.output({r});
  auto w = encode(m);
  size_t i = findOp(w, 12);
  size_t input = findOp(w, 4184);
  ASSERT_GT(i, 0u);
  w[i + 5] = w[input + 2];  // axis := %x
  expectParseError(w, "ARGMAX axis must come from a constant instruction");
}

// Deterministic robustness sweep: every truncation and every single-word corruption of a small valid binary
// must give a result or a ParseError, never a crash (also run under the libFuzzer harness).
TEST(SpirvIo, CorruptionSweepNeverCrashes) {
  const auto good = encode(*addModule());
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint32_t> w(good.begin(), good.begin() + long(n));
    EXPECT_FALSE(decode(w).isOk());
  }
  const uint32_t patterns[] = {0, 1, 0xffffffffu, 0x10000u, 0x7fffffffu, 64};
  for (size_t k = 0; k < good.size(); ++k)
    for (uint32_t p : patterns) {
      auto w = good;
      w[k] = p;
      auto r = decode(w);
      if (!r.isOk()) { EXPECT_FALSE(r.status().message().empty()); }
    }
}

}  // namespace
}  // namespace tosakit
