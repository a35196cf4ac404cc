// tosakit visual FLOAT QUANT [--inputs S.npz ...] [--input NAME=FILE ...] [--dataset DIR] -o REPORT.html: float vs
// quantized tensor by tensor on the float graph, one self-contained page (docs/INSPECT.md).
#include "backend_flags.h"
#include "core/file_io.h"
#include "input_flags.h"
#include "tosakit/calibrate.h"
#include "tosakit/compare.h"
#include "tosakit/inspect.h"
#include "tosakit/preprocess.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct VisualArgs {
  std::string floatModel, quantModel, output, dataset, calibrationTable, tolerance = "0.99,0.9";
  std::vector<std::string> samples, inputs;
  int64_t inputNum = 0;
  BackendFlags backend;
  VisualOptions options;
};

// Samples: each --inputs file, the --input NAME=FILE set as one more, then the dataset's files.
Status gatherSamples(const VisualArgs& a, const ir::Function& fn, std::vector<NamedTensors>& out) {
  std::vector<std::string> files = a.samples;
  if (!a.dataset.empty()) {
    auto listed = datasetSamples(a.dataset, a.inputNum);
    if (!listed) return listed.status();
    files.insert(files.end(), listed->begin(), listed->end());
  }
  for (const std::string& f : files) {
    auto s = loadSample(f, fn);
    if (!s) return s.status();
    out.push_back(std::move(*s));
  }
  InputSources named;
  TK_RETURN_IF_ERROR(addNamedInputFiles(a.inputs, named));
  if (!named.files.empty()) {
    auto prepared = prepareInputs(fn, named);
    if (!prepared) return prepared.status();
    out.push_back(std::move(prepared->tensors));
  }
  if (out.empty()) return Status::invalid("visual: give the inputs: --inputs FILE, --input NAME=FILE or --dataset DIR");
  return Status::ok();
}

int visualVerb(VisualArgs& a) {
  if (Status s = parseTolerance(a.tolerance, a.options.minCosine, a.options.minEuclidean).withContext("--tolerance");
      !s)
    return report(s);
  SessionOptions so;
  a.backend.apply(so);
  a.options.backend = so.backend;
  a.options.threads = so.threads;
  a.options.graph.function = a.options.function;
  auto floatModel = loadInspectableModel(a.floatModel);
  if (!floatModel) return report(floatModel.status());
  auto quantModel = loadInspectableModel(a.quantModel);
  if (!quantModel) return report(quantModel.status());
  const ir::Function* fn = (*floatModel)->function(a.options.function);
  if (!fn) return report(Status::invalid(a.floatModel + ": no function '" + a.options.function + "'"));
  std::vector<NamedTensors> samples;
  if (Status s = gatherSamples(a, *fn, samples); !s) return report(s);
  std::optional<CalibrationTable> table;
  if (!a.calibrationTable.empty()) {
    auto t = readCalibrationTable(a.calibrationTable);
    if (!t) return report(t.status());
    table = std::move(*t);
    a.options.calibration = &*table;
  }
  auto html = visualReport(**floatModel, **quantModel, samples, a.options);
  if (!html) return report(html.status());
  return report(writeFileAtomic(a.output, *html));
}

}  // namespace

VerbAction addVisualVerb(CLI::App& app) {
  auto args = std::make_shared<VisualArgs>();
  CLI::App* cmd = app.add_subcommand(
      "visual", "Float vs quantized tensor by tensor on the float graph: one self-contained HTML report");
  cmd->add_option("float_model", args->floatModel, "Float model (.mlir, .spv, .onnx)")->required();
  cmd->add_option("quant_model", args->quantModel, "Quantized model (tosakit quantize; takes the float inputs)")
      ->required();
  cmd->add_option("-o,--output", args->output, "Report (.html)")->required();
  cmd->add_option("--inputs", args->samples, "A sample: .npz keyed by input names, .npy or an image (repeatable)");
  cmd->add_option("--input", args->inputs, "NAME=FILE (.npy or image): one sample given input by input");
  cmd->add_option("--dataset", args->dataset, "Directory of samples: mean and worst cosine over them");
  cmd->add_option("--input-num", args->inputNum, "At most this many dataset samples (0: all)");
  cmd->add_option("--calibration-table", args->calibrationTable, "Show each tensor's threshold/min/max from it");
  cmd->add_option("--tolerance", args->tolerance, "cosine,euclidean: the slider's start and the pass mark")
      ->capture_default_str();
  cmd->add_option("--function", args->options.function, "Function to compare")->capture_default_str();
  args->backend.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return visualVerb(*args);
  };
}

}  // namespace tosakit::cli
