// tosakit qtable MODEL --dataset DIR --calibration-table CALI.txt [--expected-cos 0.99] [--max-float-layers N]
//                [--fp-type F16|BF16|F32|INT16] [--quantize INT8|INT16] [--asymmetric] [--per-tensor]
//                [--outputs NAME,...] [--worst-sample] [--input-num N] [--sensitivity-num 2] [--search block|greedy]
//                [--loss-table LOSS.txt] -o QTABLE.txt
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "backend_flags.h"
#include "core/file_io.h"
#include "tosakit/inputs.h"
#include "tosakit/model_io.h"
#include "tosakit/preprocess.h"
#include "tosakit/qtable.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct QtableArgs {
  std::string model;
  std::string dataset;
  std::string calibrationTable;
  double expectedCos = 0.99;
  std::vector<std::string> outputs;
  bool worstSample = false;
  int64_t maxFloatLayers = -1;
  std::string fpType = "F32";
  std::string mode = "INT8";
  bool asymmetric = false;
  bool perTensor = false;
  int64_t inputNum = 10;
  int64_t sensitivityNum = 2;
  std::string search = "block";
  std::string lossTable;
  std::string output;
  BackendFlags backend;
};

ProgressCallback progressBar() {
  if (!::isatty(STDERR_FILENO)) return {};
  return [](const std::string& stage, size_t done, size_t total) {
    std::cerr << "\r" << stage << " " << done << "/" << total << "   " << (done == total ? "\n" : "") << std::flush;
  };
}

int qtableVerb(const QtableArgs& a) {
  auto fpType = parseQuantMode(a.fpType);
  if (!fpType) return report(fpType.status());
  auto mode = parseQuantMode(a.mode);
  if (!mode) return report(mode.status());
  std::vector<std::string> notes;
  auto module = loadModel(a.model, &notes);
  if (!module) return report(module.status());
  printNotes(notes);
  const ir::Function* fn = (*module)->function("main");
  if (!fn) return report(Status::invalid(a.model + ": no function 'main'"));
  auto table = readCalibrationTable(a.calibrationTable);
  if (!table) return report(table.status());
  if (Status s = checkCalibrationTableNames(*table, *fn, a.calibrationTable); !s) return report(s);
  auto samples = datasetSamples(a.dataset, a.inputNum);
  if (!samples) return report(samples.status());

  QtableOptions o;
  o.module = module->get();
  o.table = &*table;
  o.samples = *samples;
  o.loadSample = [fn](const std::string& path) { return loadSample(path, *fn); };
  o.quantize.mode = *mode;
  o.quantize.asymmetric = a.asymmetric;
  o.quantize.perTensor = a.perTensor;
  o.fpType = *fpType;
  o.expectedCos = a.expectedCos;
  o.outputs = a.outputs;
  o.worstSample = a.worstSample;
  o.maxFloatLayers = a.maxFloatLayers;
  o.sensitivityNum = a.sensitivityNum;
  o.blockSearch = a.search == "block";
  a.backend.apply(o.session);
  o.progress = progressBar();
  auto r = searchQtable(o);
  if (!r) return report(r.status());
  if (!a.lossTable.empty())
    if (Status s = writeFileAtomic(a.lossTable, formatLossTable(*r)); !s) return report(s);
  if (Status s = writeFileAtomic(a.output, formatQuantizeTable(*r, o)); !s) {
    if (!a.lossTable.empty()) std::filesystem::remove(a.lossTable);
    return report(s);
  }
  std::cout << a.output << ": " << r->floatLayers.size() << " of " << r->layerCount << " layers in "
            << quantModeName(o.fpType) << "; output cosine " << r->allQuantizedCosine << " all-"
            << quantModeName(o.quantize.mode) << ", " << r->finalCosine << " with the table; " << r->evaluations
            << " quantized models measured, " << r->runs << " runs\n";
  if (!r->reached)
    printNotes({"expected cosine " + std::to_string(a.expectedCos) + " not reached within " +
                std::to_string(r->floatLayers.size()) + " float layers"});
  return kExitOk;
}

}  // namespace

VerbAction addQtableVerb(CLI::App& app) {
  auto args = std::make_shared<QtableArgs>();
  CLI::App* cmd = app.add_subcommand(
      "qtable", "Choose the layers to keep in float for a target output similarity (TPU-MLIR's run_qtable)");
  cmd->add_option("model", args->model, "Float model (.mlir or .spv)")->required();
  cmd->add_option("--dataset", args->dataset, "Directory of evaluation samples (as tosakit calibrate)")->required();
  cmd->add_option("--calibration-table", args->calibrationTable, "Calibration table from tosakit calibrate")
      ->required();
  cmd->add_option("--expected-cos", args->expectedCos, "Output cosine similarity to reach")->capture_default_str();
  cmd->add_option("--outputs", args->outputs,
                  "Outputs whose cosine must reach --expected-cos, comma-separated (default: every float output)")
      ->delimiter(',');
  cmd->add_flag("--worst-sample", args->worstSample,
                "Each output's cosine on its worst sample, not its mean over the samples");
  cmd->add_option("--max-float-layers", args->maxFloatLayers, "At most this many float layers (-1: no limit)")
      ->capture_default_str();
  cmd->add_option("--fp-type", args->fpType,
                  "Precision of the layers kept out of the base mode: F32, F16, BF16 or INT16")
      ->capture_default_str()
      ->check(CLI::IsMember({"F32", "F16", "BF16", "INT16", "f32", "f16", "bf16", "int16"}));
  cmd->add_option("--quantize", args->mode, "Precision of the other layers: INT8 or INT16")
      ->capture_default_str()
      ->check(CLI::IsMember({"INT8", "INT16", "int8", "int16"}));
  cmd->add_flag("--asymmetric", args->asymmetric, "Asymmetric INT8 activations (as tosakit quantize)");
  cmd->add_flag("--per-tensor", args->perTensor, "Per-tensor weight scales (as tosakit quantize)");
  cmd->add_option("--input-num", args->inputNum, "Samples evaluated (0 = all)")->capture_default_str();
  cmd->add_option("--sensitivity-num", args->sensitivityNum,
                  "Samples the sensitivity is measured on, those that lose most all-quantized (0 = all)")
      ->capture_default_str();
  cmd->add_option("--search", args->search,
                  "block: prefixes of the loss table first, greedy only when none reaches the target; greedy: "
                  "greedy forward selection alone")
      ->capture_default_str()
      ->check(CLI::IsMember({"block", "greedy"}));
  cmd->add_option("--loss-table", args->lossTable, "Also write each layer's sensitivity (cosine and loss)");
  cmd->add_option("-o,--output", args->output, "Quantize table to write (TPU-MLIR's qtable format)")->required();
  args->backend.add(cmd, "fast");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return qtableVerb(*args);
  };
}

}  // namespace tosakit::cli
