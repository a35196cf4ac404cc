// Which kernel runs an op on this CPU: for every op kind, its implementations in the order they are tried (as
// oneDNN's cpu_convolution_list.cpp), each with the ISA it needs. The plan offers an op chain to the entries of
// its first op whose ISA the active level allows (cpu_features.h), in this order; the first that returns a
// kernel wins (a factory declines a form it does not take), and an op no entry takes runs its reference kernel
// inside the plan. Within an entry a kernel may still pick a wider path at run time (AVX-512 rows beside
// compiler-vectorized ones, isa_dispatch.h); `tosakit bench --profile` prints the kernel each step ran.
#include <vector>

#include "fast/cpu_features.h"
#include "fast/kernel_factories.h"

namespace tosakit::fast {
namespace {

// What an implementation needs of the CPU, beyond the baseline.
enum class Needs {
  Baseline,
  Avx2,        // AVX2 + FMA + F16C + BMI2 (also allowed at the avx512 levels)
  Avx512,      // AVX-512 F/BW/VL/DQ
  Avx512Vnni,  // AVX512-VNNI
  AnyVnni,     // AVX512-VNNI or AVX-VNNI: oneDNN's int8 kernels sum exactly in s32 only with vpdpbusd
};

struct Implementation {
  const char* op;
  const char* name;  // as `bench --profile` prints it (a prefix: kernels add their variant)
  Needs needs;
  Result<CompiledKernel> (*factory)(const OpChain&);
};

// clang-format off
const std::vector<Implementation>& implementations() {
  static const std::vector<Implementation> list = {
      // ---- convolutions and matmul ----
      {"tosa.conv2d", "fast:pointwise_int8_vnni", Needs::Avx512Vnni, compileInt8PointwiseVnni},  // int8 1x1
      {"tosa.conv2d", "onednn:... (int8 1x1 as s8 matmuls)", Needs::AnyVnni, compileInt8Pointwise},
      {"tosa.conv2d", "onednn:(conv)", Needs::Baseline, compileOneDnnConv2d},  // int8 only with VNNI
      // int8 without VNNI: fast:conv_int8_avx2, or fast:conv_int8 (compiler-vectorized) below AVX2
      {"tosa.conv2d", "fast:conv_int8_avx2 / fast:conv_int8", Needs::Baseline, compileInt8ConvAvx2},
      {"tosa.depthwise_conv2d", "fast:depthwise_int8", Needs::Avx512, compileDepthwiseInt8},
      {"tosa.depthwise_conv2d", "fast:depthwise_f32", Needs::Baseline, compileDepthwiseF32},
      {"tosa.depthwise_conv2d", "onednn:(conv)", Needs::Baseline, compileOneDnnDepthwise},  // int8 only with VNNI
      {"tosa.depthwise_conv2d", "fast:depthwise_int8_avx2", Needs::Avx2, compileDepthwiseInt8Avx2},
      {"tosa.depthwise_conv2d", "fast:depthwise_int8_generic", Needs::Baseline, compileDepthwiseInt8Generic},
      {"tosa.transpose_conv2d", "fast:transpose_conv_f32", Needs::Baseline, compileTransposeConvF32},
      {"tosa.transpose_conv2d", "onednn:... (transpose_conv2d as matmuls)", Needs::Baseline,
       compileTransposeConvAsMatmuls},
      {"tosa.transpose_conv2d", "onednn:(deconv) / fast:transpose_conv2d_int8", Needs::Baseline,
       compileOneDnnTransposeConv},
      {"tosa.matmul", "fast:matmul_int8_vnni", Needs::Avx512Vnni, compileInt8MatmulVnni},
      {"tosa.matmul", "onednn:(matmul)", Needs::Baseline, compileOneDnnMatmul},  // int8 only with VNNI
      {"tosa.matmul", "fast:matmul_int8_avx2 / fast:matmul_int8", Needs::Baseline,
       compileInt8MatmulAvx2},  // int8 without VNNI (below AVX2: compiler-vectorized)
      // ---- pooling ----
      {"tosa.avg_pool2d", "onednn:(pool) / fast:avg_pool_int8", Needs::Baseline, compileAvgPool},
      {"tosa.max_pool2d", "fast:max_pool", Needs::Baseline, compileMaxPool},
      // ---- integer: rescale, tables, casts ----
      // rescale -> add/sub/mul -> rescale [-> clamp] first: it absorbs the most.
      {"tosa.rescale", "fast:quant_binary", Needs::Baseline, compileFusedQuantBinary},
      {"tosa.rescale", "fast:rescale", Needs::Baseline, compileRescale},
      {"tosa.table", "fast:quant_binary", Needs::Baseline, compileFusedQuantBinary},
      {"tosa.table", "fast:table", Needs::Baseline, compileTable},
      {"tosa.cast", "fast:cast", Needs::Baseline, compileCast},
      // ---- elementwise ----
      {"tosa.mul", "fast:quantize_input", Needs::Baseline, compileQuantizeInput},  // mul -> cast [-> transpose]
      {"tosa.mul", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.add", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.sub", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.maximum", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.minimum", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.clamp", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.abs", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.negate", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.reciprocal", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.rsqrt", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.exp", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.sigmoid", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.tanh", "fast:eltwise", Needs::Baseline, compileElementwise},
      {"tosa.erf", "fast:eltwise", Needs::Baseline, compileElementwise},  // fp32 (GELU)
      // ---- data movement, resize, reductions (any element type) ----
      {"tosa.transpose", "fast:transpose", Needs::Baseline, compileTranspose},
      {"tosa.concat", "fast:concat", Needs::Baseline, compileConcat},
      {"tosa.slice", "fast:slice", Needs::Baseline, compileSlice},
      {"tosa.pad", "fast:pad", Needs::Baseline, compilePad},
      {"tosa.resize", "fast:resize", Needs::Baseline, compileResize},
      {"tosa.reduce_all", "fast:reduce", Needs::Baseline, compileReduceAll},
      {"tosa.reduce_any", "fast:reduce", Needs::Baseline, compileReduceAny},
      {"tosa.reduce_max", "fast:reduce", Needs::Baseline, compileReduceMax},
      {"tosa.reduce_min", "fast:reduce", Needs::Baseline, compileReduceMin},
      {"tosa.reduce_product", "fast:reduce", Needs::Baseline, compileReduceProduct},
      {"tosa.reduce_sum", "fast:reduce", Needs::Baseline, compileReduceSum},
      // ---- regions (plan_compile.cpp, collectRegion: values read by several ops of one step) ----
      {kRegionKernels, "fast:quantize_region", Needs::Baseline, compileQuantizeRegion},
  };
  return list;
}
// clang-format on

// Ops a kernel may absorb as a held-back producer (OpChain::Producer): the first operand's rescale (i8/i16 ->
// i32) in front of a quantized add/sub/mul (compileFusedQuantBinary).
constexpr const char* kHeldBackProducers[] = {"tosa.rescale"};

bool allowed(Needs needs) {
  switch (needs) {
    case Needs::Baseline: return true;
    case Needs::Avx2: return cpu::has(cpu::Isa::Avx2);
    case Needs::Avx512: return cpu::has(cpu::Isa::Avx512);
    case Needs::Avx512Vnni: return cpu::has(cpu::Isa::Avx512Vnni);
    case Needs::AnyVnni: return cpu::has(cpu::Isa::Avx512Vnni) || cpu::has(cpu::Isa::Avx2Vnni);
  }
  return false;
}

}  // namespace

const FastKernelRegistry& fastKernels() {
  static const FastKernelRegistry registry = [] {
    FastKernelRegistry r;
    for (const Implementation& impl : implementations())
      if (allowed(impl.needs)) r.add(impl.op, impl.factory);
    for (const char* op : kHeldBackProducers) r.allowProducer(op);
    return r;
  }();
  return registry;
}

}  // namespace tosakit::fast
