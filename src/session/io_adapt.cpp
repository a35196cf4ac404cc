// Inputs/outputs of ONNX-imported functions in ONNX Runtime's types (include/tosakit/io_adapt.h).
#include "session/io_adapt.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "tosakit/io_adapt.h"

namespace tosakit {
namespace ioadapt {

std::optional<DType> dtypeOfOnnxName(const std::string& name) {
  static const std::pair<const char*, DType> kNames[] = {
      {"bool", DType::Bool},    {"int8", DType::I8},       {"int16", DType::I16},    {"int32", DType::I32},
      {"int64", DType::I64},    {"uint8", DType::U8},      {"uint16", DType::U16},   {"uint32", DType::U32},
      {"float16", DType::FP16}, {"bfloat16", DType::BF16}, {"float32", DType::FP32}, {"float64", DType::FP64}};
  for (const auto& [n, t] : kNames)
    if (name == n) return t;
  return std::nullopt;
}

Result<std::vector<DroppedInput>> droppedInputs(const ir::Function& fn) {
  std::vector<DroppedInput> out;
  auto it = fn.attrs.find("tosakit.onnx_unused_inputs");
  if (it == fn.attrs.end()) return out;
  const std::string where = "@" + fn.name + ": attribute tosakit.onnx_unused_inputs";
  if (it->second.kind != ir::Attribute::Kind::String) return Status::parse(where + " is not a string");
  try {
    nlohmann::json list = nlohmann::json::parse(it->second.s);
    if (!list.is_array()) return Status::parse(where + " is not a JSON list");
    for (const auto& e : list) {
      DroppedInput d;
      d.name = e.at("name").get<std::string>();
      d.onnxType = e.at("onnx_type").get<std::string>();
      d.shape = e.at("shape").get<std::vector<int64_t>>();
      d.reason = e.at("reason").get<std::string>();
      if (e.contains("values")) {
        std::vector<double> v;
        for (const auto& x : e.at("values"))
          v.push_back(x.is_string() ? std::strtod(x.get<std::string>().c_str(), nullptr) : x.get<double>());
        d.values = std::move(v);
      }
      out.push_back(std::move(d));
    }
  } catch (const std::exception& e) { return Status::parse(where + ": " + e.what()); }
  return out;
}

}  // namespace ioadapt

namespace {

std::string onnxTypeOf(const ir::Attribute* a) {
  return a && a->kind == ir::Attribute::Kind::String ? a->s : std::string();
}

// int64 -> int32 with a range check naming the first value that does not fit.
Result<Tensor> narrowInt64(const Tensor& t, const std::string& name) {
  Tensor out(DType::I32, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) {
    int64_t v = t.getInt(i);
    if (v < INT32_MIN || v > INT32_MAX)
      return Status::invalid("input '" + name + "': value " + std::to_string(v) + " at index " + std::to_string(i) +
                             " does not fit in int32 (the imported model carries this int64 input as i32)");
    out.setInt(i, v);
  }
  return out;
}

// Same bits in another 8-bit type (uint8 <-> i8).
Tensor rebits8(const Tensor& t, DType to) {
  Tensor out(to, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) {
    uint8_t bits = uint8_t(t.getInt(i));
    out.setInt(i, to == DType::U8 ? int64_t(bits) : int64_t(int8_t(bits)));
  }
  return out;
}

Result<Tensor> adaptArgument(const Tensor& t, const std::string& name, const ir::ValueType& type,
                             const std::string& onnxType) {
  if (onnxType == "int64" && t.dtype() == DType::I64 && type.dtype == DType::I32) return narrowInt64(t, name);
  if (onnxType == "uint8" && t.dtype() == DType::U8 && type.dtype == DType::I8) return rebits8(t, DType::I8);
  return t;
}

// A graph input the function does not take: the caller's tensor must still look like the imported one.
Status checkDropped(const Tensor& t, const ioadapt::DroppedInput& d, std::vector<std::string>* notes) {
  const std::string what = "input '" + d.name + "'";
  // Only a shape that is read (Shape/Size) or a bound value means something; ONNX's own test data gives unread
  // inputs other shapes than declared.
  const bool shapeMatters = d.reason == "shape_only" || d.reason == "bound";
  if (shapeMatters && t.shape() != d.shape)
    return Status::invalid(what + " has shape " + shapeToString(t.shape()) + ", the model was imported with " +
                           shapeToString(d.shape));
  if (d.values) {
    bool same = int64_t(d.values->size()) == t.size();
    for (int64_t i = 0; same && i < t.size(); ++i) {
      double want = (*d.values)[size_t(i)];
      double got = isFloat(t.dtype()) ? t.getFloat(i) : double(t.getInt(i));
      same = got == want || (std::isnan(got) && std::isnan(want));
    }
    if (!same)
      return Status::invalid(what +
                             " was bound to other values at import; import again to change "
                             "it");
  }
  if (notes) {
    std::string why = d.reason == "bound" ? "its value was bound at import"
        : d.reason == "shape_only"        ? "only its shape is read; shape checked"
        : d.reason == "type_only"         ? "only its element type is read"
                                          : "the model does not read it";
    notes->push_back(what + " is not used at run time (" + why + ")");
  }
  return Status::ok();
}

}  // namespace

namespace ioadapt {

Result<std::optional<Tensor>> adaptInput(const ir::Function& fn, const std::vector<DroppedInput>& dropped,
                                         const std::string& name, const Tensor& t, std::vector<std::string>* notes,
                                         bool* ignoredByCut) {
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    if (fn.inputName(i) != name) continue;
    auto a = adaptArgument(t, name, fn.inputs()[i]->type, onnxTypeOf(fn.argAttr(i, "tosakit.onnx_type")));
    if (!a) return a.status();
    return std::optional<Tensor>(std::move(*a));
  }
  for (const DroppedInput& d : dropped) {
    if (d.name != name) continue;
    TK_RETURN_IF_ERROR(checkDropped(t, d, notes));
    return std::optional<Tensor>();
  }
  // A function `tosakit cut` made takes a bundle of the original model's tensors (an intermediates dump):
  // the ones it does not take are ignored, with one note.
  if (fn.attrs.count("tosakit.cut_from")) {
    if (ignoredByCut) *ignoredByCut = true;
    return std::optional<Tensor>();
  }
  std::string known;
  for (const std::string& n : acceptedInputNames(fn)) known += (known.empty() ? "" : ", ") + n;
  return Status::invalid("unknown input '" + name + "' (function @" + fn.name + " takes: " + known + ")");
}

std::string ignoredByCutNote(const ir::Function& fn, int64_t count) {
  return std::to_string(count) + " given tensor(s) that @" + fn.name +
      " (cut from a larger model by tosakit cut) does not take were ignored";
}

}  // namespace ioadapt

std::vector<std::string> acceptedInputNames(const ir::Function& fn) {
  std::vector<std::string> names;
  for (size_t i = 0; i < fn.inputs().size(); ++i) names.push_back(fn.inputName(i));
  if (auto dropped = ioadapt::droppedInputs(fn))
    for (const auto& d : *dropped) names.push_back(d.name);
  return names;
}

Result<NamedTensors> adaptInputs(const ir::Function& fn, const NamedTensors& given, std::vector<std::string>* notes) {
  auto dropped = ioadapt::droppedInputs(fn);
  if (!dropped) return dropped.status();
  NamedTensors out;
  int64_t ignored = 0;
  for (const auto& [name, t] : given) {
    bool cutIgnores = false;
    auto a = ioadapt::adaptInput(fn, *dropped, name, t, notes, &cutIgnores);
    if (!a) return a.status();
    if (*a) out.emplace_back(name, std::move(**a));
    ignored += cutIgnores ? 1 : 0;
  }
  if (ignored && notes) notes->push_back(ioadapt::ignoredByCutNote(fn, ignored));
  return out;
}

NamedTensors adaptOutputs(const ir::Function& fn, NamedTensors outputs) {
  for (size_t k = 0; k < outputs.size() && k < fn.resultTypes.size(); ++k) {
    Tensor& t = outputs[k].second;
    std::string onnxType = onnxTypeOf(fn.resultAttr(k, "tosakit.onnx_type"));
    if (onnxType == "int64" && t.dtype() == DType::I32) {
      Tensor wide(DType::I64, t.shape());
      for (int64_t i = 0; i < t.size(); ++i) wide.setInt(i, t.getInt(i));
      t = std::move(wide);
    } else if (onnxType == "uint8" && t.dtype() == DType::I8) {
      t = rebits8(t, DType::U8);
    }
  }
  return outputs;
}

}  // namespace tosakit
