// Static validation (src/ir/validate.cpp) against the TOSA 1.0 specification. Each expectation cites the
// spec table row, LEVEL_CHECK or ERROR_IF it comes from; sizes are hand-calculated in the comments.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "ir/op_tables.h"
#include "ir/validate.h"

namespace tosakit::ir {
namespace {

TargetEnv target(std::vector<std::string> profiles, std::vector<std::string> extensions = {},
                 std::string level = "8k") {
  TargetEnv t;
  t.profiles = std::move(profiles);
  t.extensions = std::move(extensions);
  t.level = std::move(level);
  return t;
}

std::string dump(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += "  " + d.toString() + "\n";
  return s;
}

// Number of diagnostics whose text contains every one of `parts`.
int count(const std::vector<Diagnostic>& ds, std::initializer_list<std::string> parts) {
  int n = 0;
  for (const auto& d : ds) {
    std::string s = d.toString();
    bool all = true;
    for (const auto& p : parts) all = all && s.find(p) != std::string::npos;
    n += all;
  }
  return n;
}

#define EXPECT_VALID(ds) EXPECT_TRUE((ds).empty()) << dump(ds)
#define EXPECT_DIAG(ds, ...) EXPECT_EQ(count((ds), {__VA_ARGS__}), 1) << dump(ds)

ValueType T(DType d, Shape s) { return ValueType::tensor(d, std::move(s)); }

// ---- tables extracted from the spec ----

TEST(OpTables, CoverEveryOperatorOfChapter2) {
  // 2.3 (10) + 2.4 (4) + 2.5 (17) + 2.6 (13) + 2.7 (1) + 2.8 (3) + 2.9 (6) + 2.10 (7) + 2.11 (2) + 2.12 (1)
  // + 2.13 (2) + 2.14 (2) + 2.15 (1) + 2.16 (2) + 2.17 (3) + 2.18 (1) = 75 operators.
  EXPECT_EQ(spec::allOps().size(), 75u);
  EXPECT_STREQ(spec::allOps().front().mlirName, "tosa.argmax");
  EXPECT_STREQ(spec::allOps().back().mlirName, "tosa.const_shape");
  for (const auto& op : spec::allOps()) EXPECT_FALSE(op.types.empty()) << op.specName;
}

TEST(OpTables, Conv2dRowsAndConstants) {
  const spec::OpSpec* c = spec::findOp("tosa.conv2d");
  ASSERT_NE(c, nullptr);
  EXPECT_STREQ(c->section, "2.3.3");
  // 2.3.3 Supported Data Types: 9 rows (3 PRO-FP, 1 PRO-INT, bf16, fp8e4m3, fp8e5m2, int16, int4).
  ASSERT_EQ(c->types.size(), 9u);
  // Row "EXT-INT16 | signed 16x8 with int48 accumulate | i16_t i8_t i48_t i48_t".
  const auto& r = c->types[7];
  EXPECT_STREQ(r.mode, "signed 16x8 with int48 accumulate");
  ASSERT_EQ(r.requires_.size(), 1u);
  EXPECT_STREQ(r.requires_[0][0], "int16");
  EXPECT_EQ(r.types[0].dtype, DType::I16);
  EXPECT_EQ(r.types[1].dtype, DType::I8);
  EXPECT_EQ(r.types[3].dtype, DType::I48);
  // Compile Time Constant Status: input_zp and weight_zp, PRO-INT, PRO-FP, disabled by EXT-DYNAMIC.
  ASSERT_EQ(c->ctc.size(), 2u);
  EXPECT_STREQ(c->ctc[0].arg, "input_zp");
  EXPECT_STREQ(c->ctc[0].disabledBy[0], "dynamic");
  // Argument table: weight is T<weight_t>, rank 4.
  const spec::ArgSpec* w = spec::findArg(*c, "weight");
  ASSERT_NE(w, nullptr);
  EXPECT_STREQ(w->typeVar, "weight_t");
  EXPECT_EQ(w->rankMin, 4);
}

TEST(OpTables, RequirementForms) {
  // 2.10.1 CONCAT row "PRO-INT or PRO-FP | Boolean": either profile.
  const spec::OpSpec* c = spec::findOp("tosa.concat");
  bool found = false;
  for (const auto& r : c->types)
    if (std::string(r.mode) == "Boolean") {
      found = true;
      ASSERT_EQ(r.requires_.size(), 1u);
      EXPECT_EQ(r.requires_[0].size(), 2u);
    }
  EXPECT_TRUE(found);
  // 2.17.2 VARIABLE_WRITE row "EXT-VARIABLE and PRO-FP | fp16": both.
  const spec::OpSpec* v = spec::findOp("tosa.variable_write");
  EXPECT_EQ(spec::requirementToString(v->types[0].requires_), "EXT-VARIABLE and PRO-FP");
  EXPECT_EQ(spec::findOp("tosa.add_shape"), nullptr);
}

// ---- positive graphs ----

TEST(Validate, QuantizedConvGraphIsValidForProInt) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I8, {1, 8, 8, 3}), "x");
  auto* w = b.constant(Tensor(DType::I8, {4, 3, 3, 3}));
  auto* bias = b.constant(Tensor(DType::I32, {4}));
  Conv2dAttrs a;  // i8 x i8, acc i32: 2.3.3 row "PRO-INT signed 8x8 with int32 accumulate"
  a.pad = {1, 1, 1, 1};
  auto* y = b.conv2d(x, w, bias, a, "conv");  // OH = (8 - 1 + 2 - 2) / 1 + 1 = 8
  RescaleAttrs r;                             // 2.13.2 row "PRO-INT 32-bit to 8-bit"
  r.multiplier = {1 << 30};
  r.shift = {30};
  auto* z = b.rescale(y, DType::I8, r, "rescale");
  auto* c = b.clamp(z, -128, 127, "relu");  // 2.4.1 row "PRO-INT signed 8"
  b.output({c});
  EXPECT_VALID(validateModule(m, target({"pro_int"})));
  EXPECT_VALID(validateModule(m, TargetEnv::all()));
}

TEST(Validate, FloatGraphIsValidForProFp) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {2, 3, 4}), "x");
  auto* y = b.input(T(DType::FP32, {2, 1, 4}), "y");
  auto* s = b.add(x, y, "add");               // broadcast [2,3,4] + [2,1,4] -> [2,3,4]
  auto* r = b.reshape(s, {6, 4}, "reshape");  // 24 elements either way
  auto* t = b.transpose(r, {1, 0}, "t");      // [4,6]
  b.output({t});
  EXPECT_VALID(validateModule(m, target({"pro_fp"})));
  // 2.5.1 ADD rows for fp32: only "PRO-FP | fp32".
  EXPECT_DIAG(validateModule(m, target({"pro_int"})), "tosa.add", "PRO-FP");
}

// ---- (b) supported data types, profiles and extensions ----

TEST(Validate, I8ConvNeedsProInt) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I8, {1, 4, 4, 2}));
  auto* w = b.constant(Tensor(DType::I8, {2, 1, 1, 2}));
  auto* bias = b.constant(Tensor(DType::I32, {2}));
  b.output({b.conv2d(x, w, bias, {}, "conv1")});
  auto ds = validateModule(m, target({"pro_fp"}));
  // 2.3.3 row "PRO-INT | signed 8x8 with int32 accumulate | i8_t i8_t i32_t i32_t" is the only match.
  EXPECT_DIAG(ds, "tosa.conv2d", "conv1", "needs PRO-INT", "signed 8x8 with int32 accumulate");
  EXPECT_EQ(ds.size(), 1u) << dump(ds);
}

TEST(Validate, Bf16AddNeedsBf16Extension) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::BF16, {4}));
  b.output({b.add(x, x, "add1")});
  // 2.5.1 row "EXT-BF16 | bf16 | bf16_t".
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "tosa.add", "needs EXT-BF16");
  EXPECT_VALID(validateModule(m, target({"pro_fp"}, {"bf16"})));
}

TEST(Validate, Int16ConvGating) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I16, {1, 4, 4, 2}));
  auto* w = b.constant(Tensor(DType::I8, {2, 1, 1, 2}));
  auto* bias = b.constant(Tensor(DType::I48, {2}));
  Conv2dAttrs a;
  a.accType = DType::I48;
  b.output({b.conv2d(x, w, bias, a, "conv16")});
  // 2.3.3 row "EXT-INT16 | signed 16x8 with int48 accumulate | i16_t i8_t i48_t i48_t".
  EXPECT_DIAG(validateModule(m, target({"pro_int"})), "conv16", "needs EXT-INT16");
  EXPECT_VALID(validateModule(m, target({"pro_int"}, {"int16"})));
}

TEST(Validate, Int4WeightsGating) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I8, {1, 4, 4, 2}));
  auto* w = b.constant(Tensor(DType::I4, {2, 1, 1, 2}));
  auto* bias = b.constant(Tensor(DType::I32, {2}));
  b.output({b.conv2d(x, w, bias, {}, "conv4")});
  // 2.3.3 row "EXT-INT4 | signed 8x4 with int32 accumulate | i8_t i4_t i32_t i32_t".
  EXPECT_DIAG(validateModule(m, target({"pro_int"})), "conv4", "needs EXT-INT4");
  EXPECT_VALID(validateModule(m, target({"pro_int"}, {"int4"})));
}

TEST(Validate, TypeCombinationNotInTable) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 4, 4, 2}));
  auto* w = b.constant(Tensor(DType::I8, {2, 1, 1, 2}));
  auto* bias = b.constant(Tensor(DType::FP32, {2}));
  Conv2dAttrs a;
  a.accType = DType::FP32;
  b.output({b.conv2d(x, w, bias, a, "mixed")});
  // No row of 2.3.3 has in_t = fp32_t with weight_t = i8_t.
  EXPECT_DIAG(validateModule(m, TargetEnv::all()), "mixed", "not in the supported-data-types table", "2.3.3");
}

TEST(Validate, SharedTypeVariableMustAgree) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {4}));
  auto* y = b.input(T(DType::FP16, {4}));
  b.output({b.op1("tosa.sub", {x, y}, T(DType::FP32, {4}), {}, "sub")});
  // 2.5.16 SUB: input1, input2 and output are all T<in_out_t>.
  EXPECT_DIAG(validateModule(m, TargetEnv::all()), "sub", "not in the supported-data-types table");
}

TEST(Validate, FixedElementTypeOfShift) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I32, {4}));
  auto* s = b.scalar1(DType::I16, 0);
  b.output({b.op1("tosa.mul", {x, x, s}, T(DType::I32, {4}), {}, "mul")});
  // 2.5.14 MUL argument table: shift is T<i8_t>.
  EXPECT_DIAG(validateModule(m, TargetEnv::all()), "mul", "shift", "T<i8_t>");
}

TEST(Validate, UnknownOperatorIsUnsupported) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {4}));
  b.output({b.op1("tosa.softmax", {x}, T(DType::FP32, {4}))});
  auto ds = validateModule(m, TargetEnv::all());
  ASSERT_EQ(ds.size(), 1u) << dump(ds);
  EXPECT_EQ(ds[0].kind, Diagnostic::Kind::Unsupported);
  EXPECT_NE(ds[0].message.find("not a TOSA 1.0 operator"), std::string::npos);
}

TEST(Validate, RescaleRoundingModeExtensions) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I32, {4}));
  RescaleAttrs r;
  r.multiplier = {1 << 30};
  r.shift = {30};
  r.roundingMode = "DOUBLE_ROUND";
  b.output({b.rescale(x, DType::I8, r, "rs")});
  // Spec Table 3: EXT-DOUBLEROUND "Adds double rounding support to the RESCALE operator".
  EXPECT_DIAG(validateModule(m, target({"pro_int"})), "rs", "EXT-DOUBLEROUND");
  EXPECT_VALID(validateModule(m, target({"pro_int"}, {"doubleround"})));
}

// ---- (c) compile time constants ----

TEST(Validate, NonConstantZeroPointNeedsDynamic) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I8, {1, 4, 4, 2}));
  auto* izp = b.input(T(DType::I8, {1}), "izp");  // a graph input, not a tosa.const
  auto* w = b.constant(Tensor(DType::I8, {2, 1, 1, 2}));
  auto* bias = b.constant(Tensor(DType::I32, {2}));
  auto* wzp = b.scalar1(DType::I8, 0);
  b.output({b.op1("tosa.conv2d", {x, w, bias, izp, wzp}, T(DType::I32, {1, 4, 4, 2}),
                  {{"pad", Attribute::intArray({0, 0, 0, 0})},
                   {"stride", Attribute::intArray({1, 1})},
                   {"dilation", Attribute::intArray({1, 1})},
                   {"acc_type", Attribute::type(DType::I32)}},
                  "conv")});
  // 2.3.3 Compile Time Constant Status: input_zp | PRO-INT, PRO-FP | EXT-DYNAMIC.
  auto ds = validateModule(m, target({"pro_int"}));
  EXPECT_DIAG(ds, "conv", "input_zp must be a compile-time constant");
  EXPECT_EQ(ds.size(), 1u) << dump(ds);
  EXPECT_VALID(validateModule(m, target({"pro_int"}, {"dynamic"})));
}

// ---- (d) levels ----

TEST(Validate, Rank7ExceedsLevel8K) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 1, 1, 1, 1, 1, 2}));
  b.output({b.add(x, x, "add7")});
  // Table 4: MAX_RANK is 6 at level 8K and 32 at no level. The input (function argument) and the add result
  // are both rank 7: LEVEL_CHECK(rank(shape) <= MAX_RANK).
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_EQ(count(ds, {"LEVEL_CHECK(rank(shape) <= MAX_RANK)", "rank 7"}), 2) << dump(ds);
  EXPECT_VALID(validateModule(m, target({"pro_fp"}, {}, "none")));
}

Location ifLoc(int levels) {
  Location l;
  l.name = "if" + std::to_string(levels);
  return l;
}

// Nests `levels` cond_ifs: each then/else region holds the next cond_if (or an identity at the bottom).
Value* nestedIf(Module& m, Builder& b, Value* cond, Value* x, int levels) {
  Operation& op = b.create("tosa.cond_if", {cond, cond, x}, {cond->type, x->type}, {}, ifLoc(levels));
  for (int r = 0; r < 2; ++r) {
    auto region = std::make_unique<Region>();
    region->parent = &op;
    auto blk = std::make_unique<Block>();
    blk->parent = region.get();
    Builder inner(m, b.function(), *blk);
    Value* c = inner.input(cond->type);
    Value* v = inner.input(x->type);
    Value* y = levels > 1 ? nestedIf(m, inner, c, v, levels - 1) : inner.op1("tosa.identity", {v}, v->type);
    inner.output({c, y});
    region->blocks.push_back(std::move(blk));
    op.regions.push_back(std::move(region));
  }
  return op.results[1];
}

TEST(Validate, NestingDepth) {
  // 2.16.1: ERROR_IF(tosa_nesting_depth >= MAX_NESTING), with MAX_NESTING 6 at 8K. The k-th nested
  // cond_if runs at depth k - 1, so 6 levels pass and the 7th (depth 6) fails.
  for (int levels : {6, 7}) {
    Module m;
    Builder b(m, "main");
    auto* c = b.input(T(DType::Bool, {1}));
    auto* x = b.input(T(DType::FP32, {2}));
    b.output({nestedIf(m, b, c, x, levels)});
    auto ds = validateModule(m, target({"pro_fp"}, {"controlflow"}));
    if (levels == 6) {
      EXPECT_VALID(ds);
    } else {
      // The innermost cond_if (named "if1") appears twice: once under each branch of each level.
      EXPECT_GE(count(ds, {"if1", "tosa_nesting_depth >= MAX_NESTING"}), 1) << dump(ds);
      EXPECT_EQ(count(ds, {"if2", "MAX_NESTING"}), 0) << dump(ds);
      EXPECT_VALID(validateModule(m, target({"pro_fp"}, {"controlflow"}, "none")));
    }
  }
}

TEST(Validate, ControlFlowNeedsExtension) {
  Module m;
  Builder b(m, "main");
  auto* c = b.input(T(DType::Bool, {1}));
  auto* x = b.input(T(DType::FP32, {2}));
  b.output({nestedIf(m, b, c, x, 1)});
  // 2.16.1 row "EXT-CONTROLFLOW | Boolean | bool_t".
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "tosa.cond_if", "needs EXT-CONTROLFLOW");
}

TEST(Validate, ConcatTensorListSize) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1}));
  std::vector<Value*> ins(65, x);
  b.output({b.op1("tosa.concat", ins, T(DType::FP32, {65}), {{"axis", Attribute::integer(0, DType::I32)}}, "cat")});
  // 2.10.1: LEVEL_CHECK(tensor_list_shape(input1) <= MAX_TENSOR_LIST_SIZE), 64 at 8K, 256 at no level.
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "cat", "MAX_TENSOR_LIST_SIZE");
  EXPECT_VALID(validateModule(m, target({"pro_fp"}, {}, "none")));
}

TEST(Validate, ConvStrideAndKernelLevels) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 8194, 1, 1}));
  auto* w = b.constant(Tensor(DType::FP32, {1, 1, 1, 1}));
  auto* bias = b.constant(Tensor(DType::FP32, {1}));
  Conv2dAttrs a;
  a.accType = DType::FP32;
  a.stride = {8193, 1};  // 2.3.3: LEVEL_CHECK(stride_y <= MAX_STRIDE), MAX_STRIDE 8192 at 8K
  a.dilation = {1, 1};
  b.output({b.conv2d(x, w, bias, a, "c")});  // OH = idiv_check(8194 - 1 - 0, 8193) + 1 = 2: exact
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "LEVEL_CHECK(stride_y <= MAX_STRIDE)");
  EXPECT_VALID(validateModule(m, target({"pro_fp"}, {}, "none")));
}

TEST(Validate, ResizeScaleLevel) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 2, 2, 1}));
  // scale = [y_n, y_d, x_n, x_d] = [512, 1, 2, 1]: 512 / 1 > MAX_SCALE (256 at 8K, 2048 at no level).
  // OH = idiv_check((2 - 1) * 512 - 0 + 0, 1) + 1 = 513; OW = (1 * 2) / 1 + 1 = 3.
  auto* sc = b.constShape({512, 1, 2, 1});
  auto* off = b.constShape({0, 0});
  auto* bo = b.constShape({0, 0});
  b.output({b.op1("tosa.resize", {x, sc, off, bo}, T(DType::FP32, {1, 513, 3, 1}),
                  {{"mode", Attribute::enumCase("NEAREST_NEIGHBOR")}}, "rs")});
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "LEVEL_CHECK(scale_y_n/scale_y_d <= MAX_SCALE)");
  EXPECT_VALID(validateModule(m, target({"pro_fp"}, {}, "none")));
}

TEST(Validate, FftLevelAndPowerOfTwo) {
  Module m;
  Builder b(m, "main");
  auto* re = b.input(T(DType::FP32, {1, 16384, 6}));
  Operation& op = b.create("tosa.rfft2d", {re}, {T(DType::FP32, {1, 16384, 4}), T(DType::FP32, {1, 16384, 4})});
  b.output(op.results);
  // 2.3.9: LEVEL_CHECK(H <= MAX_KERNEL) with H = 16384 > 8192; ERROR_IF(!power_of_two(W)) with W = 6.
  auto ds = validateModule(m, target({"pro_fp"}, {"fft"}));
  EXPECT_DIAG(ds, "LEVEL_CHECK(H <= MAX_KERNEL)");
  EXPECT_DIAG(ds, "ERROR_IF(!power_of_two(W))");
}

// ---- (e) static shape ERROR_IFs ----

TEST(Validate, Conv2dOutputSize) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 8, 8, 3}));
  auto* w = b.constant(Tensor(DType::FP32, {4, 3, 3, 3}));
  auto* bias = b.constant(Tensor(DType::FP32, {4}));
  auto* izp = b.scalar1(DType::FP32, 0);
  auto* wzp = b.scalar1(DType::FP32, 0);
  std::map<std::string, Attribute> at = {{"pad", Attribute::intArray({0, 0, 0, 0})},
                                         {"stride", Attribute::intArray({2, 2})},
                                         {"dilation", Attribute::intArray({1, 1})},
                                         {"acc_type", Attribute::type(DType::FP32)}};
  // OH = idiv_check(8 - 1 + 0 + 0 - (3 - 1) * 1, 2) + 1 = idiv_check(5, 2): not exact -> ERROR_IF.
  b.output({b.op1("tosa.conv2d", {x, w, bias, izp, wzp}, T(DType::FP32, {1, 3, 3, 4}), at, "c1")});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "c1", "OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1",
              "not exact");
  EXPECT_DIAG(ds, "c1", "OW != idiv_check");
}

TEST(Validate, Conv2dOutputSizeMismatchAndBias) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 9, 9, 3}));
  auto* w = b.constant(Tensor(DType::FP32, {4, 3, 3, 3}));
  auto* bias = b.constant(Tensor(DType::FP32, {3}));
  auto* izp = b.scalar1(DType::FP32, 0);
  auto* wzp = b.scalar1(DType::FP32, 0);
  std::map<std::string, Attribute> at = {{"pad", Attribute::intArray({0, 0, 0, 0})},
                                         {"stride", Attribute::intArray({2, 2})},
                                         {"dilation", Attribute::intArray({1, 1})},
                                         {"acc_type", Attribute::type(DType::FP32)}};
  // OH = (9 - 1 - 2) / 2 + 1 = 4, declared 5. BC = 3 is neither OC = 4 nor 1.
  b.output({b.op1("tosa.conv2d", {x, w, bias, izp, wzp}, T(DType::FP32, {1, 5, 4, 4}), at, "c2")});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "c2", "OH != idiv_check", "OH = 5, expected 4");
  EXPECT_DIAG(ds, "c2", "BC != OC && BC != 1");
  EXPECT_EQ(count(ds, {"OW != "}), 0) << dump(ds);
}

TEST(Validate, ZeroPointOnlyForInt8) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 4, 4, 2}));
  auto* w = b.constant(Tensor(DType::FP32, {2, 1, 1, 2}));
  auto* bias = b.constant(Tensor(DType::FP32, {2}));
  Conv2dAttrs a;
  a.accType = DType::FP32;
  a.inputZp = 3;  // 2.3.3: ERROR_IF(!is_same<in_t,i8_t>() && input_zp != 0)
  b.output({b.conv2d(x, w, bias, a, "czp")});
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "czp", "!is_same<in_t,i8_t>() && input_zp != 0");
}

TEST(Validate, PoolOutputSize) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 6, 6, 2}));
  // OH = idiv_check(6 + 0 + 0 - 2, 2) + 1 = 3, declared 4; pad_left 2 >= kernel_x 2.
  b.output({b.op1("tosa.max_pool2d", {x}, T(DType::FP32, {1, 4, 3, 2}),
                  {{"kernel", Attribute::intArray({2, 2})},
                   {"stride", Attribute::intArray({2, 2})},
                   {"pad", Attribute::intArray({0, 0, 2, 0})}},
                  "mp")});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "mp", "OH != idiv_check(IH + pad_top + pad_bottom - kernel_y, stride_y) + 1", "expected 3");
  EXPECT_DIAG(ds, "mp", "pad_right >= kernel_x || pad_left >= kernel_x");
}

TEST(Validate, ElementwiseBroadcast) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {2, 3}));
  auto* y = b.input(T(DType::FP32, {2, 4}));
  auto* z = b.input(T(DType::FP32, {1, 3}));
  b.op1("tosa.add", {x, y}, T(DType::FP32, {2, 3}), {}, "bad_bcast");              // 3 vs 4: not broadcastable
  auto* o = b.op1("tosa.maximum", {x, z}, T(DType::FP32, {1, 3}), {}, "bad_out");  // broadcast is [2,3]
  b.output({o});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "bad_bcast", "broadcast");
  EXPECT_DIAG(ds, "bad_out", "ERROR_IF(shape != broadcast_shape(shape1, shape2))", "[2x3]");
}

TEST(Validate, MatmulShapes) {
  Module m;
  Builder b(m, "main");
  auto* a = b.input(T(DType::FP32, {1, 2, 3}));
  auto* bb = b.input(T(DType::FP32, {1, 4, 5}));  // C = 4 but A has C = 3
  auto* zp = b.scalar1(DType::FP32, 0);
  b.output({b.op1("tosa.matmul", {a, bb, zp, zp}, T(DType::FP32, {1, 2, 5}), {}, "mm")});
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "mm", "[N,C,W]");
}

TEST(Validate, DataLayoutShapes) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {2, 3}));
  // 2.10.3 RESHAPE: ERROR_IF(tensor_size(shape1) != tensor_size(shape)): 6 vs 8.
  b.op1("tosa.reshape", {x, b.constShape({2, 4})}, T(DType::FP32, {2, 4}), {}, "rs");
  // 2.10.7 TRANSPOSE: perms [0,0] reuses index 0.
  b.op1("tosa.transpose", {x}, T(DType::FP32, {2, 2}), {{"perms", Attribute::intArray({0, 0}, DType::I32)}}, "tp");
  // 2.10.1 CONCAT: axis 0 sum 2 + 2 = 4, declared 5.
  b.op1("tosa.concat", {x, x}, T(DType::FP32, {5, 3}), {{"axis", Attribute::integer(0, DType::I32)}}, "cat");
  // 2.10.5 SLICE: start 1 + size 3 > 3 in dimension 1.
  b.op1("tosa.slice", {x, b.constShape({0, 1}), b.constShape({2, 3})}, T(DType::FP32, {2, 3}), {}, "sl");
  // 2.10.2 PAD: shape[1] = 1 + 3 + 1 = 5, declared 6.
  b.op1("tosa.pad", {x, b.constShape({0, 0, 1, 1}), b.scalar1(DType::FP32, 0)}, T(DType::FP32, {2, 6}), {}, "pd");
  // 2.10.6 TILE: shape1[0] * multiples[0] = 2 * 2 = 4, declared 3.
  b.op1("tosa.tile", {x, b.constShape({2, 1})}, T(DType::FP32, {3, 3}), {}, "tl");
  // 2.9.6 REDUCE_SUM: axis 2 >= rank 2.
  b.op1("tosa.reduce_sum", {x}, T(DType::FP32, {2, 3}), {{"axis", Attribute::integer(2, DType::I32)}}, "rd");
  // 2.9.3 REDUCE_MAX: shape[axis] must be 1.
  b.op1("tosa.reduce_max", {x}, T(DType::FP32, {2, 3}), {{"axis", Attribute::integer(1, DType::I32)}}, "rm");
  b.output({x});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "rs", "tensor_size(shape1) != tensor_size(shape)");
  EXPECT_DIAG(ds, "tp", "indexes_used[index] == true");
  EXPECT_DIAG(ds, "cat", "axis_sum != shape[axis]");
  EXPECT_DIAG(ds, "sl", "start[index] + size[index] > shape1[index]");
  EXPECT_DIAG(ds, "pd", "shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1]");
  EXPECT_DIAG(ds, "tl", "shape1[i] * multiples[i] != shape[i]");
  EXPECT_DIAG(ds, "rd", "axis < 0  || axis >= rank(shape1)");
  EXPECT_DIAG(ds, "rm", "shape[axis] != 1");
  EXPECT_EQ(ds.size(), 8u) << dump(ds);
}

TEST(Validate, RescalePerChannelSizes) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I32, {1, 4}));
  RescaleAttrs r;
  r.perChannel = true;  // NC = shape[rank-1] = 4, but 2 multipliers/shifts given
  r.multiplier = {1 << 30, 1 << 30};
  r.shift = {30, 30};
  b.output({b.rescale(x, DType::I8, r, "pc")});
  auto ds = validateModule(m, target({"pro_int"}));
  EXPECT_DIAG(ds, "pc", "multiplier [2] must be [NC] = [4]");
  EXPECT_DIAG(ds, "pc", "shift [2] must be [NC] = [4]");
}

TEST(Validate, RescaleAttributeErrors) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I32, {4}));
  RescaleAttrs r;
  r.multiplier = {1 << 30};
  r.shift = {30};
  r.outputUnsigned = true;  // 2.13.2: ERROR_IF(is_same<in_t,i32_t>() && output_unsigned)
  b.output({b.rescale(x, DType::I8, r, "ru")});
  EXPECT_DIAG(validateModule(m, target({"pro_int"})), "ru", "is_same<in_t,i32_t>() && output_unsigned");
}

TEST(Validate, ClampBounds) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {4}));
  b.output({b.clamp(x, 1.0, -1.0, "cl")});  // 2.4.1: ERROR_IF(max_val < min_val)
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "cl", "max_val < min_val");
}

TEST(Validate, ArgumentRank) {
  Module m;
  Builder b(m, "main");
  auto* a = b.input(T(DType::FP32, {2, 3}));  // 2.3.7 MATMUL: A is rank 3
  auto* zp = b.scalar1(DType::FP32, 0);
  b.output({b.op1("tosa.matmul", {a, a, zp, zp}, T(DType::FP32, {2, 3, 3}), {}, "mm2")});
  EXPECT_DIAG(validateModule(m, target({"pro_fp"})), "mm2", "argument A", "requires rank 3");
}

TEST(Validate, AllViolationsAreListed) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::BF16, {4}));
  auto* y = b.add(x, x, "bf16add");  // needs EXT-BF16 (2.5.1)
  auto* f = b.input(T(DType::FP32, {1, 1, 1, 1, 1, 1, 1}));
  auto* g = b.add(f, f, "rank7");  // rank 7 result > MAX_RANK 6 (argument f too)
  auto* c = b.input(T(DType::FP32, {1, 4, 4, 1}));
  auto* w = b.constant(Tensor(DType::FP32, {1, 1, 1, 1}));
  auto* bias = b.constant(Tensor(DType::FP32, {1}));
  auto* zp = b.scalar1(DType::FP32, 0);
  // OH = (4 - 1 - 0) / 1 + 1 = 4, declared 5.
  auto* o = b.op1("tosa.conv2d", {c, w, bias, zp, zp}, T(DType::FP32, {1, 5, 4, 1}),
                  {{"pad", Attribute::intArray({0, 0, 0, 0})},
                   {"stride", Attribute::intArray({1, 1})},
                   {"dilation", Attribute::intArray({1, 1})},
                   {"acc_type", Attribute::type(DType::FP32)}},
                  "conv");
  b.output({y, g, o});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "bf16add", "EXT-BF16");
  EXPECT_DIAG(ds, "rank7", "MAX_RANK");
  EXPECT_DIAG(ds, "conv", "OH = 5, expected 4");
  EXPECT_EQ(ds.size(), 4u) << dump(ds);  // plus the rank-7 function argument
}

TEST(Validate, VariablesAreChecked) {
  Module m;
  Builder b(m, "main");
  Variable v;
  v.name = "state";
  v.type = T(DType::I16, {4});  // 2.17.1 VARIABLE rows: fp16, fp32 (PRO-FP) and i8 (PRO-INT) only
  m.variables.push_back(v);
  b.output({});
  EXPECT_DIAG(validateModule(m, TargetEnv::all()), "tosa.variable", "not in the supported-data-types table");
}

// One cond_if whose then-region adds `outer` (defined outside the region) to its argument.
void buildCapture(Module& m, bool capture, DType thenArg = DType::I32) {
  Builder b(m, "main");
  auto* c = b.input(T(DType::Bool, {1}));
  auto* a = b.input(T(DType::I32, {2}));
  auto* k = b.constant(Tensor(DType::I32, {2}));
  Operation& op = b.create("tosa.cond_if", {c, a}, {a->type}, {}, ifLoc(0));
  for (int r = 0; r < 2; ++r) {
    auto region = std::make_unique<Region>();
    region->parent = &op;
    auto blk = std::make_unique<Block>();
    blk->parent = region.get();
    Builder inner(m, b.function(), *blk);
    Value* v = inner.input(T(r == 0 ? thenArg : DType::I32, {2}));
    inner.output({r == 0 && capture ? inner.op1("tosa.add", {k, v}, v->type) : v});
    region->blocks.push_back(std::move(blk));
    op.regions.push_back(std::move(region));
  }
  b.output({op.results[0]});
}

TEST(Validate, RegionsAreSeparateGraphs) {
  // 2.16.1: tosa_execute_graph(then_graph, input_list, output_list): a region's only inputs are input_list.
  Module m;
  buildCapture(m, true);
  auto all = TargetEnv::all();
  EXPECT_DIAG(validateModule(m, all), "tosa.cond_if", "then_graph uses a value defined outside it");
  ValidateOptions o;
  o.allowRegionCaptures = true;  // what Session uses: the reference backend runs captures
  EXPECT_VALID(validateModule(m, all, o));
  Module ok;
  buildCapture(ok, false);
  EXPECT_VALID(validateModule(ok, all));
}

TEST(Validate, CondIfRegionSignature) {
  // 2.16.1: ERROR_IF(tensor_list_shape(input_list) != tosa_input_shape(then_graph)): then takes fp32[2],
  // input_list is i32[2] (the then-graph also yields fp32, so the output_list check fails too).
  Module m;
  buildCapture(m, false, DType::FP32);
  auto ds = validateModule(m, TargetEnv::all());
  EXPECT_DIAG(ds, "tensor_list_shape(input_list) != tosa_input_shape(then_graph)");
  EXPECT_DIAG(ds, "tensor_list_shape(output_list) != tosa_output_shape(then_graph)");
  EXPECT_EQ(count(ds, {"else_graph"}), 0) << dump(ds);
}

TEST(Validate, WhileLoopCondMustYieldBool) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::I32, {1}));
  Operation& op = b.create("tosa.while_loop", {x}, {x->type}, {}, ifLoc(0));
  for (int r = 0; r < 2; ++r) {
    auto region = std::make_unique<Region>();
    region->parent = &op;
    auto blk = std::make_unique<Block>();
    blk->parent = region.get();
    Builder inner(m, b.function(), *blk);
    Value* v = inner.input(x->type);
    inner.output({v});  // the cond graph yields i32, not bool
    region->blocks.push_back(std::move(blk));
    op.regions.push_back(std::move(region));
  }
  b.output({op.results[0]});
  // 2.16.2: ERROR_IF(tosa_output_type(cond_graph) != bool_t).
  auto ds = validateModule(m, TargetEnv::all());
  EXPECT_DIAG(ds, "tosa.while_loop", "tosa_output_type(cond_graph) != bool_t");
  EXPECT_EQ(ds.size(), 1u) << dump(ds);
}

TEST(Validate, RescaleUnsigned16ZeroPoint) {
  // 2.13.2: uint16 zero point must be 0 or 32768. The i16 zero point holds the bit pattern 0x8000, which
  // zero_extend reads as 32768: valid. 0x8001 (32769) is an error.
  for (int64_t zp : {-32768, -32767}) {
    Module m;
    Builder b(m, "main");
    auto* x = b.input(T(DType::I16, {4}));
    RescaleAttrs r;
    r.multiplier = {1 << 14};
    r.shift = {14};
    r.scale32 = false;
    r.inputUnsigned = true;
    r.inputZp = zp;
    b.output({b.rescale(x, DType::I16, r, "u16")});
    auto ds = validateModule(m, target({"pro_int"}));
    if (zp == -32768)
      EXPECT_VALID(ds);
    else
      EXPECT_DIAG(ds, "u16", "input_zp != 0 && input_zp != 32768");
  }
}

TEST(Validate, TransposeConvOutputSize) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 3, 3, 1}));
  auto* w = b.constant(Tensor(DType::FP32, {2, 2, 2, 1}));
  auto* bias = b.constant(Tensor(DType::FP32, {2}));
  auto* zp = b.scalar1(DType::FP32, 0);
  // OH = (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH = 2 * 2 + 0 + 0 + 2 = 6; declared 7.
  b.output({b.op1("tosa.transpose_conv2d", {x, w, bias, zp, zp}, T(DType::FP32, {1, 7, 6, 2}),
                  {{"out_pad", Attribute::intArray({0, 0, 0, 0})},
                   {"stride", Attribute::intArray({2, 2})},
                   {"acc_type", Attribute::type(DType::FP32)}},
                  "tc")});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "tc", "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH", "expected 6");
  EXPECT_EQ(ds.size(), 1u) << dump(ds);
}

TEST(Validate, ResizeOffsetRange) {
  Module m;
  Builder b(m, "main");
  auto* x = b.input(T(DType::FP32, {1, 2, 2, 1}));
  // scale [2,1,2,1], offset_y = 32 >= 16 * scale_y_n = 32. OH = idiv_check((2-1)*2 - 32 + 0, 1) + 1 = -29.
  auto* sc = b.constShape({2, 1, 2, 1});
  auto* off = b.constShape({32, 0});
  auto* bo = b.constShape({0, 0});
  b.output({b.op1("tosa.resize", {x, sc, off, bo}, T(DType::FP32, {1, 3, 3, 1}),
                  {{"mode", Attribute::enumCase("NEAREST_NEIGHBOR")}}, "rz")});
  auto ds = validateModule(m, target({"pro_fp"}));
  EXPECT_DIAG(ds, "rz", "offset_y < -scale_y_n || offset_y >= 16 * scale_y_n");
  EXPECT_DIAG(ds, "rz", "OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1");
}

TEST(Validate, DiagnosticToString) {
  Diagnostic d;
  d.op = "tosa.add";
  d.location = "a.mlir:3:5";
  d.message = "m";
  EXPECT_EQ(d.toString(), "tosa.add at a.mlir:3:5: m");
}

}  // namespace
}  // namespace tosakit::ir
