// The exact integer epilogue after an i32 accumulator (bias, RESCALE, CLAMP) of the oneDNN convolution/matmul
// kernels (onednn/*.cpp; planned and run in onednn/common.cpp) and its AVX-512 pass (kernels/int8/epilogue.cpp).
// No oneDNN headers here: kernels_int8_*.cpp include it directly.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "fast/op_kernel.h"

namespace tosakit::fast::dnn {

// Integer results (s32 accumulators, no bias): bias add, then optionally tosa.rescale
// (i32 -> i8/i16/i32, per-channel, single/double rounding, apply_scale_32/apply_scale_16 bit for bit) and
// tosa.clamp, computed by our own loop. `channels` is the size of the last dimension.
// REQUIREs: acc + bias must not overflow i32 (watched per value); apply_scale_32's value range
// [-2^(shift-1), 2^(shift-1)) holds for every i32 once shift >= 32, and is checked per value when some shift
// is <= 31 (rangeCheck); apply_scale_16's result fits i32 for every i32 value once shift >= 16 (|v * m| < 2^46),
// a scale16 rescale with a smaller shift is not fused (a separate rescale step checks each value). The output
// zero point cannot overflow: a rescaled value within the REQUIREs has |value| <= 2^30.
// The epilogue's per-channel parameters for the AVX-512 passes, padded to Cp = channels rounded up to 16 lanes
// (zeros beyond). The 64-bit ones are split by channel parity: E[i] is channel 2i, O[i] channel 2i + 1 (the
// 32x32 -> 64-bit multiply takes the even i32 lanes of a vector, or the odd ones shifted down). bias: one row of
// Cp per class of output positions.
struct IntEpilogueLanes {
  std::vector<int32_t> bias, rangeLo, rangeHi;
  std::vector<int64_t> multE, multO, shiftE, shiftO, roundPosE, roundPosO, roundNegE, roundNegO;
  // The AVX2 form's (simd_avx2.h loadEpi8): the rounding terms plus 2^62 and, per channel (padded to 16), the
  // output zero point less the low 32 bits of 2^62 >> shift, computed once instead of per register block.
  std::vector<int64_t> roundPos62E, roundPos62O, roundNeg62E, roundNeg62O;
  std::vector<int32_t> zp62;
  // The shorter AVX2 form (simd_avx2.h rescaleHi8), when every channel's shift is in [32, 54] and the rounding term
  // does not depend on the sign (hiForm): per channel the rounding term plus output_zp * 2^shift (split by parity
  // as the E/O arrays) and shift - 32 (padded to 16, zeros beyond).
  std::vector<int64_t> roundZpE, roundZpO;
  std::vector<int32_t> shiftHi;
  bool hiForm = false;
  int32_t zp = 0, lo = INT32_MIN, hi = INT32_MAX;
  bool noOverflow = false;  // |acc| <= accBound and every bias make acc + bias fit i32: no check needed
};

struct IntEpilogue {
  int absorbed = 0;
  int64_t channels = 0;
  // Added to the accumulators: one vector of `channels` values per class of output positions (bias, and
  // -input_zp * the sum of the weights that meet the input at those positions). rowClass maps a position
  // within one image (row % rowClass.size()) to its vector's offset; empty: one class.
  std::vector<int32_t> biasTable;
  std::vector<int64_t> rowClass;
  bool runtimeBias = false;  // bias is operand (0, 2) at run time (one class only)
  bool runtimeBiasBroadcast = false;
  bool rescale = false;
  bool scale32 = true, doubleRound = false;
  bool rangeCheck = false;  // some scale32 shift <= 31: apply_scale_32's value range is checked per value
  std::vector<int64_t> multiplier, shift;   // per channel
  std::vector<int64_t> roundPos, roundNeg;  // per channel: the rounding term for values >= 0 / < 0
  int64_t outputZp = 0;
  DType outType = DType::I32;
  bool clamp = false;
  int64_t clampLo = 0, clampHi = 0;
  // The largest |acc| the op can produce (i8 x i8 products: 2^14 times the weights per output value), when the
  // weights are constant i8; INT64_MAX when unknown.
  int64_t accBound = std::numeric_limits<int64_t>::max();
  // Scratch of runIntEpilogue: the parameters repeated over a block of rows (one bias vector only).
  mutable std::vector<int32_t> laneMult;
  mutable std::vector<int64_t> laneShift, laneRoundPos, laneRoundNeg;
  mutable std::vector<int32_t> laneBias;
  mutable std::vector<int32_t> laneLo, laneHi;  // rangeCheck: the allowed acc + bias per lane, inclusive
  mutable IntEpilogueLanes simd;                // the AVX-512 pass's parameters (built on the first run)
  bool needsPass() const { return !biasTable.empty() || runtimeBias || rescale || clamp; }
};
// Plans the epilogue after an op whose accumulator result is resultType(c, 0) (i32). Bias: a constant
// tensor (per channel or one value) or none.
IntEpilogue planIntEpilogue(const OpChain& c, int64_t channels, const Tensor* constBias);
// acc (s32, rows x channels) -> out (outType) through the epilogue. acc and out may alias when outType is i32.
// false: acc + bias overflowed i32 (the op's REQUIRE): the caller reruns the step on the reference kernels.
bool runIntEpilogue(const IntEpilogue& e, const int32_t* acc, int64_t rows, const TensorView& out,
                    const void* runtimeBias);

// For kernels that split their rows over threads themselves (a constant bias or none, one class):
// prepareIntEpilogue (once, at compile time) builds every pass's parameters; runIntEpilogueRows then only reads
// them (safe from several threads) and runs on the calling thread: `rows` rows of acc -> the result rows of
// `out` (typed outType) starting at row `firstRow`.
void prepareIntEpilogue(IntEpilogue& e);
bool runIntEpilogueRows(const IntEpilogue& e, const int32_t* acc, int64_t rows, void* out, int64_t firstRow);

// The AVX-512 pass (kernels/int8/epilogue.cpp), when the CPU has AVX-512 F/BW/DQ/VL: fills e.simd (bias: the
// class vectors of `bias`, `classes` rows of e.channels values) and runs rows [r0, r1) of acc -> out on the
// calling thread. rowClass semantics as above; false: a REQUIRE failed (see runIntEpilogue).
bool hasAvx512Epilogue();
// Tests: run the compiler-vectorized passes instead of the AVX-512 ones (this epilogue, the quantized binary
// rows, the i8 rescale; both exact: the test machines have AVX-512, the passes for the others must be tested too).
void setIntEpilogueGenericForTesting(bool on);
void buildIntEpilogueLanes(const IntEpilogue& e, const int32_t* bias, int64_t classes);
bool runIntEpilogueAvx512(const IntEpilogue& e, const int32_t* acc, void* out, int64_t r0, int64_t r1);
// The AVX2 pass (kernels/int8/epilogue.cpp, kernels/int8/simd_avx2.h) on the same e.simd parameters, for CPUs
// with AVX2 and without AVX-512 (the callers try the AVX-512 pass first); off with
// setIntEpilogueGenericForTesting too.
bool hasAvx2Epilogue();
bool runIntEpilogueAvx2(const IntEpilogue& e, const int32_t* acc, void* out, int64_t r0, int64_t r1);

}  // namespace tosakit::fast::dnn

namespace tosakit::fast {
// Tests: let the int8 depthwise kernel take strided layers too (by default they stay on oneDNN, which is as fast).
void setDepthwiseInt8StridedForTesting(bool on);
// Tests: how many output rows the int8 depthwise kernel has computed without their kernel rows over padding
// rows (RowSkip), and how many runs of the fused quantized mul took the fp64 row for a broadcast gate
// (kernels/int8/binary.cpp, scaledMulRowAvx512): the tests' proof that those paths ran.
int64_t depthwiseInt8SkippedRowsForTesting();
int64_t quantBinaryScaledMulRunsForTesting();
// Tests: how many runs of the AVX2 int8 convolution/matmul (kernels/int8/conv_avx2.cpp) took the shorter rescale
// (simd_avx2.h rescaleHi8, the accumulators starting at the bias).
int64_t convInt8HiFormRunsForTesting();
}  // namespace tosakit::fast
