#include "frontends/common/float_arith.h"

#include <utility>

namespace tosakit::frontends {

// The residual r = x - q0*s is exact: q0*s = p + e by Dekker's TwoProduct (Veltkamp splitting into 12-bit
// halves; exact because TOSA's fp32 MUL/ADD/SUB round correctly).
ir::Value* divideF32(ir::Builder& b, ir::Value* x, ir::Value* s, const std::string& locPrefix) {
  const size_t rank = x->type.dims.size();
  auto m = [&](ir::Value* a, ir::Value* c) { return b.mul(a, c, 0, locPrefix + "/mul"); };
  auto add = [&](ir::Value* a, ir::Value* c) { return b.add(a, c, locPrefix + "/add"); };
  auto sub = [&](ir::Value* a, ir::Value* c) { return b.sub(a, c, locPrefix + "/sub"); };
  Tensor splitter(DType::FP32, Shape(rank, 1));
  splitter.setFloat(0, 4097.0);  // 2^12 + 1
  ir::Value* k = b.constant(std::move(splitter), locPrefix + "/const");
  auto split = [&](ir::Value* a) {
    ir::Value* t = m(a, k);
    ir::Value* hi = sub(t, sub(t, a));
    return std::make_pair(hi, sub(a, hi));
  };
  ir::Value* inv = b.op1("tosa.reciprocal", {s}, s->type, {}, locPrefix + "/reciprocal");
  ir::Value* q0 = m(x, inv);
  ir::Value* p = m(q0, s);
  auto [qh, ql] = split(q0);
  auto [sh, sl] = split(s);
  ir::Value* e = add(add(add(sub(m(qh, sh), p), m(qh, sl)), m(ql, sh)), m(ql, sl));
  ir::Value* r = sub(sub(x, p), e);
  return add(q0, m(r, inv));
}

}  // namespace tosakit::frontends
