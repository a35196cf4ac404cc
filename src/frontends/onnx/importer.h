// Internal to the ONNX frontend: the Importer state shared by the operator lowerings (ops_*.cpp).
//
// Every ONNX value becomes an OVal: either a constant known at import time (initializers, Constant, and
// Shape/Cast/Slice/Concat/Gather/Reshape/... chains over them are folded) or a TOSA value, stored in the
// logical ONNX layout ("plain") and/or NHWC (rank 4 only). Each ONNX operator is lowered by one handler,
// `Status (Importer&, const NodeProto&)`, registered by its family file (ops_tensor.cpp, ops_elementwise.cpp,
// ...) in a HandlerTable. A handler reads its inputs with im.val(n, i), materializes them with im.get(...) and
// defines its outputs with im.setConst / im.setValue.
//
// Types: TOSA 1.0 has no 64-bit integers, so ONNX int64 run-time tensors are narrowed to i32 (graph inputs and
// outputs included; constants must fit). TOSA has no unsigned tensor types either: uint8 run-time tensors are
// carried as i8 holding the same bits (RESCALE's input_unsigned/output_unsigned read and write them; data
// movement copies them; arithmetic must not take them: isUnsignedBits). OVal::dtype is the ONNX element type;
// im.rtType() is the TOSA one.
#pragma once
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "frontends/onnx/onnx_internal.h"
#include "ir/builder.h"
#include "tosakit/backend.h"

namespace tosakit::onnx {

using ir::Value;
using ir::ValueType;
using NodeProto = ::onnx::NodeProto;

enum class Layout { Plain, Nhwc };

// NCHW logical axis -> position in an NHWC stored tensor.
inline constexpr int64_t kNhwcPos[4] = {0, 3, 1, 2};
extern const std::vector<int64_t> kToNhwc;  // {0, 2, 3, 1}
extern const std::vector<int64_t> kToNchw;  // {0, 3, 1, 2}
inline constexpr double kFltMax = std::numeric_limits<float>::max();

struct OVal {
  Shape shape;                      // logical ONNX shape
  DType dtype = DType::FP32;        // ONNX element type (I64 stays I64 here; the TOSA value is I32)
  std::shared_ptr<const Tensor> c;  // known at import time
  Value* plain = nullptr;
  Value* nhwc = nullptr;
  bool poisoned = false;  // produced by an unsupported node
  // An ONNX sequence: its elements, known at import (sequence ops with constant positions are resolved while
  // importing; TOSA has no sequence type, so a sequence never becomes a run-time value).
  std::shared_ptr<const std::vector<OVal>> seq;
  bool isConst() const { return c != nullptr; }
  bool isSequence() const { return seq != nullptr; }
  bool prefersNhwc() const { return !c && nhwc && !plain; }
};

// ---- tensor helpers (constant folding works on logical-layout tensors) ----
Shape permuteShape(const Shape& s, const std::vector<int64_t>& perms);
Tensor permuteTensor(const Tensor& t, const std::vector<int64_t>& perms);
Tensor reshapeTensor(const Tensor& t, Shape s);
std::optional<Shape> numpyBroadcast(Shape a, Shape b);
Shape withRank(Shape s, size_t rank);
// Elementwise fold with numpy broadcasting for '+', '-', '*', '/'; ints in int64, floats in double.
Tensor foldBinary(const Tensor& a, const Tensor& b, const Shape& outShape, char op);
// Numeric conversion (float -> int truncates toward zero, as ONNX Cast does).
Tensor castTensor(const Tensor& t, DType to);
inline int64_t normAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }
// The TOSA element type an ONNX element type is computed in at run time: int64 -> i32; float64, unsigned and
// other types TOSA 1.0 lacks -> nullopt.
std::optional<DType> runtimeDType(DType onnxType);
// uint8: carried at run time as i8 bits (see above).
inline bool isUnsignedBits(DType onnxType) { return onnxType == DType::U8; }
inline bool isFloatType(DType t) { return t == DType::FP32 || t == DType::FP16 || t == DType::BF16; }
// Activations and normalizations compute in float only: other element types are Unsupported.
Status requireFloatLike(const OVal& v);
// TOSA's conv output size is an exact division: trims the end padding `padEnd` (then input rows) that no
// window reads; returns the rows to cut from the end of the input.
int64_t trimPadding(int64_t in, int64_t k, int64_t stride, int64_t dil, int64_t padBegin, int64_t& padEnd);
// ONNX auto_pad: SAME_UPPER / SAME_LOWER set `pads` ([begin..., end...]) so that out = ceil(in / stride)
// (the odd pad at the end / at the beginning), VALID zeroes them, NOTSET keeps them; anything else is invalid.
Status autoPads(const std::string& autoPad, const std::vector<int64_t>& in, const std::vector<int64_t>& kernel,
                const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations, std::vector<int64_t>& pads);
// Spatial attribute lists: `count` values, each >= min.
Status checkSpatial(const std::vector<int64_t>& v, size_t count, int64_t min, const char* name);

struct SpatialAttrs {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: all begins, then all ends
};

class Importer;
using OpHandler = std::function<Status(Importer&, const NodeProto&)>;
using HandlerTable = std::map<std::string, OpHandler>;

// One registration function per family file.
void registerTensorOps(HandlerTable& t);         // ops_tensor.cpp: Constant, Shape, Reshape, Slice, Concat, ...
void registerElementwiseOps(HandlerTable& t);    // ops_elementwise.cpp: arithmetic, comparison, logical, math
void registerActivationOps(HandlerTable& t);     // ops_activation.cpp: Relu, Sigmoid, Softmax, Clip, ...
void registerNormalizationOps(HandlerTable& t);  // ops_normalization.cpp: Layer/Instance/Group norm, LRN, ...
void registerConvOps(HandlerTable& t);           // ops_conv.cpp: Conv, ConvTranspose, BatchNormalization
void registerPoolOps(HandlerTable& t);           // ops_pool.cpp: MaxPool, AveragePool, Global*, LpPool
void registerMatmulOps(HandlerTable& t);         // ops_matmul.cpp: Gemm, MatMul, Einsum
void registerReduceOps(HandlerTable& t);         // ops_reduce.cpp: Reduce*, ArgMax/ArgMin, CumSum, ...
void registerLossOps(HandlerTable& t);           // ops_loss.cpp: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void registerResizeOps(HandlerTable& t);         // ops_resize.cpp: Resize, Upsample
void registerDataMovementOps(HandlerTable& t);   // ops_data_movement.cpp: Split, Pad, Tile, Expand, Gather, ...
void registerQuantOps(HandlerTable& t);          // ops_quant.cpp: QuantizeLinear, QLinear*, *Integer
void registerRecurrentOps(HandlerTable& t);      // ops_rnn.cpp: RNN, GRU, LSTM (unrolled)
void registerControlFlowOps(HandlerTable& t);    // ops_control.cpp: If, Loop, Scan
void registerSignalOps(HandlerTable& t);         // ops_signal.cpp: DFT, STFT, window functions, MelWeightMatrix, Det
void registerSamplingOps(HandlerTable& t);       // ops_sampling.cpp: GridSample, RoiAlign
void registerTextOps(HandlerTable& t);           // ops_text.cpp: TfIdfVectorizer
void registerSequenceOps(HandlerTable& t);       // ops_sequence.cpp: Sequence*, SplitToSequence, ConcatFromSequence

class Importer {
 public:
  Importer(const ::onnx::ModelProto& model, const std::string& file, const OnnxImportOptions& opts);
  Result<std::unique_ptr<ir::Module>> run();

  // ---- node inputs / outputs ----
  // Throws std::out_of_range for an input the node does not have (lowerNodes reports a malformed node).
  OVal& val(const NodeProto& n, int i) {
    if (i < 0 || i >= n.input_size() || n.input(i).empty()) throw std::out_of_range("node input " + std::to_string(i));
    return vals.at(n.input(i));
  }
  bool hasInput(const NodeProto& n, int i) const { return n.input_size() > i && !n.input(i).empty(); }
  bool hasOutput(const NodeProto& n, int i) const { return n.output_size() > i && !n.output(i).empty(); }
  void setOut(const NodeProto& n, int i, OVal v) { vals[n.output(i)] = std::move(v); }
  void setConst(const NodeProto& n, int i, Tensor t);
  // A TOSA value as output i; `layout` says how it is stored (Nhwc: rank 4, logical NCHW). `onnxType`: the
  // ONNX element type when it differs from the TOSA one (uint8 carried as i8 bits; int64 carried as i32).
  void setValue(const NodeProto& n, int i, Value* v, Layout layout, std::optional<DType> onnxType = std::nullopt);

  // Output 0 is `v`, stored in `layout`; the op yielding it carries the node name (its location).
  Status setResult(const NodeProto& n, Value* v, Layout layout) {
    if (v->definingOp) v->definingOp->loc.name = loc;
    setValue(n, 0, v, layout);
    return Status::ok();
  }

  // ---- materialization ----
  // The value as a TOSA value in `layout`; constants become tosa.const in their run-time type.
  Result<Value*> get(OVal& v, Layout layout);
  // Broadcast-ranked to `rank` (leading 1s, numpy style), in `layout` (NHWC only when rank is 4).
  Result<Value*> getAsRank(OVal& v, size_t rank, Layout layout);
  Result<Value*> relayout(Value* x, const std::vector<int64_t>& perms);
  // The TOSA element type of the value at run time (see runtimeDType); Unsupported when TOSA lacks it.
  Result<DType> rtType(const OVal& v) const;

  // ---- constants ----
  Value* constF(Tensor t) { return b.constant(std::move(t), aux("const")); }
  Value* scalarF(float v, size_t rank) { return scalarOf(DType::FP32, v, rank); }
  // A rank-`rank` [1,...,1] constant of `dtype` holding v.
  Value* scalarOf(DType dtype, double v, size_t rank);
  // Location name for an auxiliary op of the current node.
  std::string aux(const std::string& what) const { return loc + "/" + what; }

  // ---- attribute / input access ----
  Result<const Tensor*> constInput(const NodeProto& n, int i, const char* what);
  Status requireFloat(const NodeProto& n, const OVal& v) const;
  const ::onnx::AttributeProto* attr(const NodeProto& n, const std::string& name) const;
  int64_t attrInt(const NodeProto& n, const std::string& name, int64_t def) const;
  float attrFloat(const NodeProto& n, const std::string& name, float def) const;
  std::string attrStr(const NodeProto& n, const std::string& name, const std::string& def) const;
  std::optional<std::vector<int64_t>> attrInts(const NodeProto& n, const std::string& name) const;
  std::optional<std::vector<float>> attrFloats(const NodeProto& n, const std::string& name) const;
  // kernel_shape / strides / dilations / pads of a conv or pool over `nsp` spatial dims (defaults 1, 1, 0),
  // each list checked; `weightKernel` (convs) is the kernel when kernel_shape is absent and must equal it
  // otherwise. auto_pad is left to the caller (see autoPads).
  Result<SpatialAttrs> spatialAttrs(const NodeProto& n, size_t nsp,
                                    const std::optional<std::vector<int64_t>>& weightKernel = std::nullopt) const;
  // Axes from the attribute (older opsets) or the constant input i (newer ones).
  Result<std::optional<std::vector<int64_t>>> axesOf(const NodeProto& n, int inputIndex);

  // ---- op emission ----
  Value* unary(const std::string& op, Value* x, std::map<std::string, ir::Attribute> attrs = {});
  // Broadcasting binary op of equal-rank operands (result dtype given: comparisons give Bool).
  Value* binary(const std::string& op, Value* a, Value* c, DType resultType = DType::FP32);
  Value* mul(Value* a, Value* c) { return b.mul(a, c, 0, aux("mul")); }
  Value* clampF(Value* x, double lo, double hi);
  Value* castTo(Value* x, DType to) {
    if (x->type.dtype == to) return x;
    return b.op1("tosa.cast", {x}, ValueType::tensor(to, x->type.dims), {}, aux("cast"));
  }
  Result<Value*> sliceNhwc(Value* x, const Shape& start, const Shape& size);
  Value* reshapeTo(Value* x, const Shape& s, const std::string& name) {
    if (x->type.dims == s) return x;
    return b.reshape(x, s, name);
  }
  // x / s for float32 (equal ranks, broadcasting), correctly rounded like a true division: TOSA has no float
  // divide and x * reciprocal(s) can land on the other side of a rounding tie (that matters before a Round or
  // Cast, e.g. quantization).
  Value* divideF32(Value* x, Value* s);
  // Rank-3 matmul with zero-point operands of the operands' type.
  Value* matmul3(Value* a, Value* c);
  // Unary elementwise lowering: keeps the input's layout; the op returned by f carries the node name.
  Status unaryKeepLayout(const NodeProto& n, const std::function<Value*(Value*)>& f);

  // Lowers a node built by another lowering (e.g. a Split for SplitToSequence) with the registered handler;
  // its inputs and outputs are values of `vals`.
  Status lowerSynthetic(const NodeProto& n);

  // Lowers a subgraph (If branch, Loop/Scan body) inline in the current function: its inputs are bound to
  // `inputs`, its nodes lowered like the main graph's (outer values stay visible), its outputs returned.
  // Unsupported when any body node is (those are reported in `errors`).
  Status inlineGraph(const ::onnx::GraphProto& body, const std::vector<OVal>& inputs, std::vector<OVal>& outputs);

  // A conv whose weight/bias constants a following BatchNormalization may rewrite in place.
  struct ConvInfo {
    ir::Operation* weightConst;
    ir::Operation* biasConst;
    bool depthwise;
  };

  const ::onnx::GraphProto& g;
  std::string file;
  const OnnxImportOptions& opts;
  int opset = 1;
  std::unique_ptr<ir::Module> m;
  ir::Builder b;
  std::map<std::string, OVal> vals;
  std::map<std::string, int> uses;  // consumers of each value (graph outputs count)
  std::map<Value*, ConvInfo> convs;
  std::string loc;                     // location name of the node being lowered
  std::vector<std::string> errors;     // unsupported nodes: "'name' (Op): reason"
  std::vector<std::string> malformed;  // malformed nodes, same form

  // ---- QDQ folding (qdq_fold.cpp) ----
  // A DequantizeLinear output with constant parameters: its integer input (a name in `vals`) and parameters.
  struct DequantSource {
    std::string src;
    std::vector<double> scales;  // one, or one per index of `axis`
    std::vector<int64_t> zps;    // same length as scales
    int64_t axis = 1;
    DType type = DType::U8;  // ONNX type of the integer input
  };
  std::map<std::string, DequantSource> dequantized;
  std::map<std::string, std::vector<const NodeProto*>> consumers;  // top-level graph nodes reading each value
  std::map<std::string, const NodeProto*> producers;               // top-level graph node defining each value
  std::set<const NodeProto*> foldedAway;                           // nodes a folded pattern absorbed
  // uint8 QuantizeLinear outputs read only by DequantizeLinear, carried as int8 u - 128 (zero point - 128) so
  // that integer ops take them without an unsigned RESCALE (carriesU8AsI8 in qdq_fold.cpp).
  std::set<std::string> shiftedU8;
  bool foldedAny = false;
  struct QuantIo {
    size_t index;
    DType type;
    double scale;
    int64_t zp;
  };
  std::vector<QuantIo> integerResults;  // results returned as integers (qdqIntegerIo)

 private:
  // Evaluates, on the reference backend, the TOSA ops a node with only constant inputs emitted from block
  // index `firstOp` on, and turns its outputs into constants (shape computations the handler did not fold).
  // Leaves the ops in place when they read run-time values or do not evaluate.
  void foldConstantNode(const NodeProto& n, size_t firstOp);
  Status checkDeclaredOutputs(const std::vector<std::string>& outputs) const;
  const ::onnx::AttributeProto* typedAttr(const NodeProto& n, const std::string& name, int expectedType) const;
  mutable std::string badAttribute_;  // first attribute of the wrong type read by the current node's handler
  std::unique_ptr<Backend> folder_;
  Status defineInputs();
  // What the function's signature loses of the ONNX graph's, recorded as discardable attributes so that `run`
  // (src/session/io_adapt.cpp) takes exactly the inputs ONNX Runtime takes: the ONNX element type of each
  // argument and result ("tosakit.onnx_type") and the graph inputs that are not arguments
  // ("tosakit.onnx_unused_inputs", JSON).
  struct DroppedInput {
    std::string name;
    DType onnxType;
    Shape shape;
    std::string reason;                   // "shape_only", "type_only", "unused", "bound"
    std::shared_ptr<const Tensor> bound;  // the value of a bound input
  };
  std::vector<DType> argOnnxTypes_;
  std::vector<DroppedInput> dropped_;
  std::string inputUse(const std::string& name) const;
  void recordIoTypes(const std::vector<std::string>& outputs);
  bool readsOnlyMetadata(const std::string& name) const;
  Status defineInitializer(const ::onnx::TensorProto& init);
  Status defineInitializers();
  Status checkArity(const NodeProto& n) const;
  Status lowerNodes(const google::protobuf::RepeatedPtrField<NodeProto>& nodes);
  static const HandlerTable& handlers();
};

// ops_conv.cpp: a float 2-D Conv with node n's attributes (strides, pads, dilations, group, auto_pad) of x (NHWC
// value; `xs` its NCHW shape) by run-time w [M, C/group, KH, KW] and bias [M] (fp32 plain values; bias may be
// null). The NHWC result. Used by the quantized convs whose parameters are run-time values.
Result<Value*> floatConv2dNhwc(Importer& im, const NodeProto& n, Value* x, const Shape& xs, Value* w, Value* bias);

// qdq_fold.cpp: lowers node n of the top-level graph as the start of a QDQ pattern (DequantizeLinear -> op ->
// [Relu/Clip] -> QuantizeLinear) on the integers; false when n does not start one (lower it as usual).
Result<bool> foldQdqPattern(Importer& im, const NodeProto& n);
// OnnxImportOptions::qdqIntegerIo. integerOutput: the value to return for graph output `name` (result `index`):
// a DequantizeLinear's integer input (recording its type, scale and zero point), else the output itself.
// integerInputs: graph inputs read only by QuantizeLinear nodes become arguments of the quantized type.
std::map<std::string, OVal>::iterator integerOutput(Importer& im, const std::string& name, size_t index);
void integerInputs(Importer& im, ir::Function& fn);
// Removes ops whose results nothing reads (the float DequantizeLinear lowerings a folded pattern bypassed).
void removeDeadOps(ir::Block& block);

}  // namespace tosakit::onnx
