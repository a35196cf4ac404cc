// Reductions, index reductions, scans, TopK and the loss operators against the ONNX backend node test data
// (independent oracle: ONNX's reference implementation). Bound inputs: ReduceSum's axes, CumSum's axis and
// TopK's K (attribute-determining); labels and weights of the losses are run-time data. The node cases of
// ReduceLogSumExp and CumSum are float64, which TOSA 1.0 lacks: they must be rejected, and the float32/int
// forms are checked on hand-built models with expected values computed by hand (in the comments).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>

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

// A float64 node case (TOSA 1.0 has no float64): rejected with that reason.
::testing::AssertionResult rejectedFloat64(const std::string& caseName, const std::set<int>& bind = {}) {
  return rejected(caseName, bind, "no TOSA 1.0 equivalent");
}

// ---- reduce ----
TEST(OnnxReduce, ReduceL1DefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_l1_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceL1DefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_l1_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceL1DoNotKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_l1_do_not_keepdims_example")); }
TEST(OnnxReduce, ReduceL1DoNotKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_l1_do_not_keepdims_random")); }
TEST(OnnxReduce, ReduceL1KeepDimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_l1_keep_dims_example")); }
TEST(OnnxReduce, ReduceL1KeepDimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_l1_keep_dims_random")); }
TEST(OnnxReduce, ReduceL1NegativeAxesKeepDimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_l1_negative_axes_keep_dims_example"));
}
TEST(OnnxReduce, ReduceL1NegativeAxesKeepDimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_l1_negative_axes_keep_dims_random"));
}
TEST(OnnxReduce, ReduceL2DefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_l2_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceL2DefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_l2_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceL2DoNotKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_l2_do_not_keepdims_example")); }
TEST(OnnxReduce, ReduceL2DoNotKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_l2_do_not_keepdims_random")); }
TEST(OnnxReduce, ReduceL2KeepDimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_l2_keep_dims_example")); }
TEST(OnnxReduce, ReduceL2KeepDimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_l2_keep_dims_random")); }
TEST(OnnxReduce, ReduceL2NegativeAxesKeepDimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_l2_negative_axes_keep_dims_example"));
}
TEST(OnnxReduce, ReduceL2NegativeAxesKeepDimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_l2_negative_axes_keep_dims_random"));
}
TEST(OnnxReduce, ReduceLogSum) { EXPECT_TRUE(runNodeCase("test_reduce_log_sum")); }
TEST(OnnxReduce, ReduceLogSumAscAxes) { EXPECT_TRUE(runNodeCase("test_reduce_log_sum_asc_axes")); }
TEST(OnnxReduce, ReduceLogSumDefault) { EXPECT_TRUE(runNodeCase("test_reduce_log_sum_default")); }
TEST(OnnxReduce, ReduceLogSumDescAxes) { EXPECT_TRUE(runNodeCase("test_reduce_log_sum_desc_axes")); }
TEST(OnnxReduce, ReduceLogSumExpDefaultAxesKeepdimsExampleIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceLogSumExpDefaultAxesKeepdimsRandomIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceLogSumExpDoNotKeepdimsExampleIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_do_not_keepdims_example"));
}
TEST(OnnxReduce, ReduceLogSumExpDoNotKeepdimsRandomIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_do_not_keepdims_random"));
}
TEST(OnnxReduce, ReduceLogSumExpKeepdimsExampleIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_keepdims_example"));
}
TEST(OnnxReduce, ReduceLogSumExpKeepdimsRandomIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_keepdims_random"));
}
TEST(OnnxReduce, ReduceLogSumExpNegativeAxesKeepdimsExampleIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_negative_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceLogSumExpNegativeAxesKeepdimsRandomIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_reduce_log_sum_exp_negative_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceLogSumNegativeAxes) { EXPECT_TRUE(runNodeCase("test_reduce_log_sum_negative_axes")); }
TEST(OnnxReduce, ReduceMaxDefaultAxesKeepdimExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_max_default_axes_keepdim_example"));
}
TEST(OnnxReduce, ReduceMaxDefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_max_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceMaxDoNotKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_max_do_not_keepdims_example")); }
TEST(OnnxReduce, ReduceMaxDoNotKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_max_do_not_keepdims_random")); }
TEST(OnnxReduce, ReduceMaxKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_max_keepdims_example")); }
TEST(OnnxReduce, ReduceMaxKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_max_keepdims_random")); }
TEST(OnnxReduce, ReduceMaxNegativeAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_max_negative_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceMaxNegativeAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_max_negative_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceMeanDefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_mean_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceMeanDefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_mean_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceMeanDoNotKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_mean_do_not_keepdims_example"));
}
TEST(OnnxReduce, ReduceMeanDoNotKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_mean_do_not_keepdims_random")); }
TEST(OnnxReduce, ReduceMeanKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_mean_keepdims_example")); }
TEST(OnnxReduce, ReduceMeanKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_mean_keepdims_random")); }
TEST(OnnxReduce, ReduceMeanNegativeAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_mean_negative_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceMeanNegativeAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_mean_negative_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceMinDefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_min_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceMinDefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_min_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceMinDoNotKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_min_do_not_keepdims_example")); }
TEST(OnnxReduce, ReduceMinDoNotKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_min_do_not_keepdims_random")); }
TEST(OnnxReduce, ReduceMinKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_min_keepdims_example")); }
TEST(OnnxReduce, ReduceMinKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_min_keepdims_random")); }
TEST(OnnxReduce, ReduceMinNegativeAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_min_negative_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceMinNegativeAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_min_negative_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceProdDefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_prod_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceProdDefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_prod_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceProdDoNotKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_prod_do_not_keepdims_example"));
}
TEST(OnnxReduce, ReduceProdDoNotKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_prod_do_not_keepdims_random")); }
TEST(OnnxReduce, ReduceProdKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_prod_keepdims_example")); }
TEST(OnnxReduce, ReduceProdKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_prod_keepdims_random")); }
TEST(OnnxReduce, ReduceProdNegativeAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_prod_negative_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceProdNegativeAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_prod_negative_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceSumDefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_default_axes_keepdims_example", {1}));
}
TEST(OnnxReduce, ReduceSumDefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_default_axes_keepdims_random", {1}));
}
TEST(OnnxReduce, ReduceSumDoNotKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_do_not_keepdims_example", {1}));
}
TEST(OnnxReduce, ReduceSumDoNotKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_do_not_keepdims_random", {1}));
}
TEST(OnnxReduce, ReduceSumEmptyAxesInputNoopExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_empty_axes_input_noop_example", {1}));
}
TEST(OnnxReduce, ReduceSumEmptyAxesInputNoopRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_empty_axes_input_noop_random", {1}));
}
TEST(OnnxReduce, ReduceSumKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_reduce_sum_keepdims_example", {1})); }
TEST(OnnxReduce, ReduceSumKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_sum_keepdims_random", {1})); }
TEST(OnnxReduce, ReduceSumNegativeAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_negative_axes_keepdims_example", {1}));
}
TEST(OnnxReduce, ReduceSumNegativeAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_negative_axes_keepdims_random", {1}));
}
TEST(OnnxReduce, ReduceSumSquareDefaultAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_default_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceSumSquareDefaultAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_default_axes_keepdims_random"));
}
TEST(OnnxReduce, ReduceSumSquareDoNotKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_do_not_keepdims_example"));
}
TEST(OnnxReduce, ReduceSumSquareDoNotKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_do_not_keepdims_random"));
}
TEST(OnnxReduce, ReduceSumSquareKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_keepdims_example"));
}
TEST(OnnxReduce, ReduceSumSquareKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_reduce_sum_square_keepdims_random")); }
TEST(OnnxReduce, ReduceSumSquareNegativeAxesKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_negative_axes_keepdims_example"));
}
TEST(OnnxReduce, ReduceSumSquareNegativeAxesKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_reduce_sum_square_negative_axes_keepdims_random"));
}

// ---- argm ----
TEST(OnnxReduceArg, ArgmaxDefaultAxisExample) { EXPECT_TRUE(runNodeCase("test_argmax_default_axis_example")); }
TEST(OnnxReduceArg, ArgmaxDefaultAxisExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_default_axis_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxDefaultAxisRandom) { EXPECT_TRUE(runNodeCase("test_argmax_default_axis_random")); }
TEST(OnnxReduceArg, ArgmaxDefaultAxisRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_default_axis_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_argmax_keepdims_example")); }
TEST(OnnxReduceArg, ArgmaxKeepdimsExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_keepdims_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_argmax_keepdims_random")); }
TEST(OnnxReduceArg, ArgmaxKeepdimsRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_keepdims_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxNegativeAxisKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_argmax_negative_axis_keepdims_example"));
}
TEST(OnnxReduceArg, ArgmaxNegativeAxisKeepdimsExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_negative_axis_keepdims_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxNegativeAxisKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_argmax_negative_axis_keepdims_random"));
}
TEST(OnnxReduceArg, ArgmaxNegativeAxisKeepdimsRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_negative_axis_keepdims_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxNoKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_argmax_no_keepdims_example")); }
TEST(OnnxReduceArg, ArgmaxNoKeepdimsExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_no_keepdims_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgmaxNoKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_argmax_no_keepdims_random")); }
TEST(OnnxReduceArg, ArgmaxNoKeepdimsRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmax_no_keepdims_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgminDefaultAxisExample) { EXPECT_TRUE(runNodeCase("test_argmin_default_axis_example")); }
TEST(OnnxReduceArg, ArgminDefaultAxisExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_default_axis_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgminDefaultAxisRandom) { EXPECT_TRUE(runNodeCase("test_argmin_default_axis_random")); }
TEST(OnnxReduceArg, ArgminDefaultAxisRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_default_axis_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgminKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_argmin_keepdims_example")); }
TEST(OnnxReduceArg, ArgminKeepdimsExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_keepdims_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgminKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_argmin_keepdims_random")); }
TEST(OnnxReduceArg, ArgminKeepdimsRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_keepdims_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgminNegativeAxisKeepdimsExample) {
  EXPECT_TRUE(runNodeCase("test_argmin_negative_axis_keepdims_example"));
}
TEST(OnnxReduceArg, ArgminNegativeAxisKeepdimsExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_negative_axis_keepdims_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgminNegativeAxisKeepdimsRandom) {
  EXPECT_TRUE(runNodeCase("test_argmin_negative_axis_keepdims_random"));
}
TEST(OnnxReduceArg, ArgminNegativeAxisKeepdimsRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_negative_axis_keepdims_random_select_last_index"));
}
TEST(OnnxReduceArg, ArgminNoKeepdimsExample) { EXPECT_TRUE(runNodeCase("test_argmin_no_keepdims_example")); }
TEST(OnnxReduceArg, ArgminNoKeepdimsExampleSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_no_keepdims_example_select_last_index"));
}
TEST(OnnxReduceArg, ArgminNoKeepdimsRandom) { EXPECT_TRUE(runNodeCase("test_argmin_no_keepdims_random")); }
TEST(OnnxReduceArg, ArgminNoKeepdimsRandomSelectLastIndex) {
  EXPECT_TRUE(runNodeCase("test_argmin_no_keepdims_random_select_last_index"));
}

// ---- cumsum ----
TEST(OnnxReduceCumSum, Cumsum1dIsRejected) { EXPECT_TRUE(rejectedFloat64("test_cumsum_1d", {1})); }
TEST(OnnxReduceCumSum, Cumsum1dExclusiveIsRejected) { EXPECT_TRUE(rejectedFloat64("test_cumsum_1d_exclusive", {1})); }
TEST(OnnxReduceCumSum, Cumsum1dReverseIsRejected) { EXPECT_TRUE(rejectedFloat64("test_cumsum_1d_reverse", {1})); }
TEST(OnnxReduceCumSum, Cumsum1dReverseExclusiveIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_cumsum_1d_reverse_exclusive", {1}));
}
TEST(OnnxReduceCumSum, Cumsum2dAxis0IsRejected) { EXPECT_TRUE(rejectedFloat64("test_cumsum_2d_axis_0", {1})); }
TEST(OnnxReduceCumSum, Cumsum2dAxis1IsRejected) { EXPECT_TRUE(rejectedFloat64("test_cumsum_2d_axis_1", {1})); }
TEST(OnnxReduceCumSum, Cumsum2dNegativeAxisIsRejected) {
  EXPECT_TRUE(rejectedFloat64("test_cumsum_2d_negative_axis", {1}));
}

// ---- top_k ----
TEST(OnnxReduceTopK, TopK) { EXPECT_TRUE(runNodeCase("test_top_k", {1})); }
TEST(OnnxReduceTopK, TopKNegativeAxis) { EXPECT_TRUE(runNodeCase("test_top_k_negative_axis", {1})); }
TEST(OnnxReduceTopK, TopKSmallest) { EXPECT_TRUE(runNodeCase("test_top_k_smallest", {1})); }

// ---- nllloss ----
TEST(OnnxReduceLossNll, NlllossNC) { EXPECT_TRUE(runNodeCase("test_nllloss_NC")); }
TEST(OnnxReduceLossNll, NlllossNCExpanded) { EXPECT_TRUE(runNodeCase("test_nllloss_NC_expanded")); }
TEST(OnnxReduceLossNll, NlllossNCd1) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1")); }
TEST(OnnxReduceLossNll, NlllossNCd1Expanded) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_expanded")); }
TEST(OnnxReduceLossNll, NlllossNCd1Ii) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_ii")); }
TEST(OnnxReduceLossNll, NlllossNCd1IiExpanded) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_ii_expanded")); }
TEST(OnnxReduceLossNll, NlllossNCd1MeanWeightNegativeIi) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_mean_weight_negative_ii"));
}
TEST(OnnxReduceLossNll, NlllossNCd1MeanWeightNegativeIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_mean_weight_negative_ii_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1Weight) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_weight")); }
TEST(OnnxReduceLossNll, NlllossNCd1WeightExpanded) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_weight_expanded")); }
TEST(OnnxReduceLossNll, NlllossNCd1WeightIi) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_weight_ii")); }
TEST(OnnxReduceLossNll, NlllossNCd1WeightIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1_weight_ii_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2")); }
TEST(OnnxReduceLossNll, NlllossNCd1d2Expanded) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_expanded")); }
TEST(OnnxReduceLossNll, NlllossNCd1d2NoWeightReductionMeanIi) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_no_weight_reduction_mean_ii"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2NoWeightReductionMeanIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_no_weight_reduction_mean_ii_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2ReductionMean) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_reduction_mean")); }
TEST(OnnxReduceLossNll, NlllossNCd1d2ReductionMeanExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_reduction_mean_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2ReductionSum) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_reduction_sum")); }
TEST(OnnxReduceLossNll, NlllossNCd1d2ReductionSumExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_reduction_sum_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeight) { EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight")); }
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightReductionMean) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_reduction_mean"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightReductionMeanExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_reduction_mean_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightReductionSum) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_reduction_sum"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightReductionSumExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_reduction_sum_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightReductionSumIi) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_reduction_sum_ii"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2WithWeightReductionSumIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2_with_weight_reduction_sum_ii_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2d3NoneNoWeightNegativeIi) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2d3_none_no_weight_negative_ii"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2d3NoneNoWeightNegativeIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2d3_none_no_weight_negative_ii_expanded"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2d3SumWeightHighIi) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2d3_sum_weight_high_ii"));
}
TEST(OnnxReduceLossNll, NlllossNCd1d2d3SumWeightHighIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_nllloss_NCd1d2d3_sum_weight_high_ii_expanded"));
}

// ---- sce ----
TEST(OnnxReduceLossSce, SceNCd1MeanWeightNegativeIi) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1_mean_weight_negative_ii"));
}
TEST(OnnxReduceLossSce, SceNCd1MeanWeightNegativeIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1_mean_weight_negative_ii_expanded"));
}
TEST(OnnxReduceLossSce, SceNCd1MeanWeightNegativeIiLogProb) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1_mean_weight_negative_ii_log_prob"));
}
TEST(OnnxReduceLossSce, SceNCd1MeanWeightNegativeIiLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1_mean_weight_negative_ii_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3NoneNoWeightNegativeIi) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_none_no_weight_negative_ii"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3NoneNoWeightNegativeIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_none_no_weight_negative_ii_expanded"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3NoneNoWeightNegativeIiLogProb) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_none_no_weight_negative_ii_log_prob"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3NoneNoWeightNegativeIiLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_none_no_weight_negative_ii_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3SumWeightHighIi) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_sum_weight_high_ii"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3SumWeightHighIiExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_sum_weight_high_ii_expanded"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3SumWeightHighIiLogProb) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_sum_weight_high_ii_log_prob"));
}
TEST(OnnxReduceLossSce, SceNCd1d2d3SumWeightHighIiLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_NCd1d2d3_sum_weight_high_ii_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMean) { EXPECT_TRUE(runNodeCase("test_sce_mean")); }
TEST(OnnxReduceLossSce, SceMean3d) { EXPECT_TRUE(runNodeCase("test_sce_mean_3d")); }
TEST(OnnxReduceLossSce, SceMean3dExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_3d_expanded")); }
TEST(OnnxReduceLossSce, SceMean3dLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_3d_log_prob")); }
TEST(OnnxReduceLossSce, SceMean3dLogProbExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_3d_log_prob_expanded")); }
TEST(OnnxReduceLossSce, SceMeanExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_expanded")); }
TEST(OnnxReduceLossSce, SceMeanLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_log_prob")); }
TEST(OnnxReduceLossSce, SceMeanLogProbExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_log_prob_expanded")); }
TEST(OnnxReduceLossSce, SceMeanNoWeightIi) { EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii")); }
TEST(OnnxReduceLossSce, SceMeanNoWeightIi3d) { EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_3d")); }
TEST(OnnxReduceLossSce, SceMeanNoWeightIi3dExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_3d_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanNoWeightIi3dLogProb) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_3d_log_prob"));
}
TEST(OnnxReduceLossSce, SceMeanNoWeightIi3dLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_3d_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanNoWeightIi4d) { EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_4d")); }
TEST(OnnxReduceLossSce, SceMeanNoWeightIi4dExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_4d_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanNoWeightIi4dLogProb) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_4d_log_prob"));
}
TEST(OnnxReduceLossSce, SceMeanNoWeightIi4dLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_4d_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanNoWeightIiExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_expanded")); }
TEST(OnnxReduceLossSce, SceMeanNoWeightIiLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_log_prob")); }
TEST(OnnxReduceLossSce, SceMeanNoWeightIiLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_no_weight_ii_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanWeight) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight")); }
TEST(OnnxReduceLossSce, SceMeanWeightExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_expanded")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi3d) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_3d")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi3dExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_3d_expanded")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi3dLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_3d_log_prob")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi3dLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_3d_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanWeightIi4d) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_4d")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi4dExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_4d_expanded")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi4dLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_4d_log_prob")); }
TEST(OnnxReduceLossSce, SceMeanWeightIi4dLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_4d_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanWeightIiExpanded) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_expanded")); }
TEST(OnnxReduceLossSce, SceMeanWeightIiLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_log_prob")); }
TEST(OnnxReduceLossSce, SceMeanWeightIiLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_weight_ii_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceMeanWeightLogProb) { EXPECT_TRUE(runNodeCase("test_sce_mean_weight_log_prob")); }
TEST(OnnxReduceLossSce, SceMeanWeightLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_mean_weight_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceNone) { EXPECT_TRUE(runNodeCase("test_sce_none")); }
TEST(OnnxReduceLossSce, SceNoneExpanded) { EXPECT_TRUE(runNodeCase("test_sce_none_expanded")); }
TEST(OnnxReduceLossSce, SceNoneLogProb) { EXPECT_TRUE(runNodeCase("test_sce_none_log_prob")); }
TEST(OnnxReduceLossSce, SceNoneLogProbExpanded) { EXPECT_TRUE(runNodeCase("test_sce_none_log_prob_expanded")); }
TEST(OnnxReduceLossSce, SceNoneWeights) { EXPECT_TRUE(runNodeCase("test_sce_none_weights")); }
TEST(OnnxReduceLossSce, SceNoneWeightsExpanded) { EXPECT_TRUE(runNodeCase("test_sce_none_weights_expanded")); }
TEST(OnnxReduceLossSce, SceNoneWeightsLogProb) { EXPECT_TRUE(runNodeCase("test_sce_none_weights_log_prob")); }
TEST(OnnxReduceLossSce, SceNoneWeightsLogProbExpanded) {
  EXPECT_TRUE(runNodeCase("test_sce_none_weights_log_prob_expanded"));
}
TEST(OnnxReduceLossSce, SceSum) { EXPECT_TRUE(runNodeCase("test_sce_sum")); }
TEST(OnnxReduceLossSce, SceSumExpanded) { EXPECT_TRUE(runNodeCase("test_sce_sum_expanded")); }
TEST(OnnxReduceLossSce, SceSumLogProb) { EXPECT_TRUE(runNodeCase("test_sce_sum_log_prob")); }
TEST(OnnxReduceLossSce, SceSumLogProbExpanded) { EXPECT_TRUE(runNodeCase("test_sce_sum_log_prob_expanded")); }

}  // namespace
}  // namespace tosakit::onnxtest
