// GATHER / SCATTER (spec 2.11). Expected values are hand calculations from the pseudocode.
#include "kernel_test_util.h"

namespace tosakit::testing {
namespace {

Tensor Ints(DType t, Shape s, std::vector<int64_t> v) { return Tensor::fromInts(t, std::move(s), v); }
Tensor Reals(DType t, Shape s, std::vector<double> v) { return Tensor::fromDoubles(t, std::move(s), v); }

const DType kAllTypes[] = {DType::FP16, DType::FP32, DType::I16,     DType::I32,
                           DType::I8,   DType::BF16, DType::FP8E4M3, DType::FP8E5M2};

OpRun gather(Tensor values, Tensor indices, Shape outShape) {
  DType t = values.dtype();
  return runBoth("tosa.gather", {Arg(std::move(values)), Arg(std::move(indices))}, {TT(t, std::move(outShape))});
}

OpRun scatter(Tensor valuesIn, Tensor indices, Tensor input, Shape outShape) {
  DType t = valuesIn.dtype();
  return runBoth("tosa.scatter", {Arg(std::move(valuesIn)), Arg(std::move(indices)), Arg(std::move(input))},
                 {TT(t, std::move(outShape))});
}

TEST(GatherTest, EveryType) {
  // values [N=1,K=3,C=2] = [[1,2],[3,4],[5,6]], indices [[2,0]] -> [[[5,6],[1,2]]]
  for (DType t : kAllTypes) {
    auto r = gather(Reals(t, {1, 3, 2}, {1, 2, 3, 4, 5, 6}), Ints(DType::I32, {1, 2}, {2, 0}), {1, 2, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{5, 6, 1, 2})) << dtypeName(t);
  }
}

TEST(GatherTest, BatchesUseTheirOwnValues) {
  // N=2, K=2, C=1: values [[[1],[2]], [[3],[4]]], indices [[1,1,0],[0,1,0]] -> [[2,2,1],[3,4,3]]
  auto r = gather(Ints(DType::I32, {2, 2, 1}, {1, 2, 3, 4}), Ints(DType::I32, {2, 3}, {1, 1, 0, 0, 1, 0}), {2, 3, 1});
  EXPECT_RUN_OK(r);
  EXPECT_EQ(r.outputs[0].toInts(), (std::vector<int64_t>{2, 2, 1, 3, 4, 3}));
}

TEST(GatherTest, IndexOutOfRangeIsUnpredictable) {
  // REQUIRE(0 <= k && k < K)
  EXPECT_UNPREDICTABLE(gather(Ints(DType::I8, {1, 3, 1}, {1, 2, 3}), Ints(DType::I32, {1, 1}, {3}), {1, 1, 1}));
  EXPECT_UNPREDICTABLE(gather(Ints(DType::I8, {1, 3, 1}, {1, 2, 3}), Ints(DType::I32, {1, 1}, {-1}), {1, 1, 1}));
}

TEST(GatherTest, ShapeAndTypeErrors) {
  // output must be [N,W,C]
  EXPECT_SPEC_ERROR(
      gather(Ints(DType::I8, {1, 3, 2}, {1, 2, 3, 4, 5, 6}), Ints(DType::I32, {1, 2}, {0, 0}), {1, 2, 1}));
  // indices must be [N,W] with the values' N
  EXPECT_SPEC_ERROR(gather(Ints(DType::I8, {1, 3, 1}, {1, 2, 3}), Ints(DType::I32, {2, 1}, {0, 0}), {2, 1, 1}));
  // values must be rank 3
  EXPECT_SPEC_ERROR(gather(Ints(DType::I8, {3, 1}, {1, 2, 3}), Ints(DType::I32, {1, 1}, {0}), {1, 1, 1}));
  // index_t must be i32; bool is not an in_out_t row
  EXPECT_SPEC_ERROR(gather(Ints(DType::I8, {1, 3, 1}, {1, 2, 3}), Ints(DType::I16, {1, 1}, {0}), {1, 1, 1}));
  EXPECT_SPEC_ERROR(gather(Ints(DType::Bool, {1, 3, 1}, {1, 0, 1}), Ints(DType::I32, {1, 1}, {0}), {1, 1, 1}));
}

TEST(ScatterTest, EveryType) {
  // values_in [1,3,2] = [[1,2],[3,4],[5,6]], indices [[2,0]], input [[[7,8],[0,1]]]:
  // k=2 <- [7,8], k=0 <- [0,1], k=1 unchanged -> [[0,1],[3,4],[7,8]]
  for (DType t : kAllTypes) {
    auto r = scatter(Reals(t, {1, 3, 2}, {1, 2, 3, 4, 5, 6}), Ints(DType::I32, {1, 2}, {2, 0}),
                     Reals(t, {1, 2, 2}, {7, 8, 0, 1}), {1, 3, 2});
    EXPECT_RUN_OK(r);
    EXPECT_EQ(r.outputs[0].toDoubles(), (std::vector<double>{0, 1, 3, 4, 7, 8})) << dtypeName(t);
  }
}

TEST(ScatterTest, DuplicateIndexIsUnpredictable) {
  // REQUIRE(output_modified[n,k,c] == false): k = 0 written twice
  EXPECT_UNPREDICTABLE(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {1, 2}, {0, 0}),
                               Ints(DType::I32, {1, 2, 1}, {5, 6}), {1, 2, 1}));
}

TEST(ScatterTest, IndexOutOfRangeIsUnpredictable) {
  EXPECT_UNPREDICTABLE(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {1, 1}, {2}),
                               Ints(DType::I32, {1, 1, 1}, {5}), {1, 2, 1}));
  EXPECT_UNPREDICTABLE(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {1, 1}, {-1}),
                               Ints(DType::I32, {1, 1, 1}, {5}), {1, 2, 1}));
}

TEST(ScatterTest, ShapeAndTypeErrors) {
  // input must be [N,W,C]
  EXPECT_SPEC_ERROR(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {1, 1}, {0}),
                            Ints(DType::I32, {1, 1, 2}, {5, 6}), {1, 2, 1}));
  // values_out must have the shape of values_in
  EXPECT_SPEC_ERROR(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {1, 1}, {0}),
                            Ints(DType::I32, {1, 1, 1}, {5}), {1, 3, 1}));
  // indices N must match
  EXPECT_SPEC_ERROR(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {2, 1}, {0, 0}),
                            Ints(DType::I32, {2, 1, 1}, {5, 6}), {1, 2, 1}));
  // input must share in_out_t with values_in
  EXPECT_SPEC_ERROR(scatter(Ints(DType::I32, {1, 2, 1}, {1, 2}), Ints(DType::I32, {1, 1}, {0}),
                            Ints(DType::I16, {1, 1, 1}, {5}), {1, 2, 1}));
}

}  // namespace
}  // namespace tosakit::testing
