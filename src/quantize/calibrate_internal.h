// Pieces of the calibration driver shared by its files (calibrate.cpp, autotune.cpp, weight_rewrites.cpp).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "quantize/fake_quant.h"
#include "quantize/statistics.h"
#include "tosakit/calibrate.h"

namespace tosakit::quantize {

struct TensorStats {
  std::string name;
  RangeStats range;
  AbsHistogram hist;
};

// Statistics of every float tensor, in first-seen order (inputs first).
struct ModelStats {
  std::vector<TensorStats> tensors;
  std::map<std::string, size_t> index;
  TensorStats& at(const std::string& name);
};

using Thresholds = std::map<std::string, double>;

// One sample through the float model: the function's arguments in declaration order, then every op result
// Session captured, by name.
Result<NamedTensors> runSample(Session& session, const CalibrateOptions& o, const ir::Function& fn,
                               const std::string& sample);

// Threshold of one tensor by `method` (before auto-tune).
double methodThreshold(CalibrationMethod method, const TensorStats& s);

// 7.4.2: every threshold of a tensor that feeds top-level ops is re-chosen among 20 candidates evenly spaced
// from its threshold to its absmax, by the Euclidean distance between each consumer's output with that input
// fake-quantized (weights fake-quantized too) and its float output, summed over the tune samples; the largest
// of the consumers' choices wins.
Status autoTune(const CalibrateOptions& o, const ir::Function& fn, const std::vector<std::string>& tuneSamples,
                const ModelStats& stats, Thresholds& thresholds);

// 7.5.1 cross-layer weight equalization on conv -> [relu] -> conv pairs; returns the number of pairs.
Result<int> equalizeWeights(ir::Function& fn);

// Activation-aware equalization of conv -> [ReLU / bounded ReLU] -> [zero pad] -> conv chains: each channel of
// the tensor between them scaled by its range on `samples` (docs/QUANTIZATION.md, "Activation equalization");
// residual streams (tensors joined by add/sub, pooling, ReLU, zero pad, produced and read by convs) get one
// scale per channel over the whole stream, so tensors with several consumers are equalized too. Returns the
// number of pairs and of streams.
struct ActivationEqualization {
  int pairs = 0;
  int residualGroups = 0;
};
Result<ActivationEqualization> equalizeActivations(const CalibrateOptions& o, ir::Function& fn,
                                                   const std::vector<std::string>& samples);

// 7.5.2 bias correction of conv biases: bias += E[float output - fake-quantized output] per channel.
Result<int> correctBiases(const CalibrateOptions& o, ir::Function& fn, const std::vector<std::string>& samples,
                          const Thresholds& thresholds);

// Mean output cosine similarity of the fake-quantized function against the float one over `samples`.
Result<double> fakeQuantSimilarity(const CalibrateOptions& o, const ir::Function& fn,
                                   const std::vector<std::string>& samples, const Thresholds& thresholds);

}  // namespace tosakit::quantize
