// tosa.matmul on oneDNN: [N,H,C] x [N,C,W] -> [N,H,W]. A constant B is packed once; a run-time B is read in
// place. int8 (VNNI only, see onednn/common.h): s32 results made exact and the zero points A_zp/B_zp applied
// by our own pass, then the exact integer epilogue (RESCALE, CLAMP); floats with the post-op epilogue (ADD,
// CLAMP).
#include <algorithm>
#include <cstdlib>

#include "fast/kernel_factories.h"
#include "fast/kernels/common.h"
#include "fast/onednn/common.h"
#include "fast/onednn/unpack.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

bool supportedTypes(DType in, DType out) {
  if (in == DType::FP32) return out == DType::FP32;
  if (in == DType::BF16) return out == DType::FP32;
  if (in == DType::FP16) return out == DType::FP16 || out == DType::FP32;
  if (in == DType::I8) return out == DType::I32 && exactInt8();
  return false;
}

struct MatmulGeom {
  DType inT, outT;
  int64_t N, H, C, W;
  int64_t aZp, bZp;
  bool constB;
};

std::optional<MatmulGeom> parseMatmul(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.size() != 4 || op.results.size() != 1) return std::nullopt;
  const ir::ValueType &a = operandType(c, 0, 0), &b = operandType(c, 0, 1), &o = resultType(c, 0);
  if (!isStatic(a) || !isStatic(b) || !isStatic(o) || a.rank() != 3 || b.rank() != 3 || o.rank() != 3)
    return std::nullopt;
  if (a.dtype != b.dtype || !supportedTypes(a.dtype, o.dtype)) return std::nullopt;
  auto aZp = zeroPoint(c, 0, 2), bZp = zeroPoint(c, 0, 3);
  if (!aZp || !bZp) return std::nullopt;
  MatmulGeom g{
      a.dtype, o.dtype, a.dims[0], a.dims[1], a.dims[2], b.dims[2], *aZp, *bZp, constOperand(c, 0, 1) != nullptr};
  if (b.dims[0] != g.N || b.dims[1] != g.C || o.dims != Shape{g.N, g.H, g.W}) return std::nullopt;
  return g;
}

class MatmulKernel : public OpKernel {
 public:
  std::string implName() const override { return impl_; }
  double flops() const override { return flops_; }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    a_.set_data_handle(in[0][0].data);
    if (!constB_) b_.set_data_handle(in[0][1].data);
    for (size_t i = 0; i < binaries_.size(); ++i) {
      const auto& bo = floatEpi_.binaryOperands[i];
      binaries_[i].set_data_handle(in[bo.k][bo.j].data);
    }
    const bool accInOut = isInt_ && !(intEpi_.rescale && intEpi_.outType != DType::I32);
    int32_t* acc = isInt_ ? (accInOut ? out[0].as<int32_t>() : accScratch(rows_ * channels_)) : nullptr;
    dst_.set_data_handle(isInt_ ? static_cast<void*>(acc) : out[0].data);
    try {
      prim_.execute(stream(), args_);
      stream().wait();
    } catch (const dnnl::error& e) { return Status::internal(impl_ + ": " + e.what()); }
    if (isInt_) makeExact(in[0][0].as<int8_t>(), in[0][1].as<int8_t>(), acc);
    if (isInt_ && intEpi_.needsPass() && !runIntEpilogue(intEpi_, acc, rows_, out[0], nullptr))
      return rerunOnReference();  // a REQUIRE (apply_scale_32's range, acc + bias overflow): the reference decides
    if (!isInt_) runManualFloatOps(floatEpi_, in, out[0]);
    return Status::ok();
  }

  // A constant float B lives only packed; int8 B is read as TOSA stores it by makeExact's recompute.
  std::vector<std::pair<int, int>> packedConstants() const override {
    if (!constB_ || isInt_) return {};
    return {{0, 1}};
  }
  Result<Tensor> unpackConstant(int op, int operand) const override {
    if (op != 0 || operand != 1 || !constB_ || isInt_) return OpKernel::unpackConstant(op, operand);
    return unpackWeights(b_, dnnl::memory::desc({g_.N, g_.C, g_.W}, *toDnnl(g_.inT), tag::abc), g_.inT,
                         {g_.N, g_.C, g_.W});
  }

  bool build(const OpChain& c, const MatmulGeom& g, int maxOps) {
    isInt_ = g.inT == DType::I8;
    constB_ = g.constB;
    const dt inDt = *toDnnl(g.inT), outDt = *toDnnl(g.outT);
    const dnnl::memory::desc aMd({g.N, g.H, g.C}, inDt, tag::abc);
    const dnnl::memory::desc bUser({g.N, g.C, g.W}, inDt, tag::abc);
    const dnnl::memory::desc bMd = constB_ ? dnnl::memory::desc({g.N, g.C, g.W}, inDt, tag::any) : bUser;
    const dnnl::memory::desc dstMd({g.N, g.H, g.W}, outDt, tag::abc);
    dnnl::primitive_attr attr;
    if (isInt_) {
      intEpi_ = planIntEpilogue(c, g.W, nullptr);
      if (intEpi_.absorbed > maxOps) return false;

    } else {
      floatEpi_ = planFloatEpilogue(c, dstMd, 2, maxOps);
      attr.set_post_ops(floatEpi_.postOps);
    }
    try {
      dnnl::matmul::desc d(aMd, bMd, dstMd);
      dnnl::matmul::primitive_desc pd(d, attr, engine());
      if (isReference(pd)) return false;
      impl_ = dnn::implName(pd);
      prim_ = dnnl::matmul(pd);
      a_ = dnnl::memory(aMd, engine(), nullptr);
      dst_ = dnnl::memory(dstMd, engine(), nullptr);
      if (constB_) {
        const Tensor* bT = constOperand(c, 0, 1);
        dnnl::memory user(bUser, engine(), const_cast<uint8_t*>(bT->data()));
        b_ = dnnl::memory(pd.weights_desc(), engine());
        dnnl::reorder(user, b_).execute(stream(), user, b_);
        stream().wait();
      } else {
        b_ = dnnl::memory(bUser, engine(), nullptr);
      }
      args_ = {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, dst_}};
      binaries_.clear();
      for (const auto& b : floatEpi_.binaryOperands) {
        binaries_.push_back(dnnl::memory(b.md, engine(), nullptr));
        args_[DNNL_ARG_ATTR_MULTIPLE_POST_OP(b.postOpIndex) | DNNL_ARG_SRC_1] = binaries_.back();
      }
    } catch (const dnnl::error&) { return false; }
    rows_ = g.N * g.H;
    g_ = g;
    if (isInt_ && constB_) columnSums(reinterpret_cast<const int8_t*>(constOperand(c, 0, 1)->data()));
    channels_ = g.W;
    flops_ = 2.0 * double(g.N * g.H) * double(g.C * g.W);
    return true;
  }

  int absorbed() const { return isInt_ ? intEpi_.absorbed : floatEpi_.absorbed; }

 private:
  // Makes the s32 results exact and applies the zero points (oneDNN runs without them):
  //  - oneDNN passes the s32 accumulator through f32 (and its zero-point compensation too): a raw sum r with
  //    |r| + 128 * |sum_c B[n,c,w]| < 2^23 is exact (see onednn/conv_exact_int8.h); the others are recomputed here;
  //  - sum_c (a - A_zp)(b - B_zp) = sum ab - B_zp * sum_c a - A_zp * sum_c b + C * A_zp * B_zp, in wrapping
  //    int32 arithmetic like the accumulator.
  void makeExact(const int8_t* a, const int8_t* b, int32_t* acc) {
    const int64_t N = g_.N, H = g_.H, C = g_.C, W = g_.W;
    if (!constB_) columnSums(b);
    const uint32_t both = uint32_t(C) * uint32_t(g_.aZp) * uint32_t(g_.bZp);
    parallelItems(N * H, N * H * W > (1 << 15), [&](int64_t item) {
      const int64_t n = item / H, h = item % H;
      const int8_t* pa = a + (n * H + h) * C;
      int32_t* pr = acc + (n * H + h) * W;
      const int64_t* colSum = colSum_.data() + n * W;
      const int64_t* thr = threshold_.data() + n * W;
      uint32_t rowSum = 0;
      if (g_.bZp != 0)
        for (int64_t c = 0; c < C; ++c) rowSum += uint32_t(int32_t(pa[c]));
      for (int64_t w = 0; w < W; ++w) {
        int64_t v = pr[w];
        if ((v < 0 ? -v : v) >= thr[w]) {
          uint32_t exact = 0;
          for (int64_t c = 0; c < C; ++c) exact += uint32_t(int32_t(pa[c]) * int32_t(b[(n * C + c) * W + w]));
          v = int32_t(exact);
        }
        if (g_.aZp != 0 || g_.bZp != 0)
          v = int32_t(uint32_t(v) - uint32_t(g_.bZp) * rowSum - uint32_t(g_.aZp) * uint32_t(colSum[w]) + both);
        pr[w] = int32_t(v);
      }
    });
  }

  // Per (n, w): sum_c B[n, c, w] and the exactness threshold derived from it.
  void columnSums(const int8_t* b) {
    const int64_t N = g_.N, C = g_.C, W = g_.W;
    colSum_.assign(size_t(N * W), 0);
    threshold_.assign(size_t(N * W), 0);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t w = 0; w < W; ++w) colSum_[size_t(n * W + w)] += b[(n * C + c) * W + w];
    for (size_t i = 0; i < colSum_.size(); ++i)
      threshold_[i] = std::max<int64_t>(0, (int64_t(1) << 23) - 128 * std::abs(colSum_[i]));
  }

  dnnl::primitive prim_;
  dnnl::memory a_, b_, dst_;
  std::vector<dnnl::memory> binaries_;
  MatmulGeom g_{};
  std::vector<int64_t> colSum_, threshold_;
  std::unordered_map<int, dnnl::memory> args_;
  bool isInt_ = false, constB_ = false;
  FloatEpilogue floatEpi_;
  IntEpilogue intEpi_;
  int64_t rows_ = 0, channels_ = 0;
  double flops_ = 0;
  std::string impl_;
};

}  // namespace

Result<CompiledKernel> compileOneDnnMatmul(const OpChain& c) {
  auto g = parseMatmul(c);
  if (!g) return CompiledKernel{};
  for (int maxOps = int(c.ops.size()) - 1; maxOps >= 0; --maxOps) {
    auto k = std::make_unique<MatmulKernel>();
    if (k->build(c, *g, maxOps)) return compiledKernel(std::move(k));
  }
  return CompiledKernel{};
}

}  // namespace tosakit::fast
