// int8 1x1 conv2d (stride 1, no padding) whose s32 result would not fit the cache: a oneDNN s8 x s8 -> s32
// matmul over blocks of rows (~128 KB of accumulators each), every block's exact epilogue (bias, RESCALE,
// CLAMP: kernels/int8/int8.h) run right after it while its accumulators are in L2, blocks split over the threads.
// The whole-layer convolution (onednn/conv.cpp) writes the layer's s32 tensor in full before the epilogue reads
// it back: 4.8 MB on mobilenet_v2's 112x112x96 expansion, memory-bound on both passes.
//
// Exactness: oneDNN's int8 kernels pass the s32 accumulator through f32 on the way to an s32 destination
// (onednn/conv.cpp measured it: bits are lost once |acc| > 2^24) and apply the s8s8 compensation 128 * sum(w)
// in integers. This kernel takes a layer only when no accumulator can come near that: 128 * (sum |w| + |sum w|)
// < 2^23 for every output channel (|acc| <= 128 * sum |w| for any int8 input), so every s32 result is the
// exact sum of x * w; other layers are left to the convolution kernel, which recomputes large accumulators.
// The input zero point has no padding to care about: acc - input_zp * sum(w) is folded into the bias per
// channel (in int64; a bias that would leave i32 declines the layer), and the epilogue's i32 overflow check of
// acc + bias is then the reference's REQUIRE on the true sum. Weight zero points other than 0 are declined.
#include <omp.h>

#include <algorithm>
#include <cstdlib>

#include "fast/kernels/common.h"
#include "fast/kernels/int8/pointwise.h"
#include "fast/onednn/common.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

constexpr int64_t kMinAccBytes = 512 * 1024;  // smaller s32 results stay in the cache anyway: one primitive
constexpr int64_t kBlockAccBytes = 128 * 1024;

class Int8PointwiseKernel : public OpKernel {
 public:
  std::string implName() const override { return impl_; }
  double flops() const override { return 2.0 * double(M_ * IC_ * OC_); }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int8_t* x = in[0][0].as<const int8_t>();
    void* y = out[0].data;
    const int64_t blocks = (M_ + Mb_ - 1) / Mb_;
    const int threads = omp_get_max_threads();
    if (int(perThread_.size()) < threads) perThread_.resize(size_t(threads));
    // Below ~2M multiply-accumulates an OpenMP region costs more than it saves (docs/FAST.md, Threads).
    const bool parallel = flops() >= 4e6;
    int bad = 0, failed = 0;
#pragma omp parallel for schedule(static) reduction(| : bad, failed) if (parallel)
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t r0 = b * Mb_, rows = std::min(Mb_, M_ - r0);
      int32_t* acc = accScratch(Mb_ * OC_);
      if (!matmul(omp_get_thread_num(), rows == Mb_, x + r0 * IC_, acc)) {
        failed |= 1;
        continue;
      }
      bad |= int(!runIntEpilogueRows(epi_, acc, rows, y, r0));
    }
    if (failed) return Status::internal(impl_ + ": oneDNN matmul failed");
    return bad ? rerunOnReference() : Status::ok();
  }

  bool build(const OpChain& c, int64_t M, int64_t IC, int64_t OC, const Tensor& w) {
    M_ = M, IC_ = IC, OC_ = OC;
    Mb_ = std::max<int64_t>(32, kBlockAccBytes / (4 * OC));
    if (Mb_ >= M) return false;  // one block: the convolution kernel does the same
    const int64_t tail = M % Mb_;
    const dnnl::memory::desc user({IC, OC}, dt::s8, tag::ba);  // TOSA's [OC, 1, 1, IC]
    try {
      if (!prepare(main_, Mb_, user, w)) return false;
      if (tail && !prepare(tail_, tail, user, w)) return false;
    } catch (const dnnl::error&) { return false; }
    impl_ = "fast:pointwise_int8(" + dnn::implName(main_.pd) + ")";
    return true;
  }

  IntEpilogue epi_;
  int absorbed() const { return epi_.absorbed; }

 private:
  struct Prim {
    dnnl::matmul::primitive_desc pd;
    dnnl::matmul prim;
    dnnl::memory weights;  // packed as this primitive wants them
    dnnl::memory::desc src, dst;
  };
  struct ThreadMem {
    bool ready = false;
    dnnl::memory srcMain, dstMain, scratchMain, srcTail, dstTail, scratchTail;
  };

  bool prepare(Prim& p, int64_t rows, const dnnl::memory::desc& user, const Tensor& w) {
    p.src = dnnl::memory::desc({rows, IC_}, dt::s8, tag::ab);
    p.dst = dnnl::memory::desc({rows, OC_}, dt::s32, tag::ab);
    const dnnl::memory::desc wMd({IC_, OC_}, dt::s8, tag::any);
    // Blocks run concurrently on the threads: each thread passes its own scratchpad (the library-managed one
    // is shared by the primitive's executions).
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    p.pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(p.src, wMd, p.dst), attr, engine());
    if (isReference(p.pd)) return false;
    p.prim = dnnl::matmul(p.pd);
    dnnl::memory u(user, engine(), const_cast<uint8_t*>(w.data()));
    p.weights = dnnl::memory(p.pd.weights_desc(), engine());
    dnnl::reorder(u, p.weights).execute(stream(), u, p.weights);
    stream().wait();
    return true;
  }

  // One block on the calling thread (inside the parallel region oneDNN runs it sequentially); each thread has
  // its own memory objects (their data handles change per block).
  bool matmul(int thread, bool mainBlock, const int8_t* src, int32_t* acc) {
    ThreadMem& t = perThread_[size_t(thread)];
    try {
      if (!t.ready) {
        t.srcMain = dnnl::memory(main_.src, engine(), nullptr), t.dstMain = dnnl::memory(main_.dst, engine(), nullptr);
        t.scratchMain = dnnl::memory(main_.pd.scratchpad_desc(), engine());
        if (tail_.prim) {
          t.srcTail = dnnl::memory(tail_.src, engine(), nullptr);
          t.dstTail = dnnl::memory(tail_.dst, engine(), nullptr);
          t.scratchTail = dnnl::memory(tail_.pd.scratchpad_desc(), engine());
        }
        t.ready = true;
      }
      Prim& p = mainBlock ? main_ : tail_;
      dnnl::memory& s = mainBlock ? t.srcMain : t.srcTail;
      dnnl::memory& d = mainBlock ? t.dstMain : t.dstTail;
      s.set_data_handle(const_cast<int8_t*>(src));
      d.set_data_handle(acc);
      dnnl::memory& scratch = mainBlock ? t.scratchMain : t.scratchTail;
      p.prim.execute(
          stream(),
          {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, p.weights}, {DNNL_ARG_DST, d}, {DNNL_ARG_SCRATCHPAD, scratch}});
      stream().wait();
    } catch (const dnnl::error&) { return false; }
    return true;
  }

  int64_t M_ = 0, IC_ = 0, OC_ = 0, Mb_ = 0;
  Prim main_, tail_;
  std::vector<ThreadMem> perThread_;
  std::string impl_;
};

}  // namespace

Result<CompiledKernel> compileInt8Pointwise(const OpChain& c) {
  if (!exactInt8()) return CompiledKernel{};
  const std::optional<Int8Pointwise> g = parseInt8Pointwise(c);
  if (!g) return CompiledKernel{};
  const int64_t M = g->M, IC = g->IC, OC = g->OC;
  const Tensor *w = g->weights, *bias = g->bias;
  if (M * OC * 4 < kMinAccBytes) return CompiledKernel{};

  // Exactness (see the top): every accumulator far from f32's 2^24; the zero point folded into the bias.
  const int8_t* wp = reinterpret_cast<const int8_t*>(w->data());
  std::vector<int64_t> folded(static_cast<size_t>(OC));
  for (int64_t oc = 0; oc < OC; ++oc) {
    int64_t sum = 0, absSum = 0;
    for (int64_t i = 0; i < IC; ++i) {
      const int64_t v = wp[oc * IC + i];
      sum += v, absSum += std::abs(v);
    }
    if (128 * (absSum + std::abs(sum)) >= (int64_t(1) << 23)) return CompiledKernel{};
    folded[size_t(oc)] = bias->getInt(bias->size() == 1 ? 0 : oc) - g->inputZp * sum;
    if (folded[size_t(oc)] < INT32_MIN || folded[size_t(oc)] > INT32_MAX) return CompiledKernel{};
  }

  auto k = std::make_unique<Int8PointwiseKernel>();
  if (!k->build(c, M, IC, OC, *w)) return CompiledKernel{};
  k->epi_ = planIntEpilogue(c, OC, nullptr);
  k->epi_.biasTable.assign(folded.begin(), folded.end());
  prepareIntEpilogue(k->epi_);
  return compiledKernel(std::move(k));
}

std::optional<Int8Pointwise> parseInt8Pointwise(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.size() != 5 || op.results.size() != 1) return std::nullopt;
  const ir::ValueType &in = operandType(c, 0, 0), &wt = operandType(c, 0, 1), &out = resultType(c, 0);
  if (!isStatic(in) || !isStatic(wt) || !isStatic(out) || in.rank() != 4 || wt.rank() != 4 || out.rank() != 4)
    return std::nullopt;
  if (in.dtype != DType::I8 || wt.dtype != DType::I8 || out.dtype != DType::I32) return std::nullopt;
  auto acc = accType(op);
  const Tensor *w = constOperand(c, 0, 1), *bias = constOperand(c, 0, 2);
  auto izp = zeroPoint(c, 0, 3), wzp = zeroPoint(c, 0, 4);
  if (!acc || *acc != DType::I32 || !w || !bias || bias->dtype() != DType::I32 || !izp || !wzp || *wzp != 0)
    return std::nullopt;
  const int64_t N = in.dims[0], H = in.dims[1], W = in.dims[2], IC = in.dims[3], OC = wt.dims[0];
  if (wt.dims != Shape{OC, 1, 1, IC} || out.dims != Shape{N, H, W, OC}) return std::nullopt;
  if (bias->size() != OC && bias->size() != 1) return std::nullopt;
  if (op.intArrayAttr("pad") != std::vector<int64_t>{0, 0, 0, 0} ||
      op.intArrayAttr("stride") != std::vector<int64_t>{1, 1})
    return std::nullopt;
  return Int8Pointwise{N * H * W, IC, OC, *izp, w, bias};
}

// Our own VNNI micro-kernel first (kernels/int8/pointwise_vnni.cpp), then the blocked oneDNN matmuls.

}  // namespace tosakit::fast
