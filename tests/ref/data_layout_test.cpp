// CONCAT / PAD / RESHAPE / REVERSE / SLICE / TILE / TRANSPOSE (spec 2.10). Expected values are hand
// calculations from the pseudocode. Values 0..8 are exact in every element type including fp8e5m2.
#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

const DType kAllTypes[] = {DType::FP16, DType::FP32, DType::I16,     DType::I32,
                           DType::I8,   DType::BF16, DType::FP8E4M3, DType::FP8E5M2};
const Shape kRank7 = {1, 1, 1, 1, 1, 1, 1};

ir::Attribute axisAttr(int64_t a) { return ir::Attribute::integer(a, DType::I32); }

// ---- 2.10.1 CONCAT ----

OpRun concat(std::vector<Tensor> ins, int64_t axis, DType outT, Shape outShape) {
  std::vector<OpInput> ops;
  for (Tensor& t : ins) ops.push_back(Arg(std::move(t)));
  return runBoth("tosa.concat", ops, {TT(outT, std::move(outShape))}, {{"axis", axisAttr(axis)}});
}

TEST(ConcatTest, EveryTypeAxis0) {
  // [[1, 2]] ++ [[3, 4], [5, 6]] along axis 0 -> [[1, 2], [3, 4], [5, 6]]
  for (DType t : kAllTypes) {
    auto r = concat({Reals(t, {1, 2}, {1, 2}), Reals(t, {2, 2}, {3, 4, 5, 6})}, 0, t, {3, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 2, 3, 4, 5, 6})) << dtypeName(t);
  }
  auto r = concat({Ints(DType::Bool, {1, 2}, {1, 0}), Ints(DType::Bool, {2, 2}, {0, 1, 1, 1})}, 0, DType::Bool, {3, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 0, 1, 1, 1}));
}

TEST(ConcatTest, ThreeInputsAxis1) {
  // [[1],[2]] ++ [[3,4],[5,6]] ++ [[7],[8]] along axis 1 -> [[1,3,4,7],[2,5,6,8]]
  auto r = concat(
      {Ints(DType::I32, {2, 1}, {1, 2}), Ints(DType::I32, {2, 2}, {3, 4, 5, 6}), Ints(DType::I32, {2, 1}, {7, 8})}, 1,
      DType::I32, {2, 4});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 3, 4, 7, 2, 5, 6, 8}));
}

TEST(ConcatTest, Errors) {
  // ERROR_IF(axis < 0 || axis >= max(1, rank(shapes1[0])))
  EXPECT_SPEC_ERROR(concat({Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {2})}, 1, DType::I8, {2}));
  EXPECT_SPEC_ERROR(concat({Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {2})}, -1, DType::I8, {2}));
  // ERROR_IF(rank(shapes1[shape_index]) != rank(shapes1[0]))
  EXPECT_SPEC_ERROR(concat({Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1, 1}, {2})}, 0, DType::I8, {2}));
  // ERROR_IF(shapes1[shape_index][axis_index] != shapes1[0][axis_index])
  EXPECT_SPEC_ERROR(
      concat({Ints(DType::I8, {1, 2}, {1, 2}), Ints(DType::I8, {1, 3}, {1, 2, 3})}, 0, DType::I8, {2, 2}));
  // ERROR_IF(axis_sum != shape[axis])
  EXPECT_SPEC_ERROR(concat({Ints(DType::I8, {1}, {1}), Ints(DType::I8, {1}, {2})}, 0, DType::I8, {3}));
  // ERROR_IF(input1 == [])
  EXPECT_SPEC_ERROR(runBoth("tosa.concat", {}, {TT(DType::I8, {1})}, {{"axis", axisAttr(0)}}));
  // Rank-0 inputs (input1 has rank 1 to MAX_RANK)
  EXPECT_SPEC_ERROR(concat({Ints(DType::I8, {}, {1}), Ints(DType::I8, {}, {2})}, 0, DType::I8, {}));
  // Mixed element types are not a row.
  EXPECT_SPEC_ERROR(concat({Ints(DType::I8, {1}, {1}), Ints(DType::I16, {1}, {2})}, 0, DType::I8, {2}));
}

TEST(ConcatTest, LevelChecks) {
  // LEVEL_CHECK(tensor_list_shape(input1) <= MAX_TENSOR_LIST_SIZE) with 64 at level 8K: 65 inputs fail.
  std::vector<Tensor> many(65, Ints(DType::I8, {1}, {1}));
  EXPECT_SPEC_ERROR(concat(many, 0, DType::I8, {65}));
  std::vector<Tensor> ok(64, Ints(DType::I8, {1}, {1}));
  EXPECT_RUN_OK(concat(ok, 0, DType::I8, {64}));
  // LEVEL_CHECK(rank(shape) <= MAX_RANK)
  EXPECT_SPEC_ERROR(
      concat({Ints(DType::I8, kRank7, {1}), Ints(DType::I8, kRank7, {2})}, 0, DType::I8, {2, 1, 1, 1, 1, 1, 1}));
}

// ---- 2.10.2 PAD ----

OpRun pad(Tensor in, std::vector<int64_t> padding, Tensor padConst, Shape outShape) {
  DType t = in.dtype();
  return runBoth("tosa.pad", {Arg(std::move(in)), ShapeConst(std::move(padding)), Const(std::move(padConst))},
                 {TT(t, std::move(outShape))});
}

TEST(PadTest, EveryType) {
  // [[1,2],[3,4]] padded [top 1, bottom 0, left 0, right 1] with 5 -> [[5,5,5],[1,2,5],[3,4,5]]
  for (DType t : kAllTypes) {
    auto r = pad(Reals(t, {2, 2}, {1, 2, 3, 4}), {1, 0, 0, 1}, Reals(t, {1}, {5}), {3, 3});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{5, 5, 5, 1, 2, 5, 3, 4, 5})) << dtypeName(t);
  }
  // bool: [F] padded [1, 1] with T -> [T, F, T]
  auto r = pad(Ints(DType::Bool, {1}, {0}), {1, 1}, Ints(DType::Bool, {1}, {1}), {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 1}));
}

TEST(PadTest, ZeroPaddingIsIdentity) {
  auto r = pad(Ints(DType::I32, {2, 2}, {1, 2, 3, 4}), {0, 0, 0, 0}, Ints(DType::I32, {1}, {9}), {2, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(PadTest, Errors) {
  // ERROR_IF(padding[i * 2] < 0 || padding[(i * 2) + 1] < 0)
  EXPECT_SPEC_ERROR(pad(Ints(DType::I8, {3}, {1, 2, 3}), {-1, 1}, Ints(DType::I8, {1}, {0}), {3}));
  // ERROR_IF(shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1])
  EXPECT_SPEC_ERROR(pad(Ints(DType::I8, {3}, {1, 2, 3}), {1, 1}, Ints(DType::I8, {1}, {0}), {4}));
  // ERROR_IF(rank(shape) != rank(shape1))
  EXPECT_SPEC_ERROR(pad(Ints(DType::I8, {3}, {1, 2, 3}), {0, 0}, Ints(DType::I8, {1}, {0}), {3, 1}));
  // padding must have 2 * rank(shape1) values
  EXPECT_SPEC_ERROR(pad(Ints(DType::I8, {3}, {1, 2, 3}), {0, 0, 0, 0}, Ints(DType::I8, {1}, {0}), {3}));
  // LEVEL_CHECK(rank(shape) <= MAX_RANK)
  EXPECT_SPEC_ERROR(pad(Ints(DType::I8, kRank7, {1}), std::vector<int64_t>(14, 0), Ints(DType::I8, {1}, {0}), kRank7));
  // pad_const must have in_out_t
  EXPECT_SPEC_ERROR(pad(Ints(DType::I8, {1}, {1}), {0, 0}, Ints(DType::I16, {1}, {0}), {1}));
}

// ---- 2.10.3 RESHAPE ----

OpRun reshape(Tensor in, Shape newShape) {
  DType t = in.dtype();
  return runBoth("tosa.reshape", {Arg(std::move(in)), ShapeConst(newShape)}, {TT(t, newShape)});
}

TEST(ReshapeTest, EveryTypeKeepsRowMajorOrder) {
  for (DType t : kAllTypes) {
    auto r = reshape(Reals(t, {2, 3}, {1, 2, 3, 4, 5, 6}), {3, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].shape(), (Shape{3, 2}));
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 2, 3, 4, 5, 6})) << dtypeName(t);
  }
  auto r = reshape(Ints(DType::Bool, {4}, {1, 0, 0, 1}), {2, 1, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 0, 1}));
}

TEST(ReshapeTest, RankZeroAndBack) {
  auto r = reshape(Ints(DType::I32, {1, 1}, {7}), {});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{7}));
}

TEST(ReshapeTest, Errors) {
  // ERROR_IF(tensor_size(shape1) != tensor_size(shape)): 6 vs 8
  EXPECT_SPEC_ERROR(reshape(Ints(DType::I8, {2, 3}, {1, 2, 3, 4, 5, 6}), {4, 2}));
  // shape operand differs from the declared output shape
  EXPECT_SPEC_ERROR(runBoth("tosa.reshape", {Arg(Ints(DType::I8, {2, 3}, {1, 2, 3, 4, 5, 6})), ShapeConst({6})},
                            {TT(DType::I8, {3, 2})}));
  // LEVEL_CHECK(rank(shape) <= MAX_RANK) and LEVEL_CHECK(rank(shape1) <= MAX_RANK)
  EXPECT_SPEC_ERROR(reshape(Ints(DType::I8, {1}, {1}), kRank7));
  EXPECT_SPEC_ERROR(reshape(Ints(DType::I8, kRank7, {1}), {1}));
}

// ---- 2.10.4 REVERSE ----

OpRun reverse(Tensor in, int64_t axis, Shape outShape) {
  DType t = in.dtype();
  return runBoth("tosa.reverse", {Arg(std::move(in))}, {TT(t, std::move(outShape))}, {{"axis", axisAttr(axis)}});
}

TEST(ReverseTest, EveryTypeBothAxes) {
  // [[1,2,3],[4,5,6]]: axis 1 -> [[3,2,1],[6,5,4]] ; axis 0 -> [[4,5,6],[1,2,3]]
  for (DType t : kAllTypes) {
    auto r = reverse(Reals(t, {2, 3}, {1, 2, 3, 4, 5, 6}), 1, {2, 3});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{3, 2, 1, 6, 5, 4})) << dtypeName(t);
    r = reverse(Reals(t, {2, 3}, {1, 2, 3, 4, 5, 6}), 0, {2, 3});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{4, 5, 6, 1, 2, 3})) << dtypeName(t);
  }
  auto r = reverse(Ints(DType::Bool, {3}, {1, 0, 0}), 0, {3});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 0, 1}));
}

TEST(ReverseTest, Errors) {
  // ERROR_IF(axis < 0 || axis >= rank(shape))
  EXPECT_SPEC_ERROR(reverse(Ints(DType::I8, {2, 2}, {1, 2, 3, 4}), 2, {2, 2}));
  EXPECT_SPEC_ERROR(reverse(Ints(DType::I8, {2, 2}, {1, 2, 3, 4}), -1, {2, 2}));
  // output has the input's shape
  EXPECT_SPEC_ERROR(reverse(Ints(DType::I8, {2, 2}, {1, 2, 3, 4}), 0, {4}));
  EXPECT_SPEC_ERROR(reverse(Ints(DType::I8, kRank7, {1}), 0, kRank7));
}

// ---- 2.10.5 SLICE ----

OpRun slice(Tensor in, std::vector<int64_t> start, std::vector<int64_t> size, Shape outShape) {
  DType t = in.dtype();
  return runBoth("tosa.slice", {Arg(std::move(in)), ShapeConst(std::move(start)), ShapeConst(std::move(size))},
                 {TT(t, std::move(outShape))});
}

TEST(SliceTest, EveryType) {
  // 3x3 [[0,1,2],[3,4,5],[6,7,8]], start [1,1], size [2,2] -> [[4,5],[7,8]]
  for (DType t : kAllTypes) {
    auto r = slice(Reals(t, {3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}), {1, 1}, {2, 2}, {2, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{4, 5, 7, 8})) << dtypeName(t);
  }
  auto r = slice(Ints(DType::Bool, {4}, {1, 0, 1, 1}), {1}, {2}, {2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{0, 1}));
}

TEST(SliceTest, Errors) {
  Tensor in = Ints(DType::I8, {3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_SPEC_ERROR(slice(in, {-1, 0}, {2, 2}, {2, 2}));  // ERROR_IF(start[index] < 0)
  EXPECT_SPEC_ERROR(slice(in, {0, 0}, {0, 2}, {0, 2}));   // ERROR_IF(size[index] <= 0)
  EXPECT_SPEC_ERROR(slice(in, {2, 0}, {2, 2}, {2, 2}));   // ERROR_IF(start[index] + size[index] > shape1[index])
  EXPECT_SPEC_ERROR(slice(in, {0, 0}, {2, 2}, {2, 1}));   // ERROR_IF(shape[index] != size[index])
  EXPECT_SPEC_ERROR(slice(in, {0}, {2, 2}, {2, 2}));      // ERROR_IF(rank(shape1) != length(start) ...)
  EXPECT_SPEC_ERROR(slice(in, {0, 0}, {2, 2}, {4}));      // ERROR_IF(rank(shape1) != rank(shape))
  EXPECT_SPEC_ERROR(
      slice(Ints(DType::I8, kRank7, {1}), std::vector<int64_t>(7, 0), std::vector<int64_t>(7, 1), kRank7));
}

// ---- 2.10.6 TILE ----

OpRun tile(Tensor in, std::vector<int64_t> multiples, Shape outShape) {
  DType t = in.dtype();
  return runBoth("tosa.tile", {Arg(std::move(in)), ShapeConst(std::move(multiples))}, {TT(t, std::move(outShape))});
}

TEST(TileTest, EveryType) {
  // [[1, 2]] x [2, 2] -> [[1,2,1,2],[1,2,1,2]]
  for (DType t : kAllTypes) {
    auto r = tile(Reals(t, {1, 2}, {1, 2}), {2, 2}, {2, 4});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 2, 1, 2, 1, 2, 1, 2})) << dtypeName(t);
  }
  auto r = tile(Ints(DType::Bool, {2}, {1, 0}), {2}, {4});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 1, 0}));
}

TEST(TileTest, Errors) {
  // ERROR_IF(shape1[i] * multiples[i] != shape[i])
  EXPECT_SPEC_ERROR(tile(Ints(DType::I8, {1, 2}, {1, 2}), {2, 2}, {2, 2}));
  // ERROR_IF(rank(shape1) != rank(shape))
  EXPECT_SPEC_ERROR(tile(Ints(DType::I8, {2}, {1, 2}), {2}, {1, 4}));
  // multiples must have rank(shape1) values
  EXPECT_SPEC_ERROR(tile(Ints(DType::I8, {2}, {1, 2}), {2, 1}, {4}));
  EXPECT_SPEC_ERROR(tile(Ints(DType::I8, kRank7, {1}), std::vector<int64_t>(7, 1), kRank7));
}

// ---- 2.10.7 TRANSPOSE ----

OpRun transpose(Tensor in, std::vector<int64_t> perms, Shape outShape) {
  DType t = in.dtype();
  return runBoth("tosa.transpose", {Arg(std::move(in))}, {TT(t, std::move(outShape))},
                 {{"perms", ir::Attribute::intArray(std::move(perms), DType::I32)}});
}

TEST(TransposeTest, EveryType2D) {
  // [[1,2,3],[4,5,6]] perms [1,0] -> [[1,4],[2,5],[3,6]]
  for (DType t : kAllTypes) {
    auto r = transpose(Reals(t, {2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0}, {3, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{1, 4, 2, 5, 3, 6})) << dtypeName(t);
  }
  auto r = transpose(Ints(DType::Bool, {2, 2}, {1, 1, 0, 0}), {1, 0}, {2, 2});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 0, 1, 0}));
}

TEST(TransposeTest, Rank3) {
  // input [2,1,3] = in[j][0][i] = 1..6; perms [2,0,1]: output shape [3,2,1], out[i][j][0] = in[j][0][i]
  // -> [in[0][0][0], in[1][0][0], in[0][0][1], in[1][0][1], in[0][0][2], in[1][0][2]] = [1,4,2,5,3,6]
  auto r = transpose(Ints(DType::I32, {2, 1, 3}, {1, 2, 3, 4, 5, 6}), {2, 0, 1}, {3, 2, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));
}

TEST(TransposeTest, Errors) {
  Tensor in = Ints(DType::I8, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_SPEC_ERROR(transpose(in, {0, 0}, {2, 3}));   // ERROR_IF(indexes_used[index] == true)
  EXPECT_SPEC_ERROR(transpose(in, {0, 2}, {2, 3}));   // ERROR_IF(index >= rank(shape1))
  EXPECT_SPEC_ERROR(transpose(in, {-1, 0}, {3, 2}));  // ERROR_IF(index < 0)
  EXPECT_SPEC_ERROR(transpose(in, {1, 0}, {2, 3}));   // ERROR_IF(shape1[perms[i]] != shape[i])
  EXPECT_SPEC_ERROR(transpose(in, {1, 0}, {6}));      // ERROR_IF(rank(shape1) != rank(shape))
  EXPECT_SPEC_ERROR(transpose(in, {1, 0}, {3, 3}));   // ERROR_IF(tensor_size(shape1) != tensor_size(shape))
  EXPECT_SPEC_ERROR(transpose(in, {1}, {3, 2}));      // perms must have rank(shape1) values
  EXPECT_SPEC_ERROR(transpose(Ints(DType::I8, kRank7, {1}), {0, 1, 2, 3, 4, 5, 6}, kRank7));
}

// ---- malformed graphs reach the kernels without crashing ----

TEST(KernelArityTest, WrongOperandCountIsError) {
  // PAD takes (input1, padding, pad_const); NEGATE (input1, input1_zp, output_zp); SELECT three tensors.
  EXPECT_SPEC_ERROR(runKernel("tosa.pad", {Arg(Ints(DType::I8, {1}, {1})), ShapeConst({0, 0})}, {TT(DType::I8, {1})}));
  EXPECT_SPEC_ERROR(runKernel("tosa.negate", {Arg(Ints(DType::I8, {1}, {1}))}, {TT(DType::I8, {1})}));
  EXPECT_SPEC_ERROR(runKernel("tosa.select", {Arg(Ints(DType::Bool, {1}, {1})), Arg(Ints(DType::I8, {1}, {1}))},
                              {TT(DType::I8, {1})}));
  EXPECT_SPEC_ERROR(runKernel("tosa.gather", {Arg(Ints(DType::I8, {1, 1, 1}, {1}))}, {TT(DType::I8, {1, 1, 1})}));
  EXPECT_SPEC_ERROR(runKernel("tosa.reduce_sum", {Arg(Ints(DType::I32, {1}, {1}))}, {}));
  EXPECT_SPEC_ERROR(runKernel("tosa.mul", {Arg(Ints(DType::I32, {1}, {1}))}, {TT(DType::I32, {1})}));
  EXPECT_SPEC_ERROR(runKernel("tosa.table", {Arg(Ints(DType::I8, {1}, {1}))}, {TT(DType::I8, {1})}));
  EXPECT_SPEC_ERROR(runKernel("tosa.equal", {Arg(Ints(DType::I32, {1}, {1}))}, {TT(DType::Bool, {1})}));
}

}  // namespace
}  // namespace tosakit::testing
