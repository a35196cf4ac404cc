// int8 conv2d / depthwise_conv2d on oneDNN in bands of output rows (onednn/conv.cpp's ConvKernel).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "fast/kernels/conv_geometry.h"
#include "fast/kernels/int8/int8.h"
#include "fast/onednn/common.h"
#include "fast/onednn/conv_exact_int8.h"

namespace tosakit::fast::dnn {

// The weights as TOSA stores them, described for oneDNN, and the dims of a convolution's weights.
dnnl::memory::desc userWeightsMd(const ConvGeom& g, dt wdt);
dims weightsDims(const ConvGeom& g);

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
class ConvBands {
 public:
  // false: no bands (not an int8 conv2d/depthwise with an i8/i16 epilogue, a small result, a band that would meet
  // only padding, or no non-reference oneDNN implementation for a band); clear() then drops what was built.
  // layerImpl and layerWeights: the whole layer's primitive implementation and packed weights.
  bool build(const Tensor& w, const ConvGeom& g, dnnl::memory::data_type inDt, const IntEpilogue& epi,
             const std::string& layerImpl, const dnnl::memory& layerWeights);
  void clear() { bands_.clear(), bandPrims_.clear(), bandEpi_.clear(), bandWeights_.clear(); }
  bool empty() const { return bands_.empty(); }
  // The bands' implementation, e.g. "brgconv (12 bands of 4 rows)".
  const std::string& implName() const { return impl_; }
  // Every band of every image through epi: 0 done, 1 a REQUIRE failed (rerun on the reference), -1 oneDNN failed.
  int run(const std::vector<std::vector<TensorView>>& in, const TensorView& out, const IntEpilogue& epi,
          const LargeAccumulators& large);

 private:
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

  dnnl::memory bandWeights(const Tensor& w, const ConvGeom& g, dnnl::memory::data_type inDt,
                           const dnnl::memory::desc& packed);
  int runBand(const std::vector<std::vector<TensorView>>& in, const TensorView& out, const IntEpilogue& epi,
              const LargeAccumulators& large, int64_t n, size_t b);

  ConvGeom g_;
  dnnl::memory layerWeights_;
  std::string impl_;
  std::vector<Band> bands_;  // empty: one primitive over the whole layer
  std::vector<BandPrim> bandPrims_;
  std::vector<dnnl::memory> bandWeights_;  // packings other than the layer's that band primitives want
  std::vector<IntEpilogue> bandEpi_;       // per band, when the zero point's compensation has position classes
  std::vector<BandThread> bandThreads_;
  int64_t bandRows_ = 0;
};

}  // namespace tosakit::fast::dnn
