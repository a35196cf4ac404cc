// Shared by the int8 depthwise_conv2d kernels (kernels/int8/depthwise.cpp: the AVX-512 form and the generic one;
// depthwise_avx2.cpp: the AVX2 form; the exactness argument is at the top of depthwise.cpp): the layer's geometry
// and operands, the weights as the exact fp32 tap sums use them, the fp64 rescale, the skipping of padding rows
// and each thread's ring of fp32 input rows.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "fast/kernels/common.h"
#include "fast/kernels/int8/int8.h"
#include "fast/op_kernel.h"

namespace tosakit::fast::dwint8 {

// Below 200K multiply-accumulates an OpenMP region costs more than it saves (docs/FAST.md, Threads; the plan's
// small-step bound). A depthwise layer does few operations per byte: mobilenet_v2's 28x28x192 layer (1.35M)
// takes ~50 us on one thread, which two halve.
constexpr double kParallelFlops = 4e5;
constexpr int64_t kChunk = 64;                       // channels per sweep of a row (4 vectors)
constexpr int64_t kExactLimit = int64_t(1) << 24;    // fp32 represents every integer of smaller magnitude
constexpr int64_t kExactLimit64 = int64_t(1) << 53;  // fp64 likewise

struct Geometry {
  int64_t N = 0, IH = 0, IW = 0, C = 0, KH = 0, KW = 0, OH = 0, OW = 0;
  int64_t strideY = 1, strideX = 1, dilationY = 1, dilationX = 1, padTop = 0, padLeft = 0;
  int64_t Cp = 0;    // channels rounded up to 16 (the fp32 rows and weights)
  int64_t IWp = 0;   // padded row width in pixels: padLeft + IW + padRight
  int64_t ring = 0;  // rows of the ring: the rows one output row reads, (KH - 1) * dilationY + 1
  int64_t rowFloats() const { return IWp * Cp; }
};

// The geometry of a depthwise_conv2d this kernel takes, from the op's static types and attributes.
std::optional<Geometry> parseGeometry(const OpChain& c);

// The operands of an int8 depthwise_conv2d (i8 x i8 -> i32, constant weights and bias, zero points in range) the
// kernels here take, with its geometry.
struct Int8Depthwise {
  Geometry g;
  const Tensor *w = nullptr, *bias = nullptr;
  int64_t inputZp = 0, weightZp = 0;
};
std::optional<Int8Depthwise> parseInt8Depthwise(const OpChain& c);

// The calling thread's ring of fp32 rows (reused by every layer).
// 64-byte aligned: every vector of a row (Cp floats per pixel) then sits in one cache line. With malloc's
// 16-byte alignment a run got 0, 16, 32 or 48 bytes of offset by chance, and an offset split every load in two
// lines: mobilenet_v2's stride-1 layers took ~0.45 or ~0.59 ms at one thread depending on the process.
float* ringScratch(int64_t floats);

// The rescale in fp64 (kScaled paths): with the bias in the fp32 accumulator (exact: |bias| + the sum's bound
// < 2^24), v = acc. v * m + round is an integer N with |N| < 2^53 (checked per channel at compile time), and
// scaling by 2^-shift is exact, so one fp64 FMA v * (m * 2^-shift) + round * 2^-shift gives N * 2^-shift
// exactly and a conversion rounding towards -inf gives N >> shift, apply_scale_32/16's result (|result| <= 2^30
// under the rescale's REQUIREs, which the compile-time bounds prove: no check is needed at run time).
struct ScaledRescale {
  // per channel (Cp): m * 2^-shift, (round + output_zp * 2^shift) * 2^-shift
  Aligned64<double> mult, roundPos, roundNeg;
};

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

// Whether the compile-time bounds prove the fp64 rescale exact for every channel (see ScaledRescale) and every
// REQUIRE of the bias add and the rescale satisfied (the accumulators starting at bias - input_zp * sum(w)); the
// parameters when they do.
std::optional<ScaledRescale> planScaled(const dnn::IntEpilogue& epi, const Geometry& g, const TapWeights& tw,
                                        const std::vector<int64_t>& bias);

// Kernel rows whose input rows lie wholly in the padding add input_zp * (w - weight_zp) over their taps:
// skipping them, an output row starts from start + input_zp * those rows' weight sums instead. The short
// feature maps of PP-LCNet (2-3 rows under a 5x5 kernel padded by 2) spent over half their taps there. Both are
// planned at compile time (planRowSkips): per output row its live kernel rows and, when
// some are skipped, which of the partial starts (one per distinct live range) it begins from.
struct RowPlan {
  int64_t ky0 = 0, ky1 = 0;  // the live kernel rows
  int start = -1;            // index of the row's partial start; -1: every kernel row is live (the full start)
};
struct RowSkip {
  const RowPlan* rows = nullptr;                    // per output row; null: no row is skipped
  const Aligned64<float>* partialStarts = nullptr;  // [Cp] each
};

// The row skipping of a layer (RowSkip), planned at compile time: per output row its live kernel rows, and the
// partial start of each distinct live range that leaves rows out: startInt + input_zp * the skipped rows' sums, an
// integer below 2^24 (the callers' bound), so exact as a float.
struct RowSkipPlan {
  std::vector<RowPlan> rows;                    // per output row
  std::vector<Aligned64<float>> partialStarts;  // [Cp] each (RowPlan::start)
  RowSkip view() const { return {rows.empty() ? nullptr : rows.data(), partialStarts.data()}; }
};
RowSkipPlan planRowSkips(const Geometry& g, const std::vector<int64_t>& startInt, const std::vector<int64_t>& rowSums,
                         int64_t inputZp);
// Counts an output row that skipped kernel rows (depthwiseInt8SkippedRowsForTesting).
void countSkippedRow();
int64_t skippedRowCount();

}  // namespace tosakit::fast::dwint8
