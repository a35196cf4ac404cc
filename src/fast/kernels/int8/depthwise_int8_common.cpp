// The parts the int8 depthwise_conv2d kernels share (kernels/int8/depthwise_int8.h).
#include <atomic>
#include <cmath>
#include <cstdlib>

#include "fast/kernels/chain_operands.h"
#include "fast/kernels/int8/depthwise_int8.h"

namespace tosakit::fast::dwint8 {

using dnn::IntEpilogue;

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

std::optional<Int8Depthwise> parseInt8Depthwise(const OpChain& c) {
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
  return Int8Depthwise{*g, w, bias, *izp, *wzp};
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

// Whether the compile-time bounds prove the fp64 rescale exact for every channel (see ScaledRescale) and every
// REQUIRE of the bias add and the rescale satisfied (the accumulators starting at bias - input_zp * sum(w)); the
// parameters when they do.
std::optional<ScaledRescale> planScaled(const IntEpilogue& epi, const Geometry& g, const TapWeights& tw,
                                        const std::vector<int64_t>& bias) {
  const int64_t C = g.C, Cp = g.Cp;
  ScaledRescale sr;
  sr.mult.assign(size_t(Cp), 0.0), sr.roundPos.assign(size_t(Cp), 0.0);
  sr.roundNeg.assign(size_t(Cp), 0.0);
  for (int64_t ch = 0; ch < C; ++ch) {
    const size_t i = size_t(ch);
    const int64_t bc = bias[bias.size() == 1 ? 0 : i], vBound = std::abs(bc) + tw.accBound[i];
    // The accumulators start at bias - input_zp * sum(w): exact partial sums, and acc + bias far inside i32.
    if (std::abs(bc + tw.zpStart[i]) + tw.partialBound[i] >= kExactLimit || vBound >= kExactLimit) return std::nullopt;
    const int64_t m = epi.multiplier[i], sh = epi.shift[i];
    const int64_t round = std::max(std::abs(epi.roundPos[i]), std::abs(epi.roundNeg[i]));
    // vBound < 2^24, m < 2^31, round <= 2^61 + 2^30: no int64 overflow.
    const int64_t top = vBound * m + round;
    if (top >= kExactLimit64 || (top >> sh) >= (int64_t(1) << 30)) return std::nullopt;
    if (epi.scale32 && sh <= 31 && vBound > (int64_t(1) << (sh - 1)) - 1)
      return std::nullopt;  // apply_scale_32's range
    // The output zero point joins the rounding term as zp * 2^shift: floor((N + zp * 2^shift) * 2^-shift) =
    // (N >> shift) + zp, exact while |v * m + round + zp * 2^shift| < 2^53 too.
    const __int128 zpTerm = __int128(epi.outputZp) * (__int128(1) << sh), vm = __int128(vBound) * m;
    const __int128 rp = epi.roundPos[i] + zpTerm, rn = epi.roundNeg[i] + zpTerm;
    if (vm + (rp < 0 ? -rp : rp) >= kExactLimit64 || vm + (rn < 0 ? -rn : rn) >= kExactLimit64) return std::nullopt;
    const double scale = std::ldexp(1.0, -int(sh));
    sr.mult[i] = double(m) * scale;
    sr.roundPos[i] = double(int64_t(rp)) * scale;
    sr.roundNeg[i] = double(int64_t(rn)) * scale;
  }
  return sr;
}

// The kernel rows [ky0, ky1) of output row oy that read input rows.
inline std::pair<int64_t, int64_t> liveKernelRows(const Geometry& g, int64_t oy) {
  const int64_t iy0 = oy * g.strideY - g.padTop, d = g.dilationY;  // the input row of ky = 0
  const int64_t ky0 = iy0 >= 0 ? 0 : (-iy0 + d - 1) / d;
  const int64_t ky1 = g.IH - 1 - iy0 < 0 ? 0 : std::min(g.KH, (g.IH - 1 - iy0) / d + 1);
  return {std::min(ky0, ky1), ky1};
}

std::atomic<int64_t> skippedRows{0};
void countSkippedRow() { skippedRows.fetch_add(1, std::memory_order_relaxed); }
int64_t skippedRowCount() { return skippedRows.load(); }

RowSkipPlan planRowSkips(const Geometry& g, const std::vector<int64_t>& startInt, const std::vector<int64_t>& rowSums,
                         int64_t inputZp) {
  RowSkipPlan p;
  const int64_t Cp = g.Cp;
  std::vector<std::pair<int64_t, int64_t>> ranges;  // the live range of p.partialStarts[i]
  for (int64_t oy = 0; oy < g.OH; ++oy) {
    const auto [ky0, ky1] = liveKernelRows(g, oy);
    RowPlan plan{ky0, ky1, -1};
    if (ky1 - ky0 != g.KH) {
      const auto found = std::find(ranges.begin(), ranges.end(), std::pair(ky0, ky1));
      plan.start = int(found - ranges.begin());
      if (found == ranges.end()) {
        Aligned64<float> start;
        start.assign(size_t(Cp), 0.0f);
        for (int64_t c = 0; c < Cp; ++c) {
          int64_t v = startInt[size_t(c)];
          for (int64_t ky = 0; ky < g.KH; ++ky)
            if (ky < ky0 || ky >= ky1) v += inputZp * rowSums[size_t(ky * Cp + c)];
          start[size_t(c)] = float(v);
        }
        ranges.emplace_back(ky0, ky1);
        p.partialStarts.push_back(std::move(start));
      }
    }
    p.rows.push_back(plan);
  }
  return p;
}

}  // namespace tosakit::fast::dwint8
