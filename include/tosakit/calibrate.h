// Calibration (TPU-MLIR's run_calibration, technical reference chapter 7): run a float model over sample
// inputs, collect per-tensor statistics (min/max, |x| histograms) and compute a quantization threshold per
// tensor; the result is a calibration table in TPU-MLIR's text format, which `tosakit quantize` reads.
//
// Table format (TPU-MLIR's cali_table, Fig. 7.3): '#' lines are comments; the header comments carry
// "key: value" pairs (histogram number, sample number, tune number, ...); every other non-empty line is
//     <op_name> <threshold> <min> <max>
// with op_name the tensor's name as `tosakit run --dump-intermediates` names it (intermediateName() in
// session.h; function arguments by Function::inputName). The name is everything before the last three
// fields, so a name may contain inner spaces.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit {

struct CalibrationEntry {
  std::string name;
  double threshold = 0;  // symmetric quantization: scale = threshold / 127 (int8)
  double min = 0;        // asymmetric quantization: the range [min, max]
  double max = 0;
};

struct CalibrationTable {
  // Header "key: value" pairs in file order ("generated time", "histogram number", "sample number",
  // "tune number", "method", ...). Comments without a colon are not kept.
  std::vector<std::pair<std::string, std::string>> header;
  std::vector<CalibrationEntry> entries;  // in graph order (inputs first)

  const CalibrationEntry* find(const std::string& name) const;
  // Header value for `key`, or "" when absent.
  std::string headerValue(const std::string& key) const;
  void setHeader(const std::string& key, const std::string& value);
};

// Parses TPU-MLIR's table text; `context` (the file name) prefixes errors, which name the line.
Result<CalibrationTable> parseCalibrationTable(const std::string& text, const std::string& context);
Result<CalibrationTable> readCalibrationTable(const std::string& path);
// Text in TPU-MLIR's layout: header comments, "###", "# op_name threshold min max", one line per entry
// with 7 decimals (%.7f, as TPU-MLIR prints them).
std::string formatCalibrationTable(const CalibrationTable& table);
// Writes atomically (no partial file on failure).
Status writeCalibrationTable(const std::string& path, const CalibrationTable& table);

// Names a calibration table may hold for function `fn`: its arguments (inputName) and every non-constant
// op result as Session captures it (intermediateName, "#2"... for repeats; ops inside regions included).
std::vector<std::string> calibrationTensorNames(const ir::Function& fn);
// InvalidArgument naming the first table entry that is not a tensor of `fn` (context = the table's file).
Status checkCalibrationTableNames(const CalibrationTable& table, const ir::Function& fn, const std::string& context);

// Threshold methods of chapter 7.4 (and MSE); names as the CLI spells them.
enum class CalibrationMethod { Kld, MinMax, Percentile9999, Mse, Octav, AciqGauss, AciqLaplace };
std::string calibrationMethodName(CalibrationMethod m);
Result<CalibrationMethod> parseCalibrationMethod(const std::string& name);

// Loads one sample (an .npz/.npy/image file) as the function's named inputs.
using SampleLoader = std::function<Result<NamedTensors>(const std::string& sampleFile)>;
// Progress of a long stage: (stage, done, total); called after each unit of work.
using ProgressCallback = std::function<void(const std::string& stage, size_t done, size_t total)>;

struct CalibrateOptions {
  // The float model. --we/--bc rewrite its weights in place (the caller saves it when it wants to).
  ir::Module* module = nullptr;
  std::string function = "main";
  std::vector<std::string> samples;  // sample files in the order they are used
  SampleLoader loadSample;
  int64_t inputNum = 0;  // samples used (0 = all)
  CalibrationMethod method = CalibrationMethod::Kld;
  // Auto-tune (7.4.2) of the KLD / ACIQ thresholds on the first tuneNum samples; 0 turns it off.
  int64_t tuneNum = 5;
  int64_t histogramBins = 2048;
  bool weightEqualization = false;  // --we (7.5.1)
  bool biasCorrection = false;      // --bc (7.5.2)
  // --equalize-activations: conv -> [ReLU/ReLU6] -> [zero pad] -> conv chains rescaled per channel by the
  // channels' ranges on the samples, so the tensor between them quantizes well per tensor.
  bool activationEqualization = false;
  bool searchThreshold = false;  // --search threshold (7.5.3): pick the method by output similarity
  SessionOptions session;        // backend, target
  ProgressCallback progress;     // may be empty
  // Filled with human-readable notes (the method search's similarities, what --we/--bc changed).
  std::vector<std::string>* notes = nullptr;
};

// Runs the calibration. Errors: no samples (InvalidArgument), a sample that does not load (its loader's
// status), a model that does not run.
Result<CalibrationTable> calibrate(const CalibrateOptions& opts);

}  // namespace tosakit
