// Private to src/fast/onednn/*.cpp: the oneDNN engine, type mapping, constant-operand access and the fused
// epilogues (float post-ops, exact integer bias/RESCALE/CLAMP) shared by the convolution and matmul kernels.
// Includes oneDNN headers: never include it from anything but src/fast/onednn/*.cpp and
// kernels/int8/pointwise.cpp (our blocked int8 1x1 convolution on oneDNN matmuls).
#pragma once
#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fast/kernels/chain_operands.h"
#include "fast/kernels/f32/depthwise.h"
#include "fast/kernels/int8/int8.h"
#include "fast/op_kernel.h"

namespace tosakit::fast::dnn {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;

dnnl::engine& engine();
// One stream per thread (a stream is not thread-safe; the plan runs its kernels in order on one thread).
dnnl::stream& stream();

// oneDNN's int8 kernels accumulate exactly in s32 (no saturated s16 intermediates, no weight scaling) only
// on ISAs with VNNI (vpdpbusd): AVX512_VNNI, AVX_VNNI or AMX. Also honours ONEDNN_MAX_CPU_ISA. (The s32
// destination still passes through f32: see the large-accumulator recompute in onednn_conv/onednn_matmul.)
bool exactInt8();

std::optional<dt> toDnnl(DType t);
// "onednn:" + impl_info_str, and whether oneDNN fell back to its slow reference implementation.
std::string implName(const dnnl::primitive_desc_base& pd);
bool isReference(const dnnl::primitive_desc_base& pd);

// ---- fused epilogues ----

// Float results: ops after the main op that become oneDNN post-ops (tosa.add / tosa.mul of a same-shaped
// tensor, one value per channel or one value -> binary add/mul; tosa.clamp with nan_mode IGNORE -> eltwise clip,
// which maps NaN to min_val exactly as apply_clip_f does in IGNORE mode) or, from the first op that cannot be a
// post-op on, one pass of our own over the result (clamp with nan_mode PROPAGATE: oneDNN's clip would turn NaN
// into min_val; add/mul when the implementation's binary post-ops are not trusted). oneDNN applies post-ops in
// order, each an IEEE fp32 operation on the previous fp32 value (no contraction into FMAs), so for fp32 results
// every fused op is rounded exactly where TOSA rounds it. tosa.mul is fused only for fp32 results (a bf16
// result would be rounded to bf16 before the multiplication in TOSA, not in oneDNN).
struct FloatEpilogue {
  int absorbed = 0;  // ops after the main op
  dnnl::post_ops postOps;
  struct Binary {
    size_t k, j;            // operand j of ops[k] is the post-op's second source
    int postOpIndex;        // its index in postOps (for DNNL_ARG_ATTR_MULTIPLE_POST_OP)
    dnnl::memory::desc md;  // the second source: the destination's shape, one value per channel, or one value
  };
  std::vector<Binary> binaryOperands;
  using ManualOp = FloatEpilogueOp;
  std::vector<ManualOp> manual;
  // A tosa.clamp with nan_mode PROPAGATE became oneDNN's clip (which maps NaN to min_val) because no NaN can
  // reach it: the step's inputs are finite (the plan's scan), the weights are, and while max|input| stays at
  // most this limit no partial sum can overflow to an infinity (inf - inf and inf * 0 are the only ways to a
  // NaN). The kernel checks max|input| per run and leaves a larger input to the reference kernels.
  double inputAbsLimit = INFINITY;
  // A tosa.add of a full-size run-time tensor as the first post-op became oneDNN's sum post-op (dst = acc +
  // dst): the kernel copies that operand (ops[k] operand j) into the destination before running. brgconv takes
  // sum where 2.6 falls back to its slower jit convolution for a binary add (resnet18's residual adds).
  std::optional<std::pair<size_t, size_t>> sumOperand;
  // A bound on |result| that holds whatever the input (every value then finite), when the post-ops end in a clip
  // followed only by constant adds/muls and nothing is left to the pass (a PROPAGATE clip is only fused under the
  // run-time input check, so no NaN reaches it): OpKernel::resultAbsBound. INFINITY otherwise.
  double staticAbsBound = INFINITY;
};

// How large the main op's result can get: |result| <= max|input| * scale + offset (fp32 convolutions with
// constant weights and bias: scale = the largest sum of |weights| of one output channel, offset = max|bias|).
struct ResultBound {
  double scale = 0, offset = 0;
};
// maxOps limits how many following ops are considered (used to retry with less fusion); allowBinary=false
// computes every tosa.add/tosa.mul in the pass; allowPostOps=false computes everything in the pass (kernels of
// our own). The other operand has the result's shape, is one value per channel (TOSA shape [1, ..., 1, C]) or
// one value ([1, ..., 1]); channelDim is the channel's index in dstMd's (oneDNN logical) dimensions.
// bound (optional): makes PROPAGATE clamps post-ops under FloatEpilogue::inputAbsLimit. allowSum: a first
// tosa.add of a full-size fp32 tensor may become a sum post-op (FloatEpilogue::sumOperand).
// The CompiledKernel of a built kernel that computes its op and the absorbed() ops after it.
template <typename K>
CompiledKernel compiledKernel(std::unique_ptr<K> k) {
  CompiledKernel ck;
  ck.opsAbsorbed = 1 + k->absorbed();
  ck.kernel = std::move(k);
  return ck;
}

FloatEpilogue planFloatEpilogue(const OpChain& c, const dnnl::memory::desc& dstMd, int channelDim, int maxOps,
                                bool allowBinary = true, bool allowPostOps = true,
                                std::optional<ResultBound> bound = std::nullopt, bool allowSum = false);
// max |x| over n fp32 values (NaN and infinities compare as the largest values).
float maxAbsF32(const float* x, int64_t n);
// max |value| of a (constant) float tensor, INFINITY when one is an inf or NaN: the bounds built from it then
// bound nothing.
double maxAbsValue(const Tensor& t);
// Copies n fp32 values (none when src == dst) and says whether all of them are finite: one pass for the sum
// post-op's copy of the residual and the finiteness check the plan would otherwise make of it.
bool copyAllFiniteF32(const float* src, float* dst, int64_t n);
// The pass of FloatEpilogue::manual over `out` (fp32 or bf16) in place.
void runManualFloatOps(const FloatEpilogue& e, const std::vector<std::vector<TensorView>>& in, const TensorView& out);

// A process-wide s32 scratch buffer (per thread) for accumulators that feed an integer epilogue.
int32_t* accScratch(int64_t elements);

}  // namespace tosakit::fast::dnn
