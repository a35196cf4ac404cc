// Shared by the int8 depthwise_conv2d kernels (kernels/int8/depthwise.cpp on AVX-512, depthwise_avx2.cpp on
// AVX2; the exactness argument is at the top of depthwise.cpp): the layer's geometry and operands, the weights
// as the exact fp32 tap sums use them, and each thread's ring of fp32 input rows.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "fast/kernels/common.h"
#include "fast/op_kernel.h"

namespace tosakit::fast::dwint8 {

// Below 200K multiply-accumulates an OpenMP region costs more than it saves (docs/FAST.md, Threads; the plan's
// small-step bound). A depthwise layer does few operations per byte: mobilenet_v2's 28x28x192 layer (1.35M)
// takes ~50 us on one thread, which two halve.
constexpr double kParallelFlops = 4e5;
// Whether a layer of these flops splits over the threads (more than one available).
bool runsParallel(double flops);
constexpr int64_t kChunk = 64;                     // channels per sweep of a row (4 vectors)
constexpr int64_t kExactLimit = int64_t(1) << 24;  // fp32 represents every integer of smaller magnitude

struct Geometry {
  int64_t N = 0, IH = 0, IW = 0, C = 0, KH = 0, KW = 0, OH = 0, OW = 0;
  int64_t strideY = 1, strideX = 1, dilationY = 1, dilationX = 1, padTop = 0, padLeft = 0;
  int64_t Cp = 0;    // channels rounded up to 16 (the fp32 rows and weights)
  int64_t IWp = 0;   // padded row width in pixels: padLeft + IW + padRight
  int64_t ring = 0;  // rows of the ring: the rows one output row reads, (KH - 1) * dilationY + 1
  int64_t rowFloats() const { return IWp * Cp; }
  double flops() const { return 2.0 * double(N * OH * OW * C) * double(KH * KW); }
};

// The geometry of a depthwise_conv2d this kernel takes, from the op's static types and attributes.
std::optional<Geometry> parseGeometry(const OpChain& c);

// The operands both kernels take: i8 input and weights, an i32 accumulator and result, constant weights, a
// constant i32 bias (per channel or one), constant zero points in the int8 range, a geometry parseGeometry takes.
struct Operands {
  Geometry g;
  const Tensor* weights = nullptr;
  const Tensor* bias = nullptr;
  int64_t inputZp = 0, weightZp = 0;
};
std::optional<Operands> parseOperands(const OpChain& c);

// The calling thread's ring of fp32 rows (reused by every layer).
// 64-byte aligned: every vector of a row (Cp floats per pixel) then sits in one cache line. With malloc's
// 16-byte alignment a run got 0, 16, 32 or 48 bytes of offset by chance, and an offset split every load in two
// lines: mobilenet_v2's stride-1 layers took ~0.45 or ~0.59 ms at one thread depending on the process.
float* ringScratch(int64_t floats);

// The weights as the fp32 sums use them and the bounds that prove the sums exact (see the top), per channel
// with the real weights: the largest |sum| of (x - input_zp) * (w - weight_zp) (any input), the accumulators'
// start without the bias, -input_zp * sum(w - weight_zp) (the padding holds input_zp), and the bound on what
// the x * (w - weight_zp) terms add to it (|x| <= 128). Nothing when some partial sum could leave fp32's exact
// integers.
struct TapWeights {
  Aligned64<float> weights;                              // [KH * KW][Cp] w - weight_zp, zeros in the channel padding
  std::vector<int64_t> accBound, zpStart, partialBound;  // per channel
  std::vector<int64_t> rowSums;                          // [KH][Cp] sum over kx of (w - weight_zp)
};
std::optional<TapWeights> tapWeights(const Geometry& g, const Tensor& w, int64_t inputZp, int64_t weightZp);

}  // namespace tosakit::fast::dwint8
