// Import a model from another framework as a TOSA module (public API; implemented in src/frontends).
// ONNX: imports an ONNX model (ModelProto file) into a TOSA ir::Module of float32 TOSA ops.
// This header is protobuf-free on purpose: callers (the CLI, tests, programs) never see ONNX protobuf types.
//
//   OnnxImportOptions opts;
//   opts.inputShapes["input"] = {1, 3, 224, 224};
//   auto m = importOnnx("model.onnx", opts);   // Result<std::unique_ptr<ir::Module>>
//
// Layout: ONNX is NCHW, TOSA conv/pool are NHWC. Activations are kept NHWC inside the graph; transposes are
// inserted only at the graph boundary (see docs/ONNX.md).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::onnx {

struct OnnxImportOptions {
  // Static shapes for graph inputs (replaces dynamic or symbolic dims). Without an override a dynamic batch
  // dim (dim 0) becomes 1 and any other dynamic dim is an error.
  std::map<std::string, Shape> inputShapes;
  // Graph inputs replaced by these constant tensors (e.g. shape tensors, fixed masks); folded at import.
  std::map<std::string, Tensor> bindInputs;
  // Outputs of the imported function, by ONNX value name; empty = the graph outputs.
  std::vector<std::string> outputNames;
  // true: function inputs/outputs keep the ONNX layout (NCHW); the NCHW<->NHWC transposes are inside.
  // false: rank-4 float inputs and outputs are NHWC (the transposes are left to the caller).
  bool keepNchwIo = true;
  // Convert models older than opset 17 with the ONNX version converter (falls back to the original model
  // if the converter fails).
  bool convertOpset = true;
  // Run the ONNX checker and shape inference (failures are reported as parse errors / ignored).
  bool runChecker = true;
  // Fold DequantizeLinear -> op -> QuantizeLinear patterns (pre-quantized QDQ models) into integer TOSA ops
  // (docs/ONNX.md "Pre-quantized QDQ models"); false keeps each Q/DQ node as its explicit float lowering.
  bool foldQdq = true;
  // Folded and QOperator requantization in float32 the way ONNX Runtime's CPU kernels do it (round(float(acc)
  // * float scale), half to even): bit-identical to ORT, but the graph is no longer integer-only (PRO-INT).
  bool requantizeLikeOrt = false;
  // Integer I/O of a QDQ model: a graph input read only by QuantizeLinear nodes (constant per-tensor parameters)
  // becomes an input of the quantized type, a graph output made by DequantizeLinear returns the integers; both
  // record their scale and zero point ("tosakit.qscale" / "tosakit.qzp", like `quantize --quant-input/output`).
  bool qdqIntegerIo = false;
  // Check the imported graph at TOSA level 8K with every profile and extension (validateImportedModule) before
  // returning it, so that e.g. an Expand whose result exceeds MAX_LOG2_SIZE is refused at import.
  bool validateLevel = true;
  std::string functionName = "main";
};

// Sets foldQdq / requantizeLikeOrt from a QDQ mode name (the CLI's `--qdq`, Python's `qdq=`): "fold" (integer
// TOSA, the default), "fold-ort" (fold, requantizing in float32 like ONNX Runtime) or "keep" (float ops).
// InvalidArgument for any other name.
Status setQdqMode(OnnxImportOptions& options, const std::string& mode);

// Imports an ONNX model file. Errors: IOError (unreadable), ParseError (not an ONNX protobuf, truncated,
// checker failure, missing initializer), InvalidArgument (bad option), Unsupported (one error listing every
// unsupported node: name, op type, reason).
Result<std::unique_ptr<ir::Module>> importOnnx(const std::string& path, const OnnxImportOptions& options = {});
// Same, from the serialized ModelProto bytes; `name` is used in messages.
Result<std::unique_ptr<ir::Module>> importOnnxBytes(const std::string& bytes, const std::string& name,
                                                    const OnnxImportOptions& options = {});

// Reads a serialized ONNX TensorProto (the input_N.pb/output_N.pb files of ONNX test data) as a tosakit
// Tensor: float -> FP32, double -> FP64, fp16/bf16 -> FP16/BF16 (raw_data only), int64/32/16/8 -> I64/I32/
// I16/I8, uint8/uint16 -> U8/U16, bool -> Bool. Returns the tensor's name (may be empty) and value.
Result<std::pair<std::string, Tensor>> loadOnnxTensor(const std::string& path);

}  // namespace tosakit::onnx

namespace tosakit {

// The check every importer (ONNX, TFLite) runs on its result unless told not to: static validation at level
// 8K with every profile and extension. InvalidArgument (Unsupported for an unsupported construct) naming the
// model, the first diagnostic and how many more there are.
Status validateImportedModule(const ir::Module& m, const std::string& modelName);

}  // namespace tosakit
