// tosakit.Session (load once, run many times), gen_data and import_onnx.
#include <pybind11/stl.h>

#include <chrono>
#include <mutex>
#include <optional>

#include "bindings.h"
#include "compliance/datagen.h"
#include "frontends/tflite/tflite_import.h"
#include "tosakit/bench.h"
#include "tosakit/import.h"
#include "tosakit/import_model.h"
#include "tosakit/inputs.h"
#include "tosakit/io_adapt.h"
#include "tosakit/npz.h"

namespace tosakit::py_bind {

namespace {

struct PySession {
  std::unique_ptr<Session> session;
  std::string origin;
  std::mutex running;              // the GIL is released during a run; one run at a time per session
  std::vector<std::string> notes;  // of the last run (inputs checked and dropped, as `run` prints them)
};

template <typename Options>
void setThreads(Options& so, int threads) {
  if constexpr (requires { so.threads; }) so.threads = threads;
}

std::unique_ptr<PySession> createSession(py::handle model, std::optional<std::string> backend, int threads,
                                         bool precise) {
  auto s = std::make_unique<PySession>();
  auto module = modelArgument(model, &s->origin);
  SessionOptions so;
  // Default as `tosakit run`'s: the fast backend, or the reference backend in precise (fp64) mode.
  so.backend = backend ? *backend : precise ? "ref" : "fast";
  so.precise = precise;
  if (threads < 0)
    raise(Status::invalid("threads must be >= 0 (0: the backend's default), got " + std::to_string(threads)));
  setThreads(so, threads);
  s->session = take(Session::create(std::move(module), so));
  return s;
}

// Inputs by name, prepared as `tosakit run` prepares them (include/tosakit/inputs.h). An unknown function is
// left to Session::run, which reports it.
NamedTensors sessionInputs(const Session& session, const std::string& function, py::handle inputs,
                           std::vector<std::string>* notes = nullptr) {
  if (!py::isinstance<py::dict>(inputs)) raise(Status::invalid("inputs: expected a dict of name -> numpy array"));
  InputSources sources;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(inputs)) {
    if (!py::isinstance<py::str>(k)) raise(Status::invalid("inputs: names must be strings"));
    std::string name = k.cast<std::string>();
    sources.tensors.emplace_back(name, tensorFromArray(v, "input '" + name + "'"));
  }
  const ir::Function* fn = session.function(function);
  if (!fn) return std::move(sources.tensors);
  PreparedInputs prepared = take(prepareInputs(*fn, sources));
  if (notes) *notes = std::move(prepared.notes);
  return std::move(prepared.tensors);
}

py::object run(PySession& s, py::handle inputs, bool intermediates, const std::string& function, bool tosaTypes) {
  s.notes.clear();
  NamedTensors in = sessionInputs(*s.session, function, inputs, &s.notes);
  RunOptions ro;
  ro.function = function;
  ro.captureIntermediates = intermediates;
  RunResult result;
  Status status;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(s.running);
    status = s.session->run(in, result, ro);
  }
  check(status);
  if (!tosaTypes) result.outputs = adaptOutputs(*s.session->function(function), std::move(result.outputs));
  py::dict outputs = dictFromTensors(std::move(result.outputs));
  if (!intermediates) return outputs;
  return py::make_tuple(outputs, dictFromTensors(std::move(result.intermediates)));
}

// The C++ Session's own time per run (a timed loop in C++ over already-converted inputs): the baseline of
// bench/python_overhead.py, which compares it with run() called from Python.
double cppSecondsPerRun(PySession& s, py::handle inputs, int iterations, const std::string& function) {
  if (iterations < 1) raise(Status::invalid("iterations must be >= 1"));
  NamedTensors in = sessionInputs(*s.session, function, inputs);
  RunOptions ro;
  ro.function = function;
  RunResult result;
  Status status;
  double seconds = 0;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(s.running);
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations && status.isOk(); ++i) status = s.session->run(in, result, ro);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  check(status);
  return seconds / iterations;
}

}  // namespace

Shape shapeArgument(py::handle dims, const std::string& name) {
  Shape shape;
  try {
    for (auto d : dims) shape.push_back(d.cast<int64_t>());
  } catch (const std::exception&) {
    raise(Status::invalid("input_shapes['" + name + "']: expected a sequence of integers"));
  }
  for (int64_t d : shape)
    if (d < 0) raise(Status::invalid("input_shapes['" + name + "']: negative dimension " + std::to_string(d)));
  return shape;
}

namespace {

ModuleHandle importTflite(py::handle path) {
  std::string p = pathArgument(path);
  auto imported = [&] {
    py::gil_scoped_release release;
    return tflite::importTflite(p);
  }();
  return ModuleHandle{std::shared_ptr<ir::Module>(take(std::move(imported))), p};
}

// preprocess={"mean": [...], "scale": [...], "pixel_format": "rgb", "channel_format": "nchw",
// "resize_dims": [H, W], "keep_aspect_ratio": False}: the fields of PreprocessOptions.
PreprocessOptions preprocessArgument(py::handle arg) {
  PreprocessOptions o;
  if (arg.is_none()) return o;
  if (!py::isinstance<py::dict>(arg)) raise(Status::invalid("expected a dict").withParameter("preprocess"));
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(arg)) {
    const std::string key = py::str(k);
    try {
      if (key == "mean")
        o.mean = v.cast<std::vector<double>>();
      else if (key == "scale")
        o.scale = v.cast<std::vector<double>>();
      else if (key == "pixel_format")
        o.pixelFormat = v.cast<std::string>();
      else if (key == "channel_format")
        o.channelFormat = v.cast<std::string>();
      else if (key == "resize_dims")
        o.resizeDims = v.cast<std::vector<int64_t>>();
      else if (key == "keep_aspect_ratio")
        o.keepAspectRatio = v.cast<bool>();
      else
        raise(Status::invalid("unknown key '" + key + "'").withParameter("preprocess"));
    } catch (const py::cast_error&) {
      raise(Status::invalid("'" + key + "' has the wrong type").withParameter("preprocess"));
    }
  }
  return o;
}

// import_onnx: importModel (include/tosakit/import_model.h), as `tosakit import`; a .tflite file is imported
// as one. A verification run below tolerance raises SpecError (nothing to write, as the verb writes nothing).
ModuleHandle importOnnx(py::handle path, py::handle inputShapes, py::handle bindInputs,
                        std::vector<std::string> outputNames, bool nhwcIo, bool runChecker, bool convertOpset,
                        const std::string& qdq, bool qdqIntegerIo, const std::string& level, py::handle preprocess,
                        py::handle testInput, py::handle testReference, double minCosine, double minEuclidean,
                        const std::string& backend, int threads) {
  ImportModelOptions o;
  onnx::OnnxImportOptions& opts = o.onnx;
  opts.keepNchwIo = !nhwcIo;
  opts.runChecker = runChecker;
  opts.convertOpset = convertOpset;
  check(onnx::setQdqMode(opts, qdq).withParameter("qdq"));
  opts.qdqIntegerIo = qdqIntegerIo;
  opts.outputNames = std::move(outputNames);
  if (!inputShapes.is_none()) {
    if (!py::isinstance<py::dict>(inputShapes)) raise(Status::invalid("input_shapes: expected a dict name -> shape"));
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(inputShapes)) {
      std::string name = py::str(k);
      opts.inputShapes[name] = shapeArgument(v, name);
    }
  }
  if (!bindInputs.is_none())
    for (auto& [name, t] : tensorsFromDict(bindInputs, "bind_inputs")) opts.bindInputs[name] = std::move(t);
  o.level = level;
  o.preprocess = preprocessArgument(preprocess);
  if (!testInput.is_none()) o.testInput = pathArgument(testInput);
  if (!testReference.is_none()) o.testReference = pathArgument(testReference);
  o.minCosine = minCosine;
  o.minEuclidean = minEuclidean;
  o.session.backend = backend;
  if (threads < 0) raise(Status::invalid("must be >= 0 (0: the backend's default)").withParameter("threads"));
  setThreads(o.session, threads);
  std::string p = pathArgument(path);
  auto imported = [&] {
    py::gil_scoped_release release;
    return importModel(p, o);
  }();
  ImportedModel m = take(std::move(imported));
  check(m.testVerdict);
  return ModuleHandle{std::shared_ptr<ir::Module>(std::move(m.module)), p};
}

// bench: benchModel (include/tosakit/bench.h), as `tosakit bench`. inputs: None (deterministic random data),
// an .npz path or a dict of arrays.
BenchReport bench(py::handle model, py::handle inputs, const std::string& function, int warmup, int iterations,
                  bool profile, const std::string& backend, int threads, const std::string& isa) {
  BenchOptions o;
  o.function = function;
  if (py::isinstance<py::dict>(inputs))
    o.inputs = InputSources::fromTensors(tensorsFromDict(inputs, "inputs"));
  else if (!inputs.is_none())
    o.inputs = InputSources::fromNpz(pathArgument(inputs));
  if (warmup < 0) raise(Status::invalid("must be >= 0").withParameter("warmup"));
  if (iterations < 1) raise(Status::invalid("must be >= 1").withParameter("iterations"));
  if (threads < 0) raise(Status::invalid("must be >= 0 (0: the backend's default)").withParameter("threads"));
  o.warmup = warmup;
  o.iterations = iterations;
  o.profile = profile;
  o.session.backend = backend;
  setThreads(o.session, threads);
  o.session.isa = isa;
  std::string p = pathArgument(model);
  auto r = [&] {
    py::gil_scoped_release release;
    return benchModel(p, o);
  }();
  return take(std::move(r));
}

void bindBench(py::module_& m) {
  py::class_<BenchReport>(m, "BenchReport", "What `tosakit bench` measures (times in milliseconds).")
      .def_readonly("model", &BenchReport::model)
      .def_readonly("backend", &BenchReport::backend)
      .def_readonly("threads", &BenchReport::threads)
      .def_readonly("isa", &BenchReport::isa)
      .def_readonly("load_ms", &BenchReport::loadMs)
      .def_readonly("compile_ms", &BenchReport::compileMs)
      .def_readonly("run_ms", &BenchReport::runMs)
      .def_readonly("min_ms", &BenchReport::minMs)
      .def_readonly("median_ms", &BenchReport::medianMs)
      .def_readonly("max_ms", &BenchReport::maxMs)
      .def_readonly("notes", &BenchReport::notes)
      .def_property_readonly("memory_ratio", &BenchReport::memoryRatio)
      .def("to_text", &BenchReport::toText)
      .def("to_json", &BenchReport::toJson);
  m.def("bench", &bench, py::arg("model"), py::arg("inputs") = py::none(), py::arg("function") = "main",
        py::arg("warmup") = 3, py::arg("iterations") = 20, py::arg("profile") = false, py::arg("backend") = "fast",
        py::arg("threads") = 0, py::arg("isa") = "",
        "Load and compile time, latency of repeated runs, memory (the `bench` verb).");
}

py::dict genData(py::handle model, int set, uint32_t seed, const std::string& function) {
  std::string origin;
  auto m = sharedModelArgument(model, &origin);
  const ir::Function* fn = m->function(function);
  if (!fn) raise(Status::invalid(origin + ": no function '" + function + "'"));
  if (set < 0 || set > 5) raise(Status::invalid("set: " + std::to_string(set) + " not in 0..5"));
  auto gen = compliance::generateInputs(*fn, set, seed);
  if (!gen) raise(gen.status().withContext(origin));
  NamedTensors ts(std::move(*gen));
  return dictFromTensors(std::move(ts));
}

}  // namespace

void bindSession(py::module_& m) {
  py::class_<PySession>(m, "Session", "A loaded model ready to run many times (variables persist across runs).")
      .def(py::init(&createSession), py::arg("model"), py::arg("backend") = py::none(), py::arg("threads") = 0,
           py::arg("precise") = false)
      .def("run", &run, py::arg("inputs"), py::arg("intermediates") = false, py::arg("function") = "main",
           py::arg("tosa_types") = false)
      .def_property_readonly("notes", [](const PySession& s) { return s.notes; })
      .def("_cpp_seconds_per_run", &cppSecondsPerRun, py::arg("inputs"), py::arg("iterations") = 10,
           py::arg("function") = "main")
      .def_property_readonly("input_names", [](const PySession& s) { return s.session->inputNames(); })
      .def_property_readonly("output_names", [](const PySession& s) { return s.session->outputNames(); })
      .def_property_readonly("backend", [](PySession& s) { return s.session->backend().name(); })
      .def("__repr__",
           [](PySession& s) { return "<tosakit.Session " + s.origin + " on " + s.session->backend().name() + ">"; });
  m.def("import_onnx", &importOnnx, py::arg("path"), py::arg("input_shapes") = py::none(),
        py::arg("bind_inputs") = py::none(), py::arg("output_names") = std::vector<std::string>{},
        py::arg("nhwc_io") = false, py::arg("check") = true, py::arg("opset_convert") = true, py::arg("qdq") = "fold",
        py::arg("qdq_integer_io") = false, py::arg("level") = "8k", py::arg("preprocess") = py::none(),
        py::arg("test_input") = py::none(), py::arg("test_reference") = py::none(), py::arg("min_cosine") = 0.99,
        py::arg("min_euclidean") = 0.99, py::arg("backend") = "fast", py::arg("threads") = 0);
  bindBench(m);
  m.def("import_tflite", &importTflite, py::arg("path"));
  m.def("gen_data", &genData, py::arg("model"), py::arg("set") = 0, py::arg("seed") = 0, py::arg("function") = "main");
}

}  // namespace tosakit::py_bind
