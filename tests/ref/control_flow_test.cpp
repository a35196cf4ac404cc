// COND_IF / WHILE_LOOP (spec 2.16) and CUSTOM (spec 2.15), on graphs built with ir::Builder.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

// Appends a one-block region to op and returns its block.
ir::Block& addRegion(ir::Operation& op) {
  auto region = std::make_unique<ir::Region>();
  region->parent = &op;
  auto block = std::make_unique<ir::Block>();
  block->parent = region.get();
  ir::Block& b = *block;
  region->blocks.push_back(std::move(block));
  op.regions.push_back(std::move(region));
  return b;
}

struct Graph {
  std::unique_ptr<ir::Module> module = std::make_unique<ir::Module>();
  ir::Builder b{*module, "main"};
};

// Negative tests run each graph twice: through Session (static validation, then kernels) and, with
// gDirect set, on the reference backend directly (the kernels' own checks).
bool gDirect = false;

Status runGraph(Graph& g, const NamedTensors& feeds, RunResult& result,
                const ir::TargetEnv& target = ir::TargetEnv::all()) {
  if (gDirect) {
    const ir::Function& fn = g.b.function();
    std::vector<Tensor> args(fn.inputs().size());
    for (const auto& [name, t] : feeds)
      for (size_t i = 0; i < args.size(); ++i)
        if (fn.inputName(i) == name) args[i] = t;
    std::vector<Tensor> outs;
    Status s = createReferenceBackend()->run(fn, target, args, outs, nullptr);
    result = RunResult();
    for (size_t i = 0; i < outs.size(); ++i) result.outputs.emplace_back(fn.outputName(i), outs[i]);
    return s;
  }
  SessionOptions so;
  so.target = target;
  auto s = Session::create(std::move(g.module), so);
  if (!s) return s.status();
  return (*s)->run(feeds, result);
}

ir::ValueType I32S() { return ir::ValueType::tensor(DType::I32, {}); }
ir::ValueType BoolS() { return ir::ValueType::tensor(DType::Bool, {}); }
Tensor i32(int64_t v) { return Tensor::fromInts(DType::I32, {}, {v}); }

// cond_if(c, a, b) { then: a + b } { else: a - b } on i32 scalars.
void buildAddOrSub(Graph& g, ir::ValueType condType = ir::ValueType::tensor(DType::Bool, {1}),
                   ir::ValueType thenArgType = ir::ValueType::tensor(DType::I32, {})) {
  ir::Value* c = g.b.input(condType, "c");
  ir::Value* a = g.b.input(I32S(), "a");
  ir::Value* x = g.b.input(I32S(), "b");
  ir::Operation& op = g.b.create("tosa.cond_if", {c, a, x}, {I32S()});
  {
    ir::Block& blk = addRegion(op);
    ir::Builder tb(*g.module, g.b.function(), blk);
    ir::Value* p = tb.input(thenArgType);
    ir::Value* q = tb.input(I32S());
    tb.output({tb.op1("tosa.add", {p, q}, I32S())});
  }
  {
    ir::Block& blk = addRegion(op);
    ir::Builder eb(*g.module, g.b.function(), blk);
    ir::Value* p = eb.input(I32S());
    ir::Value* q = eb.input(I32S());
    eb.output({eb.op1("tosa.sub", {p, q}, I32S())});
  }
  g.b.output({op.results[0]}, {"out"});
}

TEST(CondIfTest, TakesThenOrElse) {
  // true: 7 + 3 = 10; false: 7 - 3 = 4
  for (bool cond : {true, false}) {
    Graph g;
    buildAddOrSub(g);
    RunResult r;
    Status s = runGraph(g, {{"c", Tensor::fromInts(DType::Bool, {1}, {cond})}, {"a", i32(7)}, {"b", i32(3)}}, r);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(r.outputs[0].second.toInts(), (std::vector<int64_t>{cond ? 10 : 4}));
  }
}

TEST(CondIfTest, BackendLetsRegionsUseOuterValues) {
  // MLIR regions may use values of the enclosing block; the spec's graphs may not, so Session's validation
  // rejects it. The backend itself (no validation) resolves such values: then = k + arg with k = 100 outside.
  Graph g;
  ir::Value* c = g.b.input(BoolS(), "c");
  ir::Value* a = g.b.input(I32S(), "a");
  ir::Value* k = g.b.constant(i32(100));
  ir::Operation& op = g.b.create("tosa.cond_if", {c, a}, {I32S()});
  ir::Block& thenB = addRegion(op);
  ir::Builder tb(*g.module, g.b.function(), thenB);
  tb.output({tb.op1("tosa.add", {k, tb.input(I32S())}, I32S())});
  ir::Block& elseB = addRegion(op);
  ir::Builder eb(*g.module, g.b.function(), elseB);
  eb.output({eb.input(I32S())});
  g.b.output({op.results[0]});
  auto backend = createReferenceBackend();
  std::vector<Tensor> outs;
  Status s = backend->run(g.b.function(), ir::TargetEnv::all(), {Tensor::fromInts(DType::Bool, {}, {1}), i32(5)}, outs,
                          nullptr);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(outs[0].toInts(), (std::vector<int64_t>{105}));
}

TEST(CondIfTest, ConditionOfSizeNot1IsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // ERROR_IF(tensor_size(shape) != 1)
    Graph g;
    buildAddOrSub(g, ir::ValueType::tensor(DType::Bool, {2}));
    RunResult r;
    Status s = runGraph(g, {{"c", Tensor::fromInts(DType::Bool, {2}, {1, 1})}, {"a", i32(7)}, {"b", i32(3)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

TEST(CondIfTest, NonBoolConditionIsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    Graph g;
    buildAddOrSub(g, ir::ValueType::tensor(DType::I32, {1}));
    RunResult r;
    Status s = runGraph(g, {{"c", Tensor::fromInts(DType::I32, {1}, {1})}, {"a", i32(7)}, {"b", i32(3)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

TEST(CondIfTest, InputListNotMatchingThenGraphIsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // ERROR_IF(tensor_list_shape(input_list) != tosa_input_shape(then_graph)): then takes i32[5], input is i32[]
    Graph g;
    buildAddOrSub(g, ir::ValueType::tensor(DType::Bool, {1}), ir::ValueType::tensor(DType::I32, {5}));
    RunResult r;
    Status s = runGraph(g, {{"c", Tensor::fromInts(DType::Bool, {1}, {0})}, {"a", i32(7)}, {"b", i32(3)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

TEST(CondIfTest, OutputListNotMatchingElseGraphIsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // ERROR_IF(tensor_list_shape(output_list) != tosa_output_shape(else_graph)): else yields i32[2]
    Graph g;
    ir::Value* c = g.b.input(BoolS(), "c");
    ir::Value* a = g.b.input(I32S(), "a");
    ir::Operation& op = g.b.create("tosa.cond_if", {c, a}, {I32S()});
    ir::Block& thenB = addRegion(op);
    ir::Builder tb(*g.module, g.b.function(), thenB);
    tb.output({tb.input(I32S())});
    ir::Block& elseB = addRegion(op);
    ir::Builder eb(*g.module, g.b.function(), elseB);
    eb.input(I32S());
    eb.output({eb.constant(Tensor::fromInts(DType::I32, {2}, {1, 2}))});
    g.b.output({op.results[0]});
    RunResult r;
    Status s = runGraph(g, {{"c", Tensor::fromInts(DType::Bool, {}, {1})}, {"a", i32(5)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

// Nests `depth` cond_ifs, each passing (c, x) to its then_graph, which nests the next; the innermost adds 1.
void buildNested(Graph& g, int depth) {
  ir::Value* c = g.b.input(BoolS(), "c");
  ir::Value* a = g.b.input(I32S(), "a");
  std::function<ir::Value*(ir::Builder&, ir::Value*, ir::Value*, int)> nest =
      [&](ir::Builder& bb, ir::Value* cond, ir::Value* x, int level) -> ir::Value* {
    if (level == 0) return bb.op1("tosa.add", {x, bb.constant(i32(1))}, I32S());
    ir::Operation& op = bb.create("tosa.cond_if", {cond, cond, x}, {I32S()});
    ir::Block& thenB = addRegion(op);
    ir::Builder tb(*g.module, g.b.function(), thenB);
    ir::Value* tc = tb.input(BoolS());
    ir::Value* tx = tb.input(I32S());
    tb.output({nest(tb, tc, tx, level - 1)});
    ir::Block& elseB = addRegion(op);
    ir::Builder eb(*g.module, g.b.function(), elseB);
    eb.input(BoolS());
    eb.output({eb.input(I32S())});
    return op.results[0];
  };
  g.b.output({nest(g.b, c, a, depth)});
}

TEST(CondIfTest, NestingUpToMaxNestingRuns) {
  // MAX_NESTING = 6 at level 8K: depths 0..5 pass ERROR_IF(tosa_nesting_depth >= MAX_NESTING).
  Graph g;
  buildNested(g, 6);
  RunResult r;
  Status s = runGraph(g, {{"c", Tensor::fromInts(DType::Bool, {}, {1})}, {"a", i32(41)}}, r);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(r.outputs[0].second.toInts(), (std::vector<int64_t>{42}));
}

TEST(CondIfTest, NestingBeyondMaxNestingIsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // The 7th nested cond_if runs at tosa_nesting_depth 6 >= MAX_NESTING.
    Graph g;
    buildNested(g, 7);
    RunResult r;
    Status s = runGraph(g, {{"c", Tensor::fromInts(DType::Bool, {}, {1})}, {"a", i32(41)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
    EXPECT_NE(s.toString().find("MAX_NESTING"), std::string::npos) << s.toString();
    // Level "none" lifts the limit.
    Graph g2;
    buildNested(g2, 7);
    ir::TargetEnv none = ir::TargetEnv::all();
    none.level = "none";
    Status s2 = runGraph(g2, {{"c", Tensor::fromInts(DType::Bool, {}, {1})}, {"a", i32(41)}}, r, none);
    ASSERT_TRUE(s2.isOk()) << s2.toString();
    EXPECT_EQ(r.outputs[0].second.toInts(), (std::vector<int64_t>{42}));
  }
  gDirect = false;
}

// while (i < n) { i = i + 1; acc = acc + i }  on i32 scalars: the sum 1 + 2 + ... + n.
void buildCountingLoop(Graph& g, ir::ValueType condResult = ir::ValueType::tensor(DType::Bool, {})) {
  ir::Value* n = g.b.input(I32S(), "n");
  ir::Value* zero = g.b.constant(i32(0));
  ir::Operation& loop = g.b.create("tosa.while_loop", {zero, zero, n}, {I32S(), I32S(), I32S()});
  {
    ir::Block& blk = addRegion(loop);
    ir::Builder cb(*g.module, g.b.function(), blk);
    ir::Value* i = cb.input(I32S());
    cb.input(I32S());
    ir::Value* lim = cb.input(I32S());
    cb.output({cb.op1("tosa.greater", {lim, i}, condResult)});
  }
  {
    ir::Block& blk = addRegion(loop);
    ir::Builder bb(*g.module, g.b.function(), blk);
    ir::Value* i = bb.input(I32S());
    ir::Value* acc = bb.input(I32S());
    ir::Value* lim = bb.input(I32S());
    ir::Value* i1 = bb.op1("tosa.add", {i, bb.constant(i32(1))}, I32S());
    bb.output({i1, bb.op1("tosa.add", {acc, i1}, I32S()), lim});
  }
  g.b.output({loop.results[0], loop.results[1]}, {"i", "sum"});
}

TEST(WhileLoopTest, CountingLoop) {
  // n = 5: 5 iterations, i = 5, sum = 1+2+3+4+5 = 15. n = 0: no iteration.
  for (auto [n, sum] : {std::pair<int64_t, int64_t>{5, 15}, {0, 0}}) {
    Graph g;
    buildCountingLoop(g);
    RunResult r;
    Status s = runGraph(g, {{"n", i32(n)}}, r);
    ASSERT_TRUE(s.isOk()) << s.toString();
    EXPECT_EQ(r.outputs[0].second.toInts(), (std::vector<int64_t>{n}));
    EXPECT_EQ(r.outputs[1].second.toInts(), (std::vector<int64_t>{sum}));
  }
}

TEST(WhileLoopTest, LoopBeyondIterationLimitStopsWithErrorInsteadOfHanging) {
  // n = 1000 needs 1000 iterations; with a limit of 10 the run must stop with a clear error.
  Graph g;
  buildCountingLoop(g);
  SessionOptions so;
  so.maxLoopIterations = 10;
  auto session = Session::create(std::move(g.module), so);
  ASSERT_TRUE(session.isOk()) << session.status().toString();
  RunResult r;
  Status s = (*session)->run({{"n", i32(1000)}}, r);
  EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.toString();
  EXPECT_NE(s.message().find("stopped after 10 iterations"), std::string::npos) << s.toString();
}

TEST(WhileLoopTest, CondGraphOutputNotSize1IsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // ERROR_IF(tensor_size(tosa_output_shape(cond_graph)) != 1): the cond graph's declared output is bool[1x2]
    // (checked before any graph runs).
    Graph g;
    buildCountingLoop(g, ir::ValueType::tensor(DType::Bool, {1, 2}));
    RunResult r;
    Status s = runGraph(g, {{"n", i32(2)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

TEST(WhileLoopTest, CondGraphOutputNotBoolIsError) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    // ERROR_IF(tosa_output_type(cond_graph) != bool_t)
    Graph g;
    ir::Value* x = g.b.input(I32S(), "x");
    ir::Operation& loop = g.b.create("tosa.while_loop", {x}, {I32S()});
    ir::Block& cblk = addRegion(loop);
    ir::Builder cb(*g.module, g.b.function(), cblk);
    cb.output({cb.input(I32S())});
    ir::Block& bblk = addRegion(loop);
    ir::Builder bb(*g.module, g.b.function(), bblk);
    bb.output({bb.input(I32S())});
    g.b.output({loop.results[0]});
    RunResult r;
    Status s = runGraph(g, {{"x", i32(0)}}, r);
    EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
  }
  gDirect = false;
}

// while_loop(x : i32[]) whose cond/body block argument or body output / op result have the given types.
Status runMismatchedLoop(ir::ValueType condArg, ir::ValueType bodyArg, ir::ValueType bodyOut, ir::ValueType result) {
  Graph g;
  ir::Value* x = g.b.input(I32S(), "x");
  ir::Operation& loop = g.b.create("tosa.while_loop", {x}, {result});
  ir::Block& cblk = addRegion(loop);
  ir::Builder cb(*g.module, g.b.function(), cblk);
  cb.input(condArg);
  cb.output({cb.constant(Tensor::fromInts(DType::Bool, {}, {0}))});
  ir::Block& bblk = addRegion(loop);
  ir::Builder bb(*g.module, g.b.function(), bblk);
  bb.input(bodyArg);
  bb.output({bb.constant(Tensor(bodyOut.dtype, bodyOut.dims))});
  g.b.output({loop.results[0]});
  RunResult r;
  return runGraph(g, {{"x", i32(0)}}, r);
}

TEST(WhileLoopTest, ListShapeMismatchesAreErrors) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    ir::ValueType ok = I32S(), bad = ir::ValueType::tensor(DType::I32, {2});
    EXPECT_TRUE(runMismatchedLoop(ok, ok, ok, ok).isOk());
    // input_list vs output_list
    EXPECT_EQ(runMismatchedLoop(ok, ok, ok, bad).code(), StatusCode::SpecError);
    // input_list vs cond_graph inputs
    EXPECT_EQ(runMismatchedLoop(bad, ok, ok, ok).code(), StatusCode::SpecError);
    // input_list vs body_graph inputs
    EXPECT_EQ(runMismatchedLoop(ok, bad, ok, ok).code(), StatusCode::SpecError);
    // input_list vs body_graph outputs
    EXPECT_EQ(runMismatchedLoop(ok, ok, bad, ok).code(), StatusCode::SpecError);
  }
  gDirect = false;
}

// ---- CUSTOM ----

void buildCustom(Graph& g, size_t nInputs = 1) {
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < nInputs; ++i) ins.push_back(g.b.input(I32S(), "x" + std::to_string(i)));
  ir::Operation& op = g.b.create("tosa.custom", ins, {I32S()},
                                 {{"operator_name", ir::Attribute::string("triple")},
                                  {"domain_name", ir::Attribute::string("tosakit.test")},
                                  {"implementation_attrs", ir::Attribute::string("")}});
  g.b.output({op.results[0]});
}

TEST(CustomTest, WithoutRegisteredImplementationIsUnsupported) {
  for (bool direct : {false, true}) {
    gDirect = direct;
    Graph g;
    buildCustom(g);
    RunResult r;
    Status s = runGraph(g, {{"x0", i32(2)}}, r);
    EXPECT_EQ(s.code(), StatusCode::Unsupported) << s.toString();
    EXPECT_NE(s.message().find("triple"), std::string::npos) << s.toString();
  }
  gDirect = false;
}

TEST(CustomTest, RegisteredImplementationRuns) {
  Graph g;
  buildCustom(g);
  auto session = Session::create(std::move(g.module));
  ASSERT_TRUE(session.isOk());
  (*session)->backend().registerCustomOp(
      "triple", [](const ir::Operation&, const std::vector<const Tensor*>& in, std::vector<Tensor>& out) {
        out[0] = Tensor::fromInts(DType::I32, {}, {in[0]->getInt(0) * 3});
        return Status::ok();
      });
  RunResult r;
  Status s = (*session)->run({{"x0", i32(14)}}, r);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(r.outputs[0].second.toInts(), (std::vector<int64_t>{42}));
}

TEST(CustomTest, InputListAboveMaxTensorListSizeIsLevelError) {
  // LEVEL_CHECK(tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE): 65 > 64 at level 8K.
  Graph g;
  buildCustom(g, 65);
  auto session = Session::create(std::move(g.module));
  ASSERT_TRUE(session.isOk());
  (*session)->backend().registerCustomOp(
      "triple",
      [](const ir::Operation&, const std::vector<const Tensor*>&, std::vector<Tensor>&) { return Status::ok(); });
  NamedTensors feeds;
  for (int i = 0; i < 65; ++i) feeds.emplace_back("x" + std::to_string(i), i32(i));
  RunResult r;
  Status s = (*session)->run(feeds, r);
  EXPECT_EQ(s.code(), StatusCode::SpecError) << s.toString();
}

}  // namespace
}  // namespace tosakit::testing
