// The fast backend's fp32 inner loops called directly, caches warm, at the process's ISA level
// (TOSAKIT_ISA=avx2 forces AVX2), one thread: what the arithmetic itself reaches, without a Session around it
// (fast_f32_kernels_bench times the same kernels as plan steps, where the Session's input copy and output
// allocation leave the data cache-cold):
//   - vmath exp, sigmoid, SiLU, tanh, erf over 2048 floats (8 KB in, 8 KB out: L1): G elements/s (goal for
//     SiLU/sigmoid at avx2: >= 5 per core); the peer is a plain multiply pass x * x over the same arrays;
//   - depthwiseF32 on efficientnet_b0's and mobilenet_v3_small's depthwise layers: GFLOP/s (2 per tap), the
//     input, weights and output warm from the previous iteration (goal at avx2: >= 30 GFLOP/s per core).
// Run: TOSAKIT_ISA=avx2 OMP_NUM_THREADS=1 build/bench/fast_f32_inner_bench --benchmark_repetitions=5
//      --benchmark_report_aggregates_only   (on a shared machine read the max of the repetitions)
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "depthwise_layers.h"
#include "fast/kernels/f32/depthwise.h"
#include "fast/kernels/f32/vmath.h"

namespace {

using namespace tosakit::fast;

std::vector<float> randomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::vector<float> v(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  for (float& f : v) f = d(rng);
  return v;
}

// Squares in place of a transcendental: the same loads and stores, one multiply (vectorized for the build's
// target, SSE on x86-64: a yardstick of the loads and stores, not of the level).
__attribute__((optimize("O3"))) void squarePeer(const float* __restrict x, float* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * x[i];
}

void BM_Vmath(benchmark::State& state, void (*fn)(const float*, float*, int64_t)) {
  const std::vector<float> x = randomFloats(2048, 1, -6, 6);
  std::vector<float> y(x.size());
  for (auto _ : state) {
    fn(x.data(), y.data(), int64_t(x.size()));
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(x.size()));
}
BENCHMARK_CAPTURE(BM_Vmath, exp, vmath::exp);
BENCHMARK_CAPTURE(BM_Vmath, sigmoid, vmath::sigmoid);
BENCHMARK_CAPTURE(BM_Vmath, silu, vmath::silu);
BENCHMARK_CAPTURE(BM_Vmath, tanh, vmath::tanh);
BENCHMARK_CAPTURE(BM_Vmath, erf, vmath::erf);
BENCHMARK_CAPTURE(BM_Vmath, square_peer, squarePeer);

// {H, C, K, stride}, "same" padding, one image, no epilogue.
void BM_DepthwiseInner(benchmark::State& state) {
  DepthwiseF32Geometry g;
  const int64_t h = state.range(0), k = state.range(2), s = state.range(3);
  g.N = 1, g.IH = g.IW = h, g.C = state.range(1), g.KH = g.KW = k, g.strideY = g.strideX = s;
  g.padTop = g.padLeft = k / 2;
  g.OH = g.OW = (h + 2 * (k / 2) - k) / s + 1;
  const std::vector<float> x = randomFloats(size_t(h * h * g.C), 5, -6, 6);
  const std::vector<float> w = randomFloats(size_t(k * k * g.C), 3, -1, 1), b = randomFloats(size_t(g.C), 4, -6, 6);
  std::vector<float> y(size_t(g.OH * g.OW * g.C));
  const std::vector<FloatEpilogueOp> none;
  const std::vector<const float*> noOperands;
  for (auto _ : state) {
    depthwiseF32(g, x.data(), w.data(), b.data(), y.data(), none, noOperands);
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * double(g.OH * g.OW * g.C * k * k);
  state.counters["flops"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_DepthwiseInner)->Apply(depthwiseLayers);

}  // namespace

BENCHMARK_MAIN();
