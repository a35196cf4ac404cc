// ir::cloneModule: a deep copy equal to the original (modulesEqual), independent of it, keeping value ids
// (so intermediate names match) and the metadata the structural comparison does not look at.
#include "ir/module_clone.h"

#include <gtest/gtest.h>

#include "ir/builder.h"

using namespace tosakit;

namespace {

// f(x) = cond_if(c, x + x, x) with function and argument metadata.
std::unique_ptr<ir::Module> sample() {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  auto t = ir::ValueType::tensor(DType::FP32, {2});
  ir::Value* c = b.input(ir::ValueType::tensor(DType::Bool, {1}), "c");
  ir::Value* x = b.input(t, "x");
  ir::Operation& cond = b.create("tosa.cond_if", {c, x}, {t});
  for (int branch = 0; branch < 2; ++branch) {
    cond.regions.push_back(std::make_unique<ir::Region>());
    cond.regions.back()->parent = &cond;
    cond.regions.back()->blocks.push_back(std::make_unique<ir::Block>());
    ir::Block& blk = *cond.regions.back()->blocks.back();
    blk.parent = cond.regions.back().get();
    ir::Builder inner(*m, b.function(), blk);
    ir::Value* a = inner.input(t);
    inner.create("tosa.yield", {branch == 0 ? inner.add(a, a, "sum") : a}, {});
  }
  b.output({cond.results[0]}, {"y"});
  b.function().attrs["tosakit.note"] = ir::Attribute::string("kept");
  b.function().setArgAttr(1, "tosakit.onnx_type", ir::Attribute::string("float32"));
  m->target = ir::TargetEnv::all();
  return m;
}

}  // namespace

TEST(CloneModule, EqualIndependentAndKeepsIds) {
  auto m = sample();
  auto c = ir::cloneModule(*m);
  std::string why;
  EXPECT_TRUE(ir::modulesEqual(*m, *c, &why)) << why;
  const ir::Function& f = *m->function("main");
  const ir::Function& g = *c->function("main");
  ASSERT_EQ(f.body.ops.size(), g.body.ops.size());
  for (size_t i = 0; i < f.body.ops.size(); ++i) {
    EXPECT_NE(f.body.ops[i].get(), g.body.ops[i].get());
    for (size_t k = 0; k < f.body.ops[i]->results.size(); ++k)
      EXPECT_EQ(f.body.ops[i]->results[k]->id, g.body.ops[i]->results[k]->id);
  }
  // The clone's operands are its own values, in its own regions too.
  const ir::Operation& cond = *g.body.ops[0];
  EXPECT_EQ(cond.operands[1], g.body.args[1]);
  const ir::Block& thenBlock = *cond.regions[0]->blocks[0];
  EXPECT_EQ(thenBlock.ops[0]->operands[0], thenBlock.args[0]);
  EXPECT_EQ(thenBlock.ops[0]->parent, &thenBlock);
  ASSERT_NE(g.attrs.find("tosakit.note"), g.attrs.end());
  ASSERT_NE(g.argAttr(1, "tosakit.onnx_type"), nullptr);
  EXPECT_TRUE(c->target.has_value());
  // Changing the clone leaves the original alone.
  c->function("main")->body.ops[0]->regions[0]->blocks[0]->ops[0]->name = "tosa.sub";
  EXPECT_FALSE(ir::modulesEqual(*m, *c));
  EXPECT_EQ(f.body.ops[0]->regions[0]->blocks[0]->ops[0]->name, "tosa.add");
}
