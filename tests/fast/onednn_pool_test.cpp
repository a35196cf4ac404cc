// AVG_POOL2D / MAX_POOL2D kernels vs the reference backend: random geometry and data with fixed seeds; integer
// and max results bit-identical (NaN handling of both nan_modes included), float averages within the spec's
// dot-product bound.
#include <cstring>
#include <limits>

#include "fast/isa_dispatch.h"
#include "isa_test_util.h"
#include "onednn_test_util.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

struct PoolCase {
  int64_t N, IH, IW, C, KY, KX, SY, SX;
  std::vector<int64_t> pad;
  int64_t OH, OW;
};

// Random geometry meeting the spec's ERROR_IFs (pad < kernel, exact output size).
PoolCase randomCase(Rng& r) {
  PoolCase p;
  p.N = r.uniform(1, 2), p.IH = r.uniform(1, 12), p.IW = r.uniform(1, 12), p.C = r.uniform(1, 40);
  p.KY = r.uniform(1, 4), p.KX = r.uniform(1, 4), p.SY = r.uniform(1, 3), p.SX = r.uniform(1, 3);
  p.pad = {0, 0, 0, 0};
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t in = axis ? p.IW : p.IH, k = axis ? p.KX : p.KY, s = axis ? p.SX : p.SY;
    for (int attempt = 0;; ++attempt) {
      const int64_t lo = r.uniform(0, k - 1), hi = r.uniform(0, k - 1), span = in + lo + hi - k;
      if (span >= 0 && span % s == 0) {
        p.pad[size_t(2 * axis)] = lo, p.pad[size_t(2 * axis + 1)] = hi;
        (axis ? p.OW : p.OH) = span / s + 1;
        break;
      }
      if (attempt > 50) {  // fall back to a window that always fits
        if (axis)
          p.KX = 1, p.SX = 1, p.OW = in;
        else
          p.KY = 1, p.SY = 1, p.OH = in;
        break;
      }
    }
  }
  return p;
}

std::string describe(const PoolCase& p) {
  return std::to_string(p.N) + "x" + std::to_string(p.IH) + "x" + std::to_string(p.IW) + "x" + std::to_string(p.C) +
      " k" + std::to_string(p.KY) + "x" + std::to_string(p.KX) + " s" + std::to_string(p.SY) + "x" +
      std::to_string(p.SX);
}

Tensor scalar1(DType t, double v) {
  Tensor s(t, {1});
  if (isFloat(t))
    s.setFloat(0, v);
  else
    s.setInt(0, int64_t(v));
  return s;
}

std::map<std::string, Attribute> poolAttrs(const PoolCase& p) {
  return {{"kernel", Attribute::intArray({p.KY, p.KX})},
          {"stride", Attribute::intArray({p.SY, p.SX})},
          {"pad", Attribute::intArray(p.pad)}};
}

GraphFn avgPoolGraph(const PoolCase& p, DType t, DType acc, int64_t inZp, int64_t outZp) {
  return [=](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    auto attrs = poolAttrs(p);
    attrs["acc_type"] = Attribute::type(acc);
    ir::Value* x = b.input(ValueType::tensor(t, {p.N, p.IH, p.IW, p.C}), "x");
    ir::Value* y = b.op1("tosa.avg_pool2d", {x, cst(scalar1(t, double(inZp))), cst(scalar1(t, double(outZp)))},
                         ValueType::tensor(t, {p.N, p.OH, p.OW, p.C}), attrs);
    b.output({y}, {"y"});
  };
}

TEST(OneDnnPoolTest, AvgPoolFloatRandom) {
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    Rng r(seed);
    PoolCase p = randomCase(r);
    const DType t = seed % 3 == 0 ? DType::BF16 : DType::FP32;
    Tensor x = r.floats(t, {p.N, p.IH, p.IW, p.C});
    expectDotProductCompliant(avgPoolGraph(p, t, DType::FP32, 0, 0), {{"x", x}}, p.KY * p.KX, 1,
                              "seed " + std::to_string(seed) + " " + describe(p));
  }
}

// fp32 average pools run our own kernel (fast:avg_pool2d_f32), which sums each window in the reference's order
// (row-major, from +0) and divides in fp32: results bit-identical to the reference, infinities and NaN (any NaN)
// included; random geometries with padding and the squeeze-and-excite global pool (56x56x144 -> 1x1).
TEST(OneDnnPoolTest, AvgPoolFp32IdenticalToReference) {
  for (uint32_t seed = 201; seed <= 216; ++seed) {
    Rng r(seed);
    PoolCase p = randomCase(r);
    if (seed % 4 == 0) {
      p = PoolCase{};
      p.N = 1, p.IH = p.IW = seed % 8 == 0 ? 56 : 7, p.C = seed % 8 == 0 ? 144 : 37;
      p.KY = p.KX = p.IH, p.SY = p.SX = 1, p.OH = p.OW = 1, p.pad = {0, 0, 0, 0};
    }
    Tensor x = r.floats(DType::FP32, {p.N, p.IH, p.IW, p.C});
    if (seed % 3 == 0)
      for (int i = 0; i < 3; ++i) x.setFloat(r.uniform(0, x.size() - 1), i == 0 ? NAN : i == 1 ? INFINITY : -INFINITY);
    const GraphFn g = avgPoolGraph(p, DType::FP32, DType::FP32, 0, 0);
    const std::string what = "seed " + std::to_string(seed) + " " + describe(p);
    FastResult f = runFast(g, {{"x", x}});
    ASSERT_TRUE(f.compiled) << what;
    EXPECT_EQ(f.impl, fast::withVectorIsa("fast:avg_pool2d_f32")) << what;
    const Tensor ref = runReference(g, {{"x", x}}, false);
    ASSERT_EQ(ref.size(), f.output.size()) << what;
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double a = ref.getFloat(i), b = f.output.getFloat(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      ASSERT_TRUE(a == b && std::signbit(a) == std::signbit(b)) << what << " element " << i << ": " << a << " vs " << b;
    }
  }
}

TEST(OneDnnPoolTest, AvgPoolIntRandom) {
  for (uint32_t seed = 21; seed <= 32; ++seed) {
    Rng r(seed);
    PoolCase p = randomCase(r);
    const bool i16 = seed % 4 == 0;
    const DType t = i16 ? DType::I16 : DType::I8;
    Tensor x = i16 ? r.ints(t, {p.N, p.IH, p.IW, p.C}, -32768, 32767) : r.ints(t, {p.N, p.IH, p.IW, p.C}, -128, 127);
    const int64_t inZp = i16 ? 0 : r.uniform(-128, 127), outZp = i16 ? 0 : r.uniform(-128, 127);
    expectBitExact(avgPoolGraph(p, t, DType::I32, inZp, outZp), {{"x", x}}, 1,
                   "seed " + std::to_string(seed) + " " + describe(p));
  }
}

// int8 windows on AVX-512 (fast:avg_pool2d_int8_avx512): channel counts around its 64-channel passes and
// 16-lane tails, global pools (the squeeze-and-excite form) and padded windows, random zero points.
TEST(OneDnnPoolTest, AvgPoolInt8WideChannels) {
  const int64_t channels[] = {1, 17, 64, 65, 130, 200};
  for (uint32_t seed = 91; seed <= 102; ++seed) {
    Rng r(seed);
    PoolCase p = randomCase(r);
    p.C = channels[seed % 6];
    if (seed % 2) {  // global: one window over the whole image
      p.KY = p.IH, p.KX = p.IW, p.SY = p.SX = 1, p.pad = {0, 0, 0, 0}, p.OH = p.OW = 1;
    }
    Tensor x = r.ints(DType::I8, {p.N, p.IH, p.IW, p.C}, -128, 127);
    const int64_t inZp = r.uniform(-128, 127), outZp = r.uniform(-128, 127);
    const GraphFn g = avgPoolGraph(p, DType::I8, DType::I32, inZp, outZp);
    if (levelHas(fast::cpu::Isa::Avx512)) { EXPECT_EQ(runFast(g, {{"x", x}}).impl, "fast:avg_pool2d_int8_avx512"); }
    expectBitExact(g, {{"x", x}}, 1, "seed " + std::to_string(seed) + " " + describe(p));
  }
}

TEST(OneDnnPoolTest, MaxPoolRandomWithNaN) {
  for (uint32_t seed = 41; seed <= 56; ++seed) {
    Rng r(seed);
    PoolCase p = randomCase(r);
    const DType types[] = {DType::FP32, DType::BF16, DType::I8, DType::I16};
    const DType t = types[seed % 4];
    const char* nanMode = seed % 8 < 4 ? "PROPAGATE" : "IGNORE";
    Tensor x = isFloat(t) ? r.floats(t, {p.N, p.IH, p.IW, p.C}, -100, 100)
                          : r.ints(t, {p.N, p.IH, p.IW, p.C}, dtypeMin(t), dtypeMax(t));
    if (isFloat(t))  // sprinkle NaNs and infinities
      for (int64_t i = 0; i < x.size(); i += r.uniform(1, 7))
        x.setFloat(i, i % 3 ? std::numeric_limits<double>::quiet_NaN() : -std::numeric_limits<double>::infinity());
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>&) {
      auto attrs = poolAttrs(p);
      attrs["nan_mode"] = Attribute::enumCase(nanMode);
      ir::Value* y = b.op1("tosa.max_pool2d", {b.input(ValueType::tensor(t, x.shape()), "x")},
                           ValueType::tensor(t, {p.N, p.OH, p.OW, p.C}), attrs);
      b.output({y}, {"y"});
    };
    FastResult f = runFast(g, {{"x", x}});
    ASSERT_TRUE(f.compiled);
    Tensor ref = runReference(g, {{"x", x}}, false);
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double a = f.output.getFloat(i), e = ref.getFloat(i);
      if (!((std::isnan(a) && std::isnan(e)) || a == e)) {
        ADD_FAILURE() << "seed " << seed << " " << describe(p) << " " << nanMode << " element " << i << ": fast " << a
                      << ", ref " << e;
        break;
      }
    }
  }
}

// The AVX-512 fp32 PROPAGATE path (fast:max_pool2d_avx512, the pool of every imported network): channel counts
// around its 64-channel passes and 16-lane tails, windows clipped by padding, and values chosen to tell apart
// what a max instruction could get wrong: +0/-0 ties (TOSA's max(a, b) keeps the earlier value: 0.0 > -0.0 is
// false), NaNs of both signs with distinct payloads (the reference gives its canonical quiet NaN 0x7fc00000),
// and infinities. Compared bit for bit with the reference backend.
TEST(OneDnnPoolTest, MaxPoolFp32PropagateBitExact) {
  const int64_t channels[] = {1, 15, 16, 17, 63, 64, 65, 130};
  for (uint32_t seed = 61; seed <= 76; ++seed) {
    Rng r(seed);
    PoolCase p = randomCase(r);
    p.C = channels[seed % 8];
    Tensor x = r.floats(DType::FP32, {p.N, p.IH, p.IW, p.C}, -4, 4);
    float* xv = reinterpret_cast<float*>(x.data());
    for (int64_t i = 0; i < x.size(); ++i) {
      const int64_t k = r.uniform(0, 19);
      if (k < 4)
        xv[i] = k % 2 ? 0.0f : -0.0f;  // ties of zeros of both signs
      else if (k == 4)
        xv[i] = r.uniform(0, 1) ? INFINITY : -INFINITY;
      else if (k == 5) {  // a quiet NaN of either sign with a payload naming the element
        const uint32_t bits = 0x7fc00000u | uint32_t(i & 0x3fffff) | (r.uniform(0, 1) ? 0x80000000u : 0u);
        std::memcpy(&xv[i], &bits, 4);
      }
    }
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>&) {
      auto attrs = poolAttrs(p);
      attrs["nan_mode"] = Attribute::enumCase("PROPAGATE");
      ir::Value* y = b.op1("tosa.max_pool2d", {b.input(ValueType::tensor(DType::FP32, x.shape()), "x")},
                           ValueType::tensor(DType::FP32, {p.N, p.OH, p.OW, p.C}), attrs);
      b.output({y}, {"y"});
    };
    FastResult f = runFast(g, {{"x", x}});
    ASSERT_TRUE(f.compiled);
    if (levelHas(fast::cpu::Isa::Avx512)) { EXPECT_EQ(f.impl, "fast:max_pool2d_avx512"); }
    Tensor ref = runReference(g, {{"x", x}}, false);
    ASSERT_EQ(ref.size(), f.output.size());
    const uint32_t* a = reinterpret_cast<const uint32_t*>(f.output.data());
    const uint32_t* e = reinterpret_cast<const uint32_t*>(ref.data());
    for (int64_t i = 0; i < ref.size(); ++i)
      if (a[i] != e[i]) {
        ADD_FAILURE() << "seed " << seed << " " << describe(p) << " element " << i << ": fast bits " << std::hex << a[i]
                      << ", ref bits " << e[i];
        break;
      }
  }
}

}  // namespace
}  // namespace tosakit::testing
