// oneDNN CONV2D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D kernels vs the reference backend: random shapes,
// attributes and data with fixed seeds; int8 bit-identical (with input_zp, bias, fused RESCALE and CLAMP),
// floats within the spec's dot-product bound (fused ADD and CLAMP included).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "fast/isa_dispatch.h"
#include "fast_test_util.h"
#include "onednn_test_util.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

enum class Kind { Conv, Depthwise, Transpose };

struct ConvCase {
  Kind kind = Kind::Conv;
  int64_t N = 1, IH = 5, IW = 5, IC = 3, OC = 4, KH = 3, KW = 3, M = 1;
  std::vector<int64_t> pad{0, 0, 0, 0}, stride{1, 1}, dilation{1, 1};
  std::vector<int64_t> outPad{0, 0, 0, 0};  // transpose
  int64_t OH = 0, OW = 0;
  std::string describe() const {
    return "N" + std::to_string(N) + " " + std::to_string(IH) + "x" + std::to_string(IW) + "x" + std::to_string(IC) +
        " -> OC" + std::to_string(OC) + " k" + std::to_string(KH) + "x" + std::to_string(KW) + " s" +
        std::to_string(stride[0]) + "," + std::to_string(stride[1]) + " d" + std::to_string(dilation[0]) + "," +
        std::to_string(dilation[1]) + " pad " + std::to_string(pad[0]) + "," + std::to_string(pad[1]) + "," +
        std::to_string(pad[2]) + "," + std::to_string(pad[3]);
  }
};

// A random geometry whose output size satisfies the spec's exact-division ERROR_IFs.
ConvCase randomCase(Rng& r, Kind kind) {
  ConvCase c;
  c.kind = kind;
  c.N = r.uniform(1, 2);
  c.IH = r.uniform(1, 11);
  c.IW = r.uniform(1, 11);
  c.IC = r.uniform(1, 40);
  c.OC = r.uniform(1, 40);
  c.KH = r.uniform(1, 4);
  c.KW = r.uniform(1, 4);
  if (kind == Kind::Transpose) {
    c.stride = {r.uniform(1, 3), r.uniform(1, 3)};
    // Negative out_pad crops (ONNX ConvTranspose pads); keep the output at least 1.
    for (int i = 0; i < 4; ++i) c.outPad[size_t(i)] = -r.uniform(0, (i < 2 ? c.KH : c.KW) - 1);
    c.OH = (c.IH - 1) * c.stride[0] + c.outPad[0] + c.outPad[1] + c.KH;
    c.OW = (c.IW - 1) * c.stride[1] + c.outPad[2] + c.outPad[3] + c.KW;
    return c;
  }
  if (kind == Kind::Depthwise) {
    c.M = r.uniform(1, 3);
    c.OC = c.IC * c.M;
  }
  c.stride = {r.uniform(1, 3), r.uniform(1, 3)};
  c.dilation = {r.uniform(1, 2), r.uniform(1, 2)};
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t in = axis == 0 ? c.IH : c.IW, k = axis == 0 ? c.KH : c.KW;
    const int64_t s = c.stride[size_t(axis)], d = c.dilation[size_t(axis)];
    int64_t lo = r.uniform(0, k), hi = r.uniform(0, k);
    int64_t span = in - 1 + lo + hi - (k - 1) * d;
    while (span < 0) span += 1, hi += 1;
    while (span % s) span += 1, hi += 1;
    c.pad[size_t(2 * axis)] = lo;
    c.pad[size_t(2 * axis + 1)] = hi;
    (axis == 0 ? c.OH : c.OW) = span / s + 1;
  }
  return c;
}

Shape weightShape(const ConvCase& c) {
  if (c.kind == Kind::Depthwise) return {c.KH, c.KW, c.IC, c.M};
  return {c.OC, c.KH, c.KW, c.IC};
}

// The convolution op itself; returns its result.
ir::Value* convOp(ir::Builder& b, const ConvCase& c, ir::Value* x, ir::Value* w, ir::Value* bias, ir::Value* izp,
                  ir::Value* wzp, DType outT, DType accT) {
  std::map<std::string, Attribute> attrs{{"acc_type", Attribute::type(accT)},
                                         {"stride", Attribute::intArray(c.stride)}};
  const char* name = "tosa.conv2d";
  if (c.kind == Kind::Transpose) {
    name = "tosa.transpose_conv2d";
    attrs["out_pad"] = Attribute::intArray(c.outPad);
  } else {
    if (c.kind == Kind::Depthwise) name = "tosa.depthwise_conv2d";
    attrs["pad"] = Attribute::intArray(c.pad);
    attrs["dilation"] = Attribute::intArray(c.dilation);
  }
  return b.op1(name, {x, w, bias, izp, wzp}, ValueType::tensor(outT, {c.N, c.OH, c.OW, c.OC}), attrs);
}

int64_t dotLength(const ConvCase& c) {
  return (c.kind == Kind::Depthwise ? 1 : c.IC) * c.KH * c.KW + 1;  // + the bias term
}

Tensor scalarTensor(DType t, double v) {
  Tensor s(t, {1});
  if (isFloat(t))
    s.setFloat(0, v);
  else
    s.setInt(0, int64_t(v));
  return s;
}

// ---- float ----

enum class Geometry { Random, KernelIsStride, StridedUnpadded };

void floatConvCase(Kind kind, DType t, uint32_t seed, int fusion, Geometry shape = Geometry::Random) {
  Rng r(seed);
  ConvCase c = randomCase(r, kind);
  const bool kernelIsStride = shape == Geometry::KernelIsStride;
  if (kernelIsStride) {  // the upsampling form computed as one matmul per kernel tap
    c.KH = c.stride[0], c.KW = c.stride[1], c.outPad = {0, 0, 0, 0};
    c.OH = c.IH * c.stride[0], c.OW = c.IW * c.stride[1];
  }
  if (shape == Geometry::StridedUnpadded) {  // resnet's downsampling: 1x1 (or 2x1) taps, stride 2-3, no padding
    c.KH = r.uniform(1, 2), c.KW = 1, c.stride = {r.uniform(c.KH + 1, 3), r.uniform(2, 3)};
    c.dilation = {1, 1}, c.pad = {0, 0, 0, 0};
    c.OH = r.uniform(1, 6), c.OW = r.uniform(1, 6);
    c.IH = (c.OH - 1) * c.stride[0] + c.KH, c.IW = (c.OW - 1) * c.stride[1] + c.KW;
  }
  Tensor x = r.floats(t, {c.N, c.IH, c.IW, c.IC}), w = r.floats(t, weightShape(c)), bias = r.floats(t, {c.OC});
  // The added tensor: a same-shaped run-time residual, or (odd seeds) a constant per-channel [1, 1, 1, OC].
  const bool perChannelAdd = seed % 2 == 1;
  Tensor residual = perChannelAdd ? r.floats(t, {1, 1, 1, c.OC}) : r.floats(t, {c.N, c.OH, c.OW, c.OC});
  NamedTensors inputs{{"x", x}};
  if (fusion >= 2 && !perChannelAdd) inputs.push_back({"res", residual});
  const bool ignoreNan = seed % 2 == 0;
  GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* xv = b.input(ValueType::tensor(t, x.shape()), "x");
    ir::Value* rv = fusion < 2 ? nullptr
        : perChannelAdd        ? cst(residual)
                               : b.input(ValueType::tensor(t, residual.shape()), "res");
    ir::Value* y =
        convOp(b, c, xv, cst(w), cst(bias), cst(scalarTensor(t, 0)), cst(scalarTensor(t, 0)), t, DType::FP32);
    if (fusion >= 2) y = b.add(y, rv);
    if (fusion >= 1) {
      // relu6-like clamp; the bounds run sees it too (it only shrinks values).
      std::map<std::string, Attribute> a{{"min_val", Attribute::floating(0, t)},
                                         {"max_val", Attribute::floating(6, t)}};
      if (ignoreNan) a["nan_mode"] = Attribute::enumCase("IGNORE");
      y = b.op1("tosa.clamp", {y}, y->type, a);
    }
    b.output({y}, {"y"});
  };
  if (kernelIsStride && noOneDnnKernelReason(t).empty()) {
    // fp32 with at most 96 taps per input pixel: our own kernel (tests/fast/kernels_transpose_conv_test.cpp).
    const bool own = t == DType::FP32 && c.KH * c.KW * c.OC <= 96;
    EXPECT_NE(runFast(g, inputs).impl.find(own ? fast::withVectorIsa("fast:transpose_conv_f32")
                                               : "transpose_conv2d as matmuls"),
              std::string::npos)
        << c.describe();
  }
  expectDotProductCompliant(g, inputs, dotLength(c) + (fusion >= 2 ? 1 : 0), 1 + fusion,
                            std::string(dtypeName(t)) + " seed " + std::to_string(seed) + " " + c.describe());
}

TEST(OneDnnConvTest, Fp32Conv2dRandom) {
  for (uint32_t seed = 1; seed <= 12; ++seed) floatConvCase(Kind::Conv, DType::FP32, seed, 0);
}
TEST(OneDnnConvTest, Fp32Conv2dFusedClamp) {
  for (uint32_t seed = 21; seed <= 26; ++seed) floatConvCase(Kind::Conv, DType::FP32, seed, 1);
}
TEST(OneDnnConvTest, Fp32Conv2dFusedAddClamp) {
  for (uint32_t seed = 31; seed <= 36; ++seed) floatConvCase(Kind::Conv, DType::FP32, seed, 2);
}
// Stride above the kernel without padding takes the sum post-op (brgconv) for a residual add since it cannot
// meet the border that crashed oneDNN 2.6 (sumPostOpSafe); even seeds add a full residual, odd ones a constant.
TEST(OneDnnConvTest, Fp32StridedUnpaddedConvFusedAddClamp) {
  for (uint32_t seed = 37; seed <= 44; ++seed)
    floatConvCase(Kind::Conv, DType::FP32, seed, 2, Geometry::StridedUnpadded);
}
TEST(OneDnnConvTest, Fp32DepthwiseRandom) {
  for (uint32_t seed = 41; seed <= 50; ++seed) floatConvCase(Kind::Depthwise, DType::FP32, seed, seed % 2);
}
TEST(OneDnnConvTest, Fp32TransposeRandom) {
  for (uint32_t seed = 51; seed <= 60; ++seed) floatConvCase(Kind::Transpose, DType::FP32, seed, seed % 3);
}
TEST(OneDnnConvTest, Fp32TransposeKernelEqualsStride) {
  for (uint32_t seed = 71; seed <= 79; ++seed)
    floatConvCase(Kind::Transpose, DType::FP32, seed, seed % 3, Geometry::KernelIsStride);
}
TEST(OneDnnConvTest, Bf16TransposeKernelEqualsStride) {
  for (uint32_t seed = 81; seed <= 84; ++seed)
    floatConvCase(Kind::Transpose, DType::BF16, seed, seed % 3, Geometry::KernelIsStride);
}
TEST(OneDnnConvTest, Bf16Conv2dRandom) {
  for (uint32_t seed = 61; seed <= 66; ++seed) floatConvCase(Kind::Conv, DType::BF16, seed, seed % 3);
}

// ---- fused affine epilogues (unfolded BatchNorm / PP-LCNet's learnable affine): conv -> mul -> add -> clamp ----

// The second operand of a fused mul/add: one value ([1,1,1,1]), one per channel ([1,1,1,C]) or (add only) a
// same-shaped run-time tensor. Which one, the operand order and the clamp's nan_mode come from the seed.
struct AffineChain {
  int kind[2] = {0, 0};  // mul, add: 0 scalar, 1 per channel, 2 full (add only)
  bool constFirst = false, clamp = false, ignoreNan = false;
};

ir::Value* affineEpilogue(ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst, ir::Value* y,
                          const AffineChain& a, const Tensor& mulT, const Tensor& addT, ir::Value* full) {
  ir::Value* m = cst(mulT);
  y = a.constFirst ? b.mul(m, y) : b.mul(y, m);
  ir::Value* o = a.kind[1] == 2 ? full : cst(addT);
  y = a.constFirst ? b.add(o, y) : b.add(y, o);
  if (a.clamp) {
    std::map<std::string, Attribute> at{{"min_val", Attribute::floating(-2)}, {"max_val", Attribute::floating(4)}};
    if (a.ignoreNan) at["nan_mode"] = Attribute::enumCase("IGNORE");
    y = b.op1("tosa.clamp", {y}, y->type, at);
  }
  return y;
}

void affineCase(Kind kind, uint32_t seed) {
  Rng r(seed);
  ConvCase c = randomCase(r, kind);
  if (kind == Kind::Depthwise) {
    // Our own depthwise kernel: multiplier 1, wide rows (blocks of 8 and 4 pixels, borders), channel tails,
    // the 3x3 and 5x5 specializations and other sizes.
    const int64_t ks[] = {3, 5, 3, 2, 5, 1, 3, 4};
    c.M = 1, c.IC = c.OC = r.uniform(1, 150);
    c.KH = c.KW = ks[seed % 8];
    if (seed % 5 == 0) c.KW = 3, c.KH = 1;
    c.IH = r.uniform(1, 12), c.IW = r.uniform(1, 40);
    c.stride = {r.uniform(1, 2), r.uniform(1, 2)};
    c.dilation = {seed % 7 == 0 ? 2 : 1, seed % 6 == 0 ? 2 : 1};
    for (int axis = 0; axis < 2; ++axis) {
      const int64_t in = axis == 0 ? c.IH : c.IW, k = axis == 0 ? c.KH : c.KW;
      const int64_t s = c.stride[size_t(axis)], d = c.dilation[size_t(axis)];
      int64_t lo = r.uniform(0, k - 1), hi = r.uniform(0, k - 1);
      int64_t span = in - 1 + lo + hi - (k - 1) * d;
      while (span < 0) span += 1, hi += 1;
      while (span % s) span += 1, hi += 1;
      c.pad[size_t(2 * axis)] = lo, c.pad[size_t(2 * axis + 1)] = hi;
      (axis == 0 ? c.OH : c.OW) = span / s + 1;
    }
  }
  AffineChain a;
  a.kind[0] = int(r.uniform(0, 1)), a.kind[1] = int(r.uniform(0, 2));
  a.constFirst = r.uniform(0, 1) == 1, a.clamp = r.uniform(0, 2) > 0, a.ignoreNan = r.uniform(0, 1) == 1;
  const DType t = DType::FP32;
  Tensor x = r.floats(t, {c.N, c.IH, c.IW, c.IC}, -2, 2), w = r.floats(t, weightShape(c)), bias = r.floats(t, {c.OC});
  Tensor mulT = r.floats(t, {1, 1, 1, a.kind[0] == 1 ? c.OC : 1}, -2, 2);
  Tensor addT = r.floats(t, {1, 1, 1, a.kind[1] == 1 ? c.OC : 1});
  Tensor full = r.floats(t, {c.N, c.OH, c.OW, c.OC});
  NamedTensors inputs{{"x", x}};
  if (a.kind[1] == 2) inputs.push_back({"res", full});
  GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* xv = b.input(ValueType::tensor(t, x.shape()), "x");
    ir::Value* fv = a.kind[1] == 2 ? b.input(ValueType::tensor(t, full.shape()), "res") : nullptr;
    ir::Value* y = convOp(b, c, xv, cst(w), cst(bias), cst(scalarTensor(t, 0)), cst(scalarTensor(t, 0)), t, t);
    b.output({affineEpilogue(b, cst, y, a, mulT, addT, fv)}, {"y"});
  };
  const std::string what = "seed " + std::to_string(seed) + " " + c.describe() + " mul " + std::to_string(a.kind[0]) +
      " add " + std::to_string(a.kind[1]) + (a.constFirst ? " const-first" : "") + (a.clamp ? " clamp" : "");
  if (kind == Kind::Depthwise) {
    EXPECT_EQ(runFast(g, inputs).impl, fast::withVectorIsa("fast:depthwise_f32")) << what;
  }
  // The bound: the dot product (+ bias), then one more rounding each for the mul and the add.
  expectDotProductCompliant(g, inputs, dotLength(c) + 2, a.clamp ? 4 : 3, what);
}

// A residual block's conv -> add(full-size run-time tensor) [-> clamp]: on brgconv the add is oneDNN's sum
// post-op (the residual copied into the destination first), elsewhere a binary post-op; either way within the
// dot-product bound plus one rounding for the add. Geometries of real networks: 3x3 pad 1, 1x1, stride 1/2.
TEST(OneDnnConvTest, Fp32Conv2dResidualAdd) {
  for (uint32_t seed = 481; seed <= 492; ++seed) {
    Rng r(seed);
    ConvCase c;
    c.N = 1, c.IC = r.uniform(1, 70), c.OC = r.uniform(1, 70), c.IH = r.uniform(1, 15), c.IW = r.uniform(1, 15);
    const bool threeByThree = seed % 3 != 0;
    const int64_t s = seed % 4 == 0 ? 2 : 1;
    c.KH = c.KW = threeByThree ? 3 : 1, c.stride = {s, s};
    const int64_t p = threeByThree ? 1 : 0;
    c.pad = {p, p, p, p};
    if (s == 2) c.IH |= 1, c.IW |= 1;  // odd sizes: (size + 2p - K) divides by the stride exactly
    c.OH = (c.IH + 2 * p - c.KH) / s + 1, c.OW = (c.IW + 2 * p - c.KW) / s + 1;
    const bool clamp = seed % 2 == 0, residualFirst = seed % 5 < 2;
    const DType t = DType::FP32;
    Tensor x = r.floats(t, {1, c.IH, c.IW, c.IC}, -2, 2), w = r.floats(t, weightShape(c)), bias = r.floats(t, {c.OC});
    Tensor res = r.floats(t, {1, c.OH, c.OW, c.OC}, -3, 3);
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* xv = b.input(ValueType::tensor(t, x.shape()), "x");
      ir::Value* rv = b.input(ValueType::tensor(t, res.shape()), "res");
      ir::Value* y = convOp(b, c, xv, cst(w), cst(bias), cst(scalarTensor(t, 0)), cst(scalarTensor(t, 0)), t, t);
      y = residualFirst ? b.add(rv, y) : b.add(y, rv);
      if (clamp) {
        std::map<std::string, Attribute> at{{"min_val", Attribute::floating(0)},
                                            {"max_val", Attribute::floating(1e30)}};
        y = b.op1("tosa.clamp", {y}, y->type, at);
      }
      b.output({y}, {"y"});
    };
    const std::string what = "seed " + std::to_string(seed) + " " + c.describe() + (clamp ? " clamp" : "");
    expectDotProductCompliant(g, {{"x", x}, {"res", res}}, dotLength(c) + 1, clamp ? 3 : 2, what);
  }
}

TEST(OneDnnConvTest, Fp32Conv2dFusedAffine) {
  for (uint32_t seed = 401; seed <= 416; ++seed) affineCase(Kind::Conv, seed);
}
TEST(OneDnnConvTest, Fp32DepthwiseOwnKernelFusedAffine) {
  for (uint32_t seed = 421; seed <= 460; ++seed) affineCase(Kind::Depthwise, seed);
}

// Small integers make every product and sum exact in any order, so the depthwise kernel must match the
// reference bit for bit, including infinities and NaNs in the input (inf * 0 = NaN, inf + -inf = NaN,
// padding taps skipped, not multiplied) and both clamp NaN modes after the fused mul/add.
TEST(OneDnnConvTest, Fp32DepthwiseOwnKernelSpecialValuesExact) {
  for (uint32_t seed = 470; seed < 478; ++seed) {
    Rng r(seed);
    ConvCase c;
    c.kind = Kind::Depthwise, c.M = 1, c.IC = c.OC = 19 + int64_t(seed % 3) * 16, c.IH = 6, c.IW = 21;
    c.KH = c.KW = seed % 2 ? 3 : 5, c.pad = {1, 1, 2, 2}, c.stride = {1, int64_t(seed % 3 == 0 ? 2 : 1)};
    c.OH = c.IH + 2 - c.KH + 1, c.OW = (c.IW + 4 - c.KW) / c.stride[1] + 1;
    if ((c.IW + 4 - c.KW) % c.stride[1]) c.pad[3] += 1, c.OW = (c.IW + 5 - c.KW) / c.stride[1] + 1;
    Tensor x = integerFloats(r, {1, c.IH, c.IW, c.IC}, -4, 4), w = integerFloats(r, weightShape(c), -3, 3);
    for (int i = 0; i < 12; ++i) {
      const double special[] = {INFINITY, -INFINITY, NAN};
      x.setFloat(r.uniform(0, x.size() - 1), special[r.uniform(0, 2)]);
    }
    w.setFloat(r.uniform(0, w.size() - 1), 0);
    Tensor bias = integerFloats(r, {c.OC}, -2, 2);
    AffineChain a;
    a.kind[0] = 1, a.kind[1] = int(seed % 3), a.clamp = true, a.ignoreNan = seed % 2 == 0, a.constFirst = seed % 4 < 2;
    Tensor mulT = integerFloats(r, {1, 1, 1, c.OC}, -2, 2),
           addT = integerFloats(r, {1, 1, 1, a.kind[1] == 1 ? c.OC : 1}, -3, 3);
    Tensor full = integerFloats(r, {1, c.OH, c.OW, c.OC}, -3, 3);
    NamedTensors inputs{{"x", x}};
    if (a.kind[1] == 2) inputs.push_back({"res", full});
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* xv = b.input(ValueType::tensor(DType::FP32, x.shape()), "x");  // arguments in `inputs` order
      ir::Value* fv = a.kind[1] == 2 ? b.input(ValueType::tensor(DType::FP32, full.shape()), "res") : nullptr;
      ir::Value* y = convOp(b, c, xv, cst(w), cst(bias), cst(scalarTensor(DType::FP32, 0)),
                            cst(scalarTensor(DType::FP32, 0)), DType::FP32, DType::FP32);
      b.output({affineEpilogue(b, cst, y, a, mulT, addT, fv)}, {"y"});
    };
    FastResult f = runFast(g, inputs);
    ASSERT_TRUE(f.compiled);
    EXPECT_EQ(f.impl, fast::withVectorIsa("fast:depthwise_f32"));
    EXPECT_EQ(f.opsAbsorbed, 4);
    Tensor ref = runReference(g, inputs, false);
    int nans = 0;
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double got = f.output.getFloat(i), want = ref.getFloat(i);
      nans += std::isnan(want);
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) || got == want)
          << "seed " << seed << " element " << i << ": " << got << " vs " << want;
    }
    if (a.ignoreNan) {
      EXPECT_EQ(nans, 0) << "seed " << seed;  // IGNORE maps every NaN to min_val
    }
  }
}

// The sum post-op's residual is checked while it is copied into the destination (the plan then does not scan
// it: OpKernel::rejectsNonFinite): an inf or NaN in it leaves the step to the reference kernels.
TEST(OneDnnConvTest, SumPostOpResidualNonFiniteRerunsOnReference) {
  ConvCase c;
  c.IH = c.IW = 10, c.IC = c.OC = 32, c.KH = c.KW = 3, c.pad = {1, 1, 1, 1}, c.OH = c.OW = 10;
  Rng r(8);
  Tensor x = integerFloats(r, {1, 10, 10, 32}, -3, 3);
  Tensor w = integerFloats(r, weightShape(c), -2, 2), bias = integerFloats(r, {32}, -2, 2);
  for (double special : {0.0, double(INFINITY), double(NAN)}) {
    Tensor res = integerFloats(r, {1, 10, 10, 32}, -3, 3);
    if (special != 0.0) res.setFloat(333, special);
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* xv = b.input(ValueType::tensor(DType::FP32, x.shape()), "x");
      ir::Value* rv = b.input(ValueType::tensor(DType::FP32, res.shape()), "res");
      ir::Value* y = convOp(b, c, xv, cst(w), cst(bias), cst(scalarTensor(DType::FP32, 0)),
                            cst(scalarTensor(DType::FP32, 0)), DType::FP32, DType::FP32);
      y = b.op1("tosa.clamp", {b.add(y, rv)}, y->type,
                {{"min_val", Attribute::floating(0)}, {"max_val", Attribute::floating(1e30)}});
      b.output({y}, {"y"});
    };
    FastResult f = runFast(g, {{"x", x}, {"res", res}});
    ASSERT_TRUE(f.compiled);
    EXPECT_EQ(f.opsAbsorbed, 3);
    if (f.impl.find("brg") == std::string::npos) continue;  // the sum post-op is taken on brgconv only
    EXPECT_EQ(f.rerunOnReference, special != 0.0) << f.impl << " residual value " << special;
    if (special == 0.0) {  // small integers: exact in any order
      Tensor ref = runReference(g, {{"x", x}, {"res", res}}, false);
      EXPECT_TRUE(ref.identical(f.output)) << ref.summary() << " vs " << f.output.summary();
    }
  }
}

// A NaN or inf in the constant bias bounds nothing (maxAbsValue): a PROPAGATE clamp after it must keep the NaN
// the bias makes (oneDNN's clip would turn it into min_val) and clamp the infinity, as the reference does.
TEST(OneDnnConvTest, NonFiniteBiasUnderPropagateClamp) {
  for (double special : {double(NAN), double(INFINITY)}) {
    ConvCase c;
    c.IH = c.IW = 4, c.IC = 3, c.OC = 5, c.KH = c.KW = 1, c.OH = c.OW = 4;
    Rng r(9);
    Tensor x = integerFloats(r, {1, 4, 4, 3}, -3, 3), w = integerFloats(r, weightShape(c), -2, 2);
    Tensor bias = integerFloats(r, {5}, -2, 2);
    bias.setFloat(2, special);
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* y =
          convOp(b, c, b.input(ValueType::tensor(DType::FP32, x.shape()), "x"), cst(w), cst(bias),
                 cst(scalarTensor(DType::FP32, 0)), cst(scalarTensor(DType::FP32, 0)), DType::FP32, DType::FP32);
      y = b.op1("tosa.clamp", {y}, y->type,
                {{"min_val", Attribute::floating(-1)}, {"max_val", Attribute::floating(2)}});
      b.output({y}, {"y"});
    };
    FastResult f = runFast(g, {{"x", x}});
    if (!f.compiled) continue;  // left to the reference kernels altogether: nothing to compare
    Tensor ref = runReference(g, {{"x", x}}, false);
    // Hand check: channel 2 of every pixel is NaN (NaN bias) or 2 (inf clamped to max_val), the rest in [-1, 2].
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double a = f.output.getFloat(i), e = ref.getFloat(i);
      if (i % 5 == 2) { EXPECT_TRUE(std::isnan(special) ? std::isnan(e) : e == 2) << i; }
      EXPECT_TRUE((std::isnan(a) && std::isnan(e)) || a == e)
          << "bias " << special << " element " << i << ": fast " << a << ", ref " << e;
    }
  }
}

// clamp nan_mode PROPAGATE keeps a NaN produced by the convolution; IGNORE maps it to min_val.
TEST(OneDnnConvTest, FusedClampNanModes) {
  for (const char* mode : {"PROPAGATE", "IGNORE"}) {
    ConvCase c;
    c.IH = c.IW = 3, c.IC = 2, c.OC = 2, c.KH = c.KW = 1, c.OH = c.OW = 3;
    Tensor x(DType::FP32, {1, 3, 3, 2});
    for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, 0.5);
    x.setFloat(0, std::numeric_limits<double>::quiet_NaN());
    x.setFloat(2, std::numeric_limits<double>::infinity());
    Tensor w = Tensor::fromDoubles(DType::FP32, {2, 1, 1, 2}, {1, 0, 0, 1});
    Tensor bias(DType::FP32, {2});
    GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
      ir::Value* y =
          convOp(b, c, b.input(ValueType::tensor(DType::FP32, x.shape()), "x"), cst(w), cst(bias),
                 cst(scalarTensor(DType::FP32, 0)), cst(scalarTensor(DType::FP32, 0)), DType::FP32, DType::FP32);
      y = b.op1("tosa.clamp", {y}, y->type,
                {{"min_val", Attribute::floating(-1)},
                 {"max_val", Attribute::floating(2)},
                 {"nan_mode", Attribute::enumCase(mode)}});
      b.output({y}, {"y"});
    };
    FastResult f = runFast(g, {{"x", x}});
    ASSERT_TRUE(f.compiled);
    EXPECT_EQ(f.opsAbsorbed, 2);
    // PROPAGATE is oneDNN's clip only while no NaN can reach it: a NaN input is left to the reference kernels
    // (in a plan, the finiteness scan already does that for every oneDNN step).
    EXPECT_EQ(f.rerunOnReference, std::string(mode) == "PROPAGATE");
    Tensor ref = runReference(g, {{"x", x}}, false);
    // Hand calculation: position 0 is (NaN*1 + 0.5*0, NaN*0 + 0.5*1) = (NaN, NaN); position 1 is (inf, NaN)
    // (inf * 0). PROPAGATE keeps NaN, IGNORE gives min_val -1; inf clamps to 2 in both modes.
    for (int64_t i = 0; i < ref.size(); ++i) {
      const double a = f.output.getFloat(i), e = ref.getFloat(i);
      EXPECT_TRUE((std::isnan(a) && std::isnan(e)) || a == e) << mode << " element " << i << ": " << a << " vs " << e;
    }
    EXPECT_EQ(std::isnan(ref.getFloat(0)), std::string(mode) == "PROPAGATE");
  }
}

// A PROPAGATE clamp fused as oneDNN's clip relies on no partial sum overflowing: finite inputs large enough to
// overflow (3e38 * 2 = inf, then inf + -inf = NaN, hand calculation) must give the reference's NaN, through the
// plan as users run it; inputs below the limit run on oneDNN and match too.
TEST(OneDnnConvTest, FusedPropagateClampOverflowingInputs) {
  for (double big : {3e38, 1e3}) {
    Tensor x(DType::FP32, {1, 2, 2, 2});
    for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, i % 3 == 2 ? -big : big);
    Tensor w = Tensor::fromDoubles(DType::FP32, {2, 1, 1, 2}, {2, -2, 1, 1});
    auto build = [&] {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      ConvCase c;
      c.IH = c.IW = 2, c.IC = 2, c.OC = 2, c.KH = c.KW = 1, c.OH = c.OW = 2;
      ir::Value* y = convOp(b, c, b.input(ValueType::tensor(DType::FP32, x.shape()), "x"), b.constant(w),
                            b.constant(Tensor(DType::FP32, {2})), b.constant(scalarTensor(DType::FP32, 0)),
                            b.constant(scalarTensor(DType::FP32, 0)), DType::FP32, DType::FP32);
      y = b.clamp(y, -1, 2);
      b.output({y}, {"y"});
      return m;
    };
    RunOutcome fast = runOn(build(), "fast", {{"x", x}}), ref = runOn(build(), "ref", {{"x", x}});
    ASSERT_TRUE(fast.status.isOk() && ref.status.isOk());
    const Tensor &a = fast.outputs.at(0).second, &e = ref.outputs.at(0).second;
    int nans = 0;
    for (int64_t i = 0; i < e.size(); ++i) {
      nans += std::isnan(e.getFloat(i));
      EXPECT_TRUE((std::isnan(a.getFloat(i)) && std::isnan(e.getFloat(i))) || a.getFloat(i) == e.getFloat(i))
          << big << " element " << i << ": " << a.getFloat(i) << " vs " << e.getFloat(i);
    }
    EXPECT_EQ(nans > 0, big > 1e30);
  }
}

// ---- int8 ----

void int8ConvCase(Kind kind, uint32_t seed, int fusion, bool bigAccumulators = false, bool kernelEqualsStride = false) {
  Rng r(seed);
  ConvCase c = randomCase(r, kind);
  if (bigAccumulators) {  // |acc| > 2^24: a detour through f32 inside oneDNN would lose bits
    c = ConvCase();
    c.kind = kind;
    c.IH = c.IW = 8, c.IC = kind == Kind::Depthwise ? 8 : int64_t(seed % 2 ? 1200 : 256), c.KH = c.KW = 3;
    c.pad = {1, 1, 1, 1}, c.M = 1, c.OC = kind == Kind::Depthwise ? 8 : 64, c.OH = c.OW = 8;
    if (kind == Kind::Transpose) c.outPad = {-1, -1, -1, -1}, c.OH = c.OW = 8;
  }
  if (kernelEqualsStride) {  // PP-OCR det's upsampling: k2 s2 / k3 s3 (each output pixel meets exactly one tap)
    c.KH = c.stride[0] = r.uniform(2, 3), c.KW = c.stride[1] = r.uniform(2, 3);
    c.outPad = {0, 0, 0, 0};
    c.OH = c.IH * c.KH, c.OW = c.IW * c.KW;
  }
  int64_t inputZp = bigAccumulators ? (seed % 2 ? -128 : 0) : r.uniform(-128, 127);
  if (kernelEqualsStride && seed % 2) inputZp = -128;
  Tensor x = bigAccumulators ? r.ints(DType::I8, {c.N, c.IH, c.IW, c.IC}, 120, 127)
                             : r.ints(DType::I8, {c.N, c.IH, c.IW, c.IC}, -128, 127);
  Tensor w =
      bigAccumulators ? r.ints(DType::I8, weightShape(c), 120, 127) : r.ints(DType::I8, weightShape(c), -128, 127);
  Tensor bias = r.ints(DType::I32, {r.uniform(0, 3) == 0 ? 1 : c.OC}, -5000, 5000);
  const bool perChannel = r.uniform(0, 1) == 1, doubleRound = r.uniform(0, 1) == 1;
  const int64_t nm = perChannel ? c.OC : 1;
  std::vector<int64_t> mult, shift;
  for (int64_t i = 0; i < nm; ++i) {
    mult.push_back(r.uniform(1 << 29, (int64_t(1) << 31) - 1));
    shift.push_back(r.uniform(bigAccumulators ? 34 : 30, 40));
  }
  const int64_t outZp = r.uniform(-20, 20);
  const DType rescaleOut = fusion >= 1 && seed % 3 == 0 ? DType::I16 : DType::I8;
  GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* xv = b.input(ValueType::tensor(DType::I8, x.shape()), "x");
    ir::Value* y = convOp(b, c, xv, cst(w), cst(bias), cst(scalarTensor(DType::I8, double(inputZp))),
                          cst(scalarTensor(DType::I8, 0)), DType::I32, DType::I32);
    if (fusion >= 1) {
      ir::RescaleAttrs ra;
      ra.multiplier = mult, ra.shift = shift, ra.outputZp = rescaleOut == DType::I8 ? outZp : 0;
      ra.perChannel = perChannel, ra.roundingMode = doubleRound ? "DOUBLE_ROUND" : "SINGLE_ROUND";
      y = b.rescale(y, rescaleOut, ra);
    }
    if (fusion >= 2) y = b.clamp(y, -100, 90);
    b.output({y}, {"y"});
  };
  // oneDNN's int8 deconvolution misses outputs when the kernel is smaller than the stride: no kernel then.
  if (kind == Kind::Transpose && (c.KH < c.stride[0] || c.KW < c.stride[1])) {
    EXPECT_FALSE(runFast(g, {{"x", x}}).compiled) << c.describe();
    return;
  }
  expectBitExact(g, {{"x", x}}, 1 + fusion, "seed " + std::to_string(seed) + " " + c.describe());
}

TEST(OneDnnConvTest, Int8Conv2dRandom) {
  for (uint32_t seed = 101; seed <= 112; ++seed) int8ConvCase(Kind::Conv, seed, 0);
}
TEST(OneDnnConvTest, Int8Conv2dFusedRescaleClamp) {
  for (uint32_t seed = 121; seed <= 132; ++seed) int8ConvCase(Kind::Conv, seed, 1 + seed % 2);
}
TEST(OneDnnConvTest, Int8DepthwiseRandom) {
  for (uint32_t seed = 141; seed <= 150; ++seed) int8ConvCase(Kind::Depthwise, seed, seed % 3);
}
TEST(OneDnnConvTest, Int8TransposeRandom) {
  for (uint32_t seed = 151; seed <= 160; ++seed) int8ConvCase(Kind::Transpose, seed, seed % 3);
}
// Input zero point -128 (the unsigned grid after a fused ReLU, as `tosakit quantize` writes PP-OCR det's
// upsampling convs) and random ones: the compensation table has one class per output phase (oy % KH, ox % KW).
TEST(OneDnnConvTest, Int8TransposeKernelEqualsStrideWithZeroPoint) {
  for (uint32_t seed = 161; seed <= 168; ++seed) int8ConvCase(Kind::Transpose, seed, 1 + seed % 2, false, true);
}
// A run-time int32 bias (a graph input, not a constant): one value per channel or one broadcast value, with
// and without a fused rescale, input_zp 0 (a run-time bias with a zero point stays on the reference kernel).
TEST(OneDnnConvTest, Int8RuntimeBias) {
  for (Kind kind : {Kind::Conv, Kind::Depthwise, Kind::Transpose})
    for (uint32_t seed = 181; seed <= 184; ++seed) {
      Rng r(seed);
      ConvCase c = randomCase(r, kind);
      if (kind == Kind::Transpose) {  // kernel == stride: our own accumulator, banded epilogue
        c.KH = c.stride[0] = 2, c.KW = c.stride[1] = 2, c.outPad = {0, 0, 0, 0};
        c.OH = c.IH * 2, c.OW = c.IW * 2;
      }
      Tensor x = r.ints(DType::I8, {c.N, c.IH, c.IW, c.IC}, -128, 127);
      Tensor w = r.ints(DType::I8, weightShape(c), -128, 127);
      Tensor bias = r.ints(DType::I32, {seed % 2 ? 1 : c.OC}, -5000, 5000);
      const bool fuse = seed % 4 < 2;
      GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
        ir::Value* xv = b.input(ValueType::tensor(DType::I8, x.shape()), "x");
        ir::Value* bv = b.input(ValueType::tensor(DType::I32, bias.shape()), "bias");
        ir::Value* y = convOp(b, c, xv, cst(w), bv, cst(scalarTensor(DType::I8, 0)), cst(scalarTensor(DType::I8, 0)),
                              DType::I32, DType::I32);
        if (fuse) {
          ir::RescaleAttrs ra;
          ra.multiplier = {1 << 30}, ra.shift = {38}, ra.outputZp = 3;
          y = b.rescale(y, DType::I8, ra);
        }
        b.output({y}, {"y"});
      };
      const NamedTensors inputs{{"x", x}, {"bias", bias}};
      expectBitExact(g, inputs, fuse ? 2 : 1, "seed " + std::to_string(seed) + " " + c.describe());
    }
}

TEST(OneDnnConvTest, Int8LargeAccumulatorsExact) {
  int8ConvCase(Kind::Conv, 171, 0, true);
  int8ConvCase(Kind::Conv, 172, 1, true);
  int8ConvCase(Kind::Conv, 176, 0, true);
  int8ConvCase(Kind::Depthwise, 173, 0, true);
  int8ConvCase(Kind::Transpose, 174, 0, true);
  int8ConvCase(Kind::Transpose, 175, 1, true, true);  // kernel == stride: our own accumulator, input_zp -128
}

// ---- int8 conv2d / depthwise_conv2d in bands of output rows (s32 result > 2 MB, or > 512 KB on brgconv) ----

// A layer large enough to be banded: OH x OW x OC chosen so that the s32 result exceeds the banding threshold
// and OH is not a multiple of the band height (~192 KB of s32 per band: a partial last band); pad top/bottom
// 0..2, strides 1..2, dilation 1..2, random input zero point (its border classes), per-channel or per-tensor
// rescale, the clamp, N 1..2. Geometry from randomCase's rules (exact division).
ConvCase bandedCase(Rng& r, Kind kind) {
  ConvCase c;
  c.kind = kind;
  c.N = r.uniform(1, 2);
  c.KH = r.uniform(1, 4), c.KW = r.uniform(1, 3);
  c.stride = {r.uniform(1, 2), r.uniform(1, 2)};
  c.dilation = {r.uniform(1, 2), r.uniform(1, 2)};
  c.IC = kind == Kind::Depthwise ? 32 : r.uniform(3, 12);
  c.M = kind == Kind::Depthwise ? 2 : 1;
  c.OC = kind == Kind::Depthwise ? c.IC * c.M : r.uniform(44, 52);
  // Output size first (big enough: >= 2.1 MB of s32), then the input size and padding that give it exactly.
  c.OW = kind == Kind::Depthwise ? 96 : 100 + r.uniform(0, 7);
  c.OH = (kind == Kind::Depthwise ? 97 : 120) + r.uniform(0, 9);
  for (int axis = 0; axis < 2; ++axis) {
    const int64_t o = axis == 0 ? c.OH : c.OW, k = axis == 0 ? c.KH : c.KW;
    const int64_t s = c.stride[size_t(axis)], d = c.dilation[size_t(axis)];
    const int64_t lo = r.uniform(0, std::min<int64_t>(2, (k - 1) * d)),
                  hi = r.uniform(0, std::min<int64_t>(2, (k - 1) * d));
    // (o - 1) * s = in - 1 + lo + hi - (k - 1) * d
    const int64_t in = (o - 1) * s + (k - 1) * d + 1 - lo - hi;
    c.pad[size_t(2 * axis)] = lo, c.pad[size_t(2 * axis + 1)] = hi;
    (axis == 0 ? c.IH : c.IW) = in;
  }
  return c;
}

struct BandedOptions {
  bool bigAccumulators = false;  // |acc| > 2^24: the recompute must see the band's absolute rows
  bool runtimeBias = false;      // the bias a graph input (input_zp 0)
};

void int8BandedCase(Kind kind, uint32_t seed, int threads, BandedOptions opt = {}) {
  Rng r(seed);
  ConvCase c = bandedCase(r, kind);
  if (opt.bigAccumulators) {
    c.IC = 128, c.OC = 40, c.KH = c.KW = 3, c.stride = {1, 1}, c.dilation = {1, 1}, c.N = 1;
    // OH = IH - 1 + 1 + 2 - 2 + 1 = IH + 1 (pad bottom 2); 10 rows per band: 12 bands and a partial one of 1.
    c.pad = {1, 2, 1, 1}, c.OH = 121, c.OW = 120, c.IH = 120, c.IW = 120;
  }
  const int64_t inputZp = opt.runtimeBias ? 0 : opt.bigAccumulators ? -128 : r.uniform(-128, 127);
  Tensor x = opt.bigAccumulators ? r.ints(DType::I8, {c.N, c.IH, c.IW, c.IC}, 120, 127)
                                 : r.ints(DType::I8, {c.N, c.IH, c.IW, c.IC}, -128, 127);
  Tensor w =
      opt.bigAccumulators ? r.ints(DType::I8, weightShape(c), 120, 127) : r.ints(DType::I8, weightShape(c), -128, 127);
  Tensor bias = r.ints(DType::I32, {r.uniform(0, 3) == 0 ? 1 : c.OC}, -5000, 5000);
  const bool perChannel = seed % 2 == 0, doubleRound = seed % 3 == 0, clamp = seed % 4 < 2;
  std::vector<int64_t> mult, shift;
  for (int64_t i = 0; i < (perChannel ? c.OC : 1); ++i) {
    mult.push_back(r.uniform(1 << 29, (int64_t(1) << 31) - 1));
    // Big accumulators (~2^25 after the zero point's 128 * sum(w)): a shift that keeps the result unsaturated.
    shift.push_back(opt.bigAccumulators ? r.uniform(50, 51) : r.uniform(32, 40));
  }
  const int64_t outZp = r.uniform(-20, 20);
  GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* xv = b.input(ValueType::tensor(DType::I8, x.shape()), "x");
    ir::Value* bv = opt.runtimeBias ? b.input(ValueType::tensor(DType::I32, bias.shape()), "bias") : cst(bias);
    ir::Value* y = convOp(b, c, xv, cst(w), bv, cst(scalarTensor(DType::I8, double(inputZp))),
                          cst(scalarTensor(DType::I8, 0)), DType::I32, DType::I32);
    ir::RescaleAttrs ra;
    ra.multiplier = mult, ra.shift = shift, ra.outputZp = outZp;
    ra.perChannel = perChannel, ra.roundingMode = doubleRound ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    y = b.rescale(y, DType::I8, ra);
    if (clamp) y = b.clamp(y, -100, 90);
    b.output({y}, {"y"});
  };
  NamedTensors inputs{{"x", x}};
  if (opt.runtimeBias) inputs.push_back({"bias", bias});
  const std::string what = "seed " + std::to_string(seed) + " threads " + std::to_string(threads) + " " + c.describe();
  omp_set_num_threads(threads);
  FastResult f = runFast(g, inputs);
  omp_set_num_threads(omp_get_num_procs());
  if (!f.compiled || !oneDnnInt8Exact()) {
    const std::string why = noOneDnnKernelReason(DType::I8);
    if (!why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_TRUE(f.compiled) << what;
  EXPECT_EQ(f.opsAbsorbed, clamp ? 3 : 2) << what;
  // The banded path ran (not the whole-layer primitive), with more than one band and a partial last one.
  EXPECT_NE(f.impl.find(" bands of "), std::string::npos) << what << ": " << f.impl;
  EXPECT_FALSE(f.rerunOnReference) << what;
  expectSameInts(runReference(g, inputs, false), f, what);
}

TEST(OneDnnConvTest, Int8Conv2dBanded) {
  for (uint32_t seed = 201; seed <= 208; ++seed) int8BandedCase(Kind::Conv, seed, 1 + int(seed % 2));
}
TEST(OneDnnConvTest, Int8DepthwiseBanded) {
  for (uint32_t seed = 211; seed <= 214; ++seed) int8BandedCase(Kind::Depthwise, seed, 1 + int(seed % 2));
}
TEST(OneDnnConvTest, Int8BandedLargeAccumulatorsAndRuntimeBias) {
  for (int threads : {1, 2}) {
    int8BandedCase(Kind::Conv, 221, threads, BandedOptions{true, false});
    int8BandedCase(Kind::Conv, 222, threads, BandedOptions{false, true});
  }
}
// Below the threshold the layer stays one primitive (the band machinery must not take small layers).
TEST(OneDnnConvTest, Int8SmallLayerNotBanded) {
  Rng r(231);
  ConvCase c;
  c.IH = c.IW = 32, c.OH = c.OW = 32, c.IC = 8, c.OC = 64, c.pad = {1, 1, 1, 1};  // 256 KB of s32
  Tensor x = r.ints(DType::I8, {1, 32, 32, 8}, -128, 127), w = r.ints(DType::I8, weightShape(c), -128, 127);
  GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* y =
        convOp(b, c, b.input(ValueType::tensor(DType::I8, x.shape()), "x"), cst(w), cst(Tensor(DType::I32, {64})),
               cst(scalarTensor(DType::I8, 3)), cst(scalarTensor(DType::I8, 0)), DType::I32, DType::I32);
    ir::RescaleAttrs ra;
    ra.multiplier = {1 << 30}, ra.shift = {36};
    b.output({b.rescale(y, DType::I8, ra)}, {"y"});
  };
  if (!oneDnnInt8Exact()) GTEST_SKIP() << noOneDnnKernelReason(DType::I8);
  FastResult f = runFast(g, {{"x", x}});
  ASSERT_TRUE(f.compiled);
  EXPECT_EQ(f.impl.find(" bands of "), std::string::npos) << f.impl;
  expectBitExact(g, {{"x", x}}, 2, "small conv2d");
}

// Not handled exactly, so no kernel (the plan falls back to the reference kernel): weight_zp != 0.
// (transpose_conv2d with input_zp != 0 is handled: the last case must compile and be bit-exact.)
TEST(OneDnnConvTest, WeightZeroPointFallsBack) {
  ConvCase c;
  c.OH = c.OW = 3;
  Rng r(7);
  Tensor x = r.ints(DType::I8, {1, 5, 5, 3}, -128, 127), w = r.ints(DType::I8, {4, 3, 3, 3}, -128, 127);
  GraphFn g = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* y =
        convOp(b, c, b.input(ValueType::tensor(DType::I8, x.shape()), "x"), cst(w), cst(Tensor(DType::I32, {4})),
               cst(scalarTensor(DType::I8, 0)), cst(scalarTensor(DType::I8, 3)), DType::I32, DType::I32);
    b.output({y}, {"y"});
  };
  EXPECT_FALSE(runFast(g, {{"x", x}}).compiled);
  ConvCase t;
  t.kind = Kind::Transpose, t.IH = t.IW = 5, t.OH = t.OW = 7;
  GraphFn gt = [&](ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst) {
    ir::Value* y =
        convOp(b, t, b.input(ValueType::tensor(DType::I8, x.shape()), "x"), cst(w), cst(Tensor(DType::I32, {4})),
               cst(scalarTensor(DType::I8, 5)), cst(scalarTensor(DType::I8, 0)), DType::I32, DType::I32);
    b.output({y}, {"y"});
  };
  expectBitExact(gt, {{"x", x}}, 1, "transpose_conv2d k3 s1 input_zp 5");
}

}  // namespace
}  // namespace tosakit::testing
