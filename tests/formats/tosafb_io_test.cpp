// TOSA flatbuffer (.tosa): round trips, the schema's data packing (expected bytes worked out by hand from the
// packing rules of tosa.fbs), and hostile files (one ParseError/InvalidArgument naming the file, no crash).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "formats/tosafb/tosafb_internal.h"
#include "formats/tosafb/tosafb_io.h"
#include "ir/builder.h"
#include "tosakit/model_io.h"

namespace tosakit {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> packed(DType d, std::vector<int64_t> values, tosa::DType as) {
  Tensor t = Tensor::fromInts(d, {int64_t(values.size())}, values);
  return tosafb::packTensor(t, as);
}

TEST(TosaFb, PacksAsTheSchema) {
  // int4: two per byte, low nibble first: 1 | (-2 & 0xF) << 4 = 0xE1, then 3 alone.
  EXPECT_EQ(packed(DType::I4, {1, -2, 3}, tosa::DType_INT4), (std::vector<uint8_t>{0xE1, 0x03}));
  // int48: six bytes little endian, two's complement.
  EXPECT_EQ(packed(DType::I48, {-2}, tosa::DType_INT48), (std::vector<uint8_t>{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(packed(DType::I48, {0x0102030405}, tosa::DType_INT48),
            (std::vector<uint8_t>{0x05, 0x04, 0x03, 0x02, 0x01, 0x00}));
  EXPECT_EQ(packed(DType::I16, {-2, 258}, tosa::DType_INT16), (std::vector<uint8_t>{0xFE, 0xFF, 0x02, 0x01}));
  EXPECT_EQ(packed(DType::Bool, {1, 0, 1}, tosa::DType_BOOL), (std::vector<uint8_t>{1, 0, 1}));
  // SHAPE: int64 little endian.
  EXPECT_EQ(packed(DType::I64, {3}, tosa::DType_SHAPE), (std::vector<uint8_t>{3, 0, 0, 0, 0, 0, 0, 0}));
  // bf16 1.0 = 0x3F80, fp16 -2.0 = 0xC000, fp32 1.0 = 0x3F800000, fp8e4m3 1.0 = 0x38, fp8e5m2 1.0 = 0x3C.
  EXPECT_EQ(tosafb::packTensor(Tensor::fromDoubles(DType::BF16, {1}, {1.0}), tosa::DType_BF16),
            (std::vector<uint8_t>{0x80, 0x3F}));
  EXPECT_EQ(tosafb::packTensor(Tensor::fromDoubles(DType::FP16, {1}, {-2.0}), tosa::DType_FP16),
            (std::vector<uint8_t>{0x00, 0xC0}));
  EXPECT_EQ(tosafb::packTensor(Tensor::fromDoubles(DType::FP32, {1}, {1.0}), tosa::DType_FP32),
            (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3F}));
  EXPECT_EQ(tosafb::packTensor(Tensor::fromDoubles(DType::FP8E4M3, {1}, {1.0}), tosa::DType_FP8E4M3),
            (std::vector<uint8_t>{0x38}));
  EXPECT_EQ(tosafb::packTensor(Tensor::fromDoubles(DType::FP8E5M2, {1}, {1.0}), tosa::DType_FP8E5M2),
            (std::vector<uint8_t>{0x3C}));
}

TEST(TosaFb, UnpacksWhatItPacks) {
  Tensor i4 = Tensor::fromInts(DType::I4, {5}, {-8, 7, 0, -1, 3});
  std::vector<uint8_t> b = tosafb::packTensor(i4, tosa::DType_INT4);
  Tensor back(DType::I4, {5});
  ASSERT_TRUE(tosafb::unpackInto(b.data(), b.size(), tosa::DType_INT4, back, "t").isOk());
  EXPECT_EQ(back.toInts(), (std::vector<int64_t>{-8, 7, 0, -1, 3}));
  Tensor i48(DType::I48, {1});
  std::vector<uint8_t> neg = {0x00, 0x00, 0x00, 0x00, 0x00, 0x80};  // -2^47
  ASSERT_TRUE(tosafb::unpackInto(neg.data(), neg.size(), tosa::DType_INT48, i48, "t").isOk());
  EXPECT_EQ(i48.getInt(0), -(int64_t(1) << 47));
  Status s = tosafb::unpackInto(neg.data(), 5, tosa::DType_INT48, i48, "t");
  EXPECT_EQ(s.code(), StatusCode::ParseError);
}

// A module of every schema element type, a shape value, a variable, names and a cond_if.
std::unique_ptr<ir::Module> sampleModule() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  ir::Value* x = b.input(ir::ValueType::tensor(DType::I8, {2, 3}), "x");
  ir::Value* c = b.input(ir::ValueType::tensor(DType::Bool, {1}), "cond");
  std::vector<ir::Value*> outs;
  outs.push_back(b.constant(Tensor::fromInts(DType::I4, {3}, {1, -2, 3}), "w4"));
  outs.push_back(b.constant(Tensor::fromInts(DType::I48, {2}, {-(int64_t(1) << 47), 5}), "acc48"));
  outs.push_back(b.constant(Tensor::fromDoubles(DType::BF16, {2}, {1.5, -0.25}), "bf"));
  outs.push_back(b.constant(Tensor::fromDoubles(DType::FP8E4M3, {1}, {2.0}), "f8a"));
  outs.push_back(b.constant(Tensor::fromDoubles(DType::FP8E5M2, {1}, {-4.0}), "f8b"));
  outs.push_back(b.constant(Tensor::fromInts(DType::Bool, {2}, {1, 0}), "flags"));
  ir::Value* shape = b.constShape({3, 2}, "new_shape");
  outs.push_back(b.op1("tosa.reshape", {x, shape}, ir::ValueType::tensor(DType::I8, {3, 2}), {}, "reshaped"));
  outs.push_back(b.clamp(x, -5, 100, "clamped"));
  // cond_if: then returns x, else negates nothing but passes x through an identity.
  ir::Operation& cif = b.create("tosa.cond_if", {c, x}, {ir::ValueType::tensor(DType::I8, {2, 3})}, {}, {"branch"});
  for (int r = 0; r < 2; ++r) {
    auto reg = std::make_unique<ir::Region>();
    reg->parent = &cif;
    auto blk = std::make_unique<ir::Block>();
    blk->parent = reg.get();
    ir::Value* a = m->newValue(ir::ValueType::tensor(DType::I8, {2, 3}));
    a->ownerBlock = blk.get();
    blk->args.push_back(a);
    ir::Builder inner(*m, b.function(), *blk);
    ir::Value* y = r == 0 ? a : inner.op1("tosa.identity", {a}, a->type, {}, "id");
    inner.create("tosa.yield", {y}, {});
    reg->blocks.push_back(std::move(blk));
    cif.regions.push_back(std::move(reg));
  }
  outs.push_back(cif.results[0]);
  b.output(outs, {"w4", "acc48", "", "f8a", "f8b", "flags", "reshaped", "clamped", "branch_out"});
  ir::Variable v;
  v.name = "state";
  v.type = ir::ValueType::tensor(DType::I16, {2});
  v.initialValue = Tensor::fromInts(DType::I16, {2}, {7, -7});
  m->variables.push_back(v);
  ir::TargetEnv t;
  t.profiles = {"pro_int"};
  t.extensions = {"int4", "bf16"};
  m->target = t;
  m->functions[0]->setArgAttr(0, "tosakit.scale", ir::Attribute::floating(0.5, DType::FP64));
  return m;
}

TEST(TosaFb, RoundTripKeepsEverything) {
  auto m = sampleModule();
  auto enc = tosafb::encodeTosa(*m);
  ASSERT_TRUE(enc.isOk()) << enc.status().toString();
  EXPECT_TRUE(enc->extensionAttrs.empty()) << ::testing::PrintToString(enc->extensionAttrs);
  auto back = tosafb::decodeTosa(enc->bytes.data(), enc->bytes.size(), "sample.tosa");
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(*m, **back, &why)) << why << "\n"
                                                  << ir::printModule(*m) << "---\n"
                                                  << ir::printModule(**back);
}

TEST(TosaFb, DefaultModelThroughFiles) {
  fs::path src = fs::path(TOSAKIT_SOURCE_DIR) / "models/default/model.mlir";
  auto m = loadModel(src.string());
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  fs::path out = fs::path(TOSAKIT_BINARY_DIR) / "tosafb_default_test.tosa";
  ASSERT_TRUE(saveModel(**m, out.string()).isOk());
  auto back = loadModel(out.string());
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(**m, **back, &why)) << why;
  fs::remove(out);
}

TEST(TosaFb, UnsupportedTypeNamesTheTensor) {
  ir::Module m;
  ir::Builder b(m, "main");
  ir::Value* x = b.input(ir::ValueType::tensor(DType::FP64, {2}), "x64");
  b.output({x});
  auto enc = tosafb::encodeTosa(m);
  ASSERT_FALSE(enc.isOk());
  EXPECT_EQ(enc.status().code(), StatusCode::Unsupported);
  EXPECT_NE(enc.status().message().find("x64"), std::string::npos) << enc.status().message();
}

// ---- hostile files ----

Status decodeStatus(const std::vector<uint8_t>& bytes) {
  auto r = tosafb::decodeTosa(bytes.data(), bytes.size(), "evil.tosa");
  return r.status();
}

bool badFile(const Status& s) {
  return (s.code() == StatusCode::ParseError || s.code() == StatusCode::InvalidArgument) &&
      s.message().find("evil.tosa") != std::string::npos && s.message().find('\n') == std::string::npos;
}

std::vector<uint8_t> sampleBytes() {
  auto enc = tosafb::encodeTosa(*sampleModule());
  return enc.isOk() ? enc->bytes : std::vector<uint8_t>();
}

TEST(TosaFb, HostileTruncatedAndWrongIdentifier) {
  std::vector<uint8_t> good = sampleBytes();
  ASSERT_FALSE(good.empty());
  for (size_t n : {size_t(0), size_t(3), size_t(8), good.size() / 4, good.size() / 2}) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    Status s = decodeStatus(cut);
    EXPECT_TRUE(badFile(s)) << n << ": " << s.toString();
  }
  // Every other length: rejected with one line, or (when only trailing padding is cut) read.
  for (size_t n = 1; n < good.size(); n += 7) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + long(n));
    Status s = decodeStatus(cut);
    if (!s.isOk()) EXPECT_TRUE(badFile(s)) << n << ": " << s.toString();
  }
  std::vector<uint8_t> wrong = good;
  std::memcpy(wrong.data() + 4, "TFL3", 4);
  Status s = decodeStatus(wrong);
  EXPECT_TRUE(badFile(s)) << s.toString();
  EXPECT_NE(s.message().find("identifier"), std::string::npos);
}

TEST(TosaFb, HostileOffsetsOutOfRange) {
  std::vector<uint8_t> good = sampleBytes();
  ASSERT_FALSE(good.empty());
  // Root offset far past the end, then every 4-byte word in turn set to a huge offset: each file must be
  // rejected or read, never crash.
  std::vector<uint8_t> bad = good;
  bad[0] = bad[1] = bad[2] = 0xFF;
  bad[3] = 0x7F;
  EXPECT_TRUE(badFile(decodeStatus(bad)));
  for (size_t i = 8; i + 4 <= good.size(); i += 4) {
    std::vector<uint8_t> b = good;
    uint32_t huge = 0x7FFFFFF0;
    std::memcpy(b.data() + i, &huge, 4);
    auto r = tosafb::decodeTosa(b.data(), b.size(), "evil.tosa");
    if (!r.isOk()) EXPECT_TRUE(badFile(r.status())) << i << ": " << r.status().toString();
  }
}

// Builds a one-block graph with one CONST tensor of the given shape and data.
std::vector<uint8_t> constGraph(std::vector<int32_t> shape, std::vector<uint8_t> data, tosa::DType type) {
  flatbuffers::FlatBufferBuilder fbb;
  auto t = tosa::CreateTosaTensorDirect(fbb, "c", &shape, type, &data);
  std::vector<flatbuffers::Offset<tosa::TosaTensor>> tensors = {t};
  std::vector<flatbuffers::Offset<flatbuffers::String>> outs = {fbb.CreateString("c")};
  auto op = tosa::CreateTosaOperator(fbb, tosa::Op_CONST, tosa::Attribute_ConstAttribute,
                                     tosa::CreateConstAttribute(fbb).Union(), 0, fbb.CreateVector(outs));
  std::vector<flatbuffers::Offset<tosa::TosaOperator>> ops = {op};
  auto blk = tosa::CreateTosaBasicBlockDirect(fbb, "main", &ops, &tensors, nullptr, nullptr);
  std::vector<flatbuffers::Offset<tosa::TosaBasicBlock>> blocks = {blk};
  auto reg = tosa::CreateTosaRegionDirect(fbb, "main", &blocks);
  std::vector<flatbuffers::Offset<tosa::TosaRegion>> regions = {reg};
  auto g = tosa::CreateTosaGraphDirect(fbb, tosa::CreateVersion(fbb, 1, 0, 0, false), &regions);
  fbb.Finish(g, tosa::TosaGraphIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

// tosafb_fuzz finding 1: an operator whose union names an attribute table but holds none (a null offset the
// verifier accepts) was read through a null table.
TEST(TosaFb, FuzzRegressionUnionWithoutTable) {
  fs::path f = fs::path(TOSAKIT_SOURCE_DIR) / "tests/fuzz/regressions/tosafb_union_without_table.tosa";
  std::ifstream is(f, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(bytes.empty());
  Status s = decodeStatus(bytes);
  EXPECT_TRUE(badFile(s)) << s.toString();
  (void)tosafb::disassembleTosaBytes(bytes.data(), bytes.size(), "evil.tosa");  // must not crash either
}

TEST(TosaFb, PlainFileWithoutExtensionReads) {
  auto bytes = constGraph({2}, {1, 2, 3, 4, 5, 6, 7, 8}, tosa::DType_INT32);
  auto m = tosafb::decodeTosa(bytes.data(), bytes.size(), "plain.tosa");
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const ir::Operation& c = *(*m)->functions[0]->body.ops[0];
  EXPECT_EQ(c.name, "tosa.const");
  EXPECT_EQ(c.attr("values")->tensor->toInts(), (std::vector<int64_t>{0x04030201, 0x08070605}));
}

TEST(TosaFb, HostileAbsurdShapeAndDataMismatch) {
  // 2^31-1 x 2^31-1 x 2^31-1 int32: over the memory budget before anything is allocated.
  Status huge = decodeStatus(constGraph({INT32_MAX, INT32_MAX, INT32_MAX}, {0, 0, 0, 0}, tosa::DType_INT32));
  EXPECT_TRUE(badFile(huge)) << huge.toString();
  Status neg = decodeStatus(constGraph({-5}, {}, tosa::DType_INT32));
  EXPECT_TRUE(badFile(neg)) << neg.toString();
  Status mismatch = decodeStatus(constGraph({3}, {1, 2, 3, 4}, tosa::DType_INT32));
  EXPECT_TRUE(badFile(mismatch)) << mismatch.toString();
  EXPECT_NE(mismatch.message().find("needs 12"), std::string::npos) << mismatch.message();
  Status badType = decodeStatus(constGraph({1}, {1}, tosa::DType(99)));
  EXPECT_TRUE(badFile(badType)) << badType.toString();
}

}  // namespace
}  // namespace tosakit
