// The fast backend's release of the module's copy of packed weights (docs/FAST.md, "Memory"): a Session's
// fast plan frees the module's tensor of each constant that oneDNN holds packed, and gives it back bit for
// bit whenever something reads it again: a step rerun on its reference kernel (an inf input), an unfused plan
// (intermediates) after a fused one, Session::module(). Constants another owner shares, and modules run
// through a Backend directly, are never released.
//
// The graph uses small integer values, so every dot product is exact in fp32 (|sums| far below 2^24) and the
// fast results equal the reference backend's bit for bit: any weight restored wrongly changes the output.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "onednn_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {
namespace {

using ir::ValueType;

// x [1,6,6,4] -> conv2d (w [8,3,3,4], bias [8], pad 1; oneDNN) -> depthwise_conv2d (dw [3,3,8,1], dbias [8],
// pad 1; the own fp32 kernel) -> reshape [1,36,8] -> matmul (B [1,8,5]; oneDNN) -> y [1,36,5].
const Tensor& convWeights() {
  static const Tensor w = smallInts({8, 3, 3, 4}, 1);
  return w;
}
const Tensor& matmulB() {
  static const Tensor b = smallInts({1, 8, 5}, 2);
  return b;
}
const Tensor& depthwiseWeights() {
  static const Tensor w = smallInts({3, 3, 8, 1}, 5);
  return w;
}
// Bytes the fast plan releases: the conv weights, the depthwise weights and bias, B (hand count: 8*3*3*4,
// 3*3*8, 8 and 8*5 fp32 values). The conv's bias stays (oneDNN's copy of it is not offered back).
constexpr int64_t kPackedBytes = (8 * 3 * 3 * 4 + 3 * 3 * 8 + 8 + 8 * 5) * 4;

std::unique_ptr<ir::Module> convMatmul() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, {1, 6, 6, 4}), "x");
  const ir::Conv2dAttrs ca = fp32ConvAttrs(1);
  auto* c = b.conv2d(x, b.constant(convWeights(), "w"), b.constant(smallInts({8}, 3), "bias"), ca, "conv");
  auto* fzp = b.scalar1(DType::FP32, 0);
  auto* d = b.op1("tosa.depthwise_conv2d",
                  {c, b.constant(depthwiseWeights(), "dw"), b.constant(smallInts({8}, 6), "dbias"), fzp, fzp},
                  ValueType::tensor(DType::FP32, {1, 6, 6, 8}),
                  {{"pad", ir::Attribute::intArray({1, 1, 1, 1})},
                   {"stride", ir::Attribute::intArray({1, 1})},
                   {"dilation", ir::Attribute::intArray({1, 1})},
                   {"acc_type", ir::Attribute::type(DType::FP32)}},
                  "depthwise");
  auto* r = b.reshape(d, {1, 36, 8}, "flat");
  auto* zp = b.scalar1(DType::FP32, 0);
  auto* y = b.op1("tosa.matmul", {r, b.constant(matmulB(), "B"), zp, zp}, ValueType::tensor(DType::FP32, {1, 36, 5}),
                  {}, "matmul");
  b.output({y}, {"y"});
  return m;
}

NamedTensors finiteInput() { return {{"x", smallInts({1, 6, 6, 4}, 4)}}; }
// One inf: the conv and matmul steps (oneDNN) rerun on the reference kernels, which read the weights.
NamedTensors infInput() {
  NamedTensors in = finiteInput();
  in[0].second.setFloat(37, INFINITY);
  return in;
}

std::unique_ptr<Session> fastSession(std::unique_ptr<ir::Module> m) {
  SessionOptions so;
  so.backend = "fast";
  so.threads = 2;
  auto s = Session::create(std::move(m), so);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  return s.isOk() ? std::move(*s) : nullptr;
}

RunResult runRef(const NamedTensors& in, bool intermediates = false) {
  SessionOptions so;
  so.backend = "ref";
  auto s = Session::create(convMatmul(), so);
  EXPECT_TRUE(s.isOk());
  RunResult r;
  RunOptions ro;
  ro.captureIntermediates = intermediates;
  EXPECT_TRUE((*s)->run(in, r, ro).isOk());
  return r;
}

RunResult runOk(Session& s, const NamedTensors& in, bool intermediates = false) {
  RunResult r;
  RunOptions ro;
  ro.captureIntermediates = intermediates;
  Status st = s.run(in, r, ro);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return r;
}

void expectSameOutput(const RunResult& ref, const RunResult& fast) {
  ASSERT_EQ(ref.outputs.size(), 1u);
  ASSERT_EQ(fast.outputs.size(), 1u);
  EXPECT_TRUE(ref.outputs[0].second.identical(fast.outputs[0].second))
      << "ref " << ref.outputs[0].second.summary() << " fast " << fast.outputs[0].second.summary();
}

// The value of the tosa.const named `name` in the module as Session::module() gives it.
const Tensor* constantNamed(const ir::Module& m, const std::string& name) {
  for (const auto& op : m.function("main")->body.ops)
    if (op->name == "tosa.const" && op->loc.name == name) return op->attr("values")->tensor.get();
  return nullptr;
}

void expectModuleConstantsIntact(const Session& s) {
  const Tensor* w = constantNamed(s.module(), "w");
  const Tensor* b = constantNamed(s.module(), "B");
  const Tensor* dw = constantNamed(s.module(), "dw");
  ASSERT_NE(w, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(dw, nullptr);
  EXPECT_TRUE(w->identical(convWeights())) << w->summary();
  EXPECT_TRUE(dw->identical(depthwiseWeights())) << dw->summary();
  EXPECT_TRUE(b->identical(matmulB())) << b->summary();
}

TEST(ConstantRelease, PackedWeightsAreReleasedResultsUnchanged) {
  auto s = fastSession(convMatmul());
  ASSERT_TRUE(s);
  RunResult fast = runOk(*s, finiteInput());
  expectSameOutput(runRef(finiteInput()), fast);
  EXPECT_EQ(s->planStats().releasedConstantBytes, kPackedBytes);
  // function() reads the signature without giving anything back.
  ASSERT_NE(s->function("main"), nullptr);
  EXPECT_EQ(s->function("main")->inputName(0), "x");
  EXPECT_EQ(s->planStats().releasedConstantBytes, kPackedBytes);
  expectSameOutput(fast, runOk(*s, finiteInput()));
}

TEST(ConstantRelease, ReferenceRerunRestoresTheWeightsExactly) {
  auto s = fastSession(convMatmul());
  ASSERT_TRUE(s);
  runOk(*s, finiteInput());
  ASSERT_EQ(s->planStats().releasedConstantBytes, kPackedBytes);
  // The inf makes both steps rerun on the reference kernels: they need w and B as TOSA stores them.
  RunResult fast = runOk(*s, infInput());
  expectSameOutput(runRef(infInput()), fast);
  bool special = false;  // the inf reached the output: the rerun path ran
  const Tensor& y = fast.outputs[0].second;
  for (int64_t i = 0; i < y.size(); ++i) special |= !std::isfinite(y.getFloat(i));
  EXPECT_TRUE(special);
  // The oneDNN steps gave w and B back; the own depthwise kernel computes inf/NaN itself (no rerun), so its
  // constants stay released.
  EXPECT_EQ(s->planStats().releasedConstantBytes, (3 * 3 * 8 + 8) * 4);
  // The packed copies still serve finite inputs.
  expectSameOutput(runRef(finiteInput()), runOk(*s, finiteInput()));
  expectModuleConstantsIntact(*s);
}

TEST(ConstantRelease, ModuleAccessGivesEveryConstantBack) {
  auto s = fastSession(convMatmul());
  ASSERT_TRUE(s);
  runOk(*s, finiteInput());
  ASSERT_EQ(s->planStats().releasedConstantBytes, kPackedBytes);
  expectModuleConstantsIntact(*s);
  EXPECT_EQ(s->planStats().releasedConstantBytes, 0);
  expectSameOutput(runRef(finiteInput()), runOk(*s, finiteInput()));
}

TEST(ConstantRelease, IntermediatesAfterAFastRunSeeTheWeights) {
  auto s = fastSession(convMatmul());
  ASSERT_TRUE(s);
  runOk(*s, finiteInput());
  ASSERT_EQ(s->planStats().releasedConstantBytes, kPackedBytes);
  // The unfused plan is compiled from the module's constants: the fused plan gives them back first.
  RunResult observed = runOk(*s, finiteInput(), true);
  RunResult ref = runRef(finiteInput(), true);
  expectSameOutput(ref, observed);
  ASSERT_EQ(observed.intermediates.size(), ref.intermediates.size());
  for (size_t i = 0; i < ref.intermediates.size(); ++i) {
    EXPECT_EQ(observed.intermediates[i].first, ref.intermediates[i].first);
    EXPECT_TRUE(observed.intermediates[i].second.identical(ref.intermediates[i].second)) << ref.intermediates[i].first;
  }
  EXPECT_EQ(s->planStats().releasedConstantBytes, 0);
  expectSameOutput(ref, runOk(*s, finiteInput()));
}

// An imported Gemm: B stored [8,5] and reshaped to [1,8,5] for tosa.matmul. The plan folds the reshape into a
// constant of its own, which oneDNN packs; the original, read by nothing else, is rebuilt from the folded one.
std::unique_ptr<ir::Module> gemmLike() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto* x = b.input(ValueType::tensor(DType::FP32, {1, 4, 8}), "x");
  Tensor b2 = matmulB();
  b2.reshape({8, 5});
  auto* zp = b.scalar1(DType::FP32, 0);
  auto* w = b.reshape(b.constant(b2, "B"), {1, 8, 5}, "B3");
  auto* y = b.op1("tosa.matmul", {x, w, zp, zp}, ValueType::tensor(DType::FP32, {1, 4, 5}), {}, "matmul");
  b.output({y}, {"y"});
  return m;
}

TEST(ConstantRelease, FoldedReshapeOfAConstantCountsOnceAndComesBack) {
  auto s = fastSession(gemmLike());
  ASSERT_TRUE(s);
  NamedTensors in{{"x", smallInts({1, 4, 8}, 7)}};
  SessionOptions so;
  so.backend = "ref";
  auto ref = Session::create(gemmLike(), so);
  ASSERT_TRUE(ref.isOk());
  RunResult expected;
  ASSERT_TRUE((*ref)->run(in, expected).isOk());
  expectSameOutput(expected, runOk(*s, in));
  // Hand count: B once (8*5 fp32; the folded copy stands for the original), the zero point (one fp32 value,
  // both operands) and the reshape's shape operand (tosa.const_shape, 3 x i64).
  EXPECT_EQ(s->planStats().constantBytes, 8 * 5 * 4 + 4 + 3 * 8);
  EXPECT_EQ(s->planStats().releasedConstantBytes, 8 * 5 * 4);
  // An inf reruns the matmul on its reference kernel (the folded B comes back); then the module's B [8,5].
  in[0].second.setFloat(3, INFINITY);
  RunResult inf, infRef;
  ASSERT_TRUE((*ref)->run(in, infRef).isOk());
  inf = runOk(*s, in);
  expectSameOutput(infRef, inf);
  Tensor b2 = matmulB();
  b2.reshape({8, 5});
  const Tensor* b = constantNamed(s->module(), "B");
  ASSERT_NE(b, nullptr);
  EXPECT_TRUE(b->identical(b2)) << b->summary();
  EXPECT_EQ(s->planStats().releasedConstantBytes, 0);
}

TEST(ConstantRelease, SharedTensorsAreKept) {
  auto m = convMatmul();
  // Another owner of w's tensor (as a cloned module or a Python Module shares it): w must stay.
  std::shared_ptr<const Tensor> other;
  for (const auto& op : m->function("main")->body.ops)
    if (op->loc.name == "w") other = op->attr("values")->tensor;
  ASSERT_TRUE(other);
  auto s = fastSession(std::move(m));
  ASSERT_TRUE(s);
  expectSameOutput(runRef(finiteInput()), runOk(*s, finiteInput()));
  EXPECT_EQ(s->planStats().releasedConstantBytes, kPackedBytes - 8 * 3 * 3 * 4 * 4);  // all but w
  EXPECT_TRUE(other->identical(convWeights()));
}

TEST(ConstantRelease, BackendUsedDirectlyKeepsConstants) {
  // Without a Session the caller owns the module and may run it on another backend: nothing is released.
  auto m = convMatmul();
  const ir::Function& fn = *m->function("main");
  const ir::TargetEnv target = ir::TargetEnv::all();
  std::unique_ptr<Backend> fast = createFastBackend();
  std::vector<Tensor> in{finiteInput()[0].second}, out, refOut;
  ASSERT_TRUE(fast->run(fn, target, in, out, nullptr).isOk());
  EXPECT_EQ(fast->planStats(fn).releasedConstantBytes, 0);
  ASSERT_TRUE(createReferenceBackend()->run(fn, target, in, refOut, nullptr).isOk());
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(refOut.size(), 1u);
  EXPECT_TRUE(out[0].identical(refOut[0]));
}

}  // namespace
}  // namespace tosakit::testing
