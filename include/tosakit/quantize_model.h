// `tosakit quantize` as one library call (the CLI verb; Python's tosakit.quantize and verify_quantized): the
// float model and its tables read from files, quantized (include/tosakit/quantize.h), and optionally verified
// TPU-MLIR model_deploy style: the quantized outputs on a test input against reference outputs, then layer by
// layer against the float model on the same input. Implemented by tosakit_workflows (src/workflows).
#pragma once
#include <memory>
#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/compare.h"
#include "tosakit/quantize.h"
#include "tosakit/session.h"

namespace tosakit {

// The verification run: both files or neither.
struct QuantizeTestOptions {
  std::string testInput;      // a sample (.npz, .npy or image) as loadSample reads it
  std::string testReference;  // expected outputs (.npz keyed by output name)
  double minCosine = 0.99;
  double minEuclidean = 0.95;
  SessionOptions session;  // runs both models
};

struct QuantizeModelOptions {
  QuantizeOptions quantize;      // its calibrationTableSource/quantizeTableSource are set from the files below
  std::string calibrationTable;  // TPU-MLIR calibration table; INT8 and INT16 layers need one
  std::string quantizeTable;     // TPU-MLIR quantize table (per-layer precision), optional
  QuantizeTestOptions test;
};

struct QuantizeVerification {
  bool tested = false;
  CompareReport outputs;  // quantized outputs against the reference
  CompareReport layers;   // the float model's layers against the quantized model's
  Status verdict;         // SpecError when an output is below tolerance (then nothing may be written)
};

struct QuantizedModel {
  std::unique_ptr<ir::Module> module;
  QuantizeVerification verification;
};

// Errors: loading's, the tables' (naming their files), quantizeModel's, and InvalidArgument with parameter
// set for a missing calibration table or a lone test file.
Result<QuantizedModel> quantizeModelFile(const std::string& model, const QuantizeModelOptions& options);

// The verification alone, for a quantized module in hand (`floatModel` is what it was quantized from).
Result<QuantizeVerification> verifyQuantizedModel(const ir::Module& floatModel, const ir::Module& quantized,
                                                  const QuantizeTestOptions& options);

}  // namespace tosakit
