// Inf and NaN operands of fused oneDNN convolutions through a whole fast plan (Session). oneDNN's blocked layouts
// multiply padding lanes by zero and its clip maps NaN to min_val, so a step whose run-time float operand is not
// finite must rerun on the reference kernels. The plan scans each such operand before the step, except those
// the kernel checks itself while it reads them anyway (OpKernel::rejectsNonFinite): the conv input under a
// fused PROPAGATE clamp (its max|x| bound check) and the residual of the sum post-op (checked while copied into
// the destination). Each case here puts an inf or NaN in one of them: the outputs must be the reference
// backend's bit for bit.
//
// The scan also skips a value whose producing kernel bounded it this run (OpKernel::resultAbsBound): a oneDNN
// convolution ending in a clamp fused under its input check, or the own depthwise kernel's clamp with a bounded
// input. The second test feeds inf, NaN and huge values through such chains (mobilenet's expansion -> depthwise
// -> projection) and through a depthwise kernel whose input has no bound.
//
// The values are small integers, so every dot product is exact in fp32 in any order and finite results match
// bit for bit too.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "fast/kernels/f32/depthwise.h"
#include "ir/builder.h"
#include "onednn_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

// x [1,12,12,32] -> conv2d 3x3 pad 1 (w [32,3,3,32], bias) [-> add(., r)] -> clamp [0, 1e30] PROPAGATE -> y:
// a residual block's second convolution (with the add) or its first (without).
std::unique_ptr<ir::Module> residualBlock(bool residual) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  const Shape shape{1, 12, 12, 32};
  auto* x = b.input(ValueType::tensor(DType::FP32, shape), "x");
  auto* r = residual ? b.input(ValueType::tensor(DType::FP32, shape), "r") : nullptr;
  const ir::Conv2dAttrs ca = fp32ConvAttrs(1);
  ir::Value* y =
      b.conv2d(x, b.constant(smallInts({32, 3, 3, 32}, 1), "w"), b.constant(smallInts({32}, 2), "bias"), ca, "conv");
  if (residual) y = b.add(y, r, "add");
  y = b.clamp(y, 0, 1e30, "relu");
  b.output({y}, {"y"});
  return m;
}

RunResult run(const std::string& backend, int threads, bool residual, const NamedTensors& in) {
  SessionOptions so;
  so.backend = backend;
  so.threads = threads;
  auto s = Session::create(residualBlock(residual), so);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  if (!s.isOk()) return r;
  Status st = (*s)->run(in, r, RunOptions{});
  EXPECT_TRUE(st.isOk()) << st.toString();
  return r;
}

struct Case {
  const char* name;
  int operand;  // 0: x, 1: r
  double value;
};

TEST(PlanFiniteScan, NonFiniteConvInputAndResidualGiveTheReferenceResult) {
  const Case cases[] = {{"finite", -1, 0},           {"inf in x", 0, INFINITY}, {"NaN in x", 0, NAN},
                        {"-inf in x", 0, -INFINITY}, {"inf in r", 1, INFINITY}, {"NaN in r", 1, NAN},
                        {"-inf in r", 1, -INFINITY}};
  for (bool residual : {true, false})
    for (const Case& c : cases) {
      if (c.operand == 1 && !residual) continue;
      NamedTensors in{{"x", smallInts({1, 12, 12, 32}, 3)}};
      if (residual) in.push_back({"r", smallInts({1, 12, 12, 32}, 4)});
      // A border pixel (the zero-padding lanes meet it) and an interior one.
      if (c.operand >= 0) {
        in[size_t(c.operand)].second.setFloat(5, c.value);
        in[size_t(c.operand)].second.setFloat(12 * 32 * 6 + 32 * 7 + 9, c.value);
      }
      const RunResult ref = run("ref", 1, residual, in);
      ASSERT_EQ(ref.outputs.size(), 1u);
      for (int threads : {1, 2}) {
        const RunResult fast = run("fast", threads, residual, in);
        ASSERT_EQ(fast.outputs.size(), 1u);
        EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second))
            << c.name << (residual ? " with residual" : "") << ", " << threads << " threads: ref "
            << ref.outputs[0].second.summary() << " fast " << fast.outputs[0].second.summary();
      }
    }
}

// x [1,10,10,16] [-> conv2d 1x1 (-> 32) -> clamp [0, 6]] -> depthwise 3x3 pad 1 -> clamp [0, 6] -> conv2d 1x1
// (-> 16, no clamp: the plan scans its input unless the depthwise step bounded it) -> y.
std::unique_ptr<ir::Module> invertedResidual(bool expansion) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, {1, 10, 10, 16}), "x");
  const ir::Conv2dAttrs one = fp32ConvAttrs(0);
  ir::Value* h = x;
  int64_t c = 16;
  if (expansion) {
    h = b.clamp(b.conv2d(x, b.constant(smallInts({32, 1, 1, 16}, 11), "we"), b.constant(smallInts({32}, 12), "be"), one,
                         "expand"),
                0, 6, "relu6a");
    c = 32;
  }
  auto* zp = b.scalar1(DType::FP32, 0);
  h = b.op1("tosa.depthwise_conv2d",
            {h, b.constant(smallInts({3, 3, c, 1}, 13), "wd"), b.constant(smallInts({c}, 14), "bd"), zp, zp},
            ValueType::tensor(DType::FP32, {1, 10, 10, c}),
            {{"pad", ir::Attribute::intArray({1, 1, 1, 1})},
             {"stride", ir::Attribute::intArray({1, 1})},
             {"dilation", ir::Attribute::intArray({1, 1})},
             {"acc_type", ir::Attribute::type(DType::FP32)}},
            "depthwise");
  h = b.clamp(h, 0, 6, "relu6b");
  ir::Value* y = b.conv2d(h, b.constant(smallInts({16, 1, 1, c}, 15), "wp"), b.constant(smallInts({16}, 16), "bp"), one,
                          "project");
  b.output({y}, {"y"});
  return m;
}

// fast (1 and 2 threads) against ref on the module `make` builds: finite values bit for bit, a NaN where the
// reference has one (its payload is not specified: the own depthwise kernel's inf * 0 gives the CPU's default).
void expectFastMatchesRef(const std::function<std::unique_ptr<ir::Module>()>& make, const NamedTensors& in,
                          const std::string& what) {
  auto runOn = [&](const std::string& backend, int threads) {
    SessionOptions so;
    so.backend = backend;
    so.threads = threads;
    auto s = Session::create(make(), so);
    EXPECT_TRUE(s.isOk()) << s.status().toString();
    RunResult r;
    if (s.isOk()) { EXPECT_TRUE((*s)->run(in, r, RunOptions{}).isOk()); }
    return r;
  };
  const RunResult ref = runOn("ref", 1);
  ASSERT_EQ(ref.outputs.size(), 1u);
  for (int threads : {1, 2}) {
    const RunResult fast = runOn("fast", threads);
    ASSERT_EQ(fast.outputs.size(), 1u);
    const Tensor &e = ref.outputs[0].second, &a = fast.outputs[0].second;
    ASSERT_EQ(e.size(), a.size());
    for (int64_t i = 0; i < e.size(); ++i) {
      const double ev = e.getFloat(i), av = a.getFloat(i);
      if (std::isnan(ev) ? std::isnan(av) : (std::signbit(ev) == std::signbit(av) && ev == av)) continue;
      ADD_FAILURE() << what << ", " << threads << " threads, element " << i << ": ref " << ev << " fast " << av;
      break;
    }
  }
}

const double kSpecials[] = {0, INFINITY, -INFINITY, NAN, 1e30, 3e38};

TEST(PlanFiniteScan, BoundedValuesThroughDepthwiseChainsGiveTheReferenceResult) {
  for (bool expansion : {true, false})
    for (double v : kSpecials) {
      NamedTensors in{{"x", smallInts({1, 10, 10, 16}, 17)}};
      if (v != 0) in[0].second.setFloat(10 * 16 * 4 + 16 * 5 + 3, v);
      expectFastMatchesRef([&] { return invertedResidual(expansion); }, in,
                           "value " + std::to_string(v) + (expansion ? " with expansion" : " into the depthwise"));
    }
}

// x [1,13,13,16] -> conv2d 3x3 pad 1 -> clamp [0, FLT_MAX] (an imported ReLU: bounded by FLT_MAX, so finite) ->
// max_pool 3x3 s2 pad 1 / slice to 12x12 (pass the bound on) -> conv2d 1x1 (-> 16, no clamp: scanned unless
// bounded) -> y.
std::unique_ptr<ir::Module> reluThenUnclamped(bool pool) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, {1, 13, 13, 16}), "x");
  const ir::Conv2dAttrs three = fp32ConvAttrs(1);
  ir::Value* h = b.clamp(b.conv2d(x, b.constant(smallInts({16, 3, 3, 16}, 21), "w1"),
                                  b.constant(smallInts({16}, 22), "b1"), three, "conv1"),
                         0, double(std::numeric_limits<float>::max()), "relu");
  if (pool) {
    h = b.op1("tosa.max_pool2d", {h}, ValueType::tensor(DType::FP32, {1, 7, 7, 16}),
              {{"kernel", ir::Attribute::intArray({3, 3})},
               {"stride", ir::Attribute::intArray({2, 2})},
               {"pad", ir::Attribute::intArray({1, 1, 1, 1})}},
              "pool");
  } else {
    h = b.op1("tosa.slice", {h, b.constShape({0, 0, 0, 0}), b.constShape({1, 12, 12, 16})},
              ValueType::tensor(DType::FP32, {1, 12, 12, 16}), {}, "slice");
  }
  const ir::Conv2dAttrs one = fp32ConvAttrs(0);
  ir::Value* y =
      b.conv2d(h, b.constant(smallInts({16, 1, 1, 16}, 23), "w2"), b.constant(smallInts({16}, 24), "b2"), one, "conv2");
  b.output({y}, {"y"});
  return m;
}

TEST(PlanFiniteScan, BoundsPassThroughPoolAndSlice) {
  // Not huge finite values here: products near FLT_MAX overflow in oneDNN's fp32 sums where the reference's
  // differ (a float result within compliance, not bit for bit).
  for (bool pool : {true, false})
    for (double v : {0.0, double(INFINITY), -double(INFINITY), double(NAN)}) {
      NamedTensors in{{"x", smallInts({1, 13, 13, 16}, 25)}};
      if (v != 0) in[0].second.setFloat(13 * 16 * 5 + 16 * 6 + 2, v);
      expectFastMatchesRef([&] { return reluThenUnclamped(pool); }, in,
                           "value " + std::to_string(v) + (pool ? " through max_pool" : " through slice"));
    }
}

// The bound arithmetic by hand (kernels/f32/depthwise.h epilogueAbsBound): each ADD/MUL and the accumulator carry a
// slack factor s = 1 + 1e-5 for fp32 roundings; a PROPAGATE clamp bounds only a bounded value (a NaN passes it),
// an IGNORE clamp bounds anything; past FLT_MAX / 2 (1.7e38) nothing is bounded.
TEST(PlanFiniteScan, EpilogueAbsBoundByHand) {
  using Op = fast::FloatEpilogueOp;
  auto clamp = [](float lo, float hi, bool ignoreNan) {
    Op o;
    o.kind = Op::Kind::Clamp, o.lo = lo, o.hi = hi, o.ignoreNan = ignoreNan;
    return o;
  };
  auto arith = [](Op::Kind k) {
    Op o;
    o.kind = k, o.operand = Op::Operand::Scalar;
    return o;
  };
  const double s = 1 + 1e-5;
  const std::vector<Op> relu6{clamp(0, 6, false)};
  EXPECT_EQ(fast::epilogueAbsBound(relu6, {INFINITY}, 100), 6);
  EXPECT_EQ(fast::epilogueAbsBound(relu6, {INFINITY}, 1e38), 6);         // 1e38 * s < 1.7e38: no overflow, clamped
  EXPECT_EQ(fast::epilogueAbsBound(relu6, {INFINITY}, 2e38), INFINITY);  // might overflow: inf - inf = NaN
  EXPECT_EQ(fast::epilogueAbsBound(relu6, {INFINITY}, INFINITY), INFINITY);
  EXPECT_EQ(fast::epilogueAbsBound({clamp(-2, 1, true)}, {INFINITY}, INFINITY), 2);  // IGNORE: NaN -> min_val
  // 10 -> * 2 -> + 3 -> clamp [-100, 100]: (10 s * 2 s + 3) s, below the clamp's 100.
  const std::vector<Op> affine{arith(Op::Kind::Mul), arith(Op::Kind::Add), clamp(-100, 100, false)};
  EXPECT_DOUBLE_EQ(fast::epilogueAbsBound(affine, {2, 3, INFINITY}, 10), (10 * s * 2 * s + 3) * s);
  EXPECT_EQ(fast::epilogueAbsBound(affine, {INFINITY, 3, INFINITY}, 10), INFINITY);  // a run-time multiplier
  EXPECT_EQ(fast::epilogueAbsBound({}, {}, 5), 5 * s);                               // no epilogue: the sum
  // * 1e30 overflows the limit (1e40): unbounded, until an IGNORE clamp.
  const std::vector<Op> big{arith(Op::Kind::Mul), clamp(-3, 2, true)};
  EXPECT_EQ(fast::epilogueAbsBound({big[0]}, {1e30}, 1e10), INFINITY);
  EXPECT_EQ(fast::epilogueAbsBound(big, {1e30, INFINITY}, 1e10), 3);
}

}  // namespace
}  // namespace tosakit::testing
