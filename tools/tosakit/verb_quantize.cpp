// tosakit quantize MODEL.mlir --quantize INT8|INT16|BF16|F16|F32 [--calibration-table CALI.txt]
//                  [--quantize-table QTABLE.txt] [--asymmetric] [--per-tensor] [--quant-input] [--quant-output]
//                  [--fuse-preprocess] [--test-input in.npz|img.jpg --test-reference ref.npz
//                  --tolerance 0.99,0.95] -o OUT.mlir|OUT.spv
// TPU-MLIR's model_deploy without the chip: the float graph lowered to pure TOSA 1.0 (docs/QUANTIZATION.md).
#include <iostream>

#include "backend_flags.h"
#include "tosakit/compare.h"
#include "tosakit/inspect.h"
#include "tosakit/quantize_model.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

// Flags that are not QuantizeModelOptions fields as they stand (quantizing and verifying are the library's,
// include/tosakit/quantize_model.h).
struct QuantizeArgs {
  std::string model;
  std::string output;
  std::string mode;
  std::string tolerance = "0.99,0.95";
  QuantizeModelOptions options;
  BackendFlags backend;  // runs --test-input (both models)
};

void printRow(const TensorComparison& r) {
  std::cout << r.name << ": cosine " << r.cosine << ", euclidean " << r.euclidean << ", sqnr " << r.sqnr << " dB"
            << (r.note.empty() ? "" : " (" + r.note + ")") << (r.pass ? "" : "  BELOW TOLERANCE") << "\n";
}

// model_deploy's verification report: the outputs, then the first layer below tolerance.
void printVerification(const QuantizeVerification& v) {
  for (const auto& r : v.outputs.rows) printRow(r);
  if (const TensorComparison* first = v.layers.firstFailure()) {
    std::cout << "first layer below tolerance (of " << v.layers.rows.size() << " compared):\n";
    printRow(*first);
  } else {
    std::cout << "all " << v.layers.rows.size() << " layers compared are within tolerance\n";
  }
}

int quantizeVerb(QuantizeArgs& a) {
  QuantizeModelOptions& o = a.options;
  auto mode = parseQuantMode(a.mode);
  if (!mode) return report(mode.status().withParameter("quantize"));
  o.quantize.mode = *mode;
  if (Status s = parseTolerance(a.tolerance, o.test.minCosine, o.test.minEuclidean).withParameter("tolerance"); !s)
    return report(s);
  a.backend.apply(o.test.session);
  auto quantized = quantizeModelFile(a.model, o);
  if (!quantized) return report(quantized.status());
  const QuantizeVerification& v = quantized->verification;
  if (v.tested) printVerification(v);
  if (!v.verdict) return report(v.verdict);
  return report(saveModelWithQuantParams(*quantized->module, a.output));
}

}  // namespace

VerbAction addQuantizeVerb(CLI::App& app) {
  auto args = std::make_shared<QuantizeArgs>();
  CLI::App* cmd = app.add_subcommand("quantize", "Quantize a float TOSA graph to INT8/INT16/BF16/F16 pure TOSA 1.0");
  cmd->add_option("model", args->model, "Float model (.mlir or .spv), e.g. from tosakit import")->required();
  cmd->add_option("-o,--output", args->output, "Quantized model (.mlir or .spv; .spv also writes OUT.spv.qparams.json)")
      ->required();
  cmd->add_option("--quantize", args->mode, "INT8, INT16, BF16, F16 or F32")->required();
  cmd->add_option("--calibration-table", args->options.calibrationTable,
                  "TPU-MLIR calibration table (# op_name threshold min max), from tosakit calibrate");
  cmd->add_option("--quantize-table", args->options.quantizeTable,
                  "Per-layer precision: lines '<layer name> INT8|INT16|BF16|F16|F32' (TPU-MLIR qtable)");
  cmd->add_flag("--asymmetric", args->options.quantize.asymmetric, "INT8 activations with zero points from min/max");
  cmd->add_flag("--per-tensor", args->options.quantize.perTensor,
                "One weight scale per tensor (default: per output channel)");
  cmd->add_flag("--quant-input", args->options.quantize.quantInput, "Arguments in the quantized type (default fp32)");
  cmd->add_flag("--quant-output", args->options.quantize.quantOutput, "Results in the quantized type (default fp32)");
  cmd->add_flag("--fuse-preprocess", args->options.quantize.fusePreprocess,
                "Put the recorded preprocessing (mean/scale) into the graph: the input becomes the uint8 image");
  cmd->add_option("--test-input", args->options.test.testInput,
                  "Input sample (.npz, .npy or image) to verify the result on");
  cmd->add_option("--test-reference", args->options.test.testReference,
                  "Expected outputs (.npz), e.g. the float model's");
  cmd->add_option("--tolerance", args->tolerance, "Minimum cosine,euclidean similarity of the outputs (0.99,0.95)");
  args->backend.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return quantizeVerb(*args);
  };
}

}  // namespace tosakit::cli
