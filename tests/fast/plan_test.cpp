// Whole graphs on the fast backend vs the reference backend through the Session, as users run them: fused
// chains (conv -> rescale -> clamp), reshape aliasing, the static memory plan, per-op reference fallback,
// observed intermediates (unfused plan) and functions that need the interpreter (control flow).
// Integer results must be bit-identical to the golden model.
#include <gtest/gtest.h>

#include <random>

#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

Tensor randomInts(DType t, Shape s, std::mt19937& rng, int64_t lo, int64_t hi) {
  Tensor x(t, std::move(s));
  std::uniform_int_distribution<int64_t> d(lo, hi);
  for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, d(rng));
  return x;
}

Tensor randomFloats(DType t, Shape s, std::mt19937& rng) {
  Tensor x(t, std::move(s));
  std::uniform_real_distribution<double> d(-1, 1);
  for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, d(rng));
  return x;
}

// Copies a module by building it twice with the same seed (modules are not copyable).
using ModuleFactory = std::function<std::unique_ptr<ir::Module>()>;

RunResult runOn(const ModuleFactory& make, const std::string& backend, const NamedTensors& inputs,
                bool intermediates = false, PlanStats* stats = nullptr) {
  SessionOptions so;
  so.backend = backend;
  so.threads = 2;
  auto s = Session::create(make(), so);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  RunOptions ro;
  ro.captureIntermediates = intermediates;
  Status st = (*s)->run(inputs, r, ro);
  EXPECT_TRUE(st.isOk()) << st.toString();
  // A second run of the same Session reuses the compiled plan and its arena: same results.
  RunResult again;
  EXPECT_TRUE((*s)->run(inputs, again, ro).isOk());
  for (size_t i = 0; i < r.outputs.size() && i < again.outputs.size(); ++i)
    EXPECT_TRUE(r.outputs[i].second.identical(again.outputs[i].second)) << "second run differs: " << r.outputs[i].first;
  if (stats) *stats = (*s)->planStats();
  return r;
}

void expectIdentical(const NamedTensors& a, const NamedTensors& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first);
    EXPECT_TRUE(a[i].second.identical(b[i].second))
        << a[i].first << ": ref " << a[i].second.summary() << " fast " << b[i].second.summary();
  }
}

// An int8 residual block as quantizers emit it: conv(i8->i32) -> rescale(i32->i8, per channel) -> clamp (ReLU)
// -> conv -> rescale -> add in i32 with the block input (rescaled) -> rescale -> reshape -> output.
std::unique_ptr<ir::Module> int8Block(uint32_t seed) {
  std::mt19937 rng(seed);
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  const int64_t C = 8;
  auto* x = b.input(ValueType::tensor(DType::I8, {1, 9, 9, C}), "x");
  ir::Conv2dAttrs ca;
  ca.pad = {1, 1, 1, 1};
  ca.inputZp = -3;
  auto* w1 = b.constant(randomInts(DType::I8, {C, 3, 3, C}, rng, -127, 127));
  auto* b1 = b.constant(randomInts(DType::I32, {C}, rng, -2000, 2000));
  auto* c1 = b.conv2d(x, w1, b1, ca, "conv1");
  ir::RescaleAttrs ra;
  ra.perChannel = true;
  ra.roundingMode = "DOUBLE_ROUND";
  for (int64_t c = 0; c < C; ++c) {
    ra.multiplier.push_back(1 << 30 | int64_t(rng() % (1 << 29)));
    ra.shift.push_back(38 + int64_t(rng() % 4));
  }
  ra.outputZp = 5;
  auto* r1 = b.rescale(c1, DType::I8, ra, "rescale1");
  auto* a1 = b.clamp(r1, 5, 127, "relu1");
  ca.inputZp = 5;
  auto* w2 = b.constant(randomInts(DType::I8, {C, 3, 3, C}, rng, -127, 127));
  auto* b2 = b.constant(randomInts(DType::I32, {C}, rng, -2000, 2000));
  auto* c2 = b.conv2d(a1, w2, b2, ca, "conv2");
  ir::RescaleAttrs up;
  up.multiplier = {1 << 30};
  up.shift = {24};
  up.inputZp = -3;
  auto* skip = b.rescale(x, DType::I32, up, "skip");
  auto* sum = b.add(c2, skip, "residual");
  ir::RescaleAttrs down;
  down.multiplier = {1518500250};
  down.shift = {42};
  auto* r2 = b.rescale(sum, DType::I8, down, "rescale2");
  auto* flat = b.reshape(r2, {1, 81 * C}, "flatten");
  b.output({flat}, {"y"});
  return m;
}

TEST(FastPlan, Int8ResidualBlockIsBitIdenticalToReference) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    ModuleFactory make = [seed] { return int8Block(seed); };
    std::mt19937 rng(seed + 100);
    NamedTensors in{{"x", randomInts(DType::I8, {1, 9, 9, 8}, rng, -128, 127)}};
    RunResult ref = runOn(make, "ref", in);
    PlanStats stats;
    RunResult fast = runOn(make, "fast", in, false, &stats);
    expectIdentical(ref.outputs, fast.outputs);
    EXPECT_TRUE(stats.compiled);
  }
}

TEST(FastPlan, ObservedIntermediatesMatchReferenceOpByOp) {
  ModuleFactory make = [] { return int8Block(7); };
  std::mt19937 rng(77);
  NamedTensors in{{"x", randomInts(DType::I8, {1, 9, 9, 8}, rng, -128, 127)}};
  RunResult ref = runOn(make, "ref", in, true);
  RunResult fast = runOn(make, "fast", in, true);
  // Every op's result, by name, as `run --dump-intermediates` writes them: the unfused plan keeps each one.
  expectIdentical(ref.intermediates, fast.intermediates);
  expectIdentical(ref.outputs, fast.outputs);
}

// A chain of elementwise ops: values die one step after they are made, so the arena holds two of them, not
// all (the static memory plan reuses bytes).
std::unique_ptr<ir::Module> elementwiseChain() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::I32, {64, 64}), "x");
  ir::Value* v = x;
  for (int i = 0; i < 8; ++i) {
    v = b.add(v, x, "add" + std::to_string(i));
    v = b.mul(v, x, 0, "mul" + std::to_string(i));
    v = b.sub(v, x, "sub" + std::to_string(i));
  }
  b.output({v}, {"y"});
  return m;
}

TEST(FastPlan, StaticMemoryPlanReusesBytes) {
  std::mt19937 rng(5);
  NamedTensors in{{"x", randomInts(DType::I32, {64, 64}, rng, -3, 3)}};
  RunResult ref = runOn(elementwiseChain, "ref", in);
  PlanStats stats;
  RunResult fast = runOn(elementwiseChain, "fast", in, false, &stats);
  expectIdentical(ref.outputs, fast.outputs);
  const int64_t one = 64 * 64 * 4;
  // 24 results of 16 KiB each; at most three are live at once (two operands and the result).
  EXPECT_LE(stats.arenaBytes, 3 * one);
  EXPECT_GE(stats.arenaBytes, one);
}

// tosa.reverse and tosa.erf have no fast kernel of their own (today): they run their reference kernel inside
// the plan and are listed as fallbacks.
std::unique_ptr<ir::Module> withFallbackOps() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, {2, 3, 4}), "x");
  auto* r = b.op1("tosa.reverse", {x}, x->type, {{"axis", ir::Attribute::integer(1, DType::I32)}}, "rev");
  auto* e = b.op1("tosa.erf", {r}, x->type, {}, "erf");
  auto* t = b.reshape(e, {6, 4}, "view");
  b.output({t}, {"y"});
  return m;
}

TEST(FastPlan, OpsWithoutFastKernelsRunTheirReferenceKernel) {
  std::mt19937 rng(9);
  NamedTensors in{{"x", randomFloats(DType::FP32, {2, 3, 4}, rng)}};
  RunResult ref = runOn(withFallbackOps, "ref", in);
  PlanStats stats;
  RunResult fast = runOn(withFallbackOps, "fast", in, false, &stats);
  // Same reference kernels on the same inputs: identical even for floats.
  expectIdentical(ref.outputs, fast.outputs);
  bool sawReverse = false, sawAlias = false;
  for (const OpProfile& p : stats.steps) {
    if (p.opType == "tosa.reverse") sawReverse = p.fallback;
    if (p.opType == "tosa.reshape") sawAlias = p.impl == "alias";
  }
  EXPECT_TRUE(sawReverse);
  EXPECT_TRUE(sawAlias);
}

// cond_if needs the interpreter: the whole function runs on the reference backend inside the fast one.
std::unique_ptr<ir::Module> withControlFlow() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::I32, {4}), "x");
  auto* c = b.input(ValueType::tensor(DType::Bool, {}), "c");
  ir::Operation& ifOp = b.create("tosa.cond_if", {c, x}, {x->type});
  for (int branch = 0; branch < 2; ++branch) {
    auto region = std::make_unique<ir::Region>();
    region->parent = &ifOp;
    auto block = std::make_unique<ir::Block>();
    block->parent = region.get();
    ir::Value* arg = m->newValue(x->type);
    arg->ownerBlock = block.get();
    block->args.push_back(arg);
    ir::Builder rb(*m, b.function(), *block);
    ir::Value* v = branch == 0 ? rb.add(arg, arg) : rb.sub(arg, arg);
    rb.create("tosa.yield", {v}, {});
    region->blocks.push_back(std::move(block));
    ifOp.regions.push_back(std::move(region));
  }
  b.output({ifOp.results[0]}, {"y"});
  return m;
}

TEST(FastPlan, ControlFlowRunsOnTheInterpreter) {
  Tensor x = Tensor::fromInts(DType::I32, {4}, {1, -2, 3, 40});
  Tensor c = Tensor::fromInts(DType::Bool, {}, {1});
  PlanStats stats;
  RunResult fast = runOn(withControlFlow, "fast", {{"x", x}, {"c", c}}, false, &stats);
  ASSERT_EQ(fast.outputs.size(), 1u);
  // Hand-computed: the then-branch doubles x.
  EXPECT_EQ(fast.outputs[0].second.toInts(), (std::vector<int64_t>{2, -4, 6, 80}));
  EXPECT_FALSE(stats.compiled);
}

// Regression: a widening integer cast sign-extends (i8 -3 -> i32 -3, not 253), as the reference does.
TEST(FastPlan, WideningIntegerCastSignExtends) {
  auto make = [] {
    auto m = std::make_unique<ir::Module>();
    ir::Builder b(*m, "main");
    auto* x = b.input(ValueType::tensor(DType::I8, {4}), "x");
    auto* w = b.op1("tosa.cast", {x}, ValueType::tensor(DType::I32, {4}), {}, "widen");
    auto* v = b.op1("tosa.cast", {x}, ValueType::tensor(DType::I16, {4}), {}, "widen16");
    b.output({w, v}, {"w", "v"});
    return m;
  };
  NamedTensors in{{"x", Tensor::fromInts(DType::I8, {4}, {-3, 127, -128, 5})}};
  RunResult fast = runOn(make, "fast", in);
  ASSERT_EQ(fast.outputs.size(), 2u);
  // Hand-computed: the values themselves.
  EXPECT_EQ(fast.outputs[0].second.toInts(), (std::vector<int64_t>{-3, 127, -128, 5}));
  EXPECT_EQ(fast.outputs[1].second.toInts(), (std::vector<int64_t>{-3, 127, -128, 5}));
}

TEST(FastPlan, PreciseModeNeedsTheReferenceBackend) {
  SessionOptions so;
  so.backend = "fast";
  so.precise = true;
  auto s = Session::create(int8Block(1), so);
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.status().message().find("--backend ref"), std::string::npos);
}

}  // namespace
}  // namespace tosakit::testing
