// Mixed-precision search (TPU-MLIR's run_qtable / search_qtable, technical reference 3.1.4, 3.2.3 and 7.5.4):
// which layers must stay in floating point for the quantized model's outputs to reach a cosine similarity.
//
// 1. Sensitivity (the loss table): for every candidate — every layer alone, and every fused group (an op with
//    the transposes/reshapes only it reads and its sole ReLU consumer) — the model quantized with those
//    layers in `fpType` and everything else in the base mode; its output cosine against the float model (each
//    output's cosine averaged over the samples, the worst output's counts).
//    Sorted by cosine gain over all-quantized per float layer, most first.
//    Measured on the sensitivityNum samples whose all-quantized cosine is lowest (it only ranks).
// 2. Block search: the union of the first k candidates with a gain, k = 1, 2, 4, ... until it reaches
//    expectedCos, bisection for the smallest k, then each of them dropped again when the others still reach it
//    (about 2 log2 k + k quantizations). When no prefix reaches it (within maxFloatLayers):
// 3. Greedy forward selection: each step quantizes the model with a candidate added to the layers chosen so
//    far — for the 16 candidates with the highest gain measured so far and every candidate next to a chosen
//    layer — and keeps the one with the most cosine gain per new float layer (at most maxFloatLayers layers
//    in all; the others too when none of those raises the cosine, and the least harmful is taken when none
//    does), until `expectedCos` is reached or the limit; not reached, the best table measured.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "tosakit/calibrate.h"
#include "tosakit/quantize.h"

namespace tosakit {

struct QtableOptions {
  const ir::Module* module = nullptr;  // the float model
  const CalibrationTable* table = nullptr;
  std::vector<std::string> samples;  // evaluation samples
  SampleLoader loadSample;
  QuantizeOptions quantize;           // base mode (INT8 by default), asymmetric, per-tensor, function
  QuantMode fpType = QuantMode::F32;  // precision of the layers kept in float
  double expectedCos = 0.99;
  // Outputs whose cosine must reach expectedCos (names as Function::outputName); empty: every float output.
  // The search measures the worst of them (each averaged over the samples).
  std::vector<std::string> outputs;
  // Each output's cosine on its worst sample instead of its mean over the samples: for a goal that every
  // image must meet rather than the average.
  bool worstSample = false;
  int64_t maxFloatLayers = -1;  // -1: no limit
  // Samples the sensitivity is measured on: the ones whose all-quantized cosine is lowest (0: every sample).
  // The sensitivity only ranks the candidates; every table the search keeps is measured on all samples.
  int64_t sensitivityNum = 2;
  // The block search on the loss table first (prefixes, bisection, redundant candidates removed), the greedy
  // search only when no prefix reaches expectedCos; false: the greedy search alone.
  bool blockSearch = true;
  SessionOptions session;
  ProgressCallback progress;
};

struct LayerSensitivity {
  std::string layer;                // the candidate's name: its layers joined by " + "
  double cosine = 0;                // mean output cosine with only this candidate's layers in float
  std::vector<std::string> layers;  // one layer, or a fused group
};

struct QtableResult {
  double allQuantizedCosine = 0;              // every layer in the base mode
  std::vector<LayerSensitivity> sensitivity;  // candidates, most gain per float layer first
  std::vector<std::string> floatLayers;       // the chosen layers, in the order they joined
  double finalCosine = 0;                     // with floatLayers in fpType
  bool reached = false;                       // finalCosine >= expectedCos
  size_t layerCount = 0;                      // layers considered
  size_t evaluations = 0;                     // quantized models measured
  size_t runs = 0;                            // runs of those models (one per sample measured)
};

Result<QtableResult> searchQtable(const QtableOptions& opts);

// TPU-MLIR's quantize table text: '#' comment lines (the search's numbers), then "<layer> <mode>" per line.
std::string formatQuantizeTable(const QtableResult& r, const QtableOptions& opts);
// The loss table: "# layer cosine loss" then one line per layer, most helpful first (loss = 1 - cosine).
std::string formatLossTable(const QtableResult& r);

}  // namespace tosakit
