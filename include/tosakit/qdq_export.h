// Export of a tosakit-calibrated float ONNX model as an ONNX QDQ model (QuantizeLinear/DequantizeLinear pairs
// around float ops), the form ONNX Runtime, TensorRT and tosakit's own QDQ import (`--qdq fold`) take: a user
// calibrates once with `tosakit calibrate` and hands the quantized model to another runtime. Implemented by the
// ONNX frontend (src/frontends/onnx/qdq_export.cpp); docs/ONNX.md "Exporting QDQ models".
//
//   auto table = readCalibrationTable("cali.txt");
//   onnx::QdqExportOptions opts;
//   Status s = onnx::exportQdq("model.onnx", *table, "model_qdq.onnx", opts);
//
// The quantization follows `tosakit quantize --quantize INT8` (symmetric, docs/QUANTIZATION.md): every float
// activation with scale threshold / 127 and int8 zero point 0, or, when calibration saw it non-negative, scale
// threshold / 255 and int8 zero point -128 (written as uint8 with the zero point 128 higher: the same steps); a Conv/Gemm/MatMul/Add/Mul followed only by a Relu (or Clip from 0) is
// quantized on the Relu's grid; data movement, pools and a lone Relu keep their input's parameters; Conv,
// ConvTranspose, Gemm and MatMul constant weights int8 per output channel (or per tensor), biases int32 at scale
// x_scale * w_scale; a conv/matmul whose result reaches only graph outputs (through data movement) is not
// requantized, its output stays float.
#pragma once
#include <string>

#include "core/status.h"
#include "tosakit/calibrate.h"
#include "tosakit/import.h"

namespace tosakit::onnx {

struct QdqExportOptions {
  // How the model was imported when it was calibrated (input shapes): the calibration table names the tensors of
  // that import, which the exporter maps back to the ONNX values.
  OnnxImportOptions import;
  bool perTensor = false;  // one weight scale per tensor instead of per output channel
  // Where the table came from (its file), put before errors about it; empty: no prefix.
  std::string calibrationTableSource;
};

// The QDQ model as serialized ModelProto bytes. Errors: those of importOnnx for the model; InvalidArgument when
// the table lacks a tensor the export needs (named with its ONNX value) or the model is quantized already.
Result<std::string> exportQdqBytes(const std::string& modelPath, const CalibrationTable& table,
                                   const QdqExportOptions& options);
// Same, written atomically to `outPath` (no partial file on failure).
Status exportQdq(const std::string& modelPath, const CalibrationTable& table, const std::string& outPath,
                 const QdqExportOptions& options);

}  // namespace tosakit::onnx
