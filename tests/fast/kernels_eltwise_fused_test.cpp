// The elementwise chain kernel's register-fused path (a chain of + - * max min clamp abs negate over flat
// tiles, 64 values per block through every step on AVX-512, 32 on AVX2, then a masked tail) vs the reference
// backend: random chains with full, scalar and per-channel operands on either side, lengths that leave every
// tail size, infinities, NaNs and zeros of both signs; 1 and 2 threads. Every op is one IEEE fp32 operation
// with the reference's NaN and tie rules, so results must be identical bit for bit. (At the baseline level the
// same graphs check the per-op passes.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "fast/isa_dispatch.h"
#include "fast_test_util.h"
#include "ir/builder.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

Tensor specialTensor(const Shape& s, std::mt19937& rng) {
  Tensor x(DType::FP32, s);
  std::uniform_real_distribution<double> d(-4, 4);
  const double sp[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 6.0, -1.5};
  for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, rng() % 5 == 0 ? sp[rng() % 7] : d(rng));
  return x;
}

// Identical bits, except that any NaN matches any NaN: after a NEGATE (-NaN) meets another NaN in an add or
// mul, which of the two NaNs x86 returns depends on the operand order the compiler picked (IEEE and TOSA do
// not define NaN payloads or signs; every other value must be identical, zeros' signs included).
bool sameBitsOrBothNaN(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != DType::FP32 || b.dtype() != DType::FP32) return false;
  for (int64_t i = 0; i < a.size(); ++i) {
    uint32_t ua, ub;
    std::memcpy(&ua, a.data() + 4 * i, 4);
    std::memcpy(&ub, b.data() + 4 * i, 4);
    if (ua != ub && !(std::isnan(a.getFloat(i)) && std::isnan(b.getFloat(i)))) {
      ADD_FAILURE() << "element " << i << ": " << a.getFloat(i) << " vs " << b.getFloat(i);
      return false;
    }
  }
  return true;
}

TEST(FastEltwiseFused, RandomSimpleChainsIdenticalToReference) {
  std::mt19937 rng(4242);
  const char* binaries[] = {"tosa.add", "tosa.sub", "tosa.mul", "tosa.maximum", "tosa.minimum"};
  for (int trial = 0; trial < 30; ++trial) {
    // [rows, C]: C from 1 to 40 (per-channel tiles of whole rows), rows so that some tensors exceed 65536
    // elements (the tiles split over threads) and the last tile leaves a tail of any size.
    const int64_t C = 1 + int64_t(rng() % 40),
                  rows = trial % 3 == 0 ? 2000 + int64_t(rng() % 1500) : 1 + int64_t(rng() % 90);
    const Shape out{1, rows, C};
    const int length = 1 + int(rng() % 7);
    std::vector<std::string> ops;
    std::vector<Shape> others;
    std::vector<bool> chainFirst;
    for (int k = 0; k < length; ++k) {
      const int pick = int(rng() % 8);
      ops.push_back(pick < 5 ? binaries[pick] : pick == 5 ? "tosa.clamp" : pick == 6 ? "tosa.abs" : "tosa.negate");
      const int kind = int(rng() % 3);  // full, one value, one value per channel
      others.push_back(kind == 0 ? out : kind == 1 ? Shape{1, 1, 1} : Shape{1, 1, C});
      chainFirst.push_back(rng() % 2 == 0);
    }
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      const ValueType t = ValueType::tensor(DType::FP32, out);
      ir::Value* v = b.input(t, "x");
      for (int k = 0; k < length; ++k) {
        const std::string& op = ops[size_t(k)];
        if (op == "tosa.clamp") {
          v = b.op1("tosa.clamp", {v}, t,
                    {{"min_val", Attribute::floating(-0.0)}, {"max_val", Attribute::floating(6)}});
        } else if (op == "tosa.abs") {
          v = b.op1("tosa.abs", {v}, t);
        } else if (op == "tosa.negate") {
          ir::Value* z = b.constant(Tensor::fromDoubles(DType::FP32, {1}, {0}));
          v = b.op1("tosa.negate", {v, z, z}, t);
        } else {
          ir::Value* o = b.input(ValueType::tensor(DType::FP32, others[size_t(k)]), "y" + std::to_string(k));
          std::vector<ir::Value*> operands =
              chainFirst[size_t(k)] ? std::vector<ir::Value*>{v, o} : std::vector<ir::Value*>{o, v};
          if (op == "tosa.mul") operands.push_back(b.constant(Tensor::fromInts(DType::I8, {1}, {0})));
          v = b.op1(op, operands, t);
        }
      }
      b.output({v}, {"z"});
      return m;
    };
    NamedTensors in{{"x", specialTensor(out, rng)}};
    for (int k = 0; k < length; ++k)
      if (ops[size_t(k)] != "tosa.clamp" && ops[size_t(k)] != "tosa.abs" && ops[size_t(k)] != "tosa.negate")
        in.emplace_back("y" + std::to_string(k), specialTensor(others[size_t(k)], rng));
    RunOutcome ref = runOn(make(), "ref", in, 1);
    ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
    for (int threads : {1, 2}) {
      RunOutcome fast = runOn(make(), "fast", in, threads);
      ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
      EXPECT_TRUE(sameBitsOrBothNaN(ref.outputs[0].second, fast.outputs[0].second))
          << "trial " << trial << " rows " << rows << " C " << C << " length " << length << " threads " << threads;
      ASSERT_EQ(fast.stats.steps.size(), 1u) << "trial " << trial;  // the whole chain is one step
      EXPECT_EQ(fast.stats.steps[0].impl, fast::withVectorIsa("fast:eltwise_f32"));
    }
  }
}

// HardSwish as imported from ONNX (x * clamp(x + 3, 0, 6) * (1/6)) followed by PP-LCNet's learnable affine:
// the chain reads x twice (the first op's operand and the mul's); hand-checked values at the clamp's corners.
TEST(FastEltwiseFused, HardSwishChainHandValues) {
  const Shape s{1, 5, 16};  // 80 values: one block of 64 and a tail of 16
  std::vector<double> xs(80);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = -4.0 + 0.125 * double(i);  // -4 .. 5.875, exact in fp32
  auto makeChain = [&]() {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    const ValueType t = ValueType::tensor(DType::FP32, s);
    ir::Value* x = b.input(t, "x");
    auto cst = [&](double v) { return b.constant(Tensor::fromDoubles(DType::FP32, {1, 1, 1}, {v})); };
    ir::Value* shift = b.constant(Tensor::fromInts(DType::I8, {1}, {0}));
    ir::Value* v = b.op1("tosa.add", {x, cst(3)}, t);
    v = b.op1("tosa.clamp", {v}, t, {{"min_val", Attribute::floating(0)}, {"max_val", Attribute::floating(6)}});
    v = b.op1("tosa.mul", {x, v, shift}, t);
    v = b.op1("tosa.mul", {v, cst(0.25), shift}, t);
    v = b.op1("tosa.mul", {v, cst(2), shift}, t);
    v = b.op1("tosa.add", {v, cst(-1)}, t);
    b.output({v}, {"z"});
    return m;
  };
  RunOutcome fast = runOn(makeChain(), "fast", {{"x", Tensor::fromDoubles(DType::FP32, s, xs)}}, 1);
  ASSERT_TRUE(fast.status.isOk()) << fast.status.toString();
  ASSERT_EQ(fast.stats.steps.size(), 1u);
  EXPECT_EQ(fast.stats.steps[0].impl, fast::withVectorIsa("fast:eltwise_f32"));
  const std::vector<double> z = fast.outputs[0].second.toDoubles();
  for (size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i], want = x * std::min(std::max(x + 3, 0.0), 6.0) * 0.5 - 1;  // exact in fp32 here
    EXPECT_EQ(z[i], want) << "x = " << x;
  }
}

}  // namespace
}  // namespace tosakit::testing
