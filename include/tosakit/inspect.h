// Seeing and dissecting a model (TPU-MLIR's model_tool --info, final.mlir truncation and mlir2graph):
//   inspectModel  what a model contains: inputs/outputs, target and the smallest target it needs, op counts,
//                 parameters, multiply-accumulates, the fast plan's memory, precision of a quantized graph;
//   cutModel      the subgraph between named tensors (named as `run --dump-intermediates` names them);
//   graphDot / writeGraph  the graph as Graphviz DOT, SVG or a self-contained HTML page.
// docs/INSPECT.md defines every figure.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/calibrate.h"
#include "tosakit/session.h"

namespace tosakit {

// A model by file extension: .mlir/.spv through loadModel (model_io.h), .onnx imported with default options
// (static shapes, batch 1, NCHW at the boundary; `tosakit import` for anything else). A .spv's
// OUT.spv.qparams.json sidecar (tosakit quantize, cut) puts its scales back where the .mlir form records them.
Result<std::unique_ptr<ir::Module>> loadInspectableModel(const std::string& path,
                                                         std::vector<std::string>* notes = nullptr);

struct TensorInfo {
  std::string name;
  std::string type;        // "tensor<1x3x224x224xfp32>"
  std::string onnxType;    // recorded by the ONNX import ("float32"), or empty
  std::string preprocess;  // the recorded preprocessing recipe (JSON), or empty
  bool quantized = false;  // scale/zero point recorded (tosakit quantize)
  double scale = 0;
  int64_t zeroPoint = 0;
};

struct OpMacs {
  std::string op;        // "tosa.conv2d"
  std::string location;  // the op's name as `run --dump-intermediates` keys it (intermediateName)
  int64_t macs = 0;
};

struct ParameterGroup {
  int64_t count = 0;  // elements
  int64_t bytes = 0;  // elements x element width, rounded up to whole bytes
};

struct ModelInfo {
  std::string function;
  std::vector<TensorInfo> inputs, outputs;
  // Declared target (tosa.target_env), if any.
  bool hasTarget = false;
  ir::TargetEnv target;
  // The fewest profiles and extensions under which validation reports nothing it does not also report with
  // every profile and extension (validateModule with candidate targets; none are re-derived here).
  std::vector<std::string> neededProfiles, neededExtensions;
  int64_t violationsUnderAll = 0;           // validation errors even with every profile and extension (0: valid)
  std::map<std::string, int64_t> opCounts;  // op name -> count (nested regions included, terminators not)
  int64_t opTotal = 0;
  // Parameters: the elements of tosa.const tensors other than zero points, pad constants and rescale/mul
  // multipliers/shifts (those are counted in quantConstants). Keyed by dtype name ("fp32", "i8").
  std::map<std::string, ParameterGroup> parameters;
  int64_t parameterCount = 0, parameterBytes = 0;
  ParameterGroup quantConstants;
  std::vector<OpMacs> macs;  // per conv2d/conv3d/depthwise_conv2d/transpose_conv2d/matmul, in graph order
  int64_t totalMacs = 0;
  // The fast backend's compiled plan (not run): activation arena, weights it holds, their sum.
  bool planAvailable = false;
  std::string planError;  // why there is no plan
  int64_t arenaBytes = 0, planWeightBytes = 0, planPeakBytes = 0;
  // Layers (ops other than constants and terminators) by precision: the narrowest element type among the
  // op's tensor operands and results, upper-case dtype names ("I8", "I16", "I32", "FP32", "BF16", "FP16", ...).
  std::map<std::string, int64_t> layersByPrecision;
  int64_t layerTotal = 0;
};

struct InfoOptions {
  std::string function = "main";
  bool plan = true;  // compile the fast plan for its memory figures
};

// Errors: InvalidArgument when the function does not exist.
Result<ModelInfo> inspectModel(const ir::Module& module, const InfoOptions& options = {});
// One JSON object (`tosakit info --json`, Python's tosakit.info) and the human-readable text.
std::string modelInfoJson(const ModelInfo& info);
std::string modelInfoText(const ModelInfo& info);

struct CutOptions {
  std::string function = "main";
  // Tensors named as `run --dump-intermediates` names them (an op's location name, "name:k" for result k > 0,
  // "#n" for the n-th op sharing a name) or function inputs by name.
  std::vector<std::string> inputs;   // become the arguments, in this order, with these names
  std::vector<std::string> outputs;  // become the results, in this order, with these names
};

// The subgraph computing `outputs` from `inputs`: only the ops they need (constants included), the inputs as
// arguments (a quantized tensor's recorded scale/zero point moved to the argument), the target, variables and
// every op's attributes (quantization records) kept. Errors: InvalidArgument for no outputs, an unknown or
// repeated name, an output depending on a tensor (a function input) neither computed nor given;
// Unsupported for a name inside a control-flow region.
Result<std::unique_ptr<ir::Module>> cutModel(const ir::Module& module, const CutOptions& options);

// Saves by extension like saveModel; a .spv of a model that records quantization parameters gets them in
// the OUT.spv.qparams.json sidecar (SPIR-V has no place for them; the .spv itself is written without the
// "tosakit.*" op attributes). Every door saves through this (CLI verbs, Python). Nothing is left behind on
// failure.
Status saveModelWithQuantParams(const ir::Module& module, const std::string& path,
                                const std::string& function = "main");
// loadModel, and for a .spv with an OUT.spv.qparams.json sidecar its parameters put back where the .mlir form
// records them (ParseError naming the sidecar when it is malformed).
Result<std::unique_ptr<ir::Module>> loadModelWithQuantParams(const std::string& path,
                                                             std::vector<std::string>* notes = nullptr);

struct GraphOptions {
  std::string function = "main";
  // Constants are always folded into their consumer (a line per constant operand: its spec argument and type);
  // with collapseConstants they become one summary line per consumer ("3 constants, 9.47 K elements").
  bool collapseConstants = false;
  // svg/html layouts of more nodes than this are refused (Graphviz's layout time grows faster than linearly).
  int64_t maxLayoutNodes = 20000;
};

// The function as Graphviz DOT, top to bottom: a node per argument, per op (type, name as `run
// --dump-intermediates` writes it, result types, recorded scale/zero point, folded constants) and per result;
// an edge per use of a non-constant value; cond_if/while_loop regions as clusters.
Result<std::string> graphDot(const ir::Module& module, const GraphOptions& options = {});
// DOT laid out by Graphviz's dot into SVG (in process, cgraph/gvc).
Result<std::string> dotToSvg(const std::string& dot, const std::string& context);
// Writes .dot, .svg or .html (the SVG in one self-contained page: pan, zoom, search by name) by extension;
// atomically.
Status writeGraph(const ir::Module& module, const std::string& path, const GraphOptions& options = {});

struct VisualOptions {
  std::string function = "main";
  std::string backend = "fast";  // runs both models ("ref" for the golden model)
  int threads = 0;
  double minCosine = 0.99, minEuclidean = 0.9;    // the slider's start and the table's pass/fail
  const CalibrationTable* calibration = nullptr;  // optional: each tensor's threshold/min/max in the details
  int scatterPoints = 400;                        // float vs dequantized pairs kept per tensor (evenly strided)
  int histogramBins = 40;
  GraphOptions graph;  // layout of the float model's graph
};

// TPU-MLIR's visual.py as one self-contained HTML page: both models run on every sample (inputs by name, the
// float model's), every tensor they share (op results by intermediateName, outputs by name; integer tensors
// dequantized with the scales the quantized model records) compared; the float graph coloured by cosine with a
// legend and a tolerance slider; a click on a node shows the tensor's figures and plots (float vs dequantized
// scatter, both histograms, the error histogram) of the first sample; a sortable table of the worst layers;
// with several samples, each tensor's mean and worst cosine over them. Errors: the runs' own (missing or
// mis-typed inputs), no samples, no tensor in common.
Result<std::string> visualReport(const ir::Module& floatModel, const ir::Module& quantModel,
                                 const std::vector<NamedTensors>& samples, const VisualOptions& options = {});

}  // namespace tosakit
