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
#include "fast/onednn/conv_bands.h"
#include "fast/onednn/conv_exact_int8.h"
#include "fast/onednn/unpack.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

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
    if (!bands_.empty()) {
      const int r = bands_.run(in, out[0], intEpi_, large_);
      if (r < 0) return Status::internal(impl_ + ": oneDNN convolution failed");
      return r > 0 ? rerunOnReference() : Status::ok();
    }
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
    if (isInt_ && large_.mayBeLarge()) large_.recompute(in[0][0].as<int8_t>(), in[0][1].as<int8_t>(), acc, 0, rows_);
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
        addInputZeroPointCompensation(g, *constOperand(c, 0, 1), intEpi_);
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
    if (isInt_) large_.plan(g, *constOperand(c, 0, 1));
    if (isInt_ && bands_.build(*constOperand(c, 0, 1), g, inDt, intEpi_, impl_, weights_))
      impl_ = bands_.implName();
    else
      bands_.clear();  // the whole layer as one primitive
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
    large_.disable();  // the accumulator is exact int32 arithmetic: nothing to recompute
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
  ConvBands bands_;          // int8: the layer in bands of output rows (empty: one primitive over the whole layer)
  LargeAccumulators large_;  // int8: the recompute of accumulators oneDNN may have rounded
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
