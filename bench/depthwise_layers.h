// The depthwise layers both fp32 kernel benchmarks run, as {H, C, K, stride} ("same" padding, one image):
// efficientnet_b0 (3x3 112x112x32, 3x3/2 112x112x96, 3x3 56x56x144, 5x5 28x28x240, 5x5 14x14x672) and
// mobilenet_v3_small (3x3/2 56x56x72, 5x5 14x14x576).
#pragma once
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

inline void depthwiseLayers(benchmark::internal::Benchmark* b) {
  for (const auto& args : {std::vector<int64_t>{112, 32, 3, 1},
                           {112, 96, 3, 2},
                           {56, 144, 3, 1},
                           {28, 240, 5, 1},
                           {14, 672, 5, 1},
                           {56, 72, 3, 2},
                           {14, 576, 5, 1}})
    b->Args(args);
}
