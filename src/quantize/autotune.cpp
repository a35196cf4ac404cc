// Auto-tune of thresholds (technical reference 7.4.2) and the fake-quantized similarity used by the method
// search (7.5.3).
#include <algorithm>
#include <cmath>
#include <set>

#include "compliance/similarity.h"
#include "ir/module_clone.h"
#include "quantize/calibrate_internal.h"

namespace tosakit::quantize {

namespace {

constexpr int kCandidates = 20;

struct Consumer {
  const ir::Operation* op;
  std::string outputName;  // float reference output of the op (result 0)
};

double euclideanDistance(const Tensor& a, const Tensor& b) {
  double sum = 0;
  for (int64_t i = 0; i < a.size() && i < b.size(); ++i) {
    double d = a.getFloat(i) - b.getFloat(i);
    if (std::isfinite(d)) sum += d * d;
  }
  return std::sqrt(sum);
}

}  // namespace

Result<NamedTensors> runSample(Session& session, const CalibrateOptions& o, const ir::Function& fn,
                               const std::string& sample) {
  auto inputs = o.loadSample(sample);
  if (!inputs) return inputs.status();
  RunOptions ro;
  ro.function = o.function;
  ro.captureIntermediates = true;
  RunResult rr;
  if (Status s = session.run(*inputs, rr, ro); !s) return s.withContext(sample);
  NamedTensors all;
  for (size_t a = 0; a < fn.inputs().size(); ++a)
    for (auto& [n, t] : *inputs)
      if (n == fn.inputName(a)) all.emplace_back(n, std::move(t));
  for (auto& nt : rr.intermediates) all.push_back(std::move(nt));
  return all;
}

Status autoTune(const CalibrateOptions& o, const ir::Function& fn, const std::vector<std::string>& tuneSamples,
                const ModelStats& stats, Thresholds& thresholds) {
  auto names = topLevelValueNames(fn);
  // Consumers of every tunable tensor: top-level ops without regions whose result 0 is a named float tensor.
  std::map<std::string, std::vector<Consumer>> consumers;
  for (const auto& op : fn.body.ops) {
    if (!op->regions.empty() || op->results.empty() || !names.count(op->results[0]) ||
        !isFloat(op->results[0]->type.dtype))
      continue;
    std::set<std::string> seen;
    for (const ir::Value* v : op->operands) {
      auto it = names.find(v);
      if (constProducer(v) || it == names.end() || !thresholds.count(it->second) || !seen.insert(it->second).second)
        continue;
      consumers[it->second].push_back({op.get(), names[op->results[0]]});
    }
  }
  // Candidates: kCandidates values evenly from the method's threshold to absmax (7.4.2).
  std::map<std::string, std::vector<double>> candidates;
  std::map<std::string, std::vector<std::vector<double>>> distance;  // [tensor][consumer][candidate]
  for (const auto& [name, cs] : consumers) {
    double absMax = stats.tensors[stats.index.at(name)].range.absMax(), t0 = thresholds[name];
    if (!(absMax > t0)) continue;
    for (int k = 0; k < kCandidates; ++k) candidates[name].push_back(t0 + (absMax - t0) * k / (kCandidates - 1));
    distance[name].assign(cs.size(), std::vector<double>(kCandidates, 0.0));
  }
  if (candidates.empty()) return Status::ok();

  auto session = Session::create(ir::cloneModule(*fn.module), o.session);
  if (!session) return session.status();
  OpRunner runner(o.session);
  size_t done = 0, total = tuneSamples.size() * candidates.size();
  for (const std::string& sample : tuneSamples) {
    auto tensors = runSample(**session, o, fn, sample);
    if (!tensors) return tensors.status();
    std::map<std::string, Tensor> byName(std::make_move_iterator(tensors->begin()),
                                         std::make_move_iterator(tensors->end()));
    for (const auto& [name, cands] : candidates) {
      const auto& cs = consumers[name];
      for (size_t c = 0; c < cs.size(); ++c) {
        const ir::Operation& op = *cs[c].op;
        const Tensor& want = byName.at(cs[c].outputName);
        for (int k = 0; k < kCandidates; ++k) {
          std::vector<Tensor> acts, outs;
          for (const ir::Value* v : op.operands) {
            if (constProducer(v)) continue;
            const std::string& n = names.at(v);
            acts.push_back(n == name ? fakeQuantize(byName.at(n), cands[size_t(k)]) : byName.at(n));
          }
          TK_RETURN_IF_ERROR(runner.runOp(op, acts, true, outs));
          distance[name][c][size_t(k)] += euclideanDistance(outs[0], want);
        }
      }
      if (o.progress) o.progress("tune", ++done, total);
    }
  }
  for (const auto& [name, cands] : candidates) {
    double chosen = 0;
    for (const auto& d : distance[name]) {
      size_t best = size_t(std::min_element(d.begin(), d.end()) - d.begin());
      chosen = std::max(chosen, cands[best]);  // several consumers: the larger threshold (7.4.2)
    }
    thresholds[name] = chosen;
  }
  return Status::ok();
}

Result<double> fakeQuantSimilarity(const CalibrateOptions& o, const ir::Function& fn,
                                   const std::vector<std::string>& samples, const Thresholds& thresholds) {
  OpRunner runner(o.session);
  double sum = 0;
  int64_t n = 0;
  auto quantize = [&](const std::string& name, Tensor& t) {
    auto it = thresholds.find(name);
    if (it != thresholds.end() && isFloat(t.dtype())) t = fakeQuantize(t, it->second);
  };
  for (const std::string& sample : samples) {
    auto inputs = o.loadSample(sample);
    if (!inputs) return inputs.status();
    std::vector<Tensor> ref, got;
    TK_RETURN_IF_ERROR(runOpByOp(runner, fn, *inputs, false, nullptr, ref).withContext(sample));
    TK_RETURN_IF_ERROR(runOpByOp(runner, fn, *inputs, true, quantize, got).withContext(sample));
    for (size_t i = 0; i < ref.size() && i < got.size(); ++i) {
      if (!isFloat(ref[i].dtype())) continue;
      sum += compliance::cosineSimilarity(ref[i], got[i]);
      ++n;
    }
  }
  if (n == 0)
    return Status::unsupported("the model has no floating-point output to compare").withParameter("search_threshold");
  return sum / double(n);
}

}  // namespace tosakit::quantize
