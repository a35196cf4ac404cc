// Precise mode (SessionOptions::precise): every floating-point tensor computed unrounded in fp64, the spec's
// reference_fp64 of 1.10 "Compliance". Expected values are hand calculations shown next to each test; each
// case also runs in normal mode to show the rounding that precise mode leaves out.
#include <cmath>

#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

using A = ir::Attribute;
using Attrs = std::map<std::string, ir::Attribute>;

Tensor T(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }
OpInput Zp(DType t) { return Const(T(t, {1}, {0})); }
A arr(std::vector<int64_t> v) { return A::intArray(std::move(v)); }

// One-op graph in precise mode, through a Session (static validation on the declared types, then the
// interpreter) or on the reference backend alone (the kernels' own ERROR_IFs).
OpRun runPreciseSession(const std::string& opName, const std::vector<OpInput>& inputs,
                        const std::vector<ir::ValueType>& resultTypes, const Attrs& attrs = {}) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  std::vector<ir::Value*> operands;
  NamedTensors feeds;
  for (const OpInput& in : inputs) {
    if (in.isConst) {
      operands.push_back(b.constant(in.tensor));
    } else {
      ir::Value* v = b.input(ir::ValueType::tensor(in.tensor.dtype(), in.tensor.shape()));
      operands.push_back(v);
      feeds.emplace_back("arg" + std::to_string(v->index), in.tensor);
    }
  }
  ir::Operation& op = b.create(opName, operands, resultTypes, attrs);
  b.output(op.results);
  SessionOptions so;
  so.precise = true;
  auto session = Session::create(std::move(m), so);
  if (!session) return {session.status(), {}};
  RunResult r;
  OpRun out{(*session)->run(feeds, r), {}};
  for (auto& [n, t] : r.outputs) out.outputs.push_back(t);
  return out;
}

OpRun runPreciseKernel(const std::string& opName, const std::vector<OpInput>& inputs,
                       const std::vector<ir::ValueType>& resultTypes, const Attrs& attrs = {}) {
  ir::Module m;
  ir::Builder b(m, "main");
  std::vector<ir::Value*> operands;
  std::vector<Tensor> args;
  for (const OpInput& in : inputs) {
    if (in.isConst) {
      operands.push_back(b.constant(in.tensor));
    } else {
      operands.push_back(b.input(ir::ValueType::tensor(in.tensor.dtype(), in.tensor.shape())));
      args.push_back(in.tensor);
    }
  }
  ir::Operation& op = b.create(opName, operands, resultTypes, attrs);
  b.output(op.results);
  auto backend = createReferenceBackend();
  OpRun out;
  out.status = backend->setPrecise(true);
  if (out.status.isOk()) out.status = backend->run(b.function(), ir::TargetEnv::all(), args, out.outputs, nullptr);
  return out;
}

// Both precise paths; they must agree (status code and bit-identical outputs).
OpRun runPrecise(const std::string& opName, const std::vector<OpInput>& inputs,
                 const std::vector<ir::ValueType>& resultTypes, const Attrs& attrs = {}) {
  OpRun s = runPreciseSession(opName, inputs, resultTypes, attrs);
  OpRun k = runPreciseKernel(opName, inputs, resultTypes, attrs);
  if (s.status.code() != k.status.code())
    return {Status::internal("session '" + s.status.toString() + "' vs kernel '" + k.status.toString() + "'"), {}};
  if (s.status.isOk())
    for (size_t i = 0; i < s.outputs.size() && i < k.outputs.size(); ++i)
      if (!s.outputs[i].identical(k.outputs[i])) return {Status::internal("session and kernel outputs differ"), {}};
  return s;
}

double only(const OpRun& r, size_t output = 0) { return r.outputs.at(output).getFloat(0); }

// ---- ADD: the small term survives ----

TEST(PreciseTest, AddFp32KeepsSmallTerm) {
  // 1.0 + 2^-30: fp32 has 23 fraction bits, so at 1.0 half an ulp is 2^-24 > 2^-30 and the fp32 sum rounds to
  // 1.0. In fp64 (52 fraction bits) 1 + 2^-30 = 1.0000000009313226 is exact.
  std::vector<OpInput> in = {Arg(T(DType::FP32, {1}, {1.0})), Arg(T(DType::FP32, {1}, {std::ldexp(1.0, -30)}))};
  auto normal = runOp("tosa.add", in, {TT(DType::FP32, {1})});
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(normal.outputs[0].dtype(), DType::FP32);
  EXPECT_EQ(only(normal), 1.0);
  auto precise = runPrecise("tosa.add", in, {TT(DType::FP32, {1})});
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(precise.outputs[0].dtype(), DType::FP64);
  EXPECT_EQ(only(precise), 1.0000000009313226);
  EXPECT_EQ(only(precise), 1.0 + std::ldexp(1.0, -30));
}

TEST(PreciseTest, Fp16ConstantOperandWidenedExactly) {
  // x (fp16 argument) + c (fp16 tosa.const) with x = 1, c = 2^-11: fp16 has 10 fraction bits, the ulp at 1 is
  // 2^-10, so 1 + 2^-11 is a tie and rounds to even: 1.0. Precise: 1 + 2^-11 = 1.00048828125.
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1}, {1.0})), Const(T(DType::FP16, {1}, {std::ldexp(1.0, -11)}))};
  auto normal = runOp("tosa.add", in, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 1.0);
  auto precise = runPrecise("tosa.add", in, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(only(precise), 1.00048828125);
}

// ---- CONV2D / MATMUL: no rounding to acc_t or out_t ----

TEST(PreciseTest, Conv2dFp16AccumulatorNotRounded) {
  // 1x1 convolution over 2 channels: input [1, 1], weight [1, 2^-11], bias 0, acc_type fp16.
  // Normal: acc = 1*1 = 1; acc + 1*2^-11 = 1 + 2^-11 is a tie in fp16 (ulp 2^-10) -> 1.0; + bias 0 -> 1.0.
  // Precise: 1 + 2^-11 = 1.00048828125.
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1, 1, 1, 2}, {1, 1})),
                             Arg(T(DType::FP16, {1, 1, 1, 2}, {1, std::ldexp(1.0, -11)})),
                             Arg(T(DType::FP16, {1}, {0})), Zp(DType::FP16), Zp(DType::FP16)};
  Attrs attrs = {{"pad", arr({0, 0, 0, 0})},
                 {"stride", arr({1, 1})},
                 {"dilation", arr({1, 1})},
                 {"acc_type", A::type(DType::FP16)}};
  auto normal = runOp("tosa.conv2d", in, {TT(DType::FP16, {1, 1, 1, 1})}, attrs);
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 1.0);
  auto precise = runPrecise("tosa.conv2d", in, {TT(DType::FP16, {1, 1, 1, 1})}, attrs);
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(precise.outputs[0].dtype(), DType::FP64);
  EXPECT_EQ(only(precise), 1.00048828125);
}

TEST(PreciseTest, MatmulFp16RoundedAccumulationLosesAnUlp) {
  // A = [1, 2^-11, 2^-11], B = [1, 1, 1]^T, out_t fp16 (also the accumulator).
  // Normal: 1; 1 + 2^-11 -> tie -> 1.0; again 1.0. Result 1.0.
  // Precise: 1 + 2^-11 + 2^-11 = 1 + 2^-10 = 1.0009765625, which fp16 can hold: the fp16-accumulated result is
  // one fp16 ulp below the correctly rounded one.
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1, 1, 3}, {1, std::ldexp(1.0, -11), std::ldexp(1.0, -11)})),
                             Arg(T(DType::FP16, {1, 3, 1}, {1, 1, 1})), Zp(DType::FP16), Zp(DType::FP16)};
  auto normal = runOp("tosa.matmul", in, {TT(DType::FP16, {1, 1, 1})});
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 1.0);
  auto precise = runPrecise("tosa.matmul", in, {TT(DType::FP16, {1, 1, 1})});
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(only(precise), 1.0009765625);
}

// ---- REDUCE_SUM: many small values ----

TEST(PreciseTest, ReduceSumFp32ManySmallValues) {
  // [1.0, then 1024 times 2^-25]. Normal (acc_t fp32): 1 + 2^-25 rounds back to 1 every time (half an ulp at 1
  // is 2^-24), result 1.0. Precise: 1 + 1024 * 2^-25 = 1 + 2^-15 = 1.000030517578125.
  std::vector<double> v(1025, std::ldexp(1.0, -25));
  v[0] = 1.0;
  std::vector<OpInput> in = {Arg(T(DType::FP32, {1025}, v))};
  Attrs attrs = {{"axis", A::integer(0, DType::I32)}};
  auto normal = runOp("tosa.reduce_sum", in, {TT(DType::FP32, {1})}, attrs);
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 1.0);
  auto precise = runPrecise("tosa.reduce_sum", in, {TT(DType::FP32, {1})}, attrs);
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(only(precise), 1.000030517578125);
}

TEST(PreciseTest, ReduceProductFp16NotRoundedPerStep) {
  // [1 + 2^-10, 1 + 2^-10] (both fp16 values). Product (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20.
  // Normal (in_out_t fp16): 1 + 2^-9 + 2^-20 rounds to 1 + 2^-9 = 1.001953125.
  // Precise: 1 + 2^-9 + 2^-20 = 1.0019540786743164.
  double x = 1 + std::ldexp(1.0, -10);
  std::vector<OpInput> in = {Arg(T(DType::FP16, {2}, {x, x}))};
  Attrs attrs = {{"axis", A::integer(0, DType::I32)}};
  auto normal = runOp("tosa.reduce_product", in, {TT(DType::FP16, {1})}, attrs);
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 1.001953125);
  auto precise = runPrecise("tosa.reduce_product", in, {TT(DType::FP16, {1})}, attrs);
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(only(precise), 1.0019540786743164);
}

// ---- EXP / SIGMOID: the fp64 function value, not rounded ----

TEST(PreciseTest, ExpFp16) {
  // exp(1) = e = 2.718281828459045... fp16 in [2, 4) has ulp 2^-9; e / 2^-9 = 1391.76 -> 1392 * 2^-9 = 2.71875.
  // Precise: e to fp64 precision (std::exp is within an fp64 ulp, 4.4e-16 at e).
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1}, {1.0}))};
  auto normal = runOp("tosa.exp", in, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 2.71875);
  auto precise = runPrecise("tosa.exp", in, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(precise);
  EXPECT_NEAR(only(precise), 2.718281828459045, 4.5e-16);
}

TEST(PreciseTest, SigmoidFp16) {
  // sigmoid(0.5) = 1 / (1 + exp(-0.5)) = 1 / 1.6065306597126334 = 0.6224593312018546.
  // fp16 in [0.5, 1) has ulp 2^-11: 0.6224593312 / 2^-11 = 1274.80 -> 1275 * 2^-11 = 0.62255859375.
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1}, {0.5}))};
  auto normal = runOp("tosa.sigmoid", in, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(only(normal), 0.62255859375);
  auto precise = runPrecise("tosa.sigmoid", in, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(precise);
  EXPECT_NEAR(only(precise), 0.6224593312018546, 2e-16);
}

// ---- RFFT2D: in_out_t fp32 sums not rounded ----

TEST(PreciseTest, Rfft2dFp32) {
  // N = H = 1, W = 2, input [1, 2^-30]: X[0] = x0 + x1 = 1 + 2^-30, X[1] = x0 * cos(0) + x1 * cos(pi) =
  // 1 - 2^-30 (the imaginary parts are sums of sin(0), sin(pi) terms, skipped as exactly 0).
  // Normal (fp32): 1 + 2^-30 -> 1.0 and 1 - 2^-30 -> 1.0 (half an ulp below 1 is 2^-25 > 2^-30).
  std::vector<OpInput> in = {Arg(T(DType::FP32, {1, 1, 2}, {1.0, std::ldexp(1.0, -30)}))};
  std::vector<ir::ValueType> outs = {TT(DType::FP32, {1, 1, 2}), TT(DType::FP32, {1, 1, 2})};
  auto normal = runOp("tosa.rfft2d", in, outs);
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(normal.outputs[0].toDoubles(), (std::vector<double>{1.0, 1.0}));
  auto precise = runPrecise("tosa.rfft2d", in, outs);
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(precise.outputs[0].toDoubles(),
            (std::vector<double>{1.0 + std::ldexp(1.0, -30), 1.0 - std::ldexp(1.0, -30)}));
  EXPECT_EQ(precise.outputs[1].dtype(), DType::FP64);
}

// ---- Exact ops copy fp64; integer tensors keep their types ----

TEST(PreciseTest, ConcatCopiesFp64AndIntegersUnchanged) {
  // concat of fp16 [1, 2] and [3]: exact, [1, 2, 3] as fp64.
  auto r = runPrecise("tosa.concat", {Arg(T(DType::FP16, {2}, {1, 2})), Arg(T(DType::FP16, {1}, {3}))},
                      {TT(DType::FP16, {3})}, {{"axis", A::integer(0, DType::I32)}});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].dtype(), DType::FP64);
  EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 2, 3}));
  // i32 add: 2147483000 + 600 = 2147483600, an i32 tensor in either mode.
  auto i = runPrecise(
      "tosa.add", {Arg(Tensor::fromInts(DType::I32, {1}, {2147483000})), Arg(Tensor::fromInts(DType::I32, {1}, {600}))},
      {TT(DType::I32, {1})});
  EXPECT_RUN_OK(i);
  EXPECT_EQ(i.outputs[0].dtype(), DType::I32);
  EXPECT_EQ(i.outputs[0].toInts(), (std::vector<int64_t>{2147483600}));
}

TEST(PreciseTest, ArgmaxOutputStaysI32) {
  // ARGMAX of fp16 [0.5, 3, -1] -> index 1, an i32 tensor in precise mode too.
  auto r = runPrecise("tosa.argmax", {Arg(T(DType::FP16, {3}, {0.5, 3, -1}))}, {TT(DType::I32, {})},
                      {{"axis", A::integer(0, DType::I32)}});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].dtype(), DType::I32);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1}));
}

// ---- CAST float -> int from the fp64 value ----

// x + y (fp32) then CAST to i32, as a two-op graph.
OpRun addThenCast(bool precise, std::vector<double> x, std::vector<double> y) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  Shape s{int64_t(x.size())};
  ir::Value* a = b.input(TT(DType::FP32, s));
  ir::Value* c = b.input(TT(DType::FP32, s));
  ir::Value* sum = b.add(a, c);
  ir::Value* cast = b.op1("tosa.cast", {sum}, TT(DType::I32, s));
  b.output({cast, sum});
  SessionOptions so;
  so.precise = precise;
  auto session = Session::create(std::move(m), so);
  if (!session) return {session.status(), {}};
  RunResult r;
  OpRun out{(*session)->run({{"arg0", T(DType::FP32, s, x)}, {"arg1", T(DType::FP32, s, y)}}, r), {}};
  for (auto& [n, t] : r.outputs) out.outputs.push_back(t);
  return out;
}

TEST(PreciseTest, CastFloatToIntRoundsTheFp64Value) {
  // Sums: 2^24 + 1 = 16777217 (fp32: a tie between 2^24 and 2^24 + 2, to even: 16777216), 2 + 0.5 = 2.5,
  // -3 + -0.5 = -3.5 (both exact in fp32). CAST rounds to nearest, ties to even: 2.5 -> 2, -3.5 -> -4.
  // Normal: [16777216, 2, -4]; precise: [16777217, 2, -4].
  std::vector<double> x = {16777216, 2, -3}, y = {1, 0.5, -0.5};
  auto normal = addThenCast(false, x, y);
  EXPECT_RUN_OK(normal);
  EXPECT_EQ(normal.outputs[0].toInts(), (std::vector<int64_t>{16777216, 2, -4}));
  auto precise = addThenCast(true, x, y);
  EXPECT_RUN_OK(precise);
  EXPECT_EQ(precise.outputs[0].dtype(), DType::I32);
  EXPECT_EQ(precise.outputs[0].toInts(), (std::vector<int64_t>{16777217, 2, -4}));
  EXPECT_EQ(precise.outputs[1].toDoubles(), (std::vector<double>{16777217, 2.5, -3.5}));
}

TEST(PreciseTest, CastFp16ToInt8Saturates) {
  // 300 and -300 saturate to 127 / -128; 1.5 -> 2 (tie to even).
  auto r = runPrecise("tosa.cast", {Arg(T(DType::FP16, {3}, {300, -300, 1.5}))}, {TT(DType::I8, {3})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].dtype(), DType::I8);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{127, -128, 2}));
}

TEST(PreciseTest, CastFloatToFloatKeepsTheValue) {
  // fp32 -> fp16 of 1 + 2^-20: fp16 would round it to 1.0; the fp64 reference of a correctly rounded CAST is
  // the input value itself.
  auto r = runPrecise("tosa.cast", {Arg(T(DType::FP32, {1}, {1 + std::ldexp(1.0, -20)}))}, {TT(DType::FP16, {1})});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(only(r), 1 + std::ldexp(1.0, -20));
}

// ---- ERROR_IFs judged on the declared types (every float tensor is stored as fp64) ----

TEST(PreciseTest, MixedFloatTypesStillAnError) {
  // MAXIMUM: in_out_t for all three tensors; fp32 x fp16 is not a row of the table. Both operands are fp64 in
  // storage, the verdict must come from the declared types (kernel path: no static validation first).
  auto k = runPreciseKernel("tosa.maximum", {Arg(T(DType::FP32, {1}, {1})), Arg(T(DType::FP16, {1}, {2}))},
                            {TT(DType::FP32, {1})});
  EXPECT_SPEC_ERROR(k);
  // The message names the declared types, not the fp64 storage.
  EXPECT_NE(k.status.toString().find("operand type fp16 differs from output type fp32"), std::string::npos)
      << k.status.toString();
  auto s = runPreciseSession("tosa.maximum", {Arg(T(DType::FP32, {1}, {1})), Arg(T(DType::FP16, {1}, {2}))},
                             {TT(DType::FP32, {1})});
  EXPECT_SPEC_ERROR(s);
}

TEST(PreciseTest, ConvTypeRowStillChecked) {
  // CONV2D fp16 x fp16 -> fp32 with acc_type fp32 is not a row of the Supported Data Types table.
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1, 1, 1, 1}, {1})), Arg(T(DType::FP16, {1, 1, 1, 1}, {1})),
                             Arg(T(DType::FP32, {1}, {0})), Zp(DType::FP16), Zp(DType::FP16)};
  Attrs attrs = {{"pad", arr({0, 0, 0, 0})},
                 {"stride", arr({1, 1})},
                 {"dilation", arr({1, 1})},
                 {"acc_type", A::type(DType::FP32)}};
  auto r = runPreciseKernel("tosa.conv2d", in, {TT(DType::FP32, {1, 1, 1, 1})}, attrs);
  EXPECT_SPEC_ERROR(r);
  EXPECT_NE(r.status.toString().find("fp16 x fp16 -> fp32, acc_type fp32"), std::string::npos) << r.status.toString();
}

TEST(PreciseTest, CastSameFloatTypeStillAnError) {
  // CAST fp32 -> fp32 is not in the Supported Data Types table.
  EXPECT_SPEC_ERROR(runPreciseKernel("tosa.cast", {Arg(T(DType::FP32, {1}, {1}))}, {TT(DType::FP32, {1})}));
}

TEST(PreciseTest, FloatZeroPointStillChecked) {
  // MATMUL fp16 with A_zp = 1: ERROR_IF(!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)).
  std::vector<OpInput> in = {Arg(T(DType::FP16, {1, 1, 1}, {1})), Arg(T(DType::FP16, {1, 1, 1}, {1})),
                             Const(T(DType::FP16, {1}, {1})), Zp(DType::FP16)};
  EXPECT_SPEC_ERROR(runPreciseKernel("tosa.matmul", in, {TT(DType::FP16, {1, 1, 1})}));
}

// ---- Variables: stored as fp64, declared type still checked ----

// Module-level variable @acc : fp32[2] = init; main(x: xT[2]) { r = read @acc; write @acc, r + x; return r + x }
std::unique_ptr<ir::Module> accumulator(Tensor init, DType xT) {
  auto m = std::make_unique<ir::Module>();
  ir::Variable v;
  v.name = "acc";
  v.type = TT(DType::FP32, {2});
  v.initialValue = std::move(init);
  m->variables.push_back(v);
  ir::Builder b(*m, "main");
  Attrs named = {{"name", A::symbol("acc")}};
  ir::Value* x = b.input(TT(xT, {2}), "x");
  ir::Value* r = b.op1("tosa.variable_read", {}, TT(DType::FP32, {2}), named);
  ir::Value* s = b.create("tosa.add", {r, x}, {TT(DType::FP32, {2})}).results[0];
  b.create("tosa.variable_write", {s}, {}, named);
  b.output({s}, {"s"});
  return m;
}

TEST(PreciseTest, VariableKeepsFp64AcrossRuns) {
  // init [1, 1], x = [2^-30, 0]: run 1 gives [1 + 2^-30, 1], run 2 [1 + 2^-29, 1]; in fp32 each sum would
  // round back to 1.0 (half an ulp at 1 is 2^-24).
  SessionOptions so;
  so.precise = true;
  auto session = Session::create(accumulator(T(DType::FP32, {2}, {1, 1}), DType::FP32), so);
  ASSERT_TRUE(session.isOk()) << session.status().toString();
  NamedTensors feeds{{"x", T(DType::FP32, {2}, {std::ldexp(1.0, -30), 0})}};
  RunResult r1, r2;
  ASSERT_TRUE((*session)->run(feeds, r1).isOk());
  EXPECT_EQ(r1.outputs[0].second.toDoubles(), (std::vector<double>{1 + std::ldexp(1.0, -30), 1}));
  Status s = (*session)->run(feeds, r2);
  ASSERT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(r2.outputs[0].second.toDoubles(), (std::vector<double>{1 + std::ldexp(1.0, -29), 1}));
}

TEST(PreciseTest, VariableWriteOfOtherFloatTypeIsUnpredictable) {
  // VARIABLE_WRITE: REQUIRE(variable_tensor.type == input1.type). An fp16 value written to the fp32 variable
  // (an fp16 ADD result, run on the backend without static validation): both are fp64 in storage, the
  // declared types differ.
  auto m = std::make_unique<ir::Module>();
  ir::Variable v;
  v.name = "acc";
  v.type = TT(DType::FP32, {2});
  v.initialValue = T(DType::FP32, {2}, {1, 1});
  m->variables.push_back(v);
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(TT(DType::FP16, {2}), "x");
  ir::Value* s = b.create("tosa.add", {x, x}, {TT(DType::FP16, {2})}).results[0];
  b.create("tosa.variable_write", {s}, {}, {{"name", A::symbol("acc")}});
  b.output({s}, {"s"});
  auto backend = createReferenceBackend();
  ASSERT_TRUE(backend->setPrecise(true).isOk());
  std::vector<Tensor> outs;
  Status st = backend->run(b.function(), ir::TargetEnv::all(), {T(DType::FP16, {2}, {1, 2})}, outs, nullptr);
  EXPECT_EQ(st.code(), StatusCode::Unpredictable) << st.toString();
}

}  // namespace
}  // namespace tosakit::testing
