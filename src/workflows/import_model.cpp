// importModel (include/tosakit/import_model.h): either front end, the level check, the image recipe and the
// verification run, the same for every door.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "compliance/similarity.h"
#include "frontends/tflite/tflite_import.h"
#include "ir/module_clone.h"
#include "tosakit/import_model.h"
#include "tosakit/inputs.h"
#include "tosakit/npz.h"

namespace tosakit {

namespace {

// The first ONNX-only option a TFLite import was given, or "" (a TFLite model is NHWC with static shapes).
std::string onnxOnlyOptionGiven(const onnx::OnnxImportOptions& o) {
  if (!o.inputShapes.empty()) return "input_shapes";
  if (!o.bindInputs.empty()) return "bind_inputs";
  if (!o.outputNames.empty()) return "output_names";
  if (!o.keepNchwIo) return "nhwc_io";
  if (!o.foldQdq || o.requantizeLikeOrt) return "qdq";
  if (o.qdqIntegerIo) return "qdq_integer_io";
  return "";
}

Result<std::unique_ptr<ir::Module>> importEither(const std::string& path, const ImportModelOptions& o) {
  if (!tflite::isTfliteFile(path)) {
    onnx::OnnxImportOptions opts = o.onnx;
    opts.validateLevel = false;  // checkLevel, which names the option
    return onnx::importOnnx(path, opts);
  }
  if (std::string given = onnxOnlyOptionGiven(o.onnx); !given.empty())
    return Status::invalid(path + ": applies to ONNX models only (a TFLite model is NHWC with static shapes)")
        .withParameter(given);
  tflite::TfliteImportOptions opts;
  opts.validateLevel = false;
  opts.functionName = o.onnx.functionName;
  return tflite::importTflite(path, opts);
}

Result<bool> levelWanted(const std::string& level) {
  std::string lv = level;
  std::transform(lv.begin(), lv.end(), lv.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (lv == "8k") return true;
  if (lv == "none") return false;
  return Status::invalid("'" + level + "': expected 8k or none").withParameter("level");
}

Status checkLevel(const ir::Module& m, const std::string& path, bool wanted) {
  if (!wanted) return Status::ok();
  Status s = validateImportedModule(m, path);
  if (s) return s;
  return Status::error(s.code(), s.message() + "; level none skips this check").withParameter("level");
}

// model_transform's verification: run a copy of the imported graph on the test input and compare each output
// with the reference by cosine and euclidean similarity.
Status verifyImport(const std::string& path, const ImportModelOptions& o, ImportedModel& imported) {
  auto reference = npy::readNpz(o.testReference);
  if (!reference) return reference.status().withParameter("test_reference");
  const ir::Function* fn = imported.module->function(o.onnx.functionName);
  if (!fn) return Status::internal("the imported module has no @" + o.onnx.functionName);
  auto inputs = prepareInputs(*fn, InputSources::fromNpz(o.testInput));
  if (!inputs) return inputs.status().withParameter("test_input");
  auto session = Session::create(ir::cloneModule(*imported.module), o.session);
  if (!session) return session.status();
  RunOptions ro;
  ro.function = o.onnx.functionName;
  RunResult result;
  TK_RETURN_IF_ERROR((*session)->run(inputs->tensors, result, ro).withContext(o.testInput));
  bool ok = true;
  for (const auto& [name, out] : result.outputs) {
    const Tensor* ref = npy::findTensor(*reference, name);
    if (!ref)
      return Status::invalid(o.testReference + ": no reference for output '" + name + "'")
          .withParameter("test_reference");
    if (ref->shape() != out.shape())
      return Status::invalid(o.testReference + ": output '" + name + "' has shape [" + shapeToString(out.shape()) +
                             "], reference [" + shapeToString(ref->shape()) + "]")
          .withParameter("test_reference");
    ImportTestRow row{name, compliance::cosineSimilarity(out, *ref), compliance::euclideanSimilarity(out, *ref)};
    row.pass = row.cosine >= o.minCosine && row.euclidean >= o.minEuclidean;
    ok = ok && row.pass;
    imported.testRows.push_back(row);
  }
  if (ok) return Status::ok();
  std::ostringstream msg;
  msg << path << ": imported graph differs from " << o.testReference << " beyond tolerance " << o.minCosine << ","
      << o.minEuclidean;
  imported.testVerdict = Status::error(StatusCode::SpecError, msg.str());
  return Status::ok();
}

}  // namespace

Result<ImportedModel> importModel(const std::string& path, const ImportModelOptions& options) {
  auto level = levelWanted(options.level);
  if (!level) return level.status();
  if (options.testInput.empty() != options.testReference.empty())
    return Status::invalid("test_input and test_reference go together")
        .withParameter(options.testInput.empty() ? "test_input" : "test_reference");
  auto module = importEither(path, options);
  if (!module) return module.status();
  TK_RETURN_IF_ERROR(checkLevel(**module, path, *level));
  TK_RETURN_IF_ERROR(recordPreprocessRecipes(**module, options.preprocess).withContext(path));
  ImportedModel imported;
  imported.module = std::move(*module);
  if (!options.testInput.empty()) TK_RETURN_IF_ERROR(verifyImport(path, options, imported));
  return imported;
}

}  // namespace tosakit
