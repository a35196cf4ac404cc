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

// The case must import and run, and its MLIR must pass upstream mlir-opt-22's parser and TOSA verifiers.
::testing::AssertionResult passesAndVerifies(const std::string& caseName, const std::set<int>& bind = {}) {
  auto r = runNodeCase(caseName, bind);
  if (!r) return r;
  if (std::system("command -v mlir-opt-22 >/dev/null 2>&1") != 0) return r;
  namespace fs = std::filesystem;
  fs::path dir = fs::path(kOnnxNodeDataDir) / caseName;
  onnx::OnnxImportOptions opts;
  for (int i = 0; fs::exists(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")); ++i) {
    if (!bind.count(i)) continue;
    auto t = onnx::loadOnnxTensor((dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb")).string());
    if (!t) return ::testing::AssertionFailure() << t.status().toString();
    opts.bindInputs[t->first] = t->second;
  }
  auto m = onnx::importOnnx((dir / "model.onnx").string(), opts);
  if (!m) return ::testing::AssertionFailure() << m.status().toString();
  std::string mlir = tempPath(caseName + ".mlir"), err = tempPath(caseName + ".err");
  if (!saveModel(**m, mlir).isOk()) return ::testing::AssertionFailure() << "cannot save " << mlir;
  int rc = std::system(("mlir-opt-22 '" + mlir + "' -o /dev/null 2>'" + err + "'").c_str());
  std::ifstream es(err);
  std::string errors((std::istreambuf_iterator<char>(es)), std::istreambuf_iterator<char>());
  fs::remove(mlir);
  fs::remove(err);
  if (rc != 0) return ::testing::AssertionFailure() << caseName << ": mlir-opt-22: " << errors;
  return r;
}

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
TEST(OnnxTensor, RangeInt32NegativeDelta) { EXPECT_TRUE(runNodeCase("test_range_int32_type_negative_delta", {0, 1, 2})); }
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
TEST(OnnxTensor, ReshapeExtendedDims) { EXPECT_TRUE(passesAndVerifies("test_reshape_extended_dims", {1})); }
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
  for (const char* c : {"test_concat_1d_axis_0", "test_concat_1d_axis_negative_1", "test_concat_2d_axis_0",
                        "test_concat_2d_axis_1", "test_concat_2d_axis_negative_1", "test_concat_2d_axis_negative_2",
                        "test_concat_3d_axis_0", "test_concat_3d_axis_1", "test_concat_3d_axis_2",
                        "test_concat_3d_axis_negative_1", "test_concat_3d_axis_negative_2",
                        "test_concat_3d_axis_negative_3"})
    EXPECT_TRUE(runNodeCase(c));
}

// ---- slice / split ----
TEST(OnnxTensor, Slice) { EXPECT_TRUE(passesAndVerifies("test_slice", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceDefaultAxes) { EXPECT_TRUE(runNodeCase("test_slice_default_axes", {1, 2})); }
TEST(OnnxTensor, SliceDefaultSteps) { EXPECT_TRUE(runNodeCase("test_slice_default_steps", {1, 2, 3})); }
TEST(OnnxTensor, SliceEndOutOfBounds) { EXPECT_TRUE(runNodeCase("test_slice_end_out_of_bounds", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceNeg) { EXPECT_TRUE(runNodeCase("test_slice_neg", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceNegSteps) { EXPECT_TRUE(passesAndVerifies("test_slice_neg_steps", {1, 2, 3, 4})); }
TEST(OnnxTensor, SliceNegativeAxes) { EXPECT_TRUE(runNodeCase("test_slice_negative_axes", {1, 2, 3})); }
// A run-time slice whose result has a zero dim: TOSA tensors have no empty dims.
TEST(OnnxTensor, SliceToZeroSizeIsUnsupported) {
  EXPECT_TRUE(rejected("test_slice_start_out_of_bounds", {1, 2, 3, 4}, "zero-size"));
}
TEST(OnnxTensor, SplitEqualParts1d) { EXPECT_TRUE(runNodeCase("test_split_equal_parts_1d")); }
TEST(OnnxTensor, SplitEqualParts2d) { EXPECT_TRUE(runNodeCase("test_split_equal_parts_2d")); }
TEST(OnnxTensor, SplitEqualPartsDefaultAxis) { EXPECT_TRUE(runNodeCase("test_split_equal_parts_default_axis")); }
TEST(OnnxTensor, SplitVariableParts1d) { EXPECT_TRUE(runNodeCase("test_split_variable_parts_1d", {1})); }
TEST(OnnxTensor, SplitVariableParts2d) { EXPECT_TRUE(passesAndVerifies("test_split_variable_parts_2d", {1})); }
TEST(OnnxTensor, SplitVariablePartsDefaultAxis) { EXPECT_TRUE(runNodeCase("test_split_variable_parts_default_axis", {1})); }

// ---- pad / tile / expand ----
TEST(OnnxTensor, ConstantPad) { EXPECT_TRUE(passesAndVerifies("test_constant_pad", {1, 2})); }
TEST(OnnxTensor, EdgePadInt32) { EXPECT_TRUE(passesAndVerifies("test_edge_pad", {1})); }
TEST(OnnxTensor, ReflectPadInt32) { EXPECT_TRUE(passesAndVerifies("test_reflect_pad", {1})); }
TEST(OnnxTensor, Tile) { EXPECT_TRUE(passesAndVerifies("test_tile", {1})); }
TEST(OnnxTensor, TilePrecomputed) { EXPECT_TRUE(runNodeCase("test_tile_precomputed", {1})); }
TEST(OnnxTensor, ExpandDimChanged) { EXPECT_TRUE(passesAndVerifies("test_expand_dim_changed", {1})); }
TEST(OnnxTensor, ExpandDimUnchanged) { EXPECT_TRUE(runNodeCase("test_expand_dim_unchanged", {1})); }

// ---- gathers: run-time indices, and constant ones (slices) ----
TEST(OnnxTensor, Gather0) { EXPECT_TRUE(passesAndVerifies("test_gather_0")); }
TEST(OnnxTensor, Gather1) { EXPECT_TRUE(runNodeCase("test_gather_1")); }
TEST(OnnxTensor, Gather2dIndices) { EXPECT_TRUE(runNodeCase("test_gather_2d_indices")); }
TEST(OnnxTensor, GatherNegativeIndices) { EXPECT_TRUE(runNodeCase("test_gather_negative_indices")); }
TEST(OnnxTensor, Gather0ConstantIndices) { EXPECT_TRUE(passesAndVerifies("test_gather_0", {1})); }
TEST(OnnxTensor, Gather1ConstantIndices) { EXPECT_TRUE(runNodeCase("test_gather_1", {1})); }
TEST(OnnxTensor, GatherNegativeConstantIndices) { EXPECT_TRUE(runNodeCase("test_gather_negative_indices", {1})); }
TEST(OnnxTensor, GatherElements0) { EXPECT_TRUE(passesAndVerifies("test_gather_elements_0")); }
TEST(OnnxTensor, GatherElements1) { EXPECT_TRUE(runNodeCase("test_gather_elements_1")); }
TEST(OnnxTensor, GatherElementsNegativeIndices) { EXPECT_TRUE(runNodeCase("test_gather_elements_negative_indices")); }
TEST(OnnxTensor, GatherElementsConstantIndices) { EXPECT_TRUE(runNodeCase("test_gather_elements_negative_indices", {1})); }
TEST(OnnxTensor, GatherNDFloat32) { EXPECT_TRUE(passesAndVerifies("test_gathernd_example_float32")); }
TEST(OnnxTensor, GatherNDInt32) { EXPECT_TRUE(runNodeCase("test_gathernd_example_int32")); }
TEST(OnnxTensor, GatherNDInt32BatchDim1) { EXPECT_TRUE(runNodeCase("test_gathernd_example_int32_batch_dim1")); }

// ---- scatters ----
TEST(OnnxTensor, ScatterElementsWithAxis) { EXPECT_TRUE(passesAndVerifies("test_scatter_elements_with_axis")); }
TEST(OnnxTensor, ScatterElementsWithoutAxis) { EXPECT_TRUE(runNodeCase("test_scatter_elements_without_axis")); }
TEST(OnnxTensor, ScatterElementsNegativeIndices) { EXPECT_TRUE(runNodeCase("test_scatter_elements_with_negative_indices")); }
// reduction = add with a repeated index: a one-hot mask and REDUCE_SUM (tosa.scatter may not write twice).
TEST(OnnxTensor, ScatterElementsDuplicateIndicesAdd) {
  EXPECT_TRUE(passesAndVerifies("test_scatter_elements_with_duplicate_indices"));
}
TEST(OnnxTensor, ScatterWithAxis) { EXPECT_TRUE(runNodeCase("test_scatter_with_axis")); }
TEST(OnnxTensor, ScatterWithoutAxis) { EXPECT_TRUE(runNodeCase("test_scatter_without_axis")); }
TEST(OnnxTensor, ScatterND) { EXPECT_TRUE(passesAndVerifies("test_scatternd")); }
TEST(OnnxTensor, ScatterNDAdd) { EXPECT_TRUE(runNodeCase("test_scatternd_add")); }
TEST(OnnxTensor, ScatterNDMultiply) { EXPECT_TRUE(passesAndVerifies("test_scatternd_multiply")); }

// ---- depth/space ----
TEST(OnnxTensor, DepthToSpaceCrd) { EXPECT_TRUE(passesAndVerifies("test_depthtospace_crd_mode")); }
TEST(OnnxTensor, DepthToSpaceCrdExample) { EXPECT_TRUE(runNodeCase("test_depthtospace_crd_mode_example")); }
TEST(OnnxTensor, DepthToSpaceDcr) { EXPECT_TRUE(runNodeCase("test_depthtospace_dcr_mode")); }
TEST(OnnxTensor, DepthToSpaceExample) { EXPECT_TRUE(runNodeCase("test_depthtospace_example")); }
TEST(OnnxTensor, SpaceToDepth) { EXPECT_TRUE(passesAndVerifies("test_spacetodepth")); }
TEST(OnnxTensor, SpaceToDepthExample) { EXPECT_TRUE(runNodeCase("test_spacetodepth_example")); }

// ---- compress / onehot / trilu / reverse sequence ----
TEST(OnnxTensor, Compress0) { EXPECT_TRUE(passesAndVerifies("test_compress_0", {1})); }
TEST(OnnxTensor, Compress1) { EXPECT_TRUE(runNodeCase("test_compress_1", {1})); }
TEST(OnnxTensor, CompressDefaultAxis) { EXPECT_TRUE(runNodeCase("test_compress_default_axis", {1})); }
TEST(OnnxTensor, CompressNegativeAxis) { EXPECT_TRUE(runNodeCase("test_compress_negative_axis", {1})); }
TEST(OnnxTensor, CompressRunTimeConditionIsUnsupported) {
  EXPECT_TRUE(rejected("test_compress_0", {}, "run-time condition"));
}
TEST(OnnxTensor, OneHotNegativeIndices) { EXPECT_TRUE(passesAndVerifies("test_onehot_negative_indices", {1})); }
TEST(OnnxTensor, OneHotWithAxis) { EXPECT_TRUE(runNodeCase("test_onehot_with_axis", {1})); }
TEST(OnnxTensor, OneHotWithNegativeAxis) { EXPECT_TRUE(runNodeCase("test_onehot_with_negative_axis", {1})); }
TEST(OnnxTensor, OneHotWithoutAxis) { EXPECT_TRUE(runNodeCase("test_onehot_without_axis", {1})); }
TEST(OnnxTensor, Tril) { EXPECT_TRUE(passesAndVerifies("test_tril")); }
TEST(OnnxTensor, TrilK) {
  for (const char* c : {"test_tril_neg", "test_tril_out_neg", "test_tril_out_pos", "test_tril_pos", "test_tril_square_neg"})
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
TEST(OnnxTensor, ReverseSequenceBatch) { EXPECT_TRUE(passesAndVerifies("test_reversesequence_batch")); }
TEST(OnnxTensor, ReverseSequenceTime) { EXPECT_TRUE(runNodeCase("test_reversesequence_time")); }

// ---- forms TOSA 1.0 cannot express ----
TEST(OnnxTensor, RangeRunTimeBoundsIsUnsupported) {
  EXPECT_TRUE(rejected("test_range_float_type_positive_delta", {}, "run-time start/limit/delta"));
}
TEST(OnnxTensor, EyeLikeFloat64IsUnsupported) {
  EXPECT_TRUE(rejected("test_eyelike_with_dtype", {}, "no TOSA 1.0 equivalent"));
}
TEST(OnnxTensor, TrainingDropoutIsUnsupported) { EXPECT_TRUE(rejected("test_training_dropout", {1, 2}, "training mode")); }

}  // namespace
}  // namespace tosakit::onnxtest
