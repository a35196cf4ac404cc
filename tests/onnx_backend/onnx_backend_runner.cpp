// ONNX backend-test runner: every case of the ONNX backend test data (libonnx-testdata: model.onnx +
// test_data_set_k/{input_i.pb,output_i.pb}, produced by ONNX's reference implementation: an independent
// oracle) is driven through the tosakit CLI exactly as a user runs it and compared with the expected outputs.
// See docs/ONNX.md "Backend test coverage".
//
// Per data set: `tosakit import model.onnx -o m.mlir --bind-inputs bind.npz` binding only the inputs that feed
// a shape- or attribute-determining operand (table kDeterminingOperands), then `tosakit run m.mlir --inputs
// in.npz -o out.npz` with ALL the data set's inputs as stored (no dtype changes: int64, uint8, shape-only
// inputs as ONNX Runtime takes them), and every output compared in its ONNX element type. So the figure is
// the user's figure. Each case runs in a forked child (its own process group): a crash or a hang fails that
// case only (with a per-case timeout).
//
//   onnx_backend_runner [--data-dir DIR] [--skip-list FILE] [--known-failures FILE] [--category C]...
//                       [--filter SUBSTR] [--verbose] [--jobs N] [--timeout SECONDS] [--check-skips]
//                       [--write-known-failures FILE] [--classify] [--self-test] [--min-pass-rate PCT]
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "formats/npy/npy.h"
#include "frontends/onnx/onnx_import.h"
#include "tosakit/session.h"

namespace fs = std::filesystem;
using namespace tosakit;

namespace {

// ---------------------------------------------------------------------------------------------------------
// Shape- or attribute-determining operands: ONNX input indices whose value TOSA needs at compile time
// (TOSA shapes are static and these operands become TOSA attributes or constant operands). Every graph input
// that feeds one of them, through any chain of nodes, is bound at import.
struct DeterminingOperands {
  const char* op;
  std::vector<int> inputs;
  const char* why;
};

const std::vector<DeterminingOperands> kDeterminingOperands = {
    {"Reshape", {1}, "shape: the output shape"},
    {"Resize", {1, 2, 3}, "roi/scales/sizes: the output shape and the TOSA resize scale/offset/border attributes"},
    {"Upsample", {1}, "scales: the output shape"},
    {"Slice", {1, 2, 3, 4}, "starts/ends/axes/steps: the TOSA slice start/size operands and the output shape"},
    {"Pad", {1, 2, 3}, "pads/axes: the output shape; constant_value: TOSA pad_const is a constant operand"},
    {"TopK", {1}, "K: the output shape"},
    {"Range", {0, 1, 2}, "start/limit/delta: the output length (folded to a constant)"},
    {"Tile", {1}, "repeats: the TOSA tile multiples (shape operand) and the output shape"},
    {"Expand", {1}, "shape: the output shape"},
    {"Squeeze", {1}, "axes: the output shape"},
    {"Unsqueeze", {1}, "axes: the output shape"},
    {"Reduce*", {1}, "axes: the TOSA reduce axis attribute and the output shape"},
    {"Split", {1}, "split: the output shapes"},
    {"ConstantOfShape", {0}, "input: the output shape"},
    {"OneHot", {1}, "depth: the output shape"},
    {"CenterCropPad", {1}, "shape: the output shape"},
    {"CumSum", {1}, "axis: the scan axis"},
    {"Clip", {1, 2}, "min/max: TOSA clamp bounds are attributes"},
    {"DeformConv", {1, 3}, "W/B: model parameters, as for Conv"},
    {"Dropout", {1, 2}, "ratio/training_mode: select the (inference) behaviour"},
    {"MaxUnpool", {2}, "output_shape: the output shape"},
    {"Loop", {0, 1}, "M/cond: the iteration count, hence the shapes of the scan outputs"},
    {"Col2Im", {1, 2}, "image_shape/block_shape: the output shape"},
    {"AffineGrid", {1}, "size: the output shape"},
    {"BlackmanWindow", {0}, "size: the output shape"},
    {"HannWindow", {0}, "size: the output shape"},
    {"HammingWindow", {0}, "size: the output shape"},
    {"DFT", {1, 2}, "dft_length/axis: the output shape and the transform axis"},
    {"STFT", {1, 3}, "frame_step/frame_length: the output shape"},
    {"MelWeightMatrix", {0, 1, 2, 3, 4}, "all inputs: the output shape and its (constant) values"},
    {"SequenceAt", {1}, "position: which element (sequences exist only at import)"},
    {"SequenceInsert", {2}, "position: where the element goes"},
    {"SequenceErase", {1}, "position: which element goes"},
    {"SplitToSequence", {1}, "split: the element shapes"},
    {"Compress", {1}, "condition: which slices are kept, hence the output shape (like Reshape's shape)"},
    // No entry (data operands, run-time in TOSA): Gemm C, Gather/GatherElements/GatherND indices, Einsum,
    // Where, Mod, BitShift, DynamicQuantizeLinear, If condition (TOSA cond_if), LSTM/GRU/RNN inputs; weights,
    // biases, normalization parameters (Conv, ConvTranspose, BatchNormalization, Instance/Layer/Group-
    // Normalization, PRelu), Trilu's k and quantization scales / zero points / weights (QuantizeLinear,
    // DequantizeLinear, QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger): TOSA 1.0 takes them as tensors
    // and the importer lowers run-time ones (docs/ONNX.md).
};

const std::vector<int>* determiningInputs(const std::string& op) {
  for (const auto& d : kDeterminingOperands) {
    std::string name = d.op;
    bool match = name.back() == '*' ? op.rfind(name.substr(0, name.size() - 1), 0) == 0 : op == name;
    if (match) return &d.inputs;
  }
  return nullptr;
}

// Names a subgraph reads from enclosing scopes (used but not defined inside it).
void freeVariables(const ::onnx::GraphProto& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& i : g.input()) defined.insert(i.name());
  for (const auto& i : g.initializer()) defined.insert(i.name());
  for (const auto& n : g.node())
    for (const auto& o : n.output()) defined.insert(o);
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty() && !defined.count(i)) out.insert(i);
    for (const auto& a : n.attribute()) {
      std::set<std::string> inner;
      if (a.has_g()) freeVariables(a.g(), inner);
      for (const auto& sg : a.graphs()) freeVariables(sg, inner);
      for (const auto& v : inner)
        if (!defined.count(v)) out.insert(v);
    }
  }
}

// Every node of the graph and of its subgraphs (If/Loop/Scan bodies).
void collectNodes(const ::onnx::GraphProto& g, std::vector<const ::onnx::NodeProto*>& nodes) {
  for (const auto& n : g.node()) {
    nodes.push_back(&n);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) collectNodes(a.g(), nodes);
      for (const auto& sg : a.graphs()) collectNodes(sg, nodes);
    }
  }
}

std::vector<std::string> runtimeGraphInputs(const ::onnx::GraphProto& g) {
  std::set<std::string> inits;
  for (const auto& i : g.initializer()) inits.insert(i.name());
  std::vector<std::string> names;
  for (const auto& i : g.input())
    if (!inits.count(i.name())) names.push_back(i.name());
  return names;
}

// The graph inputs to bind: those that feed a determining operand, transitively through any nodes.
std::set<std::string> inputsToBind(const ::onnx::GraphProto& g) {
  std::vector<const ::onnx::NodeProto*> nodes;
  collectNodes(g, nodes);
  std::map<std::string, const ::onnx::NodeProto*> producer;
  for (const auto* n : nodes)
    for (const auto& o : n->output())
      if (!o.empty()) producer[o] = n;
  // The values a node's outputs depend on. Shape, Size and EyeLike read only their input's shape (static in
  // TOSA, known at import without binding), CastLike only the element type of its second input.
  auto nodeReads = [](const ::onnx::NodeProto& n) {
    std::set<std::string> reads;
    const std::string& op = n.op_type();
    if (op == "Shape" || op == "Size" || op == "EyeLike") return reads;
    if (op == "CastLike") {
      if (n.input_size() > 0) reads.insert(n.input(0));
      return reads;
    }
    reads.insert(n.input().begin(), n.input().end());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) freeVariables(a.g(), reads);
      for (const auto& sg : a.graphs()) freeVariables(sg, reads);
    }
    reads.erase("");
    return reads;
  };
  std::vector<std::string> work;
  for (const auto* n : nodes) {
    const auto* idx = determiningInputs(n->op_type());
    if (!idx) continue;
    for (int i : *idx)
      if (i < n->input_size() && !n->input(i).empty()) work.push_back(n->input(i));
  }
  const auto graphInputs = runtimeGraphInputs(g);
  const std::set<std::string> isInput(graphInputs.begin(), graphInputs.end());
  std::set<std::string> seen, bind;
  while (!work.empty()) {
    std::string v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (isInput.count(v)) bind.insert(v);
    auto p = producer.find(v);
    if (p == producer.end()) continue;
    for (const auto& r : nodeReads(*p->second)) work.push_back(r);
  }
  return bind;
}

// ---------------------------------------------------------------------------------------------------------
// Running one case.

enum class Kind { Passed, Failed, Skipped };
struct Outcome {
  Kind kind = Kind::Failed;
  std::string reason;  // one line
  double seconds = 0;
};

std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > 300) s = s.substr(0, 297) + "...";
  return s;
}

Result<std::string> readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return Status::io(p.string() + ": cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<::onnx::ModelProto> readModel(const fs::path& p) {
  auto bytes = readFile(p);
  if (!bytes) return bytes.status();
  ::onnx::ModelProto m;
  if (!m.ParseFromString(*bytes)) return Status::parse(p.string() + ": not an ONNX ModelProto");
  return m;
}

std::vector<fs::path> dataSets(const fs::path& dir) {
  std::vector<fs::path> sets;
  for (int s = 0; fs::exists(dir / ("test_data_set_" + std::to_string(s))); ++s)
    sets.push_back(dir / ("test_data_set_" + std::to_string(s)));
  return sets;
}

std::vector<fs::path> pbFiles(const fs::path& set, const std::string& prefix) {
  std::vector<fs::path> files;
  for (int i = 0; fs::exists(set / (prefix + std::to_string(i) + ".pb")); ++i)
    files.push_back(set / (prefix + std::to_string(i) + ".pb"));
  return files;
}

// Empty when equal. The result must have the expected ONNX element type exactly (as numpy carries it: bfloat16
// as uint16 bits); floats: |got - want| <= atol + rtol * |want| (NaN == NaN, inf exact); integers and bools
// exactly.
std::string compareOutput(const Tensor& gotFile, const Tensor& wantFile, const std::string& what) {
  const Tensor want = npy::toNumpyDType(wantFile);
  if (gotFile.dtype() != want.dtype())
    return what + ": dtype " + std::string(dtypeName(gotFile.dtype())) + ", want " +
        std::string(dtypeName(want.dtype()));
  Tensor got = gotFile;
  if (wantFile.dtype() != want.dtype()) {  // compare carried types (bf16, fp8) as their values
    auto adapted = npy::adaptToDType(gotFile, wantFile.dtype(), what);
    if (!adapted) return adapted.status().message();
    got = *adapted;
  }
  const Tensor& w = wantFile;
  if (got.shape() != w.shape())
    return what + ": shape " + shapeToString(got.shape()) + ", want " + shapeToString(w.shape());
  for (int64_t i = 0; i < w.size(); ++i) {
    std::ostringstream msg;
    if (isFloat(w.dtype())) {
      double g = got.getFloat(i), x = w.getFloat(i);
      if (std::isnan(x) && std::isnan(g)) continue;
      if (std::isinf(x) || std::isinf(g)) {
        if (g == x) continue;
      } else if (std::fabs(g - x) <= 1e-5 + 1e-3 * std::fabs(x)) {
        continue;
      }
      msg.precision(9);
      msg << what << " [" << i << "]: got " << g << ", want " << x;
      return msg.str();
    }
    if (got.getInt(i) == w.getInt(i)) continue;
    msg << what << " [" << i << "]: got " << got.getInt(i) << ", want " << w.getInt(i);
    return msg.str();
  }
  return "";
}

// loadOnnxTensor with a guard: sequence/optional test data (SequenceProto, OptionalProto) also parses as a
// TensorProto, with garbage dims; reject those before allocating.
Result<std::pair<std::string, Tensor>> loadTestTensor(const fs::path& p) {
  auto bytes = readFile(p);
  if (!bytes) return bytes.status();
  ::onnx::TensorProto tp;
  if (!tp.ParseFromString(*bytes) || tp.data_type() == 0)
    return Status::parse(p.string() + ": not a TensorProto (sequence/optional test data?)");
  int64_t n = 1;
  for (int64_t d : tp.dims()) {
    if (d < 0 || d > (int64_t(1) << 31))
      return Status::parse(p.string() + ": implausible dimension " + std::to_string(d));
    n *= d;
    if (n > (int64_t(1) << 31)) return Status::parse(p.string() + ": implausible element count");
  }
  return tosakit::onnx::loadOnnxTensor(p.string());
}

// The tosakit executable the cases are driven through (--tosakit; default: the one built with the runner).
std::string gTool = TOSAKIT_TOOL;

std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs a tosakit command line; on failure returns "exit N: <first stderr line>".
std::string runTool(const std::string& args, const fs::path& errFile) {
  std::string cmd = shellQuote(gTool) + " " + args + " >/dev/null 2>" + shellQuote(errFile.string());
  int rc = std::system(cmd.c_str());
  if (rc == 0) return "";
  std::ifstream in(errFile);
  std::string line, first;
  while (std::getline(in, line))  // the error line, not the notes before it
    if (line.find("tosakit: note:") == std::string::npos && first.empty()) first = line;
  line = first;
  int code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return "exit " + std::to_string(code) + ": " + line;
}

// A scratch directory removed when the case ends.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/tosakit_onnx_backend_XXXXXX";
    if (char* d = mkdtemp(tmpl)) path = d;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// One case as a user runs it (docs/ONNX.md "Backend test coverage"): `tosakit import model.onnx -o m.mlir
// --bind-inputs bind.npz` binding only the inputs that fix a shape or an attribute (plus --input-shape for
// inputs declared with dynamic dims), then `tosakit run m.mlir --inputs in.npz -o out.npz` on ALL the data
// set's inputs as stored (no dtype changes), and every output compared in its ONNX element type.
Outcome runCase(const fs::path& dir) {
  // Messages name the model file; the case is known here, so drop the path.
  TempDir tmp;
  auto fail = [&](std::string why) {
    for (const std::string& path : {(dir / "model.onnx").string() + ": ", tmp.path.string() + "/"})
      for (size_t at; !path.empty() && (at = why.find(path)) != std::string::npos;) why.erase(at, path.size());
    return Outcome{Kind::Failed, oneLine(why)};
  };
  if (tmp.path.empty()) return fail("cannot create a temporary directory");
  auto model = readModel(dir / "model.onnx");
  if (!model) return fail(model.status().toString());
  const auto graphInputs = runtimeGraphInputs(model->graph());
  const auto bind = inputsToBind(model->graph());
  // Inputs whose declared shape is missing or has a symbolic/unknown dim: the test data gives the shape.
  std::set<std::string> dynamicInputs;
  for (const auto& in : model->graph().input()) {
    const auto& tt = in.type().tensor_type();
    bool dynamic = !tt.has_shape();
    for (const auto& d : tt.shape().dim()) dynamic |= !d.has_dim_value();
    if (dynamic) dynamicInputs.insert(in.name());
  }
  const auto sets = dataSets(dir);
  if (sets.empty()) return fail("no test_data_set_*");
  const fs::path err = tmp.path / "stderr.txt", mlir = tmp.path / "m.mlir", out = tmp.path / "out.npz";
  for (const auto& set : sets) {
    const std::string setName = set.filename().string();
    NamedTensors bound, all;
    std::string shapes;
    auto inputs = pbFiles(set, "input_");
    for (size_t i = 0; i < inputs.size(); ++i) {
      auto t = loadTestTensor(inputs[i]);
      if (!t) return fail(setName + ": " + t.status().toString());
      // Inputs are positional; a stored name that names a graph input wins.
      std::string name = i < graphInputs.size() ? graphInputs[i] : t->first;
      if (!t->first.empty() && std::find(graphInputs.begin(), graphInputs.end(), t->first) != graphInputs.end())
        name = t->first;
      if (bind.count(name))
        bound.emplace_back(name, t->second);
      else if (dynamicInputs.count(name) && !t->second.shape().empty())
        shapes += " --input-shape " + shellQuote(name + "=" + shapeToString(t->second.shape()));
      all.emplace_back(name, std::move(t->second));
    }
    std::string importArgs =
        "import " + shellQuote((dir / "model.onnx").string()) + " -o " + shellQuote(mlir.string()) + shapes;
    if (!bound.empty()) {
      if (Status s = npy::writeNpz((tmp.path / "bind.npz").string(), bound); !s) return fail(s.toString());
      importArgs += " --bind-inputs " + shellQuote((tmp.path / "bind.npz").string());
    }
    if (std::string e = runTool(importArgs, err); !e.empty()) return fail("import: " + e);
    std::string runArgs = "run " + shellQuote(mlir.string()) + " -o " + shellQuote(out.string());
    if (!all.empty()) {
      if (Status s = npy::writeNpz((tmp.path / "in.npz").string(), all); !s) return fail(s.toString());
      runArgs += " --inputs " + shellQuote((tmp.path / "in.npz").string());
    }
    if (std::string e = runTool(runArgs, err); !e.empty()) return fail(setName + ": run: " + e);
    auto got = npy::readNpz(out.string());
    if (!got) return fail(setName + ": " + got.status().toString());
    auto outputs = pbFiles(set, "output_");
    if (outputs.size() != got->size())
      return fail(setName + ": " + std::to_string(got->size()) + " outputs, want " + std::to_string(outputs.size()));
    for (size_t o = 0; o < outputs.size(); ++o) {
      auto want = loadTestTensor(outputs[o]);
      if (!want) return fail(setName + ": " + want.status().toString());
      const std::string& gotName = (*got)[o].first;
      if (!want->first.empty() && gotName != want->first)
        return fail(setName + ": output " + std::to_string(o) + " is named '" + gotName + "', want '" + want->first +
                    "'");
      std::string diff = compareOutput((*got)[o].second, want->second, setName + " output '" + want->first + "'");
      if (!diff.empty()) return fail(diff);
    }
  }
  return Outcome{Kind::Passed, ""};
}

// ---------------------------------------------------------------------------------------------------------
// Classification: why TOSA 1.0 cannot express a case (empty: it can).

void collectTypes(const ::onnx::TypeProto& t, std::set<std::string>& kinds, std::set<int>& elems) {
  if (t.has_tensor_type()) elems.insert(t.tensor_type().elem_type());
  if (t.has_sparse_tensor_type()) kinds.insert("sparse tensor");
  if (t.has_sequence_type()) {
    kinds.insert("sequence");
    collectTypes(t.sequence_type().elem_type(), kinds, elems);
  }
  if (t.has_map_type()) kinds.insert("map");
  if (t.has_optional_type()) {
    kinds.insert("optional");
    collectTypes(t.optional_type().elem_type(), kinds, elems);
  }
}

void collectGraphTypes(const ::onnx::GraphProto& g, std::set<std::string>& kinds, std::set<int>& elems,
                       std::set<std::string>& ops) {
  for (const auto& v : g.input()) collectTypes(v.type(), kinds, elems);
  for (const auto& v : g.output()) collectTypes(v.type(), kinds, elems);
  for (const auto& v : g.value_info()) collectTypes(v.type(), kinds, elems);
  for (const auto& t : g.initializer()) elems.insert(t.data_type());
  for (const auto& n : g.node()) {
    ops.insert(n.op_type());
    for (const auto& a : n.attribute()) {
      if (a.has_t()) elems.insert(a.t().data_type());
      // Element types chosen by attributes: Cast 'to', EyeLike/Random*/Bernoulli/Multinomial 'dtype'.
      if ((n.op_type() == "Cast" && a.name() == "to") || (n.op_type() != "Cast" && a.name() == "dtype"))
        elems.insert(int(a.i()));
      if (a.has_tp()) collectTypes(a.tp(), kinds, elems);
      if (a.has_g()) collectGraphTypes(a.g(), kinds, elems, ops);
      for (const auto& sg : a.graphs()) collectGraphTypes(sg, kinds, elems, ops);
    }
  }
}

std::string elemName(int t) {
  return ::onnx::TensorProto::DataType_IsValid(t) ? ::onnx::TensorProto::DataType_Name(::onnx::TensorProto::DataType(t))
                                                  : std::to_string(t);
}

// The single value of a scalar float/double/int64 TensorProto, if it is one.
std::optional<double> tensorFromProtoForClassify(const ::onnx::TensorProto& tp) {
  using TP = ::onnx::TensorProto;
  int64_t n = 1;
  for (int64_t d : tp.dims()) n *= d;
  if (n != 1) return std::nullopt;
  const std::string& raw = tp.raw_data();
  switch (tp.data_type()) {
    case TP::FLOAT: {
      if (tp.float_data_size() == 1) return tp.float_data(0);
      float f;
      if (raw.size() != sizeof f) return std::nullopt;
      std::memcpy(&f, raw.data(), sizeof f);
      return f;
    }
    case TP::DOUBLE: {
      if (tp.double_data_size() == 1) return tp.double_data(0);
      double d;
      if (raw.size() != sizeof d) return std::nullopt;
      std::memcpy(&d, raw.data(), sizeof d);
      return d;
    }
    case TP::INT64: {
      if (tp.int64_data_size() == 1) return double(tp.int64_data(0));
      int64_t v;
      if (raw.size() != sizeof v) return std::nullopt;
      std::memcpy(&v, raw.data(), sizeof v);
      return double(v);
    }
    default: return std::nullopt;
  }
}

struct Classification {
  std::set<std::string> ops, kinds;
  std::set<int> elems;
  std::set<std::string> bind;
  std::set<std::string> ioKinds;  // non-tensor kinds among the graph's inputs and outputs
  std::string reason;             // empty: TOSA can express the case
};

Classification classify(const fs::path& dir) {
  Classification c;
  auto model = readModel(dir / "model.onnx");
  if (!model) {
    c.reason = "";  // unreadable models are failures, not skips
    return c;
  }
  ::onnx::ModelProto inferred = *model;
  try {
    ::onnx::shape_inference::InferShapes(inferred);
  } catch (...) {
    inferred = *model;  // keep the declared types only
  }
  const auto& g = inferred.graph();
  collectGraphTypes(g, c.kinds, c.elems, c.ops);
  {
    std::set<int> ignored;
    for (const auto& v : g.input()) collectTypes(v.type(), c.ioKinds, ignored);
    for (const auto& v : g.output()) collectTypes(v.type(), c.ioKinds, ignored);
  }
  c.bind = inputsToBind(model->graph());
  const auto graphInputs = runtimeGraphInputs(model->graph());

  // Test data: element types, and int64 run-time values outside int32 (TOSA has no int64).
  std::string bigInt, zeroSize;
  for (const auto& set : dataSets(dir)) {
    for (const std::string prefix : {"input_", "output_"}) {
      auto files = pbFiles(set, prefix);
      for (size_t i = 0; i < files.size(); ++i) {
        auto bytes = readFile(files[i]);
        ::onnx::TensorProto tp;
        if (!bytes || !tp.ParseFromString(*bytes) || tp.data_type() == 0) continue;  // sequence/optional data
        // Element types come from the graph: the data files store bfloat16 as uint16 bit patterns.
        const bool bound = prefix == "input_" && i < graphInputs.size() && c.bind.count(graphInputs[i]);
        // TOSA 1.0 tensors have every dimension >= 1; bound inputs are folded at import, so they may be empty.
        if (!bound && zeroSize.empty())
          for (int64_t d : tp.dims())
            if (d == 0) zeroSize = set.filename().string() + "/" + files[i].filename().string();
        if (tp.data_type() != ::onnx::TensorProto::INT64 || bound || !bigInt.empty()) continue;
        auto t = loadTestTensor(files[i]);
        if (!t) continue;
        for (int64_t k = 0; k < t->second.size(); ++k) {
          int64_t v = t->second.getInt(k);
          if (v < INT32_MIN || v > INT32_MAX) {
            bigInt = "int64 value " + std::to_string(v) + " outside the int32 range in " + set.filename().string() +
                "/" + files[i].filename().string();
            break;
          }
        }
      }
    }
  }

  auto has = [&](std::initializer_list<const char*> names) -> std::string {
    for (const char* n : names)
      if (c.ops.count(n)) return n;
    return "";
  };
  std::string op;
  // A scalar feeding a node, when known before run time: initializer, Constant node or test data (set 0).
  auto constantValue = [&](const std::string& name) -> std::optional<double> {
    if (name.empty()) return 0.5;  // Dropout's default ratio
    for (const auto& t : model->graph().initializer())
      if (t.name() == name) {
        auto v = tensorFromProtoForClassify(t);
        if (v) return v;
      }
    for (const auto& n : model->graph().node())
      if (n.op_type() == "Constant" && n.output_size() == 1 && n.output(0) == name)
        for (const auto& a : n.attribute())
          if (a.has_t()) return tensorFromProtoForClassify(a.t());
    for (size_t i = 0; i < graphInputs.size(); ++i)
      if (graphInputs[i] == name) {
        auto t = loadTestTensor(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"));
        if (t && t->second.size() == 1) return t->second.getFloat(0);
      }
    return std::nullopt;
  };
  // Training ops and training-mode behaviour.
  bool training = false;
  std::function<void(const ::onnx::GraphProto&)> scanTraining = [&](const ::onnx::GraphProto& gr) {
    for (const auto& n : gr.node()) {
      if (n.op_type() == "BatchNormalization")
        for (const auto& a : n.attribute())
          if (a.name() == "training_mode" && a.i() != 0) training = true;
      // Training-mode Dropout is random unless its ratio is 0 (then it is the identity, mask all true).
      if (n.op_type() == "Dropout" && n.input_size() > 2 && !n.input(2).empty() && constantValue(n.input(1)) != 0)
        training = true;
      for (const auto& a : n.attribute())
        if (a.has_g()) scanTraining(a.g());
    }
  };
  scanTraining(g);
  if (!(op = has({"Adagrad", "Adam", "Momentum", "Gradient"})).empty()) {
    c.reason = "training op (" + op + ")";
  } else if (training) {
    c.reason = "training mode (" +
        std::string(c.ops.count("Dropout") ? "Dropout training_mode=true" : "BatchNormalization training_mode=1") + ")";
  } else if (!(op = has({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
                         "Multinomial"}))
                  .empty()) {
    c.reason = "randomness (" + op + ")";
  } else if (c.elems.count(::onnx::TensorProto::STRING) ||
             !(op = has({"StringNormalizer", "RegexFullMatch", "StringConcat", "StringSplit"})).empty()) {
    c.reason = "strings (" + (op.empty() ? std::string("string tensors") : op) + ")";
  } else if (c.ioKinds.count("sequence") || !(op = has({"SequenceMap"})).empty()) {
    // Sequences inside the graph are resolved at import (constant positions); sequence-typed graph inputs or
    // outputs have no TOSA type, and SequenceMap's body would need a run-time sequence.
    c.reason = "sequences (" + (op.empty() ? std::string("sequence-typed graph inputs/outputs") : op) + ")";
  } else if (c.kinds.count("optional") ||
             !(op = has({"Optional", "OptionalHasElement", "OptionalGetElement"})).empty()) {
    c.reason = "optional types (" + (op.empty() ? std::string("optional-typed values") : op) + ")";
  } else if (!(op = has({"NonZero", "Unique", "NonMaxSuppression"})).empty()) {
    c.reason = "data-dependent shapes (" + op + ": the output shape depends on run-time values)";
  } else if (c.kinds.count("map") || c.kinds.count("sparse tensor")) {
    c.reason = "type without a TOSA representation (" + *c.kinds.begin() + ")";
  } else {
    using TP = ::onnx::TensorProto;
    const std::map<int, const char*> noTosaType = {
        {TP::DOUBLE, "float64"}, {TP::UINT16, "uint16"},       {TP::UINT32, "uint32"},
        {TP::UINT64, "uint64"},  {TP::COMPLEX64, "complex64"}, {TP::COMPLEX128, "complex128"},
    };
    for (const auto& [t, name] : noTosaType)
      if (c.elems.count(t)) {
        c.reason = std::string("type without a TOSA representation (") + name + ")";
        break;
      }
    if (c.reason.empty() && !zeroSize.empty())
      c.reason = "zero-size tensor (" + zeroSize + "; TOSA 1.0 requires every dimension >= 1)";
    if (c.reason.empty() && !bigInt.empty()) c.reason = "type without a TOSA representation (" + bigInt + ")";
  }
  return c;
}

// ---------------------------------------------------------------------------------------------------------
// Self-test of the binding closure on tiny models built with the ONNX protobuf API.

int selfTest() {
  int failures = 0;
  auto expect = [&](bool ok, const std::string& what) {
    std::cout << (ok ? "ok   " : "FAIL ") << what << "\n";
    failures += !ok;
  };
  auto addInput = [](::onnx::GraphProto& g, const std::string& name) { g.add_input()->set_name(name); };
  auto addNode = [](::onnx::GraphProto& g, const std::string& op, std::vector<std::string> in,
                    std::vector<std::string> out) {
    auto* n = g.add_node();
    n->set_op_type(op);
    for (auto& i : in) n->add_input(i);
    for (auto& o : out) n->add_output(o);
    return n;
  };
  {
    // Reshape(x, Cast(Add(s, one))): the shape input s feeds the shape operand through two nodes -> bound;
    // x is data.
    ::onnx::GraphProto g;
    addInput(g, "x");
    addInput(g, "s");
    addInput(g, "one");
    addNode(g, "Add", {"s", "one"}, {"s1"});
    addNode(g, "Cast", {"s1"}, {"shape"});
    addNode(g, "Reshape", {"x", "shape"}, {"y"});
    auto b = inputsToBind(g);
    expect(b == std::set<std::string>{"s", "one"}, "Reshape fed by Cast(Add(s, one)) binds s and one, not x");
  }
  {
    // Reshape(x, Shape(y)): Shape reads only y's (static) shape, so y stays run-time.
    ::onnx::GraphProto g;
    addInput(g, "x");
    addInput(g, "y");
    addNode(g, "Shape", {"y"}, {"shape"});
    addNode(g, "Reshape", {"x", "shape"}, {"z"});
    expect(inputsToBind(g).empty(), "Reshape fed by Shape(y) binds nothing");
  }
  {
    // Gather indices are data: nothing bound.
    ::onnx::GraphProto g;
    addInput(g, "data");
    addInput(g, "indices");
    addNode(g, "Gather", {"data", "indices"}, {"y"});
    expect(inputsToBind(g).empty(), "Gather indices stay run-time");
  }
  {
    // Initializers are not graph inputs to bind; ReduceSum axes (Reduce* rule) from an input is bound.
    ::onnx::GraphProto g;
    addInput(g, "x");
    addInput(g, "axes");
    addInput(g, "w");
    g.add_initializer()->set_name("w");
    addNode(g, "ReduceSum", {"x", "axes"}, {"r"});
    addNode(g, "Conv", {"r", "w"}, {"y"});
    expect(inputsToBind(g) == std::set<std::string>{"axes"}, "ReduceSum axes bound, initializer weight not listed");
  }
  {
    // A subgraph reading an outer input that feeds a Slice inside the subgraph binds that input;
    // the If condition is data (TOSA cond_if).
    ::onnx::GraphProto g;
    addInput(g, "cond");
    addInput(g, "x");
    addInput(g, "start");
    auto* iff = addNode(g, "If", {"cond"}, {"y"});
    auto* a = iff->add_attribute();
    a->set_name("then_branch");
    a->set_type(::onnx::AttributeProto::GRAPH);
    addNode(*a->mutable_g(), "Slice", {"x", "start", "start"}, {"y_then"});
    expect(inputsToBind(g) == std::set<std::string>{"start"}, "outer input read by a Slice in a subgraph is bound");
  }
  {
    // Optional (empty) inputs are ignored; Clip min from an input is bound, max absent.
    ::onnx::GraphProto g;
    addInput(g, "x");
    addInput(g, "lo");
    addNode(g, "Clip", {"x", "lo", ""}, {"y"});
    expect(inputsToBind(g) == std::set<std::string>{"lo"}, "Clip min bound, empty max ignored");
  }
  {
    // Comparison rules: float tolerance, NaN, inf, i32 result vs int64 expected, uint8 bits in i8.
    Tensor want = Tensor::fromDoubles(DType::FP32, {4}, {1.0, NAN, INFINITY, 1000.0});
    Tensor got = Tensor::fromDoubles(DType::FP32, {4}, {1.0 + 1e-5 + 0.9e-3, NAN, INFINITY, 1000.9});
    expect(compareOutput(got, want, "f").empty(), "float within atol + rtol*|want| (1000.9 vs 1000: 0.9 <= 1.00001)");
    Tensor got2 = Tensor::fromDoubles(DType::FP32, {4}, {1.0, NAN, INFINITY, 1001.1});
    expect(!compareOutput(got2, want, "f").empty(), "float outside tolerance (1001.1 vs 1000) fails");
    Tensor got3 = Tensor::fromDoubles(DType::FP32, {4}, {1.0, NAN, -INFINITY, 1000.0});
    expect(!compareOutput(got3, want, "f").empty(), "inf must match exactly");
    Tensor wi = Tensor::fromInts(DType::I64, {2}, {5, -7});
    expect(compareOutput(Tensor::fromInts(DType::I64, {2}, {5, -7}), wi, "i").empty(), "int64 result vs int64 want");
    expect(!compareOutput(Tensor::fromInts(DType::I32, {2}, {5, -7}), wi, "i").empty(),
           "an i32 result for an int64 output fails (the user gets the ONNX type)");
    expect(!compareOutput(Tensor::fromInts(DType::I64, {2}, {5, -6}), wi, "i").empty(), "integer mismatch fails");
    Tensor wu = Tensor::fromInts(DType::U8, {1}, {200});
    expect(!compareOutput(Tensor::fromInts(DType::I8, {1}, {200 - 256}), wu, "u").empty(), "uint8 bits in i8 fail");
    Tensor wb = Tensor::fromDoubles(DType::BF16, {1}, {1.5});
    expect(compareOutput(npy::toNumpyDType(wb), wb, "b").empty(), "bfloat16 as numpy's uint16 bits");
  }
  std::cout << (failures ? "self-test FAILED\n" : "self-test passed\n");
  return failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------------------
// Lists and the driver.

struct ListEntry {
  std::string reason;
  int line = 0;
};

// `category/case  reason` per line; '#' starts a comment.
Result<std::map<std::string, ListEntry>> readList(const std::string& path) {
  std::map<std::string, ListEntry> list;
  if (path.empty()) return list;
  std::ifstream in(path);
  if (!in) return Status::io(path + ": cannot open file");
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    std::istringstream ss(line);
    std::string key;
    if (!(ss >> key)) continue;
    std::string reason;
    std::getline(ss, reason);
    reason.erase(0, reason.find_first_not_of(" \t"));
    if (key.find('/') == std::string::npos)
      return Status::parse(path + ":" + std::to_string(no) + ": '" + key + "' is not category/case_name");
    if (list.count(key)) return Status::parse(path + ":" + std::to_string(no) + ": duplicate entry " + key);
    list[key] = {reason, no};
  }
  return list;
}

struct Options {
  std::string dataDir = "/usr/share/libonnx-testdata/data";
  std::string skipList, knownFailures, writeKnownFailures;
  std::vector<std::string> categories;
  std::string filter;
  bool verbose = false, checkSkips = false, classify = false, selfTest = false;
  int jobs = 2;
  double timeout = 120;
  double minPassRate = 95;
};

struct Case {
  std::string category, name;
  fs::path dir;
  std::string key() const { return category + "/" + name; }
};

// Runs the cases in forked children, at most `jobs` at a time; a crash or timeout fails only that case.
std::vector<Outcome> runAll(const std::vector<Case>& cases, const Options& opt) {
  std::vector<Outcome> outcomes(cases.size());
  struct Child {
    pid_t pid;
    int fd;
    size_t index;
    std::chrono::steady_clock::time_point start;
    std::string out;
  };
  std::vector<Child> running;
  size_t next = 0;
  std::cout.flush();
  auto finish = [&](Child& c, const std::string& killedWhy) {
    int status = 0;
    waitpid(c.pid, &status, 0);
    close(c.fd);
    Outcome o;
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
    if (!killedWhy.empty()) {
      o.reason = killedWhy;
    } else if (WIFSIGNALED(status)) {
      o.reason = "crashed (signal " + std::to_string(WTERMSIG(status)) + ": " + strsignal(WTERMSIG(status)) + ")";
    } else if (c.out.empty() || (c.out[0] != 'P' && c.out[0] != 'F')) {
      o.reason = "child exited without a result (status " + std::to_string(WEXITSTATUS(status)) + ")";
    } else {
      o.kind = c.out[0] == 'P' ? Kind::Passed : Kind::Failed;
      o.reason = c.out.size() > 2 ? c.out.substr(2) : "";
      while (!o.reason.empty() && o.reason.back() == '\n') o.reason.pop_back();
    }
    if (opt.verbose)
      std::printf("  %-6s %s (%.2f s)%s%s\n", o.kind == Kind::Passed ? "PASS" : "FAIL", cases[c.index].key().c_str(),
                  o.seconds, o.reason.empty() ? "" : ": ", o.reason.c_str());
    std::fflush(stdout);
    outcomes[c.index] = o;
  };
  while (next < cases.size() || !running.empty()) {
    while (next < cases.size() && int(running.size()) < std::max(1, opt.jobs)) {
      int fds[2];
      if (pipe(fds) != 0) {
        outcomes[next++].reason = "pipe failed";
        continue;
      }
      pid_t pid = fork();
      if (pid == 0) {
        setpgid(0, 0);  // its own process group: a timeout kills the tosakit processes it spawned too
        close(fds[0]);
        Outcome o;
        try {
          o = runCase(cases[next].dir);
        } catch (const std::exception& e) { o = {Kind::Failed, oneLine(std::string("exception: ") + e.what())}; }
        std::string msg = std::string(o.kind == Kind::Passed ? "P" : "F") + " " + o.reason + "\n";
        size_t off = 0;
        while (off < msg.size()) {
          ssize_t w = write(fds[1], msg.data() + off, msg.size() - off);
          if (w <= 0) break;
          off += size_t(w);
        }
        _exit(0);
      }
      close(fds[1]);
      if (pid < 0) {
        close(fds[0]);
        outcomes[next++].reason = "fork failed";
        continue;
      }
      running.push_back({pid, fds[0], next++, std::chrono::steady_clock::now(), ""});
    }
    std::vector<pollfd> pfds;
    for (auto& c : running) pfds.push_back({c.fd, POLLIN, 0});
    poll(pfds.data(), pfds.size(), 200);
    for (size_t i = running.size(); i-- > 0;) {
      Child& c = running[i];
      bool done = false;
      if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[4096];
        ssize_t r = read(c.fd, buf, sizeof buf);
        if (r > 0)
          c.out.append(buf, size_t(r));
        else
          done = true;
      }
      std::string killed;
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.start).count();
      if (!done && elapsed > opt.timeout) {
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
        std::ostringstream msg;
        msg << "timeout: still running after " << opt.timeout << " s";
        killed = msg.str();
        done = true;
      }
      if (done) {
        finish(c, killed);
        running.erase(running.begin() + long(i));
      }
    }
  }
  return outcomes;
}

void usage() {
  std::cout
      << "usage: onnx_backend_runner [options]\n"
         "  --data-dir DIR              ONNX backend test data (default /usr/share/libonnx-testdata/data)\n"
         "  --category C                node, pytorch-converted, pytorch-operator, simple (repeatable; default all)\n"
         "  --filter SUBSTR             only cases whose name contains SUBSTR\n"
         "  --skip-list FILE            cases TOSA cannot express, with reasons (not run)\n"
         "  --known-failures FILE       expressible cases that fail today (the to-do list)\n"
         "  --write-known-failures FILE write every failing case with its first failure reason\n"
         "  --check-skips               also run skipped cases; any that passes must leave the skip list\n"
         "  --classify                  print op types, element types, bound inputs and a proposed skip reason\n"
         "  --self-test                 check the runner's own binding and comparison logic\n"
         "  --jobs N                    cases run in parallel (default 2)\n"
         "  --timeout S                 per-case time limit in seconds (default 120)\n"
         "  --min-pass-rate PCT         required node pass rate over expressible cases (default 95)\n"
         "  --verbose                   one line per case with its time\n"
         "  --tosakit PATH              the tosakit executable to drive (default: the one built with the runner)\n";
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "onnx_backend_runner: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--data-dir")
      opt.dataDir = value();
    else if (a == "--skip-list")
      opt.skipList = value();
    else if (a == "--known-failures")
      opt.knownFailures = value();
    else if (a == "--write-known-failures")
      opt.writeKnownFailures = value();
    else if (a == "--category")
      opt.categories.push_back(value());
    else if (a == "--filter")
      opt.filter = value();
    else if (a == "--verbose")
      opt.verbose = true;
    else if (a == "--check-skips")
      opt.checkSkips = true;
    else if (a == "--classify")
      opt.classify = true;
    else if (a == "--self-test")
      opt.selfTest = true;
    else if (a == "--jobs")
      opt.jobs = std::atoi(value().c_str());
    else if (a == "--timeout")
      opt.timeout = std::atof(value().c_str());
    else if (a == "--min-pass-rate")
      opt.minPassRate = std::atof(value().c_str());
    else if (a == "--tosakit")
      gTool = value();
    else if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else {
      std::cerr << "onnx_backend_runner: unknown option " << a << "\n";
      usage();
      return 2;
    }
  }
  if (opt.selfTest) return selfTest();
  if (opt.categories.empty()) opt.categories = {"node", "pytorch-converted", "pytorch-operator", "simple"};
  if (!fs::is_directory(opt.dataDir)) {
    std::cerr << "onnx_backend_runner: " << opt.dataDir << ": no such directory (install libonnx-testdata)\n";
    return 2;
  }

  auto skips = readList(opt.skipList);
  auto known = readList(opt.knownFailures);
  for (auto* l : {&skips, &known})
    if (!*l) {
      std::cerr << "onnx_backend_runner: " << l->status().toString() << "\n";
      return 2;
    }

  int errors = 0;
  auto error = [&](const std::string& msg) {
    std::cout << "ERROR " << msg << "\n";
    ++errors;
  };
  // Every list entry must name an existing case; no case is in both lists.
  for (auto [list, file] : {std::pair{&*skips, opt.skipList}, std::pair{&*known, opt.knownFailures}})
    for (const auto& [key, e] : *list)
      if (!fs::exists(fs::path(opt.dataDir) / key / "model.onnx"))
        error(file + ":" + std::to_string(e.line) + ": no such case " + key);
  for (const auto& [key, e] : *known)
    if (skips->count(key)) error(opt.knownFailures + ":" + std::to_string(e.line) + ": " + key + " is also skipped");

  std::vector<Case> cases;
  for (const auto& cat : opt.categories) {
    fs::path cdir = fs::path(opt.dataDir) / cat;
    if (!fs::is_directory(cdir)) {
      error("no category directory " + cdir.string());
      continue;
    }
    std::vector<Case> inCat;
    for (const auto& e : fs::directory_iterator(cdir)) {
      if (!fs::exists(e.path() / "model.onnx")) continue;
      std::string name = e.path().filename().string();
      if (!opt.filter.empty() && name.find(opt.filter) == std::string::npos) continue;
      inCat.push_back({cat, name, e.path()});
    }
    std::sort(inCat.begin(), inCat.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
    cases.insert(cases.end(), inCat.begin(), inCat.end());
  }

  if (opt.classify) {
    for (const auto& c : cases) {
      Classification cl = classify(c.dir);
      std::ostringstream ops, types, bind;
      for (const auto& o : cl.ops) ops << (ops.tellp() ? "," : "") << o;
      for (int t : cl.elems) types << (types.tellp() ? "," : "") << elemName(t);
      for (const auto& k : cl.kinds) types << (types.tellp() ? "," : "") << k;
      for (const auto& b : cl.bind) bind << (bind.tellp() ? "," : "") << b;
      std::string io;
      for (const auto& k : cl.ioKinds) io += (io.empty() ? "" : ",") + k;
      std::cout << c.key() << "\tops=" << ops.str() << "\ttypes=" << types.str() << "\tbind=" << bind.str()
                << "\tio=" << (io.empty() ? "tensor" : io) << "\tskip=" << (cl.reason.empty() ? "-" : cl.reason)
                << "\tlisted="
                << (skips->count(c.key())       ? "skip"
                        : known->count(c.key()) ? "known"
                                                : "-")
                << "\n";
    }
    return errors ? 1 : 0;
  }

  std::vector<Case> toRun;
  for (const auto& c : cases)
    if (opt.checkSkips || !skips->count(c.key())) toRun.push_back(c);
  auto t0 = std::chrono::steady_clock::now();
  std::vector<Outcome> ran = runAll(toRun, opt);
  std::map<std::string, Outcome> outcome;
  for (size_t i = 0; i < toRun.size(); ++i) outcome[toRun[i].key()] = ran[i];

  struct Count {
    int passed = 0, failed = 0, skipped = 0;
  };
  std::map<std::string, Count> counts;
  std::vector<std::pair<std::string, std::string>> failing;  // key, reason
  for (const auto& c : cases) {
    Count& n = counts[c.category];
    const std::string key = c.key();
    if (skips->count(key)) {
      ++n.skipped;
      auto o = outcome.find(key);
      if (o != outcome.end() && o->second.kind == Kind::Passed)
        error(key + " is in the skip list but passes (remove it: " + skips->at(key).reason + ")");
      continue;
    }
    const Outcome& o = outcome.at(key);
    if (o.kind == Kind::Passed) {
      ++n.passed;
      if (known->count(key))
        error(key + " is in the known failures but passes (remove it from " + opt.knownFailures + ")");
      continue;
    }
    ++n.failed;
    failing.emplace_back(key, o.reason);
    if (known->count(key)) {
      std::cout << "FAIL (known) " << key << ": " << o.reason << "\n";
    } else {
      std::cout << "FAIL " << key << ": " << o.reason << "\n";
      if (opt.writeKnownFailures.empty()) ++errors;
    }
  }

  if (!opt.writeKnownFailures.empty()) {
    std::ofstream out(opt.writeKnownFailures);
    out << "# Expressible ONNX backend test cases that fail today (category/case  first failure reason).\n"
           "# The to-do list of the ONNX frontend: regenerate with\n"
           "#   onnx_backend_runner --skip-list tests/onnx_backend/skip_list.txt --write-known-failures FILE\n";
    for (const auto& [key, reason] : failing) out << key << "  " << reason << "\n";
    if (!out)
      error(opt.writeKnownFailures + ": cannot write");
    else
      std::cout << "wrote " << failing.size() << " known failures to " << opt.writeKnownFailures << "\n";
  }

  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& cat : opt.categories) {
    const Count& n = counts[cat];
    std::cout << cat << ": " << n.passed << " passed, " << n.failed << " failed, " << n.skipped << " skipped\n";
  }
  if (counts.count("node")) {
    const Count& n = counts["node"];
    const int expressible = n.passed + n.failed;
    const double rate = expressible ? 100.0 * n.passed / expressible : 100.0;
    std::printf("node pass rate: %d / %d expressible = %.1f%% (required %.1f%%)%s\n", n.passed, expressible, rate,
                opt.minPassRate, opt.filter.empty() ? "" : " [--filter: not enforced]");
    if (opt.filter.empty() && rate < opt.minPassRate) error("node pass rate below the required rate");
  }
  std::printf("time: %.1f s\n", secs);
  if (opt.verbose && !toRun.empty()) {
    std::vector<size_t> order(toRun.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ran[a].seconds > ran[b].seconds; });
    std::cout << "slowest cases:";
    for (size_t i = 0; i < std::min<size_t>(5, order.size()); ++i)
      std::printf(" %s (%.2f s)", toRun[order[i]].key().c_str(), ran[order[i]].seconds);
    std::cout << "\n";
  }
  if (errors) std::cout << errors << " error(s)\n";
  return errors ? 1 : 0;
}
