// A reader compiled from the plain TOSA 1.0 schema (tosa.fbs without tosakit's extension fields, see
// tests/tosafb_plain_schema.cmake) verifies and reads what tosakit writes: the extension stays invisible to
// Arm's tools (reference model, Vela), which read the same 1.0 layout.
#include <gtest/gtest.h>

#include "formats/tosafb/tosafb_io.h"
#include "ir/builder.h"
#include "tosa_plain_generated.h"

namespace tosakit {
namespace {

TEST(TosaFbPlainReader, ReadsTosakitFiles) {
  ir::Module m;
  ir::Builder b(m, "main");
  ir::Value* x = b.input(ir::ValueType::tensor(DType::I8, {1, 4}), "x");
  ir::Value* y = b.clamp(x, -3, 9, "relu_ish");
  b.output({y}, {"out"});
  m.target = ir::TargetEnv::all();
  auto enc = tosafb::encodeTosa(m);
  ASSERT_TRUE(enc.isOk()) << enc.status().toString();

  flatbuffers::Verifier v(enc->bytes.data(), enc->bytes.size());
  ASSERT_TRUE(tosa_plain::VerifyTosaGraphBuffer(v));
  const tosa_plain::TosaGraph* g = tosa_plain::GetTosaGraph(enc->bytes.data());
  EXPECT_EQ(g->version()->_major(), 1);
  EXPECT_EQ(g->version()->_minor(), 0);
  ASSERT_EQ(g->regions()->size(), 1u);
  const tosa_plain::TosaBasicBlock* blk = g->regions()->Get(0)->blocks()->Get(0);
  EXPECT_EQ(blk->name()->str(), "main");
  EXPECT_EQ(blk->inputs()->Get(0)->str(), "x");
  EXPECT_EQ(blk->outputs()->Get(0)->str(), "out");
  ASSERT_EQ(blk->operators()->size(), 1u);
  const tosa_plain::TosaOperator* op = blk->operators()->Get(0);
  EXPECT_EQ(op->op(), tosa_plain::Op_CLAMP);
  EXPECT_EQ(op->location()->text()->str(), "relu_ish");
  const tosa_plain::ClampAttribute* c = op->attribute_as_ClampAttribute();
  ASSERT_NE(c, nullptr);
  // int8 bounds as one packed byte each: -3 = 0xFD, 9.
  ASSERT_EQ(c->min_val()->size(), 1u);
  EXPECT_EQ(c->min_val()->Get(0), 0xFD);
  EXPECT_EQ(c->max_val()->Get(0), 9);
  EXPECT_EQ(c->nan_mode(), tosa_plain::NanPropagationMode_PROPAGATE);
  ASSERT_EQ(blk->tensors()->size(), 2u);
  EXPECT_EQ(blk->tensors()->Get(0)->type(), tosa_plain::DType_INT8);
  EXPECT_EQ(blk->tensors()->Get(1)->name()->str(), "out");
}

}  // namespace
}  // namespace tosakit
