// ONNX frontend: hand-built models (onnx_test_util.h writes the protobuf bytes directly) with hand-computed
// expected values, layout checks (no transposes between CNN layers, BatchNormalization folded into Conv),
// names kept, and bad input.
#include <cstdlib>
#include <filesystem>

#include "formats/npy/npy.h"
#include "onnx_test_util.h"
#include "tosakit/model_io.h"

namespace tosakit::onnxtest {
namespace {

Tensor runOne(std::unique_ptr<ir::Module> m, const std::string& input, Tensor x) {
  auto s = Session::create(std::move(m));
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  if (!s.isOk()) return {};
  RunResult r;
  Status st = (*s)->run({{input, std::move(x)}}, r);
  EXPECT_TRUE(st.isOk()) << st.toString();
  if (!st.isOk() || r.outputs.empty()) return {};
  return r.outputs[0].second;
}

Tensor floats(Shape s, std::vector<double> v) { return Tensor::fromDoubles(DType::FP32, std::move(s), v); }

// x[1,1,2,2] -> Conv 1x1 (2 out channels) -> BatchNormalization -> Relu -> MaxPool 2x2 -> Flatten -> y[1,2]
std::string smallCnn() {
  Pb g;
  g.msg(1, node({"Conv", "conv1", {"x", "W", "B"}, {"c"}, {intsAttr("kernel_shape", {1, 1})}}));
  g.msg(1, node({"BatchNormalization", "bn1", {"c", "s", "bb", "mean", "var"}, {"n"}, {floatAttr("epsilon", 1.0f)}}));
  g.msg(1, node({"Relu", "relu1", {"n"}, {"r"}, {}}));
  g.msg(1, node({"MaxPool", "pool1", {"r"}, {"p"}, {intsAttr("kernel_shape", {2, 2})}}));
  g.msg(1, node({"Flatten", "flat", {"p"}, {"y"}, {}}));
  g.bytes(2, "cnn");
  g.msg(5, floatTensor("W", {2, 1, 1, 1}, {2, 3}));
  g.msg(5, floatTensor("B", {2}, {1, 0}));
  g.msg(5, floatTensor("s", {2}, {1, 2}));
  g.msg(5, floatTensor("bb", {2}, {0, 1}));
  g.msg(5, floatTensor("mean", {2}, {1, 0}));
  g.msg(5, floatTensor("var", {2}, {3, 0}));
  g.msg(11, valueInfo("x", {1, 1, 2, 2}));
  g.msg(12, valueInfo("y", {1, 2}));
  return model(g);
}

TEST(OnnxImport, SmallCnnHandComputed) {
  auto m = onnx::importOnnxBytes(smallCnn(), "cnn.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  // BN folds into the conv (no mul/add); the NCHW<->NHWC changes only move size-1 dims, so they are reshapes.
  EXPECT_EQ(countOps(**m, "tosa.conv2d"), 1);
  EXPECT_EQ(countOps(**m, "tosa.mul"), 0);
  EXPECT_EQ(countOps(**m, "tosa.add"), 0);
  EXPECT_EQ(countOps(**m, "tosa.transpose"), 0);
  const ir::Function& f = *(*m)->functions[0];
  EXPECT_EQ(f.inputName(0), "x");
  EXPECT_EQ(f.outputName(0), "y");
  bool convNamed = false;
  for (auto& op : f.body.ops) convNamed |= op->name == "tosa.conv2d" && op->loc.name == "conv1";
  EXPECT_TRUE(convNamed);
  // conv: c0 = 2x + 1, c1 = 3x. BN with eps 1: a = s / sqrt(var + 1) = [0.5, 2], b = bb - mean * a = [-0.5, 1].
  // x = [1, -2, 3, 4]: c0 = [3, -3, 7, 9] -> [1, -2, 3, 4]; c1 = [3, -6, 9, 12] -> [7, -11, 19, 25].
  // relu, then max over the 2x2 window: [4, 25].
  Tensor y = runOne(std::move(*m), "x", floats({1, 1, 2, 2}, {1, -2, 3, 4}));
  expectClose(y, floats({1, 2}, {4, 25}), 0, 0, "y");
}

TEST(OnnxImport, CnnHasTransposesOnlyAtTheBoundary) {
  // x[1,2,3,3] -> Conv 1x1 -> Relu -> Conv 1x1 -> Add(residual) -> y[1,2,3,3]: one transpose in, one out.
  Pb g;
  g.msg(1, node({"Conv", "c1", {"x", "W"}, {"a"}, {}}));
  g.msg(1, node({"Relu", "r1", {"a"}, {"b"}, {}}));
  g.msg(1, node({"Conv", "c2", {"b", "W"}, {"c"}, {}}));
  g.msg(1, node({"Add", "add", {"c", "a"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(5, floatTensor("W", {2, 2, 1, 1}, {1, 0, 0, 1}));
  g.msg(11, valueInfo("x", {1, 2, 3, 3}));
  g.msg(12, valueInfo("y", {1, 2, 3, 3}));
  auto m = onnx::importOnnxBytes(model(g), "g.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.transpose"), 2);
  // Identity weights: y = relu(x) + x.
  std::vector<double> xv(18), yv(18);
  for (int i = 0; i < 18; ++i) {
    xv[size_t(i)] = i - 9;
    yv[size_t(i)] = std::max(0, i - 9) + (i - 9);
  }
  Tensor y = runOne(std::move(*m), "x", floats({1, 2, 3, 3}, xv));
  expectClose(y, floats({1, 2, 3, 3}, yv), 0, 0, "y");

  // With NHWC I/O the boundary transposes go too.
  onnx::OnnxImportOptions o;
  o.keepNchwIo = false;
  auto m2 = onnx::importOnnxBytes(model(g), "g.onnx", o);
  ASSERT_TRUE(m2.isOk()) << m2.status().toString();
  EXPECT_EQ(countOps(**m2, "tosa.transpose"), 0);
  EXPECT_EQ((*m2)->functions[0]->inputs()[0]->type.dims, (Shape{1, 3, 3, 2}));
}

TEST(OnnxImport, ShapeChainFoldsToAConstantReshape) {
  // PyTorch's flatten export: Shape -> Gather -> Unsqueeze -> Concat -> Reshape, then Gemm.
  Pb g;
  g.msg(1, node({"GlobalAveragePool", "gap", {"x"}, {"p"}, {}}));
  g.msg(1, node({"Shape", "shape", {"p"}, {"s"}, {}}));
  g.msg(1, node({"Gather", "gather", {"s", "zero"}, {"n"}, {intAttr("axis", 0)}}));
  g.msg(1, node({"Unsqueeze", "unsq", {"n", "axes"}, {"n1"}, {}}));
  g.msg(1, node({"Concat", "cat", {"n1", "minus1"}, {"target"}, {intAttr("axis", 0)}}));
  g.msg(1, node({"Reshape", "reshape", {"p", "target"}, {"f"}, {}}));
  g.msg(1, node({"Gemm", "fc", {"f", "W", "C"}, {"y"}, {intAttr("transB", 1)}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("zero", {}, {0}));
  g.msg(5, int64Tensor("axes", {1}, {0}));
  g.msg(5, int64Tensor("minus1", {1}, {-1}));
  g.msg(5, floatTensor("W", {3, 2}, {1, 0, 0, 1, 1, 1}));
  g.msg(5, floatTensor("C", {3}, {0, 0, 10}));
  g.msg(11, valueInfo("x", {1, 2, 3, 3}));
  g.msg(12, valueInfo("y", {1, 3}));
  auto m = onnx::importOnnxBytes(model(g), "flat.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.transpose"), 1);  // the input only; [1,1,1,2] -> [1,2,1,1] is a reshape
  // Channel 0 holds 1..9 (mean 5), channel 1 all 2 (mean 2): p = [5, 2];
  // y = W p + C = [5, 2, 5 + 2 + 10] = [5, 2, 17].
  std::vector<double> xv;
  for (int i = 1; i <= 9; ++i) xv.push_back(i);
  for (int i = 0; i < 9; ++i) xv.push_back(2);
  Tensor y = runOne(std::move(*m), "x", floats({1, 2, 3, 3}, xv));
  expectClose(y, floats({1, 3}, {5, 2, 17}), 1e-6, 0, "y");
}

std::string convModel(const std::vector<int64_t>& xShape, const std::vector<int64_t>& wShape,
                      const std::vector<float>& w, std::vector<Pb> attrs, const std::vector<int64_t>& yShape) {
  Pb g;
  g.msg(1, node({"Conv", "conv", {"x", "W"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(5, floatTensor("W", wShape, w));
  g.msg(11, valueInfo("x", xShape));
  g.msg(12, valueInfo("y", yShape));
  return model(g);
}

TEST(OnnxImport, GroupedConv) {
  // group 2: out0 = 1*x0 + 10*x1 = 21, out1 = 100*x2 + 1000*x3 = 4300.
  auto m = onnx::importOnnxBytes(convModel({1, 4, 1, 1}, {2, 2, 1, 1}, {1, 10, 100, 1000},
                                           {Pb().bytes(1, "group").varint(3, 2).varint(20, 2)}, {1, 2, 1, 1}),
                                 "g.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.conv2d"), 2);
  Tensor y = runOne(std::move(*m), "x", floats({1, 4, 1, 1}, {1, 2, 3, 4}));
  expectClose(y, floats({1, 2, 1, 1}, {21, 4300}), 0, 0, "y");
}

TEST(OnnxImport, DepthwiseConvWithMultiplier) {
  // group = C = 2, 4 output channels: output channel oc reads input channel oc / 2.
  // y = [1*x0, 2*x0, 3*x1, 4*x1] = [1, 2, 6, 8] for x = [1, 2].
  auto m = onnx::importOnnxBytes(convModel({1, 2, 1, 1}, {4, 1, 1, 1}, {1, 2, 3, 4},
                                           {Pb().bytes(1, "group").varint(3, 2).varint(20, 2)}, {1, 4, 1, 1}),
                                 "dw.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.depthwise_conv2d"), 1);
  Tensor y = runOne(std::move(*m), "x", floats({1, 2, 1, 1}, {1, 2}));
  expectClose(y, floats({1, 4, 1, 1}, {1, 2, 6, 8}), 0, 0, "y");
}

std::vector<double> iota16() {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[size_t(i)] = i;  // x[i][j] = 4i + j
  return v;
}

TEST(OnnxImport, ConvStrideTrimsUnreadInputRows) {
  // 1x1 kernel, stride 2 on 4x4: ONNX gives floor(3/2)+1 = 2 rows; TOSA needs (4-1) % 2 == 0, so the last row
  // and column are sliced off. y = x[0][0], x[0][2], x[2][0], x[2][2] = 0, 2, 8, 10.
  auto m = onnx::importOnnxBytes(
      convModel({1, 1, 4, 4}, {1, 1, 1, 1}, {1}, {intsAttr("strides", {2, 2})}, {1, 1, 2, 2}), "s.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.slice"), 1);
  Tensor y = runOne(std::move(*m), "x", floats({1, 1, 4, 4}, iota16()));
  expectClose(y, floats({1, 1, 2, 2}, {0, 2, 8, 10}), 0, 0, "y");
}

TEST(OnnxImport, ConvStrideTrimsUnreadPadding) {
  // 3x3 ones kernel, stride 2, pads 1 on 4x4: 4-1+2-2 = 3 is odd, so the bottom/right padding is dropped.
  // Window sums around (0,0), (0,2), (2,0), (2,2) of x[i][j] = 4i + j with zero padding:
  // 0+1+4+5 = 10; 1+2+3+5+6+7 = 24; 4+5+8+9+12+13 = 51; 5+6+7+9+10+11+13+14+15 = 90.
  auto m = onnx::importOnnxBytes(convModel({1, 1, 4, 4}, {1, 1, 3, 3}, std::vector<float>(9, 1.0f),
                                           {intsAttr("strides", {2, 2}), intsAttr("pads", {1, 1, 1, 1})}, {1, 1, 2, 2}),
                                 "p.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.slice"), 0);
  Tensor y = runOne(std::move(*m), "x", floats({1, 1, 4, 4}, iota16()));
  expectClose(y, floats({1, 1, 2, 2}, {10, 24, 51, 90}), 0, 0, "y");
}

TEST(OnnxImport, InputShapeOverrideReplacesDynamicDims) {
  Pb g;
  g.msg(1, node({"Relu", "r", {"x"}, {"y"}, {}}));
  g.bytes(2, "g");
  // x: [batch, 3, seq]: dim 0 and dim 2 are dynamic (dim_param).
  Pb shape;
  shape.msg(1, Pb().bytes(2, "batch")).msg(1, Pb().varint(1, 3)).msg(1, Pb().bytes(2, "seq"));
  g.msg(11, Pb().bytes(1, "x").msg(2, Pb().msg(1, Pb().varint(1, 1).msg(2, shape))));
  g.msg(12, valueInfo("y", {}));
  auto noOverride = onnx::importOnnxBytes(model(g), "d.onnx");
  ASSERT_FALSE(noOverride.isOk());
  EXPECT_EQ(noOverride.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(noOverride.status().message().find("dim 2 ('seq') is dynamic"), std::string::npos)
      << noOverride.status().message();
  onnx::OnnxImportOptions o;
  o.inputShapes["x"] = {5, 3, 7};
  auto m = onnx::importOnnxBytes(model(g), "d.onnx", o);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ((*m)->functions[0]->inputs()[0]->type.dims, (Shape{5, 3, 7}));
  onnx::OnnxImportOptions unknown;
  unknown.inputShapes["z"] = {5, 3, 7};
  auto u = onnx::importOnnxBytes(model(g), "d.onnx", unknown);
  ASSERT_FALSE(u.isOk());
  EXPECT_NE(u.status().message().find("'z', which is not a graph input"), std::string::npos) << u.status().message();
  o.inputShapes["x"] = {5, 3};
  auto bad = onnx::importOnnxBytes(model(g), "d.onnx", o);
  ASSERT_FALSE(bad.isOk());
  EXPECT_EQ(bad.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(bad.status().message().find("'x'"), std::string::npos) << bad.status().message();
}

TEST(OnnxImport, UnsupportedOpsAreAllListedInOneError) {
  Pb g;
  g.msg(1, node({"NonZero", "hm", {"x"}, {"h"}, {}}));
  g.msg(1, node({"Relu", "r", {"h"}, {"a"}, {}}));  // downstream of an unsupported node: not reported again
  g.msg(1, node({"Unique", "lpn", {"a"}, {"b"}, {}}));
  g.msg(1, node({"Relu", "ok", {"x"}, {"c"}, {}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {2, 3}));
  g.msg(12, valueInfo("b", {2, 3}));
  g.msg(12, valueInfo("c", {2, 3}));
  auto m = onnx::importOnnxBytes(model(g), "u.onnx");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported);
  const std::string msg = m.status().message();
  EXPECT_NE(msg.find("u.onnx: 2 unsupported node(s)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'hm' (NonZero)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'lpn' (Unique)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("'r' (Relu)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

// TOSA 1.0 takes conv weights as tensors: a weight that is a graph input stays a run-time argument (issue 14).
TEST(OnnxImport, RunTimeWeightIsAnArgument) {
  Pb g;
  g.msg(1, node({"Conv", "conv", {"x", "w"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {1, 1, 2, 2}));
  g.msg(11, valueInfo("w", {1, 1, 1, 1}));
  g.msg(12, valueInfo("y", {1, 1, 2, 2}));
  auto m = onnx::importOnnxBytes(model(g), "w.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  ASSERT_EQ((*m)->function("main")->inputs().size(), 2u);
  auto s = Session::create(std::move(*m));
  ASSERT_TRUE(s.isOk());
  RunResult r;
  // A 1x1 kernel of weight 3: y = 3x (hand-computed).
  ASSERT_TRUE((*s)->run({{"x", floats({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", floats({1, 1, 1, 1}, {3})}}, r).isOk());
  expectClose(r.outputs[0].second, floats({1, 1, 2, 2}, {3, 6, 9, 12}), 0, 0, "y");
}

TEST(OnnxImport, MissingInitializer) {
  Pb g;
  g.msg(1, node({"Add", "add", {"x", "bias"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {2}));
  g.msg(12, valueInfo("y", {2}));
  onnx::OnnxImportOptions o;
  o.runChecker = false;  // the checker rejects it too; this tests the importer's own message
  auto m = onnx::importOnnxBytes(model(g), "mi.onnx", o);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::ParseError);
  EXPECT_NE(m.status().message().find("'bias'"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("missing initializer"), std::string::npos) << m.status().message();
  auto checked = onnx::importOnnxBytes(model(g), "mi.onnx");
  ASSERT_FALSE(checked.isOk());
  EXPECT_EQ(checked.status().code(), StatusCode::ParseError);
  EXPECT_NE(checked.status().message().find("mi.onnx"), std::string::npos) << checked.status().message();
}

TEST(OnnxImport, MalformedNodesAreErrorsNotCrashes) {
  onnx::OnnxImportOptions o;
  o.runChecker = false;  // the checker would reject these first; the importer must not rely on it
  {
    Pb g;  // Add with one input
    g.msg(1, node({"Add", "add", {"x"}, {"y"}, {}}));
    g.bytes(2, "g").msg(11, valueInfo("x", {2})).msg(12, valueInfo("y", {2}));
    auto m = onnx::importOnnxBytes(model(g), "a.onnx", o);
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::ParseError);
    EXPECT_NE(m.status().message().find("'add' (Add): needs at least 2 input(s)"), std::string::npos)
        << m.status().message();
  }
  {
    // stride 0 would divide by zero in the output-size rule (and in ONNX's own shape inference: it is rejected
    // before any ONNX code reads the model); a one-value strides list would read past it.
    auto m = onnx::importOnnxBytes(
        convModel({1, 1, 4, 4}, {1, 1, 1, 1}, {1}, {intsAttr("strides", {0, 0})}, {1, 1, 4, 4}), "s0.onnx", o);
    ASSERT_FALSE(m.isOk());
    EXPECT_NE(m.status().message().find("(Conv): attribute 'strides' must be positive, got 0"), std::string::npos)
        << m.status().message();
    auto m1 = onnx::importOnnxBytes(
        convModel({1, 1, 4, 4}, {1, 1, 1, 1}, {1}, {intsAttr("strides", {2})}, {1, 1, 2, 2}), "s1.onnx", o);
    ASSERT_FALSE(m1.isOk());
    EXPECT_NE(m1.status().message().find("strides must have 2 values"), std::string::npos) << m1.status().message();
  }
}

TEST(OnnxImport, ModelsNewerThanTheCheckerAreImportedUnchecked) {
  // IR version 10 / opset 21 is beyond Debian's ONNX 1.12 checker (IR 8, opset 17), which would reject it.
  Pb g;
  g.msg(1, node({"Relu", "r", {"x"}, {"y"}, {}}));
  g.bytes(2, "g").msg(11, valueInfo("x", {2})).msg(12, valueInfo("y", {2}));
  std::string bytes = Pb().varint(1, 10).msg(8, Pb().bytes(1, "").varint(2, 21)).msg(7, g).str();
  auto m = onnx::importOnnxBytes(bytes, "new.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  // relu([-1, 2]) = [0, 2]
  Tensor y = runOne(std::move(*m), "x", floats({2}, {-1, 2}));
  expectClose(y, floats({2}, {0, 2}), 0, 0, "y");
}

TEST(OnnxImport, TruncatedFile) {
  std::string bytes = smallCnn();
  std::string path = writeTemp("truncated.onnx", bytes.substr(0, bytes.size() / 2));
  auto m = onnx::importOnnx(path);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::ParseError);
  EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().message();
}

TEST(OnnxImport, NotAProtobuf) {
  std::string path = writeTemp("text.onnx", "this is not an ONNX model\n");
  auto m = onnx::importOnnx(path);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::ParseError);
  EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().message();
  auto empty = onnx::importOnnx(writeTemp("empty.onnx", ""));
  ASSERT_FALSE(empty.isOk());
  EXPECT_EQ(empty.status().code(), StatusCode::ParseError);
}

TEST(OnnxImport, MissingFile) {
  auto m = onnx::importOnnx("/nonexistent/model.onnx");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::IOError);
  EXPECT_NE(m.status().message().find("/nonexistent/model.onnx"), std::string::npos);
}

TEST(OnnxImport, BadTensorFile) {
  auto t = onnx::loadOnnxTensor(writeTemp("bad_tensor.pb", "\x0a\xff"));
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.status().code(), StatusCode::ParseError);
}

// Sequence and optional test data (SequenceProto / OptionalProto) are not tensors: a clear parse error naming
// the file, never an allocation failure from the garbage dims they decode to.
TEST(OnnxImport, SequenceOrOptionalProtoIsNotATensor) {
  for (const char* f : {"test_sequence_insert_at_back/test_data_set_0/input_0.pb",
                        "test_optional_get_element_sequence/test_data_set_0/input_0.pb",
                        "test_identity_sequence/test_data_set_0/output_0.pb"}) {
    const std::string path = std::string("/usr/share/libonnx-testdata/data/node/") + f;
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "no ONNX test data: " << path;
    auto t = onnx::loadOnnxTensor(path);
    ASSERT_FALSE(t.isOk()) << path;
    // Bad input either way (exit 4): a parse error, or the garbage dims refused by the memory budget.
    EXPECT_TRUE(t.status().code() == StatusCode::ParseError || t.status().code() == StatusCode::InvalidArgument)
        << t.status().toString();
    EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status().toString();
  }
  // Every .pb of the sequence/optional cases loads or fails cleanly (a throw fails the test).
  int files = 0;
  for (const auto& dir : std::filesystem::directory_iterator("/usr/share/libonnx-testdata/data/node")) {
    const std::string name = dir.path().filename().string();
    if (name.find("sequence") == std::string::npos && name.find("optional") == std::string::npos) continue;
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir.path()))
      if (f.path().extension() == ".pb") {
        ++files;
        auto t = onnx::loadOnnxTensor(f.path().string());
        if (!t.isOk()) { EXPECT_NE(t.status().message().find(f.path().string()), std::string::npos); }
      }
  }
  EXPECT_GT(files, 20);
}

// tosakit import x.onnx -o x.mlir; tosakit run x.mlir: the MLIR round trip of an imported CNN.
TEST(OnnxCli, ImportThenRun) {
  std::string onnxPath = writeTemp("cli_cnn.onnx", smallCnn());
  std::string mlir = tempPath("cli_cnn.mlir"), xin = tempPath("cli_x.npy"), out = tempPath("cli_out.npz");
  std::filesystem::remove(mlir);
  ASSERT_TRUE(npy::writeNpy(xin, floats({1, 1, 2, 2}, {1, -2, 3, 4})).isOk());
  std::string tool = TOSAKIT_TOOL;
  ASSERT_EQ(std::system((tool + " import " + onnxPath + " -o " + mlir).c_str()), 0);
  ASSERT_EQ(std::system((tool + " run " + mlir + " --input x=" + xin + " -o " + out).c_str()), 0);
  auto r = npy::readNpz(out);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].first, "y");
  expectClose((*r)[0].second, floats({1, 2}, {4, 25}), 0, 0, "y");  // hand-computed in SmallCnnHandComputed
  // Bad input through the CLI: exit code 4 (bad input) for a non-ONNX file, 5 for unsupported ops.
  std::string text = writeTemp("cli_text.onnx", "not onnx");
  int rc = std::system((tool + " import " + text + " -o " + tempPath("cli_bad.mlir") + " 2>/dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 4);
}

// model_transform-style verification: --test-input/--test-reference/--tolerance.
TEST(OnnxCli, VerifyImportAgainstReference) {
  std::string onnxPath = writeTemp("cli_verify.onnx", smallCnn());
  std::string in = tempPath("cli_verify_in.npz"), good = tempPath("cli_verify_good.npz");
  std::string bad = tempPath("cli_verify_bad.npz"), mlir = tempPath("cli_verify.mlir");
  std::filesystem::remove(mlir);
  ASSERT_TRUE(npy::writeNpz(in, {{"x", floats({1, 1, 2, 2}, {1, -2, 3, 4})}}).isOk());
  // y = [4, 25] for this input (hand-computed in SmallCnnHandComputed).
  ASSERT_TRUE(npy::writeNpz(good, {{"y", floats({1, 2}, {4, 25})}}).isOk());
  // [25, 4]: cosine = 2*4*25 / (16 + 625) = 200/641 = 0.312 < 0.99.
  ASSERT_TRUE(npy::writeNpz(bad, {{"y", floats({1, 2}, {25, 4})}}).isOk());
  std::string tool = TOSAKIT_TOOL;
  std::string common = tool + " import " + onnxPath + " -o " + mlir + " --test-input " + in + " --tolerance 0.99,0.99";
  int rc = std::system((common + " --test-reference " + bad + " > /dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 1);
  EXPECT_FALSE(std::filesystem::exists(mlir)) << "a failed verification must not write the model";
  rc = std::system((common + " --test-reference " + good + " > /dev/null 2>&1").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 0);
  EXPECT_TRUE(std::filesystem::exists(mlir));
}

// --bind-inputs folds the shape-determining input of a Reshape to a constant; --output-names picks graph values.
TEST(OnnxCli, BindInputsAndOutputNames) {
  // r = Reshape(x, target) with target a graph input, y = Relu(r).
  Pb g;
  g.msg(1, node({"Reshape", "reshape", {"x", "target"}, {"r"}, {}}));
  g.msg(1, node({"Relu", "relu", {"r"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", {2, 3}));
  g.msg(11, Pb().bytes(1, "target").msg(2, tensorType({2}, 7 /*INT64*/)));
  g.msg(12, valueInfo("y", {3, 2}));
  std::string onnxPath = writeTemp("cli_bind.onnx", model(g));
  std::string values = tempPath("cli_bind_values.npz"), xin = tempPath("cli_bind_x.npy");
  std::string mlir = tempPath("cli_bind.mlir"), out = tempPath("cli_bind_out.npz");
  std::filesystem::remove(mlir);
  ASSERT_TRUE(npy::writeNpz(values, {{"target", Tensor::fromInts(DType::I64, {2}, {3, 2})}}).isOk());
  ASSERT_TRUE(npy::writeNpy(xin, floats({2, 3}, {1, -2, 3, -4, 5, -6})).isOk());
  std::string tool = TOSAKIT_TOOL;
  ASSERT_EQ(
      std::system(
          (tool + " import " + onnxPath + " -o " + mlir + " --bind-inputs " + values + " --output-names r,y").c_str()),
      0);
  // Only x remains an input; r = x reshaped to 3x2 = [[1,-2],[3,-4],[5,-6]], y = relu(r) = [[1,0],[3,0],[5,0]].
  ASSERT_EQ(std::system((tool + " run " + mlir + " --input x=" + xin + " -o " + out).c_str()), 0);
  auto r = npy::readNpz(out);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].first, "r");
  expectClose((*r)[0].second, floats({3, 2}, {1, -2, 3, -4, 5, -6}), 0, 0, "r");
  EXPECT_EQ((*r)[1].first, "y");
  expectClose((*r)[1].second, floats({3, 2}, {1, 0, 3, 0, 5, 0}), 0, 0, "y");
  // A bound name that is not a graph input is an error naming it, and no output file is written.
  std::string bad = tempPath("cli_bind_bad.npz"), badOut = tempPath("cli_bind_bad.mlir");
  std::filesystem::remove(badOut);
  ASSERT_TRUE(npy::writeNpz(bad, {{"nope", Tensor::fromInts(DType::I64, {1}, {1})}}).isOk());
  int rc =
      std::system((tool + " import " + onnxPath + " -o " + badOut + " --bind-inputs " + bad + " 2>/dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 4);
  EXPECT_FALSE(std::filesystem::exists(badOut));
}

// A node whose inputs are all constants is evaluated at import even when its lowering emits TOSA ops
// (Ceil, Sqrt): y = x * (ceil(c) + sqrt(d)) with c = 1.25, d = 4 -> x * (2 + 2) = 4x (hand computed).
TEST(OnnxImport, ConstantNodesFoldThroughTheReferenceBackend) {
  Pb g;
  g.msg(1, node({"Ceil", "ceil", {"c"}, {"cc"}, {}}));
  g.msg(1, node({"Sqrt", "sqrt", {"d"}, {"sd"}, {}}));
  g.msg(1, node({"Add", "add", {"cc", "sd"}, {"k"}, {}}));
  g.msg(1, node({"Mul", "mul", {"x", "k"}, {"y"}, {}}));
  g.bytes(2, "fold");
  g.msg(5, floatTensor("c", {1}, {1.25f}));
  g.msg(5, floatTensor("d", {1}, {4.0f}));
  g.msg(11, valueInfo("x", {2}));
  g.msg(12, valueInfo("y", {2}));
  auto m = onnx::importOnnxBytes(model(g), "fold.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.ceil"), 0);
  EXPECT_EQ(countOps(**m, "tosa.sqrt"), 0);
  EXPECT_EQ(countOps(**m, "tosa.add"), 0);
  EXPECT_EQ(countOps(**m, "tosa.mul"), 1);
  Tensor y = runOne(std::move(*m), "x", floats({2}, {1.5, -2}));
  ASSERT_EQ(y.size(), 2);
  EXPECT_EQ(y.getFloat(0), 6.0);
  EXPECT_EQ(y.getFloat(1), -8.0);
}

}  // namespace
}  // namespace tosakit::onnxtest
