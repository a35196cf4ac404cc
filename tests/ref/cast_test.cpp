// CAST (spec 2.13.1): one case for every row of the Supported Data Types table. Expected values are hand
// calculations: float->int rounds to nearest, ties to even, then saturates; int->int sign-extends or keeps
// the low bits; to-float rounds once to nearest-even (overflow: infinity, fp8e4m3: NaN, OCP non-saturating).
#include <cmath>
#include <limits>

#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor make(DType t, const std::vector<double>& v) {
  Shape s{int64_t(v.size())};
  if (isFloat(t)) return Tensor::fromDoubles(t, s, v);
  std::vector<int64_t> iv;
  for (double d : v) iv.push_back(int64_t(d));
  return Tensor::fromInts(t, s, iv);
}

struct CastCase {
  DType in, out;
  std::vector<double> input, expected;
  const char* why;
};

void PrintTo(const CastCase& c, std::ostream* os) {
  *os << dtypeName(c.in) << "->" << dtypeName(c.out) << " (" << c.why << ")";
}

class CastRowTest : public ::testing::TestWithParam<CastCase> {};

TEST_P(CastRowTest, HandComputed) {
  const CastCase& c = GetParam();
  auto r = runOp("tosa.cast", {Arg(make(c.in, c.input))}, {TT(c.out, {int64_t(c.input.size())})});
  EXPECT_RUN_OK(r);
  std::vector<double> got = r.outputs[0].toDoubles();
  ASSERT_EQ(got.size(), c.expected.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(c.expected[i]))
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else
      EXPECT_EQ(got[i], c.expected[i]) << "element " << i;
  }
}

using D = DType;
const double kMin16 = std::ldexp(1.0, -14);  // smallest fp16 normal

INSTANTIATE_TEST_SUITE_P(
    AllRows, CastRowTest,
    ::testing::Values(
        // ---- PRO-FP ----
        CastCase{D::FP16, D::FP32, {1.5, kMin16, 65504}, {1.5, kMin16, 65504}, "exact widening"},
        CastCase{D::FP16, D::I16, {2.5, 3.5, -2.5, 65504}, {2, 4, -2, 32767}, "ties to even; saturate"},
        CastCase{D::FP16, D::I32, {65504, -65504, 0.5}, {65504, -65504, 0}, "0.5 ties to even 0"},
        CastCase{D::FP16, D::I8, {127.5, -200, 1.5}, {127, -128, 2}, "127.5 -> 128 -> saturates to 127"},
        CastCase{D::FP32,
                 D::FP16,
                 {1 + std::ldexp(1, -10), 1 + std::ldexp(1, -11), 70000, 65519},
                 {1 + std::ldexp(1, -10), 1, kInf, 65504},
                 "1+2^-11 is a tie -> 1; 70000 overflows -> inf; 65519 < 65520 rounds to 65504"},
        CastCase{D::FP32, D::I16, {40000, -1.5, 0.49999997}, {32767, -2, 0}, "saturate; -1.5 ties to -2"},
        CastCase{D::FP32,
                 D::I32,
                 {3e9, -3e9, 2.5, kInf},
                 {2147483647, -2147483648.0, 2, 2147483647},
                 "saturate to i32; inf saturates"},
        CastCase{D::FP32, D::I8, {-0.5, 0.5, 1000}, {0, 0, 127}, "+-0.5 ties to 0"},
        CastCase{D::I16,
                 D::FP16,
                 {-32768, 2049, 4097},
                 {-32768, 2048, 4096},
                 "2049: tie between 2048 and 2050 -> even 2048; 4097 (spacing 4) -> 4096"},
        CastCase{D::I16, D::FP32, {-32768, 32767}, {-32768, 32767}, "exact"},
        CastCase{D::I32,
                 D::FP16,
                 {65520, 70000, 100, 2147483647},
                 {kInf, kInf, 100, kInf},
                 "65520 ties between 65504 and 65536 -> even 65536 = overflow -> inf"},
        CastCase{D::I32,
                 D::FP32,
                 {16777217, 2147483647},
                 {16777216, 2147483648.0},
                 "2^24+1 ties to even 2^24; 2^31-1 rounds to 2^31"},
        CastCase{D::I8, D::FP16, {-128, 127}, {-128, 127}, "exact"},
        CastCase{D::I8, D::FP32, {-1, 0}, {-1, 0}, "exact"},
        // ---- PRO-INT ----
        CastCase{D::Bool, D::I16, {0, 1}, {0, 1}, "true -> 1"}, CastCase{D::Bool, D::I32, {1, 0}, {1, 0}, "true -> 1"},
        CastCase{D::Bool, D::I8, {0, 1}, {0, 1}, "true -> 1"},
        CastCase{D::I16, D::Bool, {0, -5, 256}, {0, 1, 1}, "in != 0"},
        CastCase{D::I16, D::I32, {-32768, 32767}, {-32768, 32767}, "sign extend"},
        CastCase{D::I16, D::I8, {300, -129, 127}, {44, 127, 127}, "low 8 bits: 0x12C -> 0x2C, 0xFF7F -> 0x7F"},
        CastCase{D::I32, D::Bool, {0, 65536}, {0, 1}, "in != 0"},
        CastCase{D::I32, D::I16, {65537, -32769}, {1, 32767}, "low 16 bits: 0x10001 -> 1, 0xFFFF7FFF -> 0x7FFF"},
        CastCase{D::I32, D::I8, {261, -1}, {5, -1}, "low 8 bits: 0x105 -> 5"},
        CastCase{D::I8, D::Bool, {0, -128}, {0, 1}, "in != 0"},
        CastCase{D::I8, D::I16, {-128, 127}, {-128, 127}, "sign extend"},
        CastCase{D::I8, D::I32, {-128, 5}, {-128, 5}, "sign extend"},
        // ---- EXT-BF16 ----
        CastCase{D::BF16, D::FP32, {1.5, -0.0078125}, {1.5, -0.0078125}, "exact"},
        CastCase{D::BF16, D::I16, {2.5, 65536, -65536}, {2, 32767, -32768}, "tie to even; saturate"},
        CastCase{D::BF16, D::I32, {3.5, 1e10}, {4, 2147483647}, "3.5 ties to 4; saturate"},
        CastCase{D::BF16, D::I8, {-0.5, 127.5}, {0, 127}, "127.5 (exact in bf16) -> 128 -> saturates"},
        CastCase{D::FP32,
                 D::BF16,
                 {1 + std::ldexp(1, -8), 1 + 3 * std::ldexp(1, -8), 3.4e38},
                 {1, 1 + std::ldexp(1, -6), kInf},
                 "ties to even mantissa; 3.4e38 > bf16 max 3.3895e38 + half ulp -> inf"},
        CastCase{D::I16, D::BF16, {257, 259}, {256, 260}, "257 ties to 256 (even), 259 ties to 260 (even)"},
        CastCase{D::I32, D::BF16, {16777217, -1}, {16777216, -1}, "2^24+1 -> 2^24"},
        CastCase{D::I8, D::BF16, {-128, 127}, {-128, 127}, "8 significant bits are exact"},
        // ---- EXT-BF16 and EXT-FP8 ----
        CastCase{D::BF16,
                 D::FP8E4M3,
                 {448, 480, 0.0625, -1.125, kInf},
                 {448, kNaN, 0.0625, -1.125, kNaN},
                 "448 is max; 480 and inf are beyond range: NaN (non-saturating, no infinity)"},
        CastCase{D::FP8E4M3,
                 D::BF16,
                 {448, std::ldexp(1, -9), -2.5},
                 {448, std::ldexp(1, -9), -2.5},
                 "exact incl. min subnormal 2^-9"},
        CastCase{D::BF16,
                 D::FP8E5M2,
                 {57344, 65536, 1.25, 1.125},
                 {57344, kInf, 1.25, 1},
                 "57344 is max; 2^16 -> inf; 1.125 ties between 1.0 and 1.25 -> even 1.0"},
        CastCase{D::FP8E5M2,
                 D::BF16,
                 {57344, -0.5, std::ldexp(1, -16)},
                 {57344, -0.5, std::ldexp(1, -16)},
                 "exact incl. min subnormal 2^-16"},
        // ---- EXT-FP8E4M3 ----
        CastCase{D::FP16,
                 D::FP8E4M3,
                 {3.25, 1.0625, -500, 464},
                 {3.25, 1, kNaN, 448},
                 "1.0625 ties -> 1.0; -500 -> NaN; 464 ties between 448 (mantissa 110) and 480 -> 448"},
        CastCase{D::FP32,
                 D::FP8E4M3,
                 {std::ldexp(1, -9), std::ldexp(1, -10), 240},
                 {std::ldexp(1, -9), 0, 240},
                 "2^-10 ties between 0 and 2^-9 -> even 0"},
        CastCase{D::FP8E4M3, D::FP16, {448, -std::ldexp(1, -9)}, {448, -std::ldexp(1, -9)}, "exact"},
        CastCase{D::FP8E4M3, D::FP32, {0.875, std::ldexp(1, -9)}, {0.875, std::ldexp(1, -9)}, "exact"},
        // ---- EXT-FP8E5M2 ----
        CastCase{D::FP16,
                 D::FP8E5M2,
                 {65504, 0.3, -kInf},
                 {kInf, 0.3125, -kInf},
                 "65504 -> 65536 (spacing 8192) > max -> inf; fp16(0.3) = 1229/4096 = 0.30005; / 0.0625 = 4.80 -> 5 * "
                 "0.0625"},
        CastCase{D::FP32, D::FP8E5M2, {-1e6, 3.0, 1.5}, {-kInf, 3, 1.5}, "overflow -> -inf"},
        CastCase{D::FP8E5M2, D::FP16, {57344, std::ldexp(1, -16)}, {57344, std::ldexp(1, -16)}, "exact"},
        CastCase{D::FP8E5M2, D::FP32, {-3.5, 0.75}, {-3.5, 0.75}, "exact"}));

TEST(CastTest, FloatNanStaysNan) {
  // "If the input value is a NaN, a NaN of the output type must be returned."
  auto r = runOp("tosa.cast", {Arg(Tensor::fromDoubles(DType::FP32, {1}, {kNaN}))}, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_TRUE(std::isnan(r.outputs[0].toDoubles()[0]));
}

TEST(CastTest, NanToIntegerIsUnpredictable) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    // "If any input is a NaN, the result is unpredictable."
    auto r = run("tosa.cast", {Arg(Tensor::fromDoubles(DType::FP32, {2}, {1, kNaN}))}, {TT(DType::I32, {2})});
    EXPECT_UNPREDICTABLE(r);
  }
}

TEST(CastTest, TypePairsOutsideTheTableAreErrors) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    // i4 -> i8, fp32 -> i48, fp16 -> bf16 and fp8 -> i8 are not rows of CAST's Supported Data Types.
    EXPECT_SPEC_ERROR(run("tosa.cast", {Arg(Tensor::fromInts(DType::I4, {1}, {1}))}, {TT(DType::I8, {1})}));
    EXPECT_SPEC_ERROR(run("tosa.cast", {Arg(Tensor::fromDoubles(DType::FP32, {1}, {1}))}, {TT(DType::I48, {1})}));
    EXPECT_SPEC_ERROR(run("tosa.cast", {Arg(Tensor::fromDoubles(DType::FP16, {1}, {1}))}, {TT(DType::BF16, {1})}));
    EXPECT_SPEC_ERROR(run("tosa.cast", {Arg(Tensor::fromDoubles(DType::FP8E4M3, {1}, {1}))}, {TT(DType::I8, {1})}));
  }
}

TEST(CastTest, ShapeMismatchIsError) {
  for (const OpRunner& run : {kValidatedPath, kKernelPath}) {
    EXPECT_SPEC_ERROR(run("tosa.cast", {Arg(Tensor::fromInts(DType::I8, {2}, {1, 2}))}, {TT(DType::I32, {1, 2})}));
  }
}

}  // namespace
}  // namespace tosakit::testing
