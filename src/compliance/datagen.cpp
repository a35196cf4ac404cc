// Spec Appendix A test data generation.
#include "compliance/datagen.h"
#include "core/size_budget.h"

#include <cmath>
#include <functional>

namespace tosakit::compliance {

float setData(uint32_t set, uint32_t index) {
  uint32_t m = (8 * set + 1) * 0x705A5E75u;  // mod (1<<32)
  uint32_t r = m + 1;
  for (uint32_t i = 0; i < index; i++) r = r * m + 1;
  float sign = (r >> 31) == 0 ? +1.0f : -1.0f;
  return sign * float(r & 0x7FFFFFFF) / float(0x7FFFFFFF);
}

float SetDataCache::get(uint32_t set, uint32_t index) {
  std::vector<uint32_t>& seq = r_[set];
  uint32_t m = (8 * set + 1) * 0x705A5E75u;
  if (seq.empty()) seq.push_back(m + 1);
  while (seq.size() <= index) seq.push_back(seq.back() * m + 1);
  uint32_t r = seq[index];
  float sign = (r >> 31) == 0 ? +1.0f : -1.0f;
  return sign * float(r & 0x7FFFFFFF) / float(0x7FFFFFFF);
}

double boundB(DType in, DType w, DType out) {
  auto fp8 = [](DType t) { return t == DType::FP8E4M3 || t == DType::FP8E5M2; };
  if (in != w) {
    if (fp8(in) && fp8(w)) return out == DType::FP16 ? 224.0 : out == DType::FP32 ? 448.0 : 0.0;
    return 0.0;
  }
  switch (in) {
    case DType::FP8E4M3:
      return out == DType::FP16 ? 240.0 : out == DType::FP32 ? 448.0 : out == DType::FP8E4M3 ? 20.0 : 0.0;
    case DType::FP8E5M2:
      return out == DType::FP16 ? 224.0 : out == DType::FP32 ? 57344.0 : out == DType::FP8E5M2 ? 224.0 : 0.0;
    case DType::FP16: return out == DType::FP16 ? 255.875 : out == DType::FP32 ? 65504.0 : 0.0;
    case DType::BF16:
      return (out == DType::BF16 || out == DType::FP32) ? std::ldexp(1.0, 64) - std::ldexp(1.0, 56) : 0.0;
    case DType::FP32: return out == DType::FP32 ? std::ldexp(1.0, 64) - std::ldexp(1.0, 40) : 0.0;
    default: return 0.0;
  }
}

double proFpData(SetDataCache& sd, int S, int64_t KS, int p, int64_t k, int64_t i, double B) {
  auto d = [&](int set, int64_t idx) { return double(sd.get(uint32_t(set), uint32_t(idx))); };
  double ks = double(KS);
  switch (S) {
    case 0:  // sums of products with zero
      if (p == 0) return d(3 * S, i) < 0 ? 0.0 : d(3 * S + 1, i);
      if (p == 1) return d(3 * S, i) < 0 ? d(3 * S + 1, i) : 0.0;
      return 0.0;
    case 1: {  // large exponents
      double scale = p == 2 ? B * B / (ks + 1) : B / std::sqrt(ks + 1);
      int set = 3 * S + p;
      // The bracket in fp32 arithmetic (set_data is a float), as Arm's generator does: this reproduces the
      // conformance vectors bit for bit.
      float frac = (sd.get(uint32_t(set), uint32_t(i * 2)) < 0 ? -0.75f : 0.75f) +
          0.25f * sd.get(uint32_t(set), uint32_t(2 * i + 1));
      return scale * double(frac);
    }
    case 2:  // small values of similar magnitude accumulated onto a large one
      if (p == 2) return 0.0;
      return k == 0 ? 1.0 : d(3 * S + p, i) / std::sqrt(ks);
    case 3:  // small values of varying magnitude accumulated onto a large one
      if (p == 2) return 0.0;
      if (k == 0) return d(3 * S + p, 2 * i) < 0 ? -16.0 : 16.0;
      // fp32 arithmetic, as for S1.
      return double(std::exp(2.0f * sd.get(uint32_t(3 * S + p), uint32_t(2 * i))) *
                    sd.get(uint32_t(3 * S + p), uint32_t(2 * i + 1)));
    case 4:  // mixture of zero and non-zero products
      if (p == 0) {
        if (k == KS / 2) return d(3 * S, i) < 0 ? -0.5 : +0.5;
        return d(3 * S, i) < 0 ? 0.0 : (B / std::sqrt(ks)) * d(3 * S + 1, i);
      }
      if (p == 1) {
        if (k == KS / 2) return d(3 * S, i) < 0 ? +0.5 : -0.5;
        return d(3 * S, i) < 0 ? (B / std::sqrt(ks)) * d(3 * S + 1, i) : 0.0;
      }
      return 0.0;
    case 5:  // signed inputs of large range
      if (p == 2) return 0.0;
      return (B / std::sqrt(ks)) * d(3 * S + p, i);
    default: return 0.0;
  }
}

namespace {

// Row-major multi-index of linear offset i.
std::vector<int64_t> unravel(int64_t i, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = s[d] ? i % s[d] : 0;
    i = s[d] ? i / s[d] : 0;
  }
  return idx;
}

const ir::ValueType& typeOf(const ir::Operation& op, size_t p) { return op.operands[p]->type; }

// How an operator of spec 5.3 lays out its test data: the kernel size and, per operand, the k index of an
// element (the i index is the element's linear offset, plus `iOffset` for FFT's imaginary part).
struct OpLayout {
  int64_t KS = 0;
  DType outType = DType::FP32;
  // p (0 input, 1 weight, 2 bias) of each operand index, -1 for operands not generated.
  std::vector<int> role;
  std::vector<int64_t> iOffset;
  std::function<int64_t(size_t operand, const std::vector<int64_t>& idx)> kOf;
};

bool opLayout(const ir::Operation& op, OpLayout& L) {
  const std::string& n = op.name;
  auto accType = [&](DType def) {
    const ir::Attribute* a = op.attr("acc_type");
    return a && a->kind == ir::Attribute::Kind::Type ? a->dtype : def;
  };
  auto outType = [&]() { return op.results.empty() ? DType::FP32 : op.results[0]->type.dtype; };
  if (n == "tosa.conv2d" || n == "tosa.transpose_conv2d" || n == "tosa.conv3d") {
    if (op.operands.size() < 3) return false;
    bool is3d = n == "tosa.conv3d";
    const Shape& w = typeOf(op, 1).dims;
    if (w.size() != (is3d ? 5u : 4u)) return false;
    int64_t KD = is3d ? w[1] : 1, KH = w[is3d ? 2 : 1], KW = w[is3d ? 3 : 2], IC = w[is3d ? 4 : 3];
    L.KS = KD * KH * KW * IC;
    L.outType = accType(outType());
    L.role = {0, 1, 2};
    L.kOf = [=](size_t operand, const std::vector<int64_t>& x) -> int64_t {
      if (operand == 0) {
        if (is3d) return (((x[1] % KD) * KH + (x[2] % KH)) * KW + (x[3] % KW)) * IC + x[4];
        return ((x[1] % KH) * KW + (x[2] % KW)) * IC + x[3];
      }
      if (operand == 1) {
        if (is3d) return ((x[1] * KH + x[2]) * KW + x[3]) * IC + x[4];
        return (x[1] * KW + x[2]) * IC + x[3];
      }
      return 0;
    };
    return true;
  }
  if (n == "tosa.depthwise_conv2d") {
    if (op.operands.size() < 3 || typeOf(op, 1).dims.size() != 4) return false;
    const Shape& w = typeOf(op, 1).dims;
    int64_t KH = w[0], KW = w[1];
    L.KS = KH * KW;
    L.outType = accType(outType());
    L.role = {0, 1, 2};
    L.kOf = [=](size_t operand, const std::vector<int64_t>& x) -> int64_t {
      if (operand == 0) return (x[1] % KH) * KW + (x[2] % KW);
      if (operand == 1) return x[0] * KW + x[1];
      return 0;
    };
    return true;
  }
  if (n == "tosa.matmul") {
    if (op.operands.size() < 2 || typeOf(op, 0).dims.size() != 3) return false;
    L.KS = typeOf(op, 0).dims[2];
    L.outType = outType();
    L.role = {0, 1};
    L.kOf = [](size_t operand, const std::vector<int64_t>& x) -> int64_t { return operand == 0 ? x[2] : x[1]; };
    return true;
  }
  if (n == "tosa.reduce_sum") {
    int64_t axis = op.intAttr("axis");
    const Shape& s = typeOf(op, 0).dims;
    if (axis < 0 || axis >= int64_t(s.size())) return false;
    L.KS = s[size_t(axis)];
    L.outType = outType();
    L.role = {0};
    L.kOf = [axis](size_t, const std::vector<int64_t>& x) -> int64_t { return x[size_t(axis)]; };
    return true;
  }
  if (n == "tosa.avg_pool2d") {
    std::vector<int64_t> kernel = op.intArrayAttr("kernel");
    const Shape& s = typeOf(op, 0).dims;
    if (kernel.size() != 2 || s.size() != 4) return false;
    int64_t KY = kernel[0], KX = kernel[1], C = s[3];
    L.KS = KX * KY;
    L.outType = accType(outType());
    L.role = {0};
    L.kOf = [=](size_t, const std::vector<int64_t>& x) -> int64_t {
      return ((x[1] % KY) * KX + (x[2] % KX)) * C + x[3];
    };
    return true;
  }
  if (n == "tosa.fft2d" || n == "tosa.rfft2d") {
    const Shape& s = typeOf(op, 0).dims;
    if (s.size() != 3) return false;
    int64_t N = s[0], H = s[1], W = s[2];
    L.KS = (n == "tosa.fft2d" ? 2 : 1) * H * W;
    L.outType = outType();
    L.role = n == "tosa.fft2d" ? std::vector<int>{0, 0} : std::vector<int>{0};
    L.iOffset = {0, N * H * W};  // imaginary part: ((1*N+n)*H+y)*W+x
    L.kOf = [W](size_t, const std::vector<int64_t>& x) -> int64_t { return x[1] * W + x[2]; };
    return true;
  }
  return false;
}

bool isArgOf(const ir::Function& fn, const ir::Value* v, size_t& argIndex) {
  for (size_t a = 0; a < fn.inputs().size(); ++a)
    if (fn.inputs()[a] == v) {
      argIndex = a;
      return true;
    }
  return false;
}

}  // namespace

Result<std::vector<std::pair<std::string, Tensor>>> generateInputs(const ir::Function& fn, int S, uint32_t seed) {
  if (S < 0 || S > 5) return Status::invalid("test set must be 0..5, got " + std::to_string(S));
  SetDataCache sd;
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<bool> done(fn.inputs().size(), false);
  for (size_t a = 0; a < fn.inputs().size(); ++a) {
    const ir::ValueType& t = fn.inputs()[a]->type;
    if (!t.isStatic() || t.kind != ir::ValueType::Kind::Tensor)
      return Status::invalid("input '" + fn.inputName(a) + "': cannot generate data for " + t.toString() +
                             " (dynamic or unranked)");
    TK_RETURN_IF_ERROR(checkAllocation(t.dtype, t.dims, "input '" + fn.inputName(a) + "'"));
    out.emplace_back(fn.inputName(a), Tensor(t.dtype, t.dims));
  }
  // Operator-specific data (spec 5.3) for arguments feeding a dot-product operator directly.
  for (const auto& opPtr : fn.body.ops) {
    const ir::Operation& op = *opPtr;
    OpLayout L;
    if (!opLayout(op, L)) continue;
    DType inT = op.operands[0]->type.dtype;
    DType wT = op.operands.size() > 1 && L.role.size() > 1 && L.role[1] == 1 ? op.operands[1]->type.dtype : inT;
    double B = boundB(inT, wT, L.outType);
    if (B == 0) B = 1.0;  // type combination not in the table: data stays in [-1, 1]
    for (size_t o = 0; o < L.role.size() && o < op.operands.size(); ++o) {
      size_t arg;
      if (!isArgOf(fn, op.operands[o], arg) || done[arg]) continue;
      Tensor& t = out[arg].second;
      if (!isFloat(t.dtype())) continue;
      int64_t off = o < L.iOffset.size() ? L.iOffset[o] : 0;
      for (int64_t i = 0; i < t.size(); ++i) {
        std::vector<int64_t> idx = unravel(i, t.shape());
        int64_t k = L.role[o] == 2 ? 0 : L.kOf(o, idx);
        t.setFloat(i, proFpData(sd, S, L.KS, L.role[o], k, i + off, B));
      }
      done[arg] = true;
    }
  }
  // Everything else: pseudo-random data from a set derived from the seed.
  for (size_t a = 0; a < out.size(); ++a) {
    if (done[a]) continue;
    Tensor& t = out[a].second;
    uint32_t set = 64 + seed * 97 + uint32_t(a);
    for (int64_t i = 0; i < t.size(); ++i) {
      double v = sd.get(set, uint32_t(i));
      DType dt = t.dtype();
      if (isFloat(dt)) {
        t.setFloat(i, v);
      } else if (dt == DType::Bool) {
        t.setInt(i, v < 0 ? 0 : 1);
      } else {
        double lo = double(dtypeMin(dt)), hi = double(dtypeMax(dt));
        double x = std::nearbyint(lo + (v + 1.0) * 0.5 * (hi - lo));
        t.setInt(i, int64_t(std::min(std::max(x, lo), hi)));
      }
    }
  }
  return out;
}

}  // namespace tosakit::compliance
