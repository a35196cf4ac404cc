// Our own fp32 TRANSPOSE_CONV2D for kernel == stride and no out_pad (the upsampling layers of FPN-style
// detectors, PP-OCR det's head): every output pixel receives exactly one kernel tap, so an input pixel's
// KH*KW*OC outputs are one small matrix-vector product [IC] x [IC, KH*KW*OC], followed by the float epilogue
// of kernels/f32/depthwise.h (ADD/MUL/CLAMP in graph order). Private to src/fast: no oneDNN in here.
#pragma once
#include <cstdint>
#include <vector>

#include "fast/kernels/f32/depthwise.h"

namespace tosakit::fast {

struct TransposeConvF32Geometry {
  int64_t N = 0, IH = 0, IW = 0, IC = 0, OC = 0, KH = 0, KW = 0;  // OH = IH * KH, OW = IW * KW
};

// The largest KH*KW*OC the kernel takes (six AVX-512 vectors of accumulators per pixel); larger layers have
// enough work per tap for oneDNN's matmuls.
constexpr int64_t kTransposeConvMaxTaps = 96;

bool transposeConvF32Applies(const TransposeConvF32Geometry& g);

// TOSA's weights [OC, KH, KW, IC] as the kernel reads them: [IC][T] with t = (ky * KW + kx) * OC + oc, rows
// padded to a multiple of 16 floats with zeros (padding lanes are never stored).
std::vector<float> packTransposeConvF32Weights(const TransposeConvF32Geometry& g, const float* w);

// y[n, iy*KH + ky, ix*KW + kx, oc] = epilogue(bias[oc] + sum over ic of x[n, iy, ix, ic] * w[oc, ky, kx, ic]),
// the sum accumulated in fp32 from the bias in ic order (fused multiply-adds: within the dot-product bound;
// infinities and NaNs propagate as in the reference, every tap being a real input value). `operands[i]` is
// the run-time data of epilogue[i] (null for CLAMP); bias has OC values.
void transposeConvF32(const TransposeConvF32Geometry& g, const float* x, const float* packedW, const float* bias,
                      float* y, const std::vector<FloatEpilogueOp>& epilogue,
                      const std::vector<const float*>& operands);

}  // namespace tosakit::fast
