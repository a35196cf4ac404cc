// Internal to the TFLite frontend: the Importer state shared by the operator lowerings (ops_*.cpp). Includes
// the flatc-generated reader, so only this library's .cpp files include it.
//
// Every tensor of the subgraph becomes a TVal: a constant known at import time (a buffer, or an operator over
// constants folded here: DEQUANTIZE of fp16 weights, DENSIFY of sparse weights) or a TOSA value. Each TFLite
// operator is lowered by one handler `Status (Importer&)` registered by builtin code (or custom code) by its
// family file. A handler reads its inputs with im.in(i) / im.get(i) / im.constIn(i), and defines its outputs
// with im.setOut(k, value) / im.setConstOut(k, tensor): an output's shape must equal the shape the model
// declares for that tensor (a model whose shapes contradict its operators is malformed).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontends/tflite/tflite_import.h"
#include "ir/builder.h"
#include "tflite_schema_generated.h"

namespace tosakit::tflite {

using ir::Value;
using ir::ValueType;
namespace fb = ::tflite_fb;

inline constexpr double kFltMax = 3.4028234663852886e38;

// Quantization parameters of a tensor (scales per channel along `dim`, or one).
struct QuantParams {
  std::vector<double> scale;
  std::vector<int64_t> zeroPoint;
  int dim = 0;
  bool present() const { return !scale.empty(); }
};

struct TVal {
  Shape shape;
  DType dtype = DType::FP32;  // the tensor's element type (tosakit's name for the TFLite type)
  std::shared_ptr<const Tensor> c;
  Value* v = nullptr;
  bool poisoned = false;  // produced by an unsupported operator
  bool badType = false;   // an element type tosakit has no tensor for
  // A quantized uint8 tensor (TFLite's legacy asymmetric scheme) carried as int8: its values and zero point
  // moved by -128, so the int8 lowerings compute the same (q - zp) differences.
  bool fromUint8 = false;
  QuantParams quant;
  bool isConst() const { return c != nullptr; }
};

// "CONV_2D", or "CUSTOM(Convolution2DTransposeBias)".
std::string operatorName(const fb::Model& model, const fb::Operator& op);
// The TFLite element type as a tosakit DType; nullopt for the types tosakit has no tensor for (string, complex,
// resource, variant, ...).
std::optional<DType> dtypeFromTflite(fb::TensorType t);
// TFLite's shape-preserving numpy broadcast of two shapes; nullopt when incompatible.
std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b);
// Expands TFLite's sparse (TACO-format) constant to the dense tensor of `shape` (densify.cpp).
Result<Tensor> densify(const fb::Tensor& t, const fb::Buffer& buffer, DType dtype, const Shape& shape);

// TFLite's transpose convolution output cropping as tosa.transpose_conv2d's out_pad (top, bottom: negative
// crops); false when TOSA cannot express it (ops_float.cpp).
bool transposeConvPads(int64_t in, int64_t out, int64_t k, int64_t stride, fb::Padding padding, int64_t& top,
                       int64_t& bottom);

class Importer;
// Axes of a reduction (input 1, constant), negative ones resolved, deduplicated and sorted (ops_float.cpp).
Result<std::vector<int64_t>> reductionAxes(Importer& im, size_t rank);
// BATCH_MATMUL's operands (equal rank >= 2, equal batch dimensions, adj_x / adj_y as transposes) reshaped to the
// rank-3 [batch, M, K] and [batch, K, N] operands of tosa.matmul; shared by the float and the integer lowerings
// (ops_float.cpp).
struct BatchMatmulOperands {
  Value* a = nullptr;
  Value* b = nullptr;
  int64_t batch = 0, M = 0, N = 0;
};
Result<BatchMatmulOperands> batchMatmulOperands(Importer& im);
// int8 TRANSPOSE_CONV (inputs: output_shape, weights, input, bias), reached from the float lowering (ops_quant.cpp).
Status quantizedTransposeConv(Importer& im, fb::Padding padding, int64_t strideH, int64_t strideW,
                              fb::ActivationFunctionType act);
using OpHandler = std::function<Status(Importer&)>;
struct HandlerTable {
  std::map<int, OpHandler> builtin;         // by BuiltinOperator code
  std::map<std::string, OpHandler> custom;  // by custom_code
  std::map<int, OpHandler> quantized;       // int8 lowerings, taken when input 0 is a run-time int8 tensor
};
void registerFloatOps(HandlerTable& t);  // ops_float.cpp
void registerConstOps(HandlerTable& t);  // ops_const.cpp: DEQUANTIZE of constants, DENSIFY
void registerQuantOps(HandlerTable& t);
// ops_quant_elementwise.cpp: int8/int16 ABS, RELU, RELU6, RELU_N1_TO_1, int8 GELU as per-value tables
void registerQuantElementwiseOps(HandlerTable& t);
void registerDataOps(
    HandlerTable& t);  // ops_data.cpp: data movement, reductions, CAST  // ops_quant.cpp: pre-quantized int8 operators

class Importer {
 public:
  Importer(const fb::Model& model, const std::string& file, const TfliteImportOptions& opts);
  Result<std::unique_ptr<ir::Module>> run();

  // ---- the operator being lowered ----
  int numInputs() const { return op->inputs() ? int(op->inputs()->size()) : 0; }
  int numOutputs() const { return op->outputs() ? int(op->outputs()->size()) : 0; }
  // Tensor index of input i, -1 when absent (optional input omitted, or fewer inputs).
  int inputTensor(int i) const;
  int outputTensor(int k) const;
  bool hasInput(int i) const { return inputTensor(i) >= 0; }
  // Throws std::out_of_range for an absent input (reported as a malformed operator).
  TVal& in(int i);
  // Input i as a TOSA value (a constant becomes a tosa.const).
  Result<Value*> get(int i);
  // Input i, which must be a constant; InvalidArgument naming `what` otherwise.
  Result<const Tensor*> constIn(int i, const char* what);
  const TVal& out(int k) const { return vals.at(size_t(outputTensor(k))); }
  // Defines output k; its shape must be the declared one. The op yielding it carries the location `loc`.
  Status setOut(int k, Value* v);
  Status setConstOut(int k, Tensor t);
  template <typename T>
  const T* options() const {
    return op->builtin_options_as<T>();
  }

  // ---- emission helpers ----
  std::string aux(const std::string& what) const { return loc + "/" + what; }
  Value* constant(Tensor t, const std::string& what) { return b.constant(std::move(t), aux(what)); }
  // A rank-`rank` [1,...,1] constant of `dtype` holding v.
  Value* scalarOf(DType dtype, double v, size_t rank);
  // The fused activation of `a` applied to the float value v (NONE: v itself); Unsupported for SIGN_BIT.
  Result<Value*> activation(Value* v, fb::ActivationFunctionType a);
  // x reshaped to `rank` dims with leading 1s (numpy broadcasting), for elementwise ops with equal ranks.
  Value* toRank(Value* x, size_t rank);
  Value* clampF(Value* x, double lo, double hi, const std::string& what = "clamp");

  const fb::Model& model;
  const fb::SubGraph& g;
  std::string file;
  const TfliteImportOptions& opts;
  std::unique_ptr<ir::Module> m;
  ir::Builder b;
  std::vector<TVal> vals;  // by tensor index
  const fb::Operator* op = nullptr;
  int opIndex = 0;
  std::string loc;  // location of the operator being lowered: its first output tensor's name

 private:
  Status checkStructure() const;
  Status defineTensors();
  Status defineInputs();
  Status lowerOperators();
  std::string tensorName(int t) const;
  bool runsQuantized();
  void recordQuant(const TVal& v, bool argument, size_t index);
  std::vector<std::string> errors;                     // unsupported operators: "#i NAME -> 'output': reason"
  std::vector<std::string> malformed;                  // malformed operators, same form
  std::map<int, std::string> argNames_, resultNames_;  // signature names by tensor index
};

}  // namespace tosakit::tflite
