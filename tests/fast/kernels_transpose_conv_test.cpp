// Our own fp32 TRANSPOSE_CONV2D (kernel == stride, KH*KW*OC <= 96; src/fast/kernels/f32/transpose_conv.cpp) vs
// the reference backend: random geometries (pixel blocks and their tails, 1 to 6 accumulator vectors) and
// fused epilogues (mul/add of one value, one value per channel or a full run-time tensor, clamp in both NaN
// modes) within the spec's dot-product bound; small integers with infinities and NaNs bit for bit.
#include <cmath>

#include "fast/isa_dispatch.h"
#include "fast_test_util.h"
#include "onednn_test_util.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

struct TconvCase {
  int64_t N = 1, IH = 1, IW = 1, IC = 1, OC = 1, KH = 2, KW = 2;
  std::string describe() const {
    return "N" + std::to_string(N) + " " + std::to_string(IH) + "x" + std::to_string(IW) + "x" + std::to_string(IC) +
        " -> OC" + std::to_string(OC) + " k=s " + std::to_string(KH) + "x" + std::to_string(KW);
  }
};

TconvCase randomTconv(Rng& r) {
  TconvCase c;
  c.N = r.uniform(1, 2), c.IH = r.uniform(1, 5), c.IW = r.uniform(1, 30), c.IC = r.uniform(1, 40);
  c.KH = r.uniform(1, 3), c.KW = r.uniform(1, 3);
  c.OC = r.uniform(1, 96 / (c.KH * c.KW));  // KH*KW*OC <= 96: 1 to 6 vectors of 16 taps
  return c;
}

Tensor zero() {
  Tensor z(DType::FP32, {1});
  z.setFloat(0, 0);
  return z;
}

ir::Value* tconvOp(ir::Builder& b, const TconvCase& c, ir::Value* x, ir::Value* w, ir::Value* bias, ir::Value* izp,
                   ir::Value* wzp) {
  return b.op1("tosa.transpose_conv2d", {x, w, bias, izp, wzp},
               ValueType::tensor(DType::FP32, {c.N, c.IH * c.KH, c.IW * c.KW, c.OC}),
               {{"acc_type", Attribute::type(DType::FP32)},
                {"stride", Attribute::intArray({c.KH, c.KW})},
                {"out_pad", Attribute::intArray({0, 0, 0, 0})}});
}

// The fused ops after the convolution: mul (0: one value, 1: per channel), add (0, 1 or 2: a full run-time
// tensor), then optionally a clamp; the constant on either side.
struct Epilogue {
  int ops = 0;  // 0: none, 1: clamp only, 2: mul + add, 3: mul + add + clamp
  int mulKind = 0, addKind = 0;
  bool constFirst = false, ignoreNan = false;
};

struct Built {
  GraphFn g;
  NamedTensors inputs;
};

Built buildCase(const TconvCase& c, const Epilogue& e, const Tensor& x, const Tensor& w, const Tensor& bias,
                const Tensor& mulT, const Tensor& addT, const Tensor& full) {
  Built bt;
  bt.inputs = {{"x", x}};
  if (e.ops >= 2 && e.addKind == 2) bt.inputs.push_back({"res", full});
  bt.g = [=](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* xv = b.input(ValueType::tensor(DType::FP32, x.shape()), "x");
    ir::Value* fv =
        e.ops >= 2 && e.addKind == 2 ? b.input(ValueType::tensor(DType::FP32, full.shape()), "res") : nullptr;
    ir::Value* y = tconvOp(b, c, xv, cst(w), cst(bias), cst(zero()), cst(zero()));
    if (e.ops >= 2) {
      ir::Value* m = cst(mulT);
      y = e.constFirst ? b.mul(m, y) : b.mul(y, m);
      ir::Value* o = e.addKind == 2 ? fv : cst(addT);
      y = e.constFirst ? b.add(o, y) : b.add(y, o);
    }
    if (e.ops == 1 || e.ops == 3) {
      std::map<std::string, Attribute> at{{"min_val", Attribute::floating(-2)}, {"max_val", Attribute::floating(4)}};
      if (e.ignoreNan) at["nan_mode"] = Attribute::enumCase("IGNORE");
      y = b.op1("tosa.clamp", {y}, y->type, at);
    }
    b.output({y}, {"y"});
  };
  return bt;
}

int fusedOps(const Epilogue& e) { return e.ops == 0 ? 1 : e.ops == 1 ? 2 : e.ops == 2 ? 3 : 4; }

TEST(TransposeConvF32Test, RandomWithinDotProductBound) {
  for (uint32_t seed = 601; seed <= 660; ++seed) {
    Rng r(seed);
    const TconvCase c = randomTconv(r);
    Epilogue e;
    e.ops = int(seed % 4), e.mulKind = int(r.uniform(0, 1)), e.addKind = int(r.uniform(0, 2));
    e.constFirst = r.uniform(0, 1) == 1, e.ignoreNan = r.uniform(0, 1) == 1;
    const int64_t OH = c.IH * c.KH, OW = c.IW * c.KW;
    Tensor x = r.floats(DType::FP32, {c.N, c.IH, c.IW, c.IC}, -2, 2);
    Tensor w = r.floats(DType::FP32, {c.OC, c.KH, c.KW, c.IC}), bias = r.floats(DType::FP32, {c.OC});
    Tensor mulT = r.floats(DType::FP32, {1, 1, 1, e.mulKind == 1 ? c.OC : 1}, -2, 2);
    Tensor addT = r.floats(DType::FP32, {1, 1, 1, e.addKind == 1 ? c.OC : 1});
    Tensor full = r.floats(DType::FP32, {c.N, OH, OW, c.OC});
    const Built bt = buildCase(c, e, x, w, bias, mulT, addT, full);
    const std::string what = "seed " + std::to_string(seed) + " " + c.describe() + " epilogue " +
        std::to_string(e.ops) + " mul " + std::to_string(e.mulKind) + " add " + std::to_string(e.addKind);
    EXPECT_EQ(runFast(bt.g, bt.inputs).impl, fast::withVectorIsa("fast:transpose_conv_f32")) << what;
    // The dot product over IC (+ bias), then one rounding each for the mul and the add.
    expectDotProductCompliant(bt.g, bt.inputs, c.IC + 1 + (e.ops >= 2 ? 2 : 0), fusedOps(e), what);
  }
}

// The PP-OCRv4 det head shapes at a reduced size: 24 -> 1 channel (one vector, wide rows) and 24 -> 24 (six
// vectors) with its mul/add/clamp epilogue.
TEST(TransposeConvF32Test, DetectorHeadShapes) {
  const TconvCase cases[] = {{1, 3, 37, 24, 1, 2, 2}, {1, 2, 29, 24, 24, 2, 2}};
  uint32_t seed = 670;
  for (const TconvCase& c : cases) {
    Rng r(seed++);
    Epilogue e;
    e.ops = c.OC == 1 ? 0 : 3, e.mulKind = 1, e.addKind = 1;
    Tensor x = r.floats(DType::FP32, {c.N, c.IH, c.IW, c.IC}, -2, 2);
    Tensor w = r.floats(DType::FP32, {c.OC, c.KH, c.KW, c.IC}), bias = r.floats(DType::FP32, {c.OC});
    Tensor mulT = r.floats(DType::FP32, {1, 1, 1, c.OC}, -2, 2), addT = r.floats(DType::FP32, {1, 1, 1, c.OC});
    const Built bt = buildCase(c, e, x, w, bias, mulT, addT, Tensor());
    EXPECT_EQ(runFast(bt.g, bt.inputs).impl, fast::withVectorIsa("fast:transpose_conv_f32")) << c.describe();
    expectDotProductCompliant(bt.g, bt.inputs, c.IC + 1 + (e.ops >= 2 ? 2 : 0), fusedOps(e), c.describe());
  }
}

// More than 96 taps per input pixel stays on oneDNN's matmuls.
TEST(TransposeConvF32Test, ManyTapsStayOnOneDnn) {
  const TconvCase c{1, 2, 5, 8, 25, 2, 2};  // 100 taps
  Rng r(680);
  Tensor x = r.floats(DType::FP32, {c.N, c.IH, c.IW, c.IC});
  Tensor w = r.floats(DType::FP32, {c.OC, c.KH, c.KW, c.IC}), bias = r.floats(DType::FP32, {c.OC});
  const Built bt = buildCase(c, Epilogue{}, x, w, bias, Tensor(), Tensor(), Tensor());
  const FastResult f = runFast(bt.g, bt.inputs);
  if (f.compiled) { EXPECT_NE(f.impl, fast::withVectorIsa("fast:transpose_conv_f32")); }
}

// Small integers: every product and partial sum is exact in any order, so the result must equal the
// reference bit for bit, including infinities and NaNs in the input and weights (inf * 0 = NaN, inf - inf =
// NaN) through the mul/add and both clamp NaN modes.
TEST(TransposeConvF32Test, SpecialValuesExact) {
  for (uint32_t seed = 690; seed < 698; ++seed) {
    Rng r(seed);
    TconvCase c{1 + int64_t(seed % 2), 3, 17, 5 + int64_t(seed % 3) * 9, 1 + int64_t(seed % 4) * 7, 2, 2};
    Tensor x = integerFloats(r, {c.N, c.IH, c.IW, c.IC}, -4, 4), w = integerFloats(r, {c.OC, c.KH, c.KW, c.IC}, -3, 3);
    const double special[] = {INFINITY, -INFINITY, NAN};
    for (int i = 0; i < 10; ++i) x.setFloat(r.uniform(0, x.size() - 1), special[r.uniform(0, 2)]);
    if (seed % 3 == 0) w.setFloat(r.uniform(0, w.size() - 1), INFINITY);
    Tensor bias = integerFloats(r, {c.OC}, -2, 2);
    Epilogue e;
    e.ops = 3, e.mulKind = 1, e.addKind = int(seed % 3), e.ignoreNan = seed % 2 == 0, e.constFirst = seed % 4 < 2;
    Tensor mulT = integerFloats(r, {1, 1, 1, c.OC}, -2, 2);
    Tensor addT = integerFloats(r, {1, 1, 1, e.addKind == 1 ? c.OC : 1}, -3, 3);
    Tensor full = integerFloats(r, {c.N, c.IH * c.KH, c.IW * c.KW, c.OC}, -3, 3);
    const Built bt = buildCase(c, e, x, w, bias, mulT, addT, full);
    FastResult f = runFast(bt.g, bt.inputs);
    ASSERT_TRUE(f.compiled);
    EXPECT_EQ(f.impl, fast::withVectorIsa("fast:transpose_conv_f32"));
    EXPECT_EQ(f.opsAbsorbed, 4);
    Tensor ref = runReference(bt.g, bt.inputs, false);
    ASSERT_EQ(ref.shape(), f.output.shape());
    int nans = 0;
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double got = f.output.getFloat(i), want = ref.getFloat(i);
      nans += std::isnan(want);
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) || got == want)
          << "seed " << seed << " element " << i << ": " << got << " vs " << want;
    }
    if (e.ignoreNan) {
      EXPECT_EQ(nans, 0) << "seed " << seed;  // IGNORE maps every NaN to min_val
    } else {
      EXPECT_GT(nans, 0) << "seed " << seed;  // the specials did reach the output
    }
  }
}

// The epilogue's mul and add are two fp32 roundings, as TOSA rounds them: x = 1 + 2^-12 through a k1 s1
// transpose conv with weight 1 and bias 0 (exactly x), * (1 + 2^-12) = 1 + 2^-11 + 2^-24, a tie that rounds to
// even (1 + 2^-11), + -1 = 2^-11 exactly; a fused multiply-add would give 2^-11 + 2^-24.
TEST(TransposeConvF32Test, MulAndAddAreSeparateRoundings) {
  const float x = 1.0f + std::ldexp(1.0f, -12), want = std::ldexp(1.0f, -11);
  const TconvCase c{1, 2, 19, 1, 5, 1, 1};
  Epilogue e;
  e.ops = 3, e.mulKind = 1, e.addKind = 0;
  auto filled = [](Shape s, float v) {
    Tensor t(DType::FP32, std::move(s));
    for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, v);
    return t;
  };
  const Built bt = buildCase(c, e, filled({c.N, c.IH, c.IW, c.IC}, x), filled({c.OC, 1, 1, c.IC}, 1), filled({c.OC}, 0),
                             filled({1, 1, 1, c.OC}, x), filled({1, 1, 1, 1}, -1), Tensor());
  const FastResult f = runFast(bt.g, bt.inputs);
  ASSERT_TRUE(f.compiled);
  EXPECT_EQ(f.impl, fast::withVectorIsa("fast:transpose_conv_f32"));
  for (int64_t i = 0; i < f.output.size(); ++i) ASSERT_EQ(float(f.output.getFloat(i)), want) << "element " << i;
  EXPECT_EQ(float(runReference(bt.g, bt.inputs, false).getFloat(0)), want);
}

}  // namespace
}  // namespace tosakit::testing
