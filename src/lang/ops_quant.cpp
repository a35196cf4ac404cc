// Quantization BMLang operators: requant_int32 (modes 0, 1, 2), requant_fp32_to_int, dequant_int_to_fp32.
// Per-channel parameters run along axis 1 (C of NCHW).
#include <cmath>

#include "lang/lang_internal.h"

namespace tosakit::lang {

namespace {

// A per-tensor or per-channel parameter as a constant broadcasting against x ([1, C, 1, ...]).
template <typename T>
Value* param(Graph::Impl& g, Value* x, bool perChannel, T single, const std::vector<T>& vec, DType dt,
             const char* what) {
  int r = x->type.rank();
  if (!perChannel) {
    return dt == DType::FP32 ? g.splat(DType::FP32, double(single), r) : g.splat(dt, double(single), r);
  }
  if (r < 2) invalid(std::string("per-channel ") + what + " needs a channel axis (axis 1)");
  int64_t c = x->type.dims[1];
  if (int64_t(vec.size()) != c)
    invalid(std::string(what) + " has " + std::to_string(vec.size()) + " values, " + std::to_string(c) + " channels");
  Shape s(size_t(r), 1);
  s[1] = c;
  std::vector<double> d(vec.begin(), vec.end());
  if (dt == DType::FP32) return g.constF32(d, s);
  std::vector<int64_t> iv(vec.begin(), vec.end());
  return g.constant(Tensor::fromInts(dt, s, iv));
}

std::vector<int> values(bool pc, int single, const std::vector<int>& vec) {
  return pc ? vec : std::vector<int>{single};
}

// sign(v) * ((|v| + 2^(s-1)) >> s): rounding half away from zero.
Value* rshiftHalfAway(Graph::Impl& g, Value* v, Value* s) {
  Value* q = g.roundShiftT(g.unary("tosa.abs", v), s);
  Value* neg = g.cmp("tosa.greater", g.splat(DType::I32, 0, v->type.rank()), v);
  return g.selectV(neg, g.negate(q), q);
}

void requireOutInt(DType out) {
  if (out == DType::FP32 || !isLangType(out)) invalid("output type must be i8, u8, i16, u16 or i32");
}

}  // namespace

Var Graph::requant_int32(Var x, const RequantInt32Param& p, int mode, DType out) {
  return impl_->apply("requant_int32", {x}, [&] {
    Graph::Impl& g = *impl_;
    if (g.type(x) != DType::I32) invalid("input must be i32");
    requireOutInt(out);
    Value* v = g.val(x);
    const int r = v->type.rank();
    std::vector<int> shifts = values(p.is_mul_shift_pc, p.shift_val, p.shift_vec);
    for (int m : values(p.is_mul_shift_pc, p.multiplier_val, p.multiplier_vec))
      if (m == std::numeric_limits<int32_t>::min()) invalid("multiplier -2^31 is not supported");
    for (int s : shifts)
      if (s < -31 || s > 31) invalid("shift " + std::to_string(s) + " outside [-31, 31]");
    Value* mult = param<int>(g, v, p.is_mul_shift_pc, p.multiplier_val, p.multiplier_vec, DType::I32, "multiplier");
    std::vector<int> left(shifts.size()), right(shifts.size());
    for (size_t i = 0; i < shifts.size(); ++i) {
      left[i] = std::max(shifts[i], 0);
      right[i] = std::max(-shifts[i], 0);
    }
    auto shiftConst = [&](const std::vector<int>& s) {
      return param<int>(g, v, p.is_mul_shift_pc, s[0], s, DType::I32, "shift");
    };
    bool anyLeft = std::any_of(left.begin(), left.end(), [](int s) { return s > 0; });
    bool anyRight = std::any_of(right.begin(), right.end(), [](int s) { return s > 0; });
    switch (mode) {
      case 0:
        // x << shift (shift > 0); (x * m) >> 31 rounding half up; >> -shift rounding half away (shift < 0).
        if (anyLeft) v = g.lls(v, shiftConst(left));
        v = g.mulI32(v, mult, 31);
        if (anyRight) v = rshiftHalfAway(g, v, shiftConst(right));
        break;
      case 1:
        if (anyLeft) invalid("mode 1 takes shifts <= 0 (output >> -shift)");
        v = g.mulI32(v, mult, 31);
        if (anyRight) v = rshiftHalfAway(g, v, shiftConst(right));
        break;
      case 2:
        // x * m, then << shift or >> -shift rounding half up. A uniform right shift is folded into TOSA
        // MUL's own rounding shift, which keeps the 64-bit product.
        if (!p.is_mul_shift_pc && anyRight) {
          v = g.mulI32(v, mult, right[0]);
        } else {
          v = g.mulI32(v, mult, 0);
          if (anyLeft) v = g.lls(v, shiftConst(left));
          if (anyRight) v = g.roundShiftT(v, shiftConst(right));
        }
        break;
      default: invalid("mode must be 0, 1 or 2");
    }
    Value* off = param<int>(g, v, p.is_offset_pc, p.offset_val, p.offset_vec, DType::I32, "offset");
    v = g.binary("tosa.add", v, off, DType::I32);
    (void)r;
    return g.make(g.narrow(v, out), out);
  });
}

Var Graph::requant_fp32_to_int(Var x, const RequantFp32Param& p, DType out) {
  return impl_->apply("requant_fp32_to_int", {x}, [&] {
    Graph::Impl& g = *impl_;
    if (g.type(x) != DType::FP32) invalid("input must be fp32");
    requireOutInt(out);
    Value* v = g.val(x);
    Value* scale = param<float>(g, v, p.is_scale_pc, p.scale_val, p.scale_vec, DType::FP32, "scale");
    Value* y = g.mulF32(v, scale);
    if (p.mode == 1) {
      y = g.binary("tosa.add", y,
                   param<float>(g, v, p.is_offset_pc, p.offset_fp_val, p.offset_fp_vec, DType::FP32, "offset"),
                   DType::FP32);
    } else if (p.mode != 0) {
      invalid("mode must be 0 or 1");
    }
    y = g.roundHalfAwayF32(y);
    // Rounded values are integers; bounds beyond every 8/16-bit output keep the later saturation exact.
    const double lim = out == DType::I32 ? 2147483520.0 : 16777216.0;
    y = g.cast(g.clampF32(y, -lim, lim), DType::I32);
    if (p.mode == 0)
      y = g.binary("tosa.add", y, param<int>(g, v, p.is_offset_pc, p.offset_val, p.offset_vec, DType::I32, "offset"),
                   DType::I32);
    return g.make(g.narrow(y, out), out);
  });
}

Var Graph::dequant_int_to_fp32(Var x, const DequantInt32Param& p) {
  return impl_->apply("dequant_int_to_fp32", {x}, [&] {
    Graph::Impl& g = *impl_;
    DType t = g.type(x);
    if (t == DType::FP32) invalid("input must be an integer tensor");
    Value* v = g.val(x);
    Value* scale = param<float>(g, v, p.is_scale_pc, p.scale_val, p.scale_vec, DType::FP32, "scale");
    Value* f;
    if (p.mode == 1) {
      f = g.binary("tosa.sub", g.toF32(v, t),
                   param<float>(g, v, p.is_offset_pc, p.offset_fp_val, p.offset_fp_vec, DType::FP32, "offset"),
                   DType::FP32);
    } else {
      Value* w = g.widen(v, t);
      w = g.binary("tosa.sub", w, param<int>(g, v, p.is_offset_pc, p.offset_val, p.offset_vec, DType::I32, "offset"),
                   DType::I32);
      f = g.cast(w, DType::FP32);
    }
    return g.make(g.mulF32(f, scale), DType::FP32);
  });
}

}  // namespace tosakit::lang
