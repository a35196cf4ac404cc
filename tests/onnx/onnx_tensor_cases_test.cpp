// Tensor / shape / data-movement operators against the ONNX backend node test data (independent oracle: ONNX's
// reference implementation). Inputs that determine shapes or attributes (Reshape's shape, Slice's
// starts/ends/axes/steps, Pad's pads and value, Tile repeats, Expand shape, Split sizes, Squeeze/Unsqueeze
// axes, OneHot depth, Trilu k, Range bounds, Compress condition) are bound; data and run-time indices
// (Gather*, Scatter*, ReverseSequence's sequence_lens, OneHot's indices and values) stay run-time inputs.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "onnx_node_case.h"
#include "onnx_test_util.h"
#include "tosakit/model_io.h"

namespace tosakit::onnxtest {
namespace {

// The case must fail to import with a message containing `reason`.
::testing::AssertionResult rejected(const std::string& caseName, const std::set<int>& bind, const std::string& reason) {
  auto r = runNodeCase(caseName, bind);
  if (r) return ::testing::AssertionFailure() << caseName << " passed, expected it to be rejected";
  std::string msg = r.message();
  if (msg.find(reason) == std::string::npos)
    return ::testing::AssertionFailure() << caseName << ": message lacks '" << reason << "': " << msg;
  return ::testing::AssertionSuccess();
}

// ---- constants and shape queries (folded at import) ----
TEST(OnnxTensor, Constant) { EXPECT_TRUE(runNodeCase("test_constant")); }
TEST(OnnxTensor, ConstantOfShapeFloatOnes) { EXPECT_TRUE(runNodeCase("test_constantofshape_float_ones", {0})); }
TEST(OnnxTensor, ConstantOfShapeIntZeros) { EXPECT_TRUE(runNodeCase("test_constantofshape_int_zeros", {0})); }
TEST(OnnxTensor, Shape) { EXPECT_TRUE(runNodeCase("test_shape")); }
TEST(OnnxTensor, ShapeExample) { EXPECT_TRUE(runNodeCase("test_shape_example")); }
TEST(OnnxTensor, ShapeClipEnd) { EXPECT_TRUE(runNodeCase("test_shape_clip_end")); }
TEST(OnnxTensor, ShapeClipStart) { EXPECT_TRUE(runNodeCase("test_shape_clip_start")); }
TEST(OnnxTensor, ShapeEnd1) { EXPECT_TRUE(runNodeCase("test_shape_end_1")); }
TEST(OnnxTensor, ShapeEndNegative1) { EXPECT_TRUE(runNodeCase("test_shape_end_negative_1")); }
TEST(OnnxTensor, ShapeStart1) { EXPECT_TRUE(runNodeCase("test_shape_start_1")); }
TEST(OnnxTensor, ShapeStart1End2) { EXPECT_TRUE(runNodeCase("test_shape_start_1_end_2")); }
TEST(OnnxTensor, ShapeStart1EndNegative1) { EXPECT_TRUE(runNodeCase("test_shape_start_1_end_negative_1")); }
TEST(OnnxTensor, ShapeStartNegative1) { EXPECT_TRUE(runNodeCase("test_shape_start_negative_1")); }
TEST(OnnxTensor, Size) { EXPECT_TRUE(runNodeCase("test_size")); }
TEST(OnnxTensor, SizeExample) { EXPECT_TRUE(runNodeCase("test_size_example")); }
TEST(OnnxTensor, RangeFloat) { EXPECT_TRUE(runNodeCase("test_range_float_type_positive_delta", {0, 1, 2})); }
TEST(OnnxTensor, RangeInt32NegativeDelta) {
  EXPECT_TRUE(runNodeCase("test_range_int32_type_negative_delta", {0, 1, 2}));
}
TEST(OnnxTensor, EyeLikeOffDiagonal) { EXPECT_TRUE(runNodeCase("test_eyelike_populate_off_main_diagonal")); }
TEST(OnnxTensor, EyeLikeWithoutDtype) { EXPECT_TRUE(runNodeCase("test_eyelike_without_dtype")); }

// ---- identity / dropout (inference) ----
TEST(OnnxTensor, Identity) { EXPECT_TRUE(runNodeCase("test_identity")); }
TEST(OnnxTensor, DropoutDefault) { EXPECT_TRUE(runNodeCase("test_dropout_default")); }
TEST(OnnxTensor, DropoutDefaultMask) { EXPECT_TRUE(runNodeCase("test_dropout_default_mask")); }
TEST(OnnxTensor, DropoutDefaultMaskRatio) { EXPECT_TRUE(runNodeCase("test_dropout_default_mask_ratio", {1})); }
TEST(OnnxTensor, DropoutDefaultOld) { EXPECT_TRUE(runNodeCase("test_dropout_default_old")); }
TEST(OnnxTensor, DropoutDefaultRatio) { EXPECT_TRUE(runNodeCase("test_dropout_default_ratio", {1})); }
TEST(OnnxTensor, DropoutRandomOld) { EXPECT_TRUE(runNodeCase("test_dropout_random_old")); }
TEST(OnnxTensor, TrainingDropoutZeroRatio) { EXPECT_TRUE(runNodeCase("test_training_dropout_zero_ratio", {1, 2})); }
TEST(OnnxTensor, TrainingDropoutZeroRatioMask) {
  EXPECT_TRUE(runNodeCase("test_training_dropout_zero_ratio_mask", {1, 2}));
}

// ---- reshape family ----
TEST(OnnxTensor, ReshapeExtendedDims) { EXPECT_TRUE(runNodeCaseVerified("test_reshape_extended_dims", {1})); }
TEST(OnnxTensor, ReshapeNegativeDim) { EXPECT_TRUE(runNodeCase("test_reshape_negative_dim", {1})); }
TEST(OnnxTensor, ReshapeNegativeExtendedDims) { EXPECT_TRUE(runNodeCase("test_reshape_negative_extended_dims", {1})); }
TEST(OnnxTensor, ReshapeOneDim) { EXPECT_TRUE(runNodeCase("test_reshape_one_dim", {1})); }
TEST(OnnxTensor, ReshapeReducedDims) { EXPECT_TRUE(runNodeCase("test_reshape_reduced_dims", {1})); }
TEST(OnnxTensor, ReshapeReorderedAllDims) { EXPECT_TRUE(runNodeCase("test_reshape_reordered_all_dims", {1})); }
TEST(OnnxTensor, ReshapeReorderedLastDims) { EXPECT_TRUE(runNodeCase("test_reshape_reordered_last_dims", {1})); }
TEST(OnnxTensor, ReshapeZeroAndNegativeDim) { EXPECT_TRUE(runNodeCase("test_reshape_zero_and_negative_dim", {1})); }
TEST(OnnxTensor, ReshapeZeroDim) { EXPECT_TRUE(runNodeCase("test_reshape_zero_dim", {1})); }
TEST(OnnxTensor, FlattenAxis0) { EXPECT_TRUE(runNodeCase("test_flatten_axis0")); }
TEST(OnnxTensor, FlattenAxis1) { EXPECT_TRUE(runNodeCase("test_flatten_axis1")); }
TEST(OnnxTensor, FlattenAxis2) { EXPECT_TRUE(runNodeCase("test_flatten_axis2")); }
TEST(OnnxTensor, FlattenAxis3) { EXPECT_TRUE(runNodeCase("test_flatten_axis3")); }
TEST(OnnxTensor, FlattenDefaultAxis) { EXPECT_TRUE(runNodeCase("test_flatten_default_axis")); }
TEST(OnnxTensor, FlattenNegativeAxis1) { EXPECT_TRUE(runNodeCase("test_flatten_negative_axis1")); }
TEST(OnnxTensor, FlattenNegativeAxis2) { EXPECT_TRUE(runNodeCase("test_flatten_negative_axis2")); }
TEST(OnnxTensor, FlattenNegativeAxis3) { EXPECT_TRUE(runNodeCase("test_flatten_negative_axis3")); }
TEST(OnnxTensor, FlattenNegativeAxis4) { EXPECT_TRUE(runNodeCase("test_flatten_negative_axis4")); }
TEST(OnnxTensor, Squeeze) { EXPECT_TRUE(runNodeCase("test_squeeze", {1})); }
TEST(OnnxTensor, SqueezeNegativeAxes) { EXPECT_TRUE(runNodeCase("test_squeeze_negative_axes", {1})); }
TEST(OnnxTensor, UnsqueezeAxis0) { EXPECT_TRUE(runNodeCase("test_unsqueeze_axis_0", {1})); }
TEST(OnnxTensor, UnsqueezeAxis1) { EXPECT_TRUE(runNodeCase("test_unsqueeze_axis_1", {1})); }
TEST(OnnxTensor, UnsqueezeAxis2) { EXPECT_TRUE(runNodeCase("test_unsqueeze_axis_2", {1})); }
TEST(OnnxTensor, UnsqueezeAxis3Opset11) { EXPECT_TRUE(runNodeCase("test_unsqueeze_axis_3")); }
TEST(OnnxTensor, UnsqueezeNegativeAxes) { EXPECT_TRUE(runNodeCase("test_unsqueeze_negative_axes", {1})); }
TEST(OnnxTensor, UnsqueezeThreeAxes) { EXPECT_TRUE(runNodeCase("test_unsqueeze_three_axes", {1})); }
TEST(OnnxTensor, UnsqueezeTwoAxes) { EXPECT_TRUE(runNodeCase("test_unsqueeze_two_axes", {1})); }
TEST(OnnxTensor, UnsqueezeUnsortedAxes) { EXPECT_TRUE(runNodeCase("test_unsqueeze_unsorted_axes", {1})); }

// ---- transpose / concat ----
TEST(OnnxTensor, TransposeDefault) { EXPECT_TRUE(runNodeCase("test_transpose_default")); }
TEST(OnnxTensor, TransposeAllPermutations) {
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(runNodeCase("test_transpose_all_permutations_" + std::to_string(i)));
}
TEST(OnnxTensor, Concat) {
  for (const char* c :
       {"test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0", "test_concat_2d_axis_1",
        "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2", "test_concat_3d_axis_0",
        "test_concat_3d_axis_1", "test_concat_3d_axis_2", "test_concat_3d_axis_negative_1",
        "test_concat_3d_axis_negative_2", "test_concat_3d_axis_negative_3"})
    EXPECT_TRUE(runNodeCase(c));
}

// ---- slice / split ----
TEST(OnnxTensor, Slice) { EXPECT_TRUE(runNodeCaseVerified("test_slice", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceDefaultAxes) { EXPECT_TRUE(runNodeCase("test_slice_default_axes", {1, 2})); }
TEST(OnnxTensor, SliceDefaultSteps) { EXPECT_TRUE(runNodeCase("test_slice_default_steps", {1, 2, 3})); }
TEST(OnnxTensor, SliceEndOutOfBounds) { EXPECT_TRUE(runNodeCase("test_slice_end_out_of_bounds", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceNeg) { EXPECT_TRUE(runNodeCase("test_slice_neg", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceNegSteps) { EXPECT_TRUE(runNodeCaseVerified("test_slice_neg_steps", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceNegativeAxes) { EXPECT_TRUE(runNodeCase("test_slice_negative_axes", {1, 2, 3})); }
// A run-time slice whose result has a zero dim: TOSA tensors have no empty dims.
TEST(OnnxTensor, SliceToZeroSizeIsUnsupported) {
  EXPECT_TRUE(rejected("test_slice_start_out_of_bounds", {1, 2, 3, 4}, "zero-size"));
}
TEST(OnnxTensor, SplitEqualParts1d) { EXPECT_TRUE(runNodeCase("test_split_equal_parts_1d")); }
TEST(OnnxTensor, SplitEqualParts2d) { EXPECT_TRUE(runNodeCase("test_split_equal_parts_2d")); }
TEST(OnnxTensor, SplitEqualPartsDefaultAxis) { EXPECT_TRUE(runNodeCase("test_split_equal_parts_default_axis")); }
TEST(OnnxTensor, SplitVariableParts1d) { EXPECT_TRUE(runNodeCase("test_split_variable_parts_1d", {1})); }
TEST(OnnxTensor, SplitVariableParts2d) { EXPECT_TRUE(runNodeCaseVerified("test_split_variable_parts_2d", {1})); }
TEST(OnnxTensor, SplitVariablePartsDefaultAxis) {
  EXPECT_TRUE(runNodeCase("test_split_variable_parts_default_axis", {1}));
}

// ---- pad / tile / expand ----
TEST(OnnxTensor, ConstantPad) { EXPECT_TRUE(runNodeCaseVerified("test_constant_pad", {1, 2})); }
TEST(OnnxTensor, EdgePadInt32) { EXPECT_TRUE(runNodeCaseVerified("test_edge_pad", {1})); }
TEST(OnnxTensor, ReflectPadInt32) { EXPECT_TRUE(runNodeCaseVerified("test_reflect_pad", {1})); }
TEST(OnnxTensor, Tile) { EXPECT_TRUE(runNodeCaseVerified("test_tile", {1})); }
TEST(OnnxTensor, TilePrecomputed) { EXPECT_TRUE(runNodeCase("test_tile_precomputed", {1})); }
TEST(OnnxTensor, ExpandDimChanged) { EXPECT_TRUE(runNodeCaseVerified("test_expand_dim_changed", {1})); }
TEST(OnnxTensor, ExpandDimUnchanged) { EXPECT_TRUE(runNodeCase("test_expand_dim_unchanged", {1})); }

// ---- gathers: run-time indices, and constant ones (slices) ----
TEST(OnnxTensor, Gather0) { EXPECT_TRUE(runNodeCaseVerified("test_gather_0")); }
TEST(OnnxTensor, Gather1) { EXPECT_TRUE(runNodeCase("test_gather_1")); }
TEST(OnnxTensor, Gather2dIndices) { EXPECT_TRUE(runNodeCase("test_gather_2d_indices")); }
TEST(OnnxTensor, GatherNegativeIndices) { EXPECT_TRUE(runNodeCase("test_gather_negative_indices")); }
TEST(OnnxTensor, Gather0ConstantIndices) { EXPECT_TRUE(runNodeCaseVerified("test_gather_0", {1})); }
TEST(OnnxTensor, Gather1ConstantIndices) { EXPECT_TRUE(runNodeCase("test_gather_1", {1})); }
TEST(OnnxTensor, GatherNegativeConstantIndices) { EXPECT_TRUE(runNodeCase("test_gather_negative_indices", {1})); }
TEST(OnnxTensor, GatherElements0) { EXPECT_TRUE(runNodeCaseVerified("test_gather_elements_0")); }
TEST(OnnxTensor, GatherElements1) { EXPECT_TRUE(runNodeCase("test_gather_elements_1")); }
TEST(OnnxTensor, GatherElementsNegativeIndices) { EXPECT_TRUE(runNodeCase("test_gather_elements_negative_indices")); }
TEST(OnnxTensor, GatherElementsConstantIndices) {
  EXPECT_TRUE(runNodeCase("test_gather_elements_negative_indices", {1}));
}
TEST(OnnxTensor, GatherNDFloat32) { EXPECT_TRUE(runNodeCaseVerified("test_gathernd_example_float32")); }
TEST(OnnxTensor, GatherNDInt32) { EXPECT_TRUE(runNodeCase("test_gathernd_example_int32")); }
TEST(OnnxTensor, GatherNDInt32BatchDim1) { EXPECT_TRUE(runNodeCase("test_gathernd_example_int32_batch_dim1")); }

// ---- scatters ----
TEST(OnnxTensor, ScatterElementsWithAxis) { EXPECT_TRUE(runNodeCaseVerified("test_scatter_elements_with_axis")); }
TEST(OnnxTensor, ScatterElementsWithoutAxis) { EXPECT_TRUE(runNodeCase("test_scatter_elements_without_axis")); }
TEST(OnnxTensor, ScatterElementsNegativeIndices) {
  EXPECT_TRUE(runNodeCase("test_scatter_elements_with_negative_indices"));
}
// reduction = add with a repeated index: a one-hot mask and REDUCE_SUM (tosa.scatter may not write twice).
TEST(OnnxTensor, ScatterElementsDuplicateIndicesAdd) {
  EXPECT_TRUE(runNodeCaseVerified("test_scatter_elements_with_duplicate_indices"));
}
TEST(OnnxTensor, ScatterWithAxis) { EXPECT_TRUE(runNodeCase("test_scatter_with_axis")); }
TEST(OnnxTensor, ScatterWithoutAxis) { EXPECT_TRUE(runNodeCase("test_scatter_without_axis")); }
TEST(OnnxTensor, ScatterND) { EXPECT_TRUE(runNodeCaseVerified("test_scatternd")); }
TEST(OnnxTensor, ScatterNDAdd) { EXPECT_TRUE(runNodeCase("test_scatternd_add")); }
TEST(OnnxTensor, ScatterNDMultiply) { EXPECT_TRUE(runNodeCaseVerified("test_scatternd_multiply")); }

// ---- depth/space ----
TEST(OnnxTensor, DepthToSpaceCrd) { EXPECT_TRUE(runNodeCaseVerified("test_depthtospace_crd_mode")); }
TEST(OnnxTensor, DepthToSpaceCrdExample) { EXPECT_TRUE(runNodeCase("test_depthtospace_crd_mode_example")); }
TEST(OnnxTensor, DepthToSpaceDcr) { EXPECT_TRUE(runNodeCase("test_depthtospace_dcr_mode")); }
TEST(OnnxTensor, DepthToSpaceExample) { EXPECT_TRUE(runNodeCase("test_depthtospace_example")); }
TEST(OnnxTensor, SpaceToDepth) { EXPECT_TRUE(runNodeCaseVerified("test_spacetodepth")); }
TEST(OnnxTensor, SpaceToDepthExample) { EXPECT_TRUE(runNodeCase("test_spacetodepth_example")); }

// ---- compress / onehot / trilu / reverse sequence ----
TEST(OnnxTensor, Compress0) { EXPECT_TRUE(runNodeCaseVerified("test_compress_0", {1})); }
TEST(OnnxTensor, Compress1) { EXPECT_TRUE(runNodeCase("test_compress_1", {1})); }
TEST(OnnxTensor, CompressDefaultAxis) { EXPECT_TRUE(runNodeCase("test_compress_default_axis", {1})); }
TEST(OnnxTensor, CompressNegativeAxis) { EXPECT_TRUE(runNodeCase("test_compress_negative_axis", {1})); }
TEST(OnnxTensor, CompressRunTimeConditionIsUnsupported) {
  EXPECT_TRUE(rejected("test_compress_0", {}, "run-time condition"));
}
TEST(OnnxTensor, OneHotNegativeIndices) { EXPECT_TRUE(runNodeCaseVerified("test_onehot_negative_indices", {1})); }
TEST(OnnxTensor, OneHotWithAxis) { EXPECT_TRUE(runNodeCase("test_onehot_with_axis", {1})); }
TEST(OnnxTensor, OneHotWithNegativeAxis) { EXPECT_TRUE(runNodeCase("test_onehot_with_negative_axis", {1})); }
TEST(OnnxTensor, OneHotWithoutAxis) { EXPECT_TRUE(runNodeCase("test_onehot_without_axis", {1})); }
TEST(OnnxTensor, Tril) { EXPECT_TRUE(runNodeCaseVerified("test_tril")); }
TEST(OnnxTensor, TrilK) {
  for (const char* c :
       {"test_tril_neg", "test_tril_out_neg", "test_tril_out_pos", "test_tril_pos", "test_tril_square_neg"})
    EXPECT_TRUE(runNodeCase(c, {1}));
}
TEST(OnnxTensor, TrilNoK) {
  for (const char* c : {"test_tril_one_row_neg", "test_tril_square"}) EXPECT_TRUE(runNodeCase(c));
}
TEST(OnnxTensor, Triu) { EXPECT_TRUE(runNodeCase("test_triu")); }
TEST(OnnxTensor, TriuK) {
  for (const char* c : {"test_triu_neg", "test_triu_one_row", "test_triu_out_neg_out", "test_triu_out_pos",
                        "test_triu_pos", "test_triu_square_neg"})
    EXPECT_TRUE(runNodeCase(c, {1}));
}
TEST(OnnxTensor, TriuSquare) { EXPECT_TRUE(runNodeCase("test_triu_square")); }
TEST(OnnxTensor, ReverseSequenceBatch) { EXPECT_TRUE(runNodeCaseVerified("test_reversesequence_batch")); }
TEST(OnnxTensor, ReverseSequenceTime) { EXPECT_TRUE(runNodeCase("test_reversesequence_time")); }

// ---- forms TOSA 1.0 cannot express ----
TEST(OnnxTensor, RangeRunTimeBoundsIsUnsupported) {
  EXPECT_TRUE(rejected("test_range_float_type_positive_delta", {}, "run-time start/limit/delta"));
}
TEST(OnnxTensor, EyeLikeFloat64IsUnsupported) {
  EXPECT_TRUE(rejected("test_eyelike_with_dtype", {}, "no TOSA 1.0 equivalent"));
}
TEST(OnnxTensor, TrainingDropoutIsUnsupported) {
  EXPECT_TRUE(rejected("test_training_dropout", {1, 2}, "training mode"));
}

// ---- element types other than float32 (hand-built models; expected values worked out in the comments) ----

Pb typedInfo(const std::string& name, const std::vector<int64_t>& dims, int elemType) {
  return Pb().bytes(1, name).msg(2, tensorType(dims, elemType));
}

// Imports `g` and runs it on `inputs`; returns output 0.
Result<Tensor> runHandBuilt(const Pb& g, NamedTensors inputs, int opset = 13) {
  auto m = onnx::importOnnxBytes(model(g, opset), "hand.onnx");
  if (!m) return m.status();
  auto s = Session::create(std::move(*m));
  if (!s) return s.status();
  RunResult r;
  Status st = (*s)->run(inputs, r);
  if (!st.isOk()) return st;
  return r.outputs.at(0).second;
}

// uint8 (carried as i8 bits) through Transpose and a negative-step Slice:
// x = [[1, 2, 200], [250, 5, 6]]; transpose -> [[1, 250], [2, 5], [200, 6]]; rows reversed (step -1) ->
// [[200, 6], [2, 5], [1, 250]]. 200 and 250 are the i8 bits -56 and -6.
TEST(OnnxTensorTypes, Uint8TransposeAndReversingSlice) {
  Pb g;
  g.msg(1, node({"Transpose", "t", {"x"}, {"t"}, {intsAttr("perm", {1, 0})}}));
  g.msg(1, node({"Slice", "s", {"t", "st", "en", "ax", "sp"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("st", {1}, {-1}));
  g.msg(5, int64Tensor("en", {1}, {-100}));
  g.msg(5, int64Tensor("ax", {1}, {0}));
  g.msg(5, int64Tensor("sp", {1}, {-1}));
  g.msg(11, typedInfo("x", {2, 3}, 2 /*UINT8*/));
  g.msg(12, typedInfo("y", {3, 2}, 2));
  auto y = runHandBuilt(g, {{"x", Tensor::fromInts(DType::I8, {2, 3}, {1, 2, -56, -6, 5, 6})}});
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  EXPECT_EQ(y->dtype(), DType::I8);
  EXPECT_EQ(y->toInts(), (std::vector<int64_t>{-56, 6, 2, 5, 1, -6}));
}

// bool data, run-time int64 indices (one negative): data = [T, F, F, T], indices = [-1, 1, 0] -> [T, F, T].
TEST(OnnxTensorTypes, BoolGatherRunTimeIndices) {
  Pb g;
  g.msg(1, node({"Gather", "g", {"d", "i"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(11, typedInfo("d", {4}, 9 /*BOOL*/));
  g.msg(11, typedInfo("i", {3}, 7 /*INT64*/));
  g.msg(12, typedInfo("y", {3}, 9));
  auto y = runHandBuilt(
      g,
      {{"d", Tensor::fromInts(DType::Bool, {4}, {1, 0, 0, 1})}, {"i", Tensor::fromInts(DType::I32, {3}, {-1, 1, 0})}});
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  EXPECT_EQ(y->dtype(), DType::Bool);
  EXPECT_EQ(y->toInts(), (std::vector<int64_t>{1, 0, 1}));
}

// int64 run-time data (i32 at run time) concatenated with an int64 constant, then reshaped and padded (edge):
// concat([[7, 8]], [[1, 2]]) on axis 0 = [[7, 8], [1, 2]] -> reshape [4] = [7, 8, 1, 2] -> edge pad (1, 2) =
// [7, 7, 8, 1, 2, 2, 2].
TEST(OnnxTensorTypes, Int64ConcatReshapeEdgePad) {
  Pb g;
  g.msg(1, node({"Concat", "c", {"x", "k"}, {"c"}, {intAttr("axis", 0)}}));
  g.msg(1, node({"Reshape", "r", {"c", "shape"}, {"r"}, {}}));
  g.msg(1, node({"Pad", "p", {"r", "pads"}, {"y"}, {Pb().bytes(1, "mode").bytes(4, "edge").varint(20, 3)}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("k", {1, 2}, {1, 2}));
  g.msg(5, int64Tensor("shape", {1}, {4}));
  g.msg(5, int64Tensor("pads", {2}, {1, 2}));
  g.msg(11, typedInfo("x", {1, 2}, 7));
  g.msg(12, typedInfo("y", {7}, 7));
  auto y = runHandBuilt(g, {{"x", Tensor::fromInts(DType::I32, {1, 2}, {7, 8})}});
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  EXPECT_EQ(y->dtype(), DType::I32);
  EXPECT_EQ(y->toInts(), (std::vector<int64_t>{7, 7, 8, 1, 2, 2, 2}));
}

// float16 through Tile, Expand and a stride-2 Slice: x = [1.5, -2]; tile x3 = [1.5, -2, 1.5, -2, 1.5, -2];
// positions 1, 3, 5 (step 2) = [-2, -2, -2]; expand to [2, 3] repeats that row.
TEST(OnnxTensorTypes, Float16TileStridedSliceExpand) {
  Pb g;
  g.msg(1, node({"Tile", "t", {"x", "reps"}, {"t"}, {}}));
  g.msg(1, node({"Slice", "s", {"t", "st", "en", "ax", "sp"}, {"s"}, {}}));
  g.msg(1, node({"Expand", "e", {"s", "shape"}, {"y"}, {}}));
  g.bytes(2, "g");
  g.msg(5, int64Tensor("reps", {1}, {3}));
  g.msg(5, int64Tensor("st", {1}, {1}));
  g.msg(5, int64Tensor("en", {1}, {6}));
  g.msg(5, int64Tensor("ax", {1}, {0}));
  g.msg(5, int64Tensor("sp", {1}, {2}));
  g.msg(5, int64Tensor("shape", {2}, {2, 1}));
  g.msg(11, typedInfo("x", {2}, 10 /*FLOAT16*/));
  g.msg(12, typedInfo("y", {2, 3}, 10));
  auto y = runHandBuilt(g, {{"x", Tensor::fromDoubles(DType::FP16, {2}, {1.5, -2})}});
  ASSERT_TRUE(y.isOk()) << y.status().toString();
  EXPECT_EQ(y->dtype(), DType::FP16);
  EXPECT_EQ(y->shape(), (Shape{2, 3}));
  EXPECT_EQ(y->toDoubles(), (std::vector<double>{-2, -2, -2, -2, -2, -2}));
}

// int8 ScatterND with reduction 'mul' has no TOSA form (REDUCE_PRODUCT is floating-point only).
TEST(OnnxTensorTypes, IntegerScatterMultiplyIsUnsupported) {
  Pb g;
  g.msg(1,
        node({"ScatterND", "sc", {"d", "i", "u"}, {"y"}, {Pb().bytes(1, "reduction").bytes(4, "mul").varint(20, 3)}}));
  g.bytes(2, "g");
  g.msg(11, typedInfo("d", {4}, 6 /*INT32*/));
  g.msg(11, typedInfo("i", {2, 1}, 7));
  g.msg(11, typedInfo("u", {2}, 6));
  g.msg(12, typedInfo("y", {4}, 6));
  auto m = onnx::importOnnxBytes(model(g, 16), "sc.onnx");
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported);
  EXPECT_NE(m.status().message().find("'sc' (ScatterND): scatter reduction 'mul' on integers"), std::string::npos)
      << m.status().message();
}

// int32 values stay in plain (NCHW) layout: the NCHW forms of DepthToSpace / SpaceToDepth.
// x = 0..7 as [1, 8, 1, 1], blocksize 2 (c = 2 output channels):
//   DCR: out[ci, b1, b2] = x[(b1*2 + b2)*2 + ci] -> ci=0: 0 2 4 6, ci=1: 1 3 5 7
//   CRD: out[ci, b1, b2] = x[ci*4 + b1*2 + b2]   -> 0 1 2 3 4 5 6 7
// SpaceToDepth of x = 0..7 as [1, 2, 2, 2] (c, h, w): out channel (b1*2 + b2)*2 + c holds x[c, b1, b2]
//   -> 0 4 1 5 2 6 3 7.
Result<Tensor> depthSpace(const std::string& op, const std::string& mode, const Shape& in, const Shape& out) {
  Pb g;
  std::vector<Pb> attrs = {intAttr("blocksize", 2)};
  if (!mode.empty()) attrs.push_back(Pb().bytes(1, "mode").bytes(4, mode).varint(20, 3));
  g.msg(1, node({op, "ds", {"x"}, {"y"}, attrs}));
  g.bytes(2, "g");
  g.msg(11, typedInfo("x", in, 6));
  g.msg(12, typedInfo("y", out, 6));
  return runHandBuilt(g, {{"x", Tensor::fromInts(DType::I32, in, {0, 1, 2, 3, 4, 5, 6, 7})}});
}
TEST(OnnxTensorTypes, Int32DepthToSpaceAndSpaceToDepthInNchw) {
  auto dcr = depthSpace("DepthToSpace", "DCR", {1, 8, 1, 1}, {1, 2, 2, 2});
  ASSERT_TRUE(dcr.isOk()) << dcr.status().toString();
  EXPECT_EQ(dcr->toInts(), (std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
  auto crd = depthSpace("DepthToSpace", "CRD", {1, 8, 1, 1}, {1, 2, 2, 2});
  ASSERT_TRUE(crd.isOk()) << crd.status().toString();
  EXPECT_EQ(crd->toInts(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  auto s2d = depthSpace("SpaceToDepth", "", {1, 2, 2, 2}, {1, 8, 1, 1});
  ASSERT_TRUE(s2d.isOk()) << s2d.status().toString();
  EXPECT_EQ(s2d->toInts(), (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
}

}  // namespace
}  // namespace tosakit::onnxtest
