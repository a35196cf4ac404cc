// int8 TRANSPOSE_CONV2D accumulators for kernel == stride (see kernels/int8/transpose_conv.h).
//
// Exactness: products of int8 values and their sums are formed modulo 2^32 (unsigned 32-bit lanes, read back
// as int32), the value oneDNN's exact path and the reference's int32 accumulator give
// for every input the spec allows (the reference REQUIREs no overflow; within that range wrapping changes
// nothing).
//
// Two loop orders, both on 16-lane int32 vectors (GCC's vector extension: one zmm with AVX-512, two ymm with
// AVX2, scalar code elsewhere — target_clones picks at run time):
//  - many outputs per pixel (J = KH*KW*OC >= 16): per pixel, J accumulators in blocks of 32 lanes, each
//    input channel broadcast and multiplied by one packed weight row [IC][J];
//  - few (J < 16, e.g. a 1-channel output): 16 pixels at a time, their channels transposed to [IC][16], one
//    vector of 16 pixel sums per j, weights broadcast.
#include "fast/kernels/int8/transpose_conv.h"
#include "fast/isa_dispatch.h"

#include <algorithm>

namespace tosakit::fast {
namespace {

typedef uint32_t v16si __attribute__((vector_size(64)));
// The same lanes at any int32 alignment and aliasing int32 storage (GCC's idiom for unaligned vector access).
typedef uint32_t v16si_unaligned __attribute__((vector_size(64), aligned(4), may_alias));
constexpr int64_t kLanes = 16;
constexpr int64_t kBlock = 2 * kLanes;  // accumulators per block of the wide loop order

int64_t outputsPerPixel(const TransposeConvInt8Geometry& g) { return g.KH * g.KW * g.OC; }
bool wide(const TransposeConvInt8Geometry& g) { return outputsPerPixel(g) >= kLanes; }
// Packed row length of the wide order: J rounded up to whole blocks (zero weights in the padding).
int64_t paddedJ(const TransposeConvInt8Geometry& g) { return (outputsPerPixel(g) + kBlock - 1) / kBlock * kBlock; }

#define LOAD16(p) (*reinterpret_cast<const v16si_unaligned*>(p))
#define STORE16(p, v) (*reinterpret_cast<v16si_unaligned*>(p) = (v))

// Tap (ky, kx) of input pixel ix lands on output pixel (ky, ix * KW + kx) of this input row's KH output rows.
int64_t outOffset(const TransposeConvInt8Geometry& g, int64_t ix, int64_t j) {
  const int64_t t = j / g.OC, oc = j % g.OC, ky = t / g.KW, kx = t % g.KW;
  return (ky * g.IW * g.KW + ix * g.KW + kx) * g.OC + oc;
}

TK_VECTOR_BODY void accumulateRowWideBody(const TransposeConvInt8Geometry& g, const int8_t* x, const int32_t* w,
                                          const int32_t* init, int32_t* out, int32_t* sums) {
  const int64_t J = outputsPerPixel(g), PJ = paddedJ(g), IC = g.IC, OC = g.OC, OW = g.IW * g.KW;
  for (int64_t ix = 0; ix < g.IW; ++ix) {
    const int8_t* px = x + ix * IC;
    for (int64_t j0 = 0; j0 < PJ; j0 += kBlock) {
      v16si a0 = LOAD16(init + j0), a1 = LOAD16(init + j0 + kLanes);
      for (int64_t ic = 0; ic < IC; ++ic) {
        const v16si xv = v16si{} + uint32_t(int32_t(px[ic]));
        a0 += xv * LOAD16(w + ic * PJ + j0);
        a1 += xv * LOAD16(w + ic * PJ + j0 + kLanes);
      }
      STORE16(sums + j0, a0);
      STORE16(sums + j0 + kLanes, a1);
    }
    for (int64_t ky = 0; ky < g.KH; ++ky)
      for (int64_t kx = 0; kx < g.KW; ++kx)
        std::copy_n(sums + (ky * g.KW + kx) * OC, OC, out + (ky * OW + ix * g.KW + kx) * OC);
  }
  (void)J;
}
void accumulateRowWide(const TransposeConvInt8Geometry& g, const int8_t* x, const int32_t* w, const int32_t* init,
                       int32_t* out, int32_t* sums) {
  TK_ISA_DISPATCH(accumulateRowWideBody(g, x, w, init, out, sums));
}

TK_VECTOR_BODY void accumulateRowNarrowBody(const TransposeConvInt8Geometry& g, const int8_t* x, const int32_t* w,
                                            const int32_t* init, int32_t* out, int32_t* xt) {
  const int64_t J = outputsPerPixel(g), IC = g.IC;
  for (int64_t ix0 = 0; ix0 < g.IW; ix0 += kLanes) {
    const int64_t n = std::min(kLanes, g.IW - ix0);
    for (int64_t ic = 0; ic < IC; ++ic)  // xt[ic][p] = x[ix0 + p][ic], zero beyond the row
      for (int64_t p = 0; p < kLanes; ++p) xt[ic * kLanes + p] = p < n ? int32_t(x[(ix0 + p) * IC + ic]) : 0;
    for (int64_t j = 0; j < J; ++j) {
      v16si a = v16si{} + uint32_t(init[j]);
      for (int64_t ic = 0; ic < IC; ++ic) a += LOAD16(xt + ic * kLanes) * uint32_t(w[j * IC + ic]);
      for (int64_t p = 0; p < n; ++p) out[outOffset(g, ix0 + p, j)] = int32_t(a[p]);
    }
  }
}
void accumulateRowNarrow(const TransposeConvInt8Geometry& g, const int8_t* x, const int32_t* w, const int32_t* init,
                         int32_t* out, int32_t* xt) {
  TK_ISA_DISPATCH(accumulateRowNarrowBody(g, x, w, init, out, xt));
}

#undef LOAD16
#undef STORE16

}  // namespace

std::vector<int32_t> packTransposeConvInt8Weights(const TransposeConvInt8Geometry& g, const int8_t* w) {
  const int64_t J = outputsPerPixel(g), PJ = paddedJ(g), IC = g.IC, T = g.KH * g.KW;
  std::vector<int32_t> packed(size_t(wide(g) ? PJ * IC : J * IC), 0);
  for (int64_t oc = 0; oc < g.OC; ++oc)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t ic = 0; ic < IC; ++ic) {
        const int64_t j = t * g.OC + oc;
        const int32_t v = w[(oc * T + t) * IC + ic];  // [OC, KH, KW, IC]
        packed[size_t(wide(g) ? ic * PJ + j : j * IC + ic)] = v;
      }
  return packed;
}

std::vector<int32_t> transposeConvInt8ZeroPointTerms(const TransposeConvInt8Geometry& g, const int8_t* w,
                                                     int32_t inputZp) {
  const int64_t T = g.KH * g.KW;
  std::vector<int32_t> terms(size_t(wide(g) ? paddedJ(g) : outputsPerPixel(g)), 0);
  for (int64_t oc = 0; oc < g.OC; ++oc)
    for (int64_t t = 0; t < T; ++t) {
      uint32_t sum = 0;
      for (int64_t ic = 0; ic < g.IC; ++ic) sum += uint32_t(int32_t(w[(oc * T + t) * g.IC + ic]));
      terms[size_t(t * g.OC + oc)] = int32_t(0u - uint32_t(inputZp) * sum);
    }
  return terms;
}

void transposeConvInt8Accumulate(const TransposeConvInt8Geometry& g, const int8_t* x, const int32_t* packedW,
                                 const int32_t* init, int64_t rowBegin, int64_t rowEnd, int32_t* acc) {
  const int64_t rows = rowEnd - rowBegin, OW = g.IW * g.KW;
  const int64_t rowWork = g.IW * outputsPerPixel(g) * g.IC;
  const bool isWide = wide(g);
#pragma omp parallel if (rows * rowWork > (1 << 18))
  {
    std::vector<int32_t> scratch(static_cast<size_t>(isWide ? paddedJ(g) : g.IC * kLanes));
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {  // input row n * IH + iy -> output rows n * OH + iy * KH + ky
      const int8_t* xr = x + (rowBegin + r) * g.IW * g.IC;
      int32_t* out = acc + r * g.KH * OW * g.OC;
      if (isWide)
        accumulateRowWide(g, xr, packedW, init, out, scratch.data());
      else
        accumulateRowNarrow(g, xr, packedW, init, out, scratch.data());
    }
  }
}

}  // namespace tosakit::fast
