// The .spv quantization sidecar, written and read in this one place (include/tosakit/inspect.h): SPIR-V has
// no place for discardable op attributes, so a quantized model's scales and zero points go to
// OUT.spv.qparams.json next to it (include/tosakit/quantize.h, quantParamsToJson).
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/file_io.h"
#include "inspect/inspect_internal.h"
#include "ir/module_clone.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/quantize.h"
#include "tosakit/session.h"

namespace tosakit {

namespace {

bool isSpirvPath(const std::string& path) { return path.size() > 4 && path.compare(path.size() - 4, 4, ".spv") == 0; }

// A quantized .spv keeps its scales in the OUT.spv.qparams.json sidecar (SPIR-V has no place for them): put
// them back on the ops, arguments and results as the .mlir form records them, keyed by the same names.
Status attachSidecarQuantParams(ir::Module& m, const std::string& path) {
  const std::string sidecar = path + ".qparams.json";
  std::ifstream in(sidecar, std::ios::binary);
  if (!in || m.functions.empty()) return Status::ok();
  std::stringstream text;
  text << in.rdbuf();
  auto params = quantParamsFromJson(text.str(), sidecar);
  if (!params) return params.status();
  auto record = [](std::map<std::string, ir::Attribute>& attrs, const TensorQuantParams& p) {
    attrs["tosakit.qscale"] = ir::Attribute::floating(p.scale, DType::FP64);
    attrs["tosakit.qzp"] = ir::Attribute::integer(p.zeroPoint, DType::I64);
  };
  ir::Function& fn = *m.functions.front();
  fn.argAttrs.resize(fn.inputs().size());
  fn.resultAttrs.resize(fn.resultTypes.size());
  for (size_t i = 0; i < fn.inputs().size(); ++i)
    if (auto it = params->find(fn.inputName(i)); it != params->end()) record(fn.argAttrs[i], it->second);
  for (size_t i = 0; i < fn.resultTypes.size(); ++i)
    if (auto it = params->find(fn.outputName(i)); it != params->end()) record(fn.resultAttrs[i], it->second);
  std::map<std::string, int> used;
  for (auto& op : fn.body.ops) {
    if (inspect::isConstant(*op) || op->results.empty()) continue;
    std::string name = intermediateName(*op, 0);
    if (int n = ++used[name]; n > 1) name += "#" + std::to_string(n);
    if (auto it = params->find(name); it != params->end()) record(op->attrs, it->second);
  }
  return Status::ok();
}

// Every "tosakit.*" attribute of every op (SPIR-V's writer refuses attributes its instructions do not have).
void stripRecordAttributes(ir::Module& module) {
  for (auto& fn : module.functions)
    inspect::forEachOp(fn->body, [](const ir::Operation& op) {
      auto& attrs = const_cast<ir::Operation&>(op).attrs;
      for (auto it = attrs.begin(); it != attrs.end();)
        it = it->first.rfind("tosakit.", 0) == 0 ? attrs.erase(it) : std::next(it);
    });
}

}  // namespace

Result<std::unique_ptr<ir::Module>> loadModelWithQuantParams(const std::string& path, std::vector<std::string>* notes) {
  auto m = loadModel(path, notes);
  if (!m || !isSpirvPath(path)) return m;
  TK_RETURN_IF_ERROR(attachSidecarQuantParams(**m, path));
  return m;
}

Status saveModelWithQuantParams(const ir::Module& module, const std::string& path, const std::string& function) {
  const auto params =
      isSpirvPath(path) ? recordedQuantParams(module, function) : std::map<std::string, TensorQuantParams>{};
  if (params.empty()) return saveModel(module, path);
  auto stripped = ir::cloneModule(module);
  stripRecordAttributes(*stripped);
  TK_RETURN_IF_ERROR(saveModel(*stripped, path));
  if (Status s = writeFileAtomic(path + ".qparams.json", quantParamsToJson(params)); !s) {
    std::remove(path.c_str());
    return s;
  }
  return Status::ok();
}

}  // namespace tosakit
