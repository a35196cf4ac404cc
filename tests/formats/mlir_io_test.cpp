// MLIR TOSA text import/export. Inputs are hand-written .mlir files in tests/data/mlir (each checked with
// mlir-opt-22); expected values are read off those files (bit patterns computed by hand in comments).
// Every exported text is re-parsed by upstream mlir-opt-22 when it is installed.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "formats/mlir/mlir_io.h"
#include "ir/builder.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;
using ir::Attribute;

const std::string kData = std::string(TOSAKIT_SOURCE_DIR) + "/tests/data/mlir/";

bool haveMlirOpt() { return std::system("command -v mlir-opt-22 >/dev/null 2>&1") == 0; }

fs::path tempPath(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("tosakit_mlir_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream os(p, std::ios::binary);
  os << text;
}

std::string readFile(const fs::path& p) {
  std::ifstream is(p, std::ios::binary);
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

// Runs upstream mlir-opt-22 (parse + verify) on `text`; returns its stderr ("" on success).
std::string mlirOptErrors(const std::string& text, const std::string& name, bool split = false) {
  fs::path in = tempPath(name);
  fs::path err = tempPath(name + ".err");
  writeFile(in, text);
  std::string cmd = "mlir-opt-22 " + std::string(split ? "--split-input-file " : "") + "'" + in.string() +
      "' -o /dev/null 2>'" + err.string() + "'";
  int rc = std::system(cmd.c_str());
  std::string errors = readFile(err);
  fs::remove(in);
  fs::remove(err);
  std::error_code ec;
  fs::remove(in.parent_path(), ec);  // succeeds once the directory is empty
  if (rc != 0 && errors.empty()) errors = "mlir-opt-22 exited with " + std::to_string(rc);
  return rc == 0 ? "" : errors;
}

std::unique_ptr<ir::Module> importOk(const std::string& file) {
  auto r = mlirio::importMlirFile(kData + file);
  EXPECT_TRUE(r.isOk()) << r.status().toString();
  return r.isOk() ? std::move(r.value()) : nullptr;
}

// export (with locations) -> mlir-opt-22 accepts it -> import -> structurally equal.
void expectRoundTrip(const ir::Module& m, const std::string& name) {
  auto text = mlirio::exportMlir(m, /*withLocations=*/true);
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  if (haveMlirOpt()) { EXPECT_EQ(mlirOptErrors(*text, name), "") << *text; }
  auto back = mlirio::importMlirString(*text, name);
  ASSERT_TRUE(back.isOk()) << back.status().toString() << "\n" << *text;
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(m, **back, &why)) << why << "\n" << *text;
}

const ir::Operation* findOp(const ir::Block& b, const std::string& name, int nth = 0) {
  for (auto& op : b.ops)
    if (op->name == name && nth-- == 0) return op.get();
  return nullptr;
}

const Tensor& constTensor(const ir::Operation* op) {
  static Tensor empty;
  if (!op || !op->attr("values") || !op->attr("values")->tensor) {
    ADD_FAILURE() << "not a constant";
    return empty;
  }
  return *op->attr("values")->tensor;
}

// ---- hand-written modules ----

TEST(MlirImport, Int8AndFp32Networks) {
  auto m = importOk("models.mlir");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->functions.size(), 2u);

  // target_env -> TargetEnv with MLIR's spellings.
  ASSERT_TRUE(m->target.has_value());
  EXPECT_EQ(m->target->profiles, (std::vector<std::string>{"pro_int", "pro_fp"}));
  EXPECT_EQ(m->target->extensions, (std::vector<std::string>{"int16", "bf16"}));
  EXPECT_EQ(m->target->level, "8k");
  EXPECT_EQ(m->target->specVersion, "1.0");

  const ir::Function& f = *m->functions[0];
  EXPECT_EQ(f.name, "int8_net");
  EXPECT_EQ(f.inputName(0), "x");   // tosakit.name argument attribute
  EXPECT_EQ(f.outputName(0), "y");  // tosakit.name result attribute
  EXPECT_EQ(f.inputs()[0]->type, ir::ValueType::tensor(DType::I8, {1, 4, 4, 2}));
  EXPECT_EQ(f.resultTypes[0], ir::ValueType::tensor(DType::I8, {1, 4, 4, 3}));

  const ir::Operation* w = findOp(f.body, "tosa.const");
  ASSERT_TRUE(w);
  EXPECT_EQ(w->loc.name, "w");
  EXPECT_EQ(constTensor(w).toInts(), (std::vector<int64_t>{1, -2, 3, 4, -5, 6}));
  EXPECT_EQ(constTensor(w).shape(), (Shape{3, 1, 1, 2}));

  const ir::Operation* conv = findOp(f.body, "tosa.conv2d");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->loc.name, "conv1");
  ASSERT_EQ(conv->operands.size(), 5u);
  EXPECT_EQ(conv->operands[0], f.inputs()[0]);
  EXPECT_EQ(conv->operands[1], w->results[0]);
  EXPECT_EQ(*conv->attr("pad"), Attribute::intArray({0, 0, 0, 0}, DType::I64));
  EXPECT_EQ(*conv->attr("acc_type"), Attribute::type(DType::I32));
  EXPECT_FALSE(conv->hasAttr("local_bound"));  // absent in the text
  EXPECT_EQ(conv->results[0]->type, ir::ValueType::tensor(DType::I32, {1, 4, 4, 3}));

  const ir::Operation* rescale = findOp(f.body, "tosa.rescale");
  ASSERT_TRUE(rescale);
  EXPECT_EQ(rescale->loc.name, "rescale1");
  EXPECT_EQ(*rescale->attr("rounding_mode"), Attribute::enumCase("DOUBLE_ROUND"));
  EXPECT_EQ(*rescale->attr("per_channel"), Attribute::boolean(true));
  EXPECT_EQ(*rescale->attr("input_unsigned"), Attribute::boolean(false));
  EXPECT_EQ(rescale->operands[0], conv->results[0]);

  const ir::Operation* clamp = findOp(f.body, "tosa.clamp");
  ASSERT_TRUE(clamp);
  EXPECT_EQ(*clamp->attr("min_val"), Attribute::integer(-128, DType::I8));
  EXPECT_EQ(*clamp->attr("max_val"), Attribute::integer(100, DType::I8));
  EXPECT_FALSE(clamp->hasAttr("nan_mode"));  // default PROPAGATE is not kept
  EXPECT_EQ(f.body.terminator()->name, "func.return");
  EXPECT_EQ(f.outputs()[0], clamp->results[0]);
  // Ops without loc(...) carry their position in the file.
  const ir::Operation* bias = findOp(f.body, "tosa.const", 1);
  EXPECT_EQ(bias->loc.name, "");
  EXPECT_EQ(fs::path(bias->loc.file).filename(), "models.mlir");
  EXPECT_EQ(bias->loc.line, 6);
  EXPECT_EQ(bias->loc.col, 10);

  const ir::Function& g = *m->functions[1];
  EXPECT_EQ(g.name, "fp32_net");
  EXPECT_EQ(g.inputs()[0]->name, "image");  // loc("image") on the argument
  EXPECT_EQ(g.inputs()[1]->name, "");
  EXPECT_EQ(g.inputName(1), "arg1");
  EXPECT_EQ(g.resultNames, (std::vector<std::string>{"sum", "", ""}));
  const ir::Operation* convFp = findOp(g.body, "tosa.conv2d");
  EXPECT_EQ(convFp->loc.name, "conv_fp");  // NameLoc wrapping a file location: both
  EXPECT_EQ(convFp->loc.file, "models.mlir");
  EXPECT_EQ(convFp->loc.line, 21);
  EXPECT_EQ(convFp->loc.col, 13);
  EXPECT_EQ(*convFp->attr("local_bound"), Attribute::boolean(true));
  EXPECT_EQ(*convFp->attr("acc_type"), Attribute::type(DType::FP32));
  const ir::Operation* add = findOp(g.body, "tosa.add");
  EXPECT_EQ(add->loc.name, "add0");  // fused location: first name
  const ir::Operation* cs = findOp(g.body, "tosa.const_shape");
  EXPECT_EQ(cs->results[0]->type, ir::ValueType::shape(2));
  EXPECT_EQ(constTensor(cs).dtype(), DType::I64);
  EXPECT_EQ(constTensor(cs).toInts(), (std::vector<int64_t>{2, 9}));
  const ir::Operation* reshape = findOp(g.body, "tosa.reshape");
  EXPECT_EQ(reshape->operands[1], cs->results[0]);
  const ir::Operation* tr = findOp(g.body, "tosa.transpose");
  EXPECT_EQ(*tr->attr("perms"), Attribute::intArray({1, 2, 3, 0}, DType::I32));
  const ir::Operation* clampF = findOp(g.body, "tosa.clamp");
  EXPECT_EQ(*clampF->attr("min_val"), Attribute::floating(0.0, DType::FP32));
  EXPECT_EQ(*clampF->attr("max_val"), Attribute::floating(6.0, DType::FP32));
  EXPECT_EQ(*clampF->attr("nan_mode"), Attribute::enumCase("IGNORE"));
  const ir::Operation* b = findOp(g.body, "tosa.const", 1);
  // 0.1 and 0.2 rounded to fp32: 0x3DCCCCCD, 0x3E4CCCCD.
  EXPECT_EQ(constTensor(b).toInts(), (std::vector<int64_t>{0x3DCCCCCD, 0x3E4CCCCD}));

  expectRoundTrip(*m, "models_export.mlir");
}

TEST(MlirImport, DTypesExactBits) {
  auto m = importOk("dtypes.mlir");
  ASSERT_TRUE(m);
  const ir::Block& body = m->functions[0]->body;
  struct Expect {
    DType dtype;
    std::vector<int64_t> values;  // integers as values, floats as bit patterns
  };
  const std::vector<Expect> expected = {
      {DType::Bool, {1, 0, 1}},
      {DType::I4, {-8, -1, 0, 7}},
      {DType::I8, {-128, 0, 127}},
      {DType::I16, {-32768, 32767}},
      {DType::I32, {INT32_MIN, INT32_MAX}},
      {DType::I48, {-(int64_t(1) << 47), (int64_t(1) << 47) - 1}},
      {DType::I64, {INT64_MIN, INT64_MAX}},
      {DType::FP16, {0x3E00, 0xFBFF}},                      // 1.5 = 0 01111 1000000000; -65504 = 1 11110 1111111111
      {DType::BF16, {0x3FC0, 0xC000}},                      // 1.5 = 0x3FC0 (top half of fp32 0x3FC00000); -2.0 = 0xC000
      {DType::FP32, {0x3FC00000, 0x7FC00000, 0xFF800000}},  // 1.5, the quiet NaN and -inf written in hex
      {DType::FP8E4M3, {0x3C, 0xFE}},                       // 1.5 = 0 0111 100; -448 = 1 1111 110 (1.75 * 2^8)
      {DType::FP8E5M2, {0x3E, 0x7B}},                       // 1.5 = 0 01111 10; 57344 = 0 11110 11 (1.75 * 2^15)
      {DType::I8, {-3, -3, -3, -3}},                        // splat
      {DType::BF16, {0x3F80, 0xFFC0}},                      // hex "0x803FC0FF": little-endian 0x3F80, 0xFFC0
      {DType::FP32, {0x3F800000, 0x80000000}},              // hex "0x0000803F00000080": 1.0, -0.0
  };
  ASSERT_EQ(body.ops.size(), expected.size() + 1);
  for (size_t i = 0; i < expected.size(); ++i) {
    const Tensor& t = constTensor(body.ops[i].get());
    EXPECT_EQ(t.dtype(), expected[i].dtype) << "const " << i;
    EXPECT_EQ(t.toInts(), expected[i].values) << "const " << i << " " << dtypeName(t.dtype());
  }
  EXPECT_EQ(constTensor(body.ops[12].get()).shape(), (Shape{2, 2}));
  expectRoundTrip(*m, "dtypes_export.mlir");
}

TEST(MlirImport, DenseResource) {
  auto m = importOk("resource.mlir");
  ASSERT_TRUE(m);
  const ir::Block& body = m->functions[0]->body;
  // blob_i32: 01000000 FFFFFFFF 00000080 07000000 (little-endian) after the 4-byte alignment header.
  EXPECT_EQ(constTensor(body.ops[0].get()).toInts(), (std::vector<int64_t>{1, -1, INT32_MIN, 7}));
  EXPECT_EQ(constTensor(body.ops[0].get()).shape(), (Shape{2, 2}));
  // blob_f16: 003C 00C0 007C -> 0x3C00 (1.0), 0xC000 (-2.0), 0x7C00 (+inf).
  EXPECT_EQ(constTensor(body.ops[1].get()).toInts(), (std::vector<int64_t>{0x3C00, 0xC000, 0x7C00}));
  // blob_i8: 80 FF 7F.
  EXPECT_EQ(constTensor(body.ops[2].get()).toInts(), (std::vector<int64_t>{-128, -1, 127}));
  expectRoundTrip(*m, "resource_export.mlir");
}

TEST(MlirImport, DenseResourceWithoutBlobIsAnError) {
  const std::string text =
      "func.func @f() -> tensor<2xi8> {\n"
      "  %0 = \"tosa.const\"() <{values = dense_resource<nothere> : tensor<2xi8>}> : () -> tensor<2xi8>\n"
      "  return %0 : tensor<2xi8>\n}\n";
  auto r = mlirio::importMlirString(text, "nores.mlir");
  ASSERT_FALSE(r.isOk());
  EXPECT_NE(r.status().message().find("nothere"), std::string::npos) << r.status().toString();
  EXPECT_NE(r.status().message().find("nores.mlir:2:"), std::string::npos) << r.status().toString();
}

TEST(MlirImport, GenericSyntax) {
  auto m = importOk("generic.mlir");
  ASSERT_TRUE(m);
  const ir::Function& f = *m->functions[0];
  EXPECT_EQ(f.name, "g");
  EXPECT_EQ(f.inputName(0), "a");
  EXPECT_EQ(f.inputName(1), "b");
  EXPECT_EQ(f.outputName(0), "z");
  EXPECT_EQ(f.body.ops[0]->loc.name, "add0");
  EXPECT_FALSE(f.body.ops[1]->hasAttr("nan_mode"));  // explicit #tosa.nan_mode<PROPAGATE> is the default
  EXPECT_EQ(*f.body.ops[2]->attr("nan_mode"), Attribute::enumCase("IGNORE"));
  expectRoundTrip(*m, "generic_export.mlir");
}

TEST(MlirImport, ControlFlowRegions) {
  auto m = importOk("control_flow.mlir");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->functions.size(), 2u);
  const ir::Function& f = *m->functions[0];
  const ir::Operation* cif = findOp(f.body, "tosa.cond_if");
  ASSERT_TRUE(cif);
  ASSERT_EQ(cif->operands.size(), 3u);  // condition + input_list
  ASSERT_EQ(cif->regions.size(), 2u);
  const ir::Block& thenB = *cif->regions[0]->blocks.at(0);
  ASSERT_EQ(thenB.args.size(), 2u);
  EXPECT_EQ(thenB.args[0]->name, "then_x");
  EXPECT_EQ(thenB.args[0]->type, ir::ValueType::tensor(DType::FP32, {2}));
  ASSERT_EQ(thenB.ops.size(), 2u);
  EXPECT_EQ(thenB.ops[0]->name, "tosa.add");
  EXPECT_EQ(thenB.ops[0]->loc.name, "then_add");
  EXPECT_EQ(thenB.ops[0]->operands[0], thenB.args[0]);
  EXPECT_EQ(thenB.ops[1]->name, "tosa.yield");
  EXPECT_EQ(cif->regions[1]->blocks.at(0)->ops[0]->name, "tosa.sub");

  const ir::Function& g = *m->functions[1];
  const ir::Operation* one = findOp(g.body, "tosa.const");
  const ir::Operation* loop = findOp(g.body, "tosa.while_loop");
  ASSERT_TRUE(loop);
  ASSERT_EQ(loop->regions.size(), 2u);
  EXPECT_EQ(loop->results.size(), 2u);
  const ir::Block& cond = *loop->regions[0]->blocks.at(0);
  EXPECT_EQ(cond.args.size(), 2u);
  EXPECT_EQ(cond.ops.back()->name, "tosa.yield");
  const ir::Block& body = *loop->regions[1]->blocks.at(0);
  const ir::Operation* addInBody = findOp(body, "tosa.add");
  ASSERT_TRUE(addInBody);
  EXPECT_EQ(addInBody->operands[1], one->results[0]);  // value captured from the enclosing function
  EXPECT_EQ(g.outputs()[0], loop->results[1]);
  expectRoundTrip(*m, "control_flow_export.mlir");
}

TEST(MlirImport, Variables) {
  auto m = importOk("variables.mlir");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->variables.size(), 2u);
  EXPECT_EQ(m->variables[0].name, "counter");
  EXPECT_EQ(m->variables[0].type, ir::ValueType::tensor(DType::I32, {4}));
  ASSERT_TRUE(m->variables[0].initialValue.has_value());
  EXPECT_EQ(m->variables[0].initialValue->toInts(), (std::vector<int64_t>{1, -2, 3, -4}));
  EXPECT_EQ(m->variables[0].loc.name, "counter_var");
  EXPECT_EQ(m->variables[1].name, "state");
  EXPECT_EQ(m->variables[1].type, ir::ValueType::tensor(DType::FP32, {2, 3}));
  EXPECT_FALSE(m->variables[1].initialValue.has_value());
  ASSERT_TRUE(m->target.has_value());
  EXPECT_EQ(m->target->level, "none");
  EXPECT_EQ(m->target->profiles, (std::vector<std::string>{"pro_int"}));
  EXPECT_EQ(m->target->extensions, (std::vector<std::string>{"variable"}));
  const ir::Block& body = m->functions[0]->body;
  const ir::Operation* rd = findOp(body, "tosa.variable_read");
  ASSERT_TRUE(rd);
  EXPECT_EQ(*rd->attr("name"), Attribute::symbol("counter"));
  EXPECT_EQ(rd->loc.name, "read_counter");
  const ir::Operation* wr = findOp(body, "tosa.variable_write");
  ASSERT_TRUE(wr);
  EXPECT_EQ(*wr->attr("name"), Attribute::symbol("counter"));
  EXPECT_TRUE(wr->results.empty());
  expectRoundTrip(*m, "variables_export.mlir");
}

// ---- export of graphs built in code ----

TEST(MlirExport, BuilderGraphRoundTrips) {
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::FP32, {1, 2, 2, 3}), "input");
  auto* y = b.input(ir::ValueType::tensor(DType::FP32, {1, 2, 2, 3}));
  auto* s = b.add(x, y, "add1");
  auto* c = b.clamp(s, 0.0, 6.0, "relu6");
  auto* t = b.transpose(c, {0, 3, 1, 2}, "to_nchw");
  auto* r = b.reshape(t, {3, 4}, "flatten");
  b.output({r, c}, {"logits", ""});
  auto text = mlirio::exportMlir(m, /*withLocations=*/true);
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  EXPECT_NE(text->find("tosakit.name = \"input\""), std::string::npos) << *text;
  EXPECT_NE(text->find("tosakit.name = \"logits\""), std::string::npos) << *text;
  EXPECT_NE(text->find("loc(\"relu6\")"), std::string::npos) << *text;
  expectRoundTrip(m, "builder_export.mlir");

  // Without locations the names of inputs/outputs still survive (result/argument attributes).
  auto plain = mlirio::exportMlir(m, /*withLocations=*/false);
  ASSERT_TRUE(plain.isOk());
  EXPECT_EQ(plain->find("loc("), std::string::npos);
  auto back = mlirio::importMlirString(*plain, "plain.mlir");
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ((*back)->functions[0]->inputName(0), "input");
  EXPECT_EQ((*back)->functions[0]->outputName(0), "logits");
  EXPECT_EQ((*back)->functions[0]->outputName(1), "out1");
}

TEST(MlirExport, DefaultValuedAttributesAreCanonicalizedAway) {
  // MLIR's printer elides nan_mode = PROPAGATE and local_bound = false, so the importer drops them too.
  ir::Module m;
  ir::Builder b(m, "main");
  auto* x = b.input(ir::ValueType::tensor(DType::FP32, {2}));
  auto* c = b.op1("tosa.clamp", {x}, x->type,
                  {{"min_val", Attribute::floating(0, DType::FP32)},
                   {"max_val", Attribute::floating(1, DType::FP32)},
                   {"nan_mode", Attribute::enumCase("PROPAGATE")}});
  b.output({c});
  auto text = mlirio::exportMlir(m);
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  auto back = mlirio::importMlirString(*text, "x.mlir");
  ASSERT_TRUE(back.isOk());
  EXPECT_FALSE((*back)->functions[0]->body.ops[0]->hasAttr("nan_mode"));
  EXPECT_TRUE((*back)->functions[0]->body.ops[0]->hasAttr("min_val"));
}

TEST(MlirExport, AllDTypesAsConstants) {
  // Every tosakit dtype survives export -> import bit-exactly (values chosen at the edges of each format).
  ir::Module m;
  ir::Builder b(m, "main");
  std::vector<ir::Value*> outs;
  auto add = [&](DType dt, std::vector<int64_t> v) {
    outs.push_back(b.constant(Tensor::fromInts(dt, {int64_t(v.size())}, v)));
  };
  add(DType::Bool, {1, 0, 0, 1});
  add(DType::I4, {-8, 7, -1, 3});
  add(DType::I8, {-128, 127, 5});
  add(DType::I16, {-32768, 32767});
  add(DType::I32, {INT32_MIN, 12345});
  add(DType::I48, {-(int64_t(1) << 47), (int64_t(1) << 47) - 1, 0});
  add(DType::I64, {INT64_MIN, 1});
  add(DType::FP16, {0x7E00, 0x8001, 0x3C00});  // quiet NaN, -smallest subnormal, 1.0
  add(DType::BF16, {0x7F80, 0x0001, 0xBF80});  // +inf, smallest subnormal, -1.0
  add(DType::FP32, {0x7FC00001, 0x00000001});  // NaN with payload, smallest subnormal
  add(DType::FP8E4M3, {0x7F, 0x01, 0x80});     // NaN (S.1111.111), smallest subnormal, -0
  add(DType::FP8E5M2, {0x7C, 0x7E, 0x03});     // +inf, NaN, largest subnormal
  add(DType::U8, {0, 255});
  add(DType::U16, {0, 65535});
  add(DType::U32, {0, 4294967295});
  add(DType::FP64, {0x7FF0000000000001, 0x3FF0000000000000});  // signalling NaN, 1.0
  add(DType::I8, {9, 9, 9});                                   // splat
  b.output(outs);
  expectRoundTrip(m, "all_dtypes_export.mlir");
}

TEST(MlirExport, Errors) {
  {
    ir::Module m;
    ir::Builder b(m, "main");
    auto* x = b.input(ir::ValueType::tensor(DType::FP32, {2}));
    auto* y = b.op1("foo.bar", {x}, x->type, {}, "mystery");
    b.output({y});
    auto r = mlirio::exportMlir(m);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), StatusCode::Unsupported);
    EXPECT_NE(r.status().message().find("foo.bar"), std::string::npos) << r.status().toString();
    EXPECT_NE(r.status().message().find("mystery"), std::string::npos) << r.status().toString();
  }
  {
    // Verifier failure (shapes not broadcast-compatible) names the op and its location.
    ir::Module m;
    ir::Builder b(m, "main");
    auto* x = b.input(ir::ValueType::tensor(DType::FP32, {2}));
    auto* y = b.input(ir::ValueType::tensor(DType::FP32, {3}));
    auto* s = b.op1("tosa.add", {x, y}, x->type, {}, "bad_add");
    b.output({s});
    auto r = mlirio::exportMlir(m);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("tosa.add"), std::string::npos) << r.status().toString();
    EXPECT_NE(r.status().message().find("bad_add"), std::string::npos) << r.status().toString();
  }
  {
    ir::Module m;
    ir::Builder b(m, "main");
    auto* x = b.input(ir::ValueType::tensor(DType::FP32, {2}));
    auto* c = b.op1("tosa.clamp", {x}, x->type,
                    {{"min_val", Attribute::floating(0, DType::FP32)},
                     {"max_val", Attribute::floating(1, DType::FP32)},
                     {"nan_mode", Attribute::enumCase("SOMETIMES")}});
    b.output({c});
    auto r = mlirio::exportMlir(m);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("SOMETIMES"), std::string::npos) << r.status().toString();
  }
  {
    ir::Module m;
    m.target = ir::TargetEnv::all();
    m.target->extensions.push_back("warp_drive");
    ir::Builder b(m, "main");
    b.output({b.input(ir::ValueType::tensor(DType::FP32, {2}))});
    auto r = mlirio::exportMlir(m);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("warp_drive"), std::string::npos) << r.status().toString();
  }
}

TEST(MlirExport, MalformedGraphsGiveErrorsNotCrashes) {
  auto exportOne = [](const std::string& opName, int operands, std::map<std::string, Attribute> attrs) {
    ir::Module m;
    ir::Builder b(m, "main");
    auto* x = b.input(ir::ValueType::tensor(DType::FP32, {1, 4, 4, 2}));
    std::vector<ir::Value*> ops(size_t(operands), x);
    auto* y = b.op1(opName, ops, x->type, std::move(attrs), "victim");
    b.output({y});
    return mlirio::exportMlir(m);
  };
  // Attribute of the wrong kind, missing attributes, wrong operand count, non-TOSA structural op.
  auto r1 = exportOne("tosa.conv2d", 5, {{"pad", Attribute::string("same")}});
  auto r2 = exportOne("tosa.conv2d", 1, {});
  auto r3 = exportOne("tosa.rescale", 1, {{"rounding_mode", Attribute::integer(3)}});
  auto r4 = exportOne("func.func", 0, {});
  auto r5 = exportOne("tosa.variable", 0, {});
  for (auto* r : {&r1, &r2, &r3, &r4, &r5}) {
    ASSERT_FALSE(r->isOk());
    EXPECT_NE(r->status().message().find("victim"), std::string::npos) << r->status().toString();
  }
  EXPECT_NE(r1.status().message().find("tosa.conv2d"), std::string::npos) << r1.status().toString();
  EXPECT_EQ(r4.status().code(), StatusCode::Unsupported);
  // An operand that is not defined before its use.
  ir::Module m;
  ir::Builder b(m, "main");
  ir::Value* stray = m.newValue(ir::ValueType::tensor(DType::FP32, {2}));
  b.output({b.op1("tosa.abs", {stray}, stray->type)});
  auto r6 = mlirio::exportMlir(m);
  ASSERT_FALSE(r6.isOk());
  EXPECT_NE(r6.status().message().find("before its definition"), std::string::npos) << r6.status().toString();
  // A function without a func.return.
  ir::Module e;
  e.addFunction("empty");
  auto r7 = mlirio::exportMlir(e);
  ASSERT_FALSE(r7.isOk());
  EXPECT_NE(r7.status().message().find("@empty"), std::string::npos) << r7.status().toString();
}

TEST(MlirExport, TargetEnvAllRoundTrips) {
  ir::Module m;
  m.target = ir::TargetEnv::all();
  ir::Builder b(m, "main");
  b.output({b.input(ir::ValueType::tensor(DType::FP32, {2}), "x")});
  auto text = mlirio::exportMlir(m);
  ASSERT_TRUE(text.isOk()) << text.status().toString();
  EXPECT_NE(text->find("#tosa.target_env<specification_version = \"1.0\", level = \"8k\""), std::string::npos) << *text;
  expectRoundTrip(m, "target_export.mlir");
}

TEST(MlirImport, TargetEnvWrittenByMlirOpt) {
  // The oracle: upstream's own tosa-attach-target pass writes the attribute we must read.
  if (!haveMlirOpt()) GTEST_SKIP() << "mlir-opt-22 not installed";
  fs::path out = tempPath("attached.mlir");
  std::string cmd =
      "mlir-opt-22 --pass-pipeline='builtin.module(tosa-attach-target{profiles=pro_int,pro_fp "
      "extensions=int16,int4,doubleround level=none})' '" +
      kData + "generic.mlir' -o '" + out.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto m = mlirio::importMlirFile(out.string());
  fs::remove(out);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  ASSERT_TRUE((*m)->target.has_value());
  EXPECT_EQ((*m)->target->profiles, (std::vector<std::string>{"pro_int", "pro_fp"}));
  EXPECT_EQ((*m)->target->extensions, (std::vector<std::string>{"int16", "int4", "doubleround"}));
  EXPECT_EQ((*m)->target->level, "none");
  EXPECT_EQ((*m)->target->specVersion, "1.0");
  expectRoundTrip(**m, "attached_export.mlir");
}

// ---- import errors ----

TEST(MlirImportErrors, MalformedText) {
  auto r = mlirio::importMlirFile(kData + "bad_syntax.mlir");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::ParseError);
  EXPECT_NE(r.status().message().find("bad_syntax.mlir:3:12"), std::string::npos) << r.status().toString();
  EXPECT_NE(r.status().message().find("expected ':'"), std::string::npos) << r.status().toString();
}

TEST(MlirImportErrors, UnknownDialectOp) {
  auto r = mlirio::importMlirFile(kData + "unknown_op.mlir");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::Unsupported);
  EXPECT_NE(r.status().message().find("foo.bar"), std::string::npos) << r.status().toString();
  EXPECT_NE(r.status().message().find("unknown_op.mlir:2:8"), std::string::npos) << r.status().toString();
}

TEST(MlirImportErrors, UnregisteredTosaOp) {
  auto r = mlirio::importMlirFile(kData + "unregistered_tosa.mlir");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::ParseError);
  EXPECT_NE(r.status().message().find("tosa.frobnicate"), std::string::npos) << r.status().toString();
  EXPECT_NE(r.status().message().find("unregistered_tosa.mlir:2:8"), std::string::npos) << r.status().toString();
}

TEST(MlirImportErrors, VerifierErrorUnlessDisabled) {
  auto r = mlirio::importMlirFile(kData + "verifier_error.mlir");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::ParseError);
  EXPECT_NE(r.status().message().find("verifier_error.mlir:2:8"), std::string::npos) << r.status().toString();
  EXPECT_NE(r.status().message().find("'tosa.add' op operands don't have broadcast-compatible shapes"),
            std::string::npos)
      << r.status().toString();
  mlirio::ImportOptions noVerify;
  noVerify.verify = false;
  auto lax = mlirio::importMlirFile(kData + "verifier_error.mlir", noVerify);
  ASSERT_TRUE(lax.isOk()) << lax.status().toString();
  EXPECT_EQ((*lax)->functions[0]->body.ops[0]->name, "tosa.add");
}

TEST(MlirImportErrors, MissingFile) {
  auto r = mlirio::importMlirFile(kData + "does_not_exist.mlir");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::IOError);
  EXPECT_NE(r.status().message().find("does_not_exist.mlir"), std::string::npos);
  auto d = mlirio::importMlirFile(kData);
  ASSERT_FALSE(d.isOk());
  EXPECT_EQ(d.status().code(), StatusCode::IOError);
}

TEST(MlirImportErrors, UnsupportedTypesAndOps) {
  struct Case {
    const char* text;
    const char* needle;
  };
  const Case cases[] = {
      {"func.func @f(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {\n"
       "  return %a : tensor<2xcomplex<f32>>\n}\n",
       "complex<f32>"},
      {"func.func @f(%a: tensor<2xsi8>) -> tensor<2xsi8> {\n  return %a : tensor<2xsi8>\n}\n", "si8"},
      {"func.func private @decl(tensor<2xf32>) -> tensor<2xf32>\n", "without a body"},
      {"func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
       "  %0 = \"tosa.abs\"(%a) {weird = [1, 2]} : (tensor<2xf32>) -> tensor<2xf32>\n"
       "  return %0 : tensor<2xf32>\n}\n",
       "weird"},
      {"\"foo.top\"() : () -> ()\n", "foo.top"},
      {"", nullptr},  // an empty module is fine
  };
  for (const Case& c : cases) {
    auto r = mlirio::importMlirString(c.text, "u.mlir");
    if (!c.needle) {
      EXPECT_TRUE(r.isOk()) << r.status().toString();
      continue;
    }
    ASSERT_FALSE(r.isOk()) << c.text;
    EXPECT_NE(r.status().message().find(c.needle), std::string::npos) << r.status().toString();
    EXPECT_NE(r.status().message().find("u.mlir:"), std::string::npos) << r.status().toString();
  }
}

TEST(MlirImportErrors, GarbageNeverCrashes) {
  // Truncations of a valid file: every prefix must give a clean result (ok or an error), never a crash.
  std::string text = readFile(kData + "control_flow.mlir");
  for (size_t n = 0; n < text.size(); n += 7) {
    auto r = mlirio::importMlirString(text.substr(0, n), "cut.mlir");
    if (!r.isOk()) { EXPECT_FALSE(r.status().message().empty()); }
  }
}

// ---- conformance vectors: every model.mlir ----

TEST(MlirConformance, ImportExportAllModels) {
  const fs::path root = TOSAKIT_CONFORMANCE_DIR;
  ASSERT_TRUE(fs::is_directory(root)) << root << ": conformance vectors not unpacked (target conformance_vectors)";
  std::vector<fs::path> models;
  for (auto& group : fs::directory_iterator(root)) {
    if (!group.is_directory()) continue;
    for (auto& test : fs::directory_iterator(group.path()))
      if (fs::exists(test.path() / "model.mlir")) models.push_back(test.path());
  }
  std::sort(models.begin(), models.end());
  ASSERT_EQ(models.size(), 1747u);

  int parsedOk = 0, rejected = 0, laxOk = 0;
  std::string laxErrors;
  std::string exported;  // every exported module, for one mlir-opt-22 --split-input-file run
  for (const fs::path& dir : models) {
    const std::string model = (dir / "model.mlir").string();
    // test.json records whether upstream mlir-opt-22 parsed (and verified) the model.
    const bool upstreamOk = readFile(dir / "test.json").find("\"mlir_parse\": \"ok\"") != std::string::npos;
    auto r = mlirio::importMlirFile(model);
    if (!upstreamOk) {
      // Negative tests upstream rejects: so must we, naming the file and position.
      ++rejected;
      EXPECT_FALSE(r.isOk()) << model;
      if (!r.isOk()) {
        EXPECT_NE(r.status().message().find("model.mlir:"), std::string::npos) << r.status().toString();
      }
      mlirio::ImportOptions lax;
      lax.verify = false;
      auto l = mlirio::importMlirFile(model, lax);
      if (l.isOk()) {
        ++laxOk;
      } else {
        EXPECT_EQ(l.status().code(), StatusCode::ParseError) << l.status().toString();
        laxErrors += l.status().message() + "\n";
      }
      continue;
    }
    ++parsedOk;
    ASSERT_TRUE(r.isOk()) << r.status().toString();
    auto text = mlirio::exportMlir(**r, true);
    ASSERT_TRUE(text.isOk()) << model << ": " << text.status().toString();
    auto back = mlirio::importMlirString(*text, model);
    ASSERT_TRUE(back.isOk()) << model << ": " << back.status().toString() << "\n" << *text;
    std::string why;
    EXPECT_TRUE(ir::modulesEqual(**r, **back, &why)) << model << ": " << why << "\n" << *text;
    exported += *text + "\n// -----\n";
  }
  EXPECT_EQ(parsedOk, 1439);
  EXPECT_EQ(rejected, 308);
  // Without the verifier 293 of them import. The other 15 fail inside MLIR's parser itself: 8 syntax errors
  // (negative dimensions, missing operands, short hex data) and 7 acc_type attributes whose type constraint
  // the custom op parser checks while reading (test.json's mlir_parse_error lists the same 15 messages).
  EXPECT_EQ(laxOk, 293) << laxErrors;
  if (haveMlirOpt()) { EXPECT_EQ(mlirOptErrors(exported, "conformance_export.mlir", /*split=*/true), ""); }
}

}  // namespace
}  // namespace tosakit
