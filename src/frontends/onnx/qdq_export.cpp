// ONNX QDQ export of a tosakit-calibrated float model (include/tosakit/qdq_export.h; docs/ONNX.md "Exporting
// QDQ models").
//
// The calibration table names tensors of the TOSA function `tosakit import` makes of the model (op locations as
// `run --dump-intermediates` names them). So the model is imported once more with the same options, and each
// ONNX value is mapped to the name of the TOSA value it became. Then every float activation gets its int8
// parameters by the rules of `tosakit quantize` (src/quantize/quantize.cpp: actParams, resultParams, the ops
// that keep their input's parameters, feedsOnlyFloatOutputs) and a QuantizeLinear -> DequantizeLinear pair
// after its producer (uint8 with the zero point 128 higher: see addQdq); constant conv/matmul weights become int8 initializers per output channel and biases
// int32, each behind a DequantizeLinear. The graph is otherwise unchanged.
#include <onnx/checker.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "core/file_io.h"
#include "frontends/onnx/importer.h"
#include "frontends/onnx/onnx_internal.h"
#include "tosakit/qdq_export.h"

namespace tosakit::onnx {

namespace {

using ::onnx::GraphProto;
using ::onnx::ModelProto;
using ::onnx::TensorProto;

struct QParams {
  double scale = 1;
  int64_t zp = 0;
};

// Ops whose int8 result keeps its input's scale and zero point in `tosakit quantize` (data movement, max and
// average pools, a clamp on the input's grid): the QuantizeLinear after them repeats the input's parameters,
// which is also the pair ONNX Runtime drops.
const std::set<std::string> kSameParams = {
    "MaxPool",  "Reshape", "Flatten", "Transpose",   "Squeeze",           "Unsqueeze", "Slice",
    "Identity", "Relu",    "Clip",    "AveragePool", "GlobalAveragePool", "Pad"};
// Ops that requantize their result (quantize's resultParams): a sole Relu consumer puts it on the Relu's grid.
const std::set<std::string> kRequantizing = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul"};
// Ops with a constant weight that quantize makes int8 per output channel.
const std::set<std::string> kWeighted = {"Conv", "ConvTranspose", "Gemm", "MatMul"};
// Data movement between a network's last layer and its outputs, kept float (quantize's kOutputMovement).
const std::set<std::string> kOutputMovement = {"Reshape",  "Transpose", "Concat",  "Slice",
                                               "Identity", "Flatten",   "Squeeze", "Unsqueeze"};
const std::set<std::string> kQuantizedOps = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear",
                                             "QLinearConv",    "QLinearMatMul",    "ConvInteger",
                                             "MatMulInteger"};

// The names Session captures and calibration tables use for each result of `fn` (intermediateName in
// src/session/session.cpp, calibrationTensorNames in src/quantize): the op's location, ":i" for result i > 0,
// "#n" for the n-th repeat, arguments by inputName. Restated here because this library sits below both; a
// drift shows as table entries the export cannot find (an error naming them), never as wrong parameters.
std::map<const ir::Value*, std::string> calibrationNames(const ir::Function& fn) {
  std::map<const ir::Value*, std::string> names;
  for (size_t i = 0; i < fn.inputs().size(); ++i) names[fn.inputs()[i]] = fn.inputName(i);
  std::map<std::string, int> used;
  std::function<void(const ir::Block&)> walk = [&](const ir::Block& block) {
    for (const auto& op : block.ops) {
      for (const auto& region : op->regions)
        for (const auto& b : region->blocks) walk(*b);
      if (op->name == "tosa.const" || op->name == "tosa.const_shape" || op->name == "func.return" ||
          op->name == "tosa.yield")
        continue;
      for (size_t i = 0; i < op->results.size(); ++i) {
        std::string base = !op->loc.name.empty()
            ? op->loc.name
            : op->name.substr(op->name.find('.') + 1) + "_" + std::to_string(op->results[0]->id);
        std::string name = i == 0 ? base : base + ":" + std::to_string(i);
        if (int n = ++used[name]; n > 1) name += "#" + std::to_string(n);
        names[op->results[i]] = name;
      }
    }
  };
  walk(fn.body);
  return names;
}

TensorProto makeTensor(const std::string& name, int32_t type, const std::vector<int64_t>& dims, std::string raw) {
  TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::move(raw));
  return t;
}

template <typename T>
std::string rawBytes(const std::vector<T>& values) {
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());  // ONNX raw data is little-endian, as x86
  return raw;
}

// Round half away from zero and saturate, as quantize's roundClamp does for weights and biases.
int64_t roundClamp(double v, int64_t lo, int64_t hi) {
  if (std::isnan(v)) return std::clamp<int64_t>(0, lo, hi);
  const double r = std::round(v);
  return r < double(lo) ? lo : r > double(hi) ? hi : int64_t(r);
}

class QdqExporter {
 public:
  QdqExporter(ModelProto& model, const std::string& file, const CalibrationTable& table, const QdqExportOptions& opt)
      : model_(model), g_(*model.mutable_graph()), file_(file), opt_(opt) {
    for (const auto& e : table.entries) table_[e.name] = &e;
  }

  Result<std::string> run() {
    TK_RETURN_IF_ERROR(checkModel());
    TK_RETURN_IF_ERROR(mapCalibrationNames());
    indexGraph();
    TK_RETURN_IF_ERROR(chooseParameters());
    TK_RETURN_IF_ERROR(rewrite());
    try {
      ::onnx::checker::check_model(model_);
    } catch (const std::exception& e) {
      return Status::internal(file_ + ": export-qdq wrote a model the ONNX checker refuses: " + e.what());
    }
    return model_.SerializeAsString();
  }

 private:
  Status checkModel() const {
    int opset = 0;
    for (const auto& o : model_.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") opset = int(o.version());
    if (opset < 13)
      return Status::unsupported(file_ + ": opset " + std::to_string(opset) +
                                 ": QDQ export needs opset 13 or later (per-channel DequantizeLinear)");
    for (const auto& n : g_.node())
      if (n.domain().empty() && kQuantizedOps.count(n.op_type()))
        return Status::invalid(file_ + ": node '" + (n.name().empty() ? n.output(0) : n.name()) + "' (" + n.op_type() +
                               "): the model is quantized already; export-qdq takes the float model");
    return Status::ok();
  }

  // ONNX value -> calibration name, and which ONNX values are float run-time tensors.
  Status mapCalibrationNames() {
    OnnxImportOptions io = opt_.import;
    io.validateLevel = false;
    io.qdqIntegerIo = false;
    Importer imp(model_, file_, io);
    auto module = imp.run();
    if (!module) return module.status();
    const ir::Function* fn = (*module)->function(io.functionName);
    if (!fn) return Status::internal(file_ + ": the import has no function '" + io.functionName + "'");
    auto names = calibrationNames(*fn);
    for (const auto& [value, v] : imp.vals) {
      if (v.isConst() || v.isSequence() || v.poisoned || v.dtype != DType::FP32) continue;
      for (const ir::Value* tv : {v.plain, v.nhwc}) {
        auto it = tv ? names.find(tv) : names.end();
        if (it == names.end()) continue;
        calibName_[value] = it->second;
        if (table_.count(it->second)) break;
      }
    }
    return Status::ok();
  }

  void indexGraph() {
    for (const auto& t : g_.initializer()) initializers_[t.name()] = &t;
    for (const auto& o : g_.output()) graphOutputs_.insert(o.name());
    for (const auto& n : g_.node())
      for (const auto& i : n.input())
        if (!i.empty()) consumers_[i].push_back(&n);
  }

  bool isActivation(const std::string& value) const { return calibName_.count(value) > 0; }

  Result<QParams> ownParams(const std::string& value) const {
    const std::string& name = calibName_.at(value);
    auto it = table_.find(name);
    if (it == table_.end())
      return Status::invalid(
          (opt_.calibrationTableSource.empty() ? std::string("calibration table") : opt_.calibrationTableSource) +
          ": lacks tensor '" + name + "' (ONNX value '" + value + "' of " + file_ +
          "); calibrate the model `tosakit import` makes of this file");
    // Symmetric INT8 as quantize's actParams: threshold / 127, or the unsigned grid (threshold / 255, zero point
    // -128) for a tensor calibration saw non-negative.
    const CalibrationEntry& e = *it->second;
    double t = e.threshold > 0 ? e.threshold : std::max(std::fabs(e.min), std::fabs(e.max));
    if (!(t > 0)) t = 1e-6;
    if (e.min >= 0) return QParams{t / 255.0, -128};
    return QParams{t / 127.0, 0};
  }

  // A Relu, or a Clip from 0 to a positive maximum (quantize's ReLU/ReLU6 test).
  bool isRelu(const NodeProto& n) const {
    if (!n.domain().empty()) return false;
    if (n.op_type() == "Relu") return true;
    if (n.op_type() != "Clip" || n.input_size() < 2 || n.input(1).empty()) return false;
    auto lo = constScalar(n.input(1));
    if (!lo || *lo != 0.0) return false;
    if (n.input_size() < 3 || n.input(2).empty()) return true;
    auto hi = constScalar(n.input(2));
    return hi && *hi > 0;
  }

  std::optional<double> constScalar(const std::string& name) const {
    auto it = initializers_.find(name);
    if (it == initializers_.end()) return std::nullopt;
    auto t = tensorFromProto(*it->second, name);
    if (!t || t->size() != 1) return std::nullopt;
    return t->getFloat(0);
  }

  const NodeProto* soleRelu(const std::string& value) const {
    auto it = consumers_.find(value);
    if (it == consumers_.end() || it->second.size() != 1 || graphOutputs_.count(value)) return nullptr;
    return isRelu(*it->second[0]) ? it->second[0] : nullptr;
  }

  // quantize's feedsOnlyFloatOutputs: the value reaches only graph outputs, through data movement or the
  // addition of a constant.
  bool feedsOnlyOutputs(const std::string& value) {
    if (auto it = outputOnly_.find(value); it != outputOnly_.end()) return it->second;
    outputOnly_[value] = false;
    auto it = consumers_.find(value);
    bool only = graphOutputs_.count(value) || (it != consumers_.end() && !it->second.empty());
    for (size_t i = 0; only && it != consumers_.end() && i < it->second.size(); ++i) {
      const NodeProto& c = *it->second[i];
      const bool constAdd = (c.op_type() == "Add" || c.op_type() == "Sub") && c.input_size() == 2 &&
          (initializers_.count(c.input(0)) || initializers_.count(c.input(1)));
      only = c.domain().empty() && (kOutputMovement.count(c.op_type()) || constAdd) && c.output_size() >= 1 &&
          feedsOnlyOutputs(c.output(0));
    }
    return outputOnly_[value] = only;
  }

  void markFloatTail(const std::string& value) {
    auto it = consumers_.find(value);
    if (it == consumers_.end()) return;
    for (const NodeProto* c : it->second)
      if (c->output_size() >= 1 && floatTail_.insert(c->output(0)).second) markFloatTail(c->output(0));
  }

  Status chooseParameters() {
    for (const auto& in : g_.input()) {
      if (initializers_.count(in.name()) || !isActivation(in.name())) continue;
      auto p = ownParams(in.name());
      if (!p) return p.status();
      params_[in.name()] = *p;
    }
    for (const auto& n : g_.node()) {
      if (n.output_size() < 1 || !isActivation(n.output(0)) || floatTail_.count(n.output(0))) continue;
      const std::string& y = n.output(0);
      const std::string& op = n.op_type();
      if (kWeighted.count(op) && feedsOnlyOutputs(y)) {
        markFloatTail(y);  // the accumulator, dequantized, is the output (quantize's setFloatFromAccumulator)
        continue;
      }
      if (kRequantizing.count(op) && soleRelu(y)) {
        fusedRelus_.insert(soleRelu(y));  // quantized once, after the Relu, on its grid
        continue;
      }
      if (fusedRelus_.count(&n)) {
        auto p = ownParams(y);
        if (!p) return p.status();
        if (p->zp == 0) *p = QParams{p->scale * 127.0 / 255.0, -128};
        params_[y] = *p;
        continue;
      }
      const bool nearestResize = op == "Resize" && attrString(n, "mode", "nearest") == "nearest";
      if (n.domain().empty() && (kSameParams.count(op) || nearestResize) && n.input_size() >= 1) {
        auto in = params_.find(n.input(0));
        if (in != params_.end()) params_[y] = in->second;
        continue;  // a float input (the tail of the graph) keeps the op float
      }
      auto p = ownParams(y);
      if (!p) return p.status();
      params_[y] = *p;
    }
    return Status::ok();
  }

  static std::string attrString(const NodeProto& n, const std::string& name, const std::string& def) {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.s();
    return def;
  }
  static int64_t attrInt(const NodeProto& n, const std::string& name, int64_t def) {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.i();
    return def;
  }
  static float attrFloat(const NodeProto& n, const std::string& name, float def) {
    for (const auto& a : n.attribute())
      if (a.name() == name) return a.f();
    return def;
  }

  // ---- graph rewriting ----
  // value -> QuantizeLinear -> DequantizeLinear -> `out`, parameters as initializers: scale float32, zero point
  // uint8, the int8 zero point + 128 (the same steps; tosakit's import carries uint8 as int8 u - 128 again).
  // uint8 because ONNX Runtime's int8-activation (s8s8) kernels are not exact on every CPU: on this project's
  // AVX-512 VNNI machine they gave one conv output in 100352 one step off resnet18's exact result, where the
  // uint8 (u8s8) kernels agree with the exact integer result everywhere (docs/ONNX.md "Exporting QDQ models").
  void addQdq(const std::string& value, const std::string& out, const QParams& p) {
    const std::string scale = out + "_tk_scale", zp = out + "_tk_zero_point", q = out + "_tk_quantized";
    newInitializers_.push_back(makeTensor(scale, TensorProto::FLOAT, {}, rawBytes(std::vector<float>{float(p.scale)})));
    newInitializers_.push_back(
        makeTensor(zp, TensorProto::UINT8, {}, rawBytes(std::vector<uint8_t>{uint8_t(p.zp + 128)})));
    addNode("QuantizeLinear", {value, scale, zp}, q, out + "_QuantizeLinear", -1);
    addNode("DequantizeLinear", {q, scale, zp}, out, out + "_DequantizeLinear", -1);
  }

  void addNode(const std::string& op, const std::vector<std::string>& inputs, const std::string& output,
               const std::string& name, int64_t axis) {
    NodeProto* n = g_.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    n->add_output(output);
    if (axis >= 0) {
      auto* a = n->add_attribute();
      a->set_name("axis");
      a->set_type(::onnx::AttributeProto::INT);
      a->set_i(axis);
    }
  }

  struct WeightSpec {
    int weightInput = 1, biasInput = -1;
    int64_t axis = 0;  // the weight's output-channel axis
  };

  // Where a node's constant weight and bias are, or nullopt when quantize would not make them int8 the way the
  // QDQ fold takes them (the node then runs float between its activations' Q/DQ pairs).
  std::optional<WeightSpec> weightSpec(const NodeProto& n) const {
    const std::string& op = n.op_type();
    if (!n.domain().empty() || !kWeighted.count(op) || n.input_size() < 2 || !initializers_.count(n.input(1)))
      return std::nullopt;
    const TensorProto& w = *initializers_.at(n.input(1));
    WeightSpec s;
    if (op == "Conv" || op == "ConvTranspose") {
      if (op == "ConvTranspose" && attrInt(n, "group", 1) != 1) return std::nullopt;
      s.axis = op == "Conv" ? 0 : 1;
      s.biasInput = 2;
    } else if (op == "Gemm") {
      if (attrInt(n, "transA", 0) != 0 || attrFloat(n, "alpha", 1) != 1 || attrFloat(n, "beta", 1) != 1)
        return std::nullopt;
      s.axis = attrInt(n, "transB", 0) ? 0 : 1;
      s.biasInput = 2;
    } else {
      s.axis = 1;  // MatMul by a constant [K, N]
    }
    if (w.dims_size() < 2 || (op != "Conv" && op != "ConvTranspose" && w.dims_size() != 2)) return std::nullopt;
    if (s.biasInput >= 0 && n.input_size() > s.biasInput && !n.input(s.biasInput).empty()) {
      auto b = initializers_.find(n.input(s.biasInput));
      if (b == initializers_.end() || b->second->dims_size() != 1 || b->second->dims(0) != w.dims(int(s.axis)))
        return std::nullopt;
    }
    return s;
  }

  // The int8 weight (per output channel: quantize's weightScales, fitBiasInAccumulator, quantizeWeights) and
  // int32 bias of node n, each behind a DequantizeLinear; replaces the node's inputs.
  Status quantizeWeights(NodeProto& n, const WeightSpec& s, const QParams& x) {
    const std::string key = n.output(0);
    auto w = tensorFromProto(*initializers_.at(n.input(s.weightInput)), n.input(s.weightInput));
    if (!w) return w.status().withContext(file_);
    const Shape& dims = w->shape();
    const int64_t channels = dims[size_t(s.axis)];
    int64_t inner = 1;
    for (size_t d = size_t(s.axis) + 1; d < dims.size(); ++d) inner *= dims[d];
    auto channelOf = [&](int64_t i) { return (i / inner) % channels; };
    std::vector<double> ws(static_cast<size_t>(channels), 0.0);
    for (int64_t i = 0; i < w->size(); ++i)
      ws[size_t(channelOf(i))] = std::max(ws[size_t(channelOf(i))], std::fabs(w->getFloat(i)));
    for (double& r : ws) r = (r > 0 ? r : 1.0) / 127.0;
    if (opt_.perTensor) std::fill(ws.begin(), ws.end(), *std::max_element(ws.begin(), ws.end()));
    std::optional<Tensor> bias;
    const bool hasBias = s.biasInput >= 0 && n.input_size() > s.biasInput && !n.input(s.biasInput).empty();
    if (hasBias) {
      auto b = tensorFromProto(*initializers_.at(n.input(s.biasInput)), n.input(s.biasInput));
      if (!b) return b.status().withContext(file_);
      bias = std::move(*b);
      // The bias in accumulator units must leave room for the products (quantize's fitBiasInAccumulator).
      for (size_t c = 0; c < ws.size(); ++c)
        ws[c] = std::max(ws[c], std::fabs(bias->getFloat(int64_t(c))) / (x.scale * double(int64_t(1) << 30)));
      if (opt_.perTensor) std::fill(ws.begin(), ws.end(), *std::max_element(ws.begin(), ws.end()));
    }
    std::vector<int8_t> wq(static_cast<size_t>(w->size()));
    for (int64_t i = 0; i < w->size(); ++i)
      wq[size_t(i)] = int8_t(roundClamp(w->getFloat(i) / ws[size_t(channelOf(i))], -127, 127));
    const bool perChannel = !opt_.perTensor && channels > 1;
    std::vector<float> wScale;
    for (double v : ws) wScale.push_back(float(v));
    if (!perChannel) wScale.resize(1);
    const std::vector<int64_t> paramDims = perChannel ? std::vector<int64_t>{channels} : std::vector<int64_t>{};
    const std::string wName = key + "_tk_weight";
    newInitializers_.push_back(makeTensor(wName + "_int8", TensorProto::INT8, dims, rawBytes(wq)));
    newInitializers_.push_back(makeTensor(wName + "_scale", TensorProto::FLOAT, paramDims, rawBytes(wScale)));
    newInitializers_.push_back(makeTensor(wName + "_zero_point", TensorProto::INT8, paramDims,
                                          rawBytes(std::vector<int8_t>(wScale.size(), 0))));
    addNode("DequantizeLinear", {wName + "_int8", wName + "_scale", wName + "_zero_point"}, wName,
            wName + "_DequantizeLinear", perChannel ? s.axis : -1);
    replaced_.insert(n.input(s.weightInput));
    n.set_input(s.weightInput, wName);
    if (!bias) return Status::ok();
    const int64_t accLim = (int64_t(1) << 31) - 1;
    std::vector<int32_t> bq(static_cast<size_t>(channels));
    std::vector<float> bScale(static_cast<size_t>(channels));
    for (int64_t c = 0; c < channels; ++c) {
      const double sc = x.scale * ws[size_t(c)];
      bq[size_t(c)] = int32_t(roundClamp(bias->getFloat(c) / sc, -accLim, accLim));
      bScale[size_t(c)] = float(sc);
    }
    const std::string bName = key + "_tk_bias";
    newInitializers_.push_back(makeTensor(bName + "_int32", TensorProto::INT32, {channels}, rawBytes(bq)));
    newInitializers_.push_back(makeTensor(bName + "_scale", TensorProto::FLOAT, {channels}, rawBytes(bScale)));
    newInitializers_.push_back(makeTensor(bName + "_zero_point", TensorProto::INT32, {channels},
                                          rawBytes(std::vector<int32_t>(size_t(channels), 0))));
    addNode("DequantizeLinear", {bName + "_int32", bName + "_scale", bName + "_zero_point"}, bName,
            bName + "_DequantizeLinear", 0);
    replaced_.insert(n.input(s.biasInput));
    n.set_input(s.biasInput, bName);
    return Status::ok();
  }

  Status rewrite() {
    std::vector<NodeProto> nodes(g_.node().begin(), g_.node().end());
    g_.clear_node();
    std::map<std::string, std::string> renamed;  // quantized graph inputs -> their DequantizeLinear output
    for (const auto& in : g_.input()) {
      auto p = params_.find(in.name());
      if (p == params_.end()) continue;
      renamed[in.name()] = in.name() + "_tk_dequantized";
      addQdq(in.name(), renamed[in.name()], p->second);
    }
    for (NodeProto n : nodes) {
      auto x = n.input_size() > 0 ? params_.find(n.input(0)) : params_.end();
      for (int i = 0; i < n.input_size(); ++i)
        if (auto r = renamed.find(n.input(i)); r != renamed.end()) n.set_input(i, r->second);
      auto spec = weightSpec(n);
      if (spec && x != params_.end()) TK_RETURN_IF_ERROR(quantizeWeights(n, *spec, x->second));
      auto y = n.output_size() > 0 ? params_.find(n.output(0)) : params_.end();
      if (y == params_.end()) {
        *g_.add_node() = std::move(n);
        continue;
      }
      const std::string out = n.output(0), pre = out + "_tk_float";
      n.set_output(0, pre);
      *g_.add_node() = std::move(n);
      addQdq(pre, out, y->second);
    }
    dropReplacedInitializers();
    for (auto& t : newInitializers_) *g_.add_initializer() = std::move(t);
    return Status::ok();
  }

  // Float weights nothing reads any more (a graph input of the same name keeps its initializer as default).
  void dropReplacedInitializers() {
    std::set<std::string> read, inputs;
    for (const auto& n : g_.node())
      for (const auto& i : n.input()) read.insert(i);
    for (const auto& o : g_.output()) read.insert(o.name());
    for (const auto& i : g_.input()) inputs.insert(i.name());
    auto* inits = g_.mutable_initializer();
    for (int i = inits->size() - 1; i >= 0; --i) {
      const std::string& name = inits->Get(i).name();
      if (replaced_.count(name) && !read.count(name) && !inputs.count(name)) inits->DeleteSubrange(i, 1);
    }
  }

  ModelProto& model_;
  GraphProto& g_;
  std::string file_;
  const QdqExportOptions& opt_;
  std::map<std::string, const CalibrationEntry*> table_;
  std::map<std::string, std::string> calibName_;  // float run-time ONNX value -> calibration table name
  std::map<std::string, const TensorProto*> initializers_;
  std::set<std::string> graphOutputs_;
  std::map<std::string, std::vector<const NodeProto*>> consumers_;
  std::map<std::string, bool> outputOnly_;
  std::set<std::string> floatTail_;
  std::set<const NodeProto*> fusedRelus_;
  std::map<std::string, QParams> params_;  // quantized ONNX values
  std::set<std::string> replaced_;         // float weight/bias initializers now quantized
  std::vector<TensorProto> newInitializers_;
};

}  // namespace

Result<std::string> exportQdqBytes(const std::string& modelPath, const CalibrationTable& table,
                                   const QdqExportOptions& options) {
  auto bytes = readFileBytes(modelPath);
  if (!bytes) return bytes.status();
  auto model = parseModel(*bytes, modelPath, options.import);
  if (!model) return model.status();
  QdqExporter exporter(*model, modelPath, table, options);
  return exporter.run();
}

Status exportQdq(const std::string& modelPath, const CalibrationTable& table, const std::string& outPath,
                 const QdqExportOptions& options) {
  auto bytes = exportQdqBytes(modelPath, table, options);
  if (!bytes) return bytes.status();
  return writeFileAtomic(outPath, *bytes);
}

}  // namespace tosakit::onnx
