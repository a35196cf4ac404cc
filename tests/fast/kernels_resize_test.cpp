// The fast backend's RESIZE kernel vs the reference backend, through the Session as users run graphs:
// random shapes, scales, offsets and borders that satisfy the spec's ERROR_IFs, every type pair of TOSA 1.0,
// both modes, fixed seeds. The kernel claims bit-identical results for every type (integers: the spec's
// integer arithmetic; floats: the reference's operations in the same order, each rounded to resize_t), so
// outputs must be byte-identical, with 1 and 2 threads, including inf/NaN inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "fast_test_util.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

using Outcome = SingleOutcome;

struct ResizeCase {
  DType inT = DType::FP32, outT = DType::FP32;
  bool bilinear = false;
  Shape in, out;
  std::vector<int64_t> scale, offset, border;
};

std::unique_ptr<ir::Module> makeResize(const ResizeCase& c) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(c.inT, c.in), "x");
  auto* y = b.op1("tosa.resize", {x, b.constShape(c.scale), b.constShape(c.offset), b.constShape(c.border)},
                  ValueType::tensor(c.outT, c.out),
                  {{"mode", Attribute::enumCase(c.bilinear ? "BILINEAR" : "NEAREST_NEIGHBOR")}});
  b.output({y}, {"y"});
  return m;
}

Outcome runOn(const ResizeCase& c, const std::string& backend, const Tensor& x, int threads) {
  return runSingle(makeResize(c), backend, x, threads);
}

// One axis of a valid resize: scale_n, scale_d, offset, border with OH = ((IH-1)*n - offset + border)/d + 1
// exact and every bound of the spec's ERROR_IFs held. False when this draw has no valid border.
bool drawAxis(int64_t inSize, std::mt19937& rng, int64_t& n, int64_t& d, int64_t& off, int64_t& border,
              int64_t& outSize) {
  static const int64_t numerators[] = {1, 2, 3, 4, 5, 7, 8, 16, 64, 2048};
  n = numerators[rng() % 10];
  d = 1 + int64_t(rng() % uint64_t(std::min<int64_t>(16 * n - 1, 3 * n + 5)));
  off = -n + int64_t(rng() % uint64_t(std::min<int64_t>(17 * n, 3 * n + 3)));
  const int64_t base = (inSize - 1) * n - off;
  std::vector<int64_t> borders;
  for (int64_t b = -16 * n; b < n; ++b)
    if (base + b >= 0 && (base + b) % d == 0 && (base + b) / d + 1 <= 40) borders.push_back(b);
  if (borders.empty()) return false;
  border = borders[rng() % borders.size()];
  outSize = (base + border) / d + 1;
  return true;
}

Tensor randomInput(DType t, const Shape& s, std::mt19937& rng, bool specials) {
  Tensor x(t, s);
  std::uniform_real_distribution<double> u(-8, 8);
  const double special[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0};
  for (int64_t i = 0; i < x.size(); ++i) {
    if (isFloat(t))
      x.setFloat(i, specials && rng() % 8 == 0 ? special[rng() % 5] : u(rng));
    else
      x.setInt(i, int64_t(rng() % 65536) - 32768);  // setInt keeps the type's low bits: full range
  }
  return x;
}

void expectSameAsReference(const ResizeCase& c, const Tensor& x, const std::string& what) {
  Outcome ref = runOn(c, "ref", x, 1);
  ASSERT_TRUE(ref.status.isOk()) << what << ": " << ref.status.toString();
  for (int threads : {1, 2}) {
    Outcome fast = runOn(c, "fast", x, threads);
    ASSERT_TRUE(fast.status.isOk()) << what << ": " << fast.status.toString();
    EXPECT_EQ(fast.impl, c.bilinear ? "fast:resize_bilinear" : "fast:resize_nearest") << what;
    EXPECT_TRUE(ref.output.identical(fast.output)) << what << " threads " << threads;
  }
}

struct TypePair {
  DType in, nearestOut, bilinearOut;
};
const TypePair kTypes[] = {{DType::I8, DType::I8, DType::I32},
                           {DType::I16, DType::I16, DType::I48},
                           {DType::FP16, DType::FP16, DType::FP16},
                           {DType::BF16, DType::BF16, DType::BF16},
                           {DType::FP32, DType::FP32, DType::FP32}};

TEST(FastResize, RandomAttributesEveryTypeIdenticalToReference) {
  std::mt19937 rng(1101);
  for (const TypePair& tp : kTypes) {
    for (bool bilinear : {false, true}) {
      for (int trial = 0; trial < 12; ++trial) {
        ResizeCase c;
        c.inT = tp.in;
        c.outT = bilinear ? tp.bilinearOut : tp.nearestOut;
        c.bilinear = bilinear;
        c.in = {1 + int64_t(rng() % 2), 1 + int64_t(rng() % 9), 1 + int64_t(rng() % 9), 1 + int64_t(rng() % 19)};
        int64_t yn, yd, yo, yb, oh, xn, xd, xo, xb, ow;
        if (!drawAxis(c.in[1], rng, yn, yd, yo, yb, oh) || !drawAxis(c.in[2], rng, xn, xd, xo, xb, ow)) {
          --trial;
          continue;
        }
        c.out = {c.in[0], oh, ow, c.in[3]};
        c.scale = {yn, yd, xn, xd};
        c.offset = {yo, xo};
        c.border = {yb, xb};
        std::string what = std::string(dtypeName(tp.in)) + (bilinear ? " bilinear" : " nearest") + " trial " +
            std::to_string(trial) + " scale " + std::to_string(yn) + "/" + std::to_string(yd) + "," +
            std::to_string(xn) + "/" + std::to_string(xd);
        expectSameAsReference(c, randomInput(tp.in, c.in, rng, trial % 3 == 0), what);
      }
    }
  }
}

TEST(FastResize, LargeUpscalesSplitAcrossThreadsIdentically) {
  // PP-OCR's FPN: 2x nearest upscales of 96 channels, plus a bilinear of the same size (> 65536 outputs, so
  // the kernel splits rows over threads).
  std::mt19937 rng(1102);
  for (DType t : {DType::FP32, DType::I8, DType::I16}) {
    for (bool bilinear : {false, true}) {
      ResizeCase c;
      c.inT = t;
      c.outT = !bilinear ? t : t == DType::I8 ? DType::I32 : t == DType::I16 ? DType::I48 : t;
      c.bilinear = bilinear;
      c.in = {2, 20, 20, 96};
      c.out = {2, 40, 40, 96};
      c.scale = {4, 2, 4, 2};
      c.offset = {bilinear ? -1 : 0, bilinear ? -1 : 0};
      c.border = {bilinear ? 1 : 2, bilinear ? 1 : 2};
      expectSameAsReference(c, randomInput(t, c.in, rng, t == DType::FP32), std::string(dtypeName(t)) + " large");
    }
  }
}

TEST(FastResize, FloatFractionsRoundedToResizeType) {
  // scale 3/1 in fp16: the fractions are rounded to fp16 before use, dx = R(1/3) = 0.333251953125 and
  // R(2/3) = 0.66650390625, and every product is rounded to fp16: 3 * 0.333251953125 = 0.999755859375 is a tie
  // between two fp16 neighbours and rounds to even, 1.0; 3 * 0.66650390625 = 1.99951171875 rounds to 2.0
  // (numpy float16 gives the same).
  ResizeCase c;
  c.inT = c.outT = DType::FP16;
  c.bilinear = true;
  c.in = {1, 1, 2, 1};
  c.out = {1, 1, 4, 1};
  c.scale = {1, 1, 3, 1};
  c.offset = {0, 0};
  c.border = {0, 0};
  Tensor x = Tensor::fromDoubles(DType::FP16, c.in, {0.0, 3.0});
  Outcome fast = runOn(c, "fast", x, 1);
  ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
  std::vector<double> y = fast.output.toDoubles();
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(y[1], 1.0);
  EXPECT_EQ(y[2], 2.0);
  EXPECT_EQ(y[3], 3.0);  // ix = 1, ix1 clamps to 1
  expectSameAsReference(c, x, "fp16 thirds");
}

TEST(FastResize, NearestCopiesNaNsAsTheReferenceRoundsThem) {
  // The reference copies a float through fp64: an fp32 signalling NaN comes out quieted (payload kept), an
  // fp16/bf16 NaN with a payload comes out as the format's canonical NaN. The fast kernel copies bytes and
  // fixes NaNs afterwards; the result must be byte-identical.
  for (DType t : {DType::FP32, DType::FP16, DType::BF16}) {
    ResizeCase c;
    c.inT = c.outT = t;
    c.in = {1, 2, 2, 3};
    c.out = {1, 4, 4, 3};
    c.scale = {4, 2, 4, 2};
    c.offset = {0, 0};
    c.border = {2, 2};
    Tensor x = Tensor::fromDoubles(t, c.in, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
    if (t == DType::FP32) {
      const uint32_t snan = 0x7f800001u, negPayload = 0xffc01234u;
      std::memcpy(x.data() + 4, &snan, 4);
      std::memcpy(x.data() + 20, &negPayload, 4);
    } else {
      const uint16_t payload = t == DType::FP16 ? 0x7e01 : 0xffc1;
      std::memcpy(x.data() + 2, &payload, 2);
    }
    expectSameAsReference(c, x, std::string(dtypeName(t)) + " NaN payloads");
  }
}

}  // namespace
}  // namespace tosakit::testing
