// The OpKernels of our own fp32 convolutions (kernels/f32/depthwise.cpp, kernels/f32/transpose_conv.cpp): their
// weights packed at compile time, and the float epilogue after the op planned with the oneDNN kernels' planner
// (onednn/common.h) but computed by the kernels themselves, in registers.
#include <cmath>
#include <cstring>

#include "fast/isa_dispatch.h"
#include "fast/kernel_factories.h"
#include "fast/kernels/conv_geometry.h"
#include "fast/kernels/f32/depthwise.h"
#include "fast/kernels/f32/transpose_conv.h"
#include "fast/onednn/common.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

// What our own fp32 convolution kernels share: a per-channel copy of the bias and the float epilogue
// (ADD/MUL/CLAMP after the op) that the kernel applies itself, its run-time operands gathered per run.
class OwnF32ConvKernel : public OpKernel {
 public:
  int absorbed() const { return epi_.absorbed; }

 protected:
  void copyBiasAndPlanEpilogue(const OpChain& c, const ConvGeom& g, const Tensor& b) {
    bias_.resize(size_t(g.OC));
    const float* bp = reinterpret_cast<const float*>(b.data());
    for (int64_t ch = 0; ch < g.OC; ++ch) bias_[size_t(ch)] = bp[g.BC == 1 ? 0 : ch];
    const dnnl::memory::desc unused;
    epi_ = planFloatEpilogue(c, unused, 1, int(c.ops.size()) - 1, /*allowBinary=*/false, /*allowPostOps=*/false);
    operandMaxAbs_.clear();
    for (const FloatEpilogueOp& m : epi_.manual) {
      const Tensor* t = m.kind == FloatEpilogueOp::Kind::Clamp ? nullptr : constOperand(c, m.k, m.j);
      operandMaxAbs_.push_back(t ? maxAbsValue(*t) : INFINITY);
    }
    maxAbsBias_ = maxAbsValue(b);
  }
  // |result| <= the epilogue's bound of accBound (|bias + sum of products|), INFINITY when it cannot be bounded.
  double epilogueBound(double accBound) const { return epilogueAbsBound(epi_.manual, operandMaxAbs_, accBound); }
  double maxAbsBias_ = 0;
  const std::vector<const float*>& epilogueOperands(const std::vector<std::vector<TensorView>>& in) {
    operands_.clear();
    for (const auto& m : epi_.manual)
      operands_.push_back(m.kind == FloatEpilogueOp::Kind::Clamp ? nullptr : in[m.k][m.j].as<const float>());
    return operands_;
  }

  std::vector<float> bias_;
  FloatEpilogue epi_;

 private:
  std::vector<const float*> operands_;
  std::vector<double> operandMaxAbs_;  // per epi_.manual op: max|constant operand|, INFINITY when run-time
};

// fp32 DEPTHWISE_CONV2D with multiplier 1 on our own kernel (kernels/f32/depthwise.cpp): oneDNN 2.6's brdgmm_dw
// reached 1-17 GFLOP/s on these NHWC layers. The whole float epilogue (ADD/MUL/CLAMP) runs in its registers.
class DepthwiseF32Kernel : public OwnF32ConvKernel {
 public:
  std::string implName() const override { return withVectorIsa("fast:depthwise_f32"); }
  double flops() const override { return 2.0 * double(g_.N * g_.OH * g_.OW * g_.C) * double(g_.KH * g_.KW); }

  static bool applies(const OpChain&, const ConvGeom& g) {
    return g.kind == ConvKind::Depthwise && g.inT == DType::FP32 && g.outT == DType::FP32 && g.OC == g.IC;
  }

  bool build(const OpChain& c, const ConvGeom& g) {
    const Tensor *w = constOperand(c, 0, 1), *b = constOperand(c, 0, 2);
    if (!w || !b) return false;
    g_.N = g.N, g_.IH = g.IH, g_.IW = g.IW, g_.C = g.IC, g_.KH = g.KH, g_.KW = g.KW, g_.OH = g.OH, g_.OW = g.OW;
    g_.strideY = g.strides[0], g_.strideX = g.strides[1];
    g_.dilationY = g.dilates[0] + 1, g_.dilationX = g.dilates[1] + 1;
    g_.padTop = g.padL[0], g_.padLeft = g.padL[1];
    weights_.resize(size_t(w->size()));
    std::memcpy(weights_.data(), w->data(), weights_.size() * sizeof(float));  // [KH, KW, C, 1] as it is
    weightShape_ = w->shape();
    biasShape_ = b->shape();
    copyBiasAndPlanEpilogue(c, g, *b);
    // The largest sum of |weights| over one channel's taps (TOSA [KH, KW, C, 1]).
    std::vector<double> sumAbs(size_t(g_.C), 0.0);
    for (size_t i = 0; i < weights_.size(); ++i) sumAbs[i % size_t(g_.C)] += std::fabs(double(weights_[i]));
    maxSumAbsW_ = 0;
    for (double v : sumAbs) maxSumAbsW_ = std::isfinite(v) ? std::max(maxSumAbsW_, v) : INFINITY;
    return true;
  }

  // With |x| <= xBound, |bias + sum of x * w| <= xBound * max sum|w| + max|bias|, then the epilogue's bound.
  double resultAbsBound(double xBound) const override { return epilogueBound(xBound * maxSumAbsW_ + maxAbsBias_); }

  // Weights and a per-channel bias are copies of their own, read from there at run time.
  std::vector<std::pair<int, int>> packedConstants() const override {
    std::vector<std::pair<int, int>> p{{0, 1}};
    if (biasPerChannel()) p.push_back({0, 2});
    return p;
  }
  Result<Tensor> unpackConstant(int op, int operand) const override {
    if (op == 0 && operand == 1) return copied(weights_, weightShape_);
    if (op == 0 && operand == 2 && biasPerChannel()) return copied(bias_, biasShape_);
    return OpKernel::unpackConstant(op, operand);
  }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    depthwiseF32(g_, in[0][0].as<const float>(), weights_.data(), bias_.data(), out[0].as<float>(), epi_.manual,
                 epilogueOperands(in));
    return Status::ok();
  }

 private:
  bool biasPerChannel() const { return numElements(biasShape_) == int64_t(bias_.size()); }
  static Tensor copied(const std::vector<float>& v, const Shape& shape) {
    Tensor t(DType::FP32, shape);
    std::memcpy(t.data(), v.data(), t.byteSize());
    return t;
  }

  DepthwiseF32Geometry g_;
  std::vector<float> weights_;
  Shape weightShape_, biasShape_;  // TOSA shapes of the constants (unpackConstant)
  double maxSumAbsW_ = INFINITY;
};

// fp32 TRANSPOSE_CONV2D with kernel == stride and at most 96 taps per input pixel on our own kernel
// (kernels/f32/transpose_conv.cpp): oneDNN 2.6's strided matmuls ran PP-OCRv4 det's 24 -> 1 channel head at 3
// GFLOP/s and its 24 -> 24 upsampling at 22. The float epilogue (ADD/MUL/CLAMP) runs over each row in cache.
class TransposeF32Kernel : public OwnF32ConvKernel {
 public:
  std::string implName() const override { return withVectorIsa("fast:transpose_conv_f32"); }
  double flops() const override { return 2.0 * double(g_.N * g_.IH * g_.IW) * double(g_.IC * g_.OC * g_.KH * g_.KW); }

  static bool applies(const OpChain& c, const ConvGeom& g) {
    return isPerTapTransposeConv(c, g) && g.inT == DType::FP32 && g.outT == DType::FP32 &&
        transposeConvF32Applies(TransposeConvF32Geometry{g.N, g.IH, g.IW, g.IC, g.OC, g.KH, g.KW});
  }

  bool build(const OpChain& c, const ConvGeom& g) {
    const Tensor *w = constOperand(c, 0, 1), *b = constOperand(c, 0, 2);
    if (!w || !b) return false;
    g_ = TransposeConvF32Geometry{g.N, g.IH, g.IW, g.IC, g.OC, g.KH, g.KW};
    weights_ = packTransposeConvF32Weights(g_, reinterpret_cast<const float*>(w->data()));
    copyBiasAndPlanEpilogue(c, g, *b);
    return true;
  }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    transposeConvF32(g_, in[0][0].as<const float>(), weights_.data(), bias_.data(), out[0].as<float>(), epi_.manual,
                     epilogueOperands(in));
    return Status::ok();
  }

 private:
  TransposeConvF32Geometry g_;
  std::vector<float> weights_;
};

// An own kernel K built for the chain, or nothing when it does not take it.
template <typename K>
Result<CompiledKernel> compileOwnKernel(const OpChain& c, ConvKind kind) {
  auto g = parseConv(c, kind);
  if (!g || !K::applies(c, *g)) return CompiledKernel{};
  auto k = std::make_unique<K>();
  if (!k->build(c, *g)) return CompiledKernel{};
  return compiledKernel(std::move(k));
}

}  // namespace

Result<CompiledKernel> compileDepthwiseF32(const OpChain& c) {
  return compileOwnKernel<DepthwiseF32Kernel>(c, ConvKind::Depthwise);
}
Result<CompiledKernel> compileTransposeConvF32(const OpChain& c) {
  return compileOwnKernel<TransposeF32Kernel>(c, ConvKind::Transpose);
}

}  // namespace tosakit::fast
