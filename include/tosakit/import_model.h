// `tosakit import` as one library call (the CLI verb and Python's tosakit.import_model): an ONNX or TFLite
// model (told apart by content) imported, checked at a TOSA level, its image preprocessing recorded, and
// optionally verified TPU-MLIR model_transform style by a test run compared with reference outputs.
// Implemented by tosakit_workflows (src/workflows), above the front ends, the inputs and the session.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/import.h"
#include "tosakit/preprocess.h"
#include "tosakit/session.h"

namespace tosakit {

struct ImportModelOptions {
  // ONNX models. A TFLite model (NHWC, static shapes) takes none of inputShapes, bindInputs, outputNames, and
  // keepNchwIo must stay true (its default); the importers' own validateLevel is replaced by `level` below.
  onnx::OnnxImportOptions onnx;
  std::string level = "8k";      // "8k": validateImportedModule before returning; "none": no level check
  PreprocessOptions preprocess;  // recorded on the image (rank-4) inputs when any field is given
  // Verification (both or neither): run the imported graph on testInput (.npz keyed by input name, in ONNX
  // Runtime's types) and compare each output with testReference (.npz keyed by output name).
  std::string testInput;
  std::string testReference;
  double minCosine = 0.99;
  double minEuclidean = 0.99;
  SessionOptions session;  // runs testInput
};

// One output of the verification run: TPU-MLIR's cosine and euclidean similarity to the reference.
struct ImportTestRow {
  std::string output;
  double cosine = 0;
  double euclidean = 0;
  bool pass = false;
};

struct ImportedModel {
  std::unique_ptr<ir::Module> module;
  std::vector<ImportTestRow> testRows;  // empty without a verification run
  // SpecError naming the model and the reference when an output is below the tolerance (the module must then
  // not be written), else ok.
  Status testVerdict;
};

// Errors: the importers' (file, parse, unsupported node), InvalidArgument with parameter() set for a bad
// option ("level", "preprocess", "test_input", ...), the level check's (parameter "level"), and the test
// run's (a missing or misshapen reference output, parameter "test_reference").
Result<ImportedModel> importModel(const std::string& path, const ImportModelOptions& options);

}  // namespace tosakit
