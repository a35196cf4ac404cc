// The exact integer parts of the int8 convolutions on oneDNN (onednn/conv_exact_int8.h).
#include "fast/onednn/conv_exact_int8.h"

#include <algorithm>
#include <cstdlib>

#include "fast/isa_dispatch.h"

namespace tosakit::fast {
namespace {

// Whether any |acc[i]| >= threshold[i]. (An int64 flag: a bool reduction blocks the vectorizer.)
TK_VECTOR_BODY bool anyAtLeastBody(const int32_t* acc, const int64_t* threshold, int64_t n) {
  int64_t any = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = acc[i];
    any |= int64_t((v < 0 ? -v : v) >= threshold[i]);
  }
  return any != 0;
}
bool anyAtLeast(const int32_t* acc, const int64_t* threshold, int64_t n) {
  TK_ISA_DISPATCH(anyAtLeastBody(acc, threshold, n));
}

}  // namespace

void addInputZeroPointCompensation(const ConvGeom& g, const Tensor& w, dnn::IntEpilogue& epi) {
  const bool transpose = g.kind == ConvKind::Transpose;
  auto classes = [transpose](int64_t outSize, int64_t inSize, int64_t k, int64_t stride, int64_t dilation, int64_t pad,
                             std::vector<std::vector<int64_t>>& tapSets, std::vector<int64_t>& classOf) {
    for (int64_t o = 0; o < outSize; ++o) {
      std::vector<int64_t> taps;
      for (int64_t kk = 0; kk < k; ++kk) {
        // conv: i = o * stride - pad + kk * dilation; transpose (oneDNN's form): o = i * stride + kk - pad.
        const int64_t num = o + pad - kk;
        const bool hit = transpose ? num >= 0 && num % stride == 0 && num / stride < inSize
                                   : o * stride - pad + kk * dilation >= 0 && o * stride - pad + kk * dilation < inSize;
        if (hit) taps.push_back(kk);
      }
      auto it = std::find(tapSets.begin(), tapSets.end(), taps);
      classOf.push_back(it - tapSets.begin());
      if (it == tapSets.end()) tapSets.push_back(std::move(taps));
    }
  };
  std::vector<std::vector<int64_t>> rowSets, colSets;
  std::vector<int64_t> rowOf, colOf;
  classes(g.OH, g.IH, g.KH, g.strides[0], g.dilates[0] + 1, g.padL[0], rowSets, rowOf);
  classes(g.OW, g.IW, g.KW, g.strides[1], g.dilates[1] + 1, g.padL[1], colSets, colOf);
  const std::vector<int32_t> bias = epi.biasTable;  // one class or empty
  const WeightValues wv(w);
  const int64_t OC = g.OC, nCols = int64_t(colSets.size());
  epi.biasTable.assign(size_t(int64_t(rowSets.size()) * nCols * OC), 0);
  for (size_t rc = 0; rc < rowSets.size(); ++rc)
    for (size_t cc = 0; cc < colSets.size(); ++cc)
      for (int64_t oc = 0; oc < OC; ++oc) {
        int64_t sum = 0;
        for (int64_t ky : rowSets[rc])
          for (int64_t kx : colSets[cc]) {
            if (g.kind == ConvKind::Depthwise) {  // [KH, KW, C, M], oc = c * M + m
              sum += wv[size_t((ky * g.KW + kx) * OC + oc)];
            } else {  // conv2d and transpose_conv2d: [OC, KH, KW, IC]
              const size_t base = size_t(((oc * g.KH + ky) * g.KW + kx) * g.IC);
              for (int64_t ic = 0; ic < g.IC; ++ic) sum += wv[base + size_t(ic)];
            }
          }
        const uint32_t v = uint32_t(bias.empty() ? 0 : bias[size_t(oc)]) - uint32_t(g.inputZp) * uint32_t(sum);
        epi.biasTable[size_t((int64_t(rc) * nCols + int64_t(cc)) * OC + oc)] = int32_t(v);
      }
  epi.rowClass.resize(size_t(g.OH * g.OW));
  for (int64_t oy = 0; oy < g.OH; ++oy)
    for (int64_t ox = 0; ox < g.OW; ++ox)
      epi.rowClass[size_t(oy * g.OW + ox)] = (rowOf[size_t(oy)] * nCols + colOf[size_t(ox)]) * OC;
}

void LargeAccumulators::plan(const ConvGeom& g, const Tensor& w) {
  g_ = g;
  const WeightValues wv(w);
  const int64_t perOc = int64_t(wv.size()) / g.OC;
  threshold_.assign(size_t(g.OC), 0);
  mayBeLarge_ = false;
  for (int64_t oc = 0; oc < g.OC; ++oc) {
    int64_t sum = 0, absSum = 0;
    for (int64_t i = 0; i < perOc; ++i) {
      const int64_t v = g.kind == ConvKind::Depthwise ? wv[size_t(i * g.OC + oc)] : wv[size_t(oc * perOc + i)];
      sum += v, absSum += v < 0 ? -v : v;
    }
    threshold_[size_t(oc)] = std::max<int64_t>(0, (int64_t(1) << 23) - 128 * std::abs(sum));
    // |acc| <= 128 * sum |w| for any int8 input: when that stays below the threshold, no result can need a
    // recompute and the run skips the scan (most layers: 3x3 depthwise, 1x1 convolutions of real weights).
    mayBeLarge_ |= 128 * absSum >= threshold_[size_t(oc)];
  }
  // The same thresholds repeated over a block of rows: the common case (nothing to recompute) is one
  // vector loop per block.
  const int64_t k = std::max<int64_t>(1, 512 / g.OC);
  thresholdLanes_.resize(size_t(k * g.OC));
  for (size_t i = 0; i < thresholdLanes_.size(); ++i) thresholdLanes_[i] = threshold_[i % size_t(g.OC)];
}

void LargeAccumulators::recompute(const int8_t* x, const int8_t* w, int32_t* acc, int64_t firstRow,
                                  int64_t rows) const {
  const int64_t C = g_.OC, perImage = g_.OH * g_.OW;
  const int64_t k = int64_t(thresholdLanes_.size()) / C, blocks = (rows + k - 1) / k;
#pragma omp parallel for schedule(static) if (rows * C > (1 << 15))
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t r0 = b * k, r1 = std::min(rows, r0 + k);
    if (!anyAtLeast(acc + r0 * C, thresholdLanes_.data(), (r1 - r0) * C)) continue;
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t oc = 0; oc < C; ++oc) {
        const int64_t v = acc[r * C + oc];
        if ((v < 0 ? -v : v) < threshold_[size_t(oc)]) continue;
        const int64_t p = firstRow + r;
        acc[r * C + oc] = exactAccumulator(x, w, p / perImage, (p % perImage) / g_.OW, p % g_.OW, oc);
      }
  }
}

// The raw sum of input * weight over the taps that meet real input (no zero point: the compensation table
// handles it), in wrapping int32 arithmetic as oneDNN's accumulator.
int32_t LargeAccumulators::exactAccumulator(const int8_t* x, const int8_t* w, int64_t n, int64_t oy, int64_t ox,
                                            int64_t oc) const {
  const ConvGeom& g = g_;
  uint32_t acc = 0;
  for (int64_t ky = 0; ky < g.KH; ++ky)
    for (int64_t kx = 0; kx < g.KW; ++kx) {
      int64_t iy, ix;
      if (g.kind == ConvKind::Transpose) {
        const int64_t y = oy + g.padL[0] - ky, xx = ox + g.padL[1] - kx;
        if (y < 0 || xx < 0 || y % g.strides[0] || xx % g.strides[1]) continue;
        iy = y / g.strides[0], ix = xx / g.strides[1];
      } else {
        iy = oy * g.strides[0] - g.padL[0] + ky * (g.dilates[0] + 1);
        ix = ox * g.strides[1] - g.padL[1] + kx * (g.dilates[1] + 1);
      }
      if (iy < 0 || iy >= g.IH || ix < 0 || ix >= g.IW) continue;
      const int8_t* px = x + ((n * g.IH + iy) * g.IW + ix) * g.IC;
      if (g.kind == ConvKind::Depthwise) {
        const int64_t M = g.OC / g.G;
        acc += uint32_t(int32_t(px[oc / M]) * int32_t(w[(ky * g.KW + kx) * g.OC + oc]));
      } else {
        const int8_t* pw = w + ((oc * g.KH + ky) * g.KW + kx) * g.IC;
        for (int64_t ic = 0; ic < g.IC; ++ic) acc += uint32_t(int32_t(px[ic]) * int32_t(pw[ic]));
      }
    }
  return int32_t(acc);
}

}  // namespace tosakit::fast
