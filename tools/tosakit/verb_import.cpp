// tosakit import MODEL.onnx|MODEL.tflite -o OUT.mlir [--input-shape NAME=1x3x224x224 ...] [--bind-inputs VALUES.npz]
//                [--bind NAME=FILE.npy ...] [--output-names a,b] [--keep-nchw-io | --nhwc-io] [--no-check]
//                [--no-opset-convert] [--test-input in.npz --test-reference ref.npz [--tolerance 0.99,0.99]]
#include <iostream>

#include "backend_flags.h"
#include "preprocess_flags.h"
#include "tosakit/compare.h"
#include "tosakit/import_model.h"
#include "tosakit/inspect.h"
#include "tosakit/npz.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

// The flags that are not ImportModelOptions fields as they stand (the importing itself is the library's,
// include/tosakit/import_model.h).
struct ImportArgs {
  std::string model;
  std::string output;
  std::vector<std::string> inputShapes;
  std::vector<std::string> binds;
  std::string bindInputsNpz;
  bool nhwcIo = false;
  bool keepNchwIo = false;
  bool noCheck = false;
  bool noConvert = false;
  std::string qdq = "fold";
  std::string tolerance = "0.99,0.99";
  ImportModelOptions options;
  BackendFlags backend;  // runs --test-input
};

}  // namespace

Status parseShapeSpec(const std::string& spec, std::string& name, Shape& shape) {
  size_t eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return Status::invalid("--input-shape '" + spec + "': expected NAME=D0xD1x...");
  name = spec.substr(0, eq);
  std::string dims = spec.substr(eq + 1);
  shape.clear();
  size_t pos = 0;
  while (pos <= dims.size()) {
    size_t end = dims.find_first_of("x,", pos);
    if (end == std::string::npos) end = dims.size();
    std::string d = dims.substr(pos, end - pos);
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos)
      return Status::invalid("--input-shape '" + spec + "': '" + d + "' is not a dimension");
    shape.push_back(std::stoll(d));
    pos = end + 1;
  }
  return Status::ok();
}

namespace {

// --input-shape, --bind-inputs and --bind into the ONNX options.
Status readOnnxFlags(const ImportArgs& a, onnx::OnnxImportOptions& opts) {
  opts.keepNchwIo = !a.nhwcIo;
  opts.runChecker = !a.noCheck;
  opts.convertOpset = !a.noConvert;
  TK_RETURN_IF_ERROR(onnx::setQdqMode(opts, a.qdq));
  for (const auto& spec : a.inputShapes) {
    std::string name;
    Shape shape;
    TK_RETURN_IF_ERROR(parseShapeSpec(spec, name, shape));
    opts.inputShapes[name] = shape;
  }
  if (!a.bindInputsNpz.empty()) {
    auto values = npy::readNpz(a.bindInputsNpz);
    if (!values) return values.status();
    for (auto& [name, t] : *values) opts.bindInputs[name] = std::move(t);
  }
  for (const auto& spec : a.binds) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) return Status::invalid("--bind '" + spec + "': expected NAME=FILE.npy");
    auto t = npy::readNpy(spec.substr(eq + 1));
    if (!t) return t.status();
    opts.bindInputs[spec.substr(0, eq)] = std::move(*t);
  }
  return Status::ok();
}

int importVerb(ImportArgs& a) {
  ImportModelOptions& o = a.options;
  if (Status s = parseTolerance(a.tolerance, o.minCosine, o.minEuclidean).withParameter("tolerance"); !s)
    return report(s);
  if (Status s = readOnnxFlags(a, o.onnx); !s) return report(s);
  a.backend.apply(o.session);
  auto imported = importModel(a.model, o);
  if (!imported) return report(imported.status());
  for (const ImportTestRow& r : imported->testRows)
    std::cout << r.output << ": cosine " << r.cosine << ", euclidean " << r.euclidean
              << (r.pass ? "" : "  BELOW TOLERANCE") << "\n";
  if (!imported->testVerdict) return report(imported->testVerdict);
  return report(saveModelWithQuantParams(*imported->module, a.output));
}

}  // namespace

VerbAction addImportVerb(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Import an ONNX or TFLite model as a TOSA graph");
  cmd->add_option("model", args->model, "ONNX model file (.onnx) or TensorFlow Lite model (.tflite)")->required();
  cmd->add_option("-o,--output", args->output, "Output model (.mlir or .spv)")->required();
  cmd->add_option("--input-shape", args->inputShapes, "Static shape of an input: NAME=1x3x224x224 (repeatable)");
  cmd->add_option("--bind-inputs", args->bindInputsNpz,
                  "Fold the graph inputs present in VALUES.npz to constants (shape-influencing inputs: Reshape "
                  "shapes, Resize scales/sizes, Slice starts/ends/axes, ...); the others stay inputs");
  cmd->add_option("--bind", args->binds, "Fold one input to a constant: NAME=FILE.npy (repeatable)");
  cmd->add_option("--output-names,--output-name", args->options.onnx.outputNames,
                  "Graph values to return, comma-separated (default: the graph outputs)")
      ->delimiter(',');
  auto* nchw = cmd->add_flag("--keep-nchw-io", args->keepNchwIo,
                             "Rank-4 inputs/outputs keep ONNX's NCHW layout, with the transposes to TOSA's NHWC "
                             "at the graph boundary (the default)");
  cmd->add_flag("--nhwc-io", args->nhwcIo, "Rank-4 inputs/outputs in NHWC instead (no boundary transposes)")
      ->excludes(nchw);
  cmd->add_flag("--no-check", args->noCheck, "Skip the ONNX checker and shape inference");
  cmd->add_flag("--no-opset-convert", args->noConvert, "Do not convert opsets older than 17");
  cmd->add_option("--qdq", args->qdq,
                  "ONNX QuantizeLinear/DequantizeLinear patterns: fold (integer TOSA ops, default), fold-ort (fold, "
                  "requantizing in float32 like ONNX Runtime: bit-identical to it, not PRO-INT) or keep (float ops)")
      ->check(CLI::IsMember({"fold", "fold-ort", "keep"}));
  cmd->add_flag("--qdq-integer-io", args->options.onnx.qdqIntegerIo,
                "QDQ model: inputs read only by QuantizeLinear take the quantized type, DequantizeLinear outputs "
                "return the integers (scale/zero point recorded, like quantize --quant-input/--quant-output)");
  cmd->add_option("--test-input", args->options.testInput,
                  "Verify the import: run the TOSA graph on these inputs (.npz keyed by input name)");
  cmd->add_option("--test-reference", args->options.testReference,
                  "Expected outputs (.npz keyed by output name, e.g. from ONNX Runtime) for --test-input");
  cmd->add_option("--tolerance", args->tolerance,
                  "Minimum cosine,euclidean similarity (TPU-MLIR's definitions); below it the import fails "
                  "and writes nothing")
      ->capture_default_str();
  cmd->add_option("--level", args->options.level,
                  "Validate the imported graph at this TOSA level before writing it: 8k, or none to skip")
      ->capture_default_str();
  addPreprocessFlags(cmd, args->options.preprocess);
  args->backend.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return importVerb(*args);
  };
}

}  // namespace tosakit::cli
