// int8 1x1 conv2d (stride 1, no padding) and matmul by a constant -> RESCALE [-> CLAMP] to i8 as our own AVX-512
// VNNI micro-kernel: 8 pixels (rows) x 48 output channels of i32 accumulators held in registers over the whole reduction (`vpdpbusd`,
// 4 input channels per instruction), then the exact epilogue (kernels/int8/simd.h) applied to the registers
// and stored as i8. No s32 tensor is written: on mobilenet_v2's expansions (16-32 input channels, 96-192
// output channels) oneDNN's matmul plus our epilogue pass over its s32 blocks spent most of the layer moving
// accumulators, not multiplying (features.2: 0.23 of 0.25 ms was the matmul with a 16-deep reduction).
//
// Exact: `vpdpbusd` multiplies unsigned by signed bytes and adds in i32 without saturation. The input byte x is
// read as u = x + 128 (its sign bit flipped), so sum u * w = sum x * w + 128 * sum w: every accumulator starts
// at -128 * sum w of its channel and ends at sum x * w, exact (an i32 wraps modulo 2^32 on the way, and the
// final sum is far inside i32: |sum x * w| <= 128 * 128 * K). The input zero point is folded into the bias
// (acc - input_zp * sum w, in int64; a bias that leaves i32 declines the layer), so the epilogue's i32 overflow
// check of acc + bias is the reference's REQUIRE on the true sum, as in kernels/int8/pointwise.cpp. Weight zero
// points other than 0, other output types, a run-time bias: declined (the other kernels take them).
//
// Residual add: when the i8 result's only user is a quantized add (or sub) as `tosakit quantize` lowers it,
//     y8 = rescale(add(rescale(skip8), rescale(this i8))) [-> clamp]
// and the skip operand's rescale is a held-back producer (OpChain::Producer), the kernel computes the add too:
// each work item's i8 results, just stored and still in L1, are read back with the skip operand's bytes and
// replaced by the add's results. The add needs no step of its own, its i8 input never goes through L2/memory,
// and it runs on the convolution's threads (the separate pass stayed on one thread below 65536 elements). Its
// arithmetic is the quantized binary pass's (kernels/int8/binary.h): both operand rescales and the output
// rescale per tensor, each apply_scale_32 with the REQUIRE on its value range (the operands': checked for all
// 256 i8 values at compile time, else declined; the output's: per value), the i32 overflow of the sum watched;
// a tripped REQUIRE reruns the step (producer, convolution, add) on the reference kernels. (Computing the add on
// the accumulator registers themselves, before the store, was slower: with 24 accumulators live the add's 19
// constant registers spill; mobilenet_v2's 10 projections took 0.274 ms vs 0.255 for the two steps.)
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "fast/cpu_features.h"
#include "fast/kernels/common.h"
#include "fast/kernels/int8/binary.h"
#include "fast/kernels/int8/pointwise.h"
#include "fast/kernels/int8/simd.h"
#include "fast/onednn/common.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

using namespace dnn;

// GCC 12 reports the intrinsics' deliberately undefined pass-through operands (_mm512_undefined_*, under an
// all-ones mask) as uninitialized once inlined into these register-blocked loops (GCC bug 105593); no undefined
// value is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#define TK_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")))

constexpr int kPixels = 8;   // pixels per register block
constexpr int kVectors = 3;  // 16-channel vectors per register block: 8 x 3 accumulators + 3 weights + 1 input

// Weights packed for `vpdpbusd`: group g (input channels 4g..4g+3) of channel vector v is 64 bytes, lane l
// holding the four weights of output channel 16v + l; zeros pad both the channels and the last group.
struct PackedWeights {
  int64_t K = 0, groups = 0, vectors = 0;
  Aligned64<int8_t> w;      // [groups][vectors][16][4]
  Aligned64<int32_t> comp;  // [vectors * 16]: -128 * sum of the channel's weights (the u8 offset undone)
};

PackedWeights packWeights(const int8_t* w, int64_t OC, int64_t K) {
  PackedWeights p;
  p.K = K, p.groups = (K + 3) / 4, p.vectors = (OC + 15) / 16;
  p.w.assign(size_t(p.groups * p.vectors * 64), 0);
  p.comp.assign(size_t(p.vectors * 16), 0);
  for (int64_t oc = 0; oc < OC; ++oc) {
    int64_t sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      const int8_t v = w[oc * K + k];
      p.w[size_t(((k / 4) * p.vectors + oc / 16) * 64 + (oc % 16) * 4 + k % 4)] = v;
      sum += v;
    }
    p.comp[size_t(oc)] = int32_t(-128 * sum);
  }
  return p;
}

// P pixels (rows of x, K bytes apart) x NV channel vectors starting at vector v0: the reduction in registers,
// then the epilogue on each accumulator, stored to y (rows C apart).
template <int P, int NV, bool kDouble, bool kRange, bool kOverflow>
TK_VNNI inline void block(const PackedWeights& pw, const IntEpilogueLanes& l, const int8_t* x, int8_t* y, int64_t C,
                          int64_t v0, EpiFlags& f) {
  // Fully unrolled so the accumulators stay in registers (GCC keeps a loop-indexed array on the stack).
  __m512i acc[P][NV];
  const int64_t K = pw.K, groups = pw.groups, fullGroups = K / 4, stride = pw.vectors * 64;
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const __m512i c = _mm512_loadu_si512(pw.comp.data() + (v0 + v) * 16);
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) acc[p][v] = c;
  }
  const __m512i flip = _mm512_set1_epi32(int32_t(0x80808080u));
  const int8_t* wg = pw.w.data() + v0 * 64;
  // One group of four input channels: the pixel's four bytes as u8 (sign bits flipped) in every lane.
  auto group = [&](const int8_t* wv, auto load)
      __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni"))) {
    __m512i w[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) w[v] = _mm512_loadu_si512(wv + v * 64);
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
      const __m512i u = _mm512_xor_si512(_mm512_set1_epi32(load(x + p * K)), flip);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[p][v] = _mm512_dpbusd_epi32(acc[p][v], u, w[v]);
    }
  };
  for (int64_t g = 0; g < fullGroups; ++g, wg += stride)
    group(wg, [&](const int8_t* row) {
      int32_t b;
      std::memcpy(&b, row + 4 * g, 4);
      return b;
    });
  if (groups > fullGroups)  // the last 1-3 input channels; the padding weights are zero
    group(wg, [&](const int8_t* row) {
      uint32_t b = 0;
      for (int64_t k = 4 * fullGroups; k < K; ++k) b |= uint32_t(uint8_t(row[k])) << (8 * (k - 4 * fullGroups));
      return int32_t(b);
    });
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int64_t cb = (v0 + v) * 16;
    const __mmask16 m = laneMask(C, cb);
    const EpiRegs r = loadEpi(l, l.bias.data(), cb);
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p)
      epilogue16<int8_t, true, kDouble, kRange, kOverflow>(acc[p][v], r, y + p * C + cb, m, f);
  }
}

// Channel vectors [v0, v1) of P pixels starting at pixel p, kVectors at a time.
template <int P, bool kDouble, bool kRange, bool kOverflow>
TK_VNNI inline void channelBlocks(const PackedWeights& pw, const IntEpilogueLanes& l, const int8_t* x, int8_t* y,
                                  int64_t C, int64_t p, int64_t v0, int64_t v1, EpiFlags& f) {
  const int8_t* xp = x + p * pw.K;
  int8_t* yp = y + p * C;
  int64_t v = v0;
  for (; v + kVectors <= v1; v += kVectors) block<P, kVectors, kDouble, kRange, kOverflow>(pw, l, xp, yp, C, v, f);
  if (v1 - v == 1) block<P, 1, kDouble, kRange, kOverflow>(pw, l, xp, yp, C, v, f);
  if (v1 - v == 2) block<P, 2, kDouble, kRange, kOverflow>(pw, l, xp, yp, C, v, f);
}

// Pixels [p0, p1) x channel vectors [v0, v1): blocks of kPixels pixels, then single pixels.
template <bool kDouble, bool kRange, bool kOverflow>
TK_VNNI bool pixels(const PackedWeights& pw, const IntEpilogueLanes& l, const int8_t* x, int8_t* y, int64_t C,
                    int64_t p0, int64_t p1, int64_t v0, int64_t v1) {
  EpiFlags f{_mm512_setzero_si512(), 0};
  int64_t p = p0;
  for (; p + kPixels <= p1; p += kPixels)
    channelBlocks<kPixels, kDouble, kRange, kOverflow>(pw, l, x, y, C, p, v0, v1, f);
  for (; p < p1; ++p) channelBlocks<1, kDouble, kRange, kOverflow>(pw, l, x, y, C, p, v0, v1, f);
  return epiFlagsOk(f);
}

// The residual add after the epilogue (see the top): the rescales of the i8 result (x) and of the skip operand
// (a), all per tensor, the op, the output rescale and its clip.
struct Residual;
using ResidualRow = bool (*)(const int8_t* a, int8_t* y, int64_t n, const Residual& r);
struct Residual {
  BinOp op = BinOp::Add;
  ScaleParams x, a, out;
  int64_t xZp = 0, aZp = 0, outZp = 0, lo = -128, hi = 127;
  int ops = 0;                         // chain ops after the epilogue's: rescale, add/sub, rescale[, clamp]
  std::pair<int, int> producer{0, 0};  // the skip operand's rescale: OpChain::producers[op][operand]
  ResidualRow row = nullptr;
};

// apply_scale_32 of an operand value v = i8 - zero point (|v| <= 255) with a shift <= 22 in 32-bit lanes: with
// m = q * 2^shift + rem (0 <= rem < 2^shift), (v * m + round) >> shift = v * q + ((v * rem + round) >> shift)
// exactly, where |v * rem| + round < 255 * 2^22 + 2^21 < 2^31 fits an i32 and v * q is kept modulo 2^32, as the
// reference's int32 result is. (The rounding term has one sign: double rounding only differs for shifts > 31.)
struct SmallScaleRegs {
  __m512i q, rem, round;
  int shift;
};
TK_AVX512 inline SmallScaleRegs smallScaleRegs(const ScaleParams& p) {
  const int64_t q = p.mult >> p.shift, rem = p.mult & ((int64_t(1) << p.shift) - 1);
  return {_mm512_set1_epi32(int32_t(q)), _mm512_set1_epi32(int32_t(rem)), _mm512_set1_epi32(int32_t(p.roundPos)),
          int(p.shift)};
}
TK_AVX512 inline __m512i scaleSmall(__m512i v, const SmallScaleRegs& r) {
  const __m512i low = _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(v, r.rem), r.round), r.shift);
  return _mm512_add_epi32(_mm512_mullo_epi32(v, r.q), low);
}
bool isSmallShift(const ScaleParams& p) { return p.shift <= 22; }

// n contiguous i8 results y (in place) and skip values a -> the residual op's i8 results. False: a REQUIRE
// failed (an i32 overflow of the sum, or a sum outside the output rescale's value range). kSmall: both operand
// rescales have shifts <= 22 (scaleSmall; tosakit quantize writes 10..12); kSignedRound: some rescale's
// rounding term depends on the value's sign.
template <BinOp kOp, bool kSmall, bool kSignedRound>
TK_AVX512 bool residualRow(const int8_t* a, int8_t* y, int64_t n, const Residual& r) {
  const ScaleRegs xs = scaleRegs(r.x), as = scaleRegs(r.a);
  const SmallScaleRegs xss = smallScaleRegs(kSmall ? r.x : ScaleParams{0, 0, 0, 2});
  const SmallScaleRegs ass = smallScaleRegs(kSmall ? r.a : ScaleParams{0, 0, 0, 2});
  const __m512i xZp = _mm512_set1_epi32(int32_t(r.xZp)), aZp = _mm512_set1_epi32(int32_t(r.aZp));
  const BinaryTailRegs tail = binaryTailRegs(r.out, r.outZp, r.lo, r.hi);
  __m512i ovf = _mm512_setzero_si512();
  __mmask16 outside = 0;
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = laneMask(n, i);
    const __m512i c = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, y + i)), xZp);
    const __m512i s = _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(m, a + i)), aZp);
    __m512i b, av;
    if constexpr (kSmall) {
      b = scaleSmall(c, xss), av = scaleSmall(s, ass);
    } else {
      b = scaleLanes<kSignedRound>(c, xs), av = scaleLanes<kSignedRound>(s, as);
    }
    dnn::storeNarrow(y + i, binaryTail16<kOp, kSignedRound>(av, b, tail, m, ovf, outside), m);
  }
  return _mm512_movepi32_mask(ovf) == 0 && outside == 0;
}

template <BinOp kOp>
ResidualRow residualRowFor(bool small, bool signedRound) {
  if (small) return signedRound ? residualRow<kOp, true, true> : residualRow<kOp, true, false>;
  return signedRound ? residualRow<kOp, false, true> : residualRow<kOp, false, false>;
}

#pragma GCC diagnostic pop

bool hasVnni() { return cpu::has(cpu::Isa::Avx512Vnni); }

class Int8PointwiseVnniKernel : public OpKernel {
 public:
  Int8PointwiseVnniKernel(std::string name, PackedWeights pw, int64_t M, int64_t C)
      : name_(std::move(name)), pw_(std::move(pw)), M_(M), C_(C) {}
  std::string implName() const override { return name_; }
  double flops() const override { return 2.0 * double(M_ * pw_.K * C_); }

  // in: [the skip operand's rescale, when the residual add is fused], the conv/matmul, its epilogue's ops, ...
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int8_t* a = res_ ? in[0][0].as<const int8_t>() : nullptr;
    const int8_t* x = in[res_ ? 1 : 0][0].as<const int8_t>();
    int8_t* y = out[0].as<int8_t>();
    // Work items of 64 pixels x a share of the channels over the threads: the channels are split too when there
    // are few pixels (7x7 and 14x14 layers), so every thread has work. Below ~2M multiply-accumulates one
    // thread (docs/FAST.md, Threads).
    // Or when the packed weights alone are large (a classifier's one row: mobilenet_v2's 1280 -> 1000 streams
    // 1.3 MB of weights for 2.6M operations; split by channels, each thread streams half).
    const bool weightBound = pw_.w.size() >= (size_t(1) << 19);
    const int threads = flops() >= 4e6 || weightBound ? omp_get_max_threads() : 1;
    int64_t chunk = 64, chunks = (M_ + chunk - 1) / chunk;
    const int64_t vecBlocks = (pw_.vectors + kVectors - 1) / kVectors;
    const int64_t splits = chunks >= 4 * threads ? 1 : std::min<int64_t>(threads, vecBlocks);
    if (splits == 1 && threads > 1) {  // as many equal chunks per thread: 784 pixels made 7 vs 6 chunks of 64
      chunks = (chunks + threads - 1) / threads * threads;
      chunk = ((M_ + chunks - 1) / chunks + kPixels - 1) / kPixels * kPixels;
      chunks = (M_ + chunk - 1) / chunk;
    }
    // With channel splits round robin: thread t takes share t of every chunk (contiguous blocks of items gave
    // one thread three full chunks of a 14x14 layer and the other one and a 4-pixel remainder). Without, each
    // thread one contiguous block of the (evened-out) chunks: the next layer's bands of rows then find their
    // input in their own core's cache (interleaved chunks: mobilenet_v2 int8 ~2% slower at 2 threads).
    const auto item = [&](int64_t i) {
      const int64_t c = i / splits, s = i % splits;
      const int64_t v0 = vecBlocks * s / splits * kVectors,
                    v1 = std::min(pw_.vectors, vecBlocks * (s + 1) / splits * kVectors);
      const int64_t p0 = c * chunk, p1 = std::min(M_, (c + 1) * chunk);
      const bool conv = runItem(x, y, p0, p1, v0, v1);
      return conv && (!res_ || residualRows(a, y, p0, p1, v0 * 16, std::min(C_, v1 * 16)));
    };
    const bool ok =
        splits > 1 ? parallelItems<true>(chunks * splits, threads > 1, item) : parallelItems(chunks, threads > 1, item);
    return ok ? Status::ok() : rerunOnReference();
  }

  IntEpilogue epi_;
  std::optional<Residual> res_;  // the residual add computed after the epilogue
  int absorbed() const { return epi_.absorbed + (res_ ? res_->ops : 0); }
  void rename(std::string name) { name_ = std::move(name); }

 private:
  // The residual add on pixels [p0, p1) x channels [c0, c1) of y, in place: one run when the item has every
  // channel (the rows are contiguous), else one per pixel.
  bool residualRows(const int8_t* a, int8_t* y, int64_t p0, int64_t p1, int64_t c0, int64_t c1) const {
    if (c0 == 0 && c1 == C_) return res_->row(a + p0 * C_, y + p0 * C_, (p1 - p0) * C_, *res_);
    bool ok = true;
    for (int64_t p = p0; p < p1; ++p) ok &= res_->row(a + p * C_ + c0, y + p * C_ + c0, c1 - c0, *res_);
    return ok;
  }

  bool runItem(const int8_t* x, int8_t* y, int64_t p0, int64_t p1, int64_t v0, int64_t v1) const {
    const IntEpilogueLanes& l = epi_.simd;
    const int64_t C = C_;
    if (epi_.doubleRound) {
      if (epi_.rangeCheck)
        return l.noOverflow ? pixels<true, true, false>(pw_, l, x, y, C, p0, p1, v0, v1)
                            : pixels<true, true, true>(pw_, l, x, y, C, p0, p1, v0, v1);
      return l.noOverflow ? pixels<true, false, false>(pw_, l, x, y, C, p0, p1, v0, v1)
                          : pixels<true, false, true>(pw_, l, x, y, C, p0, p1, v0, v1);
    }
    if (epi_.rangeCheck)
      return l.noOverflow ? pixels<false, true, false>(pw_, l, x, y, C, p0, p1, v0, v1)
                          : pixels<false, true, true>(pw_, l, x, y, C, p0, p1, v0, v1);
    return l.noOverflow ? pixels<false, false, false>(pw_, l, x, y, C, p0, p1, v0, v1)
                        : pixels<false, false, true>(pw_, l, x, y, C, p0, p1, v0, v1);
  }

  std::string name_;
  PackedWeights pw_;
  int64_t M_, C_;
};

// The residual add after the epilogue's last op, chain op n - 1 (an i8 result of shape `dims`): chain ops n..
// are rescale(that i8) -> add/sub(a32, .) -> rescale -> i8 [-> clamp] and a32 is a held-back rescale of an i8
// skip tensor of the same shape, every rescale per tensor and no operand value breaking its range (see the top).
std::optional<Residual> parseResidual(const OpChain& c, size_t n, const Shape& dims) {
  if (c.ops.size() < n + 3 || c.producers.size() < n + 3) return std::nullopt;
  const ir::Operation &r0 = *c.ops[n], &bin = *c.ops[n + 1], &r1 = *c.ops[n + 2];
  auto x = parseRescale(r0, c.constants[n]), out = parseRescale(r1, c.constants[n + 2]);
  if (!x || !out || x->multiplier.size() != 1 || out->multiplier.size() != 1) return std::nullopt;
  if (r0.operands[0] != c.ops[n - 1]->results[0] || r0.results[0]->type.dtype != DType::I32 || x->outputZp != 0)
    return std::nullopt;
  if (rescaleLut(*x, {}).empty()) return std::nullopt;
  if ((bin.name != "tosa.add" && bin.name != "tosa.sub") || bin.operands.size() != 2 || bin.results.size() != 1)
    return std::nullopt;
  const ir::Value* b32 = r0.results[0];
  const size_t bIndex = bin.operands[0] == b32 ? 0 : 1, aIndex = 1 - bIndex;
  if (bin.operands[bIndex] != b32 || bin.operands[aIndex] == b32 || bin.results[0]->type.dims != dims)
    return std::nullopt;
  const OpChain::Producer& producer = c.producers[n + 1][aIndex];
  auto a = absorbableRescale(producer);
  if (!a || a->multiplier.size() != 1 || producer.op->operands[0]->type.dtype != DType::I8 ||
      producer.op->operands[0]->type.dims != dims || rescaleLut(*a, {}).empty())
    return std::nullopt;
  if (r1.operands[0] != bin.results[0] || out->inputZp != 0 || r1.results[0]->type.dtype != DType::I8 ||
      r1.results[0]->type.dims != dims)
    return std::nullopt;
  Residual r;
  r.op = bin.name == "tosa.add" ? BinOp::Add : bIndex == 1 ? BinOp::SubAB : BinOp::SubBA;
  r.x = scaleParams(*x, 0), r.a = scaleParams(*a, 0), r.out = scaleParams(*out, 0);
  r.xZp = x->inputZp, r.aZp = a->inputZp, r.outZp = out->outputZp;
  r.ops = 3;
  r.producer = {int(n + 1), int(aIndex)};
  if (c.ops.size() > n + 3) {
    if (auto b = quantClampBounds(*c.ops[n + 3], DType::I8, r.lo, r.hi)) r.lo = b->first, r.hi = b->second, r.ops = 4;
  }
  auto signedRound = [](const ScaleParams& p) { return p.roundPos != p.roundNeg; };
  const bool small = isSmallShift(r.x) && isSmallShift(r.a);
  const bool anySigned = signedRound(r.x) || signedRound(r.a) || signedRound(r.out);
  r.row = r.op == BinOp::Add ? residualRowFor<BinOp::Add>(small, anySigned)
      : r.op == BinOp::SubAB ? residualRowFor<BinOp::SubAB>(small, anySigned)
                             : residualRowFor<BinOp::SubBA>(small, anySigned);
  return r;
}

// The kernel for M rows of K input bytes times constant weights w[OC][K] (+ bias, one value or one per channel),
// the chain's rescale [-> clamp] to i8 fused, and a residual add after it when there is one; null when the
// chain or the sizes do not fit (see the top).
Result<CompiledKernel> buildKernel(const std::string& name, const OpChain& c, const int8_t* w, int64_t M, int64_t K,
                                   int64_t OC, const std::vector<int64_t>& bias, int64_t inputZp) {
  if (K > (int64_t(1) << 16)) return CompiledKernel{};  // 128 * 128 * K stays below 2^31
  // The input zero point folded into the bias: acc - input_zp * sum w, which must stay an i32.
  std::vector<int32_t> folded(static_cast<size_t>(OC));
  for (int64_t oc = 0; oc < OC; ++oc) {
    int64_t sum = 0;
    for (int64_t i = 0; i < K; ++i) sum += w[oc * K + i];
    const int64_t f = bias[bias.size() == 1 ? 0 : size_t(oc)] - inputZp * sum;
    if (f < INT32_MIN || f > INT32_MAX) return CompiledKernel{};
    folded[size_t(oc)] = int32_t(f);
  }
  IntEpilogue epi = planIntEpilogue(c, OC, nullptr);
  // Only i8 results of a rescale (the quantized graph's conv/matmul -> rescale [-> clamp]), one bias class.
  if (!epi.rescale || epi.outType != DType::I8 || epi.runtimeBias || !epi.rowClass.empty()) return CompiledKernel{};
  auto k = std::make_unique<Int8PointwiseVnniKernel>(name, packWeights(w, OC, K), M, OC);
  const size_t n = size_t(1 + epi.absorbed);
  k->res_ = parseResidual(c, n, c.ops[n - 1]->results[0]->type.dims);
  if (k->res_) k->rename(name + (k->res_->op == BinOp::Add ? "+add" : "+sub"));
  k->epi_ = std::move(epi);
  k->epi_.biasTable = std::move(folded);
  prepareIntEpilogue(k->epi_);
  const std::optional<Residual> res = k->res_;
  CompiledKernel ck = compiledKernel(std::move(k));
  if (res) ck.producers.push_back(res->producer);
  return ck;
}

}  // namespace

// conv2d [N, H, W, IC] x [OC, 1, 1, IC], stride 1, no padding (parseInt8Pointwise): N * H * W rows of IC bytes.
Result<CompiledKernel> compileInt8PointwiseVnni(const OpChain& c) {
  if (!hasVnni() || !hasAvx512Epilogue()) return CompiledKernel{};
  const std::optional<Int8Pointwise> g = parseInt8Pointwise(c);
  if (!g) return CompiledKernel{};
  return buildKernel("fast:pointwise_int8_vnni", c, reinterpret_cast<const int8_t*>(g->weights->data()), g->M, g->IC,
                     g->OC, g->bias->toInts(), g->inputZp);
}

// matmul [1, H, C] x constant [1, C, W] (B's zero point 0): H rows of C bytes, W output channels.
Result<CompiledKernel> compileInt8MatmulVnni(const OpChain& c) {
  const ir::Operation& op = *c.ops[0];
  if (!hasVnni() || !hasAvx512Epilogue() || op.operands.size() != 4 || op.results.size() != 1) return CompiledKernel{};
  const ir::ValueType &a = operandType(c, 0, 0), &b = operandType(c, 0, 1), &out = resultType(c, 0);
  if (!isStatic(a) || !isStatic(b) || !isStatic(out) || a.rank() != 3 || b.rank() != 3 || out.rank() != 3)
    return CompiledKernel{};
  if (a.dtype != DType::I8 || b.dtype != DType::I8 || out.dtype != DType::I32) return CompiledKernel{};
  const Tensor* bw = constOperand(c, 0, 1);
  auto aZp = zeroPoint(c, 0, 2), bZp = zeroPoint(c, 0, 3);
  if (!bw || !aZp || !bZp || *bZp != 0) return CompiledKernel{};
  const int64_t H = a.dims[1], C = a.dims[2], W = b.dims[2];
  if (a.dims[0] != 1 || b.dims != Shape{1, C, W} || out.dims != Shape{1, H, W}) return CompiledKernel{};
  // B is [C, W]: the kernel wants one row of C weights per output channel.
  const int8_t* bp = reinterpret_cast<const int8_t*>(bw->data());
  std::vector<int8_t> w(size_t(W * C));
  for (int64_t k = 0; k < C; ++k)
    for (int64_t n = 0; n < W; ++n) w[size_t(n * C + k)] = bp[k * W + n];
  return buildKernel("fast:matmul_int8_vnni", c, w.data(), H, C, W, {0}, *aZp);
}

}  // namespace tosakit::fast
