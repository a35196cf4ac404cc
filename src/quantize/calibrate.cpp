// tosakit calibrate's library: statistics passes over the samples, thresholds by method (7.4), auto-tune
// (7.4.2), and the optional weight rewrites and method search of 7.5.
#include <chrono>
#include <ctime>

#include "ir/module_clone.h"
#include "quantize/calibrate_internal.h"
#include "quantize/thresholds.h"

namespace tosakit {

namespace quantize {

TensorStats& ModelStats::at(const std::string& name) {
  auto it = index.find(name);
  if (it != index.end()) return tensors[it->second];
  index[name] = tensors.size();
  tensors.push_back(TensorStats{name, {}, {}});
  return tensors.back();
}

double methodThreshold(CalibrationMethod method, const TensorStats& s) {
  const double absMax = s.range.absMax();
  const auto& h = s.hist;
  switch (method) {
    case CalibrationMethod::MinMax: return maxThreshold(absMax);
    case CalibrationMethod::Kld: return kldThreshold(h.counts, h.absMax);
    case CalibrationMethod::Percentile9999: return percentileThreshold(h.counts, h.absMax, 0.9999);
    case CalibrationMethod::Mse: return mseThreshold(h.counts, h.absMax);
    case CalibrationMethod::Octav: return octavThreshold(h.counts, h.absMax);
    case CalibrationMethod::AciqGauss: return aciqGaussThreshold(s.range.mean(), h.stdDeviation(), absMax);
    case CalibrationMethod::AciqLaplace: return aciqLaplaceThreshold(s.range.mean(), h.meanAbsDeviation(), absMax);
  }
  return absMax;
}

}  // namespace quantize

namespace {

using namespace quantize;

bool calibratable(const Tensor& t) { return isFloat(t.dtype()) && t.size() > 0; }

std::string nowString() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", std::gmtime(&now));
  return std::string(buf) + " UTC";
}

class Calibrator {
 public:
  Calibrator(const CalibrateOptions& o, ir::Function& fn) : o_(o), fn_(fn) {}

  Status collect(const std::vector<std::string>& samples, bool histograms) {
    auto module = ir::cloneModule(*o_.module);
    auto session = Session::create(std::move(module), o_.session);
    if (!session) return session.status();
    // Pass 1: ranges; pass 2 (when a method needs them): histograms over [0, absmax] and central moments.
    TK_RETURN_IF_ERROR(pass(**session, samples, "statistics",
                            [&](const std::string& n, const Tensor& t) { stats_.at(n).range.add(t); }));
    if (!histograms) return Status::ok();
    for (auto& s : stats_.tensors) s.hist = AbsHistogram(o_.histogramBins, s.range.absMax(), s.range.mean());
    return pass(**session, samples, "histograms", [&](const std::string& n, const Tensor& t) {
      auto it = stats_.index.find(n);
      if (it != stats_.index.end()) stats_.tensors[it->second].hist.add(t);
    });
  }

  Thresholds thresholds(CalibrationMethod method) const {
    Thresholds th;
    for (const auto& s : stats_.tensors)
      if (s.range.count > 0) th[s.name] = methodThreshold(method, s);
    return th;
  }

  const ModelStats& stats() const { return stats_; }

 private:
  template <typename F>
  Status pass(Session& session, const std::vector<std::string>& samples, const std::string& stage, F&& add) {
    for (size_t i = 0; i < samples.size(); ++i) {
      // Arguments first, in declaration order, so the table lists them first.
      auto tensors = runSample(session, o_, fn_, samples[i]);
      if (!tensors) return tensors.status();
      for (const auto& [n, t] : *tensors)
        if (calibratable(t)) add(n, t);
      if (o_.progress) o_.progress(stage, i + 1, samples.size());
    }
    return Status::ok();
  }

  const CalibrateOptions& o_;
  ir::Function& fn_;
  ModelStats stats_;
};

bool tunable(CalibrationMethod m) {
  return m == CalibrationMethod::Kld || m == CalibrationMethod::AciqGauss || m == CalibrationMethod::AciqLaplace;
}

void note(const CalibrateOptions& o, const std::string& text) {
  if (o.notes) o.notes->push_back(text);
}

std::vector<std::string> firstSamples(const std::vector<std::string>& samples, int64_t n) {
  return {samples.begin(), samples.begin() + std::min<int64_t>(int64_t(samples.size()), std::max<int64_t>(n, 0))};
}

Status checkOptions(const CalibrateOptions& o) {
  if (!o.module) return Status::internal("calibrate: no module");
  if (!o.loadSample) return Status::internal("calibrate: no sample loader");
  if (o.histogramBins < 128 || o.histogramBins > (1 << 20))
    return Status::invalid(std::to_string(o.histogramBins) + ": expected 128 to 1048576")
        .withParameter("histogram_bins");
  if (o.inputNum < 0 || o.tuneNum < 0)
    return Status::invalid("must not be negative").withParameter(o.inputNum < 0 ? "input_num" : "tune_num");
  return Status::ok();
}

// 7.5.3: the method whose fake-quantized model is closest to the float model (mean output cosine).
Result<CalibrationMethod> searchMethod(const CalibrateOptions& o, ir::Function& fn, const Calibrator& cal,
                                       const std::vector<std::string>& samples, const std::vector<std::string>& tune,
                                       Thresholds& best) {
  const CalibrationMethod candidates[] = {CalibrationMethod::Kld, CalibrationMethod::Octav, CalibrationMethod::MinMax,
                                          CalibrationMethod::Percentile9999};
  std::vector<std::string> evalSamples = firstSamples(samples, 10);
  double bestCos = -2;
  CalibrationMethod bestMethod = CalibrationMethod::Kld;
  for (CalibrationMethod m : candidates) {
    Thresholds th = cal.thresholds(m);
    if (tunable(m) && !tune.empty()) TK_RETURN_IF_ERROR(autoTune(o, fn, tune, cal.stats(), th));
    auto cos = fakeQuantSimilarity(o, fn, evalSamples, th);
    if (!cos) return cos.status();
    note(o,
         "search threshold: " + calibrationMethodName(m) + (tunable(m) && !tune.empty() ? "+tune" : "") +
             ": output cosine " + std::to_string(*cos));
    if (*cos > bestCos) bestCos = *cos, bestMethod = m, best = std::move(th);
  }
  return bestMethod;
}

}  // namespace

Result<CalibrationTable> calibrate(const CalibrateOptions& o) {
  TK_RETURN_IF_ERROR(checkOptions(o));
  ir::Function* fn = o.module->function(o.function);
  if (!fn) return Status::invalid("no function '" + o.function + "' in the model");
  std::vector<std::string> samples = o.inputNum > 0 ? firstSamples(o.samples, o.inputNum) : o.samples;
  if (samples.empty()) return Status::invalid("the dataset holds no calibration sample");

  if (o.weightEqualization) {
    auto pairs = equalizeWeights(*fn);
    if (!pairs) return pairs.status();
    note(o, "weight equalization: " + std::to_string(*pairs) + " conv pair(s) equalized");
  }
  if (o.activationEqualization) {
    auto eq = equalizeActivations(o, *fn, samples);
    if (!eq) return eq.status();
    note(o,
         "activation equalization: " + std::to_string(eq->pairs) + " conv pair(s) equalized, " +
             std::to_string(eq->residualGroups) + " residual stream(s)");
  }
  Calibrator cal(o, *fn);
  bool histograms = o.method != CalibrationMethod::MinMax || o.searchThreshold;
  TK_RETURN_IF_ERROR(cal.collect(samples, histograms));
  if (cal.stats().tensors.empty()) return Status::invalid("the model has no floating-point tensor to calibrate");

  std::vector<std::string> tune = firstSamples(samples, o.tuneNum);
  CalibrationMethod method = o.method;
  Thresholds thresholds;
  bool tuned = false;
  if (o.searchThreshold) {
    auto m = searchMethod(o, *fn, cal, samples, tune, thresholds);
    if (!m) return m.status();
    method = *m;
    tuned = tunable(method) && !tune.empty();
  } else {
    thresholds = cal.thresholds(method);
    if (tunable(method) && !tune.empty()) {
      TK_RETURN_IF_ERROR(autoTune(o, *fn, tune, cal.stats(), thresholds));
      tuned = true;
    }
  }
  if (o.biasCorrection) {
    auto n = correctBiases(o, *fn, firstSamples(samples, 30), thresholds);
    if (!n) return n.status();
    note(o, "bias correction: " + std::to_string(*n) + " bias(es) corrected");
  }

  CalibrationTable table;
  table.setHeader("generated time", nowString());
  table.setHeader("histogram number", std::to_string(o.histogramBins));
  table.setHeader("sample number", std::to_string(samples.size()));
  table.setHeader("tune number", std::to_string(tuned ? tune.size() : 0));
  table.setHeader("method", calibrationMethodName(method) + (tuned ? "+tune" : ""));
  table.setHeader("generated by", "tosakit calibrate");
  for (const auto& s : cal.stats().tensors) {
    if (s.range.count == 0) continue;
    table.entries.push_back({s.name, thresholds.at(s.name), s.range.min, s.range.max});
  }
  return table;
}

}  // namespace tosakit
