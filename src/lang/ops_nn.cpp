// NN / matrix BMLang operators: conv, deconv, conv3d, matrix_mul, fc_int, pool, pool_int, batch_norm,
// softmax. The quantized forms reproduce the pseudocode of BMLang's three QCalModes with integer TOSA ops:
// the accumulation by CONV2D/CONV3D/TRANSPOSE_CONV2D/MATMUL in i32, BMLang's rounding right shifts by
// ARITHMETIC_RIGHT_SHIFT(round), saturations by CLAMP, and the "remaining float scale" compensation
// round(v * scale) by an exact RESCALE (roundScaleHalfAway).
#include <cmath>
#include <limits>

#include "lang/lang_internal.h"

namespace tosakit::lang {

namespace {

// ---- Quantized post-processing (shared by conv, deconv, conv3d and matrix_mul) ---------------------

struct QuantInput {
  Value* acc = nullptr;       // i32 Conv(input, weight), channels last
  Value* accZp = nullptr;     // i32 Conv(input, zp_r) (HighPrecisionAsymmetric with zp_r != 0), channels last
  std::vector<int64_t> bias;  // per output channel; empty: no bias
  DType biasType = DType::I16;
  std::vector<int64_t> weightSum;  // per output channel: sum of (weight - zp_r)
};

struct QuantParams {
  double scale;
  QCalMode mode;
  int zpl, zpr, zpo;
  bool asymFloorShift;  // conv's HighPrecisionAsymmetric uses floor(log2(1/scale)), matrix_mul ceil
};

// BMLang: scale = (float)param.scale; rshift = (0 < scale <= 1) ? ceil|floor(log2(1/scale)) : 0.
int bmRshift(float scale, bool useFloor) {
  if (!(scale > 0.0f) || scale > 1.0f) return 0;
  double l = std::log2(1.0 / double(scale));
  return int(useFloor ? std::floor(l) : std::ceil(l));
}

Value* biasConst(Graph::Impl& g, const std::vector<int64_t>& bias, int rank) {
  Shape s(size_t(rank), 1);
  s.back() = int64_t(bias.size());
  return g.constI32(bias, s);
}

int64_t maxAbs(const std::vector<int64_t>& v) {
  int64_t m = 0;
  for (int64_t x : v) m = std::max<int64_t>(m, std::llabs(x));
  return m;
}

void requireOut(DType out, bool allow16, const char* mode) {
  bool ok = out == DType::I8 || out == DType::U8 || (allow16 && (out == DType::I16 || out == DType::U16));
  if (!ok)
    invalid(std::string(mode) + " output must be " + (allow16 ? "i8, u8, i16 or u16" : "i8 or u8") + ", got " +
            std::string(dtypeName(out)));
}

// res * 2^r + bias (exact in i32, checked against `bound` by roundScaleHalfAway) scaled by `scale`.
Value* compensate(Graph::Impl& g, Value* res, int r, const std::vector<int64_t>& bias, float scale) {
  int rank = res->type.rank();
  if (r > 30) unsupported("rshift " + std::to_string(r) + " > 30: res * 2^rshift does not fit 32 bits");
  int64_t bound = (int64_t(32768) << r) + maxAbs(bias);
  if (bound > std::numeric_limits<int32_t>::max())
    unsupported("res * 2^" + std::to_string(r) + " + bias (up to " + std::to_string(bound) +
                ") does not fit 32 bits; TOSA cannot reproduce this scale/bias exactly");
  Value* v = r == 0 ? res : g.mulI32(res, g.splat(DType::I32, double(int64_t(1) << r), rank), 0);
  if (!bias.empty()) v = g.binary("tosa.add", v, biasConst(g, bias, rank), DType::I32);
  return g.roundScaleHalfAway(v, double(scale), bound);
}

Value* quantize(Graph::Impl& g, const QuantInput& q, const QuantParams& p, DType out) {
  const float scale = float(p.scale);
  if (!(scale > 0.0f)) invalid("scale must be positive");
  if (q.biasType == DType::FP32)
    unsupported("an fp32 bias cannot be reproduced exactly by integer TOSA ops; give an i16 or i32 bias");
  int rank = q.acc->type.rank();
  bool bias32 = q.biasType == DType::I32;
  switch (p.mode) {
    case QCalMode::LowPrecisionSymmetric: {
      if (p.zpl || p.zpr || p.zpo) invalid("LowPrecisionSymmetric requires zero points 0");
      requireOut(out, false, "LowPrecisionSymmetric");
      int r = bmRshift(scale, false);
      Value* v = q.bias.empty() ? q.acc : g.binary("tosa.add", q.acc, biasConst(g, q.bias, rank), DType::I32);
      Value* res = g.clampI32(g.roundShift(v, r), dtypeMin(out), dtypeMax(out));
      float left = float(double(scale) * std::exp2(r));
      if (left != 1.0f) {
        // imm_res2 = ((res * (int)(scale_left * 2^7)) + (1 << 6)) >> 7
        int64_t m = int64_t(left * std::exp2(7));
        Value* prod = g.mulI32(res, g.splat(DType::I32, double(m), rank), 0);
        res = g.clampI32(g.roundShift(prod, 7), dtypeMin(out), dtypeMax(out));
      }
      return g.narrow(res, out);
    }
    case QCalMode::HighPrecisionSymmetric: {
      if (p.zpl || p.zpr || p.zpo) invalid("HighPrecisionSymmetric requires zero points 0");
      requireOut(out, true, "HighPrecisionSymmetric");
      int r = bmRshift(scale, false);
      Value* v = q.acc;
      if (!bias32 && !q.bias.empty()) v = g.binary("tosa.add", v, biasConst(g, q.bias, rank), DType::I32);
      Value* res = g.clampI32(g.roundShift(v, r), -32768, 32767);
      // 16-bit bias: round(res * scale * 2^r); 32-bit bias: round(res * scale * 2^r + bias * scale).
      Value* y = bias32 ? compensate(g, res, r, q.bias, scale)
                        : g.roundScaleHalfAway(res, double(scale) * std::exp2(r), 32768);
      return g.narrow(y, out);
    }
    case QCalMode::HighPrecisionAsymmetric: {
      requireOut(out, true, "HighPrecisionAsymmetric");
      int r = bmRshift(scale, p.asymFloorShift);
      Value* part1 = g.clampI32(g.roundShift(q.acc, r), -32768, 32767);
      Value* res = part1;
      if (q.accZp) {
        Value* part2 = g.clampI32(g.roundShift(q.accZp, r), -32768, 32767);
        res = g.clampI32(g.binary("tosa.sub", part1, part2, DType::I32), -32768, 32767);
      }
      // bias_v2 = bias - zp_l * sum(weight - zp_r), folded offline.
      std::vector<int64_t> biasV2(q.weightSum.size(), 0);
      for (size_t c = 0; c < biasV2.size(); ++c)
        biasV2[c] = (q.bias.empty() ? 0 : q.bias[c]) - int64_t(p.zpl) * q.weightSum[c];
      Value* y = compensate(g, res, r, biasV2, scale);
      if (p.zpo) y = g.binary("tosa.add", y, g.splat(DType::I32, p.zpo, rank), DType::I32);
      return g.narrow(y, out);
    }
  }
  invalid("unknown QCalMode");
}

// ---- Operand preparation ----------------------------------------------------------------------------

// An i8/u8 runtime tensor as TOSA i8 with the zero point that makes (value - zp) the BMLang value: u8 x
// becomes x - 128 (RESCALE) read with zero point -128.
std::pair<Value*, int64_t> int8Operand(Graph::Impl& g, Value* x, DType t) {
  if (t == DType::U8) return {g.rescale(x, DType::I8, 1 << 30, 30, 0, -128, true, false), -128};
  return {x, 0};
}

// Constant integer weights (values in [-128, 255]) as an i8 tensor and its zero point.
std::pair<Tensor, int64_t> int8Weights(const std::vector<int64_t>& values, const Shape& shape) {
  bool high = false;
  for (int64_t v : values) {
    if (v < -128 || v > 255) invalid("weight value " + std::to_string(v) + " is not an 8-bit value");
    high = high || v > 127;
  }
  Tensor t(DType::I8, shape);
  for (size_t i = 0; i < values.size(); ++i) t.setInt(int64_t(i), high ? values[i] - 128 : values[i]);
  return {t, high ? -128 : 0};
}

// Row-major data of `shape` with its axes permuted (out axis d = in axis perm[d]).
template <typename T>
std::vector<T> permuteData(const std::vector<T>& v, const Shape& shape, const std::vector<size_t>& perm) {
  Shape out;
  for (size_t p : perm) out.push_back(shape[p]);
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  std::vector<T> r(v.size());
  std::vector<int64_t> idx(out.size(), 0);
  for (size_t n = 0; n < v.size(); ++n) {
    int64_t src = 0;
    for (size_t d = 0; d < out.size(); ++d) src += idx[d] * strides[perm[d]];
    r[n] = v[size_t(src)];
    for (size_t d = out.size(); d-- > 0;) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

std::vector<int64_t> intValues(const Tensor& t) { return t.toInts(); }

std::vector<double> doubleValues(const Tensor& t) { return t.toDoubles(); }

std::vector<int64_t> biasValues(Graph::Impl& g, Var bias, int64_t oc, DType* type) {
  if (!bias.valid()) {
    *type = DType::I16;
    return {};
  }
  const Tensor& b = g.coeffOf(bias, "the bias");
  if (b.size() != oc)
    invalid("the bias has " + std::to_string(b.size()) + " elements, " + std::to_string(oc) + " expected");
  *type = b.dtype() == DType::U16 || b.dtype() == DType::I8 || b.dtype() == DType::U8 ? DType::I16 : b.dtype();
  return b.dtype() == DType::FP32 ? std::vector<int64_t>{} : b.toInts();
}

// TOSA needs (in - 1 + pads - (k - 1) * d) divisible by the stride: the surplus of the end padding (never
// read) is dropped; when the padding is too short for that, it is extended to one more output position,
// which is cut from the result (`extra`).
struct Fit {
  int64_t p1;
  int64_t extra;
};
Fit fitPad(int64_t in, int64_t k, int64_t d, int64_t s, int64_t p0, int64_t p1) {
  int64_t span = in - 1 + p0 + p1 - (k - 1) * d;
  if (span < 0) invalid("the kernel is larger than the padded input");
  int64_t rem = span % s;
  if (rem <= p1) return {p1 - rem, 0};
  return {p1 + s - rem, 1};
}

Value* cutEnd(Graph::Impl& g, Value* x, size_t axis, int64_t cut) {
  if (cut == 0) return x;
  Shape start(x->type.dims.size(), 0), size = x->type.dims;
  size[axis] -= cut;
  return g.slice(x, start, size);
}

// ---- 2-D convolution in NHWC ------------------------------------------------------------------------

struct Conv2dGeom {
  int64_t pt, pb, pl, pr, sh, sw, dh, dw, groups;
};

// x [N,H,W,IC] (storage), weights OIHW values [OC, IC/groups, KH, KW] -> [N,OH,OW,OC] in acc type.
Value* conv2dNHWC(Graph::Impl& g, Value* x, int64_t izp, const std::vector<int64_t>& wInt,
                  const std::vector<double>& wF, const Shape& wShape, const std::vector<double>& biasF, Conv2dGeom geo,
                  bool isFloat) {
  const int64_t OC = wShape[0], ICg = wShape[1], KH = wShape[2], KW = wShape[3];
  const int64_t IC = x->type.dims[3];
  if (ICg * geo.groups != IC || OC % geo.groups != 0)
    invalid("weight [" + std::to_string(OC) + ", " + std::to_string(ICg) + ", ...] does not match " +
            std::to_string(IC) + " input channels in " + std::to_string(geo.groups) + " groups");
  Fit fh = fitPad(x->type.dims[1], KH, geo.dh, geo.sh, geo.pt, geo.pb);
  Fit fw = fitPad(x->type.dims[2], KW, geo.dw, geo.sw, geo.pl, geo.pr);
  auto trim = [&](Value* y) { return cutEnd(g, cutEnd(g, y, 1, fh.extra), 2, fw.extra); };
  const int64_t IH = x->type.dims[1], IW = x->type.dims[2], N = x->type.dims[0];
  const int64_t OH = (IH - 1 + geo.pt + fh.p1 - (KH - 1) * geo.dh) / geo.sh + 1;
  const int64_t OW = (IW - 1 + geo.pl + fw.p1 - (KW - 1) * geo.dw) / geo.sw + 1;
  const DType acc = isFloat ? DType::FP32 : DType::I32;
  std::map<std::string, ir::Attribute> attrs = {{"pad", ir::Attribute::intArray({geo.pt, fh.p1, geo.pl, fw.p1})},
                                                {"stride", ir::Attribute::intArray({geo.sh, geo.sw})},
                                                {"dilation", ir::Attribute::intArray({geo.dh, geo.dw})},
                                                {"acc_type", ir::Attribute::type(acc)}};
  // The weights permuted by `order` into a TOSA constant `shape`, and their zero point.
  auto weights = [&](const std::vector<size_t>& order, const Shape& shape,
                     const Shape& from = {}) -> std::pair<Value*, Value*> {
    const Shape& src = from.empty() ? wShape : from;
    if (isFloat)
      return {g.constant(Tensor::fromDoubles(DType::FP32, shape, permuteData(wF, src, order))), g.zp(DType::FP32, 0)};
    auto [t, wzp] = int8Weights(permuteData(wInt, src, order), shape);
    return {g.constant(t), g.zp(DType::I8, wzp)};
  };
  auto bias = [&](int64_t o0, int64_t n) {
    if (!isFloat) return g.constI32(std::vector<int64_t>(size_t(n), 0), {n});
    std::vector<double> b(size_t(n), 0.0);
    for (int64_t i = 0; i < n && !biasF.empty(); ++i) b[size_t(i)] = biasF[size_t(o0 + i)];
    return g.constF32(b, {n});
  };
  Value* xzp = g.zp(isFloat ? DType::FP32 : DType::I8, izp);
  if (geo.groups == 1) {
    auto [w, wzp] = weights({0, 2, 3, 1}, {OC, KH, KW, IC});
    return trim(g.op("tosa.conv2d", {x, w, bias(0, OC), xzp, wzp}, ValueType::tensor(acc, {N, OH, OW, OC}), attrs));
  }
  if (geo.groups == IC) {
    // Depthwise: weight [KH, KW, C, M], output channel c * M + m as BMLang's [C * M, 1, KH, KW]: the OIHW
    // data viewed as [C, M, KH, KW] and permuted.
    const int64_t M = OC / IC;
    const Shape view = {IC, M, KH, KW};
    auto [w, wzp] = weights({2, 3, 0, 1}, {KH, KW, IC, M}, view);
    return trim(
        g.op("tosa.depthwise_conv2d", {x, w, bias(0, OC), xzp, wzp}, ValueType::tensor(acc, {N, OH, OW, OC}), attrs));
  }
  // Grouped: one conv2d per group on its channel slice, concatenated along C.
  const int64_t OCg = OC / geo.groups;
  std::vector<Value*> parts;
  for (int64_t gi = 0; gi < geo.groups; ++gi) {
    Value* xg = g.slice(x, {0, 0, 0, gi * ICg}, {N, IH, IW, ICg});
    Shape gShape = {OCg, ICg, KH, KW};
    size_t per = size_t(OCg * ICg * KH * KW);
    std::vector<int64_t> wi;
    std::vector<double> wf;
    if (isFloat)
      wf.assign(wF.begin() + int64_t(per) * gi, wF.begin() + int64_t(per) * (gi + 1));
    else
      wi.assign(wInt.begin() + int64_t(per) * gi, wInt.begin() + int64_t(per) * (gi + 1));
    std::vector<double> bg;
    if (isFloat && !biasF.empty()) bg.assign(biasF.begin() + OCg * gi, biasF.begin() + OCg * (gi + 1));
    Conv2dGeom one = geo;
    one.groups = 1;
    parts.push_back(conv2dNHWC(g, xg, izp, wi, wf, gShape, bg, one, isFloat));
  }
  return g.concatV(parts, 3);
}

void checkRank(Graph::Impl& g, Var v, int rank, const char* what) {
  if (int(g.dims(v).size()) != rank)
    invalid(std::string(what) + " must have rank " + std::to_string(rank) + ", got " + g.val(v)->type.toString());
}

int64_t product(const Shape& s, size_t from = 0, size_t to = SIZE_MAX) {
  int64_t n = 1;
  for (size_t i = from; i < s.size() && i < to; ++i) n *= s[i];
  return n;
}

// Per output channel sum of (w - zp_r) over the other dims of an [OC, ...] weight.
std::vector<int64_t> weightSums(const std::vector<int64_t>& w, int64_t oc, int64_t zpr) {
  std::vector<int64_t> s(size_t(oc), 0);
  size_t per = w.size() / size_t(oc);
  for (size_t i = 0; i < w.size(); ++i) s[i / per] += w[i] - zpr;
  return s;
}

DType intOut(std::optional<DType> out, DType in) { return out.value_or(in); }

// An fp32 bias coeff of oc elements (zeros when absent).
std::vector<double> floatBias(Graph::Impl& g, Var bias, int64_t oc) {
  if (!bias.valid()) return std::vector<double>(size_t(oc), 0.0);
  std::vector<double> b = doubleValues(g.coeffOf(bias, "the bias"));
  if (int64_t(b.size()) != oc)
    invalid("the bias has " + std::to_string(b.size()) + " elements, " + std::to_string(oc) + " expected");
  return b;
}

// The quantized tail of conv and conv3d: Conv(x, w) and, for HighPrecisionAsymmetric, Conv(x, zp_r) from
// accOf(weights); BMLang's post-processing; back to NCHW.
template <typename Param>
Var quantizedConv(Graph::Impl& g, const std::function<Value*(const std::vector<int64_t>&)>& accOf,
                  const std::vector<int64_t>& wv, int64_t oc, Var bias, const Param& p, DType out) {
  QuantInput q;
  q.bias = biasValues(g, bias, oc, &q.biasType);
  q.acc = accOf(wv);
  if (p.mode == QCalMode::HighPrecisionAsymmetric) {
    q.weightSum = weightSums(wv, oc, p.right_zero_point);
    if (p.right_zero_point != 0) q.accZp = accOf(std::vector<int64_t>(wv.size(), p.right_zero_point));
  }
  Value* y = quantize(g, q, {p.scale, p.mode, p.left_zero_point, p.right_zero_point, p.output_zero_point, true}, out);
  return g.make(g.toNCHW(y), out);
}

}  // namespace

// ---- conv ---------------------------------------------------------------------------------------------

Var Graph::conv(Var input, Var weight, Var bias, const ConvParam& p, std::optional<DType> out) {
  return impl_->apply("conv", {input, weight, bias}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, input, 4, "input");
    const Tensor& w = g.coeffOf(weight, "the weight");
    if (w.rank() != 4) invalid("weight must be [oc, ic, kh, kw]");
    if (p.groups < 1 || p.stride_h < 1 || p.stride_w < 1 || p.dh < 1 || p.dw < 1)
      invalid("groups, strides and dilations must be >= 1");
    if (p.pad_h_t < 0 || p.pad_h_b < 0 || p.pad_w_l < 0 || p.pad_w_r < 0) invalid("paddings must be >= 0");
    Conv2dGeom geo{p.pad_h_t, p.pad_h_b, p.pad_w_l, p.pad_w_r, p.stride_h, p.stride_w, p.dh, p.dw, p.groups};
    const int64_t OC = w.shape()[0];
    DType t = g.type(input);
    Value* x = g.toNHWC(g.val(input));
    if (t == DType::FP32) {
      if (w.dtype() != DType::FP32) invalid("fp32 input needs an fp32 weight");
      if (out && *out != DType::FP32) invalid("fp32 convolution has fp32 output");
      Value* y = conv2dNHWC(g, x, 0, {}, doubleValues(w), w.shape(), floatBias(g, bias, OC), geo, true);
      return g.make(g.toNCHW(y), DType::FP32);
    }
    if (t != DType::I8 && t != DType::U8) invalid("input must be fp32, i8 or u8");
    if (w.dtype() != DType::I8 && w.dtype() != DType::U8) invalid("an integer convolution needs an i8 or u8 weight");
    auto [xs, izp] = int8Operand(g, x, t);
    auto accOf = [&, xs = xs, izp = izp](const std::vector<int64_t>& wv) {
      return conv2dNHWC(g, xs, izp, wv, {}, w.shape(), {}, geo, false);
    };
    return quantizedConv(g, accOf, intValues(w), OC, bias, p, intOut(out, t));
  });
}

// ---- deconv -------------------------------------------------------------------------------------------

// TOSA TRANSPOSE_CONV2D: out[iy * stride + out_pad_top + ky] += in[iy] * w[ky], i.e. BMLang's deconv with
// out_pad = -pad; weight [IC, OC, KH, KW] -> [OC, KH, KW, IC].
Var Graph::deconv(Var input, Var weight, Var bias, const ConvParam& p, std::optional<DType> out) {
  return impl_->apply("deconv", {input, weight, bias}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, input, 4, "input");
    const Tensor& w = g.coeffOf(weight, "the weight");
    if (w.rank() != 4) invalid("weight must be [ic, oc, kh, kw]");
    if (p.groups != 1) unsupported("grouped deconv: TOSA TRANSPOSE_CONV2D has no groups");
    if (p.dh != 1 || p.dw != 1) unsupported("dilated deconv: TOSA TRANSPOSE_CONV2D has no dilation");
    if (p.stride_h < 1 || p.stride_w < 1) invalid("strides must be >= 1");
    const int64_t IC = w.shape()[0], OC = w.shape()[1], KH = w.shape()[2], KW = w.shape()[3];
    Value* x = g.toNHWC(g.val(input));
    if (x->type.dims[3] != IC) invalid("weight input channels do not match the input");
    const int64_t N = x->type.dims[0], IH = x->type.dims[1], IW = x->type.dims[2];
    const int64_t OH = (IH - 1) * p.stride_h - p.pad_h_t - p.pad_h_b + KH;
    const int64_t OW = (IW - 1) * p.stride_w - p.pad_w_l - p.pad_w_r + KW;
    if (OH < 1 || OW < 1) invalid("the padding removes the whole output");
    if (p.pad_h_t >= KH || p.pad_h_b >= KH || p.pad_w_l >= KW || p.pad_w_r >= KW)
      unsupported("deconv padding not smaller than the kernel (TOSA out_pad > -kernel)");
    DType t = g.type(input);
    bool isFloat = t == DType::FP32;
    if (!isFloat && t != DType::I8 && t != DType::U8) invalid("input must be fp32, i8 or u8");
    DType acc = isFloat ? DType::FP32 : DType::I32;
    std::map<std::string, ir::Attribute> attrs = {
        {"out_pad",
         ir::Attribute::intArray({-int64_t(p.pad_h_t), -int64_t(p.pad_h_b), -int64_t(p.pad_w_l), -int64_t(p.pad_w_r)})},
        {"stride", ir::Attribute::intArray({p.stride_h, p.stride_w})},
        {"acc_type", ir::Attribute::type(acc)}};
    const std::vector<size_t> order = {1, 2, 3, 0};
    const Shape tw = {OC, KH, KW, IC};
    if (isFloat) {
      if (w.dtype() != DType::FP32) invalid("fp32 input needs an fp32 weight");
      if (out && *out != DType::FP32) invalid("fp32 deconv has fp32 output");
      Value* y =
          g.op("tosa.transpose_conv2d",
               {x, g.constant(Tensor::fromDoubles(DType::FP32, tw, permuteData(doubleValues(w), w.shape(), order))),
                g.constF32(floatBias(g, bias, OC), {OC}), g.zp(DType::FP32, 0), g.zp(DType::FP32, 0)},
               ValueType::tensor(DType::FP32, {N, OH, OW, OC}), attrs);
      return g.make(g.toNCHW(y), DType::FP32);
    }
    if (p.mode != QCalMode::LowPrecisionSymmetric)
      unsupported("integer deconv supports LowPrecisionSymmetric only (as BMLang's deconv)");
    if (w.dtype() != DType::I8 && w.dtype() != DType::U8) invalid("an integer deconv needs an i8 or u8 weight");
    auto [xs, izp] = int8Operand(g, x, t);
    auto [wt, wzp] = int8Weights(permuteData(intValues(w), w.shape(), order), tw);
    QuantInput q;
    q.bias = biasValues(g, bias, OC, &q.biasType);
    q.acc = g.op("tosa.transpose_conv2d",
                 {xs, g.constant(wt), g.constI32(std::vector<int64_t>(size_t(OC), 0), {OC}), g.zp(DType::I8, izp),
                  g.zp(DType::I8, wzp)},
                 ValueType::tensor(DType::I32, {N, OH, OW, OC}), attrs);
    DType o = intOut(out, t);
    Value* y = quantize(g, q, {p.scale, p.mode, p.left_zero_point, p.right_zero_point, p.output_zero_point, true}, o);
    return g.make(g.toNCHW(y), o);
  });
}

// ---- conv3d -------------------------------------------------------------------------------------------

Var Graph::conv3d(Var input, Var weight, Var bias, const Conv3dParam& p, std::optional<DType> out) {
  return impl_->apply("conv3d", {input, weight, bias}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, input, 5, "input");
    const Tensor& w = g.coeffOf(weight, "the weight");
    if (w.rank() != 5) invalid("weight must be [oc, ic, kd, kh, kw]");
    if (p.groups != 1) unsupported("grouped conv3d");
    if (p.dilation.size() != 3 || p.stride.size() != 3 || p.pad.size() != 6)
      invalid("dilation/stride need 3 values, pad 6");
    for (int i = 0; i < 6; ++i)
      if (p.pad[size_t(i)] < 0 || (i < 3 && (p.stride[size_t(i)] < 1 || p.dilation[size_t(i)] < 1)))
        invalid("paddings must be >= 0, strides and dilations >= 1");
    const Shape& ws = w.shape();
    const int64_t OC = ws[0];
    Value* x = g.toNHWC(g.val(input));  // N D H W C
    if (x->type.dims[4] != ws[1]) invalid("weight input channels do not match the input");
    std::vector<int64_t> pads(p.pad.begin(), p.pad.end());
    int64_t extra[3];
    for (int i = 0; i < 3; ++i) {
      Fit f = fitPad(x->type.dims[size_t(1 + i)], ws[size_t(2 + i)], p.dilation[size_t(i)], p.stride[size_t(i)],
                     pads[size_t(2 * i)], pads[size_t(2 * i + 1)]);
      pads[size_t(2 * i + 1)] = f.p1;
      extra[i] = f.extra;
    }
    auto trim = [&](Value* y) {
      for (int i = 0; i < 3; ++i) y = cutEnd(g, y, size_t(1 + i), extra[i]);
      return y;
    };
    Shape os = {x->type.dims[0], 0, 0, 0, OC};
    for (int i = 0; i < 3; ++i)
      os[size_t(1 + i)] = (x->type.dims[size_t(1 + i)] - 1 + pads[size_t(2 * i)] + pads[size_t(2 * i + 1)] -
                           (ws[size_t(2 + i)] - 1) * p.dilation[size_t(i)]) /
              p.stride[size_t(i)] +
          1;
    DType t = g.type(input);
    bool isFloat = t == DType::FP32;
    if (!isFloat && t != DType::I8 && t != DType::U8) invalid("input must be fp32, i8 or u8");
    DType acc = isFloat ? DType::FP32 : DType::I32;
    std::map<std::string, ir::Attribute> attrs = {
        {"pad", ir::Attribute::intArray(pads)},
        {"stride", ir::Attribute::intArray(std::vector<int64_t>(p.stride.begin(), p.stride.end()))},
        {"dilation", ir::Attribute::intArray(std::vector<int64_t>(p.dilation.begin(), p.dilation.end()))},
        {"acc_type", ir::Attribute::type(acc)}};
    const std::vector<size_t> order = {0, 2, 3, 4, 1};
    const Shape tw = {OC, ws[2], ws[3], ws[4], ws[1]};
    if (isFloat) {
      if (w.dtype() != DType::FP32) invalid("fp32 input needs an fp32 weight");
      Value* y = g.op("tosa.conv3d",
                      {x, g.constant(Tensor::fromDoubles(DType::FP32, tw, permuteData(doubleValues(w), ws, order))),
                       g.constF32(floatBias(g, bias, OC), {OC}), g.zp(DType::FP32, 0), g.zp(DType::FP32, 0)},
                      ValueType::tensor(DType::FP32, os), attrs);
      return g.make(g.toNCHW(trim(y)), DType::FP32);
    }
    if (w.dtype() != DType::I8 && w.dtype() != DType::U8) invalid("an integer conv3d needs an i8 or u8 weight");
    auto [xs, izp] = int8Operand(g, x, t);
    auto accOf = [&, xs = xs, izp = izp](const std::vector<int64_t>& wv) {
      auto [wt, wzp] = int8Weights(permuteData(wv, ws, order), tw);
      return trim(g.op("tosa.conv3d",
                       {xs, g.constant(wt), g.constI32(std::vector<int64_t>(size_t(OC), 0), {OC}), g.zp(DType::I8, izp),
                        g.zp(DType::I8, wzp)},
                       ValueType::tensor(DType::I32, os), attrs));
    };
    return quantizedConv(g, accOf, intValues(w), OC, bias, p, intOut(out, t));
  });
}

// ---- matrix_mul -----------------------------------------------------------------------------------------

Var Graph::matrix_mul(Var left, Var right, Var bias, const MatrixMulParam& p, std::optional<DType> out) {
  return impl_->apply("matrix_mul", {left, right, bias}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, left, 2, "matrix_left");
    checkRank(g, right, 2, "matrix_right");
    const int64_t M = g.dims(left)[0], K = g.dims(left)[1], N = g.dims(right)[1];
    if (g.dims(right)[0] != K) invalid("matrix_right rows must equal matrix_left columns");
    DType t = g.type(left);
    Value* a = g.reshape(g.val(left), {1, M, K});
    if (t == DType::FP32) {
      if (g.type(right) != DType::FP32) invalid("operands mix fp32 and integer types");
      Value* bm = g.reshape(g.val(right), {1, K, N});
      Value* y = g.op("tosa.matmul", {a, bm, g.zp(DType::FP32, 0), g.zp(DType::FP32, 0)},
                      ValueType::tensor(DType::FP32, {1, M, N}));
      if (bias.valid()) {
        if (g.type(bias) != DType::FP32 || product(g.dims(bias)) != N) invalid("the bias must be fp32 with N elements");
        y = g.binary("tosa.add", y, g.reshape(g.val(bias), {1, 1, N}), DType::FP32);
      }
      return g.make(g.reshape(y, {M, N}), DType::FP32);
    }
    if (t != DType::I8 && t != DType::U8) invalid("matrix_left must be fp32, i8 or u8");
    DType rt = g.type(right);
    if (rt != DType::I8 && rt != DType::U8) invalid("matrix_right must be i8 or u8");
    auto [as, azp] = int8Operand(g, a, t);
    QuantInput q;
    q.bias = biasValues(g, bias, N, &q.biasType);
    Value* bm;
    int64_t bzp = 0;
    std::vector<int64_t> rv;
    if (g.info(right).coeff) {
      rv = intValues(*g.info(right).coeff);
      auto [wt, z] = int8Weights(rv, {1, K, N});
      bm = g.constant(wt);
      bzp = z;
    } else {
      if (p.mode == QCalMode::HighPrecisionAsymmetric)
        invalid("HighPrecisionAsymmetric needs matrix_right as a coeff tensor");
      auto [v, z] = int8Operand(g, g.reshape(g.val(right), {1, K, N}), rt);
      bm = v;
      bzp = z;
    }
    q.acc = g.op("tosa.matmul", {as, bm, g.zp(DType::I8, azp), g.zp(DType::I8, bzp)},
                 ValueType::tensor(DType::I32, {1, M, N}));
    if (p.mode == QCalMode::HighPrecisionAsymmetric) {
      // sums over k of (right[k, n] - zp_r), per column n
      q.weightSum.assign(size_t(N), 0);
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n) q.weightSum[size_t(n)] += rv[size_t(k * N + n)] - p.right_zero_point;
      if (p.right_zero_point != 0) {
        auto [zt, z] = int8Weights(std::vector<int64_t>(size_t(K), p.right_zero_point), {1, K, 1});
        q.accZp = g.op("tosa.matmul", {as, g.constant(zt), g.zp(DType::I8, azp), g.zp(DType::I8, z)},
                       ValueType::tensor(DType::I32, {1, M, 1}));
      }
    }
    DType o = intOut(out, t);
    Value* y = quantize(g, q, {p.scale, p.mode, p.left_zero_point, p.right_zero_point, p.output_zero_point, false}, o);
    return g.make(g.reshape(y, {M, N}), o);
  });
}

// ---- fc_int -------------------------------------------------------------------------------------------

Var Graph::fc_int(Var input, Var kernel, Var bias, const FCIntParam& p) {
  return impl_->apply("fc_int", {input, kernel, bias}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, input, 3, "input");
    if (!p.is_izp_const || !p.is_kzp_const) unsupported("per-channel zero points (izp_vec/kzp_vec)");
    DType t = g.type(input);
    if (t != DType::I8 && t != DType::U8) invalid("input must be i8 or u8");
    const Tensor& k = g.coeffOf(kernel, "the kernel");
    if (k.rank() != 2 || (k.dtype() != DType::I8 && k.dtype() != DType::U8))
      invalid("kernel must be a 2-D i8/u8 coeff");
    const Shape& is = g.dims(input);
    const int64_t B = is[0], M = is[1], K = is[2];
    std::vector<int64_t> kv = intValues(k);
    Shape ks = k.shape();
    if (p.weight_trans) {
      kv = permuteData(kv, ks, {1, 0});
      ks = {ks[1], ks[0]};
    }
    if (ks[0] != K) invalid("kernel accum_depth does not match the input");
    const int64_t N = ks[1];
    auto [x, xzp] = int8Operand(g, g.reshape(g.val(input), {1, B * M, K}), t);
    int64_t izp = p.izp_val + xzp;  // u8 input is read as x - 128: its zero point moves by -128 too
    // (w - kzp) with u8 weights stored as w - 128 and read with zero point kzp - 128.
    auto [wt, wshift] = int8Weights(kv, {1, K, N});
    int64_t kzp = p.kzp_val + wshift;
    if (izp < -128 || izp > 127 || kzp < -128 || kzp > 127) invalid("zero point outside the operand's range");
    Value* y = g.op("tosa.matmul", {x, g.constant(wt), g.zp(DType::I8, izp), g.zp(DType::I8, kzp)},
                    ValueType::tensor(DType::I32, {1, B * M, N}));
    if (bias.valid()) {
      const Tensor& b = g.coeffOf(bias, "the bias");
      if (b.size() != N) invalid("the bias must have output_depth elements");
      y = g.binary("tosa.add", y, g.constI32(b.toInts(), {1, 1, N}), DType::I32);
    }
    return g.make(g.reshape(y, {B, M, N}), DType::I32);
  });
}

// ---- pooling ------------------------------------------------------------------------------------------

namespace {

struct PoolAxis {
  int64_t in, k, s, p0, p1, out;
};

PoolAxis poolAxis(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1, bool ceilMode) {
  if (k < 1 || s < 1 || p0 < 0 || p1 < 0) invalid("kernel and stride must be >= 1, paddings >= 0");
  int64_t span = in + p0 + p1 - k;
  if (span < 0) invalid("the kernel is larger than the padded input");
  int64_t out = (ceilMode ? (span + s - 1) / s : span / s) + 1;
  for (int64_t o = 0; o < out; ++o) {
    int64_t lo = o * s - p0;
    if (std::min(lo + k, in) - std::max<int64_t>(lo, 0) <= 0)
      invalid("window " + std::to_string(o) + " lies entirely in the padding (padding " +
              std::to_string(std::max(p0, p1)) + " not smaller than the kernel " + std::to_string(k) + ")");
  }
  return {in, k, s, p0, p1, out};
}

// x [N,H,W,C] padded (value `v`) or cut so that a window pass with no padding gives exactly out positions.
Value* padForWindows(Graph::Impl& g, Value* x, const PoolAxis& h, const PoolAxis& w, double v) {
  int64_t eh = (h.out - 1) * h.s + h.k - h.in - h.p0;
  int64_t ew = (w.out - 1) * w.s + w.k - w.in - w.p0;
  x = cutEnd(g, cutEnd(g, x, 1, std::max<int64_t>(-eh, 0)), 2, std::max<int64_t>(-ew, 0));
  std::vector<int64_t> pad = {0, 0, h.p0, std::max<int64_t>(eh, 0), w.p0, std::max<int64_t>(ew, 0), 0, 0};
  bool any = false;
  for (int64_t q : pad) any = any || q != 0;
  return any ? g.padConst(x, pad, v) : x;
}

// Number of input elements in each window (padding excluded), as an i32 [1, OH, OW, 1] constant.
Value* windowCounts(Graph::Impl& g, const PoolAxis& h, const PoolAxis& w) {
  std::vector<int64_t> c;
  for (int64_t oy = 0; oy < h.out; ++oy)
    for (int64_t ox = 0; ox < w.out; ++ox) {
      auto inside = [](const PoolAxis& a, int64_t o) {
        int64_t lo = o * a.s - a.p0, hi = lo + a.k;
        return std::max<int64_t>(0, std::min(hi, a.in) - std::max<int64_t>(lo, 0));
      };
      c.push_back(inside(h, oy) * inside(w, ox));
    }
  return g.constI32(c, {1, h.out, w.out, 1});
}

Value* maxPool(Graph::Impl& g, Value* x, const PoolAxis& h, const PoolAxis& w, double lowest) {
  Value* xp = padForWindows(g, x, h, w, lowest);
  const Shape& s = xp->type.dims;
  return g.op("tosa.max_pool2d", {xp}, ValueType::tensor(x->type.dtype, {s[0], h.out, w.out, s[3]}),
              {{"kernel", ir::Attribute::intArray({h.k, w.k})},
               {"stride", ir::Attribute::intArray({h.s, w.s})},
               {"pad", ir::Attribute::intArray({0, 0, 0, 0})}});
}

}  // namespace

Var Graph::pool(Var input, const PoolParam& p) {
  return impl_->apply("pool", {input}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, input, 4, "input");
    if (g.type(input) != DType::FP32) invalid("pool takes fp32 input (pool_int for integers)");
    const Shape& is = g.dims(input);
    PoolAxis h, w;
    if (p.is_global_pooling) {
      h = poolAxis(is[2], is[2], 1, 0, 0, false);
      w = poolAxis(is[3], is[3], 1, 0, 0, false);
    } else {
      h = poolAxis(is[2], p.kernel_h, p.stride_h, p.pad_h, p.pad_h + p.pad_h_offset, p.is_ceil_mode);
      w = poolAxis(is[3], p.kernel_w, p.stride_w, p.pad_w, p.pad_w + p.pad_w_offset, p.is_ceil_mode);
    }
    Value* x = g.toNHWC(g.val(input));
    if (p.pooling_type == PoolType::MAX)
      return g.make(g.toNCHW(maxPool(g, x, h, w, -double(std::numeric_limits<float>::infinity()))), DType::FP32);
    std::map<std::string, ir::Attribute> attrs = {{"kernel", ir::Attribute::intArray({h.k, w.k})},
                                                  {"stride", ir::Attribute::intArray({h.s, w.s})},
                                                  {"acc_type", ir::Attribute::type(DType::FP32)}};
    Value* xp = x;
    if (p.is_ave_count_zero_pad) {
      xp = padForWindows(g, x, h, w, 0.0);  // padding zeros are averaged in: divide by the whole window
      attrs["pad"] = ir::Attribute::intArray({0, 0, 0, 0});
    } else {
      int64_t eh = (h.out - 1) * h.s + h.k - h.in - h.p0, ew = (w.out - 1) * w.s + w.k - w.in - w.p0;
      xp = cutEnd(g, cutEnd(g, x, 1, std::max<int64_t>(-eh, 0)), 2, std::max<int64_t>(-ew, 0));
      eh = std::max<int64_t>(eh, 0);
      ew = std::max<int64_t>(ew, 0);
      if (h.p0 >= h.k || eh >= h.k || w.p0 >= w.k || ew >= w.k)
        unsupported("average pool padding not smaller than the kernel");
      attrs["pad"] = ir::Attribute::intArray({h.p0, eh, w.p0, ew});
    }
    const Shape& s = xp->type.dims;
    Value* y = g.op("tosa.avg_pool2d", {xp, g.zp(DType::FP32, 0), g.zp(DType::FP32, 0)},
                    ValueType::tensor(DType::FP32, {s[0], h.out, w.out, s[3]}), attrs);
    return g.make(g.toNCHW(y), DType::FP32);
  });
}

Var Graph::pool_int(Var input, const PoolIntParam& p, std::optional<DType> out) {
  return impl_->apply("pool_int", {input}, [&] {
    Graph::Impl& g = *impl_;
    checkRank(g, input, 4, "input");
    DType t = g.type(input);
    if (t != DType::I8 && t != DType::U8) invalid("pool_int takes i8 or u8 input");
    const Shape& is = g.dims(input);
    PoolAxis h = poolAxis(is[2], p.kernel_h, p.stride_h, p.pad_h_t, p.pad_h_b, p.out_ceil_mode == 1);
    PoolAxis w = poolAxis(is[3], p.kernel_w, p.stride_w, p.pad_w_l, p.pad_w_r, p.out_ceil_mode == 1);
    Value* x = g.toNHWC(g.val(input));
    auto [xs, izp] = int8Operand(g, x, t);
    if (!p.is_avg_pooling) {
      if (out && *out != t) invalid("max pooling keeps the input type");
      Value* m = maxPool(g, xs, h, w, -128);
      // u8 was pooled as x - 128 (order kept); add 128 back as u8.
      if (t == DType::U8) m = g.rescale(m, DType::I8, 1 << 30, 30, -128, 0, false, true);
      return g.make(g.toNCHW(m), t);
    }
    // Window sums by a depthwise convolution with weights 1 (padding contributes nothing).
    const int64_t C = is[1];
    Value* xp = padForWindows(g, xs, h, w, double(izp));
    Tensor ones(DType::I8, {h.k, w.k, C, 1});
    for (int64_t i = 0; i < ones.size(); ++i) ones.setInt(i, 1);
    Value* sum = g.op("tosa.depthwise_conv2d",
                      {xp, g.constant(ones), g.constI32(std::vector<int64_t>(size_t(C), 0), {C}), g.zp(DType::I8, izp),
                       g.zp(DType::I8, 0)},
                      ValueType::tensor(DType::I32, {is[0], h.out, w.out, C}),
                      {{"pad", ir::Attribute::intArray({0, 0, 0, 0})},
                       {"stride", ir::Attribute::intArray({h.s, w.s})},
                       {"dilation", ir::Attribute::intArray({1, 1})},
                       {"acc_type", ir::Attribute::type(DType::I32)}});
    Value* y = nullptr;
    if (p.quant_mode == 1) {
      // round(sum / count) half away from zero: sign(sum) * floor((2|sum| + count) / (2 count)).
      Value* cnt = windowCounts(g, h, w);
      Value* a = g.unary("tosa.abs", sum);
      Value* num = g.binary("tosa.add", g.mulI32(a, g.splat(DType::I32, 2, 4), 0), cnt, DType::I32);
      Value* q = g.binary("tosa.intdiv", num, g.mulI32(cnt, g.splat(DType::I32, 2, 4), 0), DType::I32);
      Value* neg = g.cmp("tosa.greater", g.splat(DType::I32, 0, 4), sum);
      y = g.selectV(neg, g.negate(q), q);
    } else if (p.quant_mode == 2) {
      // (sum * scale + 2^(rshift-1)) >> rshift: TOSA MUL's own rounding shift.
      if (p.rshift < 0 || p.rshift > 63) invalid("rshift outside [0, 63]");
      y = g.mulI32(sum, g.splat(DType::I32, p.scale, 4), p.rshift);
    } else {
      invalid("quant_mode must be 1 or 2");
    }
    DType o = out.value_or(t);
    if (o == DType::FP32) invalid("pool_int output must be an integer type");
    return g.make(g.toNCHW(g.narrow(y, o)), o);
  });
}

// ---- batch_norm, softmax -------------------------------------------------------------------------------

Var Graph::batch_norm(Var input, Var mean, Var variance, Var gamma, Var beta, const NormParam& p) {
  return impl_->apply("batch_norm", {input, mean, variance, gamma, beta}, [&] {
    Graph::Impl& g = *impl_;
    const Shape& is = g.dims(input);
    if (is.size() < 2) invalid("input must have a channel axis (NCHW)");
    if (g.type(input) != DType::FP32) invalid("batch_norm takes fp32 tensors");
    Shape cs(is.size(), 1);
    cs[1] = is[1];
    auto perChannel = [&](Var v, const char* what) {
      if (g.type(v) != DType::FP32 || product(g.dims(v)) != is[1])
        invalid(std::string(what) + " must be fp32 with " + std::to_string(is[1]) + " elements");
      return g.reshape(g.val(v), cs);
    };
    Value* x = g.binary("tosa.sub", g.val(input), perChannel(mean, "mean"), DType::FP32);
    Value* var = g.binary("tosa.add", perChannel(variance, "variance"), g.splat(DType::FP32, p.epsilon, int(is.size())),
                          DType::FP32);
    Value* y = g.mulF32(x, g.unary("tosa.rsqrt", var));
    if (gamma.valid()) y = g.mulF32(y, perChannel(gamma, "gamma"));
    if (beta.valid()) y = g.binary("tosa.add", y, perChannel(beta, "beta"), DType::FP32);
    return g.make(y, DType::FP32);
  });
}

Var Graph::softmax(Var input, int axis) {
  return impl_->apply("softmax", {input}, [&] {
    Graph::Impl& g = *impl_;
    if (g.type(input) != DType::FP32) invalid("softmax takes fp32 input");
    int a = normAxis(axis, int(g.dims(input).size()), "axis");
    Value* x = g.val(input);
    Value* m = g.reduceV("tosa.reduce_max", x, a);
    Value* e = g.unary("tosa.exp", g.binary("tosa.sub", x, m, DType::FP32));
    Value* s = g.reduceV("tosa.reduce_sum", e, a);
    return g.make(g.mulF32(e, g.unary("tosa.reciprocal", s)), DType::FP32);
  });
}

}  // namespace tosakit::lang
