// tosakit quantize MODEL.mlir --quantize INT8|INT16|BF16|F16|F32 [--calibration-table CALI.txt]
//                  [--quantize-table QTABLE.txt] [--asymmetric] [--per-tensor] [--quant-input] [--quant-output]
//                  [--fuse-preprocess] [--test-input in.npz|img.jpg --test-reference ref.npz
//                  --tolerance 0.99,0.95] -o OUT.mlir|OUT.spv
// TPU-MLIR's model_deploy without the chip: the float graph lowered to pure TOSA 1.0 (docs/QUANTIZATION.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "backend_flags.h"
#include "core/file_io.h"
#include "ir/module_clone.h"
#include "tosakit/calibrate.h"
#include "tosakit/compare.h"
#include "tosakit/inputs.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
#include "tosakit/preprocess.h"
#include "tosakit/quantize.h"
#include "tosakit/session.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct QuantizeArgs {
  std::string model;
  std::string output;
  std::string mode;
  std::string calibrationTable;
  std::string quantizeTable;
  bool asymmetric = false;
  bool perTensor = false;
  bool quantInput = false;
  bool quantOutput = false;
  bool fusePreprocess = false;
  std::string testInput;
  std::string testReference;
  std::string tolerance = "0.99,0.95";
  BackendFlags backend;  // runs --test-input (both models)
};

// Session options of the verb's runs (--backend/--threads).
SessionOptions g_sessionOptions;

Result<NamedTensors> runModel(std::unique_ptr<ir::Module> m, const NamedTensors& inputs, bool intermediates,
                              NamedTensors* layers) {
  auto session = Session::create(std::move(m), g_sessionOptions);
  if (!session) return session.status();
  RunOptions ro;
  ro.captureIntermediates = intermediates;
  RunResult rr;
  TK_RETURN_IF_ERROR((*session)->run(inputs, rr, ro));
  if (layers) *layers = std::move(rr.intermediates);
  return std::move(rr.outputs);
}

void printRow(const TensorComparison& r) {
  std::cout << r.name << ": cosine " << r.cosine << ", euclidean " << r.euclidean << ", sqnr " << r.sqnr << " dB"
            << (r.note.empty() ? "" : " (" + r.note + ")") << (r.pass ? "" : "  BELOW TOLERANCE") << "\n";
}

// model_deploy's verification: the quantized graph on --test-input against --test-reference (outputs), then
// layer by layer against the float graph on the same input, naming the first layer below tolerance.
Status verifyQuantized(const QuantizeArgs& a, const ir::Module& quantized) {
  CompareOptions co;
  TK_RETURN_IF_ERROR(parseTolerance(a.tolerance, co.minCosine, co.minEuclidean).withContext("--tolerance"));
  co.quantParams = recordedQuantParams(quantized);
  auto reference = npy::readNpz(a.testReference);
  if (!reference) return reference.status();
  auto floatModel = loadModel(a.model);
  if (!floatModel) return floatModel.status();
  const ir::Function* floatFn = (*floatModel)->function("main");
  const ir::Function* quantFn = quantized.function("main");
  auto floatInputs = loadSample(a.testInput, *floatFn);
  if (!floatInputs) return floatInputs.status().withContext(a.testInput);
  auto quantInputs = loadSample(a.testInput, *quantFn);
  if (!quantInputs) return quantInputs.status().withContext(a.testInput);
  // Float inputs of a --quant-input graph: quantized with the recorded parameters.
  for (auto& [name, t] : *quantInputs) {
    auto it = co.quantParams.find(name);
    if (it == co.quantParams.end() || !isFloat(t.dtype())) continue;
    Tensor q(DType::I8, t.shape());
    for (size_t i = 0; i < quantFn->inputs().size(); ++i)
      if (quantFn->inputName(i) == name) q = Tensor(quantFn->inputs()[i]->type.dtype, t.shape());
    for (int64_t i = 0; i < t.size(); ++i) {
      double v = std::nearbyint(t.getFloat(i) / it->second.scale) + double(it->second.zeroPoint);
      q.setInt(i, int64_t(std::clamp(v, double(dtypeMin(q.dtype())), double(dtypeMax(q.dtype())))));
    }
    t = std::move(q);
  }
  NamedTensors quantLayers, floatLayers;
  auto quantOut = runModel(ir::cloneModule(quantized), *quantInputs, true, &quantLayers);
  if (!quantOut) return quantOut.status().withContext("quantized model");
  auto floatOut = runModel(std::move(*floatModel), *floatInputs, true, &floatLayers);
  if (!floatOut) return floatOut.status().withContext(a.model);
  CompareReport outputs = compareTensors(*reference, *quantOut, co);
  for (const auto& r : outputs.rows) printRow(r);
  if (outputs.rows.empty()) return Status::invalid(a.testReference + ": names none of the model's outputs");
  CompareReport layers = compareTensors(floatLayers, quantLayers, co);
  if (const TensorComparison* first = layers.firstFailure()) {
    std::cout << "first layer below tolerance (of " << layers.rows.size() << " compared):\n";
    printRow(*first);
  } else {
    std::cout << "all " << layers.rows.size() << " layers compared are within tolerance\n";
  }
  if (!outputs.allPass())
    return Status::error(StatusCode::SpecError,
                         a.model + ": quantized outputs differ from " + a.testReference + " beyond tolerance " +
                             a.tolerance + "; nothing written");
  return Status::ok();
}

int quantizeVerb(const QuantizeArgs& a) {
  QuantizeOptions opts;
  auto mode = parseQuantMode(a.mode);
  if (!mode) return report(mode.status());
  opts.mode = *mode;
  opts.asymmetric = a.asymmetric;
  opts.perTensor = a.perTensor;
  opts.quantInput = a.quantInput;
  opts.quantOutput = a.quantOutput;
  opts.fusePreprocess = a.fusePreprocess;
  if (a.testInput.empty() != a.testReference.empty())
    return report(Status::invalid("--test-input and --test-reference go together"));
  auto model = loadModel(a.model);
  if (!model) return report(model.status());
  const ir::Function* fn = (*model)->function("main");
  if (!fn) return report(Status::invalid(a.model + ": no function 'main'"));
  CalibrationTable table;
  if (!a.calibrationTable.empty()) {
    auto t = readCalibrationTable(a.calibrationTable);
    if (!t) return report(t.status());
    if (Status s = checkCalibrationTableNames(*t, *fn, a.calibrationTable); !s) return report(s);
    table = std::move(*t);
  }
  bool needsTable = opts.mode == QuantMode::INT8 || opts.mode == QuantMode::INT16;
  if (!a.quantizeTable.empty()) {
    auto q = readQuantizeTable(a.quantizeTable);
    if (!q) return report(q.status());
    opts.layerModes = std::move(*q);
    for (const auto& [layer, m] : opts.layerModes)
      needsTable = needsTable || m == QuantMode::INT8 || m == QuantMode::INT16;
  }
  if (needsTable && a.calibrationTable.empty())
    return report(Status::invalid("--quantize " + a.mode + " needs --calibration-table (tosakit calibrate)"));
  opts.calibrationTableSource = a.calibrationTable;
  opts.quantizeTableSource = a.quantizeTable;
  auto quantized = quantizeModel(**model, table, opts);
  if (!quantized) return report(quantized.status());
  if (!a.testInput.empty())
    if (Status s = verifyQuantized(a, **quantized); !s) return report(s);
  return report(saveModelWithQuantParams(**quantized, a.output));
}

}  // namespace

VerbAction addQuantizeVerb(CLI::App& app) {
  auto args = std::make_shared<QuantizeArgs>();
  CLI::App* cmd = app.add_subcommand("quantize", "Quantize a float TOSA graph to INT8/INT16/BF16/F16 pure TOSA 1.0");
  cmd->add_option("model", args->model, "Float model (.mlir or .spv), e.g. from tosakit import")->required();
  cmd->add_option("-o,--output", args->output, "Quantized model (.mlir or .spv; .spv also writes OUT.spv.qparams.json)")
      ->required();
  cmd->add_option("--quantize", args->mode, "INT8, INT16, BF16, F16 or F32")->required();
  cmd->add_option("--calibration-table", args->calibrationTable,
                  "TPU-MLIR calibration table (# op_name threshold min max), from tosakit calibrate");
  cmd->add_option("--quantize-table", args->quantizeTable,
                  "Per-layer precision: lines '<layer name> INT8|INT16|BF16|F16|F32' (TPU-MLIR qtable)");
  cmd->add_flag("--asymmetric", args->asymmetric, "INT8 activations with zero points from min/max");
  cmd->add_flag("--per-tensor", args->perTensor, "One weight scale per tensor (default: per output channel)");
  cmd->add_flag("--quant-input", args->quantInput, "Arguments in the quantized type (default fp32)");
  cmd->add_flag("--quant-output", args->quantOutput, "Results in the quantized type (default fp32)");
  cmd->add_flag("--fuse-preprocess", args->fusePreprocess,
                "Put the recorded preprocessing (mean/scale) into the graph: the input becomes the uint8 image");
  cmd->add_option("--test-input", args->testInput, "Input sample (.npz, .npy or image) to verify the result on");
  cmd->add_option("--test-reference", args->testReference, "Expected outputs (.npz), e.g. the float model's");
  cmd->add_option("--tolerance", args->tolerance, "Minimum cosine,euclidean similarity of the outputs (0.99,0.95)");
  args->backend.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    args->backend.apply(g_sessionOptions);
    return quantizeVerb(*args);
  };
}

}  // namespace tosakit::cli
