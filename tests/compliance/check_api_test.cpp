// tosakit::checkResults as a library call (what the Python package binds): a module built in code, tensors in
// memory. Expected verdicts are hand-computed from spec 2.5.1 (ADD: tosa_reference_check_fp(out, ref, 0.5)).
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "tosakit/check.h"

using namespace tosakit;

namespace {

std::unique_ptr<ir::Module> addModule() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ir::ValueType::tensor(DType::FP32, {2}), "x");
  ir::Value* y = b.input(ir::ValueType::tensor(DType::FP32, {2}), "y");
  b.output({b.add(x, y, "sum")}, {"s"});
  return m;
}

}  // namespace

// x + y with x = [1, 1.5], y = [2^-30, 0]: out_ref = [1 + 2^-30, 1.5]; half an ulp at 1 is 2^-24, so 1.0 is
// compliant and 1 + 2^-23 (2^-23 - 2^-30 away) is not.
TEST(CheckApi, PreloadedModuleAndTensorsInMemory) {
  auto m = addModule();
  CheckOptions o;
  o.module = m.get();
  const double tiny = std::ldexp(1.0, -30);
  o.inputs.tensors = NamedTensors{{"x", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})},
                                  {"y", Tensor::fromDoubles(DType::FP32, {2}, {tiny, 0.0})}};
  o.result.tensors = NamedTensors{{"s", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})}};
  auto ok = checkResults(o);
  ASSERT_TRUE(ok.isOk()) << ok.status().toString();
  ASSERT_EQ(ok->entries.size(), 1u);
  EXPECT_EQ(ok->entries[0].verdict, Verdict::Compliant) << ok->toText();
  EXPECT_EQ(ok->entries[0].rule, "ULP(0.5)");
  EXPECT_EQ(ok->entries[0].section, "2.5.1 ADD");
  EXPECT_EQ(ok->entries[0].op, "tosa.add");

  o.result.tensors = NamedTensors{{"s", Tensor::fromDoubles(DType::FP32, {2}, {1.0 + std::ldexp(1.0, -23), 1.5})}};
  auto bad = checkResults(o);
  ASSERT_TRUE(bad.isOk());
  EXPECT_EQ(bad->entries[0].verdict, Verdict::NotCompliant) << bad->toText();
  EXPECT_EQ(bad->entries[0].worstIndex, 0);
  EXPECT_FALSE(bad->compliant());
  EXPECT_NE(bad->toJson().find("\"verdict\": \"not_compliant\""), std::string::npos);
}

TEST(CheckApi, MissingResultIsAnError) {
  auto m = addModule();
  CheckOptions o;
  o.module = m.get();
  o.result.tensors = NamedTensors{{"other", Tensor::fromDoubles(DType::FP32, {2}, {1.0, 1.5})}};
  o.reference.tensors = NamedTensors{{"s", Tensor::fromDoubles(DType::FP64, {2}, {1.0, 1.5})}};
  auto r = checkResults(o);
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("no output 's'"), std::string::npos) << r.status().toString();
}

namespace {

// reverse(pad(concat(rsqrt(x), reciprocal(y)), 1 before and after, pad value 0.5)): every output element is
// a copy of one element of RSQRT (2.6.12: 2 ulp), of RECIPROCAL (2.6.11: 1 ulp) or of the pad value (exact).
std::unique_ptr<ir::Module> movedModule() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto f32 = [](Shape s) { return ir::ValueType::tensor(DType::FP32, std::move(s)); };
  ir::Value* x = b.input(f32({2}), "x");
  ir::Value* y = b.input(f32({1}), "y");
  ir::Value* r = b.op1("tosa.rsqrt", {x}, f32({2}), {}, "rs");
  ir::Value* q = b.op1("tosa.reciprocal", {y}, f32({1}), {}, "rc");
  ir::Value* c = b.op1("tosa.concat", {r, q}, f32({3}), {{"axis", ir::Attribute::integer(0, DType::I32)}}, "cat");
  ir::Value* padValue = b.constant(Tensor::fromDoubles(DType::FP32, {1}, {0.5}));
  ir::Value* p = b.op1("tosa.pad", {c, b.constShape({1, 1}), padValue}, f32({5}), {}, "pad");
  b.output({b.op1("tosa.reverse", {p}, f32({5}), {{"axis", ir::Attribute::integer(0, DType::I32)}}, "rev")}, {"out"});
  return m;
}

}  // namespace

// x = [4, 0.25], y = [4]: rsqrt = [0.5, 2], reciprocal = [0.25], all exact in fp32; the output is
// [0.5 (pad), 0.25 (reciprocal), 2 (rsqrt x1), 0.5 (rsqrt x0), 0.5 (pad)]. Each element is judged by its own
// source's rule with that element's bound: at 2 the RSQRT allowance is 2 ulp = 2 * 2^-22; at 0.25 the
// RECIPROCAL allowance is 1 ulp = 2^-25 (2 ulp there would be RSQRT's, not its rule); the pad value is exact.
TEST(CheckApi, DataMovementAfterTwoInexactOps) {
  auto m = movedModule();
  CheckOptions o;
  o.module = m.get();
  o.inputs.tensors = NamedTensors{{"x", Tensor::fromDoubles(DType::FP32, {2}, {4.0, 0.25})},
                                  {"y", Tensor::fromDoubles(DType::FP32, {1}, {4.0})}};
  auto judge = [&](std::vector<double> out) {
    o.result.tensors = NamedTensors{{"out", Tensor::fromDoubles(DType::FP32, {5}, out)}};
    auto r = checkResults(o);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    return r.isOk() ? *r : CheckReport();
  };
  const double u2 = std::ldexp(1.0, -22), u025 = std::ldexp(1.0, -25), u05 = std::ldexp(1.0, -24);
  CheckReport exact = judge({0.5, 0.25, 2.0, 0.5, 0.5});
  ASSERT_EQ(exact.entries.size(), 1u);
  EXPECT_EQ(exact.verdict(), Verdict::Compliant) << exact.toText();
  EXPECT_EQ(exact.entries[0].rule, "ULP(2); ULP(1) + EXACT") << exact.toText();
  EXPECT_EQ(exact.entries[0].op, "tosa.rsqrt; tosa.reciprocal");
  EXPECT_EQ(judge({0.5, 0.25, 2.0 + 2 * u2, 0.5, 0.5}).verdict(), Verdict::Compliant);
  CheckReport rs = judge({0.5, 0.25, 2.0 + 3 * u2, 0.5, 0.5});
  EXPECT_EQ(rs.verdict(), Verdict::NotCompliant) << rs.toText();
  EXPECT_EQ(rs.exitCode(), 1);
  EXPECT_NE(rs.entries[0].reason.find("element 2 (tosa.rsqrt"), std::string::npos) << rs.entries[0].reason;
  EXPECT_NE(rs.entries[0].reason.find("element 1)"), std::string::npos) << rs.entries[0].reason;
  EXPECT_EQ(judge({0.5, 0.25 + u025, 2.0, 0.5, 0.5}).verdict(), Verdict::Compliant);
  CheckReport rc = judge({0.5, 0.25 + 2 * u025, 2.0, 0.5, 0.5});
  EXPECT_EQ(rc.verdict(), Verdict::NotCompliant) << rc.toText();
  EXPECT_NE(rc.entries[0].reason.find("tosa.reciprocal"), std::string::npos) << rc.entries[0].reason;
  EXPECT_EQ(judge({0.5, 0.25, 2.0, 0.5 + 2 * u05, 0.5}).verdict(), Verdict::Compliant);  // rsqrt x0: 2 ulp
  CheckReport pad = judge({0.5, 0.25, 2.0, 0.5, 0.5 + u05});
  EXPECT_EQ(pad.verdict(), Verdict::NotCompliant) << pad.toText();
  EXPECT_NE(pad.entries[0].reason.find("exact match required"), std::string::npos) << pad.entries[0].reason;
}

// An output no single operator's rule covers (exp of an rsqrt) is "not judged": the report's verdict is
// NotJudged (exit 7) unless allowNotJudged.
TEST(CheckApi, NotJudgedIsNotAPass) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto t = ir::ValueType::tensor(DType::FP32, {1});
  ir::Value* x = b.input(t, "x");
  b.output({b.op1("tosa.exp", {b.op1("tosa.rsqrt", {x}, t, {}, "rs")}, t, {}, "ex")}, {"out"});
  CheckOptions o;
  o.module = m.get();
  o.inputs.tensors = NamedTensors{{"x", Tensor::fromDoubles(DType::FP32, {1}, {4.0})}};
  o.result.tensors = NamedTensors{{"out", Tensor::fromDoubles(DType::FP32, {1}, {std::exp(0.5)})}};
  auto r = checkResults(o);
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_EQ(r->entries[0].verdict, Verdict::NotJudged) << r->toText();
  EXPECT_TRUE(r->compliant());                  // nothing NOT compliant ...
  EXPECT_EQ(r->verdict(), Verdict::NotJudged);  // ... but no verdict either
  EXPECT_EQ(r->exitCode(), 7);
  EXPECT_NE(r->toText().find("give intermediates"), std::string::npos) << r->toText();
  // A door spells the parameter its own way (the CLI: --intermediates).
  auto flag = [](const std::string& p) { return "--" + p; };
  EXPECT_NE(r->toText(flag).find("give --intermediates"), std::string::npos) << r->toText(flag);
  o.allowNotJudged = true;
  auto allowed = checkResults(o);
  ASSERT_TRUE(allowed.isOk());
  EXPECT_EQ(allowed->verdict(), Verdict::Compliant);
  EXPECT_EQ(allowed->exitCode(), 0);
}
