// tosakit import MODEL.onnx|MODEL.tflite -o OUT.mlir [--input-shape NAME=1x3x224x224 ...] [--bind-inputs VALUES.npz]
//                [--bind NAME=FILE.npy ...] [--output-names a,b] [--keep-nchw-io | --nhwc-io] [--no-check]
//                [--no-opset-convert] [--test-input in.npz --test-reference ref.npz [--tolerance 0.99,0.99]]
#include <iostream>

#include "compliance/similarity.h"

#include "backend_flags.h"
#include "frontends/tflite/tflite_import.h"
#include "preprocess_flags.h"
#include "tosakit/compare.h"
#include "tosakit/import.h"
#include "tosakit/inputs.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
#include "tosakit/session.h"
#include "verbs.h"

namespace tosakit::cli {

namespace {

struct ImportArgs {
  std::string model;
  std::string output;
  std::vector<std::string> inputShapes;
  std::vector<std::string> binds;
  std::string bindInputsNpz;
  std::vector<std::string> outputs;
  bool nhwcIo = false;
  bool keepNchwIo = false;
  bool noCheck = false;
  bool noConvert = false;
  std::string qdq = "fold";
  bool qdqIntegerIo = false;
  std::string testInput;
  std::string testReference;
  std::string tolerance = "0.99,0.99";
  std::string level = "8k";
  PreprocessFlags preprocess;
  BackendFlags backend;  // runs --test-input
};

// --level: the library's check (validateImportedModule, run here rather than inside the import so that this
// door can name its flag), before anything is written.
Status checkLevel(const ir::Module& m, const ImportArgs& a) {
  if (a.level == "none") return Status::ok();
  if (a.level != "8k" && a.level != "8K") return Status::invalid("--level '" + a.level + "': expected 8k or none");
  Status s = validateImportedModule(m, a.model);
  if (s) return s;
  return Status::error(s.code(), s.message() + "; --level none skips this check");
}

// model_transform-style verification: run the imported graph on --test-input and compare each output with
// --test-reference by cosine and euclidean similarity. Error when any is below the tolerance.
Status verifyImport(const ImportArgs& a, std::unique_ptr<ir::Module> module) {
  double minCosine = 0, minEuclidean = 0;
  TK_RETURN_IF_ERROR(parseTolerance(a.tolerance, minCosine, minEuclidean).withContext("--tolerance"));
  auto reference = npy::readNpz(a.testReference);
  if (!reference) return reference.status();
  // The test inputs are in ONNX Runtime's types (int64, uint8, shape-only inputs): prepared as `run` does.
  const ir::Function* fn = module->function("main");
  if (!fn) return Status::internal("the imported module has no @main");
  auto adapted = prepareInputs(*fn, InputSources::fromNpz(a.testInput));
  if (!adapted) return adapted.status();
  SessionOptions so;
  a.backend.apply(so);
  auto session = Session::create(std::move(module), so);
  if (!session) return session.status();
  RunResult result;
  TK_RETURN_IF_ERROR((*session)->run(adapted->tensors, result).withContext(a.testInput));
  bool ok = true;
  for (const auto& [name, out] : result.outputs) {
    const Tensor* ref = nullptr;
    for (const auto& [n, t] : *reference)
      if (n == name) ref = &t;
    if (!ref) return Status::invalid(a.testReference + ": no reference for output '" + name + "'");
    if (ref->shape() != out.shape())
      return Status::invalid(a.testReference + ": output '" + name + "' has shape [" + shapeToString(out.shape()) +
                             "], reference [" + shapeToString(ref->shape()) + "]");
    double c = compliance::cosineSimilarity(out, *ref), e = compliance::euclideanSimilarity(out, *ref);
    bool pass = c >= minCosine && e >= minEuclidean;
    ok = ok && pass;
    std::cout << name << ": cosine " << c << ", euclidean " << e << (pass ? "" : "  BELOW TOLERANCE") << "\n";
  }
  if (!ok)
    return Status::error(
        StatusCode::SpecError,
        a.model + ": imported graph differs from " + a.testReference + " beyond tolerance " + a.tolerance);
  return Status::ok();
}

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

// A .tflite model (by extension or FlatBuffers identifier) takes none of the ONNX-only options.
Result<std::unique_ptr<ir::Module>> importTfliteModel(const ImportArgs& a) {
  if (!a.inputShapes.empty() || !a.binds.empty() || !a.bindInputsNpz.empty() || !a.outputs.empty() || a.nhwcIo ||
      a.keepNchwIo)
    return Status::invalid(a.model +
                           ": --input-shape, --bind, --bind-inputs, --output-names, --keep-nchw-io and "
                           "--nhwc-io apply to ONNX models only (a TFLite model is NHWC with static shapes)");
  tflite::TfliteImportOptions opts;
  opts.validateLevel = false;  // checkLevel
  return tflite::importTflite(a.model, opts);
}

int importVerb(const ImportArgs& a) {
  double minCosine = 0, minEuclidean = 0;  // checked before the (slow) import
  if (Status s = parseTolerance(a.tolerance, minCosine, minEuclidean).withContext("--tolerance"); !s) return report(s);
  if (tflite::isTfliteFile(a.model)) {
    auto module = importTfliteModel(a);
    if (!module) return report(module.status());
    if (Status s = checkLevel(**module, a); !s) return report(s);
    if (Status s = a.preprocess.apply(**module).withContext(a.model); !s) return report(s);
    if (!a.testInput.empty() || !a.testReference.empty()) {
      if (a.testInput.empty() || a.testReference.empty())
        return report(Status::invalid("--test-input and --test-reference go together"));
      auto checked = importTfliteModel(a);
      if (!checked) return report(checked.status());
      if (Status s = verifyImport(a, std::move(*checked)); !s) return report(s);
    }
    if (Status s = saveModelWithQuantParams(**module, a.output); !s) return report(s);
    return kExitOk;
  }
  onnx::OnnxImportOptions opts;
  opts.keepNchwIo = !a.nhwcIo;
  opts.runChecker = !a.noCheck;
  opts.convertOpset = !a.noConvert;
  if (Status s = onnx::setQdqMode(opts, a.qdq); !s) return report(s);
  opts.qdqIntegerIo = a.qdqIntegerIo;
  opts.validateLevel = false;  // checkLevel
  opts.outputNames = a.outputs;
  for (const auto& spec : a.inputShapes) {
    std::string name;
    Shape shape;
    if (Status s = parseShapeSpec(spec, name, shape); !s) return report(s);
    opts.inputShapes[name] = shape;
  }
  if (!a.bindInputsNpz.empty()) {
    auto values = npy::readNpz(a.bindInputsNpz);
    if (!values) return report(values.status());
    for (auto& [name, t] : *values) opts.bindInputs[name] = std::move(t);
  }
  for (const auto& spec : a.binds) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      return report(Status::invalid("--bind '" + spec + "': expected NAME=FILE.npy"));
    auto t = npy::readNpy(spec.substr(eq + 1));
    if (!t) return report(t.status());
    opts.bindInputs[spec.substr(0, eq)] = std::move(*t);
  }
  auto module = onnx::importOnnx(a.model, opts);
  if (!module) return report(module.status());
  if (Status s = checkLevel(**module, a); !s) return report(s);
  if (Status s = a.preprocess.apply(**module).withContext(a.model); !s) return report(s);
  if (!a.testInput.empty() || !a.testReference.empty()) {
    if (a.testInput.empty() || a.testReference.empty())
      return report(Status::invalid("--test-input and --test-reference go together"));
    // Verify a second import (the session takes ownership); nothing is written unless it passes.
    auto checked = onnx::importOnnx(a.model, opts);
    if (!checked) return report(checked.status());
    if (Status s = verifyImport(a, std::move(*checked)); !s) return report(s);
  }
  if (Status s = saveModelWithQuantParams(**module, a.output); !s) return report(s);
  return kExitOk;
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
  cmd->add_option("--output-names,--output-name", args->outputs,
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
  cmd->add_flag("--qdq-integer-io", args->qdqIntegerIo,
                "QDQ model: inputs read only by QuantizeLinear take the quantized type, DequantizeLinear outputs "
                "return the integers (scale/zero point recorded, like quantize --quant-input/--quant-output)");
  cmd->add_option("--test-input", args->testInput,
                  "Verify the import: run the TOSA graph on these inputs (.npz keyed by input name)");
  cmd->add_option("--test-reference", args->testReference,
                  "Expected outputs (.npz keyed by output name, e.g. from ONNX Runtime) for --test-input");
  cmd->add_option("--tolerance", args->tolerance,
                  "Minimum cosine,euclidean similarity (TPU-MLIR's definitions); below it the import fails "
                  "and writes nothing")
      ->capture_default_str();
  cmd->add_option("--level", args->level,
                  "Validate the imported graph at this TOSA level before writing it: 8k, or none to skip")
      ->capture_default_str();
  args->preprocess.add(cmd);
  args->backend.add(cmd);
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return importVerb(*args);
  };
}

}  // namespace tosakit::cli
