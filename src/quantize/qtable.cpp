// Mixed-precision search (include/tosakit/qtable.h): per-candidate sensitivity on the samples that lose most,
// then the shortest prefix of the loss table that reaches the expected output cosine (doubling, bisection,
// redundant candidates removed), and only when no prefix does, candidates chosen greedily (most output-cosine
// gain per float layer, measured with the layers already chosen, among the best so far and the neighbours of
// the float region) until the expected output cosine.
#include "tosakit/qtable.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "compliance/similarity.h"
#include "ir/module_clone.h"

namespace tosakit {

namespace {

using ir::Operation;

bool isLayerOp(const Operation& op) {
  if (op.name == "tosa.const" || op.name == "tosa.const_shape" || op.name == "func.return") return false;
  return !op.loc.name.empty() && !op.results.empty() && isFloat(op.results[0]->type.dtype);
}

// Layers (location names) of top-level ops that compute something: not constants, not the return.
std::vector<std::string> candidateLayers(const ir::Function& fn) {
  std::vector<std::string> layers;
  std::set<std::string> seen;
  for (const auto& op : fn.body.ops)
    if (isLayerOp(*op) && seen.insert(op->loc.name).second) layers.push_back(op->loc.name);
  return layers;
}

// Candidates of the search: every layer alone, and every fused group of more than one layer. A group is an op
// with the data-movement ops (transpose, reshape) whose result only it reads, and its ReLU/ReLU6 when that clamp
// is the op's only consumer. One layer alone in float often changes nothing: a float conv whose ReLU stays
// INT8 has its output quantized by the ReLU, a float transpose of the input is quantized again by its INT8
// conv; only the group keeps the tensor between them in float. TPU-MLIR fuses the ReLU into the conv, so there
// the group is one layer; quantize writes an INT8 conv directly on its ReLU's grid for the same reason.
std::vector<std::vector<std::string>> candidateGroups(const ir::Function& fn) {
  std::map<const ir::Value*, std::vector<const Operation*>> consumers;
  for (const auto& op : fn.body.ops)
    for (const ir::Value* o : op->operands) consumers[o].push_back(op.get());
  auto soleConsumer = [&](const ir::Value* v) -> const Operation* {
    auto it = consumers.find(v);
    return it != consumers.end() && it->second.size() == 1 ? it->second[0] : nullptr;
  };
  auto isRelu = [](const Operation& c) {
    return c.name == "tosa.clamp" && c.floatAttr("min_val", -1.0) == 0.0 && c.floatAttr("max_val") > 0.0;
  };
  auto isDataMovement = [](const Operation& p) { return p.name == "tosa.transpose" || p.name == "tosa.reshape"; };
  std::vector<std::vector<std::string>> groups;
  std::set<std::string> seen;
  for (const auto& op : fn.body.ops) {
    if (!isLayerOp(*op)) continue;
    if (seen.insert(op->loc.name).second) groups.push_back({op->loc.name});
    std::vector<std::string> group;
    for (const ir::Value* o : op->operands) {
      const Operation* p = o->definingOp;
      if (p && isLayerOp(*p) && isDataMovement(*p) && soleConsumer(o) == op.get()) group.push_back(p->loc.name);
    }
    group.push_back(op->loc.name);
    if (op->results.size() == 1)
      if (const Operation* c = soleConsumer(op->results[0]); c && isLayerOp(*c) && isRelu(*c))
        group.push_back(c->loc.name);
    if (group.size() > 1) groups.push_back(group);
  }
  return groups;
}

std::string joinGroup(const std::vector<std::string>& layers) {
  std::string out;
  for (const auto& l : layers) out += (out.empty() ? "" : " + ") + l;
  return out;
}

// For every layer, the layers that produce its operands or read its results.
std::map<std::string, std::set<std::string>> layerNeighbours(const ir::Function& fn) {
  std::map<std::string, std::set<std::string>> n;
  for (const auto& op : fn.body.ops) {
    if (!isLayerOp(*op)) continue;
    for (const ir::Value* o : op->operands) {
      const Operation* p = o->definingOp;
      if (!p || !isLayerOp(*p) || p->loc.name == op->loc.name) continue;
      n[op->loc.name].insert(p->loc.name);
      n[p->loc.name].insert(op->loc.name);
    }
  }
  return n;
}

class Evaluator {
 public:
  explicit Evaluator(const QtableOptions& o) : o_(o) {}

  Status init() {
    const ir::Function* fn = o_.module->function(o_.quantize.function);
    if (!fn) return Status::invalid("no function '" + o_.quantize.function + "' in the model");
    TK_RETURN_IF_ERROR(checkOutputs(*fn));
    auto session = Session::create(ir::cloneModule(*o_.module), o_.session);
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
    for (size_t s = 0; s < inputs_.size(); ++s) all_.push_back(s);
    return Status::ok();
  }

  // The model quantized with `floatLayers` in fpType, against float, on the samples `subset` (indices; every
  // sample when null): the mean cosine over those samples of each output that counts (every floating-point
  // output, or those named in opts.outputs; the worst sample's with opts.worstSample), and of those the worst.
  // The worst, not the mean over outputs: a landmark model whose pixel coordinates keep 0.999 would hide that
  // its world landmarks fall to 0.9. `perSample`, when given, receives each sample's worst counted output.
  Result<double> cosine(const std::vector<std::string>& floatLayers, const std::vector<size_t>* subset = nullptr,
                        std::vector<double>* perSample = nullptr) {
    const std::vector<size_t>& samples = subset ? *subset : all_;
    QuantizeOptions qo = o_.quantize;
    for (const auto& l : floatLayers) qo.layerModes[l] = o_.fpType;
    auto q = quantizeModel(*o_.module, *o_.table, qo);
    if (!q) return q.status();
    auto session = Session::create(std::move(*q), o_.session);
    if (!session) return session.status();
    ++evaluations_, runs_ += samples.size();
    RunOptions ro;
    ro.function = o_.quantize.function;
    struct Sims {
      double sum = 0, worst = 2;
      int64_t n = 0;
    };
    std::map<size_t, Sims> perOutput;
    if (perSample) perSample->assign(samples.size(), 2.0);
    for (size_t k = 0; k < samples.size(); ++k) {
      size_t s = samples[k];
      RunResult rr;
      if (Status st = (*session)->run(inputs_[s], rr, ro); !st) return st.withContext(o_.samples[s]);
      for (size_t i = 0; i < rr.outputs.size() && i < reference_[s].size(); ++i) {
        if (!isFloat(rr.outputs[i].second.dtype()) || !counts(reference_[s][i].first)) continue;
        Sims& sims = perOutput[i];
        double c = compliance::cosineSimilarity(rr.outputs[i].second, reference_[s][i].second);
        sims.sum += c, sims.worst = std::min(sims.worst, c), ++sims.n;
        if (perSample) (*perSample)[k] = std::min((*perSample)[k], c);
      }
    }
    if (perOutput.empty())
      return Status::unsupported("qtable: the quantized model has no floating-point output to compare");
    double worst = 2;
    for (const auto& [i, sims] : perOutput)
      worst = std::min(worst, o_.worstSample ? sims.worst : sims.sum / double(sims.n));
    return worst;
  }

  // Every name of opts.outputs must be an output of the function.
  Status checkOutputs(const ir::Function& fn) const {
    for (const std::string& name : o_.outputs) {
      bool found = false;
      for (size_t i = 0; i < fn.outputs().size() && !found; ++i) found = fn.outputName(i) == name;
      if (!found) return Status::invalid("qtable: '" + name + "' is not an output of the model");
    }
    return Status::ok();
  }

  size_t evaluations() const { return evaluations_; }
  size_t runs() const { return runs_; }

 private:
  bool counts(const std::string& output) const {
    return o_.outputs.empty() || std::find(o_.outputs.begin(), o_.outputs.end(), output) != o_.outputs.end();
  }

 private:
  const QtableOptions& o_;
  std::vector<NamedTensors> inputs_;
  std::vector<NamedTensors> reference_;
  std::vector<size_t> all_;
  size_t evaluations_ = 0, runs_ = 0;
};

std::string fixed(double v, int decimals = 6) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The `n` samples whose all-quantized cosine is lowest (every sample when n <= 0 or n >= their count), in
// sample order: the sensitivity only ranks candidates, and the samples that lose most rank them best.
std::vector<size_t> worstSamples(const std::vector<double>& perSample, int64_t n) {
  std::vector<size_t> order(perSample.size());
  for (size_t s = 0; s < order.size(); ++s) order[s] = s;
  if (n <= 0 || size_t(n) >= order.size()) return order;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return perSample[a] < perSample[b]; });
  order.resize(size_t(n));
  std::sort(order.begin(), order.end());
  return order;
}

// The layers of the first `k` candidates of `ranked` (indices into the loss table), each once, in that order.
std::vector<std::string> unionOf(const std::vector<LayerSensitivity>& table, const std::vector<size_t>& ranked,
                                 size_t k) {
  std::vector<std::string> layers;
  std::set<std::string> seen;
  for (size_t i = 0; i < k && i < ranked.size(); ++i)
    for (const auto& l : table[ranked[i]].layers)
      if (seen.insert(l).second) layers.push_back(l);
  return layers;
}

struct Table {
  std::vector<std::string> layers;
  double cosine = -2;
};

// Block search on the loss table: the union of the first k candidates that gain anything alone (most gain per
// layer first, within the layer limit), k = 1, 2, 4, ... until one reaches the target, then bisection for the
// smallest such k, then each of those candidates removed again, least gain first, when the rest still reaches
// the target (a candidate taken for its own gain may be redundant next to the others). About 2 log2(k) + k
// quantizations instead of a greedy step's tens; `best` is the best union measured whether or not it reaches.
Result<Table> prefixSearch(Evaluator& eval, const std::vector<LayerSensitivity>& table, double all, double target,
                           size_t layerLimit, const ProgressCallback& progress) {
  std::vector<size_t> ranked;
  for (size_t i = 0; i < table.size(); ++i) {
    if (table[i].cosine <= all) continue;
    ranked.push_back(i);
    if (unionOf(table, ranked, ranked.size()).size() > layerLimit) ranked.pop_back();
  }
  Table best;
  std::map<size_t, double> measured;
  auto at = [&](size_t k) -> Result<double> {
    if (auto it = measured.find(k); it != measured.end()) return it->second;
    std::vector<std::string> layers = unionOf(table, ranked, k);
    auto c = eval.cosine(layers);
    if (!c) return c.status();
    measured[k] = *c;
    if (*c > best.cosine) best = {layers, *c};
    if (progress) progress("block search, " + std::to_string(k) + " candidates", 1, 1);
    return *c;
  };
  size_t lo = 0, hi = 0;  // union of lo candidates below the target (0: none measured), of hi reaching it
  for (size_t k = 1; k <= ranked.size(); k = std::min(2 * k, ranked.size())) {
    auto c = at(k);
    if (!c) return c.status();
    if (*c >= target) {
      hi = k;
      break;
    }
    lo = k;
    if (k == ranked.size()) break;
  }
  if (hi == 0) return best;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    auto c = at(mid);
    if (!c) return c.status();
    (*c >= target ? hi : lo) = mid;
  }
  std::vector<size_t> kept(ranked.begin(), ranked.begin() + long(hi));
  double keptCos = measured[hi];
  for (size_t j = kept.size(); j-- > 0 && kept.size() > 1;) {
    std::vector<size_t> trial = kept;
    trial.erase(trial.begin() + long(j));
    std::vector<std::string> layers = unionOf(table, trial, trial.size());
    if (layers.size() == unionOf(table, kept, kept.size()).size()) {
      kept = trial;  // its layers are all in the others
      continue;
    }
    auto c = eval.cosine(layers);
    if (!c) return c.status();
    if (progress) progress("block search, removing", kept.size() - j, kept.size());
    if (*c >= target) kept = trial, keptCos = *c;
  }
  return Table{unionOf(table, kept, kept.size()), keptCos};
}

}  // namespace

Result<QtableResult> searchQtable(const QtableOptions& o) {
  if (!o.module || !o.table || !o.loadSample) return Status::internal("qtable: incomplete options");
  if (o.samples.empty()) return Status::invalid("the dataset holds no sample");
  Evaluator eval(o);
  TK_RETURN_IF_ERROR(eval.init());
  QtableResult r;
  std::vector<double> perSample;
  auto all = eval.cosine({}, nullptr, &perSample);
  if (!all) return all.status();
  r.allQuantizedCosine = r.finalCosine = *all;
  const ir::Function& fn = *o.module->function(o.quantize.function);
  r.layerCount = candidateLayers(fn).size();
  auto finish = [&]() {
    r.evaluations = eval.evaluations();
    r.runs = eval.runs();
    return r;
  };
  if (*all >= o.expectedCos) {
    r.reached = true;
    return finish();
  }
  // Sensitivity on the samples that lose most (--sensitivity-num): it ranks the candidates, the search then
  // measures every table on all samples. Its own all-quantized cosine on those samples is the baseline.
  std::vector<size_t> rankSamples = worstSamples(perSample, o.sensitivityNum);
  double rankBase = *all;
  if (rankSamples.size() < perSample.size()) {
    auto b = eval.cosine({}, &rankSamples);
    if (!b) return b.status();
    rankBase = *b;
  }
  std::vector<std::vector<std::string>> groups = candidateGroups(fn);
  for (size_t i = 0; i < groups.size(); ++i) {
    auto c = eval.cosine(groups[i], &rankSamples);
    if (!c) return c.status();
    // Reported against the all-quantized cosine of all samples: the loss table's baseline.
    r.sensitivity.push_back({joinGroup(groups[i]), *c - rankBase + *all, groups[i]});
    if (o.progress) o.progress("sensitivity", i + 1, groups.size());
  }
  // Most output-cosine gain per float layer first: a group of three must gain three times a single layer's.
  auto gainPerLayer = [&](const LayerSensitivity& s) { return (s.cosine - *all) / double(s.layers.size()); };
  std::stable_sort(
      r.sensitivity.begin(), r.sensitivity.end(),
      [&](const LayerSensitivity& a, const LayerSensitivity& b) { return gainPerLayer(a) > gainPerLayer(b); });
  size_t layerLimit = o.maxFloatLayers < 0 ? r.layerCount : size_t(o.maxFloatLayers);
  Table block;
  if (o.blockSearch) {
    auto b = prefixSearch(eval, r.sensitivity, *all, o.expectedCos, layerLimit, o.progress);
    if (!b) return b.status();
    block = std::move(*b);
    if (block.cosine >= o.expectedCos) {
      r.floatLayers = block.layers;
      r.finalCosine = block.cosine;
      r.reached = true;
      return finish();
    }
  }
  // Greedy forward selection: each step measures candidates together with the layers chosen so far and adds
  // the one with the most cosine gain per new float layer, until the target is reached or --max-float-layers
  // leaves no room. Measured in context, not taken from the loss table: in
  // a deep network one layer's gain depends on what precedes it (the noise an early INT8 layer adds is
  // amplified by the rest; the layers after it gain little until it is float), and a layer whose own gain was
  // noise is not chosen. A step measures the kGreedyWindow candidates with the highest gain measured so far
  // and every candidate next to the float layers chosen (reading or producing one of their tensors: widening
  // a float region removes the quantization at its border), so a step costs tens of quantizations on a model
  // of hundreds of layers; only when none of those raises the cosine are all the others measured.
  constexpr size_t kGreedyWindow = 16;
  std::map<std::string, std::set<std::string>> neighbours = layerNeighbours(fn);
  std::vector<double> lastGain;
  for (const auto& s : r.sensitivity) lastGain.push_back(gainPerLayer(s));
  std::vector<std::string> chosen, bestSeen;
  std::set<std::string> in, next;  // chosen layers; layers adjacent to them
  double cosine = *all, bestSeenCos = *all;
  if (block.cosine > bestSeenCos) bestSeen = block.layers, bestSeenCos = block.cosine;
  auto trialOf = [&](size_t i) {
    std::vector<std::string> trial = chosen;
    for (const auto& l : r.sensitivity[i].layers)
      if (!in.count(l)) trial.push_back(l);
    return trial;
  };
  for (size_t step = 1; cosine < o.expectedCos; ++step) {
    std::vector<size_t> feasible;
    for (size_t i = 0; i < r.sensitivity.size(); ++i) {
      size_t n = trialOf(i).size();
      if (n > chosen.size() && n <= layerLimit) feasible.push_back(i);
    }
    std::stable_sort(feasible.begin(), feasible.end(), [&](size_t a, size_t b) { return lastGain[a] > lastGain[b]; });
    std::vector<size_t> pool, rest;
    for (size_t k = 0; k < feasible.size(); ++k) {
      const auto& layers = r.sensitivity[feasible[k]].layers;
      bool adjacent = std::any_of(layers.begin(), layers.end(), [&](const std::string& l) { return next.count(l); });
      (k < kGreedyWindow || adjacent ? pool : rest).push_back(feasible[k]);
    }
    if (feasible.empty()) break;
    std::vector<std::string> best;
    double bestCos = cosine, bestGain = -2;
    auto measure = [&](const std::vector<size_t>& candidates) -> Status {
      for (size_t k = 0; k < candidates.size(); ++k) {
        std::vector<std::string> trial = trialOf(candidates[k]);
        auto c = eval.cosine(trial);
        if (!c) return c.status();
        double gain = (*c - cosine) / double(trial.size() - chosen.size());
        lastGain[candidates[k]] = gain;
        if (*c > bestSeenCos) bestSeen = trial, bestSeenCos = *c;
        if (gain > bestGain) best = std::move(trial), bestCos = *c, bestGain = gain;
        if (o.progress) o.progress("search step " + std::to_string(step), k + 1, candidates.size());
      }
      return Status::ok();
    };
    TK_RETURN_IF_ERROR(measure(pool));
    if (bestGain <= 0) TK_RETURN_IF_ERROR(measure(rest));  // none of those helps: every candidate once
    // Even a candidate that lowers the cosine is taken when none raises it: one float layer inside an INT8
    // region may gain nothing while the region it starts does, so the search goes on until the target or
    // the layer limit, and returns the best table it measured.
    cosine = bestCos;
    chosen = std::move(best);
    in.insert(chosen.begin(), chosen.end());
    for (const auto& l : chosen)
      if (auto it = neighbours.find(l); it != neighbours.end()) next.insert(it->second.begin(), it->second.end());
  }
  if (cosine < o.expectedCos && bestSeenCos > cosine) chosen = bestSeen, cosine = bestSeenCos;
  r.floatLayers = chosen;
  r.finalCosine = cosine;
  r.reached = cosine >= o.expectedCos;
  return finish();
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
  std::string out =
      "# layer sensitivity: output cosine with only this layer (or this fused group, layers joined by"
      " ' + ') in float, loss = 1 - cosine; most cosine gain per float layer first\n";
  out += "# op_name cosine loss\n";
  for (const auto& s : r.sensitivity) out += s.layer + " " + fixed(s.cosine, 8) + " " + fixed(1 - s.cosine, 8) + "\n";
  return out;
}

}  // namespace tosakit
