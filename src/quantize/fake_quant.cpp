#include "quantize/fake_quant.h"

#include <algorithm>
#include <cmath>

#include "ir/builder.h"

namespace tosakit::quantize {

Tensor fakeQuantize(const Tensor& t, double threshold) {
  Tensor out = t;
  if (!isFloat(t.dtype()) || !(threshold > 0)) return out;
  const double s = threshold / 127.0;
  for (int64_t i = 0; i < t.size(); ++i) {
    double v = t.getFloat(i);
    if (!std::isfinite(v)) continue;
    out.setFloat(i, std::clamp(std::nearbyint(v / s), -128.0, 127.0) * s);
  }
  return out;
}

int weightOperandIndex(const ir::Operation& op) {
  static const char* kWeighted[] = {"tosa.conv2d", "tosa.conv3d", "tosa.depthwise_conv2d", "tosa.transpose_conv2d",
                                    "tosa.matmul"};
  for (const char* n : kWeighted)
    if (op.name == n && op.operands.size() > 1) return 1;
  return -1;
}

int64_t weightOutputChannels(const Tensor& w, const std::string& opName) {
  if (w.rank() == 0) return 1;
  if (opName == "tosa.depthwise_conv2d" && w.rank() == 4) return w.shape()[2] * w.shape()[3];  // [KH,KW,C,M]
  if (opName == "tosa.matmul") return w.shape().back();                                        // [N,C,W]
  return w.shape()[0];  // conv2d/conv3d/transpose_conv2d: [OC, ..., IC]
}

int64_t weightOutputChannel(const Tensor& w, const std::string& opName, int64_t i) {
  int64_t channels = weightOutputChannels(w, opName);
  if (opName == "tosa.depthwise_conv2d" || opName == "tosa.matmul") return i % channels;
  return i / (w.size() / channels);
}

Tensor fakeQuantizeWeights(const Tensor& w, const ir::Operation& op) {
  if (!isFloat(w.dtype()) || w.size() == 0) return w;
  std::vector<double> range(size_t(weightOutputChannels(w, op.name)), 0.0);
  for (int64_t i = 0; i < w.size(); ++i) {
    double& r = range[size_t(weightOutputChannel(w, op.name, i))];
    r = std::max(r, std::fabs(w.getFloat(i)));
  }
  Tensor out = w;
  for (int64_t i = 0; i < w.size(); ++i) {
    double r = range[size_t(weightOutputChannel(w, op.name, i))];
    if (r == 0) continue;
    double s = r / 127.0;
    out.setFloat(i, std::clamp(std::nearbyint(w.getFloat(i) / s), -127.0, 127.0) * s);
  }
  return out;
}

const ir::Operation* constProducer(const ir::Value* v) {
  const ir::Operation* d = v->definingOp;
  return d && (d->name == "tosa.const" || d->name == "tosa.const_shape") ? d : nullptr;
}

namespace {

// A module holding a copy of `op`: its non-constant operands become arguments, its constants are copied.
std::unique_ptr<ir::Module> oneOpModule(const ir::Operation& op, bool quantizeWeights) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  std::vector<ir::Value*> operands;
  int weight = weightOperandIndex(op);
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const ir::Value* v = op.operands[k];
    const ir::Operation* c = constProducer(v);
    if (!c) {
      operands.push_back(b.input(v->type));
      continue;
    }
    auto attrs = c->attrs;
    if (quantizeWeights && int(k) == weight && attrs.count("values") && attrs["values"].tensor)
      attrs["values"] = ir::Attribute::dense(fakeQuantizeWeights(*attrs["values"].tensor, op));
    operands.push_back(b.create(c->name, {}, {v->type}, attrs, c->loc).results[0]);
  }
  std::vector<ir::ValueType> types;
  for (const ir::Value* r : op.results) types.push_back(r->type);
  ir::Operation& copy = b.create(op.name, operands, types, op.attrs, op.loc);
  b.output(copy.results);
  return m;
}

}  // namespace

Status OpRunner::runOp(const ir::Operation& op, const std::vector<Tensor>& activations, bool quantizeWeights,
                       std::vector<Tensor>& results) {
  if (!op.regions.empty())
    return Status::unsupported(op.describe() + ": calibration cannot tune through an op with regions");
  auto key = std::make_pair(&op, quantizeWeights && weightOperandIndex(op) >= 0);
  auto it = sessions_.find(key);
  if (it == sessions_.end()) {
    auto s = Session::create(oneOpModule(op, key.second), opts_);
    if (!s) return s.status();
    it = sessions_.emplace(key, std::move(*s)).first;
  }
  Session& session = *it->second;
  const ir::Function& fn = *session.module().function("main");
  if (activations.size() != fn.inputs().size())
    return Status::internal(op.describe() + ": wrong number of activations for the op runner");
  NamedTensors inputs;
  for (size_t i = 0; i < activations.size(); ++i) inputs.emplace_back(fn.inputName(i), activations[i]);
  RunResult rr;
  TK_RETURN_IF_ERROR(session.run(inputs, rr));
  results.clear();
  for (auto& [_, t] : rr.outputs) results.push_back(std::move(t));
  return Status::ok();
}

void forEachTensorName(const ir::Function& fn,
                       const std::function<void(const ir::Value*, const std::string&, bool topLevel)>& f) {
  for (size_t i = 0; i < fn.inputs().size(); ++i) f(fn.inputs()[i], fn.inputName(i), true);
  std::map<std::string, int> used;
  // Same order and de-duplication as Session's capture observer.
  std::function<void(const ir::Block&, bool)> walk = [&](const ir::Block& block, bool topLevel) {
    for (const auto& op : block.ops) {
      for (const auto& region : op->regions)
        for (const auto& b : region->blocks) walk(*b, false);
      if (op->name == "tosa.const" || op->name == "tosa.const_shape" || op->name == "func.return" ||
          op->name == "tosa.yield")
        continue;
      for (size_t i = 0; i < op->results.size(); ++i) {
        std::string name = intermediateName(*op, i);
        if (int n = ++used[name]; n > 1) name += "#" + std::to_string(n);
        f(op->results[i], name, topLevel);
      }
    }
  };
  walk(fn.body, true);
}

std::map<const ir::Value*, std::string> topLevelValueNames(const ir::Function& fn) {
  std::map<const ir::Value*, std::string> names;
  forEachTensorName(fn, [&](const ir::Value* v, const std::string& name, bool topLevel) {
    if (topLevel) names[v] = name;
  });
  return names;
}

Status runOpByOp(OpRunner& runner, const ir::Function& fn, const NamedTensors& inputs, bool quantizeWeights,
                 const ValueHook& onValue, std::vector<Tensor>& outputs) {
  auto names = topLevelValueNames(fn);
  std::map<const ir::Value*, Tensor> values;
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    const ir::Value* arg = fn.inputs()[i];
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](auto& p) { return p.first == fn.inputName(i); });
    if (it == inputs.end()) return Status::invalid("missing input '" + fn.inputName(i) + "'");
    Tensor t = it->second;
    if (onValue) onValue(names[arg], t);
    values[arg] = std::move(t);
  }
  for (const auto& op : fn.body.ops) {
    if (op->name == "tosa.const" || op->name == "tosa.const_shape") continue;
    if (op->name == "func.return") {
      outputs.clear();
      for (const ir::Value* v : op->operands) {
        auto it = values.find(v);
        if (it == values.end()) return Status::unsupported("function output is a constant");
        outputs.push_back(it->second);
      }
      return Status::ok();
    }
    std::vector<Tensor> activations, results;
    for (const ir::Value* v : op->operands) {
      if (constProducer(v)) continue;
      auto it = values.find(v);
      if (it == values.end()) return Status::internal(op->describe() + ": operand computed out of order");
      activations.push_back(it->second);
    }
    TK_RETURN_IF_ERROR(runner.runOp(*op, activations, quantizeWeights, results));
    for (size_t i = 0; i < op->results.size() && i < results.size(); ++i) {
      if (onValue) onValue(names[op->results[i]], results[i]);
      values[op->results[i]] = std::move(results[i]);
    }
  }
  return Status::internal("function @" + fn.name + " has no return");
}

}  // namespace tosakit::quantize
