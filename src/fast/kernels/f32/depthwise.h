// Our own fp32 DEPTHWISE_CONV2D (multiplier 1, NHWC, TOSA's weight layout used as it is) with the float
// epilogue fused into the same pass: bias, then the chain's per-channel/scalar/full-tensor ADD and MUL and
// CLAMP in graph order, each rounded to fp32 as TOSA rounds it. Private to src/fast: no oneDNN in here (the
// chain planning is shared with the oneDNN kernels in onednn/common.h, which include this header).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tosakit::fast {

// One op after the main op of a fused float chain, computed by our own code on the fp32 (or bf16) result.
struct FloatEpilogueOp {
  enum class Kind { Add, Mul, Clamp };
  // The second operand of ADD/MUL: the result's shape, one value per channel (last dimension), or one value.
  enum class Operand { Full, PerChannel, Scalar };
  Kind kind = Kind::Clamp;
  Operand operand = Operand::Full;
  size_t k = 0, j = 0;   // ADD/MUL: operand j of the chain's ops[k] (its run-time data)
  int64_t channels = 0;  // PerChannel: the number of channels
  float lo = 0, hi = 0;  // CLAMP bounds
  bool ignoreNan = false;
};

// A bound on |every result| of the ops `epilogue` applied in order to values with |v| <= accBound, all of them
// then finite: no intermediate can overflow while each op's bound stays below FLT_MAX / 2, so no NaN arises
// (inf - inf, inf * 0), and a clamp bounds what reaches it (a PROPAGATE one only when no NaN can; an IGNORE one
// always). operandMaxAbs[i]: max|operand| of epilogue[i] (ADD/MUL), INFINITY for a run-time operand. INFINITY
// when the results cannot be bounded.
double epilogueAbsBound(const std::vector<FloatEpilogueOp>& epilogue, const std::vector<double>& operandMaxAbs,
                        double accBound);

struct DepthwiseF32Geometry {
  int64_t N = 0, IH = 0, IW = 0, C = 0, KH = 0, KW = 0, OH = 0, OW = 0;
  int64_t strideY = 1, strideX = 1, dilationY = 1, dilationX = 1, padTop = 0, padLeft = 0;
};

// y[n, oy, ox, c] = epilogue(bias[c] + sum over in-bounds taps of x[n, iy, ix, c] * w[ky, kx, c]) with
// w = TOSA's [KH, KW, C, 1] weights and `operands[i]` the run-time data of epilogue[i] (null for CLAMP).
// Taps outside the input are skipped (TOSA's padding contributes nothing), so infinities and NaNs in x or w
// propagate as in the reference kernel; the sum is accumulated in fp32 (fused multiply-adds) in tap order.
void depthwiseF32(const DepthwiseF32Geometry& g, const float* x, const float* w, const float* bias, float* y,
                  const std::vector<FloatEpilogueOp>& epilogue, const std::vector<const float*>& operands);

}  // namespace tosakit::fast
