// CONST_SHAPE (spec 2.18.1): output = values.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

OpRun constShape(std::vector<int64_t> values, int64_t declaredLength) {
  std::map<std::string, ir::Attribute> attrs{
      {"values", ir::Attribute::dense(Tensor::fromInts(DType::I64, {int64_t(values.size())}, values))}};
  return runOp("tosa.const_shape", {}, {ir::ValueType::shape(declaredLength)}, attrs);
}

TEST(ConstShapeTest, OutputIsValues) {
  auto r = constShape({2, 4, 5}, 3);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].dtype(), DType::I64);
  EXPECT_EQ(r.outputs[0].shape(), (Shape{3}));
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2, 4, 5}));
}

TEST(ConstShapeTest, SingleValue) {
  auto r = constShape({3}, 1);
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{3}));
}

TEST(ConstShapeTest, LengthNotMatchingDeclaredShapeIsError) {
  // The output is !tosa.shape<2> but values has 3 elements.
  EXPECT_SPEC_ERROR(constShape({2, 4, 5}, 2));
}

TEST(ConstShapeTest, FeedsResizeAsShapeOperand) {
  // The shape value reaches RESIZE as its scale operand: 2x nearest upscale of [1, 2] along x
  // (scale_x = 4/2, offset_x = -1, border_x = 1: OW = (4 + 1 + 1) / 2 + 1 = 4, columns 0, 0, 1, 1).
  auto r = runOp("tosa.resize",
                 {Arg(Tensor::fromInts(DType::I8, {1, 1, 2, 1}, {1, 2})), ShapeConst({2, 2, 4, 2}), ShapeConst({0, -1}),
                  ShapeConst({0, 1})},
                 {TT(DType::I8, {1, 1, 4, 1})}, {{"mode", ir::Attribute::enumCase("NEAREST_NEIGHBOR")}});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 1, 2, 2}));
}

}  // namespace
}  // namespace tosakit::testing
