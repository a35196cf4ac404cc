// tosakit import MODEL.onnx -o OUT.mlir [--input-shape NAME=1x3x224x224 ...] [--bind-inputs VALUES.npz]
//                [--bind NAME=FILE.npy ...] [--output-names a,b] [--keep-nchw-io | --nhwc-io] [--no-check]
//                [--no-opset-convert]
#include <iostream>

#include "formats/npy/npy.h"
#include "frontends/onnx/onnx_import.h"
#include "tosakit/model_io.h"
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
};

// "NAME=1x3x224x224" (also "NAME=1,3,224,224").
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

int importVerb(const ImportArgs& a) {
  onnx::OnnxImportOptions opts;
  opts.keepNchwIo = !a.nhwcIo;
  opts.runChecker = !a.noCheck;
  opts.convertOpset = !a.noConvert;
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
    if (eq == std::string::npos || eq == 0) return report(Status::invalid("--bind '" + spec + "': expected NAME=FILE.npy"));
    auto t = npy::readNpy(spec.substr(eq + 1));
    if (!t) return report(t.status());
    opts.bindInputs[spec.substr(0, eq)] = std::move(*t);
  }
  auto module = onnx::importOnnx(a.model, opts);
  if (!module) return report(module.status());
  if (Status s = saveModel(**module, a.output); !s) return report(s);
  return kExitOk;
}

}  // namespace

VerbAction addImportVerb(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand("import", "Import an ONNX model as a TOSA graph (float32)");
  cmd->add_option("model", args->model, "ONNX model file (.onnx)")->required();
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
  return [cmd, args]() -> int {
    if (!cmd->parsed()) return -1;
    return importVerb(*args);
  };
}

}  // namespace tosakit::cli
