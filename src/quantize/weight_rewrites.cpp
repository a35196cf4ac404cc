// Float weight rewrites of calibration: cross-layer weight equalization (7.5.1) and bias correction (7.5.2),
// both after Nagel et al., "Data-Free Quantization Through Weight Equalization and Bias Correction".
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "ir/module_clone.h"
#include "quantize/calibrate_internal.h"

namespace tosakit::quantize {

namespace {

std::map<const ir::Value*, int> useCounts(const ir::Function& fn) {
  std::map<const ir::Value*, int> uses;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const auto& op : b.ops) {
      for (const ir::Value* v : op->operands) ++uses[v];
      for (const auto& r : op->regions)
        for (const auto& blk : r->blocks) walk(*blk);
    }
  };
  walk(fn.body);
  return uses;
}

const ir::Operation* soleUser(const ir::Function& fn, const ir::Value* v) {
  for (const auto& op : fn.body.ops)
    for (const ir::Value* o : op->operands)
      if (o == v) return op.get();
  return nullptr;
}

// The float weight tensor of a single-use tosa.const operand, or null.
ir::Operation* ownConst(ir::Value* v, const std::map<const ir::Value*, int>& uses) {
  auto* c = const_cast<ir::Operation*>(constProducer(v));
  if (!c || c->name != "tosa.const" || uses.at(v) != 1) return nullptr;
  const ir::Attribute* a = c->attr("values");
  return a && a->tensor && isFloat(a->tensor->dtype()) ? c : nullptr;
}

Tensor& mutableValues(ir::Operation& c, Tensor& scratch) {
  scratch = *c.attr("values")->tensor;
  return scratch;
}

bool isRelu(const ir::Operation& op) {
  if (op.name != "tosa.clamp") return false;
  const ir::Attribute* lo = op.attr("min_val");
  const ir::Attribute* hi = op.attr("max_val");
  return lo && hi && lo->kind == ir::Attribute::Kind::Float && lo->f == 0 && hi->kind == ir::Attribute::Kind::Float &&
      hi->f >= std::numeric_limits<float>::max();
}

bool isConvLike(const ir::Operation& op) { return op.name == "tosa.conv2d" || op.name == "tosa.depthwise_conv2d"; }

// Input channel of weight element i of the second conv (conv2d [OC,KH,KW,IC]: last axis; depthwise with
// multiplier 1 [KH,KW,C,1]: C), or -1 when the layout does not pair channels one to one.
int64_t inputChannel(const Tensor& w, const std::string& opName, int64_t i) {
  if (opName == "tosa.conv2d") return i % w.shape()[3];
  if (opName == "tosa.depthwise_conv2d" && w.shape()[3] == 1) return (i / w.shape()[3]) % w.shape()[2];
  return -1;
}

// Equalizes one conv1 -> [relu] -> conv2 pair: s_c = sqrt(r1_c / r2_c), W1[c] /= s_c, b1[c] /= s_c,
// W2[.., c] *= s_c, so both ranges become sqrt(r1_c r2_c) and the function is unchanged (ReLU is
// positively homogeneous).
bool equalizePair(ir::Operation& conv1, ir::Operation& conv2, const std::map<const ir::Value*, int>& uses) {
  ir::Operation* w1c = ownConst(conv1.operands[1], uses);
  ir::Operation* b1c = conv1.operands.size() > 2 ? ownConst(conv1.operands[2], uses) : nullptr;
  ir::Operation* w2c = ownConst(conv2.operands[1], uses);
  if (!w1c || !b1c || !w2c) return false;
  Tensor w1s, b1s, w2s;
  Tensor &w1 = mutableValues(*w1c, w1s), &b1 = mutableValues(*b1c, b1s), &w2 = mutableValues(*w2c, w2s);
  if (w2.rank() != 4 || w1.size() == 0) return false;
  int64_t channels = weightOutputChannels(w1, conv1.name);
  if (inputChannel(w2, conv2.name, 0) < 0 || b1.size() != channels) return false;
  int64_t c2 = conv2.name == "tosa.conv2d" ? w2.shape()[3] : w2.shape()[2];
  if (c2 != channels) return false;
  std::vector<double> r1(size_t(channels), 0.0), r2(size_t(channels), 0.0), s(size_t(channels), 1.0);
  for (int64_t i = 0; i < w1.size(); ++i) {
    double& r = r1[size_t(weightOutputChannel(w1, conv1.name, i))];
    r = std::max(r, std::fabs(w1.getFloat(i)));
  }
  for (int64_t i = 0; i < w2.size(); ++i) {
    double& r = r2[size_t(inputChannel(w2, conv2.name, i))];
    r = std::max(r, std::fabs(w2.getFloat(i)));
  }
  for (size_t c = 0; c < s.size(); ++c)
    if (r1[c] > 0 && r2[c] > 0) s[c] = std::sqrt(r1[c] / r2[c]);
  for (int64_t i = 0; i < w1.size(); ++i)
    w1.setFloat(i, w1.getFloat(i) / s[size_t(weightOutputChannel(w1, conv1.name, i))]);
  for (int64_t c = 0; c < channels; ++c) b1.setFloat(c, b1.getFloat(c) / s[size_t(c)]);
  for (int64_t i = 0; i < w2.size(); ++i) w2.setFloat(i, w2.getFloat(i) * s[size_t(inputChannel(w2, conv2.name, i))]);
  w1c->attrs["values"] = ir::Attribute::dense(std::move(w1));
  b1c->attrs["values"] = ir::Attribute::dense(std::move(b1));
  w2c->attrs["values"] = ir::Attribute::dense(std::move(w2));
  return true;
}

// A bounded ReLU (ReLU6, ReLU1): clamp from 0 to a finite maximum, which scaling a channel moves.
double boundedReluMax(const ir::Operation& op) {
  if (op.name != "tosa.clamp") return -1;
  const ir::Attribute* lo = op.attr("min_val");
  const ir::Attribute* hi = op.attr("max_val");
  if (!lo || !hi || lo->kind != ir::Attribute::Kind::Float || hi->kind != ir::Attribute::Kind::Float) return -1;
  return lo->f == 0 && hi->f > 0 && hi->f < std::numeric_limits<float>::max() ? hi->f : -1;
}

// A pad whose pad value is the constant 0: it commutes with scaling a channel.
bool isZeroPad(const ir::Operation& op) {
  if (op.name != "tosa.pad" || op.operands.size() < 3) return false;
  const ir::Operation* c = constProducer(op.operands[2]);
  const ir::Attribute* a = c ? c->attr("values") : nullptr;
  return a && a->tensor && a->tensor->size() == 1 && a->tensor->getFloat(0) == 0.0;
}

// conv1 -> [ReLU or bounded ReLU] -> [zero pad] -> conv2, every link the only use of its value; `middle` is
// the value conv2 reads.
struct ChannelPair {
  ir::Operation* conv1 = nullptr;
  double clampMax = -1;  // the bounded ReLU's maximum, or -1
  const ir::Value* middle = nullptr;
  ir::Operation* conv2 = nullptr;
};

std::vector<ChannelPair> channelPairs(const ir::Function& fn, const std::map<const ir::Value*, int>& uses) {
  auto single = [&](const ir::Value* v) -> const ir::Operation* {
    auto it = uses.find(v);
    return it != uses.end() && it->second == 1 ? soleUser(fn, v) : nullptr;
  };
  std::vector<ChannelPair> pairs;
  for (const auto& op : fn.body.ops) {
    if (!isConvLike(*op) || op->results.size() != 1) continue;
    ChannelPair p{op.get(), -1, op->results[0], nullptr};
    const ir::Operation* next = single(p.middle);
    if (next && (isRelu(*next) || boundedReluMax(*next) > 0)) {
      p.clampMax = boundedReluMax(*next);
      p.middle = next->results[0];
      next = single(p.middle);
    }
    if (next && isZeroPad(*next) && next->operands[0] == p.middle) {
      p.middle = next->results[0];
      next = single(p.middle);
    }
    if (!next || !isConvLike(*next) || next->operands.empty() || next->operands[0] != p.middle) continue;
    p.conv2 = const_cast<ir::Operation*>(next);
    pairs.push_back(p);
  }
  return pairs;
}

// Activation-aware scales for one pair (a[c]: the largest |value| of channel c of the middle tensor on the
// calibration samples, A: the largest over channels). A depthwise conv2 quantizes its weights per input
// channel, so only the activation's per-tensor grid matters: every channel is scaled to A. A conv2d
// balances activation and weight ranges, a[c]/s = k r2[c] s, with k making the largest scaled range A.
// A channel of a bounded ReLU that reached its maximum stays as it is (scaling would move the bound); the
// others end at most at A <= the bound, so the clamp keeps clipping nothing the samples produced (beyond
// them, a channel is clipped at its calibrated maximum, as a calibration threshold clips).
std::vector<double> activationScales(const ChannelPair& p, const std::vector<double>& a,
                                     const std::vector<double>& r2) {
  std::vector<double> s(a.size(), 1.0);
  auto scalable = [&](size_t c) {
    return a[c] > 0 && r2[c] > 0 && !(p.clampMax > 0 && a[c] >= p.clampMax * (1 - 1e-6));
  };
  double amax = *std::max_element(a.begin(), a.end());
  if (!(amax > 0)) return s;
  bool depthwise = p.conv2->name == "tosa.depthwise_conv2d";
  double k = 0;
  for (size_t c = 0; c < a.size(); ++c)
    if (scalable(c)) k = std::max(k, std::sqrt(a[c] * r2[c]));
  for (size_t c = 0; c < a.size(); ++c) {
    if (!scalable(c)) continue;
    double sc = depthwise ? a[c] / amax : std::sqrt(a[c] / r2[c]) * k / amax;
    s[c] = std::clamp(sc, 1.0 / 65536, 65536.0);
  }
  return s;
}

// W1[c] /= s_c, b1[c] /= s_c, W2[.., c] *= s_c: channel c of the middle tensor is divided by s_c and conv2's
// output is unchanged.
bool scaleChannels(const ChannelPair& p, const std::vector<double>& s, const std::map<const ir::Value*, int>& uses) {
  ir::Operation* w1c = ownConst(p.conv1->operands[1], uses);
  ir::Operation* b1c = p.conv1->operands.size() > 2 ? ownConst(p.conv1->operands[2], uses) : nullptr;
  ir::Operation* w2c = ownConst(p.conv2->operands[1], uses);
  if (!w1c || !b1c || !w2c) return false;
  Tensor w1 = *w1c->attr("values")->tensor, b1 = *b1c->attr("values")->tensor, w2 = *w2c->attr("values")->tensor;
  int64_t channels = int64_t(s.size());
  if (b1.size() != channels || weightOutputChannels(w1, p.conv1->name) != channels) return false;
  for (int64_t i = 0; i < w1.size(); ++i)
    w1.setFloat(i, w1.getFloat(i) / s[size_t(weightOutputChannel(w1, p.conv1->name, i))]);
  for (int64_t c = 0; c < channels; ++c) b1.setFloat(c, b1.getFloat(c) / s[size_t(c)]);
  for (int64_t i = 0; i < w2.size(); ++i)
    w2.setFloat(i, w2.getFloat(i) * s[size_t(inputChannel(w2, p.conv2->name, i))]);
  w1c->attrs["values"] = ir::Attribute::dense(std::move(w1));
  b1c->attrs["values"] = ir::Attribute::dense(std::move(b1));
  w2c->attrs["values"] = ir::Attribute::dense(std::move(w2));
  return true;
}

// Largest |value| per channel (last axis) of each named tensor over the samples.
Result<std::map<std::string, std::vector<double>>> channelAbsMax(const CalibrateOptions& o, const ir::Function& fn,
                                                                 const std::vector<std::string>& samples,
                                                                 const std::set<std::string>& names) {
  std::map<std::string, std::vector<double>> out;
  auto session = Session::create(ir::cloneModule(*fn.module), o.session);
  if (!session) return session.status();
  for (size_t si = 0; si < samples.size(); ++si) {
    auto tensors = runSample(**session, o, fn, samples[si]);
    if (!tensors) return tensors.status();
    for (const auto& [n, t] : *tensors) {
      if (!names.count(n) || t.rank() == 0) continue;
      int64_t channels = t.shape().back();
      auto& m = out[n];
      m.resize(size_t(channels), 0.0);
      for (int64_t i = 0; i < t.size(); ++i)
        m[size_t(i % channels)] = std::max(m[size_t(i % channels)], std::fabs(t.getFloat(i)));
    }
    if (o.progress) o.progress("activation equalization", si + 1, samples.size());
  }
  return out;
}

// --- Channel groups: tensors that must share one per-channel scale (residual streams) ---------------------
//
// A residual stream (MobileNetV2's linear bottlenecks: conv -> add(conv, skip) -> [1x1 conv, depthwise,
// next add]) has tensors with several consumers, so no conv1 -> conv2 pair may rescale it alone. Scaling
// channel c of every tensor of the stream by the same 1/s_c keeps the function: add/sub, max/avg pooling,
// resize, ReLU (from 0, unbounded) and zero padding commute with a positive per-channel factor, so the
// factor passes through them; the convs that produce the stream absorb it in their output channels
// (W[c] /= s_c, b[c] /= s_c) and the convs that read it in their input channels (W[.., c] *= s_c).

// The operand indices of op that carry a per-channel factor through to its result, or none.
std::vector<size_t> passThroughOperands(const ir::Operation& op) {
  if (op.results.size() != 1) return {};
  const ir::ValueType& rt = op.results[0]->type;
  auto sameShape = [&](size_t i) { return i < op.operands.size() && op.operands[i]->type.dims == rt.dims; };
  if (op.name == "tosa.add" || op.name == "tosa.sub")
    return sameShape(0) && sameShape(1) ? std::vector<size_t>{0, 1} : std::vector<size_t>{};
  bool unary = op.name == "tosa.max_pool2d" || op.name == "tosa.avg_pool2d" || op.name == "tosa.resize" || isRelu(op) ||
      isZeroPad(op);
  if (!unary || op.operands.empty() || op.operands[0]->type.rank() != rt.rank() || rt.rank() == 0) return {};
  return op.operands[0]->type.dims.back() == rt.dims.back() ? std::vector<size_t>{0} : std::vector<size_t>{};
}

// Input channel of element i of a consumer's weights: conv2d [OC,KH,KW,IC], depthwise [KH,KW,C,M].
int64_t consumerInputChannel(const Tensor& w, const std::string& opName, int64_t i) {
  if (opName == "tosa.conv2d") return i % w.shape()[3];
  return (i / w.shape()[3]) % w.shape()[2];
}

struct ChannelGroup {
  std::vector<const ir::Value*> values;
  std::vector<ir::Operation*> producers;  // convs whose output channels absorb 1/s
  std::vector<ir::Operation*> consumers;  // convs whose input channels absorb s
  bool residual = false;                  // holds an add/sub (a conv1 -> conv2 pair otherwise)
};

class ValueSets {
 public:
  const ir::Value* find(const ir::Value* v) {
    auto it = parent_.find(v);
    if (it == parent_.end()) return parent_[v] = v;
    return it->second == v ? v : it->second = find(it->second);
  }
  void join(const ir::Value* a, const ir::Value* b) { parent_[find(a)] = find(b); }

 private:
  std::map<const ir::Value*, const ir::Value*> parent_;
};

// Every group that holds an add/sub and whose tensors are produced and read only by pass-through ops and by
// convs with their own constant weights (and, producers, biases); a tensor the function returns, or one an
// other op reads, leaves its group as it is.
std::vector<ChannelGroup> residualGroups(const ir::Function& fn, const std::map<const ir::Value*, int>& uses) {
  ValueSets sets;
  std::map<const ir::Value*, std::vector<std::pair<ir::Operation*, size_t>>> users;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& b) {
    for (const auto& op : b.ops) {
      for (size_t i = 0; i < op->operands.size(); ++i) users[op->operands[i]].push_back({op.get(), i});
      for (const auto& r : op->regions)
        for (const auto& blk : r->blocks) walk(*blk);
    }
  };
  walk(fn.body);
  std::vector<const ir::Value*> order;
  for (const auto& op : fn.body.ops)
    for (size_t i : passThroughOperands(*op)) {
      sets.join(op->operands[i], op->results[0]);
      order.push_back(op->operands[i]);
      order.push_back(op->results[0]);
    }
  std::map<const ir::Value*, size_t> index;
  std::vector<ChannelGroup> groups;
  std::set<const ir::Value*> seen;
  for (const ir::Value* v : order) {
    if (!seen.insert(v).second) continue;
    auto [it, fresh] = index.emplace(sets.find(v), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].values.push_back(v);
  }
  auto passes = [](const ir::Operation& op, size_t i) {
    auto ops = passThroughOperands(op);
    return std::find(ops.begin(), ops.end(), i) != ops.end();
  };
  auto ownWeights = [&](ir::Operation& op) {
    return isConvLike(op) && op.operands.size() > 1 && ownConst(op.operands[1], uses) &&
        op.operands[1]->type.rank() == 4;
  };
  std::vector<ChannelGroup> valid;
  for (ChannelGroup& g : groups) {
    bool ok = true;
    int64_t channels = -1;
    for (const ir::Value* v : g.values) {
      if (!isFloat(v->type.dtype) || v->type.rank() != 4 || !v->definingOp) ok = false;
      if (!ok) break;
      if (channels < 0) channels = v->type.dims.back();
      ok = v->type.dims.back() == channels;
      ir::Operation* def = v->definingOp;
      if (!passThroughOperands(*def).empty()) {
        g.residual = g.residual || def->name == "tosa.add" || def->name == "tosa.sub";
      } else if (ownWeights(*def) && def->operands.size() > 2 && ownConst(def->operands[2], uses)) {
        g.producers.push_back(def);
      } else {
        ok = false;
      }
      for (auto [op, i] : users[v]) {
        if (!ok) break;
        if (passes(*op, i) && op->parent == &fn.body) continue;
        ok = i == 0 && op->parent == &fn.body && ownWeights(*op);
        if (ok) g.consumers.push_back(op);
      }
    }
    if (ok && g.residual && !g.producers.empty()) valid.push_back(std::move(g));
  }
  return valid;
}

// Scales of one group: every channel of the stream is scaled to the stream's largest range A (a[c]: the
// largest |value| of channel c over the group's tensors on the samples), s_c = a_c / A. Balancing against the
// conv2d consumers' weight ranges, as activationScales does for a pair, did worse on the MediaPipe landmark
// models (docs/QUANTIZATION.md): the stream is read by several convs and by the next add, which all quantize
// it on one per-tensor grid.
std::vector<double> groupScales(const std::vector<double>& a) {
  std::vector<double> s(a.size(), 1.0);
  double amax = *std::max_element(a.begin(), a.end());
  if (!(amax > 0)) return s;
  for (size_t c = 0; c < a.size(); ++c)
    if (a[c] > 0) s[c] = std::clamp(a[c] / amax, 1.0 / 65536, 1.0);
  return s;
}

// Divides channel c of every tensor of the group by s[c].
void scaleGroup(const ChannelGroup& g, const std::vector<double>& s) {
  auto rewrite = [](ir::Operation& op, size_t operand, const std::function<double(int64_t, double)>& f) {
    auto* c = const_cast<ir::Operation*>(constProducer(op.operands[operand]));
    Tensor t = *c->attr("values")->tensor;
    for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, f(i, t.getFloat(i)));
    c->attrs["values"] = ir::Attribute::dense(std::move(t));
  };
  for (ir::Operation* op : g.producers) {
    const Tensor& w = *constProducer(op->operands[1])->attr("values")->tensor;
    rewrite(*op, 1, [&](int64_t i, double x) { return x / s[size_t(weightOutputChannel(w, op->name, i))]; });
    rewrite(*op, 2, [&](int64_t i, double x) { return x / s[size_t(i)]; });
  }
  for (ir::Operation* op : g.consumers) {
    const Tensor& w = *constProducer(op->operands[1])->attr("values")->tensor;
    rewrite(*op, 1, [&](int64_t i, double x) { return x * s[size_t(consumerInputChannel(w, op->name, i))]; });
  }
}

}  // namespace

Result<ActivationEqualization> equalizeActivations(const CalibrateOptions& o, ir::Function& fn,
                                                   const std::vector<std::string>& samples) {
  auto uses = useCounts(fn);
  auto names = topLevelValueNames(fn);
  std::vector<ChannelPair> pairs = channelPairs(fn, uses);
  std::vector<ChannelGroup> groups = residualGroups(fn, uses);
  std::set<std::string> wanted;
  for (const ChannelPair& p : pairs) wanted.insert(names.at(p.middle));
  for (const ChannelGroup& g : groups)
    for (const ir::Value* v : g.values) wanted.insert(names.at(v));
  auto ranges = channelAbsMax(o, fn, samples, wanted);
  if (!ranges) return ranges.status();
  ActivationEqualization done;
  for (const ChannelPair& p : pairs) {
    auto it = ranges->find(names.at(p.middle));
    ir::Operation* w2c = ownConst(p.conv2->operands[1], uses);
    if (it == ranges->end() || !w2c) continue;
    const Tensor& w2 = *w2c->attr("values")->tensor;
    if (w2.rank() != 4 || inputChannel(w2, p.conv2->name, 0) < 0) continue;
    const std::vector<double>& a = it->second;
    std::vector<double> r2(a.size(), 0.0);
    bool fits = true;
    for (int64_t i = 0; i < w2.size() && fits; ++i) {
      size_t c = size_t(inputChannel(w2, p.conv2->name, i));
      fits = c < r2.size();
      if (fits) r2[c] = std::max(r2[c], std::fabs(w2.getFloat(i)));
    }
    if (fits) done.pairs += scaleChannels(p, activationScales(p, a, r2), uses);
  }
  for (const ChannelGroup& g : groups) {
    std::vector<double> a;
    for (const ir::Value* v : g.values) {
      auto it = ranges->find(names.at(v));
      if (it == ranges->end()) continue;
      a.resize(it->second.size(), 0.0);
      for (size_t c = 0; c < a.size() && c < it->second.size(); ++c) a[c] = std::max(a[c], it->second[c]);
    }
    if (a.empty() || int64_t(a.size()) != g.values.front()->type.dims.back()) continue;
    scaleGroup(g, groupScales(a));
    ++done.residualGroups;
  }
  return done;
}

Result<int> equalizeWeights(ir::Function& fn) {
  auto uses = useCounts(fn);
  int pairs = 0;
  for (const auto& op : fn.body.ops) {
    if (!isConvLike(*op) || op->results.size() != 1 || uses[op->results[0]] != 1) continue;
    const ir::Operation* next = soleUser(fn, op->results[0]);
    if (next && isRelu(*next)) next = uses[next->results[0]] == 1 ? soleUser(fn, next->results[0]) : nullptr;
    if (!next || !isConvLike(*next) || next->operands.empty()) continue;
    // conv2 must read the pair's value as its input (operand 0), not as a weight.
    const ir::Value* fed = op->results[0];
    if (next->operands[0] != fed && !(isRelu(*soleUser(fn, fed)) && next->operands[0] == soleUser(fn, fed)->results[0]))
      continue;
    pairs += equalizePair(*op, *const_cast<ir::Operation*>(next), uses);
  }
  return pairs;
}

Result<int> correctBiases(const CalibrateOptions& o, ir::Function& fn, const std::vector<std::string>& samples,
                          const Thresholds& thresholds) {
  auto uses = useCounts(fn);
  auto names = topLevelValueNames(fn);
  struct Target {
    ir::Operation* op;
    ir::Operation* bias;
    std::vector<double> diff;  // sum over samples of the per-channel mean error
  };
  std::vector<Target> targets;
  for (const auto& op : fn.body.ops) {
    bool conv = op->name == "tosa.conv2d" || op->name == "tosa.depthwise_conv2d" || op->name == "tosa.conv3d" ||
        op->name == "tosa.transpose_conv2d";
    if (!conv || op->operands.size() < 3 || !isFloat(op->results[0]->type.dtype)) continue;
    ir::Operation* bias = ownConst(op->operands[2], uses);
    if (bias) targets.push_back({op.get(), bias, std::vector<double>(size_t(bias->attr("values")->tensor->size()), 0)});
  }
  if (targets.empty() || samples.empty()) return 0;
  auto session = Session::create(ir::cloneModule(*fn.module), o.session);
  if (!session) return session.status();
  OpRunner runner(o.session);
  for (size_t si = 0; si < samples.size(); ++si) {
    auto tensors = runSample(**session, o, fn, samples[si]);
    if (!tensors) return tensors.status();
    std::map<std::string, const Tensor*> ref;
    for (auto& [n, t] : *tensors) ref[n] = &t;
    for (Target& tg : targets) {
      std::vector<Tensor> acts, outs;
      for (const ir::Value* v : tg.op->operands) {
        if (constProducer(v)) continue;
        const std::string& n = names.at(v);
        auto th = thresholds.find(n);
        acts.push_back(th == thresholds.end() ? *ref.at(n) : fakeQuantize(*ref.at(n), th->second));
      }
      TK_RETURN_IF_ERROR(runner.runOp(*tg.op, acts, true, outs));
      const Tensor& want = *ref.at(names.at(tg.op->results[0]));
      int64_t channels = int64_t(tg.diff.size()), per = want.size() / std::max<int64_t>(channels, 1);
      std::vector<double> sum(size_t(channels), 0.0);
      for (int64_t i = 0; i < want.size(); ++i) sum[size_t(i % channels)] += want.getFloat(i) - outs[0].getFloat(i);
      for (int64_t c = 0; c < channels; ++c) tg.diff[size_t(c)] += sum[size_t(c)] / double(std::max<int64_t>(per, 1));
    }
    if (o.progress) o.progress("bias correction", si + 1, samples.size());
  }
  for (Target& tg : targets) {
    Tensor b = *tg.bias->attr("values")->tensor;
    for (int64_t c = 0; c < b.size(); ++c) b.setFloat(c, b.getFloat(c) + tg.diff[size_t(c)] / double(samples.size()));
    tg.bias->attrs["values"] = ir::Attribute::dense(std::move(b));
  }
  return int(targets.size());
}

}  // namespace tosakit::quantize
