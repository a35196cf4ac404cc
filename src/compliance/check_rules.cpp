// Per-operator accuracy rules (spec 1.10.3, each operator's "Precision Requirements") and judging by them.
#include "compliance/check_rules.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "compliance/check_single_op.h"
#include "core/numeric.h"

namespace tosakit::compliance {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const std::map<std::string, std::string>& sections() {
  static const std::map<std::string, std::string> s = {{"tosa.abs", "2.6.1 ABS"},
                                                       {"tosa.add", "2.5.1 ADD"},
                                                       {"tosa.argmax", "2.3.1 ARGMAX"},
                                                       {"tosa.arithmetic_right_shift", "2.5.2 ARITHMETIC_RIGHT_SHIFT"},
                                                       {"tosa.avg_pool2d", "2.3.2 AVG_POOL2D"},
                                                       {"tosa.bitwise_and", "2.5.3 BITWISE_AND"},
                                                       {"tosa.bitwise_not", "2.6.2 BITWISE_NOT"},
                                                       {"tosa.bitwise_or", "2.5.4 BITWISE_OR"},
                                                       {"tosa.bitwise_xor", "2.5.5 BITWISE_XOR"},
                                                       {"tosa.cast", "2.13.1 CAST"},
                                                       {"tosa.ceil", "2.6.3 CEIL"},
                                                       {"tosa.clamp", "2.4.1 CLAMP"},
                                                       {"tosa.clz", "2.6.4 CLZ"},
                                                       {"tosa.concat", "2.10.1 CONCAT"},
                                                       {"tosa.cond_if", "2.16.1 COND_IF"},
                                                       {"tosa.const", "2.14.1 CONST"},
                                                       {"tosa.conv2d", "2.3.3 CONV2D"},
                                                       {"tosa.conv3d", "2.3.4 CONV3D"},
                                                       {"tosa.cos", "2.6.5 COS"},
                                                       {"tosa.custom", "2.15.1 CUSTOM"},
                                                       {"tosa.depthwise_conv2d", "2.3.5 DEPTHWISE_CONV2D"},
                                                       {"tosa.equal", "2.8.1 EQUAL"},
                                                       {"tosa.erf", "2.4.2 ERF"},
                                                       {"tosa.exp", "2.6.6 EXP"},
                                                       {"tosa.fft2d", "2.3.6 FFT2D"},
                                                       {"tosa.floor", "2.6.7 FLOOR"},
                                                       {"tosa.gather", "2.11.1 GATHER"},
                                                       {"tosa.greater", "2.8.2 GREATER"},
                                                       {"tosa.greater_equal", "2.8.3 GREATER_EQUAL"},
                                                       {"tosa.identity", "2.14.2 IDENTITY"},
                                                       {"tosa.intdiv", "2.5.6 INTDIV"},
                                                       {"tosa.log", "2.6.8 LOG"},
                                                       {"tosa.logical_and", "2.5.7 LOGICAL_AND"},
                                                       {"tosa.logical_left_shift", "2.5.8 LOGICAL_LEFT_SHIFT"},
                                                       {"tosa.logical_not", "2.6.9 LOGICAL_NOT"},
                                                       {"tosa.logical_or", "2.5.10 LOGICAL_OR"},
                                                       {"tosa.logical_right_shift", "2.5.9 LOGICAL_RIGHT_SHIFT"},
                                                       {"tosa.logical_xor", "2.5.11 LOGICAL_XOR"},
                                                       {"tosa.matmul", "2.3.7 MATMUL"},
                                                       {"tosa.maximum", "2.5.12 MAXIMUM"},
                                                       {"tosa.max_pool2d", "2.3.8 MAX_POOL2D"},
                                                       {"tosa.minimum", "2.5.13 MINIMUM"},
                                                       {"tosa.mul", "2.5.14 MUL"},
                                                       {"tosa.negate", "2.6.10 NEGATE"},
                                                       {"tosa.pad", "2.10.2 PAD"},
                                                       {"tosa.pow", "2.5.15 POW"},
                                                       {"tosa.reciprocal", "2.6.11 RECIPROCAL"},
                                                       {"tosa.reduce_all", "2.9.1 REDUCE_ALL"},
                                                       {"tosa.reduce_any", "2.9.2 REDUCE_ANY"},
                                                       {"tosa.reduce_max", "2.9.3 REDUCE_MAX"},
                                                       {"tosa.reduce_min", "2.9.4 REDUCE_MIN"},
                                                       {"tosa.reduce_product", "2.9.5 REDUCE_PRODUCT"},
                                                       {"tosa.reduce_sum", "2.9.6 REDUCE_SUM"},
                                                       {"tosa.rescale", "2.13.2 RESCALE"},
                                                       {"tosa.reshape", "2.10.3 RESHAPE"},
                                                       {"tosa.resize", "2.12.1 RESIZE"},
                                                       {"tosa.reverse", "2.10.4 REVERSE"},
                                                       {"tosa.rfft2d", "2.3.9 RFFT2D"},
                                                       {"tosa.rsqrt", "2.6.12 RSQRT"},
                                                       {"tosa.scatter", "2.11.2 SCATTER"},
                                                       {"tosa.select", "2.7.1 SELECT"},
                                                       {"tosa.sigmoid", "2.4.3 SIGMOID"},
                                                       {"tosa.sin", "2.6.13 SIN"},
                                                       {"tosa.slice", "2.10.5 SLICE"},
                                                       {"tosa.sub", "2.5.16 SUB"},
                                                       {"tosa.table", "2.5.17 TABLE"},
                                                       {"tosa.tanh", "2.4.4 TANH"},
                                                       {"tosa.tile", "2.10.6 TILE"},
                                                       {"tosa.transpose", "2.10.7 TRANSPOSE"},
                                                       {"tosa.transpose_conv2d", "2.3.10 TRANSPOSE_CONV2D"},
                                                       {"tosa.variable_read", "2.17.3 VARIABLE_READ"},
                                                       {"tosa.while_loop", "2.16.2 WHILE_LOOP"}};
  return s;
}

std::string sectionOf(const std::string& op) {
  auto it = sections().find(op);
  return it == sections().end() ? "" : it->second;
}

// Float operators whose results are exact: data movement, comparisons and selections (their precision
// requirements say "results must be exact" / "the floating-point result must be exact").
bool exactFloatOp(const std::string& n) {
  static const char* ops[] = {
      "tosa.abs",        "tosa.negate",     "tosa.clamp",        "tosa.maximum",  "tosa.minimum", "tosa.select",
      "tosa.reduce_max", "tosa.reduce_min", "tosa.max_pool2d",   "tosa.identity", "tosa.const",   "tosa.concat",
      "tosa.pad",        "tosa.reshape",    "tosa.reverse",      "tosa.slice",    "tosa.tile",    "tosa.transpose",
      "tosa.gather",     "tosa.scatter",    "tosa.variable_read"};
  for (const char* o : ops)
    if (n == o) return true;
  return false;
}

// A cast whose every input value is representable in the output type.
bool exactCast(DType in, DType out) {
  if (in == DType::Bool) return true;
  if (isFloat(in)) return normalFrac(out) >= normalFrac(in) && normalMax(out) >= normalMax(in);
  return bitWidth(in) <= normalFrac(out) + 1;
}

// Units in the last place of ref in type t, as tosa_reference_check_fp measures them.
double ulpOf(DType t, double ref) {
  if (!std::isnormal(ref)) return 0.0;
  return std::max(exp2i(ilog2(std::fabs(ref))), normalMin(t)) * exp2i(-normalFrac(t));
}

bool nonFinite(double v) { return !std::isfinite(v); }

bool hasNonFinite(const Tensor& t) {
  if (!isFloat(t.dtype())) return false;
  for (int64_t i = 0; i < t.size(); ++i)
    if (nonFinite(t.getFloat(i))) return true;
  return false;
}

// Values of `t` broadcast to `out` (1.11.3: same rank, dims equal or 1).
std::vector<double> broadcast(const Tensor& t, const Shape& out) {
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<double> v(size_t(n), 0.0);
  const Shape& in = t.shape();
  if (int64_t(in.size()) != int64_t(out.size())) {
    for (int64_t i = 0; i < n && t.size() > 0; ++i) v[size_t(i)] = t.getFloat(i % t.size());
    return v;
  }
  std::vector<int64_t> idx(out.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < out.size(); ++d) off = off * in[d] + (in[d] == 1 ? 0 : idx[d]);
    v[size_t(i)] = t.getFloat(off);
    for (int d = int(out.size()) - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < out[size_t(d)]) break;
      idx[size_t(d)] = 0;
    }
  }
  return v;
}

OpRule ulpRule(DType t, const Tensor& ref, double ulp) {
  OpRule r;
  r.kind = RuleKind::Bound;
  r.name = "ULP(" + fmt(ulp) + ")";
  r.bound = Tensor(DType::FP64, ref.shape());
  for (int64_t i = 0; i < ref.size(); ++i) r.bound.setFloat(i, ulp * ulpOf(t, ref.getFloat(i)));
  return r;
}

double ulpAllowance(const std::string& n) {
  if (n == "tosa.add" || n == "tosa.sub" || n == "tosa.mul" || n == "tosa.ceil" || n == "tosa.floor" ||
      n == "tosa.cast")
    return 0.5;
  if (n == "tosa.reciprocal") return 1;
  if (n == "tosa.rsqrt") return 2;
  if (n == "tosa.log" || n == "tosa.erf") return 5;
  return -1;
}

// The unary calcAbsErrorBound rules; a non-finite input follows the operator's special-value table: exact.
Result<OpRule> unaryBoundRule(const std::string& n, DType t, const Tensor& x, const Tensor& ref) {
  OpRule r;
  r.kind = RuleKind::Bound;
  r.bound = Tensor(DType::FP64, ref.shape());
  if (n == "tosa.exp")
    r.name = "ABS_ERROR(calcAbsErrorBound(out_ref, 1+abs(x), 0, 1))";
  else if (n == "tosa.sigmoid")
    r.name = "ABS_ERROR(calcAbsErrorBound(out_ref, 2*(1+abs(x)), 0, 1))";
  else if (n == "tosa.tanh")
    r.name = "ABS_ERROR(calcAbsErrorBound(out_ref, 4*(1+abs(x)), 0.5, 1))";
  else if (n == "tosa.sin")
    r.name = "ABS_ERROR(max(calcAbsErrorBound(x, 1, 0, 2), pi*normal_min))";
  else if (n == "tosa.cos")
    r.name = "ABS_ERROR(calcAbsErrorBound(1+abs(x), 1, 0, 2))";
  else
    return Status::internal(n + ": no unary bound rule");
  for (int64_t i = 0; i < ref.size(); ++i) {
    double xi = x.getFloat(i), ri = ref.getFloat(i), e = 0;
    if (!nonFinite(xi)) {
      if (n == "tosa.exp")
        e = calcAbsErrorBound(t, ri, 1 + std::fabs(xi), 0, 1);
      else if (n == "tosa.sigmoid")
        e = calcAbsErrorBound(t, ri, 2 * (1 + std::fabs(xi)), 0, 1);
      else if (n == "tosa.tanh")
        e = calcAbsErrorBound(t, ri, 4 * (1 + std::fabs(xi)), 0.5, 1);
      else if (n == "tosa.sin")
        e = std::max(calcAbsErrorBound(t, xi, 1, 0, 2), kPi * normalMin(t));
      else
        e = calcAbsErrorBound(t, 1 + std::fabs(xi), 1, 0, 2);
    }
    r.bound.setFloat(i, e);
  }
  return r;
}

OpRule powRule(DType t, const Tensor& x, const Tensor& y, const Tensor& ref) {
  OpRule r;
  r.kind = RuleKind::Bound;
  r.name = "ABS_ERROR(calcAbsErrorBound(out_ref, 2*(1+abs(log(abs(x))*y)), 0, 1))";
  r.bound = Tensor(DType::FP64, ref.shape());
  std::vector<double> xs = broadcast(x, ref.shape()), ys = broadcast(y, ref.shape());
  for (int64_t i = 0; i < ref.size(); ++i) {
    double xi = xs[size_t(i)], yi = ys[size_t(i)], e;
    if (nonFinite(xi) || nonFinite(yi) || xi < 0 || (xi == 0 && yi <= 0))
      e = kInf;  // result undefined
    else if (xi == 0 || yi == 0)
      e = 0;  // 0 and 1 exactly
    else
      e = calcAbsErrorBound(t, ref.getFloat(i), 2 * (1 + std::fabs(std::log(std::fabs(xi)) * yi)), 0, 1);
    r.bound.setFloat(i, e);
  }
  return r;
}

OpRule resizeRule(DType t, const Tensor& input, const Tensor& ref) {
  double m = 0;
  for (int64_t i = 0; i < input.size(); ++i)
    if (std::isfinite(input.getFloat(i))) m = std::max(m, std::fabs(input.getFloat(i)));
  double e = std::max(calcAbsErrorBound(t, m, 20.0, 0, 1), m * 0.006);
  OpRule r;
  r.kind = RuleKind::Bound;
  r.name = "ABS_ERROR(max(calcAbsErrorBound(max_abs_input, 20, 0, 1), max_abs_input*0.006) = " + fmt(e) + ")";
  r.bound = Tensor(DType::FP64, ref.shape());
  for (int64_t i = 0; i < ref.size(); ++i) r.bound.setFloat(i, e);
  return r;
}

OpRule reduceProductRule(DType t, int64_t n, const Tensor& ref) {
  double factor = std::pow(1.0 + std::pow(2.0, -normalFrac(t) - 1), double(n)) - 1.0;
  OpRule r;
  r.kind = RuleKind::Bound;
  r.name = "REDUCE_PRODUCT(n=" + std::to_string(n) + ")";
  r.bound = Tensor(DType::FP64, ref.shape());
  for (int64_t i = 0; i < ref.size(); ++i)
    r.bound.setFloat(i, std::max(std::fabs(ref.getFloat(i)), normalMin(t)) * factor);
  return r;
}

// ---- Dot products (1.10.3) ----

struct DotShape {
  int64_t ks = 0;
  DType acc = DType::FP32;
  int bias = -1;  // bias operand
  bool localBound = true;
};

Result<DotShape> dotShape(const ir::Operation& op) {
  const std::string& n = op.name;
  DotShape d;
  DType out = op.results[0]->type.dtype;
  d.acc = out;
  auto dims = [&](int i) { return op.operands[size_t(i)]->type.dims; };
  auto accType = [&]() {
    const ir::Attribute* a = op.attr("acc_type");
    return a ? a->dtype : out;
  };
  if (n == "tosa.conv2d" || n == "tosa.transpose_conv2d") {
    Shape w = dims(1);
    d.ks = w[1] * w[2] * w[3];
  } else if (n == "tosa.conv3d") {
    Shape w = dims(1);
    d.ks = w[1] * w[2] * w[3] * w[4];
  } else if (n == "tosa.depthwise_conv2d") {
    Shape w = dims(1);
    d.ks = w[0] * w[1];
  } else if (n == "tosa.matmul") {
    d.ks = dims(0)[2];
  } else if (n == "tosa.avg_pool2d") {
    std::vector<int64_t> k = op.intArrayAttr("kernel");
    d.ks = k.size() == 2 ? k[0] * k[1] : 1;
    d.acc = accType();
  } else if (n == "tosa.reduce_sum") {
    d.ks = dims(0)[size_t(op.intAttr("axis"))];
  } else if (n == "tosa.fft2d") {
    d.ks = 2 * dims(0)[1] * dims(0)[2];
    d.localBound = op.boolAttr("local_bound", false);
  } else if (n == "tosa.rfft2d") {
    d.ks = dims(0)[1] * dims(0)[2];
    d.localBound = op.boolAttr("local_bound", false);
  } else {
    return Status::internal(n + ": not a dot-product operator");
  }
  if (n == "tosa.conv2d" || n == "tosa.conv3d" || n == "tosa.depthwise_conv2d" || n == "tosa.transpose_conv2d") {
    d.acc = accType();
    d.bias = 2;
    d.localBound = op.boolAttr("local_bound", false);
  }
  return d;
}

bool isDotOp(const std::string& n) {
  return n == "tosa.conv2d" || n == "tosa.conv3d" || n == "tosa.depthwise_conv2d" || n == "tosa.transpose_conv2d" ||
      n == "tosa.matmul" || n == "tosa.avg_pool2d" || n == "tosa.reduce_sum" || n == "tosa.fft2d" || n == "tosa.rfft2d";
}

Tensor absOf(const Tensor& t) {
  Tensor a = t;
  if (!isFloat(t.dtype())) return a;
  for (int64_t i = 0; i < a.size(); ++i) a.setFloat(i, std::fabs(t.getFloat(i)));
  return a;
}

// output_bnd of FFT2D / RFFT2D: sum over the input of |input| * |coefficient| (real and imaginary parts),
// the input's absolute values replaced by their global maximum unless local_bound (1.10.3; both operators'
// local_bound defaults to false: "allows for direct and transform based, fast convolution algorithms").
// RFFT2D's pseudocode adds no imaginary term where a is a multiple of pi (sin(a) = 0), but its text lets an
// implementation calculate the imaginary values there rather than skip them: a calculated x*sin(a), with a
// rounded to in_out_t, is not 0 for a = pi or 2*pi (fp32 sin(float(pi)) = -8.7e-8). Such terms count with the
// modulus 1 of their complex coefficient exp(-i*a); a = 0 stays 0 (sin(0) is exact everywhere), so the
// imaginary output at (0,0) must still be exactly 0. docs/COMPLIANCE.md has a worked example.
Tensor fftBound(const ir::Operation& op, size_t k, const std::vector<Tensor>& operands, bool localBound) {
  bool real = op.name == "tosa.rfft2d";
  const Tensor& re = operands[0];
  const Shape& s = re.shape();
  int64_t N = s[0], H = s[1], W = s[2];
  double maxAbs = 0;
  for (size_t o = 0; o < (real ? 1u : 2u); ++o)
    for (int64_t i = 0; i < operands[o].size(); ++i) maxAbs = std::max(maxAbs, std::fabs(operands[o].getFloat(i)));
  auto absAt = [&](size_t o, int64_t i) { return localBound ? std::fabs(operands[o].getFloat(i)) : maxAbs; };
  Tensor bnd(DType::FP64, op.results[k]->type.dims);
  int64_t OW = bnd.shape()[2];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < H; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        double sum = 0;
        for (int64_t iy = 0; iy < H; ++iy)
          for (int64_t ix = 0; ix < W; ++ix) {
            int64_t ay = (iy * oy) % H, ax = (ix * ox) % W;
            double a = 2 * kPi * (double(ay) / double(H) + double(ax) / double(W));
            double c = std::fabs(std::cos(a)), sn = std::fabs(std::sin(a));
            bool rfftSinTerm =
                (H > 1 && ay % std::max<int64_t>(1, H / 2) > 0) || (W > 1 && ax % std::max<int64_t>(1, W / 2) > 0);
            if (real && !rfftSinTerm) sn = (ay == 0 && ax == 0) ? 0.0 : 1.0;
            int64_t at = (n * H + iy) * W + ix;
            double vr = absAt(0, at), vi = real ? 0.0 : absAt(1, at);
            sum += k == 0 ? vr * c + vi * sn : vr * sn + vi * c;
          }
        bnd.setFloat((n * H + oy) * OW + ox, sum);
      }
  return bnd;
}

Result<OpRule> dotRule(const ir::Operation& op, size_t k, const std::vector<Tensor>& operands,
                       const ir::TargetEnv& target) {
  auto ds = dotShape(op);
  if (!ds) return ds.status();
  DType out = op.results[k]->type.dtype;
  OpRule r;
  r.kind = RuleKind::Dot;
  double maxBias = 0;
  if (ds->bias >= 0)
    for (int64_t i = 0; i < operands[size_t(ds->bias)].size(); ++i)
      maxBias = std::max(maxBias, std::fabs(operands[size_t(ds->bias)].getFloat(i)));
  int shift = (normalFrac(ds->acc) - normalFrac(out)) / 2;
  r.ksb = int64_t(std::ceil(double(ds->ks) / std::pow(2.0, shift))) + (maxBias > 0 ? 1 : 0);
  r.name = "DOT_PRODUCT(KS=" + std::to_string(ds->ks) + ", ksb=" + std::to_string(r.ksb) + ")";
  for (const Tensor& t : operands) r.special = r.special || hasNonFinite(t);
  if (op.name == "tosa.fft2d" || op.name == "tosa.rfft2d") {
    r.bound = fftBound(op, k, operands, ds->localBound);
    return r;
  }
  // output_bnd = reference_fp64(OP, input_abs, weight_abs, bias_abs); without local_bound every input
  // element is the global maximum of abs(input).
  std::vector<Tensor> absOps;
  for (const Tensor& t : operands) absOps.push_back(absOf(t));
  if (!ds->localBound) {
    Tensor& in = absOps[0];
    double mx = 0;
    for (int64_t i = 0; i < in.size(); ++i) mx = std::max(mx, in.getFloat(i));
    for (int64_t i = 0; i < in.size(); ++i) in.setFloat(i, mx);
  }
  auto outs = runOpPrecise(op, absOps, target);
  if (!outs) return outs.status();
  r.bound = std::move((*outs)[k]);
  return r;
}

}  // namespace

bool isExactOp(const ir::Operation& op, size_t k) {
  if (op.name == "tosa.cond_if" || op.name == "tosa.while_loop" || op.name == "tosa.custom") return false;
  if (k >= op.results.size()) return true;
  DType out = op.results[k]->type.dtype;
  if (op.name == "tosa.rescale") return op.strAttr("rounding_mode") != "INEXACT_ROUND";
  if (op.name == "tosa.cast") {
    if (!isFloat(out)) return true;
    return exactCast(op.operands[0]->type.dtype, out);
  }
  if (!isFloat(out)) return true;
  if (op.name == "tosa.resize") return op.strAttr("mode") == "NEAREST_NEIGHBOR";
  return exactFloatOp(op.name);
}

bool isCorrectlyRounded(const ir::Operation& op, size_t k) {
  if (isExactOp(op, k) || k >= op.results.size() || !isFloat(op.results[k]->type.dtype)) return false;
  return ulpAllowance(op.name) == 0.5;
}

bool ruleNeedsInputs(const ir::Operation& op, size_t k) {
  if (isExactOp(op, k)) return false;
  return ulpAllowance(op.name) < 0;
}

Result<OpRule> ruleFor(const ir::Operation& op, size_t k, const std::vector<Tensor>& operands, const Tensor& ref,
                       const ir::TargetEnv& target) {
  const std::string& n = op.name;
  OpRule r;
  r.section = sectionOf(n);
  if (isExactOp(op, k)) {
    r.kind = RuleKind::Exact;
    r.name = "EXACT";
    return r;
  }
  DType t = op.results[k]->type.dtype;
  auto finish = [&](Result<OpRule> rr) -> Result<OpRule> {
    if (!rr) return rr;
    rr->section = r.section;
    for (const Tensor& o : operands) rr->special = rr->special || hasNonFinite(o);
    if (rr->special && rr->kind != RuleKind::Mode) rr->name = "FP_SPECIAL+" + rr->name;
    return rr;
  };
  if (n == "tosa.rescale") {
    r.kind = RuleKind::Mode;
    r.mode.mode = "RESCALE_INEXACT";
    r.mode.unsignedData = op.boolAttr("output_unsigned", false);
    r.name = r.mode.toString();
    return r;
  }
  if (double u = ulpAllowance(n); u >= 0) return finish(ulpRule(t, ref, u));
  bool missing = operands.empty() || operands[0].size() == 0;
  if (missing) return Status::invalid(op.describe() + ": its rule needs the op's input values");
  if (n == "tosa.exp" || n == "tosa.sigmoid" || n == "tosa.tanh" || n == "tosa.sin" || n == "tosa.cos")
    return finish(unaryBoundRule(n, t, operands[0], ref));
  if (n == "tosa.pow") return finish(powRule(t, operands[0], operands[1], ref));
  if (n == "tosa.resize") return finish(resizeRule(t, operands[0], ref));
  if (n == "tosa.reduce_product")
    return finish(reduceProductRule(t, operands[0].shape()[size_t(op.intAttr("axis"))], ref));
  if (isDotOp(n)) return finish(dotRule(op, k, operands, target));
  return Status::unsupported(op.describe() + ": no accuracy rule known for this operator's float result");
}

// ---- Judging ----

namespace {

std::string at(int64_t i) { return "element " + std::to_string(i) + ": "; }

void note(Judgement& j, int64_t i, double frac, bool ok, const std::string& why) {
  if (std::isnan(frac)) frac = ok ? 0 : kInf;
  if (ok && frac > 1) frac = 1;  // passed by an allowance (overflow range, flush to zero)
  if (!ok && frac <= 1) frac = kInf;
  if (j.worstIndex < 0 || frac > j.worst) {
    j.worst = frac;
    j.worstIndex = i;
  }
  if (!ok && j.pass) {
    j.pass = false;
    j.reason = at(i) + why;
    j.failIndex = i;
    j.failWhy = why;
  }
}

Judgement judgeExact(const Tensor& impl, const Tensor& ref) {
  Judgement j;
  bool flt = isFloat(impl.dtype());
  for (int64_t i = 0; i < impl.size(); ++i) {
    bool ok;
    std::string why;
    if (flt) {
      double a = impl.getFloat(i), b = ref.getFloat(i);
      ok = referenceCheckFp(impl.dtype(), a, b, 0.0);
      if (!ok) why = "got " + fmt(a) + ", expected " + fmt(b) + " (exact match required)";
    } else {
      int64_t a = impl.getInt(i), b = isFloat(ref.dtype()) ? int64_t(ref.getFloat(i)) : ref.getInt(i);
      ok = a == b;
      if (!ok) why = "got " + std::to_string(a) + ", expected " + std::to_string(b) + " (exact match required)";
    }
    note(j, i, ok ? 0 : kInf, ok, why);
  }
  return j;
}

Judgement judgeBound(const OpRule& rule, const Tensor& impl, const Tensor& ref, bool refRounded) {
  Judgement j;
  DType t = impl.dtype();
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a = impl.getFloat(i), r = ref.getFloat(i), e = rule.bound.getFloat(i);
    if (refRounded) e += 0.5 * ulpOf(t, r);
    bool ok;
    if (rule.special && std::isinf(r))
      ok = a == r || (t == DType::FP8E4M3 && std::isnan(a));
    else
      ok = referenceCheckFpBnd(t, a, r, e);
    double d = std::fabs(a - r);
    double frac = std::isinf(e) ? 0 : e > 0 ? d / e : (d == 0 ? 0 : kInf);
    if (std::isnan(r)) frac = std::isnan(a) ? 0 : kInf;
    note(j, i, frac, ok, "got " + fmt(a) + ", reference " + fmt(r) + ", error bound " + fmt(e));
  }
  return j;
}

// Spec 1.10.3 tosa_reference_check_dotproduct on the fp64 reference and bound tensors.
Judgement judgeDot(const OpRule& rule, const Tensor& impl, const Tensor& ref, bool refRounded, int testSet) {
  Judgement j;
  DType t = impl.dtype();
  double ksb = double(rule.ksb);
  double T = double(impl.size());
  double sum = 0, sumsq = 0;
  for (int64_t i = 0; i < impl.size(); ++i) {
    double bnd = rule.bound.getFloat(i), r = ref.getFloat(i), a = impl.getFloat(i);
    std::string where = "got " + fmt(a) + ", reference " + fmt(r) + ", out_bnd " + fmt(bnd);
    double err = 0;
    if (std::isnan(r)) {
      note(j, i, std::isnan(a) ? 0 : kInf, std::isnan(a), where + ": a NaN reference needs a NaN");
    } else if (rule.special && std::isinf(r)) {
      bool ok = a == r || (t == DType::FP8E4M3 && std::isnan(a));
      note(j, i, ok ? 0 : kInf, ok, where + ": an infinite reference must be matched");
    } else if (std::isnan(bnd)) {
      note(j, i, 0, true, "");
    } else if (std::isinf(roundToFloat(t, bnd * (1 + ksb * exp2i(-1 - normalFrac(t)))))) {
      note(j, i, 0, true, "");  // the dot product can overflow within the error bound
    } else if (bnd == 0.0) {
      bool ok = (r == 0.0 || refRounded) && a == 0.0;
      note(j, i, ok ? 0 : kInf, ok, where + ": all products are zero, the result must be zero");
    } else {
      double errBnd = std::max(bnd * exp2i(-1 - normalFrac(t)), normalMin(t));
      double diff = a - r;
      if (refRounded) diff = std::copysign(std::max(0.0, std::fabs(diff) - 0.5 * ulpOf(t, r)), diff);
      err = diff / errBnd;
      bool ok = std::fabs(err) <= ksb;
      note(j, i, std::fabs(err) / ksb, ok, where + ": normalized error " + fmt(err) + " exceeds ksb " + fmt(ksb));
    }
    sum += err;
    sumsq += err * err;
  }
  if (!j.pass || testSet < 0) return j;
  if (testSet >= 3 && testSet <= 5 && std::fabs(sum) > 2 * std::sqrt(ksb * T)) {
    j.pass = false;
    j.reason = "error bias " + fmt(sum) + " exceeds 2*sqrt(ksb*T) = " + fmt(2 * std::sqrt(ksb * T)) + " (test set S" +
        std::to_string(testSet) + ")";
  } else if (sumsq > 0.4 * ksb * T) {
    j.pass = false;
    j.reason = "error variance sum " + fmt(sumsq) + " exceeds 0.4*ksb*T = " + fmt(0.4 * ksb * T) + " (test set S" +
        std::to_string(testSet) + ")";
  }
  return j;
}

}  // namespace

Judgement judge(const OpRule& rule, const Tensor& impl, const Tensor& ref, bool refRounded, int testSet) {
  if (impl.size() != ref.size()) {
    Judgement j;
    j.pass = false;
    j.worst = kInf;
    j.reason = "shape " + shapeToString(impl.shape()) + " differs from reference shape " + shapeToString(ref.shape());
    return j;
  }
  switch (rule.kind) {
    case RuleKind::Exact: return judgeExact(impl, ref);
    case RuleKind::Bound: return judgeBound(rule, impl, ref, refRounded);
    case RuleKind::Dot: return judgeDot(rule, impl, ref, refRounded, testSet);
    case RuleKind::Mode: break;
  }
  ComplianceResult c = checkTensor(rule.mode, impl, ref, rule.modeBounds);
  Judgement j;
  j.pass = c.pass;
  j.worst = std::numeric_limits<double>::quiet_NaN();
  j.worstIndex = c.index;
  j.reason = c.reason;
  j.failIndex = c.pass ? -1 : c.index;
  j.failWhy = c.reason;
  return j;
}

OpRule remapRule(const OpRule& rule, const std::vector<int64_t>& index, const Shape& shape) {
  OpRule r = rule;
  if (rule.kind != RuleKind::Bound && rule.kind != RuleKind::Dot) return r;
  r.bound = Tensor(DType::FP64, shape);
  for (size_t i = 0; i < index.size(); ++i) r.bound.setFloat(int64_t(i), rule.bound.getFloat(index[i]));
  return r;
}

}  // namespace tosakit::compliance
