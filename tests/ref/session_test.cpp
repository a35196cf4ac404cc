// Session: named inputs/outputs and intermediate capture.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

TEST(SessionTest, IntermediatesAreKeyedByOpNameUniquelyWithoutConstants) {
  // y = (x + c) + c, both adds named "step": captured as "step" and "step#2"; the constant is not a layer.
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(TT(DType::I32, {2}), "x");
  ir::Value* c = b.constant(Tensor::fromInts(DType::I32, {2}, {1, 2}), "weights");
  ir::Value* s1 = b.add(x, c, "step");
  ir::Value* s2 = b.add(s1, c, "step");
  b.output({s2}, {"y"});
  auto session = Session::create(std::move(m));
  ASSERT_TRUE(session.isOk());
  RunOptions ro;
  ro.captureIntermediates = true;
  RunResult r;
  Status s = (*session)->run({{"x", Tensor::fromInts(DType::I32, {2}, {10, 20})}}, r, ro);
  ASSERT_TRUE(s.isOk()) << s.toString();
  ASSERT_EQ(r.intermediates.size(), 2u);
  EXPECT_EQ(r.intermediates[0].first, "step");
  EXPECT_EQ(r.intermediates[0].second.toInts(), (std::vector<int64_t>{11, 22}));
  EXPECT_EQ(r.intermediates[1].first, "step#2");
  EXPECT_EQ(r.intermediates[1].second.toInts(), (std::vector<int64_t>{12, 24}));
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_EQ(r.outputs[0].first, "y");
}

TEST(SessionTest, UnknownFunctionAndInputsAreRejectedByName) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(TT(DType::I32, {2}), "x");
  b.output({b.add(x, x)});
  auto session = Session::create(std::move(m));
  ASSERT_TRUE(session.isOk());
  RunResult r;
  RunOptions ro;
  ro.function = "nope";
  Status s = (*session)->run({{"x", Tensor(DType::I32, {2})}}, r, ro);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("no function 'nope'"), std::string::npos) << s.toString();
  s = (*session)->run({{"z", Tensor(DType::I32, {2})}}, r);
  EXPECT_NE(s.message().find("unknown input 'z'"), std::string::npos) << s.toString();
  s = (*session)->run({}, r);
  EXPECT_NE(s.message().find("missing input 'x'"), std::string::npos) << s.toString();
  s = (*session)->run({{"x", Tensor(DType::I8, {2})}}, r);
  EXPECT_NE(s.message().find("dtype i8, expected i32"), std::string::npos) << s.toString();
}

// The fast backend exists exactly when the build has it (CMake option TOSAKIT_FAST); without it a session
// asking for it is refused as Unsupported, and the golden model runs alone.
TEST(SessionTest, FastBackendOnlyWhenBuilt) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(TT(DType::I32, {2}), "x");
  b.output({b.add(x, x)}, {"y"});
  SessionOptions so;
  so.backend = "fast";
  auto session = Session::create(std::move(m), so);
#ifdef TOSAKIT_HAVE_FAST
  ASSERT_TRUE(session.isOk()) << session.status().toString();
  EXPECT_EQ((*session)->backend().name(), "fast");
#else
  ASSERT_FALSE(session.isOk());
  EXPECT_EQ(session.status().code(), StatusCode::Unsupported);
#endif
}

}  // namespace
}  // namespace tosakit::testing
