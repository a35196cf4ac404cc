// Appendix A test data: set_data values computed by hand with the spec's recurrence (mod 2^32):
//   set 0: m = 0x705A5E75, r0 = m + 1 = 0x705A5E76 -> +0x705A5E76 / 0x7FFFFFFF = 0.87775784...
//          r1 = r0 * m + 1 = 0x5D787FEF -> 0.73023987; r2 = 0x81123A3C (sign bit set) -> -0.00836876
//   set 1: m = 9 * 0x705A5E75 = 0xF32D521D (mod 2^32), r0 = 0xF32D521E -> -0.89982057
#include <gtest/gtest.h>

#include <cmath>

#include "compliance/datagen.h"
#include "formats/npy/npy.h"
#include "ir/graph.h"

using namespace tosakit;
using namespace tosakit::compliance;

TEST(SetData, Recurrence) {
  EXPECT_FLOAT_EQ(setData(0, 0), 0.8777578473f);
  EXPECT_FLOAT_EQ(setData(0, 1), 0.7302398682f);
  EXPECT_FLOAT_EQ(setData(0, 2), -0.0083687585f);
  EXPECT_FLOAT_EQ(setData(1, 0), -0.8998205662f);
  EXPECT_FLOAT_EQ(setData(3, 5), 0.6588616371f);
  SetDataCache c;
  for (uint32_t i = 0; i < 50; ++i) EXPECT_EQ(c.get(7, i), setData(7, i));
}

TEST(ProFpData, Sets) {
  SetDataCache c;
  // S0: p0 = set_data(0,i) < 0 ? 0 : set_data(1,i); p1 = set_data(0,i) < 0 ? set_data(1,i) : 0.
  // i = 0: set_data(0,0) > 0 -> p0 = set_data(1,0) = -0.8998..., p1 = 0.
  EXPECT_FLOAT_EQ(float(proFpData(c, 0, 4, 0, 0, 0, 1.0)), -0.8998205662f);
  EXPECT_EQ(proFpData(c, 0, 4, 1, 0, 0, 1.0), 0.0);
  // i = 2: set_data(0,2) < 0 -> p0 = 0.
  EXPECT_EQ(proFpData(c, 0, 4, 0, 0, 2, 1.0), 0.0);
  EXPECT_EQ(proFpData(c, 0, 4, 2, 0, 0, 1.0), 0.0);
  // S2: k == 0 gives 1.0; otherwise set_data(6, i) / sqrt(KS).
  EXPECT_EQ(proFpData(c, 2, 9, 0, 0, 5, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(proFpData(c, 2, 9, 0, 1, 5, 1.0), double(setData(6, 5)) / 3.0);
  // S3, k == 0: +-16 by the sign of set_data(9, 2i).
  double v = proFpData(c, 3, 4, 0, 0, 1, 1.0);
  EXPECT_EQ(v, setData(9, 2) < 0 ? -16.0 : 16.0);
  // S4, k == KS/2: +-0.5 with opposite signs for p0 and p1.
  EXPECT_EQ(proFpData(c, 4, 4, 0, 2, 0, 1.0), -proFpData(c, 4, 4, 1, 2, 0, 1.0));
  // S5: B / sqrt(KS) * set_data(15 + p, i).
  EXPECT_DOUBLE_EQ(proFpData(c, 5, 4, 1, 0, 3, 448.0), 448.0 / 2.0 * double(setData(16, 3)));
  // S1 magnitudes lie in B/sqrt(KS+1) * [0.5, 1].
  for (int i = 0; i < 20; ++i) {
    double a = std::fabs(proFpData(c, 1, 3, 0, 0, i, 100.0));
    EXPECT_GE(a, 100.0 / 2.0 * 0.5);
    EXPECT_LE(a, 100.0 / 2.0 * 1.0);
  }
}

TEST(BoundB, Table) {
  EXPECT_EQ(boundB(DType::FP8E4M3, DType::FP8E4M3, DType::FP16), 240.0);
  EXPECT_EQ(boundB(DType::FP8E5M2, DType::FP8E5M2, DType::FP32), 57344.0);
  EXPECT_EQ(boundB(DType::FP8E4M3, DType::FP8E5M2, DType::FP16), 224.0);
  EXPECT_EQ(boundB(DType::FP16, DType::FP16, DType::FP16), 255.875);
  EXPECT_EQ(boundB(DType::FP32, DType::FP32, DType::FP32), std::ldexp(1.0, 64) - std::ldexp(1.0, 40));
}

TEST(GenerateInputs, MatmulFollowsSection534) {
  // matmul A[1,2,4] x B[1,4,3]: KS = C = 4; A[n,y,c] = data(S, 4, 0, c, (n*H+y)*C+c).
  ir::Module m;
  ir::Function& fn = m.addFunction("main");
  ir::Value* a = m.newValue(ir::ValueType::tensor(DType::FP32, {1, 2, 4}), "a");
  ir::Value* b = m.newValue(ir::ValueType::tensor(DType::FP32, {1, 4, 3}), "b");
  fn.body.args = {a, b};
  auto op = std::make_unique<ir::Operation>();
  op->name = "tosa.matmul";
  op->operands = {a, b};
  op->results = {m.newValue(ir::ValueType::tensor(DType::FP32, {1, 2, 3}))};
  fn.body.ops.push_back(std::move(op));
  auto gen = generateInputs(fn, 2, 0);
  ASSERT_TRUE(gen.isOk()) << gen.status().toString();
  const Tensor& A = (*gen)[0].second;
  const Tensor& B = (*gen)[1].second;
  // S2: element with c == 0 is 1.0; A[0,1,2] (i = 6, k = 2) = set_data(6, 6) / 2 rounded to fp32.
  EXPECT_EQ(A.getFloat(0), 1.0);
  EXPECT_EQ(A.getFloat(4), 1.0);
  EXPECT_EQ(A.getFloat(6), double(float(double(setData(6, 6)) / 2.0)));
  // B[0,c,x]: k = c; B[0,0,x] = 1.0; B[0,1,2] (i = 5) = set_data(7, 5) / 2.
  EXPECT_EQ(B.getFloat(2), 1.0);
  EXPECT_EQ(B.getFloat(5), double(float(double(setData(7, 5)) / 2.0)));
  EXPECT_FALSE(generateInputs(fn, 6, 0).isOk());
}

// Independent oracle: Arm's conformance generator produced the DOT_PRODUCT vectors' inputs with Appendix A.
// Test sets S0..S4 must match input0.npy bit for bit. (S5 differs: the generator scales by B/sqrt(KS+1), the
// 1.0 text says B/sqrt(KS); tosakit follows the text.)
namespace {
struct ConvVector {
  const char* dir;  // without the trailing test-set digit
  const char* op;
  DType dtype;
  Shape input, weight, output;
};

void checkAgainstVector(const ConvVector& v, int S) {
  std::string path = std::string(TOSAKIT_CONFORMANCE_DIR) + "/" + v.dir + std::to_string(S) + "/input0.npy";
  auto want = npy::readNpy(path);
  ASSERT_TRUE(want.isOk()) << want.status().toString();
  auto wantT = npy::adaptToDType(*want, v.dtype, path);
  ASSERT_TRUE(wantT.isOk());
  ir::Module m;
  ir::Function& fn = m.addFunction("main");
  ir::Value* in = m.newValue(ir::ValueType::tensor(v.dtype, v.input), "input");
  ir::Value* w = m.newValue(ir::ValueType::tensor(v.dtype, v.weight), "weight");
  ir::Value* b = m.newValue(ir::ValueType::tensor(v.dtype, {v.weight[0]}), "bias");
  fn.body.args = {in, w, b};
  auto op = std::make_unique<ir::Operation>();
  op->name = v.op;
  op->operands = {in, w, b};
  op->attrs["acc_type"] = ir::Attribute::type(DType::FP32);
  op->results = {m.newValue(ir::ValueType::tensor(v.dtype, v.output))};
  fn.body.ops.push_back(std::move(op));
  auto gen = generateInputs(fn, S, 0);
  ASSERT_TRUE(gen.isOk()) << gen.status().toString();
  const Tensor& got = (*gen)[0].second;
  ASSERT_EQ(got.size(), wantT->size());
  for (int64_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got.getInt(i), wantT->getInt(i))
        << v.dir << S << " element " << i << ": " << got.getFloat(i) << " vs " << wantT->getFloat(i);
}

const ConvVector kConv3d{"conv3d_1x1x2/conv3d_1x1x2_2x2x4x5x2_f32xf32_accf32_st111_pad110111_dilat211_lclbnd1_s",
                         "tosa.conv3d",
                         DType::FP32,
                         {2, 2, 4, 5, 2},
                         {5, 1, 1, 2, 2},
                         {2, 4, 5, 6, 5}};
const ConvVector kTconv{
    "transpose_conv2d_3x1/transpose_conv2d_3x1_2x5x5x3_bf16xbf16_accf32_st22_pad1000_os2x12x9x5_lclbnd0_s",
    "tosa.transpose_conv2d",
    DType::BF16,
    {2, 5, 5, 3},
    {5, 3, 1, 3},
    {2, 12, 9, 5}};
}  // namespace

TEST(GenerateInputs, MatchesConformanceConv3dFp32) {
  for (int S = 0; S <= 4; ++S) checkAgainstVector(kConv3d, S);
}

TEST(GenerateInputs, MatchesConformanceTransposeConv2dBf16) {
  for (int S = 0; S <= 4; ++S) checkAgainstVector(kTconv, S);
}
