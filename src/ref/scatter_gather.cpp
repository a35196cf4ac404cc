// Spec section 2.11 Scatter/Gather operators: GATHER, SCATTER on [N,K,C] value tensors with [N,W] i32
// indices. Values are copied as stored bits (exact for every element type).
#include <string>

#include "ref/elementwise.h"
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

const std::initializer_list<DType> kGatherTypes = {DType::FP16, DType::FP32, DType::I16,     DType::I32,
                                                   DType::I8,   DType::BF16, DType::FP8E4M3, DType::FP8E5M2};

// 2.11.1 GATHER (values [N,K,C], indices [N,W]) -> output [N,W,C]
Status gatherKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &values = *in[0], &indices = *in[1];
  Tensor& output = out[0];
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&values}, ctx.dtypeOf(output), kGatherTypes));
  if (ctx.dtypeOf(indices) != DType::I32) return dtypeError(ctx, "indices must be i32");
  // The argument table fixes the shapes: values [N,K,C], indices [N,W], output [N,W,C].
  ERROR_IF(values.rank() != 3 || indices.rank() != 2 || output.rank() != 3);
  int64_t N = values.shape()[0], K = values.shape()[1], C = values.shape()[2], W = indices.shape()[1];
  ERROR_IF(indices.shape()[0] != N);
  ERROR_IF(output.shape() != Shape({N, W, C}));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t w = 0; w < W; ++w) {
      int64_t k = indices.getInt(n * W + w);
      REQUIRE(0 <= k && k < K);
      for (int64_t c = 0; c < C; ++c) output.setInt((n * W + w) * C + c, values.getInt((n * K + k) * C + c));
    }
  return Status::ok();
}

// 2.11.2 SCATTER (values_in [N,K,C], indices [N,W], input [N,W,C]) -> values_out [N,K,C]
Status scatterKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const Tensor &values_in = *in[0], &indices = *in[1], &input = *in[2];
  Tensor& values_out = out[0];
  TK_RETURN_IF_ERROR(checkInOut(ctx, {&values_in, &input}, ctx.dtypeOf(values_out), kGatherTypes));
  if (ctx.dtypeOf(indices) != DType::I32) return dtypeError(ctx, "indices must be i32");
  ERROR_IF(values_in.rank() != 3 || indices.rank() != 2 || input.rank() != 3);
  int64_t N = values_in.shape()[0], K = values_in.shape()[1], C = values_in.shape()[2], W = indices.shape()[1];
  ERROR_IF(indices.shape()[0] != N);
  ERROR_IF(input.shape() != Shape({N, W, C}));
  ERROR_IF(values_out.shape() != values_in.shape());
  // Copy values_in; positions not written by the scatter keep their value.
  std::vector<bool> output_modified(size_t(N * K * C), false);
  for (int64_t i = 0; i < values_in.size(); ++i) values_out.setInt(i, values_in.getInt(i));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t w = 0; w < W; ++w) {
      int64_t k = indices.getInt(n * W + w);
      REQUIRE(0 <= k && k < K);
      for (int64_t c = 0; c < C; ++c) {
        int64_t pos = (n * K + k) * C + c;
        REQUIRE(output_modified[size_t(pos)] == false);
        values_out.setInt(pos, input.getInt((n * W + w) * C + c));
        output_modified[size_t(pos)] = true;
      }
    }
  return Status::ok();
}

}  // namespace

void registerScatterGather(KernelRegistry& r) {
  r.add("tosa.gather", withArity(2, 1, gatherKernel));
  r.add("tosa.scatter", withArity(3, 1, scatterKernel));
}

}  // namespace tosakit::ref
