// tosakit::lang — a BMLang-style operator API: build a network op by op in C++, with BMLang's fixed-point
// semantics, lowered to TOSA 1.0 as it is built; then compile (validate for a target), save (.mlir/.spv) or
// run it. docs/API.md is the user guide; the model is SOPHGO's BMLang operator reference
// (the BMLang operator documentation), whose operator and parameter names are kept.
//
//   lang::Graph g;
//   lang::Var x = g.input("x", DType::I8, {1, 3, 8, 8});               // NCHW, as in BMLang
//   lang::ConvParam p; p.pad_h_t = p.pad_h_b = p.pad_w_l = p.pad_w_r = 1; p.scale = 1.0 / 64;
//   lang::Var y = g.conv(x, g.coeff(weights), g.coeff(bias), p, DType::I8);
//   g.output(y, "y");
//   Status s = g.compile();                      // the first operator error, else every TOSA violation
//   s = g.save("net.mlir");
//   Result<NamedTensors> out = g.run({{"x", input}});
//
// Conventions
// - Layout and shapes are BMLang's (NCHW, weights [oc, ic, kh, kw]); transposes to TOSA's NHWC are inserted.
// - Element types: DType::I8, U8, I16, U16, I32, FP32. TOSA 1.0 has no unsigned tensors: a U8/U16 tensor is
//   stored as i8/i16 bit patterns in the TOSA graph and read through RESCALE's unsigned flags; Graph::run
//   converts U8/U16 inputs and outputs for you (Session users pass I8/I16 bit patterns).
// - Integer operators compute exactly in 32 bits and saturate to the output type, as BMLang says; "rounding
//   right shift" is BMLang's mul_shift rounding, ((x >> (s - 1)) + 1) >> 1 (TOSA ARITHMETIC_RIGHT_SHIFT with
//   round = true); "round" of a real value is round half away from zero (C round()).
// - Errors: an operator that cannot be built records an error (Status Unsupported when TOSA 1.0 cannot
//   express it, InvalidArgument for a bad shape/type/parameter) naming the operator, and returns an
//   error Var; later operators on an error Var are skipped silently. status(), compile(), save() and run()
//   report the first error. Nothing throws.
// - Plain value types only (ints, doubles, enums, std::vector, std::string), so the API binds to Python
//   (tosakit.lang) one to one.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit::lang {

// A tensor of the graph being built (BMLang's Tensor): a handle valid in the Graph that made it.
// id >= 0: a tensor; kNone: "no tensor" (an absent optional operand, e.g. no bias); kError: the result of an
// operator that failed.
struct Var {
  static constexpr int kNone = -1;
  static constexpr int kError = -2;
  int id = kNone;
  bool valid() const { return id >= 0; }
};

// INT8 quantized computation modes of conv / deconv / conv3d / matrix_mul (BMLang's QCalMode).
enum class QCalMode { LowPrecisionSymmetric = 0, HighPrecisionSymmetric = 1, HighPrecisionAsymmetric = 2 };

struct ConvParam {
  int dh = 1, dw = 1;  // dilation
  int pad_h_t = 0, pad_h_b = 0, pad_w_l = 0, pad_w_r = 0;
  int stride_h = 1, stride_w = 1;
  int groups = 1;
  // Quantized computation (integer input): output = Round{[(input - zp_l) Conv (weight - zp_r) + bias] * scale}
  // + zp_o, computed as the mode's pseudocode says.
  double scale = 1.0;
  QCalMode mode = QCalMode::LowPrecisionSymmetric;
  int left_zero_point = 0;
  int right_zero_point = 0;
  int output_zero_point = 0;
};

struct Conv3dParam {
  int groups = 1;
  std::vector<int> dilation = {1, 1, 1};      // d, h, w
  std::vector<int> pad = {0, 0, 0, 0, 0, 0};  // d_front, d_back, h_top, h_bottom, w_left, w_right
  std::vector<int> stride = {1, 1, 1};        // d, h, w
  double scale = 1.0;                         // quantized computation as ConvParam
  QCalMode mode = QCalMode::LowPrecisionSymmetric;
  int left_zero_point = 0;
  int right_zero_point = 0;
  int output_zero_point = 0;
};

struct MatrixMulParam {
  double scale = 1.0;
  QCalMode mode = QCalMode::LowPrecisionSymmetric;
  int left_zero_point = 0;
  int right_zero_point = 0;
  int output_zero_point = 0;
};

// fc_int: output(int32) = (input - izp) FC (kernel - kzp) + bias. Per-channel zero points (izp_vec,
// kzp_vec) are not supported.
struct FCIntParam {
  bool weight_trans = false;  // kernel given as [output_depth, accum_depth]
  bool is_izp_const = true;
  int izp_val = 0;
  std::vector<int> izp_vec;
  bool is_kzp_const = true;
  int kzp_val = 0;
  std::vector<int> kzp_vec;
};

enum class PoolType { MAX = 0, AVE = 1 };

struct PoolParam {
  int stride_h = 1, stride_w = 1;
  int pad_h = 0, pad_w = 0;  // top/left; bottom/right = pad + pad_*_offset
  int pad_h_offset = 0, pad_w_offset = 0;
  int kernel_h = 1, kernel_w = 1;
  PoolType pooling_type = PoolType::MAX;
  bool is_global_pooling = false;
  bool is_ceil_mode = false;
  bool is_ave_count_zero_pad = true;  // average divides by the whole window, padding included
};

struct PoolIntParam {
  int stride_h = 1, stride_w = 1;
  int pad_h_t = 0, pad_h_b = 0, pad_w_l = 0, pad_w_r = 0;
  int kernel_h = 1, kernel_w = 1;
  bool is_avg_pooling = false;
  int out_ceil_mode = 0;
  // Average: quant_mode 1: round(sum / count) half away from zero (count = window elements inside the
  // input); quant_mode 2: (sum * scale) >> rshift rounding half up.
  int quant_mode = 1;
  int scale = 1;
  int rshift = 0;
};

enum class ActiveType {
  ACTIVE_TANH,
  ACTIVE_SIGMOID,
  ACTIVE_RELU,
  ACTIVE_EXP,
  ACTIVE_ELU,
  ACTIVE_SQRT,
  ACTIVE_SQUARE,
  ACTIVE_RSQRT,
  ACTIVE_ABSVAL,
  ACTIVE_LN,
  ACTIVE_ROUND,
  ACTIVE_CEIL,
  ACTIVE_FLOOR,
  ACTIVE_SIN,
  ACTIVE_COS,
  ACTIVE_LEAKY_RELU,
};

enum class PadType { PAD_CONSTANT = 0, PAD_REFLECT = 1, PAD_SYMMETRIC = 2, PAD_EDGE = 3 };
enum class SelectType { GREATER_THAN = 0, GREATER_EQUAL = 1 };
enum class ReduceMethod { REDUCE_MEAN = 0, REDUCE_SUM = 1, REDUCE_MAX = 2, REDUCE_MIN = 3, REDUCE_PROD = 4 };
enum class InterpolateMode { NEAREST = 0, BILINEAR = 1 };

struct ReduceParam {
  ReduceMethod method = ReduceMethod::REDUCE_MEAN;
  std::vector<int> axis_list;
  bool keep_dims = true;
};

struct ArgParam {
  int axis = 0;
  int method = 0;  // 0: max, 1: min
};

struct TopkParam {
  int k = 1;
  int axis = 0;
  bool descending = true;
};

struct InterpolateParam {
  InterpolateMode method = InterpolateMode::NEAREST;
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// requant_int32 (modes 0, 1, 2 as BMLang defines them); per-channel vectors run along axis 1 (C of NCHW).
struct RequantInt32Param {
  bool is_mul_shift_pc = false;
  int multiplier_val = 1 << 30;
  int shift_val = 0;  // BMLang's scale_val: the shift
  std::vector<int> multiplier_vec;
  std::vector<int> shift_vec;
  bool is_offset_pc = false;
  int offset_val = 0;
  std::vector<int> offset_vec;
};

// requant_fp32_to_int (mode 0: saturate(round(x * scale) + offset); mode 1: saturate(round(x * scale +
// offset_fp))) and dequant_int_to_fp32 ((x - offset) * scale); per-channel vectors along axis 1.
struct RequantFp32Param {
  bool is_scale_pc = false;
  float scale_val = 1.0f;
  std::vector<float> scale_vec;
  bool is_offset_pc = false;
  int offset_val = 0;
  std::vector<int> offset_vec;
  float offset_fp_val = 0.0f;
  std::vector<float> offset_fp_vec;
  int mode = 0;
};
using DequantInt32Param = RequantFp32Param;

struct NormParam {
  float epsilon = 1e-5f;
};

class Graph {
 public:
  // Builds the function `functionName` of a new module.
  explicit Graph(std::string functionName = "main");
  ~Graph();
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // ---- Tensors -------------------------------------------------------------------------------------
  // A graph input (a function argument) named `name`.
  Var input(const std::string& name, DType dtype, const std::vector<int64_t>& shape);
  // A constant tensor (BMLang's COEFF_TENSOR / constdata). U8/U16 data is stored as i8/i16 bit patterns.
  Var coeff(const Tensor& data, const std::string& name = {});
  // Marks `v` as a graph output named `name` (outputs keep the order of these calls).
  void output(Var v, const std::string& name);
  DType dtype(Var v) const;                 // FP32 for a non-tensor
  std::vector<int64_t> shape(Var v) const;  // empty for a non-tensor

  // ---- NN / matrix ---------------------------------------------------------------------------------
  // input [N, IC, H, W]; weight (coeff) [OC, IC/groups, KH, KW]; bias (coeff or none) [1, OC, 1, 1] or [OC].
  // FP32: plain convolution. I8/U8 input and weight: the ConvParam mode's fixed-point computation; out_dtype
  // I8/U8/I16/U16 (default: the input's type).
  Var conv(Var input, Var weight, Var bias, const ConvParam& param, std::optional<DType> out_dtype = {});
  // weight [IC, OC, KH, KW]; padding removes rows/columns as in BMLang/PyTorch (output = (I-1)*s - pads + K).
  // Integer: LowPrecisionSymmetric only (as BMLang's deconv).
  Var deconv(Var input, Var weight, Var bias, const ConvParam& param, std::optional<DType> out_dtype = {});
  // input [N, IC, D, H, W]; weight [OC, IC, KD, KH, KW]; bias [OC] or [1, OC, 1, 1, 1]; groups 1.
  Var conv3d(Var input, Var weight, Var bias, const Conv3dParam& param, std::optional<DType> out_dtype = {});
  // left [M, K]; right [K, N] (coeff for HighPrecisionAsymmetric); bias [1, N] or [N] (coeff or none).
  Var matrix_mul(Var left, Var right, Var bias, const MatrixMulParam& param, std::optional<DType> out_dtype = {});
  // input [B, M, K] I8/U8; kernel (coeff) [K, N] ([N, K] with weight_trans); bias (coeff or none) [N] I32.
  // Output I32.
  Var fc_int(Var input, Var kernel, Var bias, const FCIntParam& param);
  Var pool(Var input, const PoolParam& param);
  Var pool_int(Var input, const PoolIntParam& param, std::optional<DType> out_dtype = {});
  // FP32 inference normalisation: (x - mean) / sqrt(variance + epsilon) * gamma + beta, per channel (axis 1);
  // mean/variance/gamma/beta shape [C]; gamma/beta may be none (1 and 0).
  Var batch_norm(Var input, Var mean, Var variance, Var gamma, Var beta, const NormParam& param);
  Var softmax(Var input, int axis);

  // ---- Element-wise --------------------------------------------------------------------------------
  // Two tensors of the same rank, broadcasting dims of 1. Integer inputs: exact result saturated to out_dtype
  // (default: the first input's type). div: FP32 only.
  Var add(Var a, Var b, std::optional<DType> out_dtype = {});
  Var sub(Var a, Var b, std::optional<DType> out_dtype = {});
  Var mul(Var a, Var b, std::optional<DType> out_dtype = {});
  Var div(Var a, Var b);
  Var max(Var a, Var b);
  Var min(Var a, Var b);
  // Tensor-scalar forms (rsubs = scalar - x, rdivs = scalar / x).
  Var adds(Var a, double scalar, std::optional<DType> out_dtype = {});
  Var subs(Var a, double scalar, std::optional<DType> out_dtype = {});
  Var rsubs(double scalar, Var a, std::optional<DType> out_dtype = {});
  Var muls(Var a, double scalar, std::optional<DType> out_dtype = {});
  Var divs(Var a, double scalar);
  Var rdivs(double scalar, Var a);
  Var maxs(Var a, double scalar);
  Var mins(Var a, double scalar);
  // (a op b) computed in 32 bits, then rounding right shift by `shift`, saturated to out_dtype.
  Var add_shift(Var a, Var b, int shift, std::optional<DType> out_dtype = {});
  Var sub_shift(Var a, Var b, int shift, std::optional<DType> out_dtype = {});
  Var mul_shift(Var a, Var b, int shift, std::optional<DType> out_dtype = {});
  Var adds_shift(Var a, int scalar, int shift, std::optional<DType> out_dtype = {});
  Var subs_shift(Var a, int scalar, int shift, std::optional<DType> out_dtype = {});
  Var rsubs_shift(int scalar, Var a, int shift, std::optional<DType> out_dtype = {});
  Var muls_shift(Var a, int scalar, int shift, std::optional<DType> out_dtype = {});
  // Arithmetic shifts of an I32/I16/U16 tensor by a tensor of shift amounts (negative: the other way) or a
  // scalar; the result keeps the input type (bits shifted out on the left are lost).
  Var arith_lshift(Var x, Var num);
  Var arith_rshift(Var x, Var num);
  Var arith_lshifts(Var x, int num);
  Var arith_rshifts(Var x, int num);
  // Rounding right shift (BMLang mul_shift rounding) of I16/U16 (or I32/I8/U8) input, saturated to out_dtype.
  Var round_rshift(Var x, Var num, std::optional<DType> out_dtype = {});
  Var round_rshifts(Var x, int num, std::optional<DType> out_dtype = {});
  Var clamp(Var x, double min, double max);
  // Type conversion, saturating; float to integer rounds half away from zero.
  Var cast(Var x, DType out_dtype);
  Var active(Var x, ActiveType type, std::optional<DType> out_dtype = {});
  // active with parameters: ACTIVE_LEAKY_RELU takes params[0] = negative_slope (FP32 input).
  Var active_param(Var x, ActiveType type, const std::vector<float>& params, std::optional<DType> out_dtype = {});
  // Comparisons: 1 where true, else 0, in the input type.
  Var gt(Var a, Var b);
  Var ge(Var a, Var b);
  Var lt(Var a, Var b);
  Var le(Var a, Var b);
  Var eq(Var a, Var b);
  Var ne(Var a, Var b);
  // Table lookup: x I8/U8, table (coeff) of 256 I8/U8/FP32 entries; entry index = the input byte read as
  // unsigned (x & 0xff). Output has the table's type.
  Var lut(Var x, Var table);

  // ---- Select --------------------------------------------------------------------------------------
  // cond > 0 ? sel0 : sel1 (sel0/sel1 may be one-element coeffs).
  Var condition_select(Var cond, Var sel0, Var sel1);
  // a > b (or a >= b) ? c : d.
  Var select(Var a, Var b, Var c, Var d, SelectType type);
  // BMLang's where (indices of the non-zero elements): data-dependent shape -> Unsupported.
  Var where(Var x);
  Var index_select(Var x, int dim, Var index);

  // ---- Data arrangement ----------------------------------------------------------------------------
  Var permute(Var x, const std::vector<int>& order);
  Var tile(Var x, const std::vector<int>& reps);
  Var broadcast(Var x, const std::vector<int>& times);
  Var concat(const std::vector<Var>& xs, int axis);
  // num equal parts (size empty) or the given sizes along axis.
  std::vector<Var> split(Var x, int axis, int num, const std::vector<int>& size = {});
  // paddings: [before0, after0, before1, after1, ...].
  Var pad(Var x, double pad_val, const std::vector<int>& paddings, PadType mode = PadType::PAD_CONSTANT);
  // 0: keep the input's dim; -1: inferred (once).
  Var reshape(Var x, const std::vector<int>& shape);
  Var squeeze(Var x, const std::vector<int>& axis = {});
  Var expand_dims(Var x, int axis, int ndims = 1);
  Var reduce(Var x, const ReduceParam& param);
  // Index (I32) of the max/min along axis (the first one on ties); the axis is kept with size 1.
  Var arg(Var x, const ArgParam& param);
  // k = 1 only (TOSA 1.0 has no sort); returns {values, indices (I32)}.
  std::vector<Var> topk(Var x, const TopkParam& param);
  // TOSA 1.0 has no sort -> Unsupported.
  std::vector<Var> sort(Var x, int dim = -1, bool stable = false, bool descending = false);
  // Nearest-neighbour repetition by `scale` in H and W of NCHW.
  Var upsample(Var x, int scale);
  // FP32 NCHW resize to size [OH, OW] (or [H * scale_factor[0], W * scale_factor[1]] when size is empty);
  // NEAREST rounds the source coordinate half up (TOSA RESIZE), BILINEAR as align_corners/half_pixel_centers say.
  Var interpolate(Var x, const std::vector<int>& size, const std::vector<float>& scale_factor,
                  const InterpolateParam& param);

  // ---- Quantization --------------------------------------------------------------------------------
  // I32 input; out_dtype I8/U8/I16/U16/I32.
  Var requant_int32(Var x, const RequantInt32Param& param, int mode, DType out_dtype);
  Var requant_fp32_to_int(Var x, const RequantFp32Param& param, DType out_dtype);
  Var dequant_int_to_fp32(Var x, const DequantInt32Param& param);

  // ---- Compile, save, run --------------------------------------------------------------------------
  // The first operator error, if any.
  Status status() const;
  // Checks the finished graph for `target` (default: all profiles and extensions at level 8K) and records
  // the target in the module (tosa.target_env). The first operator error, else every violation in one
  // message.
  Status compile(const ir::TargetEnv& target = ir::TargetEnv::all());
  // A finished copy of the module (the function returns the outputs); null when status() is an error.
  std::unique_ptr<ir::Module> module() const;
  // .mlir or .spv by extension, written atomically.
  Status save(const std::string& path) const;
  // Runs the graph on the reference backend (through a Session). Inputs by name with their declared dtype
  // (U8/U16 as declared; I8/I16 bit patterns are accepted too); outputs by name with their declared dtype.
  Result<NamedTensors> run(const NamedTensors& inputs, const SessionOptions& options = {}) const;

  struct Impl;  // the graph's state (src/lang/lang_internal.h)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace tosakit::lang
