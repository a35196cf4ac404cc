// Integer kernels: tosa.rescale (apply_scale_32 / apply_scale_16, per channel, single or double rounding,
// zero points) with an optional following tosa.clamp, bit for bit the reference's arithmetic. Values that
// would trip one of the spec's REQUIREs (a value outside the shift's range, an i32 overflow adding the output
// zero point) rerun the step on the reference kernels, which give the verdict. Unsigned forms and non-constant
// parameters are left to the reference kernel.
#include <algorithm>
#include <limits>

#include "fast/kernels_common.h"
#include "fast/op_kernel.h"

namespace tosakit::fast {
namespace {

struct ChannelScale {
  int64_t multiplier = 0;
  int shift = 0;
  int64_t roundPos = 0, roundNeg = 0;  // rounding term for values >= 0 / < 0 (they differ with double rounding)
  int64_t lowest = 0, highest = 0;     // the REQUIRE's value range for apply_scale_32
};

class RescaleKernel : public OpKernel {
 public:
  std::string implName() const override { return "fast:rescale"; }

  template <typename In, typename Out>
  bool compute(const In* in, Out* out, int64_t n) const {
    const int64_t C = int64_t(ch_.size());
    const int64_t rows = n / C;
    bool bad = false;
#pragma omp parallel for schedule(static) reduction(| : bad) if (n > 65536)
    for (int64_t r = 0; r < rows; ++r) {
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
      bad |= b;
    }
    return !bad;
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

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const TensorView& x = in[0][0];
    const int64_t n = x.size();
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
};

bool isSignedInt(DType t) { return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::I48; }

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
  if ((k->inT_ != DType::I8 && k->inputZp_ != 0) || (k->outT_ != DType::I8 && k->outputZp_ != 0)) return CompiledKernel{};
  const Shape& shape = op.operands[0]->type.dims;
  const bool perChannel = op.boolAttr("per_channel");
  const int64_t C = perChannel ? (shape.empty() ? 0 : shape.back()) : 1;
  if (C <= 0 || mult.size() != C || shift.size() != C || (perChannel && shape.empty())) return CompiledKernel{};
  for (int64_t c = 0; c < C; ++c) {
    ChannelScale s;
    s.multiplier = mult.getInt(c);
    s.shift = int(shift.getInt(c));
    if (s.multiplier < 0 || s.shift < 2 || s.shift > 62) return CompiledKernel{};  // REQUIREs: the reference says so
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
  ck.kernel = std::move(k);
  return ck;
}

}  // namespace

void registerIntegerKernels(FastKernelRegistry& r) { r.add("tosa.rescale", compileRescale); }

}  // namespace tosakit::fast
