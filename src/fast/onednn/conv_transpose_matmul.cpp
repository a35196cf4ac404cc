// tosa.transpose_conv2d with kernel == stride and no out_pad as oneDNN matmuls, one per kernel tap.
#include <cstring>
#include <unordered_map>

#include "fast/kernel_factories.h"
#include "fast/kernels/conv_geometry.h"
#include "fast/onednn/common.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

// TRANSPOSE_CONV2D with kernel == stride and no out_pad (the upsampling layers of FPN-style detectors): every
// output pixel receives exactly one kernel tap, so the op is KH*KW matmuls [N*IH, IW, IC] x [IC, OC], each
// writing its tap's pixels of the output in place through a strided destination. oneDNN's deconvolution is
// 4-10x slower on these shapes. Float types only.
class TransposeAsMatmulKernel : public OpKernel {
 public:
  std::string implName() const override { return impl_; }
  double flops() const override { return flops_; }

  bool build(const OpChain& c, const ConvGeom& g, int maxOps) {
    g_ = g;
    const dt t = *toDnnl(g.inT);
    elem_ = int64_t(storageBytes(g.outT));
    const dnnl::memory::desc srcMd({g.N * g.IH, g.IW, g.IC}, t, tag::abc);
    // Output pixel (n, iy*KH + ky, ix*KW + kx): batch b = n*IH + iy, row ix; the tap's offset added per run.
    const dnnl::memory::desc dstMd({g.N * g.IH, g.IW, g.OC}, t, dims{g.KH * g.OW * g.OC, g.KW * g.OC, 1});
    const dnnl::memory::desc wMd({1, g.IC, g.OC}, t, tag::any);
    const dnnl::memory::desc biasMd({1, 1, g.OC}, t, tag::abc);
    epi_ = planFloatEpilogue(c, dstMd, 2, maxOps);
    dnnl::primitive_attr attr;
    attr.set_post_ops(epi_.postOps);
    try {
      dnnl::matmul::desc d(srcMd, wMd, biasMd, dstMd);
      dnnl::matmul::primitive_desc pd(d, attr, engine());
      if (isReference(pd)) return false;
      impl_ = dnn::implName(pd) + " (transpose_conv2d as matmuls)";
      prim_ = dnnl::matmul(pd);
      // Weights of tap (ky, kx): W[ic][oc] = weight[oc, ky, kx, ic].
      const Tensor* w = constOperand(c, 0, 1);
      for (int64_t tap = 0; tap < g.KH * g.KW; ++tap) {
        dnnl::memory::desc user({1, g.IC, g.OC}, t, dims{g.IC * g.OC, 1, g.KH * g.KW * g.IC});
        dnnl::memory um(user, engine(), const_cast<uint8_t*>(w->data()) + tap * g.IC * elem_);
        weights_.push_back(dnnl::memory(pd.weights_desc(), engine()));
        dnnl::reorder(um, weights_.back()).execute(stream(), um, weights_.back());
      }
      stream().wait();
      bias_ = dnnl::memory(biasMd, engine());
      const Tensor* b = constOperand(c, 0, 2);
      uint8_t* bp = static_cast<uint8_t*>(bias_.get_data_handle());
      for (int64_t oc = 0; oc < g.OC; ++oc)
        std::memcpy(bp + oc * elem_, b->data() + (g.BC == 1 ? 0 : oc * elem_), size_t(elem_));
      src_ = dnnl::memory(srcMd, engine(), nullptr);
      dst_ = dnnl::memory(dstMd, engine(), nullptr);
      args_ = {{DNNL_ARG_SRC, src_}, {DNNL_ARG_WEIGHTS, weights_[0]}, {DNNL_ARG_BIAS, bias_}, {DNNL_ARG_DST, dst_}};
      for (const auto& bo : epi_.binaryOperands) {
        binaries_.push_back(dnnl::memory(bo.md, engine(), nullptr));
        args_[DNNL_ARG_ATTR_MULTIPLE_POST_OP(bo.postOpIndex) | DNNL_ARG_SRC_1] = binaries_.back();
      }
    } catch (const dnnl::error&) { return false; }
    flops_ = 2.0 * double(g.N * g.IH * g.IW) * double(g.IC * g.OC * g.KH * g.KW);
    return true;
  }

  int absorbed() const { return epi_.absorbed; }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    src_.set_data_handle(in[0][0].data);
    try {
      for (int64_t ky = 0; ky < g_.KH; ++ky)
        for (int64_t kx = 0; kx < g_.KW; ++kx) {
          const int64_t offset = (ky * g_.OW + kx) * g_.OC * elem_;
          args_[DNNL_ARG_WEIGHTS] = weights_[size_t(ky * g_.KW + kx)];
          dst_.set_data_handle(static_cast<uint8_t*>(out[0].data) + offset);
          for (size_t i = 0; i < binaries_.size(); ++i) {
            const auto& bo = epi_.binaryOperands[i];
            const bool perChannel = bo.md.dims()[0] == 1 && bo.md.dims()[1] == 1;
            binaries_[i].set_data_handle(static_cast<uint8_t*>(in[bo.k][bo.j].data) + (perChannel ? 0 : offset));
          }
          prim_.execute(stream(), args_);
        }
      stream().wait();
    } catch (const dnnl::error& e) { return Status::internal(impl_ + ": " + e.what()); }
    runManualFloatOps(epi_, in, out[0]);
    return Status::ok();
  }

 private:
  ConvGeom g_;
  int64_t elem_ = 4;
  dnnl::primitive prim_;
  dnnl::memory src_, bias_, dst_;
  std::vector<dnnl::memory> weights_, binaries_;
  std::unordered_map<int, dnnl::memory> args_;
  FloatEpilogue epi_;
  double flops_ = 0;
  std::string impl_;
};

}  // namespace

Result<CompiledKernel> compileTransposeConvAsMatmuls(const OpChain& c) {
  auto g = parseConv(c, ConvKind::Transpose);
  if (!g || !isPerTapTransposeConv(c, *g)) return CompiledKernel{};
  for (int maxOps = int(c.ops.size()) - 1; maxOps >= 0; --maxOps) {
    auto k = std::make_unique<TransposeAsMatmulKernel>();
    if (k->build(c, *g, maxOps)) return compiledKernel(std::move(k));
  }
  return CompiledKernel{};
}

}  // namespace tosakit::fast
