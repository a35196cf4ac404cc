// VARIABLE / VARIABLE_READ / VARIABLE_WRITE (spec 2.17): state persists across runs of one Session.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

ir::ValueType I8x2() { return ir::ValueType::tensor(DType::I8, {2}); }
ir::ValueType F32x2() { return ir::ValueType::tensor(DType::FP32, {2}); }
Tensor f32(std::vector<double> v) { return Tensor::fromDoubles(DType::FP32, {int64_t(v.size())}, v); }

std::map<std::string, ir::Attribute> named(const std::string& n) { return {{"name", ir::Attribute::symbol(n)}}; }

// Module-level variable @acc : fp32[2] (MLIR 22 form); main(x) { r = read @acc; s = r + x; write @acc, s; return s }
// (fp32: ADD has no i8 row.)
std::unique_ptr<ir::Module> accumulator(std::optional<Tensor> init) {
  auto m = std::make_unique<ir::Module>();
  ir::Variable v;
  v.name = "acc";
  v.type = F32x2();
  v.initialValue = std::move(init);
  m->variables.push_back(v);
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(F32x2(), "x");
  ir::Value* r = b.op1("tosa.variable_read", {}, F32x2(), named("acc"));
  ir::Value* s = b.add(r, x);
  b.create("tosa.variable_write", {s}, {}, named("acc"));
  b.output({s}, {"s"});
  return m;
}

TEST(VariableTest, StatePersistsAcrossRuns) {
  // initial [1, 2]; run 1: [1,2] + [10,20] = [11,22]; run 2: [11,22] + [10,20] = [21,42]
  auto session = Session::create(accumulator(f32({1, 2})));
  ASSERT_TRUE(session.isOk()) << session.status().toString();
  NamedTensors feeds{{"x", f32({10, 20})}};
  RunResult r1, r2;
  ASSERT_TRUE((*session)->run(feeds, r1).isOk());
  EXPECT_EQ(r1.outputs[0].second.toDoubles(), (std::vector<double>{11, 22}));
  Status s = (*session)->run(feeds, r2);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(r2.outputs[0].second.toDoubles(), (std::vector<double>{21, 42}));
}

TEST(VariableTest, FreshSessionStartsFromInitialValue) {
  NamedTensors feeds{{"x", f32({1, 1})}};
  for (int i = 0; i < 2; ++i) {
    auto session = Session::create(accumulator(f32({5, 6})));
    ASSERT_TRUE(session.isOk()) << session.status().toString();
    RunResult r;
    ASSERT_TRUE((*session)->run(feeds, r).isOk());
    EXPECT_EQ(r.outputs[0].second.toDoubles(), (std::vector<double>{6, 7}));
  }
}

TEST(VariableTest, ReadBeforeAnyWriteIsUnpredictable) {
  // No initial value: REQUIRE(variable_tensor.is_written) fails on the first read.
  auto session = Session::create(accumulator(std::nullopt));
  ASSERT_TRUE(session.isOk());
  RunResult r;
  Status s = (*session)->run({{"x", f32({1, 1})}}, r);
  EXPECT_EQ(s.code(), StatusCode::Unpredictable) << s.toString();
}

// main() { write @name, value; return read @name : readType }. With gDirect set, the graph runs on the
// reference backend directly (no static validation first), so the kernels' own verdicts are checked.
bool gDirect = false;

Status writeThenRead(const std::string& declared, ir::ValueType varType, Tensor value, ir::ValueType readType,
                     const std::string& readName, std::vector<int64_t>* out = nullptr) {
  auto m = std::make_unique<ir::Module>();
  ir::Variable v;
  v.name = declared;
  v.type = varType;
  m->variables.push_back(v);
  ir::Builder b(*m, "main");
  b.create("tosa.variable_write", {b.constant(std::move(value))}, {}, named(declared));
  b.output({b.op1("tosa.variable_read", {}, readType, named(readName))});
  if (gDirect) {
    std::vector<Tensor> outs;
    return createReferenceBackend()->run(b.function(), ir::TargetEnv::all(), {}, outs, nullptr);
  }
  auto session = Session::create(std::move(m));
  if (!session) return session.status();
  RunResult r;
  Status s = (*session)->run({}, r);
  if (s.isOk() && out) *out = r.outputs[0].second.toInts();
  return s;
}

TEST(VariableTest, WriteThenReadInOneRun) {
  std::vector<int64_t> got;
  Status s = writeThenRead("v", I8x2(), Tensor::fromInts(DType::I8, {2}, {-3, 4}), I8x2(), "v", &got);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(got, (std::vector<int64_t>{-3, 4}));
}

TEST(VariableTest, Fp16AndFp32Rows) {
  for (DType t : {DType::FP16, DType::FP32}) {
    auto vt = ir::ValueType::tensor(t, {1});
    auto m = std::make_unique<ir::Module>();
    ir::Variable v;
    v.name = "f";
    v.type = vt;
    v.initialValue = Tensor::fromDoubles(t, {1}, {1.5});
    m->variables.push_back(v);
    ir::Builder b(*m, "main");
    b.output({b.op1("tosa.variable_read", {}, vt, named("f"))});
    auto session = Session::create(std::move(m));
    ASSERT_TRUE(session.isOk());
    RunResult r;
    ASSERT_TRUE((*session)->run({}, r).isOk());
    EXPECT_EQ(r.outputs[0].second.toDoubles(), (std::vector<double>{1.5})) << dtypeName(t);
  }
}

TEST(VariableTest, UndeclaredVariableIsUnpredictable) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // VARIABLE_READ: REQUIRE(variable_tensor != NULL)
    Status s = writeThenRead("v", I8x2(), Tensor::fromInts(DType::I8, {2}, {1, 2}), I8x2(), "other");
    EXPECT_EQ(s.code(), StatusCode::Unpredictable) << s.toString();
  }
  gDirect = false;
}

TEST(VariableTest, WriteShapeOrTypeMismatchIsUnpredictable) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // VARIABLE_WRITE: REQUIRE(variable_tensor.shape == shape); REQUIRE(is_same<variable_tensor.type,in_t>())
    Status s1 = writeThenRead("v", I8x2(), Tensor::fromInts(DType::I8, {3}, {1, 2, 3}), I8x2(), "v");
    EXPECT_EQ(s1.code(), StatusCode::Unpredictable) << s1.toString();
    Status s2 =
        writeThenRead("v", ir::ValueType::tensor(DType::FP32, {2}), Tensor::fromDoubles(DType::FP16, {2}, {1, 2}),
                      ir::ValueType::tensor(DType::FP32, {2}), "v");
    EXPECT_EQ(s2.code(), StatusCode::Unpredictable) << s2.toString();
  }
  gDirect = false;
}

TEST(VariableTest, ReadShapeMismatchIsUnpredictable) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // VARIABLE_READ: REQUIRE(variable_tensor.shape == shape)
    Status s = writeThenRead("v", I8x2(), Tensor::fromInts(DType::I8, {2}, {1, 2}),
                             ir::ValueType::tensor(DType::I8, {1}), "v");
    EXPECT_EQ(s.code(), StatusCode::Unpredictable) << s.toString();
  }
  gDirect = false;
}

TEST(VariableTest, UnsupportedVariableTypeIsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // var_t must be fp16, fp32 or i8.
    auto t = ir::ValueType::tensor(DType::I32, {1});
    Status s = writeThenRead("v", t, Tensor::fromInts(DType::I32, {1}, {1}), t, "v");
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

// ---- tosa.variable as an operation in the function body ----

ir::Operation& declare(ir::Builder& b, const std::string& name, std::optional<Tensor> init) {
  std::map<std::string, ir::Attribute> attrs{{"sym_name", ir::Attribute::string(name)},
                                             {"var_shape", ir::Attribute::intArray({2})},
                                             {"type", ir::Attribute::type(DType::FP32)}};
  if (init) attrs["initial_value"] = ir::Attribute::dense(*init);
  return b.create("tosa.variable", {}, {}, attrs);
}

TEST(VariableOpTest, DeclaredInBodyPersistsAcrossRuns) {
  // tosa.variable @c = [0, 0]; c += [1, 2] each run: run 1 -> [1, 2], run 2 -> [2, 4] (not re-initialized)
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  declare(b, "c", f32({0, 0}));
  ir::Value* r = b.op1("tosa.variable_read", {}, F32x2(), named("c"));
  ir::Value* s = b.add(r, b.constant(f32({1, 2})));
  b.create("tosa.variable_write", {s}, {}, named("c"));
  b.output({s});
  auto session = Session::create(std::move(m));
  ASSERT_TRUE(session.isOk());
  RunResult r1, r2;
  Status s1 = (*session)->run({}, r1);
  ASSERT_TRUE(s1.isOk()) << s1.toString();
  EXPECT_EQ(r1.outputs[0].second.toDoubles(), (std::vector<double>{1, 2}));
  Status s2 = (*session)->run({}, r2);
  ASSERT_TRUE(s2.isOk()) << s2.toString();
  EXPECT_EQ(r2.outputs[0].second.toDoubles(), (std::vector<double>{2, 4}));
}

TEST(VariableOpTest, DeclaringTwiceInOneRunIsUnpredictable) {
  // REQUIRE(!var_tensor.seen)
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  declare(b, "c", f32({0, 0}));
  declare(b, "c", f32({0, 0}));
  b.output({b.op1("tosa.variable_read", {}, F32x2(), named("c"))});
  auto session = Session::create(std::move(m));
  ASSERT_TRUE(session.isOk());
  RunResult r;
  Status s = (*session)->run({}, r);
  EXPECT_EQ(s.code(), StatusCode::Unpredictable) << s.toString();
}

TEST(VariableOpTest, InitialValueOfWrongShapeIsUnpredictable) {
  // REQUIRE(var_shape == shape)
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  declare(b, "c", f32({0, 0, 0}));
  b.output({b.constant(Tensor::fromInts(DType::I8, {1}, {0}))});
  auto session = Session::create(std::move(m));
  ASSERT_TRUE(session.isOk());
  RunResult r;
  Status s = (*session)->run({}, r);
  EXPECT_EQ(s.code(), StatusCode::Unpredictable) << s.toString();
}

}  // namespace
}  // namespace tosakit::testing
