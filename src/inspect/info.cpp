// tosakit info: what a model contains (docs/INSPECT.md defines every figure).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "frontends/onnx/onnx_import.h"
#include "inspect/inspect_internal.h"
#include "ir/module_clone.h"
#include "ir/op_tables.h"
#include "ir/validate.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"
#include "tosakit/quantize.h"
#include "tosakit/session.h"

namespace tosakit {

Result<std::unique_ptr<ir::Module>> loadInspectableModel(const std::string& path, std::vector<std::string>* notes) {
  const std::string ext = path.size() >= 5 ? path.substr(path.size() - 5) : "";
  if (ext == ".onnx") return onnx::importOnnx(path);
  return loadModelWithQuantParams(path, notes);
}

namespace inspect {

void forEachOp(const ir::Block& block, const std::function<void(const ir::Operation&)>& visit) {
  for (const auto& op : block.ops) {
    visit(*op);
    for (const auto& region : op->regions)
      for (const auto& b : region->blocks) forEachOp(*b, visit);
  }
}

bool isTerminator(const ir::Operation& op) { return op.name == "func.return" || op.name == "tosa.yield"; }
bool isConstant(const ir::Operation& op) { return op.name == "tosa.const" || op.name == "tosa.const_shape"; }

std::string operandArgName(const ir::Operation& op, size_t operandIndex) {
  const ir::spec::OpSpec* sp = ir::spec::findOp(op.name);
  if (!sp) return {};
  size_t i = 0;
  for (const auto& arg : sp->operands) {
    if (arg.variadic) return arg.specArg;
    if (i++ == operandIndex) return arg.specArg;
  }
  return {};
}

}  // namespace inspect

namespace {

using inspect::forEachOp;

TensorInfo tensorInfo(const ir::Function& fn, const std::string& name, const ir::ValueType& type,
                      const std::function<const ir::Attribute*(const std::string&)>& attr) {
  TensorInfo t;
  t.name = name;
  t.type = type.toString();
  if (const ir::Attribute* a = attr("tosakit.onnx_type")) t.onnxType = a->s;
  if (const ir::Attribute* a = attr("tosakit.preprocess")) t.preprocess = a->s;
  const ir::Attribute* scale = attr("tosakit.qscale");
  const ir::Attribute* zp = attr("tosakit.qzp");
  if (scale) {
    t.quantized = true;
    t.scale = scale->f;
    t.zeroPoint = zp ? zp->i : 0;
  }
  return t;
}

void describeInterface(const ir::Function& fn, ModelInfo& info) {
  for (size_t i = 0; i < fn.inputs().size(); ++i)
    info.inputs.push_back(
        tensorInfo(fn, fn.inputName(i), fn.inputs()[i]->type, [&](const std::string& k) { return fn.argAttr(i, k); }));
  for (size_t i = 0; i < fn.resultTypes.size(); ++i)
    info.outputs.push_back(
        tensorInfo(fn, fn.outputName(i), fn.resultTypes[i], [&](const std::string& k) { return fn.resultAttr(i, k); }));
}

int64_t errorCount(const std::vector<ir::Diagnostic>& diags) { return int64_t(diags.size()); }

// Smallest target: profiles first (each alone, then both), then every extension the chosen profiles still need,
// dropped one at a time when validation reports no more than it does with everything.
void neededTarget(const ir::Module& m, ModelInfo& info) {
  ir::TargetEnv all = ir::TargetEnv::all();
  if (m.target) all.level = m.target->level;
  const int64_t baseline = errorCount(ir::validateModule(m, all, {true}));
  info.violationsUnderAll = baseline;
  ir::TargetEnv t = all;
  for (const auto& profiles : std::vector<std::vector<std::string>>{{}, {"pro_int"}, {"pro_fp"}}) {
    t.profiles = profiles;
    if (errorCount(ir::validateModule(m, t, {true})) <= baseline) break;
    t.profiles = all.profiles;
  }
  for (const std::string& ext : all.extensions) {
    ir::TargetEnv without = t;
    without.extensions.erase(std::find(without.extensions.begin(), without.extensions.end(), ext));
    if (errorCount(ir::validateModule(m, without, {true})) <= baseline) t = without;
  }
  info.neededProfiles = t.profiles;
  info.neededExtensions = t.extensions;
}

int64_t elementsOf(const ir::Value* v) {
  int64_t n = 1;
  for (int64_t d : v->type.dims) n *= std::max<int64_t>(d, 0);
  return n;
}

// Multiply-accumulates of one op (0 for ops that are not convolutions or matmuls). Weights are OHWI (conv2d,
// transpose_conv2d), ODHWI (conv3d), HWCM (depthwise); every output element of a convolution takes one MAC
// per kernel tap and input channel; transpose_conv2d scatters every input element over OC x KH x KW.
int64_t macsOf(const ir::Operation& op) {
  if (op.operands.size() < 2 || op.results.empty()) return 0;
  const ir::Value* in = op.operands[0];
  const ir::Value* w = op.operands[1];
  const ir::Value* out = op.results[0];
  const Shape& wd = w->type.dims;
  if (op.name == "tosa.conv2d" && wd.size() == 4) return elementsOf(out) * wd[1] * wd[2] * wd[3];
  if (op.name == "tosa.conv3d" && wd.size() == 5) return elementsOf(out) * wd[1] * wd[2] * wd[3] * wd[4];
  if (op.name == "tosa.depthwise_conv2d" && wd.size() == 4) return elementsOf(out) * wd[0] * wd[1];
  if (op.name == "tosa.transpose_conv2d" && wd.size() == 4) return elementsOf(in) * wd[0] * wd[1] * wd[2];
  if (op.name == "tosa.matmul" && in->type.dims.size() == 3) return elementsOf(out) * in->type.dims[2];
  return 0;
}

bool isQuantConstantUse(const ir::Operation& consumer, size_t operandIndex) {
  const std::string arg = inspect::operandArgName(consumer, operandIndex);
  return arg == "pad_const" || arg == "shift" || arg == "multiplier" ||
      (arg.size() > 3 && arg.compare(arg.size() - 3, 3, "_zp") == 0);
}

// Constants used only as zero points / pad constants / rescale parameters are not parameters.
void countParameters(const ir::Function& fn, ModelInfo& info) {
  std::map<const ir::Value*, bool> onlyQuantUses;
  forEachOp(fn.body, [&](const ir::Operation& op) {
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const ir::Value* v = op.operands[i];
      if (!v->definingOp || v->definingOp->name != "tosa.const") continue;
      auto [it, fresh] = onlyQuantUses.emplace(v, true);
      it->second = it->second && isQuantConstantUse(op, i);
    }
  });
  forEachOp(fn.body, [&](const ir::Operation& op) {
    if (op.name != "tosa.const" || op.results.empty()) return;
    const ir::Value* v = op.results[0];
    const int64_t n = elementsOf(v);
    const int64_t bytes = (n * bitWidth(v->type.dtype) + 7) / 8;
    auto it = onlyQuantUses.find(v);
    ParameterGroup& g = it != onlyQuantUses.end() && it->second
        ? info.quantConstants
        : info.parameters[std::string(dtypeName(v->type.dtype))];
    g.count += n;
    g.bytes += bytes;
  });
  for (const auto& [dtype, g] : info.parameters) {
    info.parameterCount += g.count;
    info.parameterBytes += g.bytes;
  }
}

std::string precisionName(DType t) {
  std::string s(dtypeName(t));
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return s;
}

// The narrowest element type among an op's tensor operands and results; floats rank after integers of the
// same width so an int8 conv with an fp32 dequantize is not counted as float.
std::string layerPrecision(const ir::Operation& op) {
  bool found = false;
  DType best = DType::FP32;
  auto consider = [&](const ir::Value* v) {
    if (v->type.isShape() || v->type.dtype == DType::Bool) return;
    const DType t = v->type.dtype;
    const bool better =
        !found || bitWidth(t) < bitWidth(best) || (bitWidth(t) == bitWidth(best) && isInteger(t) && !isInteger(best));
    if (better) best = t;
    found = true;
  };
  for (const ir::Value* v : op.operands) consider(v);
  for (const ir::Value* v : op.results) consider(v);
  return found ? precisionName(best) : "OTHER";
}

void countOps(const ir::Function& fn, ModelInfo& info) {
  forEachOp(fn.body, [&](const ir::Operation& op) {
    if (inspect::isTerminator(op)) return;
    ++info.opCounts[op.name];
    ++info.opTotal;
    if (const int64_t m = macsOf(op)) {
      info.macs.push_back({op.name, intermediateName(op, 0), m});
      info.totalMacs += m;
    }
    if (inspect::isConstant(op)) return;
    ++info.layersByPrecision[layerPrecision(op)];
    ++info.layerTotal;
  });
}

// Compiles (does not run) the function on the fast backend for the plan's memory figures.
void planMemory(const ir::Module& m, const std::string& function, ModelInfo& info) {
  SessionOptions opts;
  opts.backend = "fast";
  opts.threads = 1;
  auto session = Session::create(ir::cloneModule(m), opts);
  if (!session) {
    info.planError = session.status().toString();
    return;
  }
  if (Status s = (*session)->prepare(function); !s) {
    info.planError = s.toString();
    return;
  }
  const PlanStats st = (*session)->planStats(function);
  if (!st.compiled) {
    info.planError = "the fast backend did not compile a plan";
    return;
  }
  info.planAvailable = true;
  info.arenaBytes = st.arenaBytes;
  info.planWeightBytes = st.constantBytes;
  info.planPeakBytes = st.arenaBytes + st.constantBytes;
}

}  // namespace

Result<ModelInfo> inspectModel(const ir::Module& module, const InfoOptions& options) {
  const ir::Function* fn = module.function(options.function);
  if (!fn) return Status::invalid("the model has no function '" + options.function + "'");
  ModelInfo info;
  info.function = options.function;
  describeInterface(*fn, info);
  if (module.target) {
    info.hasTarget = true;
    info.target = *module.target;
  }
  neededTarget(module, info);
  countOps(*fn, info);
  countParameters(*fn, info);
  if (options.plan) planMemory(module, options.function, info);
  return info;
}

namespace {

nlohmann::json tensorJson(const TensorInfo& t) {
  nlohmann::json j = {{"name", t.name}, {"type", t.type}};
  if (!t.onnxType.empty()) j["onnx_type"] = t.onnxType;
  if (!t.preprocess.empty()) {
    auto parsed = nlohmann::json::parse(t.preprocess, nullptr, false);
    j["preprocess"] = parsed.is_discarded() ? nlohmann::json(t.preprocess) : parsed;
  }
  if (t.quantized) {
    j["scale"] = t.scale;
    j["zero_point"] = t.zeroPoint;
  }
  return j;
}

nlohmann::json targetJson(const ir::TargetEnv& t) {
  return {{"profiles", t.profiles}, {"extensions", t.extensions}, {"level", t.level}};
}

std::string human(double v, const char* unit) {
  char buf[64];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f G%s", v / 1e9, unit);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M%s", v / 1e6, unit);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.2f K%s", v / 1e3, unit);
  else
    std::snprintf(buf, sizeof buf, "%.0f%s%s", v, *unit ? " " : "", unit);
  return buf;
}

std::string mib(int64_t bytes) {
  char buf[64];
  if (bytes < 1024)
    std::snprintf(buf, sizeof buf, "%lld B", (long long)bytes);
  else if (bytes < 1048576)
    std::snprintf(buf, sizeof buf, "%.2f KiB", bytes / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / 1048576.0);
  return buf;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s.empty() ? "(none)" : s;
}

void textTensors(std::ostringstream& o, const char* title, const std::vector<TensorInfo>& ts) {
  o << title << ":\n";
  for (const auto& t : ts) {
    o << "  " << t.name << "  " << t.type;
    if (!t.onnxType.empty()) o << "  onnx " << t.onnxType;
    if (t.quantized) o << "  scale " << t.scale << " zero point " << t.zeroPoint;
    if (!t.preprocess.empty()) o << "  preprocess " << t.preprocess;
    o << "\n";
  }
}

}  // namespace

std::string modelInfoJson(const ModelInfo& info) {
  nlohmann::json j;
  j["function"] = info.function;
  j["inputs"] = nlohmann::json::array();
  for (const auto& t : info.inputs) j["inputs"].push_back(tensorJson(t));
  j["outputs"] = nlohmann::json::array();
  for (const auto& t : info.outputs) j["outputs"].push_back(tensorJson(t));
  j["target"] = info.hasTarget ? targetJson(info.target) : nlohmann::json(nullptr);
  j["needed"] = {{"profiles", info.neededProfiles},
                 {"extensions", info.neededExtensions},
                 {"violations_with_everything", info.violationsUnderAll}};
  j["ops"] = {{"total", info.opTotal}, {"by_type", info.opCounts}};
  nlohmann::json byDtype = nlohmann::json::object();
  for (const auto& [dt, g] : info.parameters) byDtype[dt] = {{"count", g.count}, {"bytes", g.bytes}};
  j["parameters"] = {
      {"count", info.parameterCount},
      {"bytes", info.parameterBytes},
      {"by_dtype", byDtype},
      {"quantization_constants", {{"count", info.quantConstants.count}, {"bytes", info.quantConstants.bytes}}}};
  nlohmann::json perOp = nlohmann::json::array();
  for (const auto& m : info.macs) perOp.push_back({{"op", m.op}, {"location", m.location}, {"macs", m.macs}});
  j["macs"] = {{"total", info.totalMacs}, {"per_op", perOp}};
  if (info.planError.empty() && !info.planAvailable)
    j["fast_plan"] = nullptr;  // not requested
  else if (info.planAvailable)
    j["fast_plan"] = {
        {"arena_bytes", info.arenaBytes}, {"weight_bytes", info.planWeightBytes}, {"peak_bytes", info.planPeakBytes}};
  else
    j["fast_plan"] = {{"error", info.planError}};
  j["layers"] = {{"total", info.layerTotal}, {"by_precision", info.layersByPrecision}};
  return j.dump();
}

std::string modelInfoText(const ModelInfo& info) {
  std::ostringstream o;
  o << "function " << info.function << "\n";
  textTensors(o, "inputs", info.inputs);
  textTensors(o, "outputs", info.outputs);
  o << "target: "
    << (info.hasTarget ? "profiles " + joined(info.target.profiles) + ", extensions " + joined(info.target.extensions) +
                ", level " + info.target.level
                       : std::string("(none declared)"))
    << "\n";
  o << "needs: profiles " << joined(info.neededProfiles) << ", extensions " << joined(info.neededExtensions);
  if (info.violationsUnderAll) o << " (" << info.violationsUnderAll << " violation(s) even with everything)";
  o << "\n";
  o << "ops: " << info.opTotal << "\n";
  for (const auto& [name, n] : info.opCounts) o << "  " << name << "  " << n << "\n";
  o << "parameters: " << info.parameterCount << " (" << human(double(info.parameterCount), "") << "), "
    << mib(info.parameterBytes) << "\n";
  for (const auto& [dt, g] : info.parameters) o << "  " << dt << "  " << g.count << "  " << mib(g.bytes) << "\n";
  if (info.quantConstants.count)
    o << "  (zero points, pad constants, rescale multipliers/shifts: " << info.quantConstants.count << ")\n";
  o << "MACs: " << info.totalMacs << " (" << human(double(info.totalMacs), "MAC") << ") in " << info.macs.size()
    << " op(s)\n";
  if (info.planError.empty() && !info.planAvailable)
    o << "fast plan: not compiled (not asked for)\n";
  else if (info.planAvailable)
    o << "fast plan: activation arena " << mib(info.arenaBytes) << ", weights " << mib(info.planWeightBytes)
      << ", peak " << mib(info.planPeakBytes) << "\n";
  else
    o << "fast plan: not available: " << info.planError << "\n";
  o << "layers by precision (" << info.layerTotal << "):";
  for (const auto& [p, n] : info.layersByPrecision) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", info.layerTotal ? 100.0 * n / info.layerTotal : 0.0);
    o << " " << p << " " << n << " (" << pct << ")";
  }
  o << "\n";
  return o.str();
}

}  // namespace tosakit
