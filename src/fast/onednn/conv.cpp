// tosa.conv2d, tosa.depthwise_conv2d and tosa.transpose_conv2d on oneDNN (NHWC activations, weights packed
// once into oneDNN's preferred layout), with the fused epilogues of onednn/common.h.
//
// Exactness: float convolutions accumulate in fp32 (within the spec's dot-product bound). int8 convolutions
// run only on VNNI ISAs (no saturating s16 intermediates) and with no bias, scale, zero point or post-op
// inside oneDNN; even so oneDNN 2.6 passes the s32 accumulator through f32 on its way to an s32 destination,
// so results that may have been rounded (|acc| near or beyond 2^24) are recomputed exactly, and the
// input_zp compensation (padding contributes 0 after the zero-point subtraction, as TOSA defines), the i32
// bias, RESCALE and CLAMP are our own integer loop (tests/fast/onednn_conv_test.cpp checks all of it bit for
// bit, including accumulators beyond 2^24). weight_zp != 0 is not handled (reference fallback).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>

#include <omp.h>

#include "fast/isa_dispatch.h"
#include "fast/kernel_factories.h"
#include "fast/kernels/common.h"
#include "fast/kernels/conv_geometry.h"
#include "fast/kernels/int8/transpose_conv.h"
#include "fast/onednn/common.h"
#include "fast/onednn/unpack.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

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

// The weights as TOSA stores them, described for oneDNN.
dnnl::memory::desc userWeightsMd(const ConvGeom& g, dt wdt) {
  if (g.kind == ConvKind::Depthwise) {
    // [KH, KW, C, M] as grouped weights {G=C, M, 1, KH, KW}.
    const int64_t M = g.OC / g.G;
    return dnnl::memory::desc({g.G, M, 1, g.KH, g.KW}, wdt, dims{M, 1, 1, g.KW * g.G * M, g.G * M});
  }
  return dnnl::memory::desc({g.OC, g.IC, g.KH, g.KW}, wdt, tag::ohwi);
}

dims weightsDims(const ConvGeom& g) {
  if (g.kind == ConvKind::Depthwise) return {g.G, g.OC / g.G, 1, g.KH, g.KW};
  return {g.OC, g.IC, g.KH, g.KW};
}

class ConvKernel : public OpKernel {
 public:
  std::string implName() const override { return impl_; }
  double flops() const override { return flops_; }
  double resultAbsBound(double) const override { return isInt_ ? INFINITY : floatEpi_.staticAbsBound; }
  // The bound check below reads the input's bit patterns (an inf or NaN fails it); the sum post-op's residual is
  // checked while it is copied into the destination.
  bool rejectsNonFinite(int op, int operand) const override {
    if (op == 0 && operand == 0 && floatEpi_.inputAbsLimit != INFINITY) return true;
    return floatEpi_.sumOperand && floatEpi_.sumOperand->first == size_t(op) &&
        floatEpi_.sumOperand->second == size_t(operand);
  }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    if (floatEpi_.inputAbsLimit != INFINITY &&
        !(double(maxAbsF32(in[0][0].as<const float>(), in[0][0].size())) <= floatEpi_.inputAbsLimit))
      return rerunOnReference();  // a partial sum might overflow: the clip could meet a NaN
    const bool accInOut = isInt_ && !(intEpi_.rescale && intEpi_.outType != DType::I32);
    if (ownTranspose_) return runOwnTranspose(in, out[0], accInOut);
    if (!bands_.empty()) return runBands(in, out[0]);
    src_.set_data_handle(in[0][0].data);
    if (runtimeBias_) bias_.set_data_handle(in[0][2].data);
    for (size_t i = 0; i < binaries_.size(); ++i) {
      const auto& b = floatEpi_.binaryOperands[i];
      binaries_[i].set_data_handle(in[b.k][b.j].data);
    }
    int32_t* acc = isInt_ ? (accInOut ? out[0].as<int32_t>() : accScratch(rows_ * channels_)) : nullptr;
    if (floatEpi_.sumOperand) {  // oneDNN's sum post-op adds what the destination holds
      const TensorView& other = in[floatEpi_.sumOperand->first][floatEpi_.sumOperand->second];
      if (!copyAllFiniteF32(other.as<const float>(), out[0].as<float>(), out[0].size())) return rerunOnReference();
    }
    dst_.set_data_handle(isInt_ ? static_cast<void*>(acc) : out[0].data);
    try {
      prim_.execute(stream(), args_);
      stream().wait();
    } catch (const dnnl::error& e) { return Status::internal(impl_ + ": " + e.what()); }
    if (isInt_ && mayBeLarge_) recomputeLargeAccumulators(in[0][0].as<int8_t>(), in[0][1].as<int8_t>(), acc, 0, rows_);
    if (isInt_ && intEpi_.needsPass() &&
        !runIntEpilogue(intEpi_, acc, rows_, out[0], intEpi_.runtimeBias ? in[0][2].data : nullptr))
      return rerunOnReference();
    if (!isInt_) runManualFloatOps(floatEpi_, in, out[0]);
    return Status::ok();
  }

  // |result| <= max|x| * (the largest sum of |w| of one output channel) + max|bias|, for fp32 with a constant
  // bias (planFloatEpilogue: a PROPAGATE clamp as oneDNN's clip while no NaN can arise).
  static std::optional<ResultBound> resultBound(const OpChain& c, const ConvGeom& g, const Tensor* biasT) {
    if (g.inT != DType::FP32 || g.outT != DType::FP32 || !biasT) return std::nullopt;
    const float* w = reinterpret_cast<const float*>(constOperand(c, 0, 1)->data());
    const int64_t n = constOperand(c, 0, 1)->size();
    std::vector<double> sum(size_t(g.OC), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      // conv2d/transpose [OC, KH, KW, IC]: row-major by output channel; depthwise [KH, KW, C, M]: oc = i % OC.
      const int64_t oc = g.kind == ConvKind::Depthwise ? i % g.OC : i / (n / g.OC);
      sum[size_t(oc)] += std::fabs(double(w[i]));
    }
    ResultBound b;
    b.scale = *std::max_element(sum.begin(), sum.end());
    b.offset = maxAbsValue(*biasT);
    return b;
  }

  // Float weights live only packed. int8 weights stay: the large-accumulator recompute reads them as TOSA
  // stores them, and their packed copy carries oneDNN's s8s8 compensation (no plain reverse reorder).
  std::vector<std::pair<int, int>> packedConstants() const override {
    if (isInt_) return {};
    return {{0, 1}};
  }
  Result<Tensor> unpackConstant(int op, int operand) const override {
    if (op != 0 || operand != 1 || isInt_) return OpKernel::unpackConstant(op, operand);
    return unpackWeights(weights_, userWeightsMd(g_, *toDnnl(g_.inT)), g_.inT, weightShape_);
  }

  // Builds the primitive for g with at most maxOps following ops fused; false when oneDNN has no
  // non-reference implementation for it.
  bool build(const OpChain& c, const ConvGeom& g, int maxOps, bool allowBinary, bool allowSum) {
    const dt inDt = *toDnnl(g.inT), outDt = isInt(g) ? dt::s32 : *toDnnl(g.outT);
    const dnnl::memory::desc srcMd({g.N, g.IC, g.IH, g.IW}, inDt, tag::nhwc);
    const dnnl::memory::desc dstMd({g.N, g.OC, g.OH, g.OW}, outDt, tag::nhwc);
    const dnnl::memory::desc wMd(weightsDims(g), inDt, tag::any);
    const Tensor* biasT = constOperand(c, 0, 2);
    isInt_ = isInt(g);
    dnnl::primitive_attr attr;
    if (isInt_) {
      intEpi_ = planIntEpilogue(c, g.OC, biasT);
      if (!biasT) {
        intEpi_.runtimeBias = true;
        intEpi_.runtimeBiasBroadcast = g.BC == 1;
      }
      if (intEpi_.absorbed > maxOps || !allowBinary) return false;
      if (ownTransposeApplies(g)) return buildOwnTranspose(c, g);
      if (g.inputZp != 0) {
        if (!biasT) return false;  // a run-time bias with a zero point: reference fallback
        addZeroPointCompensation(g, *constOperand(c, 0, 1));
      }
    } else {
      floatEpi_ = planFloatEpilogue(c, dstMd, 1, maxOps, allowBinary, true, resultBound(c, g, biasT),
                                    allowSum && sumPostOpSafe(g));
      attr.set_post_ops(floatEpi_.postOps);
      if (!biasT && g.BC != g.OC) return false;  // a broadcast run-time bias: reference fallback
    }
    const bool withBias = !isInt_;
    const dnnl::memory::desc biasMd = withBias ? dnnl::memory::desc({g.OC}, outDt, tag::a) : dnnl::memory::desc();
    try {
      dnnl::memory::desc packedW;
      if (g.kind == ConvKind::Transpose) {
        dnnl::deconvolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
                                            srcMd, wMd, biasMd, dstMd, g.strides, g.dilates, g.padL, g.padR);
        dnnl::deconvolution_forward::primitive_desc pd(d, attr, engine());
        if (isReference(pd) || !binaryPostOpsExact(pd)) return false;
        impl_ = dnn::implName(pd);
        packedW = pd.weights_desc();
        prim_ = dnnl::deconvolution_forward(pd);
      } else {
        dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                          srcMd, wMd, biasMd, dstMd, g.strides, g.dilates, g.padL, g.padR);
        dnnl::convolution_forward::primitive_desc pd(d, attr, engine());
        if (isReference(pd) || !binaryPostOpsExact(pd)) return false;
        impl_ = dnn::implName(pd);
        packedW = pd.weights_desc();
        prim_ = dnnl::convolution_forward(pd);
      }
      packWeights(c, g, inDt, packedW);
      src_ = dnnl::memory(srcMd, engine(), nullptr);
      dst_ = dnnl::memory(dstMd, engine(), nullptr);
      args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_}};
      if (withBias) setBias(c, g, biasMd, biasT);
      binaries_.clear();
      for (const auto& b : floatEpi_.binaryOperands) {
        binaries_.push_back(dnnl::memory(b.md, engine(), nullptr));
        args_[DNNL_ARG_ATTR_MULTIPLE_POST_OP(b.postOpIndex) | DNNL_ARG_SRC_1] = binaries_.back();
      }
    } catch (const dnnl::error&) { return false; }
    rows_ = g.N * g.OH * g.OW;
    g_ = g;
    channels_ = g.OC;
    if (isInt_) setLargeAccumulatorThresholds(g, *constOperand(c, 0, 1));
    if (isInt_ && !buildBands(*constOperand(c, 0, 1), g, inDt)) {  // the whole layer as one primitive
      bands_.clear(), bandPrims_.clear(), bandEpi_.clear(), bandWeights_.clear();
    }
    const double macs = g.kind == ConvKind::Transpose ? double(g.N * g.IH * g.IW) * double(g.OC * g.KH * g.KW * g.IC)
                                                      : double(rows_) * double(g.OC * g.KH * g.KW * (g.IC / g.G));
    flops_ = 2 * macs;
    return true;
  }

  int absorbed() const { return isInt_ ? intEpi_.absorbed : floatEpi_.absorbed; }

 private:
  static bool isInt(const ConvGeom& g) { return g.isInt(); }

  // int8 transpose_conv2d with kernel == stride and no out_pad: our own exact accumulator
  // (kernels/int8/transpose_conv.h) instead of oneDNN's deconvolution, the same integer epilogue after it.
  static bool ownTransposeApplies(const ConvGeom& g) {
    return g.kind == ConvKind::Transpose && g.KH == g.strides[0] && g.KW == g.strides[1] && g.padL == dims{0, 0} &&
        g.padR == dims{0, 0};
  }
  // Bands of input rows whose s32 accumulators (KH output rows each) fit in L2: each band's epilogue reads them
  // from cache instead of a second pass over a tensor of 4 bytes per output value (det: 9.8 MB).
  Status runOwnTranspose(const std::vector<std::vector<TensorView>>& in, const TensorView& out, bool accInOut) {
    constexpr int64_t kBandBytes = 512 << 10;
    const TransposeConvInt8Geometry& g = ownGeom_;
    const int64_t inRows = g.N * g.IH, perInRow = g.KH * g.IW * g.KW * g.OC;  // output values per input row
    const int64_t band = std::max<int64_t>(1, kBandBytes / (perInRow * int64_t(sizeof(int32_t))));
    const int8_t* x = in[0][0].as<const int8_t>();
    if (!intEpi_.needsPass()) {
      transposeConvInt8Accumulate(g, x, ownWeights_.data(), ownInit_.data(), 0, inRows, out.as<int32_t>());
      return Status::ok();
    }
    const size_t outElem = storageBytes(out.dtype);
    int32_t* scratch = accInOut ? nullptr : accScratch(band * perInRow);
    for (int64_t r0 = 0; r0 < inRows; r0 += band) {
      const int64_t r1 = std::min(inRows, r0 + band);
      TensorView o = out;
      o.data = static_cast<uint8_t*>(out.data) + size_t(r0 * perInRow) * outElem;
      int32_t* acc = accInOut ? o.as<int32_t>() : scratch;
      transposeConvInt8Accumulate(g, x, ownWeights_.data(), ownInit_.data(), r0, r1, acc);
      if (!runIntEpilogue(intEpi_, acc, (r1 - r0) * perInRow / g.OC, o, intEpi_.runtimeBias ? in[0][2].data : nullptr))
        return rerunOnReference();
    }
    return Status::ok();
  }

  bool buildOwnTranspose(const OpChain& c, const ConvGeom& g) {
    ownTranspose_ = true;
    ownGeom_ = TransposeConvInt8Geometry{g.N, g.IH, g.IW, g.IC, g.OC, g.KH, g.KW};
    const int8_t* w = reinterpret_cast<const int8_t*>(constOperand(c, 0, 1)->data());
    ownWeights_ = packTransposeConvInt8Weights(ownGeom_, w);
    // The input zero point's term goes into the accumulator's start value (one per tap and channel), not into
    // the epilogue's per-position bias table, which would split the epilogue into one call per pixel.
    ownInit_ = transposeConvInt8ZeroPointTerms(ownGeom_, w, int32_t(g.inputZp));
    impl_ = "fast:transpose_conv2d_int8 (kernel == stride)";
    rows_ = g.N * g.OH * g.OW;
    channels_ = g.OC;
    g_ = g;
    mayBeLarge_ = false;  // the accumulator is exact int32 arithmetic: nothing to recompute
    flops_ = 2.0 * double(g.N * g.IH * g.IW) * double(g.OC * g.KH * g.KW * g.IC);
    return true;
  }

  // oneDNN 2.6's gemm-based convolution (x64:gemm:jit) applies a full-tensor binary post-op at the wrong
  // offsets (tests/fast/onednn_conv_test.cpp, Fp32Conv2dFusedAddClamp): fuse tosa.add only elsewhere.
  // The deconvolution's binary post-ops are very slow in 2.6 (a per-channel add made a 160x160x24 k2s2
  // transpose_conv2d 13x slower): the add goes to our pass there.
  // oneDNN 2.6's brgconv with a sum post-op crashed (tests/fast/onednn_conv_test.cpp, Fp32Conv2dFusedAddClamp)
  // on a geometry whose border outputs meet only padding (pad 2 with a 2-tap kernel): sum is offered only to
  // plain convolutions (dilation 1, each side's padding at most half the kernel, stride at most the kernel, or
  // no padding at all: no output then meets only padding), which covers the residual convolutions of real
  // networks, resnet's 1x1 stride-2 downsampling included (binary add: jit, 0.075 ms; sum: brgconv_1x1, 0.053).
  static bool sumPostOpSafe(const ConvGeom& g) {
    if (g.kind != ConvKind::Conv2d || g.dilates != dims{0, 0}) return false;
    const int64_t k[2] = {g.KH, g.KW};
    const bool unpadded = g.padL == dims{0, 0} && g.padR == dims{0, 0};
    for (int a = 0; a < 2; ++a)
      if (2 * g.padL[size_t(a)] > k[a] || 2 * g.padR[size_t(a)] > k[a] || (g.strides[size_t(a)] > k[a] && !unpadded))
        return false;
    return true;
  }

  // The sum post-op is taken only where it buys brgconv (otherwise the binary add is built instead: jit and gemm
  // convolutions with sum crashed in 2.6's tests here).
  bool binaryPostOpsExact(const dnnl::primitive_desc_base& pd) const {
    const std::string impl = pd.impl_info_str();
    if (floatEpi_.sumOperand && impl.find("brg") == std::string::npos) return false;
    return floatEpi_.binaryOperands.empty() ||
        (impl.find("gemm") == std::string::npos && pd.get_kind() != dnnl::primitive::kind::deconvolution);
  }

  // TOSA subtracts input_zp from every input value and lets padding contribute 0. oneDNN runs without a zero
  // point (its zero-point and compensation paths go through f32 — inexact once |acc| > 2^24); instead
  // acc - input_zp * (sum of the weights that meet real input at that position) is added here, exactly in
  // wrapping int32 arithmetic. The kernel taps of an output row that meet real input form a set that only
  // differs near the borders (conv2d/depthwise: a range; transpose_conv2d: the taps of the row's phase
  // oy % stride), so the sums form a small table of (row tap set, column tap set) classes.
  void addZeroPointCompensation(const ConvGeom& g, const Tensor& w) {
    const bool transpose = g.kind == ConvKind::Transpose;
    auto classes = [transpose](int64_t outSize, int64_t inSize, int64_t k, int64_t stride, int64_t dilation,
                               int64_t pad, std::vector<std::vector<int64_t>>& tapSets, std::vector<int64_t>& classOf) {
      for (int64_t o = 0; o < outSize; ++o) {
        std::vector<int64_t> taps;
        for (int64_t kk = 0; kk < k; ++kk) {
          // conv: i = o * stride - pad + kk * dilation; transpose (oneDNN's form): o = i * stride + kk - pad.
          const int64_t num = o + pad - kk;
          const bool hit = transpose
              ? num >= 0 && num % stride == 0 && num / stride < inSize
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
    const std::vector<int32_t> bias = intEpi_.biasTable;  // one class or empty
    const WeightValues wv(w);
    const int64_t OC = g.OC, nCols = int64_t(colSets.size());
    intEpi_.biasTable.assign(size_t(int64_t(rowSets.size()) * nCols * OC), 0);
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
          intEpi_.biasTable[size_t((int64_t(rc) * nCols + int64_t(cc)) * OC + oc)] = int32_t(v);
        }
    intEpi_.rowClass.resize(size_t(g.OH * g.OW));
    for (int64_t oy = 0; oy < g.OH; ++oy)
      for (int64_t ox = 0; ox < g.OW; ++ox)
        intEpi_.rowClass[size_t(oy * g.OW + ox)] = (rowOf[size_t(oy)] * nCols + colOf[size_t(ox)]) * OC;
  }

  // ---- int8 conv2d / depthwise_conv2d in bands of output rows ----
  // A large layer's s32 result (det's first layer: 6.5 MB) written in full by one primitive and read back by the
  // epilogue goes through memory twice. Instead each image runs as bands of output rows [r0, r1): in NHWC they
  // need input rows [r0*sy - padTop, (r1-1)*sy - padTop + (KH-1)*dy + 1), a contiguous slice of the input, so a
  // band is an ordinary convolution of a smaller height with only the vertical padding it meets (the first band
  // pad_top, the last the part of pad_bottom it reaches, the middle ones none): the same sums as the whole layer.
  // Each band's accumulators (~kBandAccBytes) get their large-value recompute and epilogue while in L2.
  // Measured at one thread (docs/FAST.md): results of 2.4-6.5 MB gained 1.1-1.8x (det, resnet18's conv1); below
  // ~2 MB jit_int8 layers lost 2-15% (resnet18's 56x56x64 layers run compute-bound at ~800 GFLOP/s, one primitive
  // call per band costs), while a layer the whole primitive ran on brgconv gained from 512 KB on (det's Conv.55:
  // its bands run on jit_int8, faster on those shapes than brgconv plus the separate epilogue pass).
  static constexpr int64_t kBandMinAccBytes = 2 << 20;
  static constexpr int64_t kBandMinAccBytesBrgconv = 512 << 10;
  static constexpr int64_t kBandAccBytes = 192 << 10;  // 128-384 KB measured alike
  struct Band {
    int64_t r0 = 0, r1 = 0;  // output rows of an image
    int64_t inRow0 = 0;      // the first input row the band reads
    size_t prim = 0;         // its primitive in bandPrims_ (bands of the same shape and padding share one)
  };
  struct BandPrim {
    dnnl::convolution_forward::primitive_desc pd;
    dnnl::convolution_forward prim;
    dnnl::memory weights;  // packed as this primitive wants them
  };
  // What one thread runs its bands with: memory objects of its own per primitive (their data handles change per
  // band) with its own scratchpad, and its own copies of the epilogues (runIntEpilogue builds their parameter
  // lanes on the first run).
  struct BandThread {
    bool ready = false;
    std::vector<dnnl::memory> src, dst, scratch;
    std::vector<IntEpilogue> epi;  // per band with zero-point classes, else one
  };

  // false: no bands (not an int8 conv2d/depthwise with an i8/i16 epilogue, a small result, a band that would meet
  // only padding, or no non-reference oneDNN implementation for a band).
  bool buildBands(const Tensor& w, const ConvGeom& g, dt inDt) {
    const bool i8Out = intEpi_.rescale && intEpi_.outType != DType::I32;
    const int64_t rowBytes = g.OW * g.OC * int64_t(sizeof(int32_t));
    const int64_t minBytes = impl_.find("brgconv") != std::string::npos ? kBandMinAccBytesBrgconv : kBandMinAccBytes;
    if (g.kind == ConvKind::Transpose || !i8Out || g.N * g.OH * rowBytes <= minBytes) return false;
    const int64_t rows = std::clamp<int64_t>(kBandAccBytes / rowBytes, 1, g.OH);
    const int64_t sy = g.strides[0], span = (g.KH - 1) * (g.dilates[0] + 1) + 1, padT = g.padL[0];
    std::map<std::array<int64_t, 4>, size_t> primOf;  // (output rows, input rows, pad top, pad bottom)
    std::string bandImpl;  // the first band's (another height may get another implementation than the layer)
    try {
      for (int64_t r0 = 0; r0 < g.OH; r0 += rows) {
        const int64_t r1 = std::min(g.OH, r0 + rows);
        const int64_t lo = r0 * sy - padT, hi = (r1 - 1) * sy - padT + span;
        const int64_t in0 = std::max<int64_t>(0, lo), in1 = std::min(g.IH, hi);
        if (in1 <= in0) return false;  // a band over padding only
        const std::array<int64_t, 4> key{r1 - r0, in1 - in0, in0 - lo, hi - in1};
        auto it = primOf.find(key);
        if (it == primOf.end()) {
          const dnnl::memory::desc srcMd({1, g.IC, key[1], g.IW}, inDt, tag::nhwc);
          const dnnl::memory::desc dstMd({1, g.OC, key[0], g.OW}, dt::s32, tag::nhwc);
          const dnnl::memory::desc wMd(weightsDims(g), inDt, tag::any);
          dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                            srcMd, wMd, dnnl::memory::desc(), dstMd, g.strides, g.dilates,
                                            dims{key[2], g.padL[1]}, dims{key[3], g.padR[1]});
          dnnl::primitive_attr attr;
          attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);  // bands run concurrently on the threads
          dnnl::convolution_forward::primitive_desc pd(d, attr, engine());
          if (isReference(pd)) return false;
          if (bandImpl.empty()) bandImpl = dnn::implName(pd);
          BandPrim p;
          p.pd = pd;
          p.prim = dnnl::convolution_forward(pd);
          p.weights = bandWeights(w, g, inDt, pd.weights_desc());
          it = primOf.emplace(key, bandPrims_.size()).first;
          bandPrims_.push_back(std::move(p));
        }
        bands_.push_back(Band{r0, r1, in0, it->second});
      }
    } catch (const dnnl::error&) { return false; }
    bandRows_ = rows;
    // The zero point's compensation classes are indexed by the position within the image: each band gets the
    // epilogue with its slice of rowClass (its rows are then positions 0.. of that slice).
    if (!intEpi_.rowClass.empty())
      for (const Band& b : bands_) {
        IntEpilogue e = intEpi_;
        e.rowClass.assign(intEpi_.rowClass.begin() + b.r0 * g.OW, intEpi_.rowClass.begin() + b.r1 * g.OW);
        bandEpi_.push_back(std::move(e));
      }
    impl_ = bandImpl + " (" + std::to_string(bands_.size()) + " bands of " + std::to_string(rows) + " rows)";
    return true;
  }

  // The weights packed as a band's primitive wants them: the layer's packing, or another copy (oneDNN may pick
  // another implementation for a shorter height, e.g. jit_int8 where the whole layer ran brgconv).
  dnnl::memory bandWeights(const Tensor& w, const ConvGeom& g, dt inDt, const dnnl::memory::desc& packed) {
    if (packed == weights_.get_desc()) return weights_;
    for (const dnnl::memory& m : bandWeights_)
      if (m.get_desc() == packed) return m;
    dnnl::memory user(userWeightsMd(g, inDt), engine(), const_cast<uint8_t*>(w.data()));
    bandWeights_.push_back(dnnl::memory(packed, engine()));
    dnnl::reorder(user, bandWeights_.back()).execute(stream(), user, bandWeights_.back());
    stream().wait();
    return bandWeights_.back();
  }

  // Bands (of all images) split over the threads, each band's epilogue on the thread that computed it; inside
  // the parallel region oneDNN runs each band's primitive on the calling thread.
  Status runBands(const std::vector<std::vector<TensorView>>& in, const TensorView& out) {
    const int64_t items = g_.N * int64_t(bands_.size());
    const int threads = omp_get_max_threads();
    if (int(bandThreads_.size()) < threads) bandThreads_.resize(size_t(threads));
    int bad = 0, failed = 0;
#pragma omp parallel for schedule(static) reduction(| : bad, failed) if (threads > 1)
    for (int64_t item = 0; item < items; ++item) {
      const int r = runBand(in, out, item / int64_t(bands_.size()), size_t(item % int64_t(bands_.size())));
      failed |= int(r < 0), bad |= int(r > 0);
    }
    if (failed) return Status::internal(impl_ + ": oneDNN convolution failed");
    return bad ? rerunOnReference() : Status::ok();
  }

  // Band b of image n on the calling thread: 0 done, 1 a REQUIRE failed (rerun on the reference), -1 oneDNN failed.
  int runBand(const std::vector<std::vector<TensorView>>& in, const TensorView& out, int64_t n, size_t b) {
    const ConvGeom& g = g_;
    const Band& band = bands_[b];
    BandThread& t = bandThreads_[size_t(omp_get_thread_num())];
    const int8_t* x = in[0][0].as<const int8_t>();
    int32_t* acc = accScratch(bandRows_ * g.OW * g.OC);
    try {
      if (!t.ready) {
        for (const BandPrim& p : bandPrims_) {
          t.src.push_back(dnnl::memory(p.pd.src_desc(), engine(), nullptr));
          t.dst.push_back(dnnl::memory(p.pd.dst_desc(), engine(), nullptr));
          t.scratch.push_back(dnnl::memory(p.pd.scratchpad_desc(), engine()));
        }
        t.epi = bandEpi_.empty() ? std::vector<IntEpilogue>{intEpi_} : bandEpi_;
        t.ready = true;
      }
      const BandPrim& p = bandPrims_[band.prim];
      dnnl::memory &src = t.src[band.prim], &dst = t.dst[band.prim];
      src.set_data_handle(const_cast<int8_t*>(x + (n * g.IH + band.inRow0) * g.IW * g.IC));
      dst.set_data_handle(acc);
      p.prim.execute(stream(),
                     {{DNNL_ARG_SRC, src},
                      {DNNL_ARG_WEIGHTS, p.weights},
                      {DNNL_ARG_DST, dst},
                      {DNNL_ARG_SCRATCHPAD, t.scratch[band.prim]}});
      stream().wait();
    } catch (const dnnl::error&) { return -1; }
    const int64_t firstRow = (n * g.OH + band.r0) * g.OW, rows = (band.r1 - band.r0) * g.OW;
    if (mayBeLarge_) recomputeLargeAccumulators(x, in[0][1].as<const int8_t>(), acc, firstRow, rows);
    TensorView o = out;
    o.data = static_cast<uint8_t*>(out.data) + size_t(firstRow * g.OC) * storageBytes(out.dtype);
    const IntEpilogue& e = t.epi[bandEpi_.empty() ? 0 : b];
    return runIntEpilogue(e, acc, rows, o, intEpi_.runtimeBias ? in[0][2].data : nullptr) ? 0 : 1;
  }

  // oneDNN's int8 kernels pass the s32 accumulator through f32 on the way to an s32 destination (measured:
  // brgconv, jit_int8 and jit_deconvolution all lose bits once |acc| > 2^24), while applying the s8s8
  // compensation 128 * sum(w) in integers. A result r with |r| + 128 * |sum(w)| < 2^23 cannot have come from
  // a rounded value (the rounding error of anything beyond 2^24 exceeds the margin), so it is exact; the rare
  // others are recomputed exactly here. The threshold is per output channel.
  void setLargeAccumulatorThresholds(const ConvGeom& g, const Tensor& w) {
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

  // acc holds `rows` output positions from position firstRow on (the whole layer, or one band).
  void recomputeLargeAccumulators(const int8_t* x, const int8_t* w, int32_t* acc, int64_t firstRow,
                                  int64_t rows) const {
    const int64_t C = channels_, perImage = g_.OH * g_.OW;
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
  int32_t exactAccumulator(const int8_t* x, const int8_t* w, int64_t n, int64_t oy, int64_t ox, int64_t oc) const {
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

  void packWeights(const OpChain& c, const ConvGeom& g, dt wdt, const dnnl::memory::desc& packed) {
    const Tensor* w = constOperand(c, 0, 1);
    weightShape_ = w->shape();
    dnnl::memory user(userWeightsMd(g, wdt), engine(), const_cast<uint8_t*>(w->data()));
    weights_ = dnnl::memory(packed, engine());
    dnnl::reorder(user, weights_).execute(stream(), user, weights_);
    stream().wait();
  }

  void setBias(const OpChain& c, const ConvGeom& g, const dnnl::memory::desc& md, const Tensor* biasT) {
    if (!biasT) {  // run-time bias with one value per channel
      runtimeBias_ = true;
      bias_ = dnnl::memory(md, engine(), nullptr);
    } else {
      bias_ = dnnl::memory(md, engine());
      const size_t elem = storageBytes(biasT->dtype());
      uint8_t* dstp = static_cast<uint8_t*>(bias_.get_data_handle());
      for (int64_t ch = 0; ch < g.OC; ++ch)
        std::memcpy(dstp + size_t(ch) * elem, biasT->data() + (g.BC == 1 ? 0 : size_t(ch) * elem), elem);
    }
    args_[DNNL_ARG_BIAS] = bias_;
  }

  dnnl::primitive prim_;
  dnnl::memory src_, weights_, bias_, dst_;
  Shape weightShape_;  // the weights' TOSA shape (unpackConstant)
  std::vector<dnnl::memory> binaries_;
  std::unordered_map<int, dnnl::memory> args_;
  bool isInt_ = false, runtimeBias_ = false;
  bool ownTranspose_ = false;
  TransposeConvInt8Geometry ownGeom_;
  std::vector<int32_t> ownWeights_, ownInit_;
  FloatEpilogue floatEpi_;
  IntEpilogue intEpi_;
  int64_t rows_ = 0, channels_ = 0;
  ConvGeom g_;
  std::vector<Band> bands_;  // empty: one primitive over the whole layer
  std::vector<BandPrim> bandPrims_;
  std::vector<dnnl::memory> bandWeights_;  // packings other than weights_ that band primitives want
  std::vector<IntEpilogue> bandEpi_;       // per band, when the zero point's compensation has position classes
  std::vector<BandThread> bandThreads_;
  int64_t bandRows_ = 0;
  std::vector<int64_t> threshold_;       // per output channel
  std::vector<int64_t> thresholdLanes_;  // threshold_ repeated over a block of rows
  bool mayBeLarge_ = true;               // some accumulator could reach its threshold (else no scan)
  double flops_ = 0;
  std::string impl_;
};

// The most fusion first; fewer fused ops when oneDNN declines a post-op combination.
Result<CompiledKernel> compileConv(const OpChain& c, ConvKind kind) {
  auto g = parseConv(c, kind);
  if (!g || (g->isInt() && !exactInt8())) return CompiledKernel{};
  for (int maxOps = int(c.ops.size()) - 1; maxOps >= 0; --maxOps)
    for (int mode : {0, 1, 2}) {  // sum post-op on brgconv, binary post-ops, neither
      auto k = std::make_unique<ConvKernel>();
      if (k->build(c, *g, maxOps, /*allowBinary=*/mode < 2, /*allowSum=*/mode == 0))
        return compiledKernel(std::move(k));
    }
  return CompiledKernel{};
}

}  // namespace

Result<CompiledKernel> compileOneDnnConv2d(const OpChain& c) { return compileConv(c, ConvKind::Conv2d); }
Result<CompiledKernel> compileOneDnnDepthwise(const OpChain& c) { return compileConv(c, ConvKind::Depthwise); }
Result<CompiledKernel> compileOneDnnTransposeConv(const OpChain& c) { return compileConv(c, ConvKind::Transpose); }

}  // namespace tosakit::fast
