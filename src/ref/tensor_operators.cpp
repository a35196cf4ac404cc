// Spec section 2.3 Tensor operators: ARGMAX, AVG_POOL2D, CONV2D, CONV3D, DEPTHWISE_CONV2D, FFT2D, MATMUL,
// MAX_POOL2D, RFFT2D, TRANSPOSE_CONV2D.
//
// Each kernel first checks what tosa_execute_operator requires of its arguments (operand/result lists, ranks,
// the dimensions the argument tables name alike, the Supported Data Types table), then the operator's
// LEVEL_CHECKs and ERROR_IFs in the spec's order, then computes the pseudocode. Integer accumulation is exact
// in int64 with the REQUIREs of apply_add_s<acc_t>; floating-point accumulation rounds every step to acc_t
// (precise mode: no rounding, fp64 throughout; type checks use the declared types, ctx.dtypeOf).
#include <cmath>
#include <numbers>
#include <type_traits>

#include "ref/kernel.h"
#include "ref/spec_helpers.h"
#include "ref/tensor_operators_helpers.h"

namespace tosakit::ref {

namespace {

using namespace tensorops;

constexpr DType I4 = DType::I4, I8 = DType::I8, I16 = DType::I16, I32 = DType::I32, I48 = DType::I48,
                FP16 = DType::FP16, BF16 = DType::BF16, FP32 = DType::FP32, E4M3 = DType::FP8E4M3,
                E5M2 = DType::FP8E5M2;

std::string tn(DType t) { return std::string(dtypeName(t)); }

Status typesNotSupported(KernelContext& ctx, const std::string& combination) {
  return errorIf(ctx,
                 "operator data types do not meet requirement of operator Supported Data Types (" + combination + ")");
}

// ---- Supported Data Types tables ----

// CONV2D, CONV3D, DEPTHWISE_CONV2D, TRANSPOSE_CONV2D share one table.
struct ConvTypes {
  DType in, weight, out, acc;
};
constexpr ConvTypes kConvTypes[] = {
    {FP16, FP16, FP16, FP16}, {FP16, FP16, FP16, FP32}, {FP32, FP32, FP32, FP32},
    {I8, I8, I32, I32},       {BF16, BF16, BF16, FP32}, {E4M3, E4M3, FP16, FP16},
    {E5M2, E5M2, FP16, FP16}, {I16, I8, I48, I48},      {I8, I4, I32, I32},
};

// MATMUL: in_t -> out_t (out_t is also the accumulator).
constexpr std::pair<DType, DType> kMatmulTypes[] = {
    {FP16, FP16}, {FP16, FP32}, {FP32, FP32}, {I8, I32}, {BF16, FP32}, {E4M3, FP16}, {E5M2, FP16}, {I16, I48},
};

// AVG_POOL2D: in_out_t, acc_t.
constexpr std::pair<DType, DType> kAvgPoolTypes[] = {
    {FP16, FP16}, {FP16, FP32}, {FP32, FP32}, {I8, I32}, {BF16, FP32}, {E4M3, FP16}, {E5M2, FP16}, {I16, I32},
};

// MAX_POOL2D in_out_t and ARGMAX in_t (ARGMAX's out_t is always i32).
constexpr DType kMaxTypes[] = {FP16, FP32, I8, BF16, E4M3, E5M2, I16};

bool maxTypeSupported(DType t) {
  for (DType s : kMaxTypes)
    if (s == t) return true;
  return false;
}

// ---- shared convolution operand handling ----

struct ConvOperands {
  const Tensor* input;
  const Tensor* weight;
  const Tensor* bias;
  ZeroPoint inputZp, weightZp;
  DType accT;
};

// Argument checks shared by CONV2D / CONV3D / DEPTHWISE_CONV2D / TRANSPOSE_CONV2D: ranks, the Supported Data
// Types row (including acc_type), bias type, and the zero-point operands (read here, judged by
// convZeroPointChecks, whose two ERROR_IFs are identical in all four operators).
Status convOperands(KernelContext& ctx, const Inputs& in, const Tensor& output, int rank, ConvOperands& o) {
  o.input = in[0];
  o.weight = in[1];
  o.bias = in[2];
  TK_RETURN_IF_ERROR(checkRank(ctx, *o.input, rank, "input"));
  TK_RETURN_IF_ERROR(checkRank(ctx, *o.weight, rank, "weight"));
  TK_RETURN_IF_ERROR(checkRank(ctx, *o.bias, 1, "bias"));
  TK_RETURN_IF_ERROR(checkRank(ctx, output, rank, "output"));
  TK_RETURN_IF_ERROR(accTypeAttr(ctx, o.accT));
  DType inT = ctx.dtypeOf(*o.input), wT = ctx.dtypeOf(*o.weight), outT = ctx.dtypeOf(output);
  bool supported = false;
  for (const ConvTypes& r : kConvTypes)
    if (r.in == inT && r.weight == wT && r.out == outT && r.acc == o.accT) supported = true;
  if (!supported)
    return typesNotSupported(ctx, tn(inT) + " x " + tn(wT) + " -> " + tn(outT) + ", acc_type " + tn(o.accT));
  if (ctx.dtypeOf(*o.bias) != outT)
    return errorIf(ctx, "dtype(bias) " + tn(ctx.dtypeOf(*o.bias)) + " != out_t " + tn(outT));
  TK_RETURN_IF_ERROR(readZeroPoint(ctx, *in[3], inT, "input_zp", o.inputZp));
  TK_RETURN_IF_ERROR(readZeroPoint(ctx, *in[4], wT, "weight_zp", o.weightZp));
  return Status::ok();
}

// The zero-point ERROR_IFs come after the LEVEL_CHECKs in the spec; kept as a function so each kernel calls
// it at that place.
Status convZeroPointChecks(KernelContext& ctx, const ConvOperands& o) {
  const bool in_t_is_i8 = ctx.dtypeOf(*o.input) == DType::I8, weight_t_is_i8 = ctx.dtypeOf(*o.weight) == DType::I8;
  const bool input_zp_nonzero = o.inputZp.nonZero, weight_zp_nonzero = o.weightZp.nonZero;
  ERROR_IF(!in_t_is_i8 && input_zp_nonzero);  // Zero point only for int8_t
  ERROR_IF(!weight_t_is_i8 && weight_zp_nonzero);
  return Status::ok();
}

// ---- 2.3.1 ARGMAX ----

Status argmaxKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 1, 1));
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  const Shape& shape1 = input.shape();
  if (!maxTypeSupported(ctx.dtypeOf(input)) || ctx.dtypeOf(output) != I32)
    return typesNotSupported(ctx, tn(ctx.dtypeOf(input)) + " -> " + tn(ctx.dtypeOf(output)));
  if (!ctx.op.hasAttr("axis")) return ctx.errorIf("axis attribute missing");
  int64_t axis = ctx.op.intAttr("axis");
  NanMode nan_mode = parseNanMode(ctx.op);

  const int64_t MAX_RANK = ctx.level.maxRank;
  auto rank = [](const Shape& s) { return int64_t(s.size()); };
  LEVEL_CHECK(rank(shape1) <= MAX_RANK);
  ERROR_IF(input.rank() < 1);
  ERROR_IF(axis < 0 || axis >= input.rank());
  Shape left_shape(shape1.begin(), shape1.begin() + axis);
  Shape right_shape(shape1.begin() + axis + 1, shape1.end());
  Shape flat = left_shape;
  flat.insert(flat.end(), right_shape.begin(), right_shape.end());
  if (flat != output.shape())
    return errorIf(ctx,
                   "flatten(left_shape, right_shape) != shape (" + shapeToString(flat) + " vs " +
                       shapeToString(output.shape()) + ")");

  const int64_t outer = numElements(left_shape), inner = numElements(right_shape), K = shape1[size_t(axis)];
  const bool isFp = is_floating_point(ctx.dtypeOf(input));
  const std::vector<double> fvals = isFp ? input.toDoubles() : std::vector<double>{};
  const std::vector<int64_t> ivals = isFp ? std::vector<int64_t>{} : input.toInts();
  for (int64_t l = 0; l < outer; ++l) {
    for (int64_t r = 0; r < inner; ++r) {
      int64_t max_index = 0;
      if (isFp) {
        double max_value = nan_mode == NanMode::Ignore ? std::nan("") : lowestFloat(ctx.dtypeOf(input));
        for (int64_t i = 0; i < K; ++i) {
          double value = fvals[size_t((l * K + i) * inner + r)];
          double result = apply_max_f(value, max_value, nan_mode);
          // != is false for equal values and for +0/-0; two NaNs are "equal" here too.
          if (result != max_value && !(isNaN(result) && isNaN(max_value))) {
            max_value = result;
            max_index = i;
          }
        }
      } else {
        int64_t max_value = minimum_s(ctx.dtypeOf(input));
        for (int64_t i = 0; i < K; ++i) {
          int64_t result = apply_max_s(ivals[size_t((l * K + i) * inner + r)], max_value);
          if (result != max_value) {
            max_value = result;
            max_index = i;
          }
        }
      }
      output.setInt(l * inner + r, max_index);
    }
  }
  return Status::ok();
}

// ---- 2.3.2 AVG_POOL2D / 2.3.8 MAX_POOL2D shared geometry ----

struct PoolGeom {
  int64_t N, IH, IW, C, OH, OW;
  int64_t kernel_y, kernel_x, stride_y, stride_x, pad_top, pad_bottom, pad_left, pad_right;
};

// Shapes, attributes and the LEVEL_CHECK / ERROR_IF lines common to both pools (those after the zero-point
// checks in AVG_POOL2D; the zero-point checks are independent of these, so their order does not matter).
Status poolGeometry(KernelContext& ctx, const Tensor& input, const Tensor& output, PoolGeom& g) {
  TK_RETURN_IF_ERROR(checkRank(ctx, input, 4, "input"));
  TK_RETURN_IF_ERROR(checkRank(ctx, output, 4, "output"));
  std::vector<int64_t> kernel, stride, pad;
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "kernel", 2, kernel));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "stride", 2, stride));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "pad", 4, pad));
  g = {input.shape()[0],
       input.shape()[1],
       input.shape()[2],
       input.shape()[3],
       output.shape()[1],
       output.shape()[2],
       kernel[0],
       kernel[1],
       stride[0],
       stride[1],
       pad[0],
       pad[1],
       pad[2],
       pad[3]};
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 0, g.N, "output N != input N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 3, g.C, "output C != input C"));
  const int64_t IH = g.IH, IW = g.IW, OH = g.OH, OW = g.OW, kernel_y = g.kernel_y, kernel_x = g.kernel_x,
                stride_y = g.stride_y, stride_x = g.stride_x, pad_top = g.pad_top, pad_bottom = g.pad_bottom,
                pad_left = g.pad_left, pad_right = g.pad_right;
  const int64_t MAX_KERNEL = ctx.level.maxKernel, MAX_STRIDE = ctx.level.maxStride;
  LEVEL_CHECK(kernel_y <= MAX_KERNEL);
  LEVEL_CHECK(kernel_x <= MAX_KERNEL);
  LEVEL_CHECK(stride_y <= MAX_STRIDE);
  LEVEL_CHECK(stride_x <= MAX_STRIDE);
  LEVEL_CHECK(pad_top <= MAX_KERNEL);
  LEVEL_CHECK(pad_bottom <= MAX_KERNEL);
  LEVEL_CHECK(pad_left <= MAX_KERNEL);
  LEVEL_CHECK(pad_right <= MAX_KERNEL);
  ERROR_IF(kernel_y < 1 || kernel_x < 1);  // kernel size must be >= 1
  ERROR_IF(stride_y < 1 || stride_x < 1);
  ERROR_IF(pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0);
  // Padding must be less than kernel size (no window made only of padding; AVG_POOL2D: no divide by zero).
  ERROR_IF(pad_right >= kernel_x || pad_left >= kernel_x);
  ERROR_IF(pad_top >= kernel_y || pad_bottom >= kernel_y);
  ERROR_IF(OH != idiv_check(ctx, IH + pad_top + pad_bottom - kernel_y, stride_y) + 1);
  ERROR_IF(OW != idiv_check(ctx, IW + pad_left + pad_right - kernel_x, stride_x) + 1);
  return ctx.result();  // idiv_check's ERROR_IF
}

// ---- 2.3.2 AVG_POOL2D ----

template <class Arith>
Status avgPoolCompute(KernelContext& ctx, const PoolGeom& g, const Tensor& input, const ZeroPoint& input_zp,
                      const ZeroPoint& output_zp, DType accT, Tensor& output) {
  const DType in_out_t = ctx.dtypeOf(input);
  const Arith acc_t{ctx, accT};
  const std::vector<typename Arith::Value> in = Arith::read(input);
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oy = 0; oy < g.OH; ++oy)
      for (int64_t ox = 0; ox < g.OW; ++ox)
        for (int64_t c = 0; c < g.C; ++c) {
          typename Arith::Value acc = acc_t.zero();
          int64_t count = 0;
          const int64_t iy = oy * g.stride_y - g.pad_top;
          const int64_t ix = ox * g.stride_x - g.pad_left;
          for (int64_t ky = 0; ky < g.kernel_y; ++ky)
            for (int64_t kx = 0; kx < g.kernel_x; ++kx) {
              const int64_t y = iy + ky, x = ix + kx;
              // Only values from the input tensor are used to calculate the average, padding does not count.
              if (0 <= y && y < g.IH && 0 <= x && x < g.IW) {
                count++;
                typename Arith::Value value = in[size_t(((n * g.IH + y) * g.IW + x) * g.C + c)];
                value = acc_t.sub(value, acc_t.fromZp(input_zp));
                acc = acc_t.add(acc, value);
              }
            }
          const int64_t o = ((n * g.OH + oy) * g.OW + ox) * g.C + c;
          if constexpr (std::is_same_v<Arith, FloatArith>) {
            // The spec writes acc / static_cast<in_out_t>(count), but in_out_t cannot hold every count (fp8e5m2
            // rounds 9 to 8, bf16 rounds 257 to 256) while the precision rules define the output as the dot
            // product with 1/KS: the divisor is converted to acc_t, which holds every count of our tests.
            double output_val = acc_t.cast(acc / acc_t.cast(double(count)));
            output.setFloat(o, ctx.precise ? output_val : roundTo(in_out_t, output_val));
          } else {
            scale_t scale = reciprocal_scale(ctx, uint32_t(count));
            acc = apply_scale_32(ctx, int32_t(acc), scale.multiplier, scale.shift, false);
            acc = acc_t.add(acc, output_zp.value);
            acc = apply_clip_s(ctx, acc, minimum_s(in_out_t), maximum_s(in_out_t));
            output.setInt(o, acc);
          }
        }
  return Status::ok();
}

Status avgPool2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 3, 1));
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  DType accT;
  TK_RETURN_IF_ERROR(accTypeAttr(ctx, accT));
  bool supported = false;
  for (auto [t, a] : kAvgPoolTypes)
    if (t == ctx.dtypeOf(input) && a == accT) supported = true;
  if (!supported || ctx.dtypeOf(output) != ctx.dtypeOf(input))
    return typesNotSupported(ctx, tn(ctx.dtypeOf(input)) + " -> " + tn(ctx.dtypeOf(output)) + ", acc_type " + tn(accT));
  ZeroPoint input_zp, output_zp;
  TK_RETURN_IF_ERROR(readZeroPoint(ctx, *in[1], ctx.dtypeOf(input), "input_zp", input_zp));
  TK_RETURN_IF_ERROR(readZeroPoint(ctx, *in[2], ctx.dtypeOf(input), "output_zp", output_zp));
  PoolGeom g;
  TK_RETURN_IF_ERROR(poolGeometry(ctx, input, output, g));
  const bool in_out_t_is_i8 = ctx.dtypeOf(input) == DType::I8;
  const bool input_zp_nonzero = input_zp.nonZero, output_zp_nonzero = output_zp.nonZero;
  ERROR_IF(!in_out_t_is_i8 && input_zp_nonzero);   // Zero point only for int8_t
  ERROR_IF(!in_out_t_is_i8 && output_zp_nonzero);  // Zero point only for int8_t
  if (is_floating_point(ctx.dtypeOf(input)))
    return avgPoolCompute<FloatArith>(ctx, g, input, input_zp, output_zp, accT, output);
  return avgPoolCompute<IntArith>(ctx, g, input, input_zp, output_zp, accT, output);
}

// ---- 2.3.8 MAX_POOL2D ----

Status maxPool2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 1, 1));
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  if (!maxTypeSupported(ctx.dtypeOf(input)) || ctx.dtypeOf(output) != ctx.dtypeOf(input))
    return typesNotSupported(ctx, tn(ctx.dtypeOf(input)) + " -> " + tn(ctx.dtypeOf(output)));
  PoolGeom g;
  TK_RETURN_IF_ERROR(poolGeometry(ctx, input, output, g));
  const NanMode nan_mode = parseNanMode(ctx.op);
  const bool isFp = is_floating_point(ctx.dtypeOf(input));
  const std::vector<double> fvals = isFp ? input.toDoubles() : std::vector<double>{};
  const std::vector<int64_t> ivals = isFp ? std::vector<int64_t>{} : input.toInts();
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oy = 0; oy < g.OH; ++oy)
      for (int64_t ox = 0; ox < g.OW; ++ox)
        for (int64_t c = 0; c < g.C; ++c) {
          double facc = nan_mode == NanMode::Ignore ? std::nan("") : lowestFloat(ctx.dtypeOf(input));
          int64_t iacc = minimum_s(ctx.dtypeOf(input));
          const int64_t iy = oy * g.stride_y - g.pad_top;
          const int64_t ix = ox * g.stride_x - g.pad_left;
          for (int64_t ky = 0; ky < g.kernel_y; ++ky)
            for (int64_t kx = 0; kx < g.kernel_x; ++kx) {
              const int64_t y = iy + ky, x = ix + kx;
              if (y >= 0 && y < g.IH && x >= 0 && x < g.IW) {
                const size_t i = size_t(((n * g.IH + y) * g.IW + x) * g.C + c);
                if (isFp)
                  facc = apply_max_f(facc, fvals[i], nan_mode);
                else
                  iacc = apply_max_s(iacc, ivals[i]);
              }
            }
          const int64_t o = ((n * g.OH + oy) * g.OW + ox) * g.C + c;
          if (isFp)
            output.setFloat(o, facc);
          else
            output.setInt(o, iacc);
        }
  return Status::ok();
}

// The LEVEL_CHECKs and ERROR_IFs that CONV2D (2.3.3) and DEPTHWISE_CONV2D (2.3.5) share, in spec order.
Status checkConv2dWindow(KernelContext& ctx, const ConvOperands& o, int64_t IH, int64_t IW, int64_t KH, int64_t KW,
                         int64_t OH, int64_t OW, const std::vector<int64_t>& pad, const std::vector<int64_t>& stride,
                         const std::vector<int64_t>& dilation) {
  const int64_t pad_top = pad[0], pad_bottom = pad[1], pad_left = pad[2], pad_right = pad[3];
  const int64_t stride_y = stride[0], stride_x = stride[1], dilation_y = dilation[0], dilation_x = dilation[1];
  const int64_t MAX_KERNEL = ctx.level.maxKernel, MAX_STRIDE = ctx.level.maxStride;

  LEVEL_CHECK(dilation_y * KH <= MAX_KERNEL);
  LEVEL_CHECK(dilation_x * KW <= MAX_KERNEL);
  LEVEL_CHECK(pad_top <= MAX_KERNEL);
  LEVEL_CHECK(pad_bottom <= MAX_KERNEL);
  LEVEL_CHECK(pad_left <= MAX_KERNEL);
  LEVEL_CHECK(pad_right <= MAX_KERNEL);
  LEVEL_CHECK(stride_y <= MAX_STRIDE);
  LEVEL_CHECK(stride_x <= MAX_STRIDE);
  TK_RETURN_IF_ERROR(convZeroPointChecks(ctx, o));
  ERROR_IF(pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0);
  ERROR_IF(stride_y < 1 || stride_x < 1);
  ERROR_IF(dilation_y < 1 || dilation_x < 1);
  ERROR_IF(OH != idiv_check(ctx, IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1);
  ERROR_IF(OW != idiv_check(ctx, IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x, stride_x) + 1);
  return ctx.result();  // idiv_check's ERROR_IF
}

template <class Arith>
struct ConvValues {
  std::vector<typename Arith::Value> input, weight, bias;
};

// static_cast<acc_t>(tensor_read(...)) minus the zero point, done once per element instead of once per use:
// the result does not depend on the output position, and for every row of the type table (in_t and weight_t
// at most 16 bits, acc_t at least 32) the subtraction's REQUIRE cannot fail, so verdicts are unchanged.
template <class Arith>
ConvValues<Arith> readConvOperands(const Arith& acc_t, const ConvOperands& o) {
  ConvValues<Arith> r{Arith::read(*o.input), Arith::read(*o.weight), Arith::read(*o.bias)};
  for (auto& v : r.input) v = acc_t.sub(v, acc_t.fromZp(o.inputZp));
  for (auto& v : r.weight) v = acc_t.sub(v, acc_t.fromZp(o.weightZp));
  return r;
}

// ---- 2.3.3 CONV2D / 2.3.4 CONV3D ----

// CONV2D is computed as CONV3D with ID = KD = OD = 1, pad_d0 = pad_d1 = 0 and stride_d = dilation_d = 1: the
// two pseudocode loops are then identical (d = 0, kd = 0).
struct Conv3DGeom {
  int64_t N, ID, IH, IW, IC, OC, KD, KH, KW, OD, OH, OW, BC;
  int64_t pad_d0, pad_d1, pad_top, pad_bottom, pad_left, pad_right;
  int64_t stride_d, stride_y, stride_x, dilation_d, dilation_y, dilation_x;
};

template <class Arith>
Status conv3dCompute(KernelContext& ctx, const Conv3DGeom& g, const ConvOperands& o, Tensor& output) {
  using V = typename Arith::Value;
  const Arith acc_t{ctx, o.accT}, out_t{ctx, ctx.dtypeOf(output)};
  const auto [input, weight, bias] = readConvOperands(acc_t, o);

  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t od = 0; od < g.OD; ++od)
      for (int64_t oy = 0; oy < g.OH; ++oy)
        for (int64_t ox = 0; ox < g.OW; ++ox)
          for (int64_t oc = 0; oc < g.OC; ++oc) {
            V acc = acc_t.zero();
            const int64_t id = od * g.stride_d - g.pad_d0;
            const int64_t iy = oy * g.stride_y - g.pad_top;
            const int64_t ix = ox * g.stride_x - g.pad_left;
            for (int64_t kd = 0; kd < g.KD; ++kd)
              for (int64_t ky = 0; ky < g.KH; ++ky)
                for (int64_t kx = 0; kx < g.KW; ++kx) {
                  const int64_t d = id + kd * g.dilation_d;
                  const int64_t y = iy + ky * g.dilation_y;
                  const int64_t x = ix + kx * g.dilation_x;
                  // Padding contributes value 0 and, without tosa_extra_multiplies, no multiply at all.
                  if (!(0 <= x && x < g.IW && 0 <= y && y < g.IH && 0 <= d && d < g.ID)) continue;
                  const size_t in0 = size_t((((n * g.ID + d) * g.IH + y) * g.IW + x) * g.IC);
                  const size_t w0 = size_t((((oc * g.KD + kd) * g.KH + ky) * g.KW + kx) * g.IC);
                  for (int64_t ic = 0; ic < g.IC; ++ic)
                    acc = acc_t.add(acc, acc_t.mul(input[in0 + size_t(ic)], weight[w0 + size_t(ic)]));
                }
            V out = out_t.cast(acc);
            out = out_t.add(out, bias[size_t(g.BC == 1 ? 0 : oc)]);
            Arith::write(output, (((n * g.OD + od) * g.OH + oy) * g.OW + ox) * g.OC + oc, out);
          }
  return ctx.result();
}

Status conv3dRun(KernelContext& ctx, const Conv3DGeom& g, const ConvOperands& o, Tensor& output) {
  if (is_floating_point(o.accT)) return conv3dCompute<FloatArith>(ctx, g, o, output);
  return conv3dCompute<IntArith>(ctx, g, o, output);
}

Status conv2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 5, 1));
  Tensor& output = out[0];
  ConvOperands o;
  TK_RETURN_IF_ERROR(convOperands(ctx, in, output, 4, o));
  std::vector<int64_t> pad, stride, dilation;
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "pad", 4, pad));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "stride", 2, stride));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "dilation", 2, dilation));
  const Shape &is = o.input->shape(), &ws = o.weight->shape();
  const int64_t N = is[0], IH = is[1], IW = is[2], IC = is[3], OC = ws[0], KH = ws[1], KW = ws[2];
  const int64_t OH = output.shape()[1], OW = output.shape()[2], BC = o.bias->shape()[0];
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 0, N, "output N != input N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, *o.weight, 3, IC, "weight IC != input IC"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 3, OC, "output OC != weight OC"));
  const int64_t pad_top = pad[0], pad_bottom = pad[1], pad_left = pad[2], pad_right = pad[3];
  const int64_t stride_y = stride[0], stride_x = stride[1], dilation_y = dilation[0], dilation_x = dilation[1];
  TK_RETURN_IF_ERROR(checkConv2dWindow(ctx, o, IH, IW, KH, KW, OH, OW, pad, stride, dilation));
  ERROR_IF(BC != OC && BC != 1);

  const Conv3DGeom g{.N = N,
                     .ID = 1,
                     .IH = IH,
                     .IW = IW,
                     .IC = IC,
                     .OC = OC,
                     .KD = 1,
                     .KH = KH,
                     .KW = KW,
                     .OD = 1,
                     .OH = OH,
                     .OW = OW,
                     .BC = BC,
                     .pad_d0 = 0,
                     .pad_d1 = 0,
                     .pad_top = pad_top,
                     .pad_bottom = pad_bottom,
                     .pad_left = pad_left,
                     .pad_right = pad_right,
                     .stride_d = 1,
                     .stride_y = stride_y,
                     .stride_x = stride_x,
                     .dilation_d = 1,
                     .dilation_y = dilation_y,
                     .dilation_x = dilation_x};
  return conv3dRun(ctx, g, o, output);
}

Status conv3dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 5, 1));
  Tensor& output = out[0];
  ConvOperands o;
  TK_RETURN_IF_ERROR(convOperands(ctx, in, output, 5, o));
  std::vector<int64_t> pad, stride, dilation;
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "pad", 6, pad));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "stride", 3, stride));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "dilation", 3, dilation));
  const Shape &is = o.input->shape(), &ws = o.weight->shape(), &os = output.shape();
  const int64_t N = is[0], ID = is[1], IH = is[2], IW = is[3], IC = is[4];
  const int64_t OC = ws[0], KD = ws[1], KH = ws[2], KW = ws[3];
  const int64_t OD = os[1], OH = os[2], OW = os[3], BC = o.bias->shape()[0];
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 0, N, "output N != input N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, *o.weight, 4, IC, "weight IC != input IC"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 4, OC, "output OC != weight OC"));
  const int64_t pad_d0 = pad[0], pad_d1 = pad[1], pad_top = pad[2], pad_bottom = pad[3], pad_left = pad[4],
                pad_right = pad[5];
  const int64_t stride_d = stride[0], stride_y = stride[1], stride_x = stride[2];
  const int64_t dilation_d = dilation[0], dilation_y = dilation[1], dilation_x = dilation[2];
  const int64_t MAX_KERNEL = ctx.level.maxKernel, MAX_STRIDE = ctx.level.maxStride;

  LEVEL_CHECK(dilation_d * KD <= MAX_KERNEL);
  LEVEL_CHECK(dilation_y * KH <= MAX_KERNEL);
  LEVEL_CHECK(dilation_x * KW <= MAX_KERNEL);
  LEVEL_CHECK(pad_d0 <= MAX_KERNEL);
  LEVEL_CHECK(pad_d1 <= MAX_KERNEL);
  LEVEL_CHECK(pad_top <= MAX_KERNEL);
  LEVEL_CHECK(pad_bottom <= MAX_KERNEL);
  LEVEL_CHECK(pad_left <= MAX_KERNEL);
  LEVEL_CHECK(pad_right <= MAX_KERNEL);
  LEVEL_CHECK(stride_y <= MAX_STRIDE);
  LEVEL_CHECK(stride_x <= MAX_STRIDE);
  LEVEL_CHECK(stride_d <= MAX_STRIDE);
  TK_RETURN_IF_ERROR(convZeroPointChecks(ctx, o));
  ERROR_IF(pad_d0 < 0 || pad_d1 < 0 || pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0);
  ERROR_IF(stride_d < 1 || stride_y < 1 || stride_x < 1);
  ERROR_IF(dilation_d < 1 || dilation_y < 1 || dilation_x < 1);
  ERROR_IF(OD != idiv_check(ctx, ID - 1 + pad_d0 + pad_d1 - (KD - 1) * dilation_d, stride_d) + 1);
  ERROR_IF(OH != idiv_check(ctx, IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1);
  ERROR_IF(OW != idiv_check(ctx, IW - 1 + pad_left + pad_right - (KW - 1) * dilation_x, stride_x) + 1);
  TK_RETURN_IF_ERROR(ctx.result());
  ERROR_IF(BC != OC && BC != 1);

  Conv3DGeom g{N,         ID,       IH,       IW,       IC,         OC,         KD,        KH,         KW,
               OD,        OH,       OW,       BC,       pad_d0,     pad_d1,     pad_top,   pad_bottom, pad_left,
               pad_right, stride_d, stride_y, stride_x, dilation_d, dilation_y, dilation_x};
  return conv3dRun(ctx, g, o, output);
}

// ---- 2.3.5 DEPTHWISE_CONV2D ----

struct DepthwiseGeom {
  int64_t N, IH, IW, C, M, KH, KW, OH, OW, BC;
  int64_t pad_top, pad_left, stride_y, stride_x, dilation_y, dilation_x;
};

template <class Arith>
Status depthwiseCompute(KernelContext& ctx, const DepthwiseGeom& g, const ConvOperands& o, Tensor& output) {
  using V = typename Arith::Value;
  const Arith acc_t{ctx, o.accT}, out_t{ctx, ctx.dtypeOf(output)};
  const auto [input, weight, bias] = readConvOperands(acc_t, o);
  const int64_t C = g.C, M = g.M;

  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oy = 0; oy < g.OH; ++oy)
      for (int64_t ox = 0; ox < g.OW; ++ox)
        for (int64_t c = 0; c < C; ++c)
          for (int64_t m = 0; m < M; ++m) {
            V acc = acc_t.zero();
            const int64_t iy = oy * g.stride_y - g.pad_top;
            const int64_t ix = ox * g.stride_x - g.pad_left;
            for (int64_t ky = 0; ky < g.KH; ++ky)
              for (int64_t kx = 0; kx < g.KW; ++kx) {
                const int64_t y = iy + ky * g.dilation_y;
                const int64_t x = ix + kx * g.dilation_x;
                if (!(0 <= y && y < g.IH && 0 <= x && x < g.IW)) continue;
                const V value = input[size_t(((n * g.IH + y) * g.IW + x) * C + c)];
                const V weight_el = weight[size_t(((ky * g.KW + kx) * C + c) * M + m)];
                acc = acc_t.add(acc, acc_t.mul(value, weight_el));
              }
            V out = out_t.cast(acc);
            out = out_t.add(out, bias[size_t(g.BC == 1 ? 0 : c * M + m)]);
            Arith::write(output, ((n * g.OH + oy) * g.OW + ox) * (C * M) + c * M + m, out);
          }
  return ctx.result();
}

Status depthwiseConv2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 5, 1));
  Tensor& output = out[0];
  ConvOperands o;
  TK_RETURN_IF_ERROR(convOperands(ctx, in, output, 4, o));
  std::vector<int64_t> pad, stride, dilation;
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "pad", 4, pad));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "stride", 2, stride));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "dilation", 2, dilation));
  const Shape &is = o.input->shape(), &ws = o.weight->shape();
  const int64_t N = is[0], IH = is[1], IW = is[2], C = is[3], KH = ws[0], KW = ws[1], M = ws[3];
  const int64_t OH = output.shape()[1], OW = output.shape()[2], BC = o.bias->shape()[0];
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 0, N, "output N != input N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, *o.weight, 2, C, "weight C != input C"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 3, C * M, "output channels != C*M"));
  TK_RETURN_IF_ERROR(checkConv2dWindow(ctx, o, IH, IW, KH, KW, OH, OW, pad, stride, dilation));
  ERROR_IF(BC != C * M && BC != 1);
  const int64_t pad_top = pad[0], pad_left = pad[2];
  const int64_t stride_y = stride[0], stride_x = stride[1], dilation_y = dilation[0], dilation_x = dilation[1];

  DepthwiseGeom g{N, IH, IW, C, M, KH, KW, OH, OW, BC, pad_top, pad_left, stride_y, stride_x, dilation_y, dilation_x};
  if (is_floating_point(o.accT)) return depthwiseCompute<FloatArith>(ctx, g, o, output);
  return depthwiseCompute<IntArith>(ctx, g, o, output);
}

// ---- 2.3.10 TRANSPOSE_CONV2D ----

struct TransposeGeom {
  int64_t N, IH, IW, IC, OC, KH, KW, OH, OW, BC;
  int64_t out_pad_top, out_pad_left, stride_y, stride_x;
};

template <class Arith>
Status transposeConvCompute(KernelContext& ctx, const TransposeGeom& g, const ConvOperands& o, Tensor& output) {
  using V = typename Arith::Value;
  const Arith acc_t{ctx, o.accT}, out_t{ctx, ctx.dtypeOf(output)};
  const auto [input, weight, bias] = readConvOperands(acc_t, o);
  const int64_t stride_y = g.stride_y, stride_x = g.stride_x;

  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oy = 0; oy < g.OH; ++oy)
      for (int64_t ox = 0; ox < g.OW; ++ox)
        for (int64_t oc = 0; oc < g.OC; ++oc) {
          V acc = acc_t.zero();
          const int64_t iy = oy - g.out_pad_top;
          const int64_t ix = ox - g.out_pad_left;
          for (int64_t ky = 0; ky < g.KH; ++ky)
            for (int64_t kx = 0; kx < g.KW; ++kx) {
              const int64_t y = iy - ky;
              const int64_t x = ix - kx;
              // Only positions that land on an input sample contribute (no tosa_extra_multiplies).
              if (!(0 <= y && y < g.IH * stride_y && 0 <= x && x < g.IW * stride_x && (y % stride_y) == 0 &&
                    (x % stride_x) == 0))
                continue;
              const size_t in0 = size_t(((n * g.IH + y / stride_y) * g.IW + x / stride_x) * g.IC);
              const size_t w0 = size_t(((oc * g.KH + ky) * g.KW + kx) * g.IC);
              for (int64_t ic = 0; ic < g.IC; ++ic)
                acc = acc_t.add(acc, acc_t.mul(input[in0 + size_t(ic)], weight[w0 + size_t(ic)]));
            }
          V out = out_t.cast(acc);
          out = out_t.add(out, bias[size_t(g.BC == 1 ? 0 : oc)]);
          Arith::write(output, ((n * g.OH + oy) * g.OW + ox) * g.OC + oc, out);
        }
  return ctx.result();
}

Status transposeConv2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 5, 1));
  Tensor& output = out[0];
  ConvOperands o;
  TK_RETURN_IF_ERROR(convOperands(ctx, in, output, 4, o));
  std::vector<int64_t> out_pad, stride;
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "out_pad", 4, out_pad));
  TK_RETURN_IF_ERROR(intArrayAttr(ctx, "stride", 2, stride));
  const Shape &is = o.input->shape(), &ws = o.weight->shape();
  const int64_t N = is[0], IH = is[1], IW = is[2], IC = is[3], OC = ws[0], KH = ws[1], KW = ws[2];
  const int64_t OH = output.shape()[1], OW = output.shape()[2], BC = o.bias->shape()[0];
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 0, N, "output N != input N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, *o.weight, 3, IC, "weight IC != input IC"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 3, OC, "output OC != weight OC"));
  const int64_t out_pad_top = out_pad[0], out_pad_bottom = out_pad[1], out_pad_left = out_pad[2],
                out_pad_right = out_pad[3];
  const int64_t stride_y = stride[0], stride_x = stride[1];
  const int64_t MAX_KERNEL = ctx.level.maxKernel, MAX_STRIDE = ctx.level.maxStride;

  LEVEL_CHECK(KH <= MAX_KERNEL);
  LEVEL_CHECK(KW <= MAX_KERNEL);
  LEVEL_CHECK(out_pad_top <= MAX_KERNEL);
  LEVEL_CHECK(out_pad_bottom <= MAX_KERNEL);
  LEVEL_CHECK(out_pad_left <= MAX_KERNEL);
  LEVEL_CHECK(out_pad_right <= MAX_KERNEL);
  LEVEL_CHECK(stride_y <= MAX_STRIDE);
  LEVEL_CHECK(stride_x <= MAX_STRIDE);
  TK_RETURN_IF_ERROR(convZeroPointChecks(ctx, o));
  ERROR_IF(out_pad_top <= -KH || out_pad_bottom <= -KH);
  ERROR_IF(out_pad_left <= -KW || out_pad_right <= -KW);
  ERROR_IF(stride_y < 1 || stride_x < 1);
  ERROR_IF(OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH);
  ERROR_IF(OW != (IW - 1) * stride_x + out_pad_left + out_pad_right + KW);
  ERROR_IF(BC != OC && BC != 1);

  TransposeGeom g{N, IH, IW, IC, OC, KH, KW, OH, OW, BC, out_pad_top, out_pad_left, stride_y, stride_x};
  if (is_floating_point(o.accT)) return transposeConvCompute<FloatArith>(ctx, g, o, output);
  return transposeConvCompute<IntArith>(ctx, g, o, output);
}

// ---- 2.3.7 MATMUL ----

template <class Arith>
Status matmulCompute(KernelContext& ctx, const Tensor& A, const Tensor& B, const ZeroPoint& A_zp, const ZeroPoint& B_zp,
                     Tensor& output) {
  using V = typename Arith::Value;
  const Arith out_t{ctx, ctx.dtypeOf(output)};  // MATMUL accumulates in out_t
  const int64_t N = A.shape()[0], H = A.shape()[1], C = A.shape()[2], W = B.shape()[2];
  // static_cast<out_t>(tensor_read(...)) minus the zero point, once per element (the REQUIRE of this
  // subtraction cannot fail: in_t is at most 16 bits, out_t at least 32).
  std::vector<V> a = Arith::read(A), b = Arith::read(B);
  for (V& v : a) v = out_t.sub(v, out_t.fromZp(A_zp));
  for (V& v : b) v = out_t.sub(v, out_t.fromZp(B_zp));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t w = 0; w < W; ++w) {
        V acc = out_t.zero();
        for (int64_t c = 0; c < C; ++c) {
          const V value1 = a[size_t((n * H + h) * C + c)];
          const V value2 = b[size_t((n * C + c) * W + w)];
          acc = out_t.add(acc, out_t.mul(value1, value2));
        }
        Arith::write(output, (n * H + h) * W + w, acc);
      }
  return ctx.result();
}

Status matmulKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 4, 1));
  const Tensor &A = *in[0], &B = *in[1];
  Tensor& output = out[0];
  TK_RETURN_IF_ERROR(checkRank(ctx, A, 3, "A"));
  TK_RETURN_IF_ERROR(checkRank(ctx, B, 3, "B"));
  TK_RETURN_IF_ERROR(checkRank(ctx, output, 3, "output"));
  const DType in_t = ctx.dtypeOf(A);
  bool supported = false;
  for (auto [i, o] : kMatmulTypes)
    if (i == in_t && o == ctx.dtypeOf(output)) supported = true;
  if (!supported || ctx.dtypeOf(B) != in_t)
    return typesNotSupported(ctx, tn(ctx.dtypeOf(A)) + " x " + tn(ctx.dtypeOf(B)) + " -> " + tn(ctx.dtypeOf(output)));
  ZeroPoint A_zp, B_zp;
  TK_RETURN_IF_ERROR(readZeroPoint(ctx, *in[2], in_t, "A_zp", A_zp));
  TK_RETURN_IF_ERROR(readZeroPoint(ctx, *in[3], in_t, "B_zp", B_zp));
  const int64_t N = A.shape()[0], H = A.shape()[1], C = A.shape()[2], W = B.shape()[2];
  TK_RETURN_IF_ERROR(checkDim(ctx, B, 0, N, "B N != A N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, B, 1, C, "B C != A C"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 0, N, "output N != A N"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 1, H, "output H != A H"));
  TK_RETURN_IF_ERROR(checkDim(ctx, output, 2, W, "output W != B W"));
  // The spec prints ERROR_IF(is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)), which contradicts its own
  // comment ("Zero point only for i8_t"), the argument table ("Must be zero for non-int8 types") and every
  // other operator: the evident intent, implemented here, is !is_same<in_t,i8_t>.
  const bool in_t_is_i8 = in_t == DType::I8, A_zp_nonzero = A_zp.nonZero, B_zp_nonzero = B_zp.nonZero;
  ERROR_IF(!in_t_is_i8 && (A_zp_nonzero || B_zp_nonzero));  // Zero point only for i8_t
  if (is_floating_point(ctx.dtypeOf(output))) return matmulCompute<FloatArith>(ctx, A, B, A_zp, B_zp, output);
  return matmulCompute<IntArith>(ctx, A, B, A_zp, B_zp, output);
}

// ---- 2.3.6 FFT2D / 2.3.9 RFFT2D ----

bool power_of_two(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

// in_out_t is fp32 (EXT-FFT's only row). The sums are in_out_t as the pseudocode declares them, so each
// product and addition is rounded to fp32; the angle and its cosine/sine are evaluated in fp64 and the
// coefficients rounded to fp32 once (the precision rules treat them as a constant coefficient vector).
Status fftShapes(KernelContext& ctx, const Tensor& input_real, const Outputs& out, int64_t outW) {
  TK_RETURN_IF_ERROR(checkRank(ctx, input_real, 3, "input_real"));
  TK_RETURN_IF_ERROR(checkRank(ctx, out[0], 3, "output_real"));
  TK_RETURN_IF_ERROR(checkRank(ctx, out[1], 3, "output_imag"));
  if (ctx.dtypeOf(input_real) != FP32 || ctx.dtypeOf(out[0]) != FP32 || ctx.dtypeOf(out[1]) != FP32)
    return typesNotSupported(
        ctx, tn(ctx.dtypeOf(input_real)) + " -> " + tn(ctx.dtypeOf(out[0])) + ", " + tn(ctx.dtypeOf(out[1])));
  const Shape expected{input_real.shape()[0], input_real.shape()[1], outW};
  if (out[0].shape() != expected || out[1].shape() != expected)
    return errorIf(ctx,
                   "output shapes " + shapeToString(out[0].shape()) + ", " + shapeToString(out[1].shape()) +
                       " != [N,H," + (outW == input_real.shape()[2] ? "W" : "W/2 + 1") +
                       "] = " + shapeToString(expected));
  return Status::ok();
}

Status fft2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 2, 2));
  const Tensor &input_real = *in[0], &input_imag = *in[1];
  TK_RETURN_IF_ERROR(checkRank(ctx, input_imag, 3, "input_imag"));
  if (ctx.dtypeOf(input_imag) != ctx.dtypeOf(input_real))
    return typesNotSupported(ctx, tn(ctx.dtypeOf(input_real)) + ", " + tn(ctx.dtypeOf(input_imag)));
  if (input_imag.shape() != input_real.shape())
    return errorIf(ctx,
                   "shape(input_imag) " + shapeToString(input_imag.shape()) + " != shape(input_real) " +
                       shapeToString(input_real.shape()));
  TK_RETURN_IF_ERROR(fftShapes(ctx, input_real, out, input_real.rank() == 3 ? input_real.shape()[2] : 0));
  const int64_t N = input_real.shape()[0], H = input_real.shape()[1], W = input_real.shape()[2];
  const int64_t MAX_KERNEL = ctx.level.maxKernel;
  LEVEL_CHECK(H <= MAX_KERNEL);
  LEVEL_CHECK(W <= MAX_KERNEL);
  ERROR_IF(!power_of_two(H));
  ERROR_IF(!power_of_two(W));

  const double sign_val = ctx.op.boolAttr("inverse") ? -1.0 : 1.0;
  const FloatRounder R(ctx.precise ? DType::FP64 : FP32);  // in_out_t arithmetic (precise mode: fp64)
  const std::vector<double> re = input_real.toDoubles(), im = input_imag.toDoubles();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < H; ++oy)
      for (int64_t ox = 0; ox < W; ++ox) {
        double sum_real = 0.0, sum_imag = 0.0;
        for (int64_t iy = 0; iy < H; ++iy)
          for (int64_t ix = 0; ix < W; ++ix) {
            const double val_real = re[size_t((n * H + iy) * W + ix)];
            const double val_imag = im[size_t((n * H + iy) * W + ix)];
            const int64_t ay = (iy * oy) % H;
            const int64_t ax = (ix * ox) % W;
            const double a = sign_val * 2 * std::numbers::pi * (double(ay) / double(H) + double(ax) / double(W));
            const double cos_a = R(std::cos(a)), sin_a = R(std::sin(a));
            sum_real = R(sum_real + R(R(val_real * cos_a) + R(val_imag * sin_a)));
            sum_imag = R(sum_imag + R(R(-val_real * sin_a) + R(val_imag * cos_a)));
          }
        out[0].setFloat((n * H + oy) * W + ox, sum_real);
        out[1].setFloat((n * H + oy) * W + ox, sum_imag);
      }
  return Status::ok();
}

Status rfft2dKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  TK_RETURN_IF_ERROR(checkArity(ctx, in, out, 1, 2));
  const Tensor& input_real = *in[0];
  TK_RETURN_IF_ERROR(fftShapes(ctx, input_real, out, input_real.rank() == 3 ? input_real.shape()[2] / 2 + 1 : 0));
  const int64_t N = input_real.shape()[0], H = input_real.shape()[1], W = input_real.shape()[2];
  const int64_t MAX_KERNEL = ctx.level.maxKernel;
  LEVEL_CHECK(H <= MAX_KERNEL);
  LEVEL_CHECK(W <= MAX_KERNEL);
  ERROR_IF(!power_of_two(H));
  ERROR_IF(!power_of_two(W));

  const int64_t OW = W / 2 + 1;
  const FloatRounder R(ctx.precise ? DType::FP64 : FP32);  // in_out_t arithmetic (precise mode: fp64)
  const std::vector<double> re = input_real.toDoubles();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < H; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox) {
        double sum_real = 0.0, sum_imag = 0.0;
        for (int64_t iy = 0; iy < H; ++iy)
          for (int64_t ix = 0; ix < W; ++ix) {
            const double val_real = re[size_t((n * H + iy) * W + ix)];
            const int64_t ay = (iy * oy) % H;
            const int64_t ax = (ix * ox) % W;
            const double a = 2 * std::numbers::pi * (double(ay) / double(H) + double(ax) / double(W));
            sum_real = R(sum_real + R(val_real * R(std::cos(a))));
            // sin(a) is exactly 0 where both angles are multiples of pi: skipped (no tosa_extra_multiplies).
            if ((H > 1 && (ay % (H / 2)) > 0) || (W > 1 && (ax % (W / 2)) > 0))
              sum_imag = R(sum_imag + R(-val_real * R(std::sin(a))));
          }
        // The spec writes these with shape [N,H,W]; the outputs are [N,H,W/2 + 1] (its argument table).
        out[0].setFloat((n * H + oy) * OW + ox, sum_real);
        out[1].setFloat((n * H + oy) * OW + ox, sum_imag);
      }
  return Status::ok();
}

}  // namespace

void registerTensorOperators(KernelRegistry& r) {
  r.add("tosa.argmax", argmaxKernel);
  r.add("tosa.avg_pool2d", avgPool2dKernel);
  r.add("tosa.conv2d", conv2dKernel);
  r.add("tosa.conv3d", conv3dKernel);
  r.add("tosa.depthwise_conv2d", depthwiseConv2dKernel);
  r.add("tosa.fft2d", fft2dKernel);
  r.add("tosa.matmul", matmulKernel);
  r.add("tosa.max_pool2d", maxPool2dKernel);
  r.add("tosa.rfft2d", rfft2dKernel);
  r.add("tosa.transpose_conv2d", transposeConv2dKernel);
}

}  // namespace tosakit::ref
