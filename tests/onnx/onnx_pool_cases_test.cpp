// Pooling (ops_pool.cpp) against the ONNX backend test data (node and pytorch-converted: the independent
// oracle), plus hand-computed LpPool values and the unsupported/malformed forms.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

// Every node case also passes upstream mlir-opt-22's TOSA verifiers (when it is installed).
class OnnxPoolCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxPoolCase, Passes) { EXPECT_TRUE(runNodeCaseVerified(GetParam())); }

const std::vector<std::string> kNodeCases = {
    // 1-D and 3-D (unit-height 2-D pools; separable 3-D pools)
    "test_averagepool_1d_default",
    "test_averagepool_3d_default",
    "test_maxpool_1d_default",
    "test_maxpool_3d_default",
    // 2-D
    "test_averagepool_2d_ceil",
    "test_averagepool_2d_default",
    "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad",
    "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad",
    "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides",
    "test_averagepool_2d_same_lower",
    "test_averagepool_2d_same_upper",
    "test_averagepool_2d_strides",
    "test_maxpool_2d_ceil",
    "test_maxpool_2d_default",
    "test_maxpool_2d_pads",
    "test_maxpool_2d_precomputed_pads",
    "test_maxpool_2d_precomputed_same_upper",
    "test_maxpool_2d_precomputed_strides",
    "test_maxpool_2d_same_lower",
    "test_maxpool_2d_same_upper",
    "test_maxpool_2d_strides",
    // dilations and Indices (shifted slices), uint8 (i8 bits with the top bit flipped)
    "test_maxpool_2d_dilations",
    "test_maxpool_with_argmax_2d_precomputed_pads",
    "test_maxpool_with_argmax_2d_precomputed_strides",
    "test_maxpool_2d_uint8",
    // global pools
    "test_globalaveragepool",
    "test_globalaveragepool_precomputed",
    "test_globalmaxpool",
    "test_globalmaxpool_precomputed",
    // MaxUnpool (tosa.scatter)
    "test_maxunpool_export_without_output_shape",
};
INSTANTIATE_TEST_SUITE_P(Node, OnnxPoolCase, ::testing::ValuesIn(kNodeCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

// output_shape (bound) pads the unpooled tensor at the end.
TEST(OnnxPool, MaxUnpoolWithOutputShape) {
  EXPECT_TRUE(runNodeCaseVerified("test_maxunpool_export_with_output_shape", {2}));
}

constexpr const char* kPytorch = "/usr/share/libonnx-testdata/data/pytorch-converted";
class OnnxPoolPytorchCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxPoolPytorchCase, Passes) { EXPECT_TRUE(runNodeCase(GetParam(), {}, kPytorch)); }
const std::vector<std::string> kPytorchCases = {
    "test_AvgPool1d",
    "test_AvgPool1d_stride",
    "test_AvgPool2d",
    "test_AvgPool2d_stride",
    "test_AvgPool3d",
    "test_AvgPool3d_stride",
    "test_AvgPool3d_stride1_pad0_gpu_input",
    "test_MaxPool1d",
    "test_MaxPool1d_stride",
    "test_MaxPool1d_stride_padding_dilation",
    "test_MaxPool2d",
    "test_MaxPool2d_stride_padding_dilation",
    "test_MaxPool3d",
    "test_MaxPool3d_stride",
    "test_MaxPool3d_stride_padding",
};
INSTANTIATE_TEST_SUITE_P(PytorchConverted, OnnxPoolPytorchCase, ::testing::ValuesIn(kPytorchCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

// pytorch-operator: a 1-D MaxPool, kernel 3, stride 2 (x: [20, 16, 50]).
TEST(OnnxPool, OperatorMaxPool) {
  EXPECT_TRUE(runNodeCase("test_operator_maxpool", {}, "/usr/share/libonnx-testdata/data/pytorch-operator"));
}

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

std::string poolModel(const std::string& op, const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                      std::vector<Pb> attrs) {
  Pb g;
  g.msg(1, node({op, "pool", {"x"}, {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  g.msg(11, valueInfo("x", in));
  g.msg(12, valueInfo("y", out));
  return model(g, 17);
}

Tensor runPool(const std::string& bytes, Tensor x) {
  auto m = onnx::importOnnxBytes(bytes, "pool.onnx", unchecked());
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  if (!m.isOk()) return {};
  auto s = Session::create(std::move(*m));
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  if (!s.isOk()) return {};
  RunResult r;
  Status st = (*s)->run({{"x", std::move(x)}}, r);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return st.isOk() && !r.outputs.empty() ? r.outputs[0].second : Tensor();
}

// LpPool p=1, kernel 2, pads 1/1 over [1, -2, 3]: windows [0,1] [1,-2] [-2,3] [3,0] -> 1, 3, 5, 3.
TEST(OnnxPool, LpPool1dHandComputed) {
  Tensor y = runPool(poolModel("LpPool", {1, 1, 3}, {1, 1, 4},
                               {intsAttr("kernel_shape", {2}), intsAttr("pads", {1, 1}), intAttr("p", 1)}),
                     Tensor::fromDoubles(DType::FP32, {1, 1, 3}, {1, -2, 3}));
  ASSERT_EQ(y.size(), 4);
  EXPECT_EQ(y.toDoubles(), (std::vector<double>{1, 3, 5, 3}));
}

// GlobalLpPool p=2 over [[3, 4], [0, 0]] = sqrt(9 + 16) = 5; an all-zero plane gives 0 (not NaN).
TEST(OnnxPool, GlobalLpPoolHandComputed) {
  Tensor y = runPool(poolModel("GlobalLpPool", {1, 2, 2, 2}, {1, 2, 1, 1}, {}),
                     Tensor::fromDoubles(DType::FP32, {1, 2, 2, 2}, {3, 4, 0, 0, 0, 0, 0, 0}));
  ASSERT_EQ(y.size(), 2);
  EXPECT_NEAR(y.getFloat(0), 5.0, 1e-5);
  EXPECT_EQ(y.getFloat(1), 0.0);
}

std::string typedModel(const std::string& op, std::vector<std::string> inputs, std::vector<Pb> inputInfos,
                       const std::vector<int64_t>& out, std::vector<Pb> attrs, int outType = 1 /*FLOAT*/) {
  Pb g;
  g.msg(1, node({op, "pool", std::move(inputs), {"y"}, std::move(attrs)}));
  g.bytes(2, "g");
  for (auto& i : inputInfos) g.msg(11, i);
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType(out, outType)));
  return model(g, 17);
}
Pb typedInfo(const std::string& name, const std::vector<int64_t>& dims, int elemType) {
  return Pb().bytes(1, name).msg(2, tensorType(dims, elemType));
}

// Forms the ONNX test data does not cover, against hand calculations.

// 3-D AveragePool, kernel 2x2x2, pads 1 on every side, over x = 1..8 ([1, 1, 2, 2, 2]); output [1, 1, 3, 3, 3].
// Corner (0,0,0) sees only x[0,0,0] = 1; edge (0,1,1) sees the d = 0 plane 1+2+3+4 = 10 (4 elements); the
// centre (1,1,1) sees all 36 (8 elements). count_include_pad = 0: 1, 10/4, 36/8; = 1: 1/8, 10/8, 36/8.
TEST(OnnxPool, AveragePool3dPaddedHandComputed) {
  for (int countPad : {0, 1}) {
    Tensor y = runPool(poolModel("AveragePool", {1, 1, 2, 2, 2}, {1, 1, 3, 3, 3},
                                 {intsAttr("kernel_shape", {2, 2, 2}), intsAttr("pads", {1, 1, 1, 1, 1, 1}),
                                  intAttr("count_include_pad", countPad)}),
                       Tensor::fromDoubles(DType::FP32, {1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
    ASSERT_EQ(y.size(), 27);
    EXPECT_NEAR(y.getFloat(0), countPad ? 0.125 : 1.0, 1e-6) << countPad;  // (0,0,0)
    EXPECT_NEAR(y.getFloat(4), countPad ? 1.25 : 2.5, 1e-6) << countPad;   // (0,1,1)
    EXPECT_NEAR(y.getFloat(13), 4.5, 1e-6) << countPad;                    // (1,1,1)
  }
}

// MaxPool with Indices, kernel 2x2, over [[1, 5, 2], [6, 0, 3]] ([1, 1, 2, 3]): maxima 6 at (1,0) and 5 at
// (0,1). storage_order 0: flat h*W + w = 3, 1; storage_order 1: h + w*H = 1, 2.
TEST(OnnxPool, MaxPoolIndicesStorageOrderHandComputed) {
  for (int order : {0, 1}) {
    Pb g;
    g.msg(1,
          node({"MaxPool",
                "pool",
                {"x"},
                {"y", "i"},
                {intsAttr("kernel_shape", {2, 2}), intAttr("storage_order", order)}}));
    g.bytes(2, "g");
    g.msg(11, valueInfo("x", {1, 1, 2, 3}));
    g.msg(12, valueInfo("y", {1, 1, 1, 2}));
    g.msg(12, Pb().bytes(1, "i").msg(2, tensorType({1, 1, 1, 2}, 7 /*INT64*/)));
    auto m = onnx::importOnnxBytes(model(g, 12), "pool.onnx", unchecked());
    ASSERT_TRUE(m.isOk()) << m.status().toString();
    auto sess = Session::create(std::move(*m));
    ASSERT_TRUE(sess.isOk()) << sess.status().toString();
    RunResult r;
    Status st = (*sess)->run({{"x", Tensor::fromDoubles(DType::FP32, {1, 1, 2, 3}, {1, 5, 2, 6, 0, 3})}}, r);
    ASSERT_TRUE(st.isOk()) << st.toString();
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].second.toDoubles(), (std::vector<double>{6, 5}));
    EXPECT_EQ(r.outputs[1].second.toInts(), order ? (std::vector<int64_t>{1, 2}) : (std::vector<int64_t>{3, 1}));
  }
}

// uint8 MaxPool with padding, kernel 2x2, pads 1, over [[200, 3], [100, 255]]: every 2x2 window of the padded
// input, the padding never wins (unsigned order: 255 > 200 > 100 > 3).
TEST(OnnxPool, Uint8MaxPoolPaddedHandComputed) {
  auto m = onnx::importOnnxBytes(typedModel("MaxPool", {"x"}, {typedInfo("x", {1, 1, 2, 2}, 2 /*UINT8*/)}, {1, 1, 3, 3},
                                            {intsAttr("kernel_shape", {2, 2}), intsAttr("pads", {1, 1, 1, 1})}, 2),
                                 "pool.onnx", unchecked());
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  auto sess = Session::create(std::move(*m));
  ASSERT_TRUE(sess.isOk()) << sess.status().toString();
  RunResult r;
  // uint8 is carried as i8 bits: 200 -> -56, 255 -> -1.
  Status st = (*sess)->run({{"x", Tensor::fromDoubles(DType::I8, {1, 1, 2, 2}, {-56, 3, 100, -1})}}, r);
  ASSERT_TRUE(st.isOk()) << st.toString();
  ASSERT_EQ(r.outputs.size(), 1u);
  std::vector<int64_t> got;
  for (int64_t v : r.outputs[0].second.toInts()) got.push_back(v & 0xff);
  EXPECT_EQ(got, (std::vector<int64_t>{200, 200, 3, 200, 255, 255, 100, 255, 255}));
}

void expectImportError(const std::string& bytes, StatusCode code, const std::string& part) {
  auto m = onnx::importOnnxBytes(bytes, "pool.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), code) << m.status().toString();
  EXPECT_NE(m.status().message().find(part), std::string::npos) << m.status().toString();
}

TEST(OnnxPool, UnsupportedAndMalformedForms) {
  expectImportError(poolModel("AveragePool", {1, 1, 6, 6}, {1, 1, 4, 4},
                              {intsAttr("kernel_shape", {2, 2}), intsAttr("dilations", {2, 2})}),
                    StatusCode::Unsupported, "'pool' (AveragePool): AveragePool with dilations");
  expectImportError(
      poolModel("MaxPool", {1, 1, 2, 2, 2, 2}, {1, 1, 1, 1, 1, 1}, {intsAttr("kernel_shape", {2, 2, 2, 2})}),
      StatusCode::Unsupported, "'pool' (MaxPool): 4-D pooling");
  expectImportError(poolModel("MaxPool", {1, 1, 4, 4}, {1, 1, 3, 3}, {intsAttr("kernel_shape", {2})}),
                    StatusCode::InvalidArgument, "'pool' (MaxPool): kernel_shape must have 2 values");
  const Pb samePad = Pb().bytes(1, "auto_pad").bytes(4, "SAME").varint(20, 3);  // STRING attribute
  expectImportError(poolModel("MaxPool", {1, 1, 4, 4}, {1, 1, 3, 3}, {intsAttr("kernel_shape", {2, 2}), samePad}),
                    StatusCode::InvalidArgument, "auto_pad 'SAME' is not");
  // TOSA MAX_POOL2D: ERROR_IF(pad >= kernel).
  expectImportError(poolModel("MaxPool", {1, 1, 4, 4}, {1, 1, 7, 7},
                              {intsAttr("kernel_shape", {2, 2}), intsAttr("pads", {2, 2, 2, 2})}),
                    StatusCode::Unsupported, "'pool' (MaxPool): pool padding not smaller than the kernel");
}

// uint8 max pools go through i8 bits with the top bit flipped; the shifted-slice path (dilations, Indices) uses
// tosa.maximum/greater, which take no 8-bit operands.
TEST(OnnxPool, Uint8DilatedIsUnsupported) {
  expectImportError(typedModel("MaxPool", {"x"}, {typedInfo("x", {1, 1, 4, 4}, 2 /*UINT8*/)}, {1, 1, 2, 2},
                               {intsAttr("kernel_shape", {2, 2}), intsAttr("dilations", {2, 2})}),
                    StatusCode::Unsupported, "'pool' (MaxPool): uint8 MaxPool with dilations or Indices");
}

TEST(OnnxPool, GlobalMaxPoolInt32IsUnsupported) {
  expectImportError(typedModel("GlobalMaxPool", {"x"}, {typedInfo("x", {1, 1, 2, 2}, 6 /*INT32*/)}, {1, 1, 1, 1}, {}),
                    StatusCode::Unsupported, "'pool' (GlobalMaxPool): element type i32");
}

// MaxUnpool kernel 2, stride 1 over a 2x2 input unpools to 3x3; output_shape [1, 1, 2, 2] is smaller.
TEST(OnnxPool, MaxUnpoolOutputShapeTooSmall) {
  Pb g;
  g.msg(1, node({"MaxUnpool", "pool", {"x", "i", "s"}, {"y"}, {intsAttr("kernel_shape", {2, 2})}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("s", {4}, {1, 1, 2, 2}));
  g.msg(11, valueInfo("x", {1, 1, 2, 2}));
  g.msg(11, typedInfo("i", {1, 1, 2, 2}, 7 /*INT64*/));
  g.msg(12, valueInfo("y", {1, 1, 2, 2}));
  expectImportError(model(g, 11), StatusCode::InvalidArgument,
                    "'pool' (MaxUnpool): MaxUnpool output_shape 1x1x2x2 is smaller than the unpooled 1x1x3x3");
}

// Overlapping pool windows can repeat an index; TOSA SCATTER REQUIREs distinct indices, so the run reports an
// unpredictable result instead of picking one of the writes.
TEST(OnnxPool, MaxUnpoolRepeatedIndexIsUnpredictable) {
  std::string bytes =
      typedModel("MaxUnpool", {"x", "i"}, {valueInfo("x", {1, 1, 2, 2}), typedInfo("i", {1, 1, 2, 2}, 7 /*INT64*/)},
                 {1, 1, 3, 3}, {intsAttr("kernel_shape", {2, 2})});
  auto m = onnx::importOnnxBytes(bytes, "pool.onnx", unchecked());
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  auto s = Session::create(std::move(*m));
  ASSERT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  Status st = (*s)->run({{"x", Tensor::fromDoubles(DType::FP32, {1, 1, 2, 2}, {5, 5, 7, 8})},
                         {"i", Tensor::fromDoubles(DType::I32, {1, 1, 2, 2}, {4, 4, 7, 8})}},
                        r);
  EXPECT_EQ(st.code(), StatusCode::Unpredictable) << st.toString();
  EXPECT_NE(st.toString().find("scatter"), std::string::npos) << st.toString();
}

}  // namespace
}  // namespace tosakit::onnxtest
