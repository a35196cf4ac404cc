// Tensor-by-tensor comparison of two result sets (TPU-MLIR's npz_tool compare, technical reference 3.2.6):
// tensors matched by name, integer tensors of a quantized model dequantized with the scales it records,
// cosine and euclidean similarity (TPU-MLIR's definitions, src/compliance/similarity.h), SQNR and the
// largest absolute difference. docs/QUANTIZATION.md "## Comparing".
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "tosakit/quantize.h"
#include "tosakit/session.h"

namespace tosakit {

struct TensorComparison {
  std::string name;
  std::string shape;         // "1x8x8x16"
  bool dequantized = false;  // an integer tensor scaled by its recorded parameters
  double cosine = 0;
  double euclidean = 0;
  double sqnr = 0;  // dB: 10 log10(sum a^2 / sum (a - b)^2), +inf when equal
  double maxAbsDiff = 0;
  bool pass = false;
  std::string note;  // why it was not compared ("shape 1x4 vs 4x1"), else empty
};

struct CompareOptions {
  double minCosine = 0.99;
  double minEuclidean = 0.9;
  std::set<std::string> excepts;                         // names left out
  std::map<std::string, TensorQuantParams> quantParams;  // for dequantizing integer tensors (either side)
};

struct CompareReport {
  std::vector<TensorComparison> rows;  // in A's order, tensors present in both
  std::vector<std::string> onlyInA, onlyInB;
  bool allPass() const;
  const TensorComparison* firstFailure() const;
};

// "0.99,0.9" -> (cosine, euclidean): the one parser of every tolerance (compare, import, quantize, visual).
// Exactly two finite numbers; anything else is InvalidArgument.
Status parseTolerance(const std::string& spec, double& minCosine, double& minEuclidean);
CompareReport compareTensors(const NamedTensors& a, const NamedTensors& b, const CompareOptions& options);
// One self-contained HTML page (no external resources): the colour-coded table and an inline SVG plot of
// each tensor's cosine and euclidean similarity.
std::string compareReportHtml(const CompareReport& report, const std::string& titleA, const std::string& titleB,
                              const CompareOptions& options);

}  // namespace tosakit
