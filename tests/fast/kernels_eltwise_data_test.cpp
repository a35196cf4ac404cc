// The fast backend's own elementwise-chain and data-movement kernels vs the reference backend, through the
// Session as users run graphs: random shapes with broadcasting, fixed seeds. fp32 + - * min max clamp are
// correctly rounded in both (fp32 arithmetic = fp64 rounded once), so results must be identical; integer ops
// identical, and an i32 overflow must give the reference's REQUIRE verdict (the step reruns on ref).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "fast/isa_dispatch.h"
#include "fast_test_util.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::Attribute;
using ir::ValueType;

Tensor randomTensor(DType t, const Shape& s, std::mt19937& rng, double lo = -4, double hi = 4) {
  Tensor x(t, s);
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < x.size(); ++i) {
    if (isFloat(t))
      x.setFloat(i, d(rng));
    else
      x.setInt(i, int64_t(std::llround(d(rng))));
  }
  return x;
}

using Outcome = RunOutcome;

Outcome runOn(const std::function<std::unique_ptr<ir::Module>()>& make, const std::string& backend,
              const NamedTensors& in, int threads = 2) {
  return tosakit::testing::runOn(make(), backend, in, threads);
}

// Broadcast shapes: the other operand keeps some output dims and sets others to 1.
Shape broadcastOf(const Shape& out, std::mt19937& rng) {
  Shape s = out;
  for (auto& d : s)
    if (rng() % 2) d = 1;
  return s;
}

TEST(FastEltwise, RandomFloatChainsAreIdenticalToReference) {
  std::mt19937 rng(2024);
  const char* binaries[] = {"tosa.add", "tosa.sub", "tosa.mul", "tosa.maximum", "tosa.minimum"};
  for (int trial = 0; trial < 40; ++trial) {
    Shape out;
    int rank = 1 + int(rng() % 4);
    for (int d = 0; d < rank; ++d) out.push_back(1 + int64_t(rng() % 7));
    int length = 1 + int(rng() % 5);
    std::vector<std::string> ops;
    std::vector<Shape> others;
    for (int k = 0; k < length; ++k) {
      int pick = int(rng() % 7);
      ops.push_back(pick < 5 ? binaries[pick] : pick == 5 ? "tosa.clamp" : "tosa.abs");
      others.push_back(broadcastOf(out, rng));
    }
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      ir::Value* v = b.input(ValueType::tensor(DType::FP32, out), "x");
      for (int k = 0; k < length; ++k) {
        ValueType t = ValueType::tensor(DType::FP32, out);
        if (ops[size_t(k)] == "tosa.clamp") {
          v = b.op1("tosa.clamp", {v}, t,
                    {{"min_val", Attribute::floating(-1.5)}, {"max_val", Attribute::floating(2.25)}});
        } else if (ops[size_t(k)] == "tosa.abs") {
          v = b.op1("tosa.abs", {v}, t);
        } else {
          ir::Value* o = b.input(ValueType::tensor(DType::FP32, others[size_t(k)]), "y" + std::to_string(k));
          std::vector<ir::Value*> operands = k % 2 ? std::vector<ir::Value*>{o, v} : std::vector<ir::Value*>{v, o};
          if (ops[size_t(k)] == "tosa.mul") operands.push_back(b.constant(Tensor::fromInts(DType::I8, {1}, {0})));
          v = b.op1(ops[size_t(k)], operands, t);
        }
      }
      b.output({v}, {"z"});
      return m;
    };
    NamedTensors in{{"x", randomTensor(DType::FP32, out, rng)}};
    for (int k = 0; k < length; ++k)
      if (ops[size_t(k)] != "tosa.clamp" && ops[size_t(k)] != "tosa.abs")
        in.emplace_back("y" + std::to_string(k), randomTensor(DType::FP32, others[size_t(k)], rng));
    Outcome ref = runOn(make, "ref", in), fast = runOn(make, "fast", in);
    ASSERT_TRUE(ref.status.isOk() && fast.status.isOk()) << ref.status.toString() << " / " << fast.status.toString();
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "trial " << trial;
    for (const OpProfile& p : fast.stats.steps) EXPECT_EQ(p.impl, fast::withVectorIsa("fast:eltwise_f32")) << p.opType;
  }
}

// rsqrt (fp64 then one rounding, as the reference) must give the reference's result bit for bit. Inputs: a
// dense sweep, edges, specials, and 1 vs 2 threads (the flat path splits tiles over threads above 65536
// elements). exp/sigmoid/tanh/erf are checked against the spec's bounds in kernels_eltwise_transcendental_test.
TEST(FastEltwise, RsqrtIdenticalToReference) {
  std::mt19937 rng(31);
  const int64_t n = 300000;
  std::vector<double> v;
  std::uniform_real_distribution<double> wide(-130, 130), narrow(-3, 3);
  for (int64_t i = 0; i < n; ++i) v.push_back(i % 2 ? wide(rng) : narrow(rng));
  for (double edge : {-104.0, -103.99, -87.0, -87.01, -86.99, 88.0, 87.99, 88.01, 89.0,   88.99, -37.5,
                      -37.49, -37.51,  87.0,  105.0,  104.99, 0.0,  -0.0,  1e-30, -1e-30, 1e-45})
    v.push_back(edge);
  for (double sp : {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                    std::numeric_limits<double>::quiet_NaN()})
    v.push_back(sp);
  const Shape shape{int64_t(v.size()), 1};  // [..., 1] like PP-OCR det's sigmoid map: flat tiles, not 1-element rows
  Tensor x = Tensor::fromDoubles(DType::FP32, shape, v);
  auto make = [&]() {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    ValueType t = ValueType::tensor(DType::FP32, shape);
    b.output({b.op1("tosa.rsqrt", {b.input(t, "x")}, t)}, {"y"});
    return m;
  };
  Outcome ref = runOn(make, "ref", {{"x", x}});
  ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
  for (int threads : {1, 2}) {
    Outcome fast = runOn(make, "fast", {{"x", x}}, threads);
    ASSERT_TRUE(fast.status.isOk());
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "threads " << threads;
    for (const OpProfile& p : fast.stats.steps) EXPECT_EQ(p.impl, fast::withVectorIsa("fast:eltwise_f32"));
  }
}

// max/min/clamp with NaN, infinities and zeros of both signs, the running value as either operand, and
// per-channel vectors (the flat path repeats them to its tile), large enough to split over 2 threads.
// apply_max_f keeps its first operand on ties and apply_min_f its second: that decides the sign of a zero.
TEST(FastEltwise, MaxMinClampSpecialsAndChannelVectorsIdentical) {
  std::mt19937 rng(77);
  const Shape out{2, 37, 41, 24}, channel{1, 1, 1, 24};
  auto special = [&](DType t, const Shape& s) {
    Tensor x = randomTensor(t, s, rng, -2, 2);
    const double sp[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 0.0, -0.0};
    for (int64_t i = 0; i < x.size(); ++i)
      if (rng() % 3 == 0) x.setFloat(i, sp[rng() % 7]);
    return x;
  };
  auto make = [&]() {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    ValueType t = ValueType::tensor(DType::FP32, out);
    auto* x = b.input(t, "x");
    auto* y = b.input(t, "y");
    auto* c1 = b.input(ValueType::tensor(DType::FP32, channel), "c1");
    auto* c2 = b.input(ValueType::tensor(DType::FP32, channel), "c2");
    auto* v = b.op1("tosa.maximum", {x, c1}, t);
    v = b.op1("tosa.minimum", {c2, v}, t);
    v = b.op1("tosa.maximum", {y, v}, t);
    v = b.op1("tosa.clamp", {v}, t, {{"min_val", Attribute::floating(-1.0)}, {"max_val", Attribute::floating(0.0)}});
    v = b.op1("tosa.minimum", {v, y}, t);
    b.output({v}, {"z"});
    return m;
  };
  NamedTensors in{{"x", special(DType::FP32, out)},
                  {"y", special(DType::FP32, out)},
                  {"c1", special(DType::FP32, channel)},
                  {"c2", special(DType::FP32, channel)}};
  Outcome ref = runOn(make, "ref", in);
  ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
  for (int threads : {1, 2}) {
    Outcome fast = runOn(make, "fast", in, threads);
    ASSERT_TRUE(fast.status.isOk());
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << "threads " << threads;
    ASSERT_EQ(fast.stats.steps.size(), 1u);  // one fused kernel, no rerun needed for NaNs
    EXPECT_EQ(fast.stats.steps[0].impl, fast::withVectorIsa("fast:eltwise_f32"));
  }
}

TEST(FastEltwise, NaNInputsFollowTheReference) {
  // max/min/clamp propagate NaN per the spec's nan_mode: the fast kernel hands NaN cases to the reference.
  auto make = [] {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    auto* x = b.input(ValueType::tensor(DType::FP32, {4}), "x");
    auto* y = b.input(ValueType::tensor(DType::FP32, {4}), "y");
    auto* mx = b.op1("tosa.maximum", {x, y}, x->type);
    auto* c =
        b.op1("tosa.clamp", {mx}, x->type, {{"min_val", Attribute::floating(0)}, {"max_val", Attribute::floating(6)}});
    b.output({c}, {"z"});
    return m;
  };
  NamedTensors in{{"x", Tensor::fromDoubles(DType::FP32, {4}, {NAN, 1, -2, 9})},
                  {"y", Tensor::fromDoubles(DType::FP32, {4}, {0, NAN, -3, 1})}};
  Outcome fast = runOn(make, "fast", in);
  ASSERT_TRUE(fast.status.isOk());
  std::vector<double> z = fast.outputs[0].second.toDoubles();
  // Hand-computed with PROPAGATE: max(NaN,0)=NaN, max(1,NaN)=NaN, max(-2,-3)=-2 -> clamp 0, max(9,1)=9 -> 6.
  EXPECT_TRUE(std::isnan(z[0]));
  EXPECT_TRUE(std::isnan(z[1]));
  EXPECT_EQ(z[2], 0);
  EXPECT_EQ(z[3], 6);
}

TEST(FastEltwise, IntegerBinaryOpsAndOverflowVerdict) {
  std::mt19937 rng(7);
  for (const char* name : {"tosa.add", "tosa.sub", "tosa.mul", "tosa.maximum", "tosa.minimum"}) {
    Shape out{2, 3, 5};
    Shape other = broadcastOf(out, rng);
    auto make = [&]() {
      auto m = std::make_unique<ir::Module>();
      ir::Builder b(*m, "main");
      auto* x = b.input(ValueType::tensor(DType::I32, out), "x");
      auto* y = b.input(ValueType::tensor(DType::I32, other), "y");
      std::vector<ir::Value*> operands{x, y};
      if (std::string(name) == "tosa.mul") operands.push_back(b.constant(Tensor::fromInts(DType::I8, {1}, {3})));
      b.output({b.op1(name, operands, ValueType::tensor(DType::I32, out))}, {"z"});
      return m;
    };
    NamedTensors in{{"x", randomTensor(DType::I32, out, rng, -30000, 30000)},
                    {"y", randomTensor(DType::I32, other, rng, -30000, 30000)}};
    Outcome ref = runOn(make, "ref", in), fast = runOn(make, "fast", in);
    ASSERT_TRUE(ref.status.isOk() && fast.status.isOk()) << name;
    EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second)) << name;
    // 2^31 - 1 + 1 overflows i32: the spec's REQUIRE makes the result unpredictable, on both backends.
    if (std::string(name) == "tosa.add") {
      NamedTensors big{{"x", Tensor(DType::I32, out)}, {"y", Tensor(DType::I32, other)}};
      big[0].second.setInt(0, 2147483647);
      big[1].second.setInt(0, 1);
      Outcome r2 = runOn(make, "ref", big), f2 = runOn(make, "fast", big);
      EXPECT_EQ(r2.status.code(), StatusCode::Unpredictable);
      EXPECT_EQ(f2.status.code(), StatusCode::Unpredictable) << f2.status.toString();
    }
  }
}

TEST(FastDataMovement, TransposeConcatSlicePadAreIdenticalToReference) {
  std::mt19937 rng(99);
  for (DType t : {DType::FP32, DType::I8, DType::I16, DType::FP16}) {
    for (int trial = 0; trial < 6; ++trial) {
      Shape s{1 + int64_t(rng() % 3), 1 + int64_t(rng() % 5), 1 + int64_t(rng() % 4), 1 + int64_t(rng() % 6)};
      std::vector<int64_t> perms{0, 1, 2, 3};
      std::shuffle(perms.begin(), perms.end(), rng);
      Shape ts;
      for (int64_t p : perms) ts.push_back(s[size_t(p)]);
      int64_t axis = int64_t(rng() % 4);
      Shape cs = ts;
      cs[size_t(axis)] *= 2;
      std::vector<int64_t> start(4), size(4), pad(8);
      Shape ss, ps;
      for (size_t d = 0; d < 4; ++d) {
        start[d] = int64_t(rng() % uint64_t(cs[d]));
        size[d] = 1 + int64_t(rng() % uint64_t(cs[d] - start[d]));
        ss.push_back(size[d]);
        pad[2 * d] = int64_t(rng() % 3);
        pad[2 * d + 1] = int64_t(rng() % 3);
        ps.push_back(size[d] + pad[2 * d] + pad[2 * d + 1]);
      }
      auto make = [&]() {
        auto m = std::make_unique<ir::Module>();
        ir::Builder b(*m, "main");
        auto* x = b.input(ValueType::tensor(t, s), "x");
        auto* tr = b.transpose(x, perms);
        auto* cc =
            b.op1("tosa.concat", {tr, tr}, ValueType::tensor(t, cs), {{"axis", Attribute::integer(axis, DType::I32)}});
        auto* sl = b.op1("tosa.slice", {cc, b.constShape(start), b.constShape(size)}, ValueType::tensor(t, ss));
        Tensor pv(t, {1});
        if (isFloat(t))
          pv.setFloat(0, 0.5);
        else
          pv.setInt(0, -7);
        auto* pd = b.op1("tosa.pad", {sl, b.constShape(pad), b.constant(pv)}, ValueType::tensor(t, ps));
        b.output({pd, tr}, {"p", "t"});
        return m;
      };
      NamedTensors in{{"x", randomTensor(t, s, rng, -100, 100)}};
      Outcome ref = runOn(make, "ref", in), fast = runOn(make, "fast", in);
      ASSERT_TRUE(ref.status.isOk() && fast.status.isOk()) << ref.status.toString() << " / " << fast.status.toString();
      for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(ref.outputs[i].second.identical(fast.outputs[i].second));
      bool allFast = true;
      for (const OpProfile& p : fast.stats.steps) allFast = allFast && !p.fallback;
      EXPECT_TRUE(allFast);
    }
  }
}

TEST(FastDataMovement, LargeConcatTransposePadIdenticalWithOneAndTwoThreads) {
  // PP-OCR det's FPN concat along channels, the NCHW -> NHWC input transpose and a large pad: above the size
  // where copies and fills split over threads; axes contiguous on both sides are merged before copying.
  std::mt19937 rng(5);
  const Shape part{1, 40, 40, 24}, nchw{1, 3, 64, 80};
  auto make = [&]() {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    std::vector<ir::Value*> parts;
    for (int k = 0; k < 4; ++k) parts.push_back(b.input(ValueType::tensor(DType::FP32, part), "p" + std::to_string(k)));
    auto* cc = b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, {1, 40, 40, 96}),
                     {{"axis", Attribute::integer(3, DType::I32)}});
    auto* x = b.input(ValueType::tensor(DType::I8, nchw), "x");
    auto* tr = b.transpose(x, {0, 2, 3, 1});
    auto* pd =
        b.op1("tosa.pad",
              {cc, b.constShape({0, 0, 3, 1, 2, 5, 0, 0}), b.constant(Tensor::fromDoubles(DType::FP32, {1}, {-1.5}))},
              ValueType::tensor(DType::FP32, {1, 44, 47, 96}));
    b.output({cc, tr, pd}, {"c", "t", "p"});
    return m;
  };
  NamedTensors in;
  for (int k = 0; k < 4; ++k) in.emplace_back("p" + std::to_string(k), randomTensor(DType::FP32, part, rng));
  in.emplace_back("x", randomTensor(DType::I8, nchw, rng, -100, 100));
  Outcome ref = runOn(make, "ref", in);
  ASSERT_TRUE(ref.status.isOk()) << ref.status.toString();
  for (int threads : {1, 2}) {
    Outcome fast = runOn(make, "fast", in, threads);
    ASSERT_TRUE(fast.status.isOk());
    for (size_t i = 0; i < 3; ++i)
      EXPECT_TRUE(ref.outputs[i].second.identical(fast.outputs[i].second)) << i << " threads " << threads;
    for (const OpProfile& p : fast.stats.steps) EXPECT_FALSE(p.fallback) << p.opType;
  }
}

}  // namespace
}  // namespace tosakit::testing
