// Malformed ONNX models: every one must be a clear error naming the file and the reason (ParseError or
// InvalidArgument, i.e. `tosakit import` exit code 4), never a crash, a hang or a silently wrong model.
// The models are written byte by byte with onnx_test_util.h's protobuf writer (independent of libonnx) or cut
// from the bundled real model. Each case runs through the library (with the ONNX checker on, as the CLI
// does, and off, so the importer's own checks are exercised) and through `tosakit import`.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

// onnx.proto field numbers used below (ONNX 1.12): TensorProto dims 1, data_type 2, float_data 4, name 8,
// raw_data 9; GraphProto node 1, name 2, initializer 5, input 11, output 12.
Pb rawFloatTensor(const std::string& name, const std::vector<int64_t>& dims, size_t rawBytes) {
  Pb t;
  for (int64_t d : dims) t.varint(1, uint64_t(d));
  t.varint(2, 1);  // FLOAT
  t.bytes(8, name);
  t.bytes(9, std::string(rawBytes, '\0'));
  return t;
}

// A valid model to damage: y = Conv(x[1,3,8,8], W[4,3,3,3], B[4]) with pads 1 -> y[1,4,8,8].
Pb convGraph(const std::vector<int64_t>& xShape, const std::vector<int64_t>& wShape, const std::vector<Pb>& attrs,
             const std::vector<int64_t>& yShape) {
  Pb g;
  g.msg(1, node({"Conv", "conv", {"x", "W", "B"}, {"y"}, attrs}));
  g.bytes(2, "g");
  int64_t wn = 1;
  for (int64_t d : wShape) wn *= d;
  g.msg(5, floatTensor("W", wShape, std::vector<float>(size_t(wn), 0.5f)));
  g.msg(5, floatTensor("B", {wShape[0]}, std::vector<float>(size_t(wShape[0]), 1.0f)));
  g.msg(11, valueInfo("x", xShape));
  g.msg(12, valueInfo("y", yShape));
  return g;
}
std::string goodConv() {
  return model(convGraph({1, 3, 8, 8}, {4, 3, 3, 3}, {intsAttr("pads", {1, 1, 1, 1})}, {1, 4, 8, 8}));
}

// y = Add(a, b): a graph input, b an initializer.
std::string addWithInitializer(const Pb& b, const std::vector<int64_t>& shape) {
  Pb g;
  g.msg(1, node({"Add", "add", {"a", "b"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(5, b);
  g.msg(11, valueInfo("a", shape));
  g.msg(12, valueInfo("y", shape));
  return model(g);
}

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

// The import fails on one line naming `file` and containing every `parts`; with `badInputCode`, as bad input
// (ParseError/InvalidArgument: exit code 4).
void expectBadInput(const Result<std::unique_ptr<ir::Module>>& m, const std::string& file,
                    const std::vector<std::string>& parts, const std::string& what, bool badInputCode = true) {
  ASSERT_FALSE(m.isOk()) << what << ": imported a malformed model";
  const Status& s = m.status();
  if (badInputCode) {
    EXPECT_TRUE(s.code() == StatusCode::ParseError || s.code() == StatusCode::InvalidArgument)
        << what << ": " << s.toString();
  }
  EXPECT_NE(s.message().find(file), std::string::npos) << what << ": " << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << what << ": " << s.message();
  for (const auto& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << what << ": " << s.message();
}

// Checked (the CLI's default: ONNX checker first) and unchecked (the importer's own checks).
void expectBadBytes(const std::string& bytes, const std::string& file, const std::vector<std::string>& parts,
                    bool badInputCode = true) {
  expectBadInput(onnx::importOnnxBytes(bytes, file), file, parts, file + " (checked)", badInputCode);
  expectBadInput(onnx::importOnnxBytes(bytes, file, unchecked()), file, parts, file + " (unchecked)", badInputCode);
}
void expectBadBytes(const std::string& bytes, const std::string& file, const std::vector<std::string>& checkedParts,
                    const std::vector<std::string>& uncheckedParts) {
  expectBadInput(onnx::importOnnxBytes(bytes, file), file, checkedParts, file + " (checked)");
  expectBadInput(onnx::importOnnxBytes(bytes, file, unchecked()), file, uncheckedParts, file + " (unchecked)");
}

struct CliResult {
  int exitCode = -1;
  std::string err;
};

// tosakit import FILE -o OUT.mlir, stderr captured; OUT exists afterwards exactly when the import succeeded.
CliResult cliImport(const std::string& onnxPath) {
  std::string out = tempPath(std::filesystem::path(onnxPath).stem().string() + ".out.mlir");
  std::string errFile = tempPath(std::filesystem::path(onnxPath).stem().string() + ".stderr");
  std::filesystem::remove(out);
  std::string cmd = std::string(TOSAKIT_TOOL) + " import " + onnxPath + " -o " + out + " > /dev/null 2> " + errFile;
  int rc = std::system(cmd.c_str());
  CliResult r;
  r.exitCode = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  std::ifstream in(errFile);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  EXPECT_EQ(std::filesystem::exists(out), r.exitCode == 0) << onnxPath << ": exit " << r.exitCode << ": " << r.err;
  return r;
}

// Exit code 4 (or with `anyError` any failure), exactly one line "tosakit: ...<file>...<parts>..." on
// stderr, no output file.
void expectCliBadInput(const std::string& onnxPath, const std::vector<std::string>& parts, bool anyError = false) {
  CliResult r = cliImport(onnxPath);
  if (anyError)
    EXPECT_NE(r.exitCode, 0) << onnxPath << ": " << r.err;
  else
    EXPECT_EQ(r.exitCode, 4) << onnxPath << ": " << r.err;
  ASSERT_FALSE(r.err.empty()) << onnxPath;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << onnxPath << ": not one line: " << r.err;
  EXPECT_EQ(r.err.rfind("tosakit: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(onnxPath), std::string::npos) << r.err;
  for (const auto& p : parts) EXPECT_NE(r.err.find(p), std::string::npos) << onnxPath << ": " << r.err;
}

// ---- the valid baseline (so the damaged variants below fail for the damage, not for the model) ----

TEST(OnnxMalformed, BaselineConvImports) {
  auto m = onnx::importOnnxBytes(goodConv(), "good.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  auto a = onnx::importOnnxBytes(addWithInitializer(floatTensor("b", {2, 3}, {1, 2, 3, 4, 5, 6}), {2, 3}), "add.onnx");
  ASSERT_TRUE(a.isOk()) << a.status().toString();
  auto r = onnx::importOnnxBytes(addWithInitializer(rawFloatTensor("b", {2, 3}, 24), {2, 3}), "raw.onnx");
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  CliResult c = cliImport(writeTemp("mf_good.onnx", goodConv()));
  EXPECT_EQ(c.exitCode, 0) << c.err;
}

// ---- truncated files ----

TEST(OnnxMalformed, EveryTruncationOfASmallModelIsAParseError) {
  // The graph is the last field of the ModelProto: a cut inside it leaves a length-delimited field short
  // (protobuf parse error), a cut before it leaves a model without a graph. Both are ParseError.
  const std::string bytes = goodConv();
  for (size_t len = 0; len < bytes.size(); ++len) {
    auto m = onnx::importOnnxBytes(bytes.substr(0, len), "cut.onnx");
    ASSERT_FALSE(m.isOk()) << "prefix of " << len << " bytes imported";
    EXPECT_EQ(m.status().code(), StatusCode::ParseError) << len << ": " << m.status().toString();
    EXPECT_NE(m.status().message().find("cut.onnx"), std::string::npos) << m.status().message();
  }
}

TEST(OnnxMalformed, TruncatedRealModelCli) {
  std::ifstream in(std::string(TOSAKIT_SOURCE_DIR) + "/models/ppocr_cls/model.onnx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  ASSERT_GT(bytes.size(), 1000u);
  std::string path = writeTemp("mf_truncated_real.onnx", bytes.substr(0, bytes.size() * 2 / 3));
  expectCliBadInput(path, {"truncated"});
}

// ---- not a protobuf / not a model ----

TEST(OnnxMalformed, RandomBytes) {
  std::mt19937 rng(1);
  for (int k = 0; k < 20; ++k) {
    std::string bytes(size_t(64 + 97 * k), '\0');
    for (char& c : bytes) c = char(rng() & 0xff);
    auto m = onnx::importOnnxBytes(bytes, "random.onnx");
    ASSERT_FALSE(m.isOk()) << "random bytes #" << k << " imported";
    EXPECT_EQ(m.status().code(), StatusCode::ParseError) << m.status().toString();
  }
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = char(rng() & 0xff);
  expectCliBadInput(writeTemp("mf_random.onnx", bytes), {});
}

TEST(OnnxMalformed, TextFiles) {
  // ONNX's text format is not the binary model format.
  const std::string text = "ir_version: 8\nopset_import { version: 13 }\ngraph { name: \"g\" }\n";
  expectBadBytes(text, "text.onnx", {"not a valid ONNX model"});
  expectCliBadInput(writeTemp("mf_text.onnx", text), {"not a valid ONNX model"});
  expectCliBadInput(writeTemp("mf_empty.onnx", ""), {"empty file"});
}

TEST(OnnxMalformed, AProtobufThatIsNotAModel) {
  // A serialized TensorProto (an ONNX test-data input_0.pb) given as a model: its field 2 (data_type, a
  // varint) is ModelProto's producer_name (a string), so protobuf rejects it.
  const std::string tensor = floatTensor("t", {2}, {1, 2}).str();
  expectBadBytes(tensor, "tensor.onnx", {"not a valid ONNX model"});
  expectCliBadInput(writeTemp("mf_tensor_as_model.onnx", tensor), {"not a valid ONNX model"});
  // A ModelProto with an IR version and an opset but no graph parses, and is still not a model.
  const std::string noGraph = Pb().varint(1, 8).msg(8, Pb().bytes(1, "").varint(2, 13)).str();
  expectBadBytes(noGraph, "nograph.onnx", {"not an ONNX model (no graph"});
  expectCliBadInput(writeTemp("mf_no_graph.onnx", noGraph), {"not an ONNX model (no graph"});
}

// ---- missing initializer ----

TEST(OnnxMalformed, MissingInitializer) {
  // The Conv's weight 'W' is read but nothing defines it.
  Pb g;
  g.msg(1, node({"Conv", "conv", {"x", "W"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {1, 3, 8, 8}));
  g.msg(12, valueInfo("y", {1, 4, 6, 6}));
  const std::string bytes = model(g);
  expectBadInput(onnx::importOnnxBytes(bytes, "nw.onnx", unchecked()), "nw.onnx", {"'W'", "missing initializer"},
                 "unchecked");
  expectBadInput(onnx::importOnnxBytes(bytes, "nw.onnx"), "nw.onnx", {"W"}, "checked");
  expectCliBadInput(writeTemp("mf_missing_init.onnx", bytes), {"W"});
}

// ---- initializer data that contradicts its dims ----

TEST(OnnxMalformed, RawDataSizeDoesNotMatchDims) {
  // float [2,3] needs 2 * 3 * 4 = 24 bytes of raw_data.
  for (size_t n : {size_t(20), size_t(28)}) {
    std::string bytes = addWithInitializer(rawFloatTensor("b", {2, 3}, n), {2, 3});
    expectBadBytes(bytes, "raw.onnx",
                   {"initializer 'b'", "raw_data holds " + std::to_string(n) + " bytes, expected 24"});
  }
  // Empty raw_data: for ONNX's checker no value field is set ("one and only one value field"); the importer
  // sees an empty raw_data.
  expectBadBytes(addWithInitializer(rawFloatTensor("b", {2, 3}, 0), {2, 3}), "raw0.onnx", {"tensor name: b"},
                 {"initializer 'b'", "raw_data holds 0 bytes, expected 24"});
  expectCliBadInput(writeTemp("mf_raw_size.onnx", addWithInitializer(rawFloatTensor("b", {2, 3}, 20), {2, 3})),
                    {"initializer 'b'", "raw_data holds 20 bytes, expected 24"});
}

TEST(OnnxMalformed, TypedDataCountDoesNotMatchDims) {
  std::string bytes = addWithInitializer(floatTensor("b", {2, 3}, {1, 2, 3, 4, 5}), {2, 3});
  expectBadBytes(bytes, "typed.onnx", {"initializer 'b'", "holds 5 values, expected 6"});
  expectCliBadInput(writeTemp("mf_typed_size.onnx", bytes), {"initializer 'b'", "holds 5 values, expected 6"});
}

TEST(OnnxMalformed, HugeDimsAreRejectedBeforeAllocating) {
  // Shapes whose element count overflows int64 (2^31 * 2^31 * 4 = 2^64, 2^40 * 2^40) or is merely huge
  // (2^20 * 2^20 floats = 4 TiB) with a few bytes of data: an error before anything is allocated (not
  // std::bad_alloc, not a count that wraps to 0). ONNX's checker computes the wrapped count and calls the
  // tensor 0-element; the importer's own check names the shape.
  const int64_t g31 = int64_t(1) << 31, g40 = int64_t(1) << 40, m20 = int64_t(1) << 20;
  expectBadBytes(addWithInitializer(rawFloatTensor("b", {g31, g31, 4}, 24), {2, 3}), "huge.onnx", {"tensor name: b"},
                 {"initializer 'b'", "too many elements"});
  expectBadBytes(addWithInitializer(floatTensor("b", {g40, g40}, {1}), {2, 3}), "huge_typed.onnx", {"tensor name: b"},
                 {"initializer 'b'", "too many elements"});
  // 2^40 floats = 4 TiB: over the memory budget (--max-memory), refused before the data is even compared.
  expectBadBytes(addWithInitializer(rawFloatTensor("b", {m20, m20}, 24), {2, 3}), "big_raw.onnx",
                 {"initializer 'b'", "fp32[1048576x1048576]", "4398046511104 bytes"});  // 2^40 * 4
  expectBadBytes(addWithInitializer(floatTensor("b", {m20, m20}, {1}), {2, 3}), "big_typed.onnx",
                 {"initializer 'b'", "fp32[1048576x1048576]", "memory budget"});
  std::string bytes = addWithInitializer(rawFloatTensor("b", {m20, m20}, 24), {2, 3});
  expectCliBadInput(writeTemp("mf_huge_dims.onnx", bytes), {"initializer 'b'", "fp32[1048576x1048576]"});
}

TEST(OnnxMalformed, NegativeDimInInitializer) {
  Pb t;
  t.varint(1, uint64_t(int64_t(-2))).varint(1, 3).varint(2, 1).bytes(8, "b").bytes(9, std::string(24, '\0'));
  std::string bytes = addWithInitializer(t, {2, 3});
  expectBadBytes(bytes, "neg.onnx", {"initializer 'b'", "negative dimension"});
  expectCliBadInput(writeTemp("mf_negative_dim.onnx", bytes), {"initializer 'b'", "negative dimension"});
}

// ---- shapes that contradict each other, and bad attributes ----
//
// These are found while lowering the node: the importer lists every malformed node in one InvalidArgument
// error (exit code 4, bad input) and writes nothing.

struct NodeCase {
  std::string file;
  std::string bytes;
  std::vector<std::string> parts;  // in the message, checked and unchecked
};

std::vector<NodeCase> malformedNodeCases() {
  std::vector<NodeCase> cases;
  {
    // [2,3] + [4,5] does not broadcast (numpy rule: each dim pair equal or one of them 1).
    Pb g;
    g.msg(1, node({"Add", "add", {"a", "b"}, {"y"}, {}}));
    g.bytes(2, "g");
    g.msg(11, valueInfo("a", {2, 3}));
    g.msg(11, valueInfo("b", {4, 5}));
    g.msg(12, valueInfo("y", {4, 5}));
    cases.push_back({"mf_add_shapes.onnx", model(g), {"'add' (Add)", "2x3 and 4x5"}});
  }
  // x has 3 channels, W [4,2,3,3] expects 2 (group 1).
  cases.push_back({"mf_conv_channels.onnx",
                   model(convGraph({1, 3, 8, 8}, {4, 2, 3, 3}, {intsAttr("pads", {1, 1, 1, 1})}, {1, 4, 8, 8})),
                   {"'conv' (Conv)", "channels"}});
  // kernel_shape 5x5 with a 3x3 weight.
  cases.push_back({"mf_conv_kernel_shape.onnx",
                   model(convGraph({1, 3, 8, 8}, {4, 3, 3, 3}, {intsAttr("kernel_shape", {5, 5})}, {1, 4, 4, 4})),
                   {"'conv' (Conv)", "kernel_shape"}});
  // A 2-D conv needs 2 strides and 4 pads.
  cases.push_back({"mf_conv_strides1.onnx",
                   model(convGraph({1, 3, 8, 8}, {4, 3, 3, 3}, {intsAttr("strides", {2})}, {1, 4, 3, 3})),
                   {"'conv' (Conv)", "strides must have 2 values"}});
  cases.push_back({"mf_conv_strides3.onnx",
                   model(convGraph({1, 3, 8, 8}, {4, 3, 3, 3}, {intsAttr("strides", {1, 1, 1})}, {1, 4, 6, 6})),
                   {"'conv' (Conv)", "strides must have 2 values"}});
  cases.push_back({"mf_conv_pads.onnx",
                   model(convGraph({1, 3, 8, 8}, {4, 3, 3, 3}, {intsAttr("pads", {1, 1})}, {1, 4, 8, 8})),
                   {"'conv' (Conv)", "pads must have 4 values"}});
  return cases;
}

TEST(OnnxMalformed, MalformedNodesAreBadInput) {
  for (const auto& c : malformedNodeCases()) {
    expectBadBytes(c.bytes, c.file, c.parts);
    expectCliBadInput(writeTemp(c.file, c.bytes), c.parts);
  }
}

TEST(OnnxMalformed, ConvAttributeOfWrongType) {
  // strides as a FLOAT attribute (type 1) instead of INTS: the checker rejects it (exit code 4).
  const std::string bytes = model(convGraph({1, 3, 8, 8}, {4, 3, 3, 3}, {floatAttr("strides", 2.0f)}, {1, 4, 3, 3}));
  expectBadInput(onnx::importOnnxBytes(bytes, "attr_type.onnx"), "attr_type.onnx",
                 {"Mismatched attribute type", "strides"}, "checked");
  expectCliBadInput(writeTemp("mf_conv_attr_type.onnx", bytes), {"Mismatched attribute type", "strides"});
  // Unchecked, the importer's typed attribute readers name the attribute and both types.
  expectBadInput(onnx::importOnnxBytes(bytes, "attr_type.onnx", unchecked()), "attr_type.onnx",
                 {"'conv' (Conv)", "attribute 'strides' has type FLOAT, expected INTS"}, "unchecked");
}

// Relu keeps the shape [2,3]; the graph declares its output as [4,5]. ONNX's shape inference runs non-strict
// (its errors ignored), so the importer compares each declared graph output with the lowered value.
TEST(OnnxMalformed, GraphOutputShapeContradictsTheGraph) {
  Pb g;
  g.msg(1, node({"Relu", "relu", {"x"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {2, 3}));
  g.msg(12, valueInfo("y", {4, 5}));
  const std::string bytes = model(g);
  expectBadBytes(bytes, "out.onnx", {"'y'", "4x5", "2x3"});
  expectCliBadInput(writeTemp("mf_output_shape.onnx", bytes), {"'y'", "4x5", "2x3"});
}

}  // namespace
}  // namespace tosakit::onnxtest

namespace tosakit {
namespace {

// The importer checks its result at level 8K itself (every door: the CLI, Python, C++), and the message names
// no command-line flag: the Expand of a run-time input makes a 1e12-element result, above MAX_LOG2_SIZE.
TEST(OnnxImportValidation, TheLibraryRefusesAGraphInvalidAtLevel8K) {
  const std::string f = std::string(TOSAKIT_SOURCE_DIR) + "/tests/fuzz/regressions/expand_input_4tb.onnx";
  auto refused = onnx::importOnnx(f);
  ASSERT_FALSE(refused.isOk());
  EXPECT_EQ(refused.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(refused.status().message().find("level 8k"), std::string::npos) << refused.status().message();
  EXPECT_EQ(refused.status().message().find("--"), std::string::npos) << refused.status().message();
  onnx::OnnxImportOptions unchecked;
  unchecked.validateLevel = false;
  EXPECT_TRUE(onnx::importOnnx(f, unchecked).isOk());
}

}  // namespace
}  // namespace tosakit
