// int8 conv2d / depthwise_conv2d on oneDNN in bands of output rows (onednn/conv_bands.h).
#include "fast/onednn/conv_bands.h"

#include <algorithm>
#include <array>
#include <map>

#include <omp.h>

namespace tosakit::fast::dnn {

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

// false: no bands (not an int8 conv2d/depthwise with an i8/i16 epilogue, a small result, a band that would meet
// only padding, or no non-reference oneDNN implementation for a band).
bool ConvBands::build(const Tensor& w, const ConvGeom& g, dt inDt, const IntEpilogue& epi, const std::string& layerImpl,
                      const dnnl::memory& layerWeights) {
  g_ = g;
  layerWeights_ = layerWeights;
  const bool i8Out = epi.rescale && epi.outType != DType::I32;
  const int64_t rowBytes = g.OW * g.OC * int64_t(sizeof(int32_t));
  const int64_t minBytes = layerImpl.find("brgconv") != std::string::npos ? kBandMinAccBytesBrgconv : kBandMinAccBytes;
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
  if (!epi.rowClass.empty())
    for (const Band& b : bands_) {
      IntEpilogue e = epi;
      e.rowClass.assign(epi.rowClass.begin() + b.r0 * g.OW, epi.rowClass.begin() + b.r1 * g.OW);
      bandEpi_.push_back(std::move(e));
    }
  impl_ = bandImpl + " (" + std::to_string(bands_.size()) + " bands of " + std::to_string(rows) + " rows)";
  return true;
}

// The weights packed as a band's primitive wants them: the layer's packing, or another copy (oneDNN may pick
// another implementation for a shorter height, e.g. jit_int8 where the whole layer ran brgconv).
dnnl::memory ConvBands::bandWeights(const Tensor& w, const ConvGeom& g, dt inDt, const dnnl::memory::desc& packed) {
  if (packed == layerWeights_.get_desc()) return layerWeights_;
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
int ConvBands::run(const std::vector<std::vector<TensorView>>& in, const TensorView& out, const IntEpilogue& epi,
                   const LargeAccumulators& large) {
  const int64_t items = g_.N * int64_t(bands_.size());
  const int threads = omp_get_max_threads();
  if (int(bandThreads_.size()) < threads) bandThreads_.resize(size_t(threads));
  int bad = 0, failed = 0;
#pragma omp parallel for schedule(static) reduction(| : bad, failed) if (threads > 1)
  for (int64_t item = 0; item < items; ++item) {
    const int r = runBand(in, out, epi, large, item / int64_t(bands_.size()), size_t(item % int64_t(bands_.size())));
    failed |= int(r < 0), bad |= int(r > 0);
  }
  return failed ? -1 : bad ? 1 : 0;
}

// Band b of image n on the calling thread: 0 done, 1 a REQUIRE failed (rerun on the reference), -1 oneDNN failed.
int ConvBands::runBand(const std::vector<std::vector<TensorView>>& in, const TensorView& out, const IntEpilogue& epi,
                       const LargeAccumulators& large, int64_t n, size_t b) {
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
      t.epi = bandEpi_.empty() ? std::vector<IntEpilogue>{epi} : bandEpi_;
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
  if (large.mayBeLarge()) large.recompute(x, in[0][1].as<const int8_t>(), acc, firstRow, rows);
  TensorView o = out;
  o.data = static_cast<uint8_t*>(out.data) + size_t(firstRow * g.OC) * storageBytes(out.dtype);
  const IntEpilogue& e = t.epi[bandEpi_.empty() ? 0 : b];
  return runIntEpilogue(e, acc, rows, o, epi.runtimeBias ? in[0][2].data : nullptr) ? 0 : 1;
}

}  // namespace tosakit::fast::dnn
