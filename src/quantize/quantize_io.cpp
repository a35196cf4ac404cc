// The quantizer's text and JSON I/O (include/tosakit/quantize.h): quantization mode names, TPU-MLIR's quantize
// table (qtable) format, the scale / zero point records of a quantized module and their SPIR-V sidecar JSON.
// The graph rewrite itself is quantize.cpp.
#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "quantize/fake_quant.h"
#include "quantize/quant_attrs.h"
#include "tosakit/quantize.h"

namespace tosakit {

namespace {

using quantize::kScaleAttr;
using quantize::kZpAttr;

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string readText(const std::string& path, Status* status) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *status = Status::io(path + ": cannot open");
    return {};
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::string quantModeName(QuantMode m) {
  switch (m) {
    case QuantMode::INT8: return "INT8";
    case QuantMode::INT16: return "INT16";
    case QuantMode::BF16: return "BF16";
    case QuantMode::F16: return "F16";
    case QuantMode::F32: return "F32";
  }
  return "?";
}

Result<QuantMode> parseQuantMode(const std::string& name) {
  std::string u = upper(name);
  if (u == "INT8") return QuantMode::INT8;
  if (u == "INT16") return QuantMode::INT16;
  if (u == "BF16") return QuantMode::BF16;
  if (u == "F16" || u == "FP16") return QuantMode::F16;
  if (u == "F32" || u == "FP32") return QuantMode::F32;
  return Status::invalid("unknown quantization mode '" + name + "' (INT8, INT16, BF16, F16 or F32)");
}

Result<std::map<std::string, QuantMode>> parseQuantizeTable(const std::string& text, const std::string& context) {
  std::map<std::string, QuantMode> modes;
  std::istringstream in(text);
  std::string line;
  for (int lineNo = 1; std::getline(in, line); ++lineNo) {
    size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    size_t e = line.find_last_not_of(" \t\r");
    std::string body = line.substr(b, e - b + 1);
    size_t sp = body.find_last_of(" \t");
    std::string where = context + ":" + std::to_string(lineNo);
    if (sp == std::string::npos) return Status::invalid(where + ": expected '<op_name> <quantize_mode>'");
    std::string name = body.substr(0, body.find_last_not_of(" \t", sp) + 1);
    auto mode = parseQuantMode(body.substr(sp + 1));
    if (!mode) return mode.status().withContext(where);
    modes[name] = *mode;
  }
  return modes;
}

Result<std::map<std::string, QuantMode>> readQuantizeTable(const std::string& path) {
  Status s;
  std::string text = readText(path, &s);
  if (!s) return s;
  return parseQuantizeTable(text, path);
}

std::map<std::string, TensorQuantParams> recordedQuantParams(const ir::Module& m, const std::string& function) {
  std::map<std::string, TensorQuantParams> out;
  const ir::Function* fn = m.function(function);
  if (!fn) return out;
  auto fromAttrs = [](const ir::Attribute* s, const ir::Attribute* z) { return TensorQuantParams{s->f, z ? z->i : 0}; };
  for (size_t i = 0; i < fn->inputs().size(); ++i)
    if (const ir::Attribute* s = fn->argAttr(i, kScaleAttr))
      out[fn->inputName(i)] = fromAttrs(s, fn->argAttr(i, kZpAttr));
  for (const auto& [v, name] : quantize::topLevelValueNames(*fn)) {
    const ir::Operation* op = v->definingOp;
    if (!op || v->index != 0) continue;
    if (const ir::Attribute* s = op->attr(kScaleAttr)) out[name] = fromAttrs(s, op->attr(kZpAttr));
  }
  for (size_t i = 0; i < fn->resultTypes.size(); ++i)
    if (const ir::Attribute* s = fn->resultAttr(i, kScaleAttr))
      out[fn->outputName(i)] = fromAttrs(s, fn->resultAttr(i, kZpAttr));
  return out;
}

Tensor dequantize(const Tensor& q, const TensorQuantParams& p) {
  Tensor out(DType::FP32, q.shape());
  for (int64_t i = 0; i < q.size(); ++i) out.setFloat(i, p.scale * double(q.getInt(i) - p.zeroPoint));
  return out;
}

std::string quantParamsToJson(const std::map<std::string, TensorQuantParams>& params) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, p] : params) j[name] = {{"scale", p.scale}, {"zero_point", p.zeroPoint}};
  return j.dump(1) + "\n";
}

Result<std::map<std::string, TensorQuantParams>> quantParamsFromJson(const std::string& text,
                                                                     const std::string& context) {
  std::map<std::string, TensorQuantParams> params;
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    for (auto it = j.begin(); it != j.end(); ++it)
      params[it.key()] = {it.value().at("scale").get<double>(), it.value().at("zero_point").get<int64_t>()};
  } catch (const std::exception& e) { return Status::parse(context + ": " + e.what()); }
  return params;
}

}  // namespace tosakit
