// tosakit calibrate MODEL --dataset DIR [--input-num N] [--method kld|minmax|percentile9999|mse|octav|
//                   aciq_gauss|aciq_laplace] [--tune-num N] [--histogram-bins 2048] [--we] [--bc]
//                   [--equalize-activations]
//                   [--search threshold] [--output-model OUT.mlir] [--backend ...] -o CALI.txt
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "backend_flags.h"
#include "target_flags.h"
#include "tosakit/calibrate.h"
#include "tosakit/inputs.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/preprocess.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct CalibrateArgs {
  std::string model;
  std::string function = "main";
  std::string dataset;
  int64_t inputNum = 0;
  std::string method = "kld";
  int64_t tuneNum = 5;
  int64_t histogramBins = 2048;
  bool we = false;
  bool bc = false;
  bool ae = false;
  std::string search = "false";
  std::string output;
  std::string outputModel;
  TargetFlags target;
  BackendFlags backend;
};

// "\r<stage> [#####.....] done/total" on stderr, only when stderr is a terminal.
ProgressCallback progressBar() {
  if (!::isatty(STDERR_FILENO)) return {};
  return [](const std::string& stage, size_t done, size_t total) {
    const int width = 30;
    int filled = total ? int(width * done / total) : width;
    std::cerr << "\r" << stage << " [" << std::string(size_t(filled), '#') << std::string(size_t(width - filled), '.')
              << "] " << done << "/" << total << "   " << (done == total ? "\n" : "") << std::flush;
  };
}

// Where --we/--bc/--equalize-activations' rewritten model goes without --output-model: next to the table, named after the model.
std::string rewrittenModelPath(const CalibrateArgs& a) {
  if (!a.outputModel.empty()) return a.outputModel;
  std::filesystem::path model(a.model), table(a.output);
  return (table.parent_path() / (model.stem().string() + "_calibrated" + model.extension().string())).string();
}

int calibrateVerb(const CalibrateArgs& a) {
  auto method = parseCalibrationMethod(a.method);
  if (!method) return report(method.status());
  if (a.search != "false" && a.search != "threshold")
    return report(
        Status::invalid("--search '" + a.search + "': expected threshold (search_qtable is `tosakit qtable`)"));
  auto target = a.target.target();
  if (!target) return report(target.status());
  std::vector<std::string> notes;
  auto module = loadModel(a.model, &notes);
  if (!module) return report(module.status());
  printNotes(notes);
  notes.clear();
  const ir::Function* fn = (*module)->function(a.function);
  if (!fn) return report(Status::invalid(a.model + ": no function '" + a.function + "'"));
  auto samples = datasetSamples(a.dataset);
  if (!samples) return report(samples.status());

  CalibrateOptions o;
  o.module = module->get();
  o.function = a.function;
  o.samples = *samples;
  o.loadSample = [fn](const std::string& path) { return loadSample(path, *fn); };
  o.inputNum = a.inputNum;
  o.method = *method;
  o.tuneNum = a.tuneNum;
  o.histogramBins = a.histogramBins;
  o.weightEqualization = a.we;
  o.biasCorrection = a.bc;
  o.activationEqualization = a.ae;
  o.searchThreshold = a.search == "threshold";
  o.session.target = *target;
  a.backend.apply(o.session);
  o.progress = progressBar();
  o.notes = &notes;
  auto table = calibrate(o);
  if (!table) return report(table.status());
  printNotes(notes);

  std::string modelOut;
  if (a.we || a.bc || a.ae) {
    modelOut = rewrittenModelPath(a);
    if (Status s = saveModelWithQuantParams(**module, modelOut); !s) return report(s);
  }
  if (Status s = writeCalibrationTable(a.output, *table); !s) {
    if (!modelOut.empty()) std::filesystem::remove(modelOut);
    return report(s);
  }
  std::cout << a.output << ": " << table->entries.size() << " tensors, " << table->headerValue("sample number")
            << " samples, method " << table->headerValue("method") << "\n";
  if (!modelOut.empty()) std::cout << modelOut << ": model with the rewritten float weights\n";
  return kExitOk;
}

}  // namespace

VerbAction addCalibrateVerb(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Compute per-tensor quantization thresholds over a dataset (TPU-MLIR's calibration table)");
  cmd->add_option("model", args->model, "Float model (.mlir or .spv)")->required();
  cmd->add_option("--function", args->function, "Function to calibrate")->capture_default_str();
  cmd->add_option("--dataset", args->dataset,
                  "Directory of samples: .npz keyed by input names, .npy or images (jpg/png/bmp, preprocessed "
                  "by the recipe recorded at import) for single-input models")
      ->required();
  cmd->add_option("--input-num", args->inputNum, "Samples used, in file-name order (0 = all)")->capture_default_str();
  cmd->add_option("--method", args->method,
                  "Threshold method: kld, minmax, percentile9999, mse, octav, aciq_gauss, aciq_laplace")
      ->capture_default_str()
      ->check(CLI::IsMember({"kld", "minmax", "percentile9999", "mse", "octav", "aciq_gauss", "aciq_laplace"}));
  cmd->add_option("--tune-num", args->tuneNum, "Samples for auto-tuning the kld/aciq thresholds (0 = no tuning)")
      ->capture_default_str();
  cmd->add_option("--histogram-bins", args->histogramBins, "Bins of the |x| histograms")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(128), int64_t(1) << 20));
  cmd->add_flag("--we", args->we, "Cross-layer weight equalization of conv -> [relu] -> conv pairs (rewrites weights)");
  cmd->add_flag("--bc", args->bc, "Bias correction of conv biases (rewrites biases)");
  cmd->add_flag("--equalize-activations", args->ae,
                "Scale each channel between conv -> [relu/relu6] -> [zero pad] -> conv by its range on the samples, "
                "compensated in the next conv's weights (rewrites weights)");
  cmd->add_option("--search", args->search,
                  "threshold: pick the method (kld+tune, octav, minmax, percentile9999) by output similarity")
      ->capture_default_str()
      ->check(CLI::IsMember({"false", "threshold"}));
  cmd->add_option("-o,--output", args->output, "Calibration table to write")->required();
  cmd->add_option(
      "--output-model", args->outputModel,
      "Where --we/--bc/--equalize-activations write the rewritten model (default: MODEL_calibrated.EXT next to the table)");
  args->target.add(cmd);
  args->backend.add(cmd, "fast");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return calibrateVerb(*args);
  };
}

}  // namespace tosakit::cli
