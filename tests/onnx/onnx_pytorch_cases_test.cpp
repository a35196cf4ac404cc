// Old-opset forms from the pytorch-converted / pytorch-operator backend test data (opset 6 exports): the
// legacy per-channel PRelu slope and int64 graph inputs meeting int64 initializers. Oracle: the test data.
#include "onnx_node_case.h"

namespace tosakit::onnxtest {
namespace {

constexpr const char* kConverted = "/usr/share/libonnx-testdata/data/pytorch-converted";
constexpr const char* kOperator = "/usr/share/libonnx-testdata/data/pytorch-operator";

// PRelu-6 with a [C] slope: per channel (axis 1), although numpy broadcasting would align it with the last
// axis. The slope is an initializer.
TEST(OnnxPytorch, PReluMultiparam1d) { EXPECT_TRUE(runNodeCase("test_PReLU_1d_multiparam", {}, kConverted)); }
TEST(OnnxPytorch, PReluMultiparam2d) { EXPECT_TRUE(runNodeCase("test_PReLU_2d_multiparam", {}, kConverted)); }
TEST(OnnxPytorch, PReluMultiparam3d) { EXPECT_TRUE(runNodeCase("test_PReLU_3d_multiparam", {}, kConverted)); }
// An int64 graph input (run-time i32) added to and multiplied by an int64 initializer.
TEST(OnnxPytorch, NonFloatParams) { EXPECT_TRUE(runNodeCase("test_operator_non_float_params", {}, kOperator)); }

}  // namespace
}  // namespace tosakit::onnxtest
