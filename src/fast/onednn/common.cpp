// Shared pieces of the oneDNN kernels: engine/stream, type mapping, constant operands, fused epilogues.
#include "fast/onednn/common.h"
#include "fast/isa_dispatch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/numeric.h"
#include "fast/cpu_features.h"
#include "fast/parallel_items.h"

namespace tosakit::fast::dnn {

namespace {

// oneDNN chooses its JIT code by its own CPU check; capped here (before its first primitive, the only time
// the cap can be set) to the fast backend's active level, so a forced level runs oneDNN's code for that level.
// At the machine's own level nothing is capped.
void capOneDnnIsa() {
  static const bool done = [] {
    using isa = dnnl::cpu_isa;
    if (cpu::activeIsa() == cpu::machineIsa()) return true;
    switch (cpu::activeIsa()) {
      case cpu::Isa::Baseline: (void)dnnl::set_max_cpu_isa(isa::sse41); break;
      case cpu::Isa::Avx2: (void)dnnl::set_max_cpu_isa(isa::avx2); break;
      case cpu::Isa::Avx2Vnni: (void)dnnl::set_max_cpu_isa(isa::avx2_vnni); break;
      case cpu::Isa::Avx512: (void)dnnl::set_max_cpu_isa(isa::avx512_core); break;
      case cpu::Isa::Avx512Vnni: (void)dnnl::set_max_cpu_isa(isa::avx512_core_vnni); break;
    }
    return true;
  }();
  (void)done;
}

}  // namespace

dnnl::engine& engine() {
  capOneDnnIsa();
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

bool exactInt8() {
  capOneDnnIsa();
  static const bool vnni = [] {
    using isa = dnnl::cpu_isa;
    const isa i = dnnl::get_effective_cpu_isa();
    return i == isa::avx512_core_vnni || i == isa::avx512_core_bf16 || i == isa::avx512_core_amx || i == isa::avx2_vnni;
  }();
  return vnni;
}

std::optional<dt> toDnnl(DType t) {
  switch (t) {
    case DType::FP32: return dt::f32;
    case DType::BF16: return dt::bf16;
    case DType::FP16: return dt::f16;
    case DType::I8: return dt::s8;
    case DType::U8: return dt::u8;
    case DType::I32: return dt::s32;
    default: return std::nullopt;
  }
}

std::string implName(const dnnl::primitive_desc_base& pd) { return std::string("onednn:") + pd.impl_info_str(); }

bool isReference(const dnnl::primitive_desc_base& pd) { return std::string(pd.impl_info_str()).rfind("ref", 0) == 0; }

namespace {

// The operand of ops[k] that is the previous op's result, or -1.
int chainedOperand(const OpChain& c, size_t k) {
  const ir::Value* prev = c.ops[k - 1]->results[0];
  for (size_t j = 0; j < c.ops[k]->operands.size(); ++j)
    if (c.ops[k]->operands[j] == prev) return int(j);
  return -1;
}

// clamp's min_val/max_val as values of the element type t (rounded as the reference kernel rounds them);
// nullopt when the attributes are malformed or violate an ERROR_IF (left to the reference kernel).
struct FloatBounds {
  double lo, hi;
};
std::optional<FloatBounds> floatClampBounds(const ir::Operation& op, DType t) {
  const ir::Attribute *lo = op.attr("min_val"), *hi = op.attr("max_val");
  if (!lo || !hi || lo->kind != ir::Attribute::Kind::Float || hi->kind != ir::Attribute::Kind::Float)
    return std::nullopt;
  FloatBounds b{roundToFloat(t, lo->f), roundToFloat(t, hi->f)};
  if (std::isnan(b.lo) || std::isnan(b.hi) || b.hi < b.lo) return std::nullopt;
  return b;
}

struct IntBounds {
  int64_t lo, hi;
};
std::optional<IntBounds> intClampBounds(const ir::Operation& op, DType t) {
  const ir::Attribute *lo = op.attr("min_val"), *hi = op.attr("max_val");
  if (!lo || !hi || lo->kind != ir::Attribute::Kind::Int || hi->kind != ir::Attribute::Kind::Int) return std::nullopt;
  IntBounds b{signExtend(lo->i, bitWidth(t)), signExtend(hi->i, bitWidth(t))};
  if (b.hi < b.lo) return std::nullopt;
  return b;
}

bool sameTensorType(const ir::ValueType& a, const ir::ValueType& b) {
  return isStatic(a) && isStatic(b) && a.dtype == b.dtype && a.dims == b.dims;
}

}  // namespace

namespace {

// The second operand of a fusable tosa.add/tosa.mul: the previous result's type, [1, ..., 1, C] (one value per
// channel) or [1, ..., 1] (one value); nullopt when not fusable. PerChannel needs C > 1 (C == 1 is Scalar).
std::optional<FloatEpilogueOp::Operand> fusableOperand(const ir::ValueType& other, const ir::ValueType& prev) {
  using Operand = FloatEpilogueOp::Operand;
  if (sameTensorType(other, prev)) return Operand::Full;
  if (!isStatic(other) || other.dtype != prev.dtype || other.rank() != prev.rank() || other.rank() == 0)
    return std::nullopt;
  for (int d = 0; d + 1 < other.rank(); ++d)
    if (other.dims[size_t(d)] != 1) return std::nullopt;
  if (other.dims.back() == 1) return Operand::Scalar;
  if (other.dims.back() == prev.dims.back()) return Operand::PerChannel;
  return std::nullopt;
}

dnnl::memory::desc perChannelMd(const dnnl::memory::desc& dstMd, int channelDim, int64_t channels) {
  dnnl::memory::dims d(size_t(dstMd.data.ndims), 1), strides(size_t(dstMd.data.ndims), channels);
  d[size_t(channelDim)] = channels;
  strides[size_t(channelDim)] = 1;
  return dnnl::memory::desc(d, dstMd.data_type(), strides);
}

dnnl::memory::desc operandMd(FloatEpilogueOp::Operand o, const dnnl::memory::desc& dstMd, int channelDim,
                             int64_t channels) {
  if (o == FloatEpilogueOp::Operand::Full) return dstMd;
  if (o == FloatEpilogueOp::Operand::PerChannel) return perChannelMd(dstMd, channelDim, channels);
  const size_t rank = size_t(dstMd.data.ndims);
  return dnnl::memory::desc(dnnl::memory::dims(rank, 1), dstMd.data_type(), dnnl::memory::dims(rank, 1));
}

// A tosa.mul's shift operand (operand 2): a constant 0 (floats require it), or no such operand.
bool zeroShift(const OpChain& c, size_t k) {
  if (c.ops[k]->operands.size() < 3) return c.ops[k]->operands.size() == 2;
  const Tensor* t = constOperand(c, k, 2);
  if (!t || !isInteger(t->dtype())) return false;
  for (int64_t i = 0; i < t->size(); ++i)
    if (t->getInt(i) != 0) return false;
  return true;
}

}  // namespace

namespace {
constexpr int64_t kScanChunk = 1 << 16;  // values per thread's piece of a scan; one thread below two pieces

TK_VECTOR_BODY uint32_t maxAbsBitsBody(const uint32_t* p, int64_t n) {
  uint32_t m = 0;
  for (int64_t i = 0; i < n; ++i) m = std::max(m, p[i] & 0x7fffffffu);
  return m;
}
uint32_t maxAbsBits(const uint32_t* p, int64_t n) { TK_ISA_DISPATCH(maxAbsBitsBody(p, n)); }
TK_VECTOR_BODY uint32_t copyF32SpecialsBody(const uint32_t* src, uint32_t* dst, int64_t n) {
  uint32_t special = 0;
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = src[i];
    special |= uint32_t((src[i] & 0x7f800000u) == 0x7f800000u);
  }
  return special;
}
uint32_t copyF32Specials(const uint32_t* src, uint32_t* dst, int64_t n) {
  TK_ISA_DISPATCH(copyF32SpecialsBody(src, dst, n));
}
}  // namespace

float maxAbsF32(const float* x, int64_t n) {
  const uint32_t* p = reinterpret_cast<const uint32_t*>(x);
  const uint32_t m = parallelReduce(
      (n + kScanChunk - 1) / kScanChunk, n >= 2 * kScanChunk, uint32_t(0),
      [&](int64_t c) { return maxAbsBits(p + c * kScanChunk, std::min(kScanChunk, n - c * kScanChunk)); },
      [](uint32_t a, uint32_t b) { return std::max(a, b); });
  float f;
  std::memcpy(&f, &m, 4);
  return f;  // NaN bit patterns sort above infinity: a NaN input gives a NaN (compares as not <= any limit)
}

double maxAbsValue(const Tensor& t) {
  double m = 0;
  for (int64_t i = 0; i < t.size(); ++i) {
    const double v = std::fabs(t.getFloat(i));
    if (!std::isfinite(v)) return INFINITY;
    m = std::max(m, v);
  }
  return m;
}

bool copyAllFiniteF32(const float* src, float* dst, int64_t n) {
  const uint32_t* s = reinterpret_cast<const uint32_t*>(src);
  uint32_t* d = reinterpret_cast<uint32_t*>(dst);
  const uint32_t special = parallelReduce((n + kScanChunk - 1) / kScanChunk, n >= 2 * kScanChunk, uint32_t(0),
                                          [&](int64_t c) {
                                            const int64_t b = c * kScanChunk, len = std::min(kScanChunk, n - b);
                                            return src == dst ? uint32_t(maxAbsBits(s + b, len) >= 0x7f800000u)
                                                              : copyF32Specials(s + b, d + b, len);
                                          },
                                          [](uint32_t a, uint32_t b) { return a | b; });
  return !special;
}

FloatEpilogue planFloatEpilogue(const OpChain& c, const dnnl::memory::desc& dstMd, int channelDim, int maxOps,
                                bool allowBinary, bool allowPostOps, std::optional<ResultBound> bound, bool allowSum) {
  using Op = FloatEpilogueOp;
  FloatEpilogue e;
  // max |value| of a constant operand (tosa.mul/tosa.add), or nullopt for a run-time one.
  auto constMaxAbs = [&](size_t k, size_t j) -> std::optional<double> {
    const Tensor* t = constOperand(c, k, j);
    return t ? std::optional<double>(maxAbsValue(*t)) : std::nullopt;
  };
  const DType outT = resultType(c, 0).dtype;
  const bool passable = outT == DType::FP32 || outT == DType::BF16;
  if (outT != DType::FP32) bound.reset();
  for (size_t k = 1; k < c.ops.size() && int(k) <= maxOps; ++k) {
    const ir::Operation& op = *c.ops[k];
    const int prev = chainedOperand(c, k);
    if (prev < 0 || op.results.size() != 1) break;
    const bool inPass = !e.manual.empty() || !allowPostOps;
    const bool isAdd = op.name == "tosa.add" && op.operands.size() == 2;
    const bool isMul = op.name == "tosa.mul" && (op.operands.size() == 2 || op.operands.size() == 3) && prev < 2 &&
        outT == DType::FP32 && zeroShift(c, k);
    if (isAdd || isMul) {
      const size_t other = prev == 0 ? 1 : 0;
      // acc(+bias) rounded, then (+|*) other rounded, as TOSA; + and * of floats are commutative bit for bit.
      auto kind = fusableOperand(operandType(c, k, other), resultType(c, k - 1));
      if (!kind || !sameTensorType(resultType(c, k), resultType(c, k - 1))) break;
      const int64_t channels = resultType(c, k).dims.back();
      if (bound) {
        auto m = constMaxAbs(k, other);
        if (!m)
          bound.reset();
        else if (isAdd)
          bound->offset += *m;
        else
          bound->scale *= *m, bound->offset *= *m;
      }
      if (allowSum && isAdd && !inPass && e.postOps.len() == 0 && *kind == Op::Operand::Full && outT == DType::FP32) {
        // dst = acc + dst in fp32, one rounding: the same as acc rounded, then + other rounded.
        e.postOps.append_sum(1.f);
        e.sumOperand = std::make_pair(k, other);
      } else if (allowBinary && !inPass) {
        const dnnl::memory::desc md = operandMd(*kind, dstMd, channelDim, channels);
        e.binaryOperands.push_back({k, other, e.postOps.len(), md});
        e.postOps.append_binary(isAdd ? dnnl::algorithm::binary_add : dnnl::algorithm::binary_mul, md);
      } else {
        if (!passable) break;
        Op m;
        m.kind = isAdd ? Op::Kind::Add : Op::Kind::Mul;
        m.operand = *kind, m.k = k, m.j = other, m.channels = channels;
        e.manual.push_back(m);
      }
    } else if (op.name == "tosa.clamp" && op.operands.size() == 1) {
      if (resultType(c, k).dtype != outT) break;
      auto b = floatClampBounds(op, outT);
      if (!b) break;
      const bool ignoreNan = op.strAttr("nan_mode", "PROPAGATE") == "IGNORE";
      // Half of FLT_MAX leaves room for the rounding of the partial sums.
      const double limit = bound && bound->scale > 0 ? (3.4e38 / 2 - bound->offset) / bound->scale
          : bound && bound->offset < 3.4e38 / 2      ? INFINITY
                                                     : -1;
      if ((ignoreNan || limit > 0) && !inPass) {
        if (!ignoreNan) e.inputAbsLimit = std::min(e.inputAbsLimit, limit);
        e.postOps.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, float(b->lo), float(b->hi));
        if (bound) bound->scale = 0, bound->offset = std::max(std::fabs(b->lo), std::fabs(b->hi));
      } else {
        if (!passable) break;
        Op m;
        m.kind = Op::Kind::Clamp;
        m.lo = float(b->lo), m.hi = float(b->hi), m.ignoreNan = ignoreNan;
        e.manual.push_back(m);
      }
    } else {
      break;
    }
    e.absorbed = int(k);
  }
  // Every value finite: the exact results are at most FLT_MAX (ReLU's clamp to FLT_MAX included), so their fp32
  // roundings are too. Consumers check magnitudes themselves.
  if (bound && bound->scale == 0 && e.manual.empty() && bound->offset <= double(std::numeric_limits<float>::max()))
    e.staticAbsBound = bound->offset;
  return e;
}

namespace {

inline float bf16Load(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// Round to nearest even (NaN stays a quiet NaN).
inline uint16_t bf16Store(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (f != f) return uint16_t((u >> 16) | 0x40);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

inline float applyManual(const FloatEpilogueOp& m, float v, float other) {
  switch (m.kind) {
    case FloatEpilogueOp::Kind::Add: return v + other;
    case FloatEpilogueOp::Kind::Mul: return v * other;
    default: break;
  }
  if (m.ignoreNan) return v != v ? m.lo : std::min(std::max(v, m.lo), m.hi);  // apply_clip_f, IGNORE
  return v != v ? v : std::min(std::max(v, m.lo), m.hi);                      // apply_clip_f, PROPAGATE
}

TK_VECTOR_BODY void addF32Body(float* p, const float* q, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] += q[i];
}
void addF32(float* p, const float* q, int64_t n) { TK_ISA_DISPATCH(addF32Body(p, q, n)); }
TK_VECTOR_BODY void mulF32Body(float* p, const float* q, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] *= q[i];
}
void mulF32(float* p, const float* q, int64_t n) { TK_ISA_DISPATCH(mulF32Body(p, q, n)); }
TK_VECTOR_BODY void addScalarF32Body(float* p, float q, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] += q;
}
void addScalarF32(float* p, float q, int64_t n) { TK_ISA_DISPATCH(addScalarF32Body(p, q, n)); }
TK_VECTOR_BODY void mulScalarF32Body(float* p, float q, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] *= q;
}
void mulScalarF32(float* p, float q, int64_t n) { TK_ISA_DISPATCH(mulScalarF32Body(p, q, n)); }
// p[i] (+|*)= q[(first + i) % channels]: a per-channel op over a block whose first element is in channel `first`.
void perChannelF32(float* p, const float* q, int64_t n, int64_t channels, int64_t first, bool mul) {
  int64_t ch = first;
  for (int64_t i = 0; i < n; ++i) {
    p[i] = mul ? p[i] * q[ch] : p[i] + q[ch];
    if (++ch == channels) ch = 0;
  }
}
TK_VECTOR_BODY void clampPropagateF32Body(float* p, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = p[i], c = std::min(std::max(x, lo), hi);
    p[i] = x != x ? x : c;
  }
}
void clampPropagateF32(float* p, int64_t n, float lo, float hi) {
  TK_ISA_DISPATCH(clampPropagateF32Body(p, n, lo, hi));
}
TK_VECTOR_BODY void clampIgnoreF32Body(float* p, int64_t n, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = p[i], c = std::min(std::max(x, lo), hi);
    p[i] = x != x ? lo : c;
  }
}
void clampIgnoreF32(float* p, int64_t n, float lo, float hi) { TK_ISA_DISPATCH(clampIgnoreF32Body(p, n, lo, hi)); }

}  // namespace

void runManualFloatOps(const FloatEpilogue& e, const std::vector<std::vector<TensorView>>& in, const TensorView& out) {
  using Op = FloatEpilogueOp;
  if (e.manual.empty()) return;
  const int64_t n = out.size();
  const bool bf16 = out.dtype == DType::BF16;
  std::vector<const void*> others;
  for (const auto& m : e.manual) others.push_back(m.kind != Op::Kind::Clamp ? in[m.k][m.j].data : nullptr);
  constexpr int64_t kBlock = 4096;
  parallelItems((n + kBlock - 1) / kBlock, n > (1 << 16), [&](int64_t block) {
    const int64_t b0 = block * kBlock, b1 = std::min(n, b0 + kBlock);
    for (size_t o = 0; o < e.manual.size(); ++o) {
      const auto& m = e.manual[o];
      if (bf16) {
        uint16_t* p = out.as<uint16_t>();
        const uint16_t* q = static_cast<const uint16_t*>(others[o]);
        auto at = [&](int64_t i) {
          return m.operand == Op::Operand::Full ? i : m.operand == Op::Operand::PerChannel ? i % m.channels : 0;
        };
        for (int64_t i = b0; i < b1; ++i)
          p[i] = bf16Store(applyManual(m, bf16Load(p[i]), q ? bf16Load(q[at(i)]) : 0.f));
        continue;
      }
      float* p = out.as<float>() + b0;
      const float* q = static_cast<const float*>(others[o]);
      const bool mul = m.kind == Op::Kind::Mul;
      if (m.kind == Op::Kind::Clamp) {
        if (m.ignoreNan)
          clampIgnoreF32(p, b1 - b0, m.lo, m.hi);
        else
          clampPropagateF32(p, b1 - b0, m.lo, m.hi);
      } else if (m.operand == Op::Operand::PerChannel) {
        perChannelF32(p, q, b1 - b0, m.channels, b0 % m.channels, mul);
      } else if (m.operand == Op::Operand::Scalar) {
        if (mul)
          mulScalarF32(p, q[0], b1 - b0);
        else
          addScalarF32(p, q[0], b1 - b0);
      } else {
        if (mul)
          mulF32(p, q + b0, b1 - b0);
        else
          addF32(p, q + b0, b1 - b0);
      }
    }
  });
}

IntEpilogue planIntEpilogue(const OpChain& c, int64_t channels, const Tensor* constBias) {
  IntEpilogue e;
  e.channels = channels;
  if (constBias) {
    std::vector<int64_t> b = constBias->toInts();
    bool allZero = std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; });
    if (!allZero) {
      e.biasTable.resize(size_t(channels));
      for (int64_t ch = 0; ch < channels; ++ch) e.biasTable[size_t(ch)] = int32_t(b[b.size() == 1 ? 0 : size_t(ch)]);
    }
  }
  // Every output value is a sum of at most ceil(|w| / channels) products of an i8 input and an i8 weight, each
  // of magnitude <= 2^14 (oneDNN's accumulator: zero-point compensation is in biasTable).
  const Tensor* w = constOperand(c, 0, 1);
  if (w && w->dtype() == DType::I8 && operandType(c, 0, 0).dtype == DType::I8 && channels > 0)
    e.accBound = (int64_t(1) << 14) * ((w->size() + channels - 1) / channels);
  DType cur = resultType(c, 0).dtype;
  for (size_t k = 1; k < c.ops.size(); ++k) {
    const ir::Operation& op = *c.ops[k];
    if (chainedOperand(c, k) != 0 || op.results.size() != 1) break;
    const DType outT = resultType(c, k).dtype;
    if (op.name == "tosa.rescale" && !e.rescale && !e.clamp && cur == DType::I32 && op.operands.size() == 5) {
      if (outT != DType::I8 && outT != DType::I16 && outT != DType::I32) break;
      if (op.boolAttr("input_unsigned") || op.boolAttr("output_unsigned")) break;
      const std::string mode = op.strAttr("rounding_mode", "SINGLE_ROUND");
      const bool scale32 = op.boolAttr("scale32", true);
      if (mode != "SINGLE_ROUND" && mode != "DOUBLE_ROUND" && mode != "INEXACT_ROUND") break;
      if (!scale32 && mode == "DOUBLE_ROUND") break;  // an ERROR_IF: the reference kernel reports it
      const Tensor *mult = constOperand(c, k, 1), *shift = constOperand(c, k, 2);
      auto inZp = constScalarInt(c, k, 3), outZp = constScalarInt(c, k, 4);
      if (!mult || !shift || !inZp || !outZp || *inZp != 0) break;
      if (mult->dtype() != (scale32 ? DType::I32 : DType::I16) || shift->dtype() != DType::I8) break;
      if (outT != DType::I8 && *outZp != 0) break;
      const bool perChannel = op.boolAttr("per_channel");
      const int64_t nc = perChannel ? channels : 1;
      if (mult->size() != nc || shift->size() != nc) break;
      std::vector<int64_t> m = mult->toInts(), s = shift->toInts();
      // Out-of-range multipliers/shifts fail a REQUIRE: leave them to the reference kernel's verdict.
      bool ok = true;
      for (size_t i = 0; i < m.size(); ++i) ok = ok && m[i] >= 0 && s[i] >= 2 && s[i] <= 62;
      if (!ok) break;
      // The pass computes in 32 bits what fits 32 bits only while the rescale's REQUIREs hold: apply_scale_32
      // requires value in [-2^(shift-1), 2^(shift-1)) (a shift <= 31: checked per value, e.rangeCheck);
      // apply_scale_16 requires the result to fit i32, which holds for every i32 value once shift >= 16
      // (|v * m| < 2^31 * 2^15 = 2^46). A smaller scale16 shift stays a separate rescale step.
      bool rangeCheck = false;
      for (size_t i = 0; i < s.size(); ++i) {
        if (!scale32 && s[i] < 16) ok = false;
        rangeCheck = rangeCheck || (scale32 && s[i] <= 31);
      }
      if (!ok) break;
      e.rangeCheck = rangeCheck;
      e.multiplier.resize(size_t(channels));
      e.shift.resize(size_t(channels));
      for (int64_t ch = 0; ch < channels; ++ch) {
        e.multiplier[size_t(ch)] = m[perChannel ? size_t(ch) : 0];
        e.shift[size_t(ch)] = s[perChannel ? size_t(ch) : 0];
      }
      e.roundPos.resize(size_t(channels));
      e.roundNeg.resize(size_t(channels));
      for (int64_t ch = 0; ch < channels; ++ch) {
        const int64_t sh = e.shift[size_t(ch)], round = int64_t(1) << (sh - 1);
        const bool dbl = mode == "DOUBLE_ROUND" && sh > 31;
        e.roundPos[size_t(ch)] = dbl ? round + (int64_t(1) << 30) : round;
        e.roundNeg[size_t(ch)] = dbl ? round - (int64_t(1) << 30) : round;
      }
      e.rescale = true;
      e.scale32 = scale32;
      e.doubleRound = mode == "DOUBLE_ROUND";
      e.outputZp = *outZp;
      e.outType = outT;
    } else if (op.name == "tosa.clamp" && !e.clamp && op.operands.size() == 1 && outT == cur) {
      auto b = intClampBounds(op, cur);
      if (!b) break;
      e.clamp = true;
      e.clampLo = b->lo;
      e.clampHi = b->hi;
    } else {
      break;
    }
    cur = outT;
    e.absorbed = int(k);
  }
  return e;
}

namespace {

// n elements of rows of channels (lane i has its parameters at index i), branch-free so that it vectorizes.
// acc and out may be the same buffer (i32 results): each element is read before it is written. Only the product
// needs 64 bits (a 32x32 -> 64-bit multiply); the rescaled value fits 31 bits (|v * m| < 2^62 >> shift >= 32,
// or |v| < 2^(shift - 1) by the REQUIRE, checked here when kRange), so the zero point and the clamp are 32-bit.
// Returns false when acc + bias overflows i32 (a REQUIRE of the convolution) or, with kRange, a value is outside
// apply_scale_32's range: the reference kernels give the verdict.
template <typename OutT, bool kRescale, bool kDoubleRound, bool kRange>
TK_VECTOR_BODY bool epilogueRowBody(const int32_t* acc, OutT* out, int64_t n, const int32_t* __restrict bias,
                                    const int32_t* __restrict mult, const int64_t* __restrict shift,
                                    const int64_t* __restrict roundPos, const int64_t* __restrict roundNeg,
                                    const int32_t* __restrict rangeLo, const int32_t* __restrict rangeHi, int32_t outZp,
                                    int32_t lo, int32_t hi) {
  int32_t overflow = 0;  // sign bit set on an i32 overflow of acc + bias (an int flag: it vectorizes)
  int32_t outside = 0;   // apply_scale_32's value range (kRange)
  for (int64_t i = 0; i < n; ++i) {
    // acc + bias in out_t = i32, wrapping; it overflowed iff the sum's sign differs from both operands' signs.
    const int32_t a = acc[i], b = bias[i];
    int32_t v = int32_t(uint32_t(a) + uint32_t(b));
    overflow |= (a ^ v) & (b ^ v);
    if constexpr (kRange) outside |= int32_t(v < rangeLo[i]) | int32_t(v > rangeHi[i]);
    if constexpr (kRescale) {
      // apply_scale_32 (double rounding: the sign-dependent round term) / apply_scale_16.
      int64_t round = roundPos[i];
      if constexpr (kDoubleRound) round = v >= 0 ? round : roundNeg[i];
      v = int32_t(uint32_t((int64_t(v) * int64_t(mult[i]) + round) >> shift[i]) + uint32_t(outZp));
    }
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    out[i] = OutT(v);
  }
  return overflow >= 0 && outside == 0;
}
template <typename OutT, bool kRescale, bool kDoubleRound, bool kRange>
bool epilogueRow(const int32_t* acc, OutT* out, int64_t n, const int32_t* __restrict bias,
                 const int32_t* __restrict mult, const int64_t* __restrict shift, const int64_t* __restrict roundPos,
                 const int64_t* __restrict roundNeg, const int32_t* __restrict rangeLo,
                 const int32_t* __restrict rangeHi, int32_t outZp, int32_t lo, int32_t hi) {
  TK_ISA_DISPATCH(epilogueRowBody<OutT, kRescale, kDoubleRound, kRange>(acc, out, n, bias, mult, shift, roundPos,
                                                                        roundNeg, rangeLo, rangeHi, outZp, lo, hi));
}

// Rows per block: blocks of k rows are one long vector loop (a row of a few dozen channels alone is mostly
// loop overhead); the lanes hold k * C parameters.
int64_t rowsPerBlock(const IntEpilogue& e) { return std::max<int64_t>(1, 512 / std::max<int64_t>(e.channels, 1)); }

// The per-channel parameters repeated over k rows (lane i is channel i % C), built on the first run; the bias
// lanes on every run only when the bias is a run-time operand.
void buildLanes(const IntEpilogue& e, const int32_t* bias, int64_t k) {
  const int64_t C = e.channels, L = k * C;
  if (e.rescale && int64_t(e.laneMult.size()) != L) {
    e.laneMult.resize(size_t(L)), e.laneShift.resize(size_t(L));
    e.laneRoundPos.resize(size_t(L)), e.laneRoundNeg.resize(size_t(L));
    e.laneLo.resize(size_t(L)), e.laneHi.resize(size_t(L));
    for (int64_t i = 0; i < L; ++i) {
      const size_t c = size_t(i % C);
      e.laneMult[size_t(i)] = int32_t(e.multiplier[c]), e.laneShift[size_t(i)] = e.shift[c];
      e.laneRoundPos[size_t(i)] = e.roundPos[c], e.laneRoundNeg[size_t(i)] = e.roundNeg[c];
      // apply_scale_32's REQUIRE: value in [-2^(shift-1), 2^(shift-1)), as an inclusive i32 range.
      const int64_t half = int64_t(1) << std::min<int64_t>(e.shift[c] - 1, 31);
      e.laneLo[size_t(i)] = int32_t(std::max<int64_t>(-half, INT32_MIN));
      e.laneHi[size_t(i)] = int32_t(std::min<int64_t>(half - 1, INT32_MAX));
    }
  }
  if (!e.runtimeBias && int64_t(e.laneBias.size()) == L) return;  // a constant bias: built on the first run
  e.laneBias.resize(size_t(L));
  for (int64_t i = 0; i < L; ++i) e.laneBias[size_t(i)] = bias[i % C];
}

template <typename OutT>
bool epilogueSpan(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t n, const int32_t* bias, int32_t lo,
                  int32_t hi) {
  const int32_t zp = int32_t(e.outputZp);
  if (!e.rescale)
    return epilogueRow<OutT, false, false, false>(acc, out, n, bias, nullptr, nullptr, nullptr, nullptr, nullptr,
                                                  nullptr, 0, lo, hi);
  const int32_t *mult = e.laneMult.data(), *rlo = e.laneLo.data(), *rhi = e.laneHi.data();
  const int64_t *sh = e.laneShift.data(), *rp = e.laneRoundPos.data(), *rn = e.laneRoundNeg.data();
  if (e.rangeCheck) {
    if (e.doubleRound)
      return epilogueRow<OutT, true, true, true>(acc, out, n, bias, mult, sh, rp, rn, rlo, rhi, zp, lo, hi);
    return epilogueRow<OutT, true, false, true>(acc, out, n, bias, mult, sh, rp, rn, rlo, rhi, zp, lo, hi);
  }
  if (e.doubleRound)
    return epilogueRow<OutT, true, true, false>(acc, out, n, bias, mult, sh, rp, rn, rlo, rhi, zp, lo, hi);
  return epilogueRow<OutT, true, false, false>(acc, out, n, bias, mult, sh, rp, rn, rlo, rhi, zp, lo, hi);
}

// Saturation to the result type (rescale) and the clamp's bounds, in that order: [lo, hi] is inside the type's
// range, so one min/max pair computes both clips. As i32: the result is an i32 value before it is clipped.
struct Clip {
  int32_t lo, hi;
};
Clip clipOf(const IntEpilogue& e) {
  int64_t lo = dtypeMin(e.outType), hi = dtypeMax(e.outType);
  if (!e.rescale && !e.clamp) lo = INT32_MIN, hi = INT32_MAX;
  if (e.clamp) lo = std::max(lo, e.clampLo), hi = std::min(hi, e.clampHi);
  return Clip{int32_t(std::max<int64_t>(lo, INT32_MIN)), int32_t(std::min<int64_t>(hi, INT32_MAX))};
}

// Rows [r0, r1) with one bias vector (the lanes built), on the calling thread.
template <typename OutT>
bool epilogueBlocks(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t r0, int64_t r1, Clip clip) {
  const int64_t C = e.channels, k = rowsPerBlock(e);
  for (int64_t r = r0; r < r1; r += k) {
    const int64_t n = (std::min(r1, r + k) - r) * C;
    if (!epilogueSpan(e, acc + (r - r0) * C, out + (r - r0) * C, n, e.laneBias.data(), clip.lo, clip.hi)) return false;
  }
  return true;
}

template <typename OutT>
bool epilogueRows(const IntEpilogue& e, const int32_t* acc, OutT* out, int64_t rows, const int32_t* bias) {
  const int64_t C = e.channels, k = rowsPerBlock(e);
  const Clip clip = clipOf(e);
  buildLanes(e, bias, k);
  if (e.rowClass.empty()) {  // one bias vector
    const int64_t blocks = (rows + k - 1) / k;
    return parallelItems(blocks, rows * C > (1 << 15), [&](int64_t b) {
      const int64_t r0 = b * k;
      return epilogueBlocks(e, acc + r0 * C, out + r0 * C, r0, std::min(rows, r0 + k), clip);
    });
  }
  // Zero-point compensation: the bias vector depends on the position's class, row by row.
  const int64_t perImage = int64_t(e.rowClass.size());
  return parallelItems(rows, rows * C > (1 << 15), [&](int64_t r) {
    return epilogueSpan(e, acc + r * C, out + r * C, C, bias + e.rowClass[size_t(r % perImage)], clip.lo, clip.hi);
  });
}

}  // namespace

bool runIntEpilogue(const IntEpilogue& e, const int32_t* acc, int64_t rows, const TensorView& out,
                    const void* runtimeBias) {
  const int64_t C = e.channels;
  const bool avx512 = hasAvx512Epilogue(), avx2 = !avx512 && hasAvx2Epilogue();
  const bool avxReady = (avx512 || avx2) && !e.runtimeBias && !e.simd.bias.empty();
  std::vector<int32_t> rtBias;
  const int32_t* bias = e.biasTable.data();
  if (avxReady) {
    // the lanes hold the constant bias already: no per-run vector
  } else if (e.runtimeBias) {
    const int32_t* b = static_cast<const int32_t*>(runtimeBias);
    rtBias.assign(size_t(C), 0);
    for (int64_t ch = 0; ch < C; ++ch) rtBias[size_t(ch)] = e.runtimeBiasBroadcast ? b[0] : b[ch];
    bias = rtBias.data();
  } else if (e.biasTable.empty()) {
    rtBias.assign(size_t(C), 0);
    bias = rtBias.data();
  }
  if (avx512 || avx2) {
    // The parameters in AVX-512/AVX2 form: built on the first run (the bias on every run when it is a run-time
    // one).
    if (e.runtimeBias || e.simd.bias.empty())
      buildIntEpilogueLanes(e, bias, e.rowClass.empty() ? 1 : int64_t(e.biasTable.size()) / std::max<int64_t>(C, 1));
    constexpr int64_t kChunk = 64;  // rows per parallel work item
    const int64_t chunks = (rows + kChunk - 1) / kChunk;
    return parallelItems(chunks, rows * C > (1 << 15), [&](int64_t k) {
      const int64_t r0 = k * kChunk, r1 = std::min(rows, (k + 1) * kChunk);
      return avx512 ? runIntEpilogueAvx512(e, acc, out.data, r0, r1) : runIntEpilogueAvx2(e, acc, out.data, r0, r1);
    });
  }
  switch (e.outType) {
    case DType::I8: return epilogueRows(e, acc, out.as<int8_t>(), rows, bias);
    case DType::I16: return epilogueRows(e, acc, out.as<int16_t>(), rows, bias);
    default: return epilogueRows(e, acc, out.as<int32_t>(), rows, bias);
  }
}

void prepareIntEpilogue(IntEpilogue& e) {
  if (e.biasTable.empty()) e.biasTable.assign(size_t(e.channels), 0);
  buildLanes(e, e.biasTable.data(), rowsPerBlock(e));
  if (hasAvx512Epilogue() || hasAvx2Epilogue()) buildIntEpilogueLanes(e, e.biasTable.data(), 1);
}

bool runIntEpilogueRows(const IntEpilogue& e, const int32_t* acc, int64_t rows, void* out, int64_t firstRow) {
  const int64_t first = firstRow * e.channels;
  const int64_t bytes = e.outType == DType::I8 ? 1 : e.outType == DType::I16 ? 2 : 4;
  if (hasAvx512Epilogue()) return runIntEpilogueAvx512(e, acc, static_cast<uint8_t*>(out) + first * bytes, 0, rows);
  if (hasAvx2Epilogue()) return runIntEpilogueAvx2(e, acc, static_cast<uint8_t*>(out) + first * bytes, 0, rows);
  const Clip clip = clipOf(e);
  switch (e.outType) {
    case DType::I8: return epilogueBlocks(e, acc, static_cast<int8_t*>(out) + first, 0, rows, clip);
    case DType::I16: return epilogueBlocks(e, acc, static_cast<int16_t*>(out) + first, 0, rows, clip);
    default: return epilogueBlocks(e, acc, static_cast<int32_t*>(out) + first, 0, rows, clip);
  }
}

int32_t* accScratch(int64_t elements) {
  thread_local std::vector<int32_t> buf;
  if (int64_t(buf.size()) < elements) buf.resize(size_t(elements));
  return buf.data();
}

}  // namespace tosakit::fast::dnn
