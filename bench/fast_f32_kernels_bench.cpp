// The fast backend's own fp32 kernels at the ISA level of the process (TOSAKIT_ISA=avx2 forces AVX2 on an
// AVX-512 machine), one thread, as TOSA graphs built with the builder API (NHWC, so no layout transposes):
//   - SiLU (x * sigmoid(x)), sigmoid and tanh over efficientnet_b0-sized activations: G elements/s
//     ("items_per_second"); the peer is a one-op tosa.abs over the same tensor (loads and stores only), so
//     items/s of SiLU over those of abs says how far the transcendental is from the memory traffic;
//   - depthwise_conv2d layers of efficientnet_b0 and mobilenet_v3_small: GFLOP/s ("flops", 2 per tap).
// Run: TOSAKIT_ISA=avx2 build/bench/fast_f32_kernels_bench --benchmark_min_time=0.2 --benchmark_repetitions=5
//      --benchmark_report_aggregates_only (medians and the max of the per-repetition rates).
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "depthwise_layers.h"
#include "ir/builder.h"
#include "tosakit/session.h"

namespace {

using namespace tosakit;
using ir::Attribute;
using ir::ValueType;

Tensor randomFloats(const Shape& s, uint32_t seed, double lo = -6, double hi = 6) {
  Tensor t(DType::FP32, s);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, d(rng));
  return t;
}

double kernelSeconds(const PlanStats& st);

// Runs `module` on input "x" once per iteration on the fast backend (one thread).
double runLoop(benchmark::State& state, std::unique_ptr<ir::Module> module, const Tensor& x) {
  SessionOptions so;
  so.backend = "fast";
  so.threads = 1;
  auto session = Session::create(std::move(module), so);
  if (!session.isOk()) {
    state.SkipWithError(session.status().toString().c_str());
    return 0;
  }
  (*session)->backend().setProfiling(true);  // the steps' own time (kernelTime)
  RunResult r;
  for (auto _ : state) {
    const Status s = (*session)->run({{"x", x}}, r);
    if (!s.isOk()) {
      state.SkipWithError(s.toString().c_str());
      return 0;
    }
    benchmark::DoNotOptimize(r.outputs);
  }
  const PlanStats st = (*session)->planStats();
  state.SetLabel(st.steps.empty() ? "" : st.steps[0].impl);
  return kernelSeconds(st);
}

// Seconds per run in the plan's steps (the kernels), without binding the input and allocating the output, which
// the loop above also times (on an L2-sized tensor they cost about as much as a plain load/store pass).
double kernelSeconds(const PlanStats& st) {
  double ms = 0;
  int64_t runs = 0;
  for (const OpProfile& p : st.steps) ms += p.totalMs, runs = std::max(runs, p.runs);
  return runs ? ms / 1e3 / double(runs) : 0;
}

// ---- elementwise: "silu", "sigmoid", "tanh", "abs" over [1, H, W, C] ----
void BM_Unary(benchmark::State& state, const std::string& what) {
  const Shape shape{1, state.range(0), state.range(0), state.range(1)};
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  const ValueType t = ValueType::tensor(DType::FP32, shape);
  ir::Value* x = b.input(t, "x");
  ir::Value* y = nullptr;
  if (what == "silu")
    y = b.mul(x, b.op1("tosa.sigmoid", {x}, t));
  else
    y = b.op1("tosa." + what, {x}, t);
  b.output({y}, {"y"});
  const Tensor in = randomFloats(shape, 7);
  const double kernel = runLoop(state, std::move(m), in);
  state.SetItemsProcessed(int64_t(state.iterations()) * in.size());
  if (kernel > 0) state.counters["kernel_G_el_s"] = double(in.size()) / kernel / 1e9;
}

// ---- depthwise_conv2d KxK, stride S, "same" padding, [1, H, W, C] ----
void BM_Depthwise(benchmark::State& state) {
  const int64_t h = state.range(0), c = state.range(1), k = state.range(2), s = state.range(3);
  const int64_t pad = k / 2, oh = (h + 2 * pad - k) / s + 1;
  const int64_t padEnd = (oh - 1) * s + k - h - pad;  // TOSA's exact output size
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ValueType::tensor(DType::FP32, {1, h, h, c}), "x");
  ir::Value* zp = b.constant(Tensor::fromDoubles(DType::FP32, {1}, {0.0}));
  std::map<std::string, Attribute> attrs{{"acc_type", Attribute::type(DType::FP32)},
                                         {"stride", Attribute::intArray({s, s})},
                                         {"pad", Attribute::intArray({pad, padEnd, pad, padEnd})},
                                         {"dilation", Attribute::intArray({1, 1})}};
  ir::Value* y = b.op1("tosa.depthwise_conv2d",
                       {x, b.constant(randomFloats({k, k, c, 1}, 3, -1, 1)), b.constant(randomFloats({c}, 4)), zp, zp},
                       ValueType::tensor(DType::FP32, {1, oh, oh, c}), attrs);
  b.output({y}, {"y"});
  const double kernel = runLoop(state, std::move(m), randomFloats({1, h, h, c}, 5));
  const double flops = 2.0 * double(oh * oh * c * k * k);
  state.counters["flops"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
  if (kernel > 0) state.counters["kernel_GFLOP_s"] = flops / kernel / 1e9;
}

// efficientnet_b0's largest SiLU (112x112x96) and a 56x56x144 one; the peer abs on the same tensors. 16x16x32
// (32 KB in, 32 KB out: cache-resident) shows the arithmetic's own rate, where the memory does not hide it.
BENCHMARK_CAPTURE(BM_Unary, silu, std::string("silu"))
    ->Args({112, 96})
    ->Args({56, 144})
    ->Args({28, 240})
    ->Args({16, 32});
BENCHMARK_CAPTURE(BM_Unary, sigmoid, std::string("sigmoid"))->Args({56, 144})->Args({16, 32});
BENCHMARK_CAPTURE(BM_Unary, tanh, std::string("tanh"))->Args({56, 144})->Args({16, 32});
BENCHMARK_CAPTURE(BM_Unary, erf, std::string("erf"))->Args({16, 32});
BENCHMARK_CAPTURE(BM_Unary, abs_peer, std::string("abs"))
    ->Args({112, 96})
    ->Args({56, 144})
    ->Args({28, 240})
    ->Args({16, 32});
BENCHMARK(BM_Depthwise)->Apply(depthwiseLayers);

}  // namespace

BENCHMARK_MAIN();
