// Whole graphs on the fast backend vs the reference backend through the Session, as users run them: fused
// chains (conv -> rescale -> clamp), reshape aliasing, the static memory plan, per-op reference fallback,
// observed intermediates (unfused plan) and functions that need the interpreter (control flow).
// Integer results must be bit-identical to the golden model.
#include <gtest/gtest.h>

#include <cmath>
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

// Random int8 graphs of quantized add/sub/mul as `tosakit quantize` emits them (rescale both operands to i32,
// the op, rescale to i8 [, clamp]), tables and clamps between them. The first operand's rescale is placed
// anywhere between its input's definition and its op, so the plan holds it back over other steps whose results
// reuse arena bytes (its input must stay alive until the fused step reads it); some of these rescales also have
// a second user (a function output) and must stay their own step. Inputs: i8 x, y and i16 z; one i8 constant.
struct QuantGraphShape {
  int sharedRescales = 0;  // first-operand rescales with a second user
  int binaryOps = 0;
};

std::unique_ptr<ir::Module> randomQuantGraph(uint32_t seed, QuantGraphShape* shape = nullptr) {
  std::mt19937 rng(seed);
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  const int64_t C = 8;
  const Shape full{1, 6, 7, C};
  auto randomRescale = [&](int shiftLo, int shiftHi, bool perChannel, int64_t zp) {
    ir::RescaleAttrs r;
    r.perChannel = perChannel;
    r.roundingMode = rng() % 2 ? "DOUBLE_ROUND" : "SINGLE_ROUND";
    for (int64_t c = 0; c < (perChannel ? C : 1); ++c) {
      r.multiplier.push_back(int64_t(1u << 30) + int64_t(rng() % (1u << 30)));
      r.shift.push_back(shiftLo + int64_t(rng() % uint32_t(shiftHi - shiftLo + 1)));
    }
    r.inputZp = zp;
    return r;
  };
  std::vector<ir::Value*> pool{b.input(ValueType::tensor(DType::I8, full), "x"),
                               b.input(ValueType::tensor(DType::I8, full), "y"),
                               b.constant(randomInts(DType::I8, full, rng, -128, 127))};
  ir::Value* z = b.input(ValueType::tensor(DType::I16, full), "z");
  struct Pending {
    ir::Value* a32;
    bool mulReady;  // zero point 0 and a mul-sized scale
  };
  std::vector<Pending> pending;  // first-operand rescales made early, not used yet
  std::vector<ir::Value*> outputs;
  QuantGraphShape info;
  auto firstRescale = [&](bool forMul) {
    const bool fromZ = rng() % 4 == 0;
    ir::Value* src = fromZ ? z : pool[rng() % pool.size()];
    const int64_t zp = fromZ || forMul ? 0 : int64_t(rng() % 40) - 20;
    ir::Value* a32 =
        b.rescale(src, DType::I32,
                  forMul ? randomRescale(30, 31, rng() % 3 == 0, zp) : randomRescale(16, 22, rng() % 3 == 0, zp));
    if (rng() % 5 == 0) {  // a second user: the value itself is a function output
      outputs.push_back(a32);
      ++info.sharedRescales;
    }
    return Pending{a32, forMul};
  };
  for (int step = 0; step < 14; ++step) {
    const int kind = int(rng() % 5);
    if (kind == 0) {
      pending.push_back(firstRescale(rng() % 2 == 0));
    } else if (kind <= 2 || step == 13) {
      const std::string op = kind == 1 ? "add" : rng() % 2 ? "mul" : "sub";
      const bool isMul = op == "mul";
      Pending a{};
      for (size_t i = 0; i < pending.size(); ++i)
        if (pending[i].mulReady == isMul) {
          a = pending[i];
          pending.erase(pending.begin() + long(i));
          break;
        }
      if (!a.a32) a = firstRescale(isMul);
      ir::Value* x = pool[rng() % pool.size()];
      if (rng() % 3 == 0)
        x = b.op1("tosa.table", {x, b.constant(randomInts(DType::I8, {256}, rng, -128, 127))}, x->type);
      ir::Value* b32 = b.rescale(
          x, DType::I32,
          isMul ? randomRescale(30, 31, false, 0) : randomRescale(16, 22, rng() % 3 == 0, int64_t(rng() % 40) - 20));
      const bool aFirst = rng() % 2;
      ir::Value *lhs = aFirst ? a.a32 : b32, *rhs = aFirst ? b32 : a.a32;
      ir::Value* r = isMul ? b.mul(lhs, rhs, 0) : op == "add" ? b.add(lhs, rhs) : b.sub(lhs, rhs);
      ir::RescaleAttrs out = randomRescale(isMul ? 42 : 30, isMul ? 46 : 34, false, 0);
      out.outputZp = int64_t(rng() % 20) - 10;
      ir::Value* y = b.rescale(r, DType::I8, out);
      if (rng() % 2) y = b.clamp(y, -100, 110);
      pool.push_back(y);
      ++info.binaryOps;
    } else if (kind == 3) {
      pool.push_back(b.op1("tosa.table",
                           {pool[rng() % pool.size()], b.constant(randomInts(DType::I8, {256}, rng, -128, 127))},
                           pool[0]->type));
    } else {
      pool.push_back(b.clamp(pool[rng() % pool.size()], -60, 70));
    }
  }
  for (const Pending& p : pending) {  // the rest: each into an add with the last value
    ir::Value* b32 = b.rescale(pool.back(), DType::I32, randomRescale(16, 22, false, 0));
    ir::Value* y = b.rescale(b.add(p.a32, b32), DType::I8, randomRescale(30, 34, false, 0));
    pool.push_back(y);
    ++info.binaryOps;
  }
  outputs.insert(outputs.begin(), pool.back());
  std::vector<std::string> names;
  for (size_t i = 0; i < outputs.size(); ++i) names.push_back("out" + std::to_string(i));
  b.output(outputs, names);
  if (shape) *shape = info;
  return m;
}

TEST(FastPlan, RandomQuantGraphsWithHeldBackRescalesAreBitIdentical) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    ModuleFactory make = [seed] { return randomQuantGraph(seed); };
    QuantGraphShape shape;
    randomQuantGraph(seed, &shape);
    std::mt19937 rng(seed + 1000);
    NamedTensors in{{"x", randomInts(DType::I8, {1, 6, 7, 8}, rng, -128, 127)},
                    {"y", randomInts(DType::I8, {1, 6, 7, 8}, rng, -128, 127)},
                    {"z", randomInts(DType::I16, {1, 6, 7, 8}, rng, -3000, 3000)}};
    RunResult ref = runOn(make, "ref", in);
    PlanStats stats;
    RunResult fast = runOn(make, "fast", in, false, &stats);
    expectIdentical(ref.outputs, fast.outputs);
    // Every quantized op is one fused step that also computes its first operand's rescale, unless that
    // rescale has a second user: then it is its own step (and the fused step reads its stored result). (A
    // table right after it is looked up in place by the same step: "fast:quant_binary+table_i8".)
    int fused = 0, loneRescales = 0;
    for (const OpProfile& p : stats.steps) {
      fused += p.impl.rfind("fast:quant_binary", 0) == 0;
      loneRescales += p.opType == "tosa.rescale";
    }
    EXPECT_EQ(fused, shape.binaryOps) << "seed " << seed;
    EXPECT_EQ(loneRescales, shape.sharedRescales) << "seed " << seed;
    // Observed intermediates (the unfused plan, which holds nothing back) still match op by op.
    if (seed <= 5)
      expectIdentical(runOn(make, "ref", in, true).intermediates, runOn(make, "fast", in, true).intermediates);
  }
}

// The import's QuantizeLinear of a float NCHW input by a constant scale (docs/ONNX.md, "The float input's
// QuantizeLinear"), written op by op: clamp, a rounding by a magic constant, a three-part residual (the clamped
// value is read twice, the rounded one four times), cast to i32, a rescale adding the zero point, and the
// NCHW -> NHWC transpose after it (transposeFirst: on the float input instead).
std::unique_ptr<ir::Module> quantizeInputRegion(bool transposeFirst, Shape nchw) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, nchw), "x");
  const Shape nhwc{nchw[0], nchw[2], nchw[3], nchw[1]};
  auto scalar = [&](double v) {
    Tensor t(DType::FP32, {1, 1, 1, 1});
    t.setFloat(0, v);
    return b.constant(t);
  };
  ir::Value* v = transposeFirst ? b.transpose(x, {0, 2, 3, 1}, "to_nhwc") : x;
  auto* xc = b.clamp(v, -2.3828125, 2.3671875, "clamp");
  auto* c = scalar(1.0 / 0.018671875);
  auto* magic = scalar(98304.0);
  auto* q0 = b.sub(b.add(b.mul(xc, c, 0, "mul"), magic, "add"), magic, "sub");
  ir::Value* r = xc;
  for (double part : {0.0185546875, 0.000117188, 1.3e-9})
    r = b.sub(r, b.mul(q0, scalar(part), 0, "mul_part"), "sub_part");
  auto* a = b.add(q0, b.mul(r, c, 0, "mul_residual"), "add_residual");
  auto* i32 = b.op1("tosa.cast", {a}, ValueType::tensor(DType::I32, a->type.dims), {}, "cast");
  ir::RescaleAttrs plusZp;
  plusZp.multiplier = {1 << 30};
  plusZp.shift = {30};
  plusZp.outputZp = -7;
  auto* q = b.rescale(i32, DType::I8, plusZp, "plus_zp");
  auto* y = transposeFirst ? q : b.transpose(q, {0, 2, 3, 1}, "to_nhwc");
  EXPECT_EQ(y->type.dims, nhwc);
  b.output({y}, {"y"});
  return m;
}

// The region is one step (plan_compile.cpp, collectRegion; kernels/int8/quantize_input.cpp) and its integers are
// the reference's: rounding ties of the scale, values beyond the clamp, +-inf, zeros of both signs, a last tile
// of a plane shorter than the kernel's tile.
TEST(FastPlan, QuantizeInputRegionIsOneStepBitIdenticalToReference) {
  for (bool transposeFirst : {false, true})
    for (Shape nchw : {Shape{1, 3, 17, 19}, Shape{2, 3, 16, 16}, Shape{1, 1, 1, 5}}) {
      ModuleFactory make = [=] { return quantizeInputRegion(transposeFirst, nchw); };
      std::mt19937 rng(7);
      Tensor x = randomFloats(DType::FP32, nchw, rng);
      for (int64_t i = 0; i < x.size(); ++i) {
        const int64_t k = int64_t(rng() % 256) - 128;
        switch (i % 7) {
          case 0: x.setFloat(i, float((double(k) + 0.5) * 0.018671875)); break;  // a rounding tie
          case 1: x.setFloat(i, x.getFloat(i) * 5); break;                       // beyond the clamp
          case 2: x.setFloat(i, i % 2 ? -0.0 : 0.0); break;
          case 3: x.setFloat(i, i % 3 ? INFINITY : -INFINITY); break;
          default: x.setFloat(i, x.getFloat(i) * 2.4); break;
        }
      }
      NamedTensors in{{"x", x}};
      RunResult ref = runOn(make, "ref", in);
      PlanStats stats;
      RunResult fast = runOn(make, "fast", in, false, &stats);
      expectIdentical(ref.outputs, fast.outputs);
      ASSERT_EQ(stats.steps.size(), 1u) << "transposeFirst " << transposeFirst;
      EXPECT_EQ(stats.steps[0].impl, "fast:quantize_region_nhwc");
      EXPECT_FALSE(stats.steps[0].fallback);
      // Unfused (every intermediate observed), the same ops match op by op.
      if (nchw[3] == 19)
        expectIdentical(runOn(make, "ref", in, true).intermediates, runOn(make, "fast", in, true).intermediates);
    }
}

// A NaN reaching the region's cast (CAST of NaN is a REQUIRE) reruns the step on the reference kernels, which
// give the verdict: the fast backend fails (or not) exactly as the reference does.
TEST(FastPlan, QuantizeInputRegionLeavesNaNToTheReference) {
  ModuleFactory make = [] { return quantizeInputRegion(false, {1, 3, 4, 4}); };
  std::mt19937 rng(8);
  Tensor x = randomFloats(DType::FP32, {1, 3, 4, 4}, rng);
  x.setFloat(5, NAN);
  Status status[2];
  RunResult result[2];
  for (int i = 0; i < 2; ++i) {
    SessionOptions so;
    so.backend = i == 0 ? "ref" : "fast";
    auto s = Session::create(make(), so);
    ASSERT_TRUE(s.isOk());
    status[i] = (*s)->run({{"x", x}}, result[i], RunOptions{});
  }
  EXPECT_FALSE(status[0].isOk());
  EXPECT_EQ(status[0].code(), status[1].code()) << status[0].toString() << " / " << status[1].toString();
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

// tosa.reverse and tosa.log have no fast kernel of their own (today): they run their reference kernel inside
// the plan and are listed as fallbacks.
std::unique_ptr<ir::Module> withFallbackOps() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, {2, 3, 4}), "x");
  auto* r = b.op1("tosa.reverse", {x}, x->type, {{"axis", ir::Attribute::integer(1, DType::I32)}}, "rev");
  auto* e = b.op1("tosa.log", {r}, x->type, {}, "log");
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
  EXPECT_EQ(s.status().parameter(), "backend");  // each door names it: --backend, backend=
  EXPECT_NE(s.status().message().find("backend ref"), std::string::npos);
}

}  // namespace
}  // namespace tosakit::testing
