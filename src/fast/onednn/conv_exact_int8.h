// The exact integer parts of the int8 convolutions on oneDNN (onednn/conv.cpp): the input zero point's
// compensation table and the recompute of accumulators oneDNN may have rounded.
#pragma once
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "fast/kernels/conv_geometry.h"
#include "fast/kernels/int8/int8.h"

namespace tosakit::fast {

// TOSA subtracts input_zp from every input value and lets padding contribute 0. oneDNN runs without a zero
// point (its zero-point and compensation paths go through f32 — inexact once |acc| > 2^24); instead
// acc - input_zp * (sum of the weights that meet real input at that position) is added here, exactly in
// wrapping int32 arithmetic. The kernel taps of an output row that meet real input form a set that only
// differs near the borders (conv2d/depthwise: a range; transpose_conv2d: the taps of the row's phase
// oy % stride), so the sums form a small table of (row tap set, column tap set) classes.
// Adds the table to epi's bias table (one class or empty before; one vector per class after) and sets rowClass.
void addInputZeroPointCompensation(const ConvGeom& g, const Tensor& w, dnn::IntEpilogue& epi);

// oneDNN's int8 kernels pass the s32 accumulator through f32 on the way to an s32 destination (measured:
// brgconv, jit_int8 and jit_deconvolution all lose bits once |acc| > 2^24), while applying the s8s8
// compensation 128 * sum(w) in integers. A result r with |r| + 128 * |sum(w)| < 2^23 cannot have come from
// a rounded value (the rounding error of anything beyond 2^24 exceeds the margin), so it is exact; the rare
// others are recomputed exactly here. The threshold is per output channel.
class LargeAccumulators {
 public:
  // The per-channel thresholds from the weights as TOSA stores them.
  void plan(const ConvGeom& g, const Tensor& w);
  // No accumulator can need a recompute (an exact int32 accumulator of our own).
  void disable() { mayBeLarge_ = false; }
  bool mayBeLarge() const { return mayBeLarge_; }
  // acc holds `rows` output positions from position firstRow on (the whole layer, or one band).
  void recompute(const int8_t* x, const int8_t* w, int32_t* acc, int64_t firstRow, int64_t rows) const;

 private:
  int32_t exactAccumulator(const int8_t* x, const int8_t* w, int64_t n, int64_t oy, int64_t ox, int64_t oc) const;

  ConvGeom g_;
  std::vector<int64_t> threshold_;       // per output channel
  std::vector<int64_t> thresholdLanes_;  // threshold_ repeated over a block of rows
  bool mayBeLarge_ = true;               // some accumulator could reach its threshold (else no scan)
};

}  // namespace tosakit::fast
