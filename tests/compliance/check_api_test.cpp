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
