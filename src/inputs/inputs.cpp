// One front door for a function's inputs (include/tosakit/inputs.h).
#include "tosakit/inputs.h"

#include <algorithm>
#include <cctype>
#include <random>

#include "session/io_adapt.h"
#include "tosakit/npz.h"
#include "tosakit/preprocess.h"

namespace tosakit {

namespace {

// A given tensor and the file it came from ("" for a tensor in memory), so errors can name the file.
struct Given {
  std::string name;
  Tensor tensor;
  std::string origin;
};

std::string knownInputs(const ir::Function& fn) {
  std::string known;
  for (size_t k = 0; k < fn.inputs().size(); ++k) known += (k ? ", " : "") + fn.inputName(k);
  return known;
}

std::optional<size_t> argumentIndex(const ir::Function& fn, const std::string& name) {
  for (size_t i = 0; i < fn.inputs().size(); ++i)
    if (fn.inputName(i) == name) return i;
  return std::nullopt;
}

Status withOrigin(const Status& s, const std::string& origin) { return origin.empty() ? s : s.withContext(origin); }

// An image for argument `name` (decoded and preprocessed by its recipe), or an .npy read as it is.
Result<Tensor> readFile(const ir::Function& fn, const std::string& name, const std::string& path) {
  if (!isImageFile(path)) return npy::readNpy(path);
  auto index = argumentIndex(fn, name);
  if (!index)
    return Status::invalid(path + ": unknown input '" + name + "' (function @" + fn.name +
                           " takes: " + knownInputs(fn) + ")");
  return loadImage(path, fn, *index);
}

Result<std::vector<Given>> gather(const ir::Function& fn, const InputSources& sources) {
  std::vector<Given> given;
  auto add = [&](const std::string& name, Tensor t, const std::string& origin) -> Status {
    for (const Given& g : given)
      if (g.name == name) return withOrigin(Status::invalid("input '" + name + "' given twice"), origin);
    given.push_back({name, std::move(t), origin});
    return Status::ok();
  };
  for (const std::string& path : sources.npzFiles) {
    auto npz = npy::readNpz(path);
    if (!npz) return npz.status();
    for (auto& [name, t] : *npz) TK_RETURN_IF_ERROR(add(name, std::move(t), path));
  }
  for (const auto& [name, path] : sources.files) {
    auto t = readFile(fn, name, path);
    if (!t) return t.status();
    TK_RETURN_IF_ERROR(add(name, std::move(*t), path));
  }
  for (const auto& [name, t] : sources.tensors) TK_RETURN_IF_ERROR(add(name, t, ""));
  return given;
}

std::string lowerExtension(const std::string& path) {
  size_t dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return ext;
}

}  // namespace

Result<PreparedInputs> prepareInputs(const ir::Function& fn, const InputSources& sources) {
  auto given = gather(fn, sources);
  if (!given) return given.status();
  auto dropped = ioadapt::droppedInputs(fn);
  if (!dropped) return dropped.status();
  PreparedInputs out;
  int64_t ignoredByCut = 0;
  for (Given& g : *given) {
    bool ignored = false;
    auto adapted = ioadapt::adaptInput(fn, *dropped, g.name, g.tensor, &out.notes, &ignored);
    if (!adapted) return withOrigin(adapted.status(), g.origin);
    ignoredByCut += ignored ? 1 : 0;
    if (!*adapted) continue;
    const DType declared = fn.inputs()[*argumentIndex(fn, g.name)]->type.dtype;
    const std::string what = (g.origin.empty() ? "" : g.origin + ": ") + "input '" + g.name + "'";
    auto typed = npy::adaptToDType(**adapted, declared, what);
    if (!typed) return typed.status();
    out.tensors.emplace_back(g.name, std::move(*typed));
  }
  if (ignoredByCut) out.notes.push_back(ioadapt::ignoredByCutNote(fn, ignoredByCut));
  return out;
}

Result<NamedTensors> loadSample(const std::string& path, const ir::Function& fn) {
  InputSources sources;
  if (lowerExtension(path) == ".npz") {
    sources.npzFiles.push_back(path);
  } else if (fn.inputs().size() == 1) {
    sources.files.emplace_back(fn.inputName(0), path);
  } else {
    return Status::invalid(path + ": a .npy or image sample needs a single-input function; @" + fn.name + " takes " +
                           std::to_string(fn.inputs().size()) + " inputs (use .npz samples keyed by input name)");
  }
  auto prepared = prepareInputs(fn, sources);
  if (!prepared) return prepared.status();
  return std::move(prepared->tensors);
}

Result<NamedTensors> syntheticInputs(const ir::Function& fn, uint32_t seed) {
  std::mt19937 rng(seed);
  NamedTensors out;
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    const ir::ValueType& type = fn.inputs()[i]->type;
    if (!type.isStatic())
      return Status::invalid("input '" + fn.inputName(i) + "' of @" + fn.name +
                             " has a dynamic shape: synthetic data needs a static one");
    Tensor t(type.dtype, type.dims);
    if (isFloat(type.dtype)) {
      std::uniform_real_distribution<double> d(-1, 1);
      for (int64_t k = 0; k < t.size(); ++k) t.setFloat(k, d(rng));
    } else {
      std::uniform_int_distribution<int64_t> d(dtypeMin(type.dtype), dtypeMax(type.dtype));
      for (int64_t k = 0; k < t.size(); ++k) t.setInt(k, d(rng));
    }
    out.emplace_back(fn.inputName(i), std::move(t));
  }
  return out;
}

}  // namespace tosakit
