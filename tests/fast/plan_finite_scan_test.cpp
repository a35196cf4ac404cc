// Inf and NaN operands of fused oneDNN convolutions through a whole fast plan (Session). oneDNN's blocked layouts
// multiply padding lanes by zero and its clip maps NaN to min_val, so a step whose run-time float operand is not
// finite must rerun on the reference kernels. The plan scans each such operand before the step, except those
// the kernel checks itself while it reads them anyway (OpKernel::rejectsNonFinite): the conv input under a
// fused PROPAGATE clamp (its max|x| bound check) and the residual of the sum post-op (checked while copied into
// the destination). Each case here puts an inf or NaN in one of them: the outputs must be the reference
// backend's bit for bit.
//
// The values are small integers, so every dot product is exact in fp32 in any order and finite results match
// bit for bit too.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

Tensor smallInts(Shape s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-3, 3);
  Tensor t(DType::FP32, std::move(s));
  for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, d(rng));
  return t;
}

// x [1,12,12,32] -> conv2d 3x3 pad 1 (w [32,3,3,32], bias) [-> add(., r)] -> clamp [0, 1e30] PROPAGATE -> y:
// a residual block's second convolution (with the add) or its first (without).
std::unique_ptr<ir::Module> residualBlock(bool residual) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  const Shape shape{1, 12, 12, 32};
  auto* x = b.input(ValueType::tensor(DType::FP32, shape), "x");
  auto* r = residual ? b.input(ValueType::tensor(DType::FP32, shape), "r") : nullptr;
  ir::Conv2dAttrs ca;
  ca.pad = {1, 1, 1, 1};
  ca.accType = DType::FP32;
  ir::Value* y = b.conv2d(x, b.constant(smallInts({32, 3, 3, 32}, 1), "w"), b.constant(smallInts({32}, 2), "bias"),
                          ca, "conv");
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

}  // namespace
}  // namespace tosakit::testing
