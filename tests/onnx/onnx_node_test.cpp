// ONNX backend node tests (libonnx-testdata: /usr/share/libonnx-testdata/data/node/test_*): import the model,
// run it on the reference backend and compare with the expected outputs stored with the test (an independent
// oracle: produced by ONNX's reference implementation / numpy). Integer inputs (shapes, axes) are bound as
// constants at import, as a TOSA graph computes on float32 here.
#include <algorithm>
#include <filesystem>

#include "onnx_test_util.h"
#include "tosakit/model_io.h"

namespace tosakit::onnxtest {
namespace {

namespace fs = std::filesystem;
const char* kNodeDir = "/usr/share/libonnx-testdata/data/node";

std::vector<std::string> pbFiles(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    fs::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    files.push_back(p.string());
  }
  return files;
}

class OnnxNodeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeTest, MatchesOnnxTestData) {
  const std::string& name = GetParam();
  fs::path dir = fs::path(kNodeDir) / name;
  if (!fs::exists(dir)) GTEST_SKIP() << "libonnx-testdata not installed (" << dir << ")";
  fs::path data = dir / "test_data_set_0";
  onnx::OnnxImportOptions opts;
  NamedTensors inputs;
  // Weights, batch-norm statistics and clip bounds are graph inputs in these tests; TOSA needs them constant.
  const bool paramsConst = name.find("conv") != std::string::npos || name.find("batchnorm") != std::string::npos ||
      name.find("clip") != std::string::npos || name.find("resize") != std::string::npos;
  auto files = pbFiles(data, "input_");
  for (size_t i = 0; i < files.size(); ++i) {
    auto t = onnx::loadOnnxTensor(files[i]);
    ASSERT_TRUE(t.isOk()) << t.status().toString();
    if (t->second.dtype() == DType::FP32 && !(paramsConst && i > 0))
      inputs.emplace_back(t->first, t->second);
    else
      opts.bindInputs[t->first] = t->second;
  }
  auto m = onnx::importOnnx((dir / "model.onnx").string(), opts);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  // The exported MLIR must be accepted by upstream mlir-opt-22 (parse + TOSA verifiers) when it is installed.
  if (std::system("command -v mlir-opt-22 >/dev/null 2>&1") == 0) {
    std::string mlir = tempPath(name + ".mlir");
    ASSERT_TRUE(saveModel(**m, mlir).isOk());
    std::string err = tempPath(name + ".err");
    int rc = std::system(("mlir-opt-22 '" + mlir + "' -o /dev/null 2>'" + err + "'").c_str());
    std::ifstream es(err);
    std::string errors((std::istreambuf_iterator<char>(es)), std::istreambuf_iterator<char>());
    EXPECT_EQ(rc, 0) << errors;
    std::filesystem::remove(mlir);
    std::filesystem::remove(err);
  }
  auto session = Session::create(std::move(*m));
  ASSERT_TRUE(session.isOk()) << session.status().toString();
  RunResult result;
  Status s = (*session)->run(inputs, result);
  ASSERT_TRUE(s.isOk()) << s.toString();
  auto outs = pbFiles(data, "output_");
  ASSERT_EQ(outs.size(), result.outputs.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    auto want = onnx::loadOnnxTensor(outs[i]);
    ASSERT_TRUE(want.isOk()) << want.status().toString();
    EXPECT_EQ(result.outputs[i].first, want->first);
    expectClose(result.outputs[i].second, want->second, 1e-3, 1e-5, GetParam() + " output " + want->first);
  }
}

const std::vector<std::string> kCases = {
    // Conv
    "test_basic_conv_with_padding",
    "test_basic_conv_without_padding",
    "test_conv_with_autopad_same",
    "test_conv_with_strides_and_asymmetric_padding",
    "test_conv_with_strides_no_padding",
    "test_conv_with_strides_padding",
    // BatchNormalization
    "test_batchnorm_epsilon",
    "test_batchnorm_example",
    // activations
    "test_relu",
    "test_clip",
    "test_clip_default_inbounds",
    "test_clip_default_max",
    "test_clip_default_min",
    "test_clip_example",
    "test_clip_inbounds",
    "test_clip_outbounds",
    "test_clip_splitbounds",
    "test_leakyrelu",
    "test_leakyrelu_default",
    "test_leakyrelu_example",
    "test_sigmoid",
    "test_sigmoid_example",
    "test_hardsigmoid",
    "test_hardsigmoid_default",
    "test_hardsigmoid_example",
    "test_hardswish",
    "test_hardswish_expanded",
    "test_tanh",
    "test_tanh_example",
    // binary
    "test_add",
    "test_add_bcast",
    "test_sub",
    "test_sub_bcast",
    "test_sub_example",
    "test_mul",
    "test_mul_bcast",
    "test_mul_example",
    "test_div",
    "test_div_bcast",
    "test_div_example",
    // pooling
    "test_maxpool_2d_ceil",
    "test_maxpool_2d_default",
    "test_maxpool_2d_pads",
    "test_maxpool_2d_precomputed_pads",
    "test_maxpool_2d_precomputed_same_upper",
    "test_maxpool_2d_precomputed_strides",
    "test_maxpool_2d_same_lower",
    "test_maxpool_2d_same_upper",
    "test_maxpool_2d_strides",
    "test_averagepool_2d_ceil",
    "test_averagepool_2d_default",
    "test_averagepool_2d_pads",
    "test_averagepool_2d_pads_count_include_pad",
    "test_averagepool_2d_precomputed_pads",
    "test_averagepool_2d_precomputed_pads_count_include_pad",
    "test_averagepool_2d_precomputed_same_upper",
    "test_averagepool_2d_precomputed_strides",
    "test_averagepool_2d_same_lower",
    "test_averagepool_2d_same_upper",
    "test_averagepool_2d_strides",
    "test_globalaveragepool",
    "test_globalaveragepool_precomputed",
    // Gemm / MatMul
    "test_gemm_all_attributes",
    "test_gemm_alpha",
    "test_gemm_beta",
    "test_gemm_default_matrix_bias",
    "test_gemm_default_no_bias",
    "test_gemm_default_scalar_bias",
    "test_gemm_default_single_elem_vector_bias",
    "test_gemm_default_vector_bias",
    "test_gemm_default_zero_bias",
    "test_gemm_transposeA",
    "test_gemm_transposeB",
    "test_matmul_2d",
    "test_matmul_3d",
    "test_matmul_4d",
    // shape / layout ops
    "test_flatten_axis0",
    "test_flatten_axis1",
    "test_flatten_axis2",
    "test_flatten_axis3",
    "test_flatten_default_axis",
    "test_flatten_negative_axis1",
    "test_flatten_negative_axis2",
    "test_flatten_negative_axis3",
    "test_flatten_negative_axis4",
    "test_reshape_extended_dims",
    "test_reshape_negative_dim",
    "test_reshape_negative_extended_dims",
    "test_reshape_one_dim",
    "test_reshape_reduced_dims",
    "test_reshape_reordered_all_dims",
    "test_reshape_reordered_last_dims",
    "test_reshape_zero_and_negative_dim",
    "test_reshape_zero_dim",
    "test_transpose_all_permutations_0",
    "test_transpose_all_permutations_1",
    "test_transpose_all_permutations_2",
    "test_transpose_all_permutations_3",
    "test_transpose_all_permutations_4",
    "test_transpose_all_permutations_5",
    "test_transpose_default",
    "test_concat_1d_axis_0",
    "test_concat_1d_axis_negative_1",
    "test_concat_2d_axis_0",
    "test_concat_2d_axis_1",
    "test_concat_2d_axis_negative_1",
    "test_concat_2d_axis_negative_2",
    "test_concat_3d_axis_0",
    "test_concat_3d_axis_1",
    "test_concat_3d_axis_2",
    "test_concat_3d_axis_negative_1",
    "test_concat_3d_axis_negative_2",
    "test_concat_3d_axis_negative_3",
    "test_squeeze",
    "test_squeeze_negative_axes",
    "test_unsqueeze_axis_0",
    "test_unsqueeze_axis_1",
    "test_unsqueeze_axis_2",
    "test_unsqueeze_axis_3",
    "test_unsqueeze_negative_axes",
    "test_unsqueeze_three_axes",
    "test_unsqueeze_two_axes",
    "test_unsqueeze_unsorted_axes",
    // Softmax, Identity, Constant
    "test_softmax_axis_0",
    "test_softmax_axis_1",
    "test_softmax_axis_2",
    "test_softmax_default_axis",
    "test_softmax_example",
    "test_softmax_large_number",
    "test_softmax_negative_axis",
    "test_identity",
    "test_constant",
    // reductions, Pow, Sqrt
    "test_reduce_mean_default_axes_keepdims_example",
    "test_reduce_mean_default_axes_keepdims_random",
    "test_reduce_mean_do_not_keepdims_example",
    "test_reduce_mean_do_not_keepdims_random",
    "test_reduce_mean_keepdims_example",
    "test_reduce_mean_keepdims_random",
    "test_reduce_mean_negative_axes_keepdims_example",
    "test_reduce_mean_negative_axes_keepdims_random",
    "test_reduce_sum_default_axes_keepdims_example",
    "test_reduce_sum_default_axes_keepdims_random",
    "test_reduce_sum_do_not_keepdims_example",
    "test_reduce_sum_do_not_keepdims_random",
    "test_reduce_sum_empty_axes_input_noop_example",
    "test_reduce_sum_empty_axes_input_noop_random",
    "test_reduce_sum_keepdims_example",
    "test_reduce_sum_keepdims_random",
    "test_reduce_sum_negative_axes_keepdims_example",
    "test_reduce_sum_negative_axes_keepdims_random",
    "test_reduce_max_default_axes_keepdim_example",
    "test_reduce_max_default_axes_keepdims_random",
    "test_reduce_max_do_not_keepdims_example",
    "test_reduce_max_do_not_keepdims_random",
    "test_reduce_max_keepdims_example",
    "test_reduce_max_keepdims_random",
    "test_reduce_max_negative_axes_keepdims_example",
    "test_reduce_max_negative_axes_keepdims_random",
    "test_pow",
    "test_pow_bcast_array",
    "test_pow_bcast_scalar",
    "test_pow_example",
    "test_sqrt",
    "test_sqrt_example",
    // ConvTranspose, Resize
    "test_convtranspose",
    "test_convtranspose_autopad_same",
    "test_convtranspose_kernel_shape",
    "test_convtranspose_output_shape",
    "test_convtranspose_pad",
    "test_convtranspose_pads",
    "test_convtranspose_with_kernel",
    "test_resize_downsample_scales_linear",
    "test_resize_downsample_scales_linear_align_corners",
    "test_resize_downsample_scales_nearest",
    "test_resize_downsample_sizes_linear_pytorch_half_pixel",
    "test_resize_downsample_sizes_nearest",
    "test_resize_upsample_scales_linear",
    "test_resize_upsample_scales_linear_align_corners",
    "test_resize_upsample_scales_nearest",
    "test_resize_upsample_sizes_nearest",
    "test_resize_upsample_sizes_nearest_ceil_half_pixel",
    "test_resize_upsample_sizes_nearest_floor_align_corners",
    "test_resize_upsample_sizes_nearest_round_prefer_ceil_asymmetric",
};

INSTANTIATE_TEST_SUITE_P(Node, OnnxNodeTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

}  // namespace
}  // namespace tosakit::onnxtest
