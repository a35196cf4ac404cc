// Tensor element access for every DType: integer truncation and sign extension (i4, i48), unsigned
// zero extension, bool, float formats stored as bit patterns.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/tensor.h"

using namespace tosakit;

TEST(Tensor, ZeroFilledAndShape) {
  for (DType t : kAllDTypes) {
    Tensor x(t, {2, 3});
    EXPECT_EQ(x.size(), 6);
    EXPECT_EQ(x.byteSize(), 6 * storageBytes(t)) << dtypeName(t);
    for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(x.getInt(i), 0) << dtypeName(t);
  }
  Tensor s(DType::I8, {});
  EXPECT_EQ(s.size(), 1);  // rank 0 holds one element
}

TEST(Tensor, SignedIntegersTruncateAndSignExtend) {
  struct Case {
    DType t;
    int64_t in, out;
  };
  const Case cases[] = {
      // i4: low 4 bits, sign-extended: 7 -> 7, 8 (1000b) -> -8, 15 (1111b) -> -1, 16 -> 0, -8 -> -8.
      {DType::I4, 7, 7},
      {DType::I4, 8, -8},
      {DType::I4, 15, -1},
      {DType::I4, 16, 0},
      {DType::I4, -8, -8},
      {DType::I4, -1, -1},
      // i8: 200 = 0xC8 -> -56; 127 stays; 256 -> 0.
      {DType::I8, 200, -56},
      {DType::I8, 127, 127},
      {DType::I8, 256, 0},
      {DType::I8, -128, -128},
      {DType::I16, 40000, 40000 - 65536},
      {DType::I16, -32768, -32768},
      {DType::I32, int64_t(1) << 31, -(int64_t(1) << 31)},
      {DType::I32, -1, -1},
      // i48: 2^47 -> -2^47; 2^48 - 1 -> -1; 2^48 -> 0.
      {DType::I48, int64_t(1) << 47, -(int64_t(1) << 47)},
      {DType::I48, (int64_t(1) << 48) - 1, -1},
      {DType::I48, int64_t(1) << 48, 0},
      {DType::I48, (int64_t(1) << 47) - 1, (int64_t(1) << 47) - 1},
      {DType::I64, INT64_MIN, INT64_MIN},
      {DType::I64, INT64_MAX, INT64_MAX},
  };
  for (const Case& c : cases) {
    Tensor x(c.t, {1});
    x.setInt(0, c.in);
    EXPECT_EQ(x.getInt(0), c.out) << dtypeName(c.t) << " " << c.in;
    EXPECT_EQ(x.getFloat(0), double(c.out)) << dtypeName(c.t);
  }
}

TEST(Tensor, UnsignedIntegersZeroExtend) {
  struct Case {
    DType t;
    int64_t in, out;
  };
  const Case cases[] = {
      {DType::U8, 255, 255},         {DType::U8, 256, 0},     {DType::U8, -1, 255},
      {DType::U16, 65535, 65535},    {DType::U16, -1, 65535}, {DType::U32, -1, 4294967295LL},
      {DType::U32, 4294967296LL, 0},
  };
  for (const Case& c : cases) {
    Tensor x(c.t, {1});
    x.setInt(0, c.in);
    EXPECT_EQ(x.getInt(0), c.out) << dtypeName(c.t) << " " << c.in;
  }
}

TEST(Tensor, Bool) {
  Tensor x(DType::Bool, {3});
  x.setInt(0, 1);
  x.setInt(1, 0);
  x.setFloat(2, 1.0);
  EXPECT_EQ(x.getInt(0), 1);
  EXPECT_EQ(x.getInt(1), 0);
  EXPECT_EQ(x.getInt(2), 1);
  EXPECT_EQ(x.data()[0], 1);  // one byte per element
  EXPECT_EQ(x.data()[1], 0);
}

TEST(Tensor, FloatsStoredAsBitPatterns) {
  struct Case {
    DType t;
    int64_t oneBits;
  };
  // 1.0 encodings: fp8e4m3 0 0111 000 = 0x38, fp8e5m2 0 01111 00 = 0x3C, fp16 0x3C00, bf16 0x3F80,
  // fp32 0x3F800000, fp64 0x3FF0000000000000.
  const Case cases[] = {{DType::FP8E4M3, 0x38}, {DType::FP8E5M2, 0x3C},    {DType::FP16, 0x3C00},
                        {DType::BF16, 0x3F80},  {DType::FP32, 0x3F800000}, {DType::FP64, 0x3FF0000000000000LL}};
  for (const Case& c : cases) {
    Tensor x(c.t, {2});
    x.setFloat(0, 1.0);
    EXPECT_EQ(x.getInt(0), c.oneBits) << dtypeName(c.t);
    EXPECT_EQ(x.getFloat(0), 1.0);
    x.setInt(1, c.oneBits);  // setInt on a float type stores the pattern
    EXPECT_EQ(x.getFloat(1), 1.0) << dtypeName(c.t);
    x.setFloat(1, -0.0);
    EXPECT_TRUE(std::signbit(x.getFloat(1))) << dtypeName(c.t);
  }
}

TEST(Tensor, SetFloatRoundsToFormat) {
  Tensor h(DType::FP16, {3});
  h.setFloat(0, 1.0 + std::ldexp(1.0, -11));      // tie between 1 and 1+2^-10: even -> 1.0
  h.setFloat(1, 1.0 + 3 * std::ldexp(1.0, -11));  // tie between 1+2^-10 and 1+2^-9: even -> 1+2^-9
  h.setFloat(2, 70000.0);                         // overflow -> inf
  EXPECT_EQ(h.getFloat(0), 1.0);
  EXPECT_EQ(h.getFloat(1), 1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(h.getFloat(2), INFINITY);
  Tensor e(DType::FP8E4M3, {2});
  e.setFloat(0, 500.0);  // no infinity in e4m3 -> NaN
  e.setFloat(1, 0.3);    // 0.3 between 0.28125 (1.001b*2^-2) and 0.3125 (1.010b*2^-2): nearer 0.3125
  EXPECT_TRUE(std::isnan(e.getFloat(0)));
  EXPECT_EQ(e.getFloat(1), 0.3125);
  Tensor b(DType::BF16, {1});
  b.setFloat(0, 1.0 / 3.0);  // 1/3 in bf16: 0x3EAB = 0.333984375
  EXPECT_EQ(b.getInt(0), 0x3EAB);
  EXPECT_EQ(b.getFloat(0), 0.333984375);
}

TEST(Tensor, IntegerSetFloatTruncatesTowardZero) {
  Tensor x(DType::I8, {2});
  x.setFloat(0, -2.7);
  x.setFloat(1, 2.7);
  EXPECT_EQ(x.getInt(0), -2);
  EXPECT_EQ(x.getInt(1), 2);
}

TEST(Tensor, FromIntsToDoublesRoundTrip) {
  Tensor x = Tensor::fromInts(DType::I4, {4}, {-8, -1, 0, 7});
  EXPECT_EQ(x.toInts(), (std::vector<int64_t>{-8, -1, 0, 7}));
  Tensor f = Tensor::fromDoubles(DType::BF16, {2}, {0.5, -2.0});
  EXPECT_EQ(f.toDoubles(), (std::vector<double>{0.5, -2.0}));
  Tensor y = Tensor::fromInts(DType::I48, {1}, {-(int64_t(1) << 47)});
  EXPECT_EQ(y.toInts()[0], -(int64_t(1) << 47));
  EXPECT_EQ(x.offset({2}), 2);
  Tensor z(DType::I8, {2, 3, 4});
  EXPECT_EQ(z.offset({1, 2, 3}), 1 * 12 + 2 * 4 + 3);
}
