// Every kernel factory of the fast backend, by the file that defines it. Only kernel_list.cpp, which orders
// them per op, calls them (a test may call one directly to test a kernel in isolation).
#pragma once
#include "fast/op_kernel.h"

namespace tosakit::fast {

// onednn/conv.cpp: convolutions on oneDNN (fp32/bf16/fp16; int8 where oneDNN's s32 sums are exact: VNNI)
Result<CompiledKernel> compileOneDnnConv2d(const OpChain& c);
Result<CompiledKernel> compileOneDnnDepthwise(const OpChain& c);
Result<CompiledKernel> compileOneDnnTransposeConv(const OpChain& c);
// onednn/conv_transpose_matmul.cpp: transpose_conv2d with kernel == stride as one oneDNN matmul per tap
Result<CompiledKernel> compileTransposeConvAsMatmuls(const OpChain& c);
// onednn/conv_own_f32.cpp: our own fp32 depthwise (multiplier 1) and per-tap transpose convolutions
Result<CompiledKernel> compileDepthwiseF32(const OpChain& c);
Result<CompiledKernel> compileTransposeConvF32(const OpChain& c);
// onednn/matmul.cpp
Result<CompiledKernel> compileOneDnnMatmul(const OpChain& c);
// onednn/pool.cpp: average pool on oneDNN (fp) or our own (int8); max pool our own (TOSA's nan_mode)
Result<CompiledKernel> compileAvgPool(const OpChain& c);
Result<CompiledKernel> compileMaxPool(const OpChain& c);

// kernels/int8/pointwise_vnni.cpp: int8 1x1 conv2d and matmul by constant weights, AVX512-VNNI micro-kernel
Result<CompiledKernel> compileInt8PointwiseVnni(const OpChain& c);
Result<CompiledKernel> compileInt8MatmulVnni(const OpChain& c);
// kernels/int8/conv_avx2.cpp: int8 conv2d (any window) and matmul by constant weights on AVX2, exact (vpmaddwd)
Result<CompiledKernel> compileInt8ConvAvx2(const OpChain& c);
Result<CompiledKernel> compileInt8MatmulAvx2(const OpChain& c);
// kernels/int8/pointwise.cpp: int8 1x1 conv2d as oneDNN s8 matmuls over row blocks + our epilogue
Result<CompiledKernel> compileInt8Pointwise(const OpChain& c);
// kernels/int8/depthwise.cpp: int8 depthwise_conv2d as exact fp32 sums, epilogue in registers (AVX-512)
Result<CompiledKernel> compileDepthwiseInt8(const OpChain& c);
// the same on AVX2 (8-lane fp32 sums, the epilogue through the shared pass), any stride
Result<CompiledKernel> compileDepthwiseInt8Avx2(const OpChain& c);
Result<CompiledKernel> compileDepthwiseInt8Generic(const OpChain& c);
// kernels/int8/rescale.cpp, binary.cpp, table.cpp, quantize_input.cpp
Result<CompiledKernel> compileRescale(const OpChain& c);
Result<CompiledKernel> compileFusedQuantBinary(const OpChain& c);
Result<CompiledKernel> compileTable(const OpChain& c);
Result<CompiledKernel> compileCast(const OpChain& c);
Result<CompiledKernel> compileQuantizeInput(const OpChain& c);

// kernels/f32/eltwise.cpp: elementwise chains (fp32; i32/i16/i8 integer rows)
Result<CompiledKernel> compileElementwise(const OpChain& c);

// kernels/data/movement.cpp, resize.cpp, reduce.cpp: any element type
Result<CompiledKernel> compileTranspose(const OpChain& c);
Result<CompiledKernel> compileConcat(const OpChain& c);
Result<CompiledKernel> compileSlice(const OpChain& c);
Result<CompiledKernel> compilePad(const OpChain& c);
Result<CompiledKernel> compileResize(const OpChain& c);
Result<CompiledKernel> compileReduceAll(const OpChain& c);
Result<CompiledKernel> compileReduceAny(const OpChain& c);
Result<CompiledKernel> compileReduceMax(const OpChain& c);
Result<CompiledKernel> compileReduceMin(const OpChain& c);
Result<CompiledKernel> compileReduceProduct(const OpChain& c);
Result<CompiledKernel> compileReduceSum(const OpChain& c);

// The registry key of the factories offered regions (plan_compile.cpp, collectRegion: ops that read values made
// earlier in the region, not only the previous op's; the kernel takes the region whole or declines).
// kernels/int8/quantize_input.cpp: fp32 add/sub/mul/clamp/max/min -> cast [-> rescale] [-> NCHW -> NHWC], one pass
inline constexpr const char* kRegionKernels = "fast.region";
Result<CompiledKernel> compileQuantizeRegion(const OpChain& c);

}  // namespace tosakit::fast
