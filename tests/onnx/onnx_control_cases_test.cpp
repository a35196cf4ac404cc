// If / Loop / Scan against the ONNX backend node test data (independent oracle: ONNX's reference
// implementation).
#include "onnx_node_case.h"

namespace tosakit::onnxtest {
namespace {

// Run-time condition: both branches are evaluated and selected.
TEST(OnnxControl, IfRunTimeCondition) { EXPECT_TRUE(runNodeCase("test_if")); }
// Constant condition: the branch is picked at import.
TEST(OnnxControl, IfConstantCondition) { EXPECT_TRUE(runNodeCase("test_if", {0})); }
// The trip count determines the scan output's shape: bound. The condition is bound too (a run-time one would
// make the iteration count data-dependent).
TEST(OnnxControl, Loop11) { EXPECT_TRUE(runNodeCase("test_loop11", {0, 1})); }
TEST(OnnxControl, LoopRunTimeTripCountIsUnsupported) {
  auto r = runNodeCase("test_loop11", {1});
  EXPECT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("run-time Loop trip count"), std::string::npos) << r.message();
}
// Range's function body: Ceil(Div(Sub(limit, start), delta)) -> Loop. With the bounds bound, the importer
// evaluates the constant nodes at import, so the Loop's trip count is known and the loop unrolls.
TEST(OnnxControl, RangeExpandedFloat) {
  EXPECT_TRUE(runNodeCase("test_range_float_type_positive_delta_expanded", {0, 1, 2}));
}
TEST(OnnxControl, RangeExpandedInt32) {
  EXPECT_TRUE(runNodeCase("test_range_int32_type_negative_delta_expanded", {0, 1, 2}));
}
TEST(OnnxControl, ScanSumOpset8) { EXPECT_TRUE(runNodeCase("test_scan_sum")); }
TEST(OnnxControl, Scan9Sum) { EXPECT_TRUE(runNodeCase("test_scan9_sum")); }

}  // namespace
}  // namespace tosakit::onnxtest
