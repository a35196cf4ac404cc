// Mixed-precision search (include/tosakit/qtable.h): per-layer sensitivity, then the shortest prefix of float
// layers reaching the expected output cosine.
#include "tosakit/qtable.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "compliance/similarity.h"
#include "quantize/module_clone.h"

namespace tosakit {

namespace {

// Layers (location names) of top-level ops that compute something: not constants, not the return.
std::vector<std::string> candidateLayers(const ir::Function& fn) {
  std::vector<std::string> layers;
  std::set<std::string> seen;
  for (const auto& op : fn.body.ops) {
    if (op->name == "tosa.const" || op->name == "tosa.const_shape" || op->name == "func.return") continue;
    if (op->loc.name.empty() || op->results.empty() || !isFloat(op->results[0]->type.dtype)) continue;
    if (seen.insert(op->loc.name).second) layers.push_back(op->loc.name);
  }
  return layers;
}

class Evaluator {
 public:
  explicit Evaluator(const QtableOptions& o) : o_(o) {}

  Status init() {
    const ir::Function* fn = o_.module->function(o_.quantize.function);
    if (!fn) return Status::invalid("no function '" + o_.quantize.function + "' in the model");
    auto session = Session::create(quantize::cloneModule(*o_.module), o_.session);
    if (!session) return session.status();
    RunOptions ro;
    ro.function = o_.quantize.function;
    for (const std::string& s : o_.samples) {
      auto in = o_.loadSample(s);
      if (!in) return in.status();
      RunResult rr;
      if (Status st = (*session)->run(*in, rr, ro); !st) return st.withContext(s);
      inputs_.push_back(std::move(*in));
      reference_.push_back(std::move(rr.outputs));
    }
    return Status::ok();
  }

  // Mean output cosine of the model quantized with `floatLayers` in fpType.
  Result<double> cosine(const std::vector<std::string>& floatLayers) {
    QuantizeOptions qo = o_.quantize;
    for (const auto& l : floatLayers) qo.layerModes[l] = o_.fpType;
    auto q = quantizeModel(*o_.module, *o_.table, qo);
    if (!q) return q.status();
    auto session = Session::create(std::move(*q), o_.session);
    if (!session) return session.status();
    RunOptions ro;
    ro.function = o_.quantize.function;
    double sum = 0;
    int64_t n = 0;
    for (size_t s = 0; s < inputs_.size(); ++s) {
      RunResult rr;
      if (Status st = (*session)->run(inputs_[s], rr, ro); !st) return st.withContext(o_.samples[s]);
      for (size_t i = 0; i < rr.outputs.size() && i < reference_[s].size(); ++i) {
        if (!isFloat(rr.outputs[i].second.dtype())) continue;
        sum += compliance::cosineSimilarity(rr.outputs[i].second, reference_[s][i].second);
        ++n;
      }
    }
    if (n == 0) return Status::unsupported("qtable: the quantized model has no floating-point output to compare");
    return sum / double(n);
  }

 private:
  const QtableOptions& o_;
  std::vector<NamedTensors> inputs_;
  std::vector<NamedTensors> reference_;
};

std::string fixed(double v, int decimals = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

Result<QtableResult> searchQtable(const QtableOptions& o) {
  if (!o.module || !o.table || !o.loadSample) return Status::internal("qtable: incomplete options");
  if (o.samples.empty()) return Status::invalid("the dataset holds no sample");
  Evaluator eval(o);
  TK_RETURN_IF_ERROR(eval.init());
  QtableResult r;
  auto all = eval.cosine({});
  if (!all) return all.status();
  r.allQuantizedCosine = r.finalCosine = *all;
  std::vector<std::string> layers = candidateLayers(*o.module->function(o.quantize.function));
  r.layerCount = layers.size();
  if (*all >= o.expectedCos) {
    r.reached = true;
    return r;
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    auto c = eval.cosine({layers[i]});
    if (!c) return c.status();
    r.sensitivity.push_back({layers[i], *c});
    if (o.progress) o.progress("sensitivity", i + 1, layers.size());
  }
  std::stable_sort(r.sensitivity.begin(), r.sensitivity.end(),
                   [](const LayerSensitivity& a, const LayerSensitivity& b) { return a.cosine > b.cosine; });
  size_t limit = o.maxFloatLayers < 0 ? layers.size() : std::min(layers.size(), size_t(o.maxFloatLayers));
  auto prefix = [&](size_t k) {
    std::vector<std::string> p;
    for (size_t i = 0; i < k; ++i) p.push_back(r.sensitivity[i].layer);
    return p;
  };
  // Smallest k in [1, limit] whose prefix reaches the expected cosine (the cosine grows with k, mostly).
  size_t lo = 1, hi = limit, best = 0;
  double bestCos = *all;
  while (lo <= hi && hi > 0) {
    size_t mid = (lo + hi) / 2;
    auto c = eval.cosine(prefix(mid));
    if (!c) return c.status();
    if (*c >= o.expectedCos) {
      best = mid, bestCos = *c, hi = mid - 1;
    } else {
      lo = mid + 1;
    }
  }
  if (best == 0 && limit > 0) {  // not reached: keep as many float layers as allowed
    best = limit;
    auto c = eval.cosine(prefix(limit));
    if (!c) return c.status();
    bestCos = *c;
  }
  r.floatLayers = prefix(best);
  r.finalCosine = bestCos;
  r.reached = bestCos >= o.expectedCos;
  return r;
}

std::string formatQuantizeTable(const QtableResult& r, const QtableOptions& o) {
  std::string out = "# generated by tosakit qtable\n";
  out += "# base mode: " + quantModeName(o.quantize.mode) + ", float layers: " + quantModeName(o.fpType) + "\n";
  out += "# expected cos: " + fixed(o.expectedCos) + "\n";
  out += "# all-" + quantModeName(o.quantize.mode) + " cos: " + fixed(r.allQuantizedCosine) + "\n";
  out += "# cos with this table: " + fixed(r.finalCosine) + (r.reached ? "" : " (expected cos not reached)") + "\n";
  out += "# float layers: " + std::to_string(r.floatLayers.size()) + " of " + std::to_string(r.layerCount) + "\n";
  out += "# op_name quantize_mode\n";
  for (const auto& l : r.floatLayers) out += l + " " + quantModeName(o.fpType) + "\n";
  return out;
}

std::string formatLossTable(const QtableResult& r) {
  std::string out = "# layer sensitivity: output cosine with only this layer in float, loss = 1 - cosine\n";
  out += "# op_name cosine loss\n";
  for (const auto& s : r.sensitivity) out += s.layer + " " + fixed(s.cosine, 8) + " " + fixed(1 - s.cosine, 8) + "\n";
  return out;
}

}  // namespace tosakit
