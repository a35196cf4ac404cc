// Integer kernels: tosa.rescale (apply_scale_32 / apply_scale_16, per channel, single or double rounding,
// zero points) with an optional following tosa.clamp, bit for bit the reference's arithmetic. Values that
// would trip one of the spec's REQUIREs (a value outside the shift's range, an i32 overflow adding the output
// zero point) rerun the step on the reference kernels, which give the verdict. Unsigned forms and non-constant
// parameters are left to the reference kernel.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "fast/isa_dispatch.h"
#include "fast/kernels/common.h"
#include "fast/kernels/int8/simd.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

// GCC 12 reports the intrinsics' deliberately undefined pass-through operands (_mm512_undefined_*, under an
// all-ones mask) as uninitialized once inlined (GCC bug 105593); no undefined value is read.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace tosakit::fast {
namespace {

struct ChannelScale {
  int64_t multiplier = 0;
  int shift = 0;
  int64_t roundPos = 0, roundNeg = 0;  // rounding term for values >= 0 / < 0 (they differ with double rounding)
  int64_t lowest = 0, highest = 0;     // the REQUIRE's value range for apply_scale_32
};

// apply_scale_32 over one row of C channels in structure-of-arrays form, for the auto-vectorizer (one clone per
// ISA; the 32x32 -> 64-bit products map to pmuldq). Inputs are i8/i16/i32 with a zero point only for i8, so the
// value (input - zp) always fits in int32 and the REQUIRE on its range is checked per element.
struct Scale32Rows {
  std::vector<int32_t> mult;
  std::vector<int64_t> roundPos, roundNeg, shift, lowest, highest;
  int64_t inputZp = 0, outputZp = 0, lo = 0, hi = 0;
  bool scalar = false;  // every lane has the same parameters
};

// kScalar: one scale for every lane (a per-tensor rescale): the parameters stay in registers instead of six
// loads per element.
template <typename IN, typename OUT, bool kScalar>
TK_VECTOR_BODY bool rescale32SpanBody(const IN* __restrict in, OUT* __restrict out, int64_t n, const Scale32Rows& p) {
  int64_t bad = 0;  // an int64 flag, not bool: a bool reduction blocks the vectorizer
  const int64_t izp = p.inputZp, ozp = p.outputZp, lo = p.lo, hi = p.hi;  // locals: out may alias
  const int32_t* mult = p.mult.data();
  const int64_t *rp = p.roundPos.data(), *rn = p.roundNeg.data(), *sh = p.shift.data();
  const int64_t *lw = p.lowest.data(), *hg = p.highest.data();
  const int64_t m0 = mult[0], rp0 = rp[0], rn0 = rn[0], sh0 = sh[0], lw0 = lw[0], hg0 = hg[0];
  for (int64_t c = 0; c < n; ++c) {
    const int64_t v = int64_t(in[c]) - izp;
    bad |= (v < (kScalar ? lw0 : lw[c])) | (v >= (kScalar ? hg0 : hg[c]));
    const int64_t rpc = kScalar ? rp0 : rp[c], rnc = kScalar ? rn0 : rn[c];  // both loaded: no conditional load
    const int64_t prod = int64_t(int32_t(v)) * (kScalar ? m0 : int64_t(mult[c])) + (v >= 0 ? rpc : rnc);
    int64_t r = int64_t(int32_t(prod >> (kScalar ? sh0 : sh[c]))) + ozp;
    bad |= (r < std::numeric_limits<int32_t>::min()) | (r > std::numeric_limits<int32_t>::max());
    r = r < lo ? lo : r;
    r = r > hi ? hi : r;
    out[c] = OUT(r);
  }
  return !bad;
}
template <typename IN, typename OUT, bool kScalar>
bool rescale32Span(const IN* __restrict in, OUT* __restrict out, int64_t n, const Scale32Rows& p) {
  TK_ISA_DISPATCH(rescale32SpanBody<IN, OUT, kScalar>(in, out, n, p));
}

template <typename In, typename Out>
bool rescale32Row(const In* in, Out* out, int64_t n, const Scale32Rows& p) {
  if constexpr (std::is_same_v<In, int64_t>) {
    return false;  // i48: not scale32
  } else {
    return p.scalar ? rescale32Span<In, Out, true>(in, out, n, p) : rescale32Span<In, Out, false>(in, out, n, p);
  }
}

// An i8 input with one scale has 256 possible values: the rescale is a lookup in a table computed once.
template <typename Out>
TK_VECTOR_BODY void lookupRescaleI8Body(const int8_t* __restrict in, Out* __restrict out, int64_t n,
                                        const int32_t* __restrict lut) {
  for (int64_t i = 0; i < n; ++i) out[i] = Out(lut[uint8_t(in[i]) ^ 0x80]);
}
template <typename Out>
void lookupRescaleI8(const int8_t* __restrict in, Out* __restrict out, int64_t n, const int32_t* __restrict lut) {
  TK_ISA_DISPATCH(lookupRescaleI8Body<Out>(in, out, n, lut));
}

// The same in AVX-512 registers: the table's values computed, 16 at a time (apply_scale_32 of x - input_zp with
// the one scale, plus the output zero point, clipped: the arithmetic the table was built with; no value of an
// i8 input breaks a REQUIRE once the table exists).
template <typename Out>
TK_AVX512 void computeRescaleI8(const int8_t* __restrict in, Out* __restrict out, int64_t n, const Scale32Rows& p) {
  const dnn::ScaleRegs r = dnn::scaleRegs(p.mult[0], p.roundPos[0], p.roundNeg[0], p.shift[0]);
  const __m512i izp = _mm512_set1_epi32(int32_t(p.inputZp)), ozp = _mm512_set1_epi32(int32_t(p.outputZp));
  const __m512i lo = _mm512_set1_epi32(int32_t(p.lo)), hi = _mm512_set1_epi32(int32_t(p.hi));
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = dnn::laneMask(n, i);
    const __m512i x = _mm512_sub_epi32(_mm512_maskz_cvtepi8_epi32(m, _mm_maskz_loadu_epi8(m, in + i)), izp);
    const __m512i v = _mm512_min_epi32(_mm512_max_epi32(_mm512_add_epi32(dnn::scale16(x, r), ozp), lo), hi);
    dnn::storeNarrow(out + i, v, m);
  }
}

class RescaleKernel : public OpKernel {
 public:
  std::string implName() const override { return "fast:rescale"; }

  // The SoA form of the per-channel parameters for the scale32 row kernels (built once at compile time),
  // repeated over k rows (lane i is channel i % C) so that blocks of rows are one long vector loop: a row of a
  // few channels alone is mostly call and loop overhead.
  void prepareRows() {
    rows_.inputZp = inputZp_;
    rows_.outputZp = outputZp_;
    rows_.lo = lo_;
    rows_.hi = hi_;
    const int64_t C = int64_t(ch_.size());
    rowsPerBlock_ = std::max<int64_t>(1, 1024 / std::max<int64_t>(C, 1));
    rows_.scalar = std::all_of(ch_.begin(), ch_.end(), [&](const ChannelScale& s) {
      return s.multiplier == ch_[0].multiplier && s.shift == ch_[0].shift && s.roundPos == ch_[0].roundPos &&
          s.roundNeg == ch_[0].roundNeg;
    });
    for (int64_t i = 0; i < rowsPerBlock_ * C; ++i) {
      const ChannelScale& s = ch_[size_t(i % C)];
      rows_.mult.push_back(int32_t(s.multiplier));
      rows_.roundPos.push_back(s.roundPos);
      rows_.roundNeg.push_back(s.roundNeg);
      rows_.shift.push_back(s.shift);
      rows_.lowest.push_back(s.lowest);
      rows_.highest.push_back(s.highest);
    }
  }

  template <typename In, typename Out>
  bool compute(const In* in, Out* out, int64_t n) const {
    const int64_t C = int64_t(ch_.size());
    const int64_t rows = n / C;
    if (scale32_) {
      const int64_t k = rowsPerBlock_, blocks = (rows + k - 1) / k;
      return parallelItems(blocks, n > 65536, [&](int64_t b) {
        const int64_t r0 = b * k, m = (std::min(rows, r0 + k) - r0) * C;
        return rescale32Row(in + r0 * C, out + r0 * C, m, rows_);
      });
    }
    return parallelItems(rows, n > 65536, [&](int64_t r) {
      bool b = false;
      for (int64_t c = 0; c < C; ++c) {
        const ChannelScale& s = ch_[size_t(c)];
        int64_t value = int64_t(in[r * C + c]) - inputZp_;
        int64_t result;
        if (scale32_) {
          b |= value < s.lowest || value >= s.highest;
          int64_t v32 = int64_t(int32_t(value));
          result = int64_t(int32_t((v32 * s.multiplier + (v32 >= 0 ? s.roundPos : s.roundNeg)) >> s.shift));
        } else {
          result = (value * s.multiplier + s.roundPos) >> s.shift;
          b |= result < std::numeric_limits<int32_t>::min() || result > std::numeric_limits<int32_t>::max();
        }
        int64_t o = result + outputZp_;
        b |= o < std::numeric_limits<int32_t>::min() || o > std::numeric_limits<int32_t>::max();
        o = std::min(std::max(o, lo_), hi_);
        out[r * C + c] = Out(o);
      }
      return !b;
    });
  }

  template <typename In>
  bool dispatchOut(const In* in, void* out, int64_t n) const {
    switch (outT_) {
      case DType::I8: return compute(in, static_cast<int8_t*>(out), n);
      case DType::I16: return compute(in, static_cast<int16_t*>(out), n);
      case DType::I32: return compute(in, static_cast<int32_t*>(out), n);
      default: return false;
    }
  }

  // For an i8 input with per-tensor single-scale parameters: the result of every input value (index v + 128),
  // computed by the row kernel itself; not used when any value would trip a REQUIRE.
  void prepareLookup() {
    if (inT_ != DType::I8 || !scale32_ || !rows_.scalar) return;
    std::vector<int8_t> all(256);
    for (int i = 0; i < 256; ++i) all[size_t(i)] = int8_t(i - 128);
    std::vector<int32_t> lut(256);
    Scale32Rows one = rows_;  // lanes of the first channel suffice: every lane is the same
    if (!rescale32Row(all.data(), lut.data(), 256, one)) return;
    lut_ = std::move(lut);
  }

  template <typename Out>
  void lookup(const int8_t* x, Out* y, int64_t n) const {
    const int64_t chunk = 16384, chunks = (n + chunk - 1) / chunk;
    // The parameters are those of every lane (a per-tensor scale), and apply_scale_32's result (|r| <= 2^30
    // under its REQUIRE) plus the zero point stays in i32.
    const bool avx = dnn::hasAvx512Epilogue() && rows_.inputZp >= -128 && rows_.inputZp <= 127;
    parallelItems(chunks, n > 65536, [&](int64_t c) {
      const int64_t b = c * chunk;
      if (avx)
        computeRescaleI8(x + b, y + b, std::min(chunk, n - b), rows_);
      else
        lookupRescaleI8(x + b, y + b, std::min(chunk, n - b), lut_.data());
    });
  }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const TensorView& x = in[0][0];
    const int64_t n = x.size();
    if (!lut_.empty()) {
      switch (outT_) {
        case DType::I8: lookup(x.as<const int8_t>(), out[0].as<int8_t>(), n); break;
        case DType::I16: lookup(x.as<const int8_t>(), out[0].as<int16_t>(), n); break;
        default: lookup(x.as<const int8_t>(), out[0].as<int32_t>(), n); break;
      }
      return Status::ok();
    }
    bool ok = false;
    switch (inT_) {
      case DType::I8: ok = dispatchOut(x.as<const int8_t>(), out[0].data, n); break;
      case DType::I16: ok = dispatchOut(x.as<const int16_t>(), out[0].data, n); break;
      case DType::I32: ok = dispatchOut(x.as<const int32_t>(), out[0].data, n); break;
      case DType::I48: ok = dispatchOut(x.as<const int64_t>(), out[0].data, n); break;
      default: break;
    }
    return ok ? Status::ok() : rerunOnReference();
  }

  DType inT_ = DType::I32, outT_ = DType::I8;
  bool scale32_ = true;
  int64_t inputZp_ = 0, outputZp_ = 0, lo_ = 0, hi_ = 0;
  std::vector<ChannelScale> ch_;
  Scale32Rows rows_;
  int64_t rowsPerBlock_ = 1;
  std::vector<int32_t> lut_;  // i8 input, one scale: the result of each input value
};

bool isSignedInt(DType t) { return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I48; }

}  // namespace

Result<CompiledKernel> compileRescale(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  if (op.operands.size() != 5 || op.results.size() != 1) return CompiledKernel{};
  for (int j = 1; j < 5; ++j)
    if (!chain.constants[0][size_t(j)]) return CompiledKernel{};
  if (op.boolAttr("input_unsigned") || op.boolAttr("output_unsigned")) return CompiledKernel{};
  auto k = std::make_unique<RescaleKernel>();
  k->inT_ = op.operands[0]->type.dtype;
  k->outT_ = op.results[0]->type.dtype;
  if (!isSignedInt(k->inT_) || (k->outT_ != DType::I8 && k->outT_ != DType::I16 && k->outT_ != DType::I32))
    return CompiledKernel{};
  k->scale32_ = op.boolAttr("scale32", true);
  std::string mode = op.strAttr("rounding_mode", "SINGLE_ROUND");
  bool doubleRound = mode == "DOUBLE_ROUND";
  if (mode != "SINGLE_ROUND" && mode != "DOUBLE_ROUND" && mode != "INEXACT_ROUND") return CompiledKernel{};
  if ((k->scale32_ && k->inT_ == DType::I48) || (!k->scale32_ && doubleRound)) return CompiledKernel{};
  const Tensor &mult = *chain.constants[0][1], &shift = *chain.constants[0][2];
  const Tensor &izp = *chain.constants[0][3], &ozp = *chain.constants[0][4];
  if (izp.size() != 1 || ozp.size() != 1) return CompiledKernel{};
  k->inputZp_ = izp.getInt(0);
  k->outputZp_ = ozp.getInt(0);
  if ((k->inT_ != DType::I8 && k->inputZp_ != 0) || (k->outT_ != DType::I8 && k->outputZp_ != 0))
    return CompiledKernel{};
  const Shape& shape = op.operands[0]->type.dims;
  const bool perChannel = op.boolAttr("per_channel");
  const int64_t C = perChannel ? (shape.empty() ? 0 : shape.back()) : 1;
  if (C <= 0 || mult.size() != C || shift.size() != C || (perChannel && shape.empty())) return CompiledKernel{};
  for (int64_t c = 0; c < C; ++c) {
    ChannelScale s;
    s.multiplier = mult.getInt(c);
    s.shift = int(shift.getInt(c));
    if (s.multiplier < 0 || s.shift < 2 || s.shift > 62) return CompiledKernel{};  // REQUIREs: the reference says so
    if (k->scale32_ && s.multiplier > std::numeric_limits<int32_t>::max()) return CompiledKernel{};
    s.roundPos = s.roundNeg = int64_t(1) << (s.shift - 1);
    if (doubleRound && s.shift > 31) {
      s.roundPos += int64_t(1) << 30;
      s.roundNeg -= int64_t(1) << 30;
    }
    s.lowest = -(int64_t(1) << (s.shift - 1));
    s.highest = int64_t(1) << (s.shift - 1);
    k->ch_.push_back(s);
  }
  // A per-tensor scale applies to every element: one "channel" repeated over the whole tensor.
  if (!perChannel) {
    int64_t inner = shape.empty() ? 1 : shape.back();
    k->ch_.assign(size_t(std::max<int64_t>(inner, 1)), k->ch_[0]);
  }
  k->lo_ = dtypeMin(k->outT_);
  k->hi_ = dtypeMax(k->outT_);
  CompiledKernel ck;
  ck.opsAbsorbed = 1;
  // A following clamp on the rescaled value narrows the saturation bounds (same type, integer bounds).
  if (chain.ops.size() > 1 && chain.ops[1]->name == "tosa.clamp" && chain.ops[1]->results[0]->type.dtype == k->outT_ &&
      k->outT_ != DType::I32) {
    const ir::Attribute* a = chain.ops[1]->attr("min_val");
    const ir::Attribute* b = chain.ops[1]->attr("max_val");
    if (a && b && a->kind == ir::Attribute::Kind::Int && b->kind == ir::Attribute::Kind::Int && a->i <= b->i &&
        a->i >= k->lo_ && b->i <= k->hi_) {
      k->lo_ = a->i;
      k->hi_ = b->i;
      ck.opsAbsorbed = 2;
    }
  }
  k->prepareRows();
  k->prepareLookup();
  ck.kernel = std::move(k);
  return ck;
}

}  // namespace tosakit::fast

#pragma GCC diagnostic pop
