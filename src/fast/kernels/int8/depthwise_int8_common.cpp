// The parts the int8 depthwise_conv2d kernels share (kernels/int8/depthwise_int8.h).
#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "fast/kernels/chain_operands.h"
#include "fast/kernels/int8/depthwise_int8.h"

namespace tosakit::fast::dwint8 {

bool runsParallel(double flops) { return flops >= kParallelFlops && omp_get_max_threads() > 1; }

// The geometry of a depthwise_conv2d this kernel takes, from the op's static types and attributes.
std::optional<Geometry> parseGeometry(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  const ir::ValueType &in = operandType(c, 0, 0), &wt = operandType(c, 0, 1), &out = resultType(c, 0);
  if (!isStatic(in) || !isStatic(wt) || !isStatic(out) || in.rank() != 4 || wt.rank() != 4 || out.rank() != 4)
    return std::nullopt;
  const std::optional<ConvWindow> win = convWindow(op);
  if (!win) return std::nullopt;
  const std::vector<int64_t>&pad = win->pad, &st = win->stride, &dil = win->dilation;
  Geometry g;
  g.N = in.dims[0], g.IH = in.dims[1], g.IW = in.dims[2], g.C = in.dims[3];
  g.KH = wt.dims[0], g.KW = wt.dims[1];
  g.OH = out.dims[1], g.OW = out.dims[2];
  if (wt.dims[2] != g.C || wt.dims[3] != 1 || out.dims[0] != g.N || out.dims[3] != g.C) return std::nullopt;
  if (g.N < 1 || g.C < 1 || g.KH < 1 || g.KW < 1 || g.OH < 1 || g.OW < 1) return std::nullopt;
  // OH/OW exactly as the spec's ERROR_IFs require (otherwise the reference kernel reports the error).
  const int64_t nh = g.IH - 1 + pad[0] + pad[1] - (g.KH - 1) * dil[0];
  const int64_t nw = g.IW - 1 + pad[2] + pad[3] - (g.KW - 1) * dil[1];
  if (nh < 0 || nw < 0 || nh % st[0] != 0 || nw % st[1] != 0 || g.OH != nh / st[0] + 1 || g.OW != nw / st[1] + 1)
    return std::nullopt;
  g.strideY = st[0], g.strideX = st[1], g.dilationY = dil[0], g.dilationX = dil[1];
  g.padTop = pad[0], g.padLeft = pad[2];
  g.Cp = (g.C + 15) / 16 * 16;
  g.IWp = pad[2] + g.IW + pad[3];
  g.ring = (g.KH - 1) * g.dilationY + 1;
  return g;
}

std::optional<Operands> parseOperands(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.size() != 5 || op.results.size() != 1) return std::nullopt;
  if (operandType(c, 0, 0).dtype != DType::I8 || operandType(c, 0, 1).dtype != DType::I8 ||
      resultType(c, 0).dtype != DType::I32)
    return std::nullopt;
  auto acc = accType(op);
  const Tensor *w = constOperand(c, 0, 1), *bias = constOperand(c, 0, 2);
  auto izp = zeroPoint(c, 0, 3), wzp = zeroPoint(c, 0, 4);
  if (!acc || *acc != DType::I32 || !w || !bias || bias->dtype() != DType::I32 || !izp || !wzp) return std::nullopt;
  if (*izp < -128 || *izp > 127 || *wzp < -128 || *wzp > 127) return std::nullopt;
  auto g = parseGeometry(c);
  if (!g || (bias->size() != g->C && bias->size() != 1)) return std::nullopt;
  return Operands{*g, w, bias, *izp, *wzp};
}

// The calling thread's ring of fp32 rows (reused by every layer).
// 64-byte aligned: every vector of a row (Cp floats per pixel) then sits in one cache line. With malloc's
// 16-byte alignment a run got 0, 16, 32 or 48 bytes of offset by chance, and an offset split every load in two
// lines: mobilenet_v2's stride-1 layers took ~0.45 or ~0.59 ms at one thread depending on the process.
float* ringScratch(int64_t floats) {
  thread_local std::vector<float> buf;
  if (int64_t(buf.size()) < floats + 16) buf.resize(size_t(floats + 16));
  const uintptr_t p = reinterpret_cast<uintptr_t>(buf.data());
  return buf.data() + (64 - p % 64) % 64 / sizeof(float);
}

std::optional<TapWeights> tapWeights(const Geometry& g, const Tensor& w, int64_t inputZp, int64_t weightZp) {
  const int64_t maxAbsX = std::max(std::abs(-128 - inputZp), std::abs(127 - inputZp));
  const int8_t* wp = reinterpret_cast<const int8_t*>(w.data());
  const int64_t taps = g.KH * g.KW;
  TapWeights t;
  t.weights.assign(size_t(taps * g.Cp), 0.0f);
  t.accBound.resize(size_t(g.C)), t.zpStart.resize(size_t(g.C)), t.partialBound.resize(size_t(g.C));
  t.rowSums.assign(size_t(g.KH * g.Cp), 0);
  for (int64_t ch = 0; ch < g.C; ++ch) {
    int64_t absSum = 0, sum = 0;
    for (int64_t k = 0; k < taps; ++k) {
      const int64_t v = int64_t(wp[k * g.C + ch]) - weightZp;  // TOSA [KH, KW, C, 1]
      absSum += std::abs(v), sum += v;
      t.weights[size_t(k * g.Cp + ch)] = float(v);
      t.rowSums[size_t(k / g.KW * g.Cp + ch)] += v;
    }
    const size_t i = size_t(ch);
    t.accBound[i] = absSum * maxAbsX;
    t.zpStart[i] = -inputZp * sum;
    t.partialBound[i] = 128 * absSum;
    if (std::abs(t.zpStart[i]) + t.partialBound[i] >= kExactLimit) return std::nullopt;
  }
  return t;
}

}  // namespace tosakit::fast::dwint8
