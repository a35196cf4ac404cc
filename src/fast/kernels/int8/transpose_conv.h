// Our own int8 TRANSPOSE_CONV2D accumulator for kernel == stride and no out_pad (PP-OCR det's upsampling
// layers, quantized): every output pixel receives exactly one kernel tap, so an input pixel's KH*KW*OC raw
// accumulators are one small integer matrix-vector product. oneDNN 2.6's int8 deconvolution ran these shapes
// at 4-16 GOP/s. Only the accumulator: the input zero point, bias, RESCALE and CLAMP are the conv kernel's
// integer epilogue (onednn/conv.cpp). Private to src/fast: no oneDNN in here.
#pragma once
#include <cstdint>
#include <vector>

namespace tosakit::fast {

struct TransposeConvInt8Geometry {
  int64_t N = 0, IH = 0, IW = 0, IC = 0, OC = 0, KH = 0, KW = 0;  // OH = IH * KH, OW = IW * KW
};

// TOSA's weights [OC, KH, KW, IC] as the kernel reads them, widened to int32: [IC][J'] (j = (ky * KW + kx) *
// OC + oc, J' = J rounded up to 32 with zeros) when J = KH*KW*OC >= 16, else [J][IC].
std::vector<int32_t> packTransposeConvInt8Weights(const TransposeConvInt8Geometry& g, const int8_t* w);

// acc[n, iy*KH + ky, ix*KW + kx, oc] = init[j] + sum over ic of x[n, iy, ix, ic] * w[oc, ky, kx, ic] with
// j = (ky * KW + kx) * OC + oc, in wrapping int32 arithmetic. init (as transposeConvInt8ZeroPointTerms returns
// it) carries what is the same for every pixel of a tap: each output pixel meets exactly one tap, so the input
// zero point's term -input_zp * sum over ic of w[oc, ky, kx, ic] is one value per j.
// Only input rows [rowBegin, rowEnd) of the N*IH (their KH output rows each, written from `acc` on): the
// caller runs its epilogue over a band while it is in cache.
void transposeConvInt8Accumulate(const TransposeConvInt8Geometry& g, const int8_t* x, const int32_t* packedW,
                                 const int32_t* init, int64_t rowBegin, int64_t rowEnd, int32_t* acc);

// -input_zp * sum over ic of w[oc, ky, kx, ic] (wrapping int32) at index j, zeros padding to the packed row
// length: the `init` of transposeConvInt8Accumulate.
std::vector<int32_t> transposeConvInt8ZeroPointTerms(const TransposeConvInt8Geometry& g, const int8_t* w,
                                                     int32_t inputZp);

}  // namespace tosakit::fast
