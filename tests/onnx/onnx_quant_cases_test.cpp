// Quantized ONNX operators against the ONNX backend node test data (independent oracle: ONNX's reference
// implementation). Scales and zero points (and conv weights) are bound: TOSA needs them as constants.
#include <algorithm>
#include <cmath>

#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

TEST(OnnxQuant, QuantizeLinear) { EXPECT_TRUE(runNodeCase("test_quantizelinear", {1, 2})); }
TEST(OnnxQuant, QuantizeLinearAxis) { EXPECT_TRUE(runNodeCase("test_quantizelinear_axis", {1, 2})); }
TEST(OnnxQuant, DequantizeLinear) { EXPECT_TRUE(runNodeCase("test_dequantizelinear", {1, 2})); }
TEST(OnnxQuant, DequantizeLinearAxis) { EXPECT_TRUE(runNodeCase("test_dequantizelinear_axis", {1, 2})); }
TEST(OnnxQuant, QLinearConv) { EXPECT_TRUE(runNodeCase("test_qlinearconv", {1, 2, 3, 4, 5, 6, 7})); }
TEST(OnnxQuant, QLinearMatMul2D) { EXPECT_TRUE(runNodeCase("test_qlinearmatmul_2D", {1, 2, 4, 5, 6, 7})); }
TEST(OnnxQuant, QLinearMatMul3D) { EXPECT_TRUE(runNodeCase("test_qlinearmatmul_3D", {1, 2, 4, 5, 6, 7})); }
TEST(OnnxQuant, MatMulInteger) { EXPECT_TRUE(runNodeCase("test_matmulinteger", {2, 3})); }
TEST(OnnxQuant, ConvIntegerBasic) { EXPECT_TRUE(runNodeCase("test_basic_convinteger", {1, 2})); }
TEST(OnnxQuant, ConvIntegerWithPadding) { EXPECT_TRUE(runNodeCase("test_convinteger_with_padding", {1, 2})); }
TEST(OnnxQuant, ConvIntegerWithoutPadding) { EXPECT_TRUE(runNodeCase("test_convinteger_without_padding", {1, 2})); }
TEST(OnnxQuant, DynamicQuantizeLinear) { EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear")); }
TEST(OnnxQuant, DynamicQuantizeLinearMaxAdjusted) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_max_adjusted"));
}
TEST(OnnxQuant, DynamicQuantizeLinearMinAdjusted) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_min_adjusted"));
}

// The integer lowering really uses RESCALE and an i8 conv (not float math).
TEST(OnnxQuant, QLinearConvLowersToIntegerConvAndRescale) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(kOnnxNodeDataDir) / "test_qlinearconv";
  onnx::OnnxImportOptions opts;
  for (int i = 1; i <= 7; ++i) {
    auto t = onnx::loadOnnxTensor((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    ASSERT_TRUE(t.isOk());
    opts.bindInputs[t->first] = t->second;
  }
  auto m = onnx::importOnnx((dir / "model.onnx").string(), opts);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ(countOps(**m, "tosa.conv2d"), 1);
  EXPECT_GE(countOps(**m, "tosa.rescale"), 2);
  const ir::Function* fn = (*m)->function("main");
  EXPECT_EQ(fn->inputs()[0]->type.dtype, DType::I8);  // uint8 input carried as i8 bits
}

// Run-time per-tensor scale and zero point: float fallback (x / scale rounded half to even, + zp, saturated).
TEST(OnnxQuant, QuantizeLinearRunTimeScale) { EXPECT_TRUE(runNodeCaseVerified("test_quantizelinear")); }
// The expanded DynamicQuantizeLinear computes y_scale/y_zero_point in the graph (ReduceMin/Max, Div, Clip,
// Round, Cast to uint8), so its QuantizeLinear sees run-time parameters.
TEST(OnnxQuant, DynamicQuantizeLinearExpanded) { EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_expanded")); }
TEST(OnnxQuant, DynamicQuantizeLinearMaxAdjustedExpanded) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_max_adjusted_expanded"));
}
TEST(OnnxQuant, DynamicQuantizeLinearMinAdjustedExpanded) {
  EXPECT_TRUE(runNodeCase("test_dynamicquantizelinear_min_adjusted_expanded"));
}

// A run-time per-axis scale is lowered in float arithmetic (issue 14): nothing bound, outputs as ONNX's reference.
TEST(OnnxQuant, RunTimePerAxisScale) {
  auto m = onnx::importOnnx(std::string(kOnnxNodeDataDir) + "/test_quantizelinear_axis/model.onnx");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_EQ((*m)->function("main")->inputs().size(), 3u);  // x, y_scale, y_zero_point
  EXPECT_TRUE(runNodeCase("test_quantizelinear_axis"));
}

}  // namespace
}  // namespace tosakit::onnxtest

namespace tosakit::onnxtest {
namespace {

// QuantizeLinear(x, scale, zp) with constant parameters on the 1-D input x, run on `backend`.
Result<Tensor> quantizeHand(float scale, int64_t zp, bool int8, const std::vector<float>& x, const std::string& backend,
                            int* reciprocals) {
  const int elemType = int8 ? 3 : 2;  // INT8 / UINT8
  Pb zpTensor;
  zpTensor.varint(2, uint64_t(elemType)).varint(5, uint64_t(zp)).bytes(8, "zp");  // int32_data
  Pb g;
  g.msg(1, node({"QuantizeLinear", "q", {"x", "s", "zp"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(5, floatTensor("s", {}, {scale}));
  g.msg(5, zpTensor);
  const auto n = int64_t(x.size());
  g.msg(11, valueInfo("x", {n}));
  g.msg(12, Pb().bytes(1, "y").msg(2, tensorType({n}, elemType)));
  onnx::OnnxImportOptions opts;
  opts.keepNchwIo = true;
  auto m = onnx::importOnnxBytes(model(g, 13), "quantize.onnx", opts);
  if (!m) return m.status();
  *reciprocals = countOps(**m, "tosa.reciprocal");
  SessionOptions so;
  so.backend = backend;
  auto s = Session::create(std::move(*m), so);
  if (!s) return s.status();
  std::vector<double> xd(x.begin(), x.end());
  RunResult r;
  TK_RETURN_IF_ERROR((*s)->run({{"x", Tensor::fromDoubles(DType::FP32, {n}, xd)}}, r));
  return r.outputs.at(0).second;
}

// The adversarial inputs for scale s: every rounding halfway point (k + 0.5) * s of the output range rounded to
// float and 3 floats either side, the clamp ends, +-0, huge and subnormal values, +-inf if asked.
std::vector<float> hardInputs(float s, int64_t lo, int64_t hi, int64_t zp, bool infinities) {
  std::vector<float> x = {0.0f, -0.0f, 3e38f, -3e38f, 1e-45f, -1e-45f, 1e-30f, s, -s};
  if (infinities) x.insert(x.end(), {INFINITY, -INFINITY});
  for (int64_t k = lo - zp - 2; k <= hi - zp + 1; ++k) {
    float v = float((double(k) + 0.5) * double(s));
    for (int i = 0; i < 3; ++i) v = std::nextafter(v, -INFINITY);
    for (int i = 0; i < 7; ++i, v = std::nextafter(v, INFINITY)) x.push_back(v);
  }
  return x;
}

// ONNX's QuantizeLinear (its reference implementation: numpy rint(x / y_scale) in float32, + zp, saturate):
// the float32 quotient is the float64 one rounded to float32 (innocuous double rounding for a division).
int64_t onnxQuantize(float x, float s, int64_t zp, int64_t lo, int64_t hi) {
  const double q = std::nearbyint(double(float(double(x) / double(s))));
  return int64_t(std::clamp(q + double(zp), double(lo), double(hi)));
}

// The constant-scale QuantizeLinear (no float divide in TOSA: a shorter sequence proven at import, or the exact
// division) gives ONNX's integers at every rounding tie and its float neighbours, on both backends.
TEST(OnnxQuant, QuantizeLinearConstantScaleAtRoundingTies) {
  struct Case {
    float scale;
    int64_t zp;
    bool int8;
    bool exactDivision = false;  // beyond the short sequence's range
  };
  const std::vector<Case> cases = {
      {0.0374455191f, 57, false},  // torchvision QDQ models' input scale (tests/qdq)
      {0.0374455191f, 0, false},  {0.0078125f, 128, false}, {0.1f, 255, false},   {1.0f / 3.0f, -128, true},
      {0x1.fffffep-5f, 0, true},  {0.0123456f, 5, true},    {3.14159f, -7, true}, {1e-7f, 0, false},
      {1000.5f, 100, false},      {0x1p70f, 0, true, true},
  };
  for (const auto& c : cases) {
    const int64_t lo = c.int8 ? -128 : 0, hi = c.int8 ? 127 : 255;
    // The exact division's residual of an infinity is NaN (a CAST of NaN is unpredictable in TOSA).
    const std::vector<float> x = hardInputs(c.scale, lo, hi, c.zp, !c.exactDivision);
    for (const char* backend : {"ref", "fast"}) {
      int reciprocals = 0;
      auto y = quantizeHand(c.scale, c.zp, c.int8, x, backend, &reciprocals);
      ASSERT_TRUE(y.isOk()) << "scale " << c.scale << ": " << y.status().toString();
      ASSERT_EQ(y->size(), int64_t(x.size()));
      EXPECT_EQ(reciprocals > 0, c.exactDivision) << "scale " << c.scale;
      int bad = 0;
      for (size_t i = 0; i < x.size() && bad < 5; ++i) {
        int64_t got = y->getInt(int64_t(i));
        if (!c.int8) got &= 0xff;  // uint8 may come back as its int8 carrier
        const int64_t want = onnxQuantize(x[i], c.scale, c.zp, lo, hi);
        if (got != want) {
          ADD_FAILURE() << backend << " scale " << c.scale << " zp " << c.zp << " x " << x[i] << ": got " << got
                        << ", want " << want << " (" << ++bad << ")";
        }
      }
    }
  }
}

}  // namespace
}  // namespace tosakit::onnxtest
