// Post-training quantization of a float TOSA graph into pure TOSA 1.0 (TPU-MLIR's model_deploy lowering,
// technical reference chapters 6 and 8; docs/QUANTIZATION.md "## Quantization").
//
//   INT8   activations int8 (symmetric from the calibration threshold, or asymmetric from min/max with zero
//          points), weights int8 symmetric per output channel (or per tensor), int32 bias and accumulators,
//          tosa.rescale between scales, tosa.table (256 entries) for non-linear element-wise functions.
//   INT16  activations int16 (symmetric), conv weights int8 (TOSA's 16x8), i48 accumulators, 513-entry
//          interpolated tables (EXT-INT16).
//   BF16 / F16  weights and compute in that type, accumulators fp32 (the spec's acc_type).
//   F32    the float graph as it is.
// A quantize table (TPU-MLIR's qtable: "<layer> <mode>" lines) sets the precision of single layers; casts
// and rescales are inserted at the boundaries (chapter 8.2). Without quantInput/quantOutput the graph takes
// and returns fp32.
//
// Every op keeps its location name; an op whose result is quantized records the result's scale and zero
// point as discardable attributes "tosakit.qscale" (f64) and "tosakit.qzp" (i64) — real = scale * (q - zp) —
// and quantized function arguments/results carry the same keys in argAttrs/resultAttrs. MLIR text keeps
// them; a SPIR-V file keeps them in the "OUT.spv.qparams.json" sidecar (quantParamsToJson).
#pragma once
#include <map>
#include <memory>
#include <string>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosakit/calibrate.h"

namespace tosakit {

enum class QuantMode { INT8, INT16, BF16, F16, F32 };
std::string quantModeName(QuantMode m);  // "INT8", ...
// Accepts the CLI's spellings (case-insensitive); InvalidArgument otherwise.
Result<QuantMode> parseQuantMode(const std::string& name);

struct QuantizeOptions {
  QuantMode mode = QuantMode::INT8;
  bool asymmetric = false;   // INT8 activations with zero points from min/max
  bool perTensor = false;    // one weight scale per tensor instead of per output channel
  bool quantInput = false;   // arguments in the quantized type (else fp32, quantized inside the graph)
  bool quantOutput = false;  // results in the quantized type (else dequantized to fp32)
  // Arguments with a recorded "tosakit.preprocess" recipe take the uint8 image (i8 carrying uint8 bits,
  // docs/NUMPY.md) and the graph applies (x - mean) * scale itself (TPU-MLIR's fuse-preprocess, 4.4).
  bool fusePreprocess = false;
  std::map<std::string, QuantMode> layerModes;  // --quantize-table: layer (location) name -> precision
  std::string function = "main";
  // Where the tables came from (file names), put before errors about them; empty: no prefix.
  std::string calibrationTableSource, quantizeTableSource;
};

// TPU-MLIR's quantize-table format: '#' comments, "<op_name> <mode>" per line. `context` names the file.
Result<std::map<std::string, QuantMode>> parseQuantizeTable(const std::string& text, const std::string& context);
Result<std::map<std::string, QuantMode>> readQuantizeTable(const std::string& path);

// Errors: InvalidArgument when the calibration table names a tensor the function does not have, lacks one
// an integer layer needs, or the quantize table names an unknown layer; Unsupported for control flow.
Result<std::unique_ptr<ir::Module>> quantizeModel(const ir::Module& floatModel, const CalibrationTable& table,
                                                  const QuantizeOptions& options);

// Scale and zero point of a quantized tensor: real = scale * (q - zeroPoint).
struct TensorQuantParams {
  double scale = 1;
  int64_t zeroPoint = 0;
};
// What a quantized module records, keyed like Session's captured names (arguments by inputName, results
// by outputName, op results by intermediateName).
std::map<std::string, TensorQuantParams> recordedQuantParams(const ir::Module& m, const std::string& function = "main");
// Float values of a quantized tensor: scale * (q - zp) as fp32 (integer tensors only).
Tensor dequantize(const Tensor& q, const TensorQuantParams& p);

// The recorded parameters as JSON ({"name": {"scale": s, "zero_point": z}, ...}): the sidecar
// "OUT.spv.qparams.json" that `tosakit quantize` writes next to a SPIR-V model, which has no place for
// discardable attributes, and that `tosakit compare --dequantize` reads.
std::string quantParamsToJson(const std::map<std::string, TensorQuantParams>& params);
Result<std::map<std::string, TensorQuantParams>> quantParamsFromJson(const std::string& text,
                                                                     const std::string& context);

}  // namespace tosakit
