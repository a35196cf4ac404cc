// tosakit export-qdq MODEL.onnx --calibration-table CALI.txt -o MODEL_qdq.onnx [--input-shape N=1x3x..] [--per-tensor]: the float ONNX model
// as an ONNX QDQ model quantized by tosakit's calibration (docs/ONNX.md "Exporting QDQ models").
#include "tosakit/qdq_export.h"
#include "verbs.h"

namespace tosakit::cli {

VerbAction addExportQdqVerb(CLI::App& app) {
  struct Args {
    std::string model, table, output;
    std::vector<std::string> inputShapes;
    onnx::QdqExportOptions options;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "export-qdq",
      "Write a float ONNX model as an ONNX QDQ model (QuantizeLinear/DequantizeLinear pairs, int8 weights) quantized "
      "by a tosakit calibration table, for ONNX Runtime, TensorRT or `import --qdq fold`");
  cmd->add_option("model", args->model, "The float ONNX model that was imported and calibrated")->required();
  cmd->add_option("--calibration-table", args->table,
                  "Calibration table of the model `tosakit import` makes of it (tosakit calibrate -o)")
      ->required();
  cmd->add_option("-o,--output", args->output, "QDQ ONNX model to write")->required();
  cmd->add_option("--input-shape", args->inputShapes,
                  "Static shape of an input, NAME=1x3x224x224 (as given to the import that was calibrated)");
  cmd->add_flag("--per-tensor", args->options.perTensor, "One weight scale per tensor instead of per output channel");
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    for (const auto& spec : args->inputShapes) {
      std::string name;
      Shape shape;
      if (Status s = parseShapeSpec(spec, name, shape); !s) return report(s);
      args->options.import.inputShapes[name] = shape;
    }
    auto table = readCalibrationTable(args->table);
    if (!table) return report(table.status());
    args->options.calibrationTableSource = args->table;
    return report(onnx::exportQdq(args->model, *table, args->output, args->options));
  };
}

}  // namespace tosakit::cli
