#include "frontends/common/float_arith.h"

#include <utility>

namespace tosakit::frontends {

std::pair<ir::Value*, ir::Value*> twoProductF32(ir::Builder& b, ir::Value* a, ir::Value* c,
                                                const std::string& locPrefix) {
  const size_t rank = a->type.dims.size();
  auto m = [&](ir::Value* x, ir::Value* y) { return b.mul(x, y, 0, locPrefix + "/mul"); };
  auto add = [&](ir::Value* x, ir::Value* y) { return b.add(x, y, locPrefix + "/add"); };
  auto sub = [&](ir::Value* x, ir::Value* y) { return b.sub(x, y, locPrefix + "/sub"); };
  Tensor splitter(DType::FP32, Shape(rank, 1));
  splitter.setFloat(0, 4097.0);  // 2^12 + 1
  ir::Value* k = b.constant(std::move(splitter), locPrefix + "/const");
  auto split = [&](ir::Value* x) {
    ir::Value* t = m(x, k);
    ir::Value* hi = sub(t, sub(t, x));
    return std::make_pair(hi, sub(x, hi));
  };
  ir::Value* p = m(a, c);
  auto [ah, al] = split(a);
  auto [ch, cl] = split(c);
  ir::Value* e = add(add(add(sub(m(ah, ch), p), m(ah, cl)), m(al, ch)), m(al, cl));
  return {p, e};
}

// The residual r = x - q0*s is exact: q0*s = p + e (TwoProduct).
ir::Value* divideF32(ir::Builder& b, ir::Value* x, ir::Value* s, const std::string& locPrefix) {
  auto m = [&](ir::Value* a, ir::Value* c) { return b.mul(a, c, 0, locPrefix + "/mul"); };
  auto sub = [&](ir::Value* a, ir::Value* c) { return b.sub(a, c, locPrefix + "/sub"); };
  ir::Value* inv = b.op1("tosa.reciprocal", {s}, s->type, {}, locPrefix + "/reciprocal");
  ir::Value* q0 = m(x, inv);
  auto [p, e] = twoProductF32(b, q0, s, locPrefix);
  ir::Value* r = sub(sub(x, p), e);
  return b.add(q0, m(r, inv), locPrefix + "/add");
}

}  // namespace tosakit::frontends
