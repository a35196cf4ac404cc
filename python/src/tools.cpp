// calibrate, quantize, check: the library functions the CLI verbs of the same names call
// (include/tosakit/calibrate.h, quantize.h, preprocess.h, check.h). Bound when those libraries are built.
#include <pybind11/stl.h>

#include "bindings.h"
#include "tosakit/npz.h"

#if defined(HAVE_TOSAKIT_QUANTIZE) && defined(HAVE_TOSAKIT_IMAGE)
#include "tosakit/calibrate.h"
#include "tosakit/compare.h"
#include "tosakit/inputs.h"
#include "tosakit/preprocess.h"
#include "tosakit/qdq_export.h"
#include "tosakit/quantize.h"
#include "tosakit/quantize_model.h"
#define TOSAKIT_PY_QUANTIZE 1
#endif
#if defined(HAVE_TOSAKIT_CHECK)
#include "tosakit/check.h"
#define TOSAKIT_PY_CHECK 1
#endif

namespace tosakit::py_bind {

namespace {

#ifdef TOSAKIT_PY_QUANTIZE
void bindCalibrationTable(py::module_& m) {
  py::class_<CalibrationEntry>(m, "CalibrationEntry", "One tensor of a calibration table.")
      .def_readonly("name", &CalibrationEntry::name)
      .def_readonly("threshold", &CalibrationEntry::threshold)
      .def_readonly("min", &CalibrationEntry::min)
      .def_readonly("max", &CalibrationEntry::max)
      .def("__repr__", [](const CalibrationEntry& e) {
        return "<CalibrationEntry " + e.name + " threshold " + std::to_string(e.threshold) + ">";
      });
  py::class_<CalibrationTable>(m, "CalibrationTable", "A calibration table (TPU-MLIR's cali_table format).")
      .def_readonly("header", &CalibrationTable::header)
      .def_readonly("entries", &CalibrationTable::entries)
      .def(
          "find",
          [](const CalibrationTable& t, const std::string& name) -> py::object {
            const CalibrationEntry* e = t.find(name);
            return e ? py::cast(*e) : py::none();
          },
          py::arg("name"))
      .def("header_value", &CalibrationTable::headerValue, py::arg("key"))
      .def("to_text", [](const CalibrationTable& t) { return formatCalibrationTable(t); })
      .def(
          "save",
          [](const CalibrationTable& t, py::handle path) { check(writeCalibrationTable(pathArgument(path), t)); },
          py::arg("path"))
      .def("__len__", [](const CalibrationTable& t) { return t.entries.size(); });
  m.def(
      "read_calibration_table", [](py::handle path) { return take(readCalibrationTable(pathArgument(path))); },
      py::arg("path"));
}

// Samples: a dataset directory (str/PathLike), a list of sample files, or a list of dicts of arrays.
struct Samples {
  std::vector<std::string> files;
  std::vector<NamedTensors> inMemory;  // files[i] = "#i" refers to inMemory[i]
};

Samples samplesArgument(py::handle samples) {
  Samples out;
  if (py::isinstance<py::str>(samples) || py::hasattr(samples, "__fspath__")) {
    std::string dir = pathArgument(samples);
    out.files = take(listDataset(dir));
    if (out.files.empty())
      raise(Status::invalid(dir + ": dataset holds no sample (.npz, .npy, .jpg, .jpeg, .png, .bmp)"));
    return out;
  }
  if (!py::isinstance<py::sequence>(samples))
    raise(Status::invalid("samples: expected a dataset directory, a list of sample files or a list of dicts"));
  for (auto item : samples) {
    if (py::isinstance<py::dict>(item)) {
      out.files.push_back("#" + std::to_string(out.inMemory.size()));
      out.inMemory.push_back(tensorsFromDict(item, "samples[" + std::to_string(out.files.size() - 1) + "]"));
    } else {
      out.files.push_back(pathArgument(item));
    }
  }
  if (out.files.empty()) raise(Status::invalid("samples: no sample given"));
  return out;
}

CalibrationTable calibrateBinding(py::handle model, py::handle samples, const std::string& method, int64_t inputNum,
                                  int64_t tuneNum, int64_t histogramBins, bool we, bool bc, bool searchThreshold,
                                  const std::string& backend, int threads, const std::string& function,
                                  bool equalizeActivations) {
  if ((we || bc || equalizeActivations) && !py::isinstance<ModuleHandle>(model))
    raise(Status::invalid(
        "we/bc/equalize_activations rewrite the model's weights: pass a tosakit.Module (it is changed in place)"));
  CalibrationMethod parsedMethod = take(parseCalibrationMethod(method));
  std::string origin;
  std::shared_ptr<ir::Module> shared = sharedModelArgument(model, &origin);
  const ir::Function* fn = shared->function(function);
  if (!fn) raise(Status::invalid(origin + ": no function '" + function + "'"));
  Samples s = samplesArgument(samples);
  // Samples given in memory are prepared as loadSample prepares files.
  for (auto& sample : s.inMemory)
    sample = take(prepareInputs(*fn, InputSources::fromTensors(std::move(sample)))).tensors;
  CalibrateOptions o;
  o.module = shared.get();
  o.function = function;
  o.samples = s.files;
  o.loadSample = [fn, &s](const std::string& file) -> Result<NamedTensors> {
    if (!file.empty() && file[0] == '#') return s.inMemory[size_t(std::stoul(file.substr(1)))];
    return loadSample(file, *fn);
  };
  o.inputNum = inputNum;
  o.method = parsedMethod;
  o.tuneNum = tuneNum;
  o.histogramBins = histogramBins;
  o.weightEqualization = we;
  o.biasCorrection = bc;
  o.activationEqualization = equalizeActivations;
  o.searchThreshold = searchThreshold;
  o.session.backend = backend;
  if (threads < 0) raise(Status::invalid("threads must be >= 0 (0: the backend's default)"));
  if constexpr (requires { o.session.threads; }) o.session.threads = threads;
  auto table = [&] {
    py::gil_scoped_release release;
    return calibrate(o);
  }();
  return take(std::move(table));
}

std::map<std::string, QuantMode> layerModesArgument(py::handle qtable) {
  std::map<std::string, QuantMode> out;
  if (qtable.is_none()) return out;
  if (!py::isinstance<py::dict>(qtable)) return take(readQuantizeTable(pathArgument(qtable)));
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(qtable)) out[py::str(k)] = take(parseQuantMode(py::str(v)));
  return out;
}

// export_qdq(model, table, output, input_shapes=None, per_tensor=False): `tosakit export-qdq` (include/tosakit/qdq_export.h).
void exportQdqBinding(py::handle model, py::handle table, py::handle output, py::handle inputShapes, bool perTensor) {
  onnx::QdqExportOptions o;
  o.perTensor = perTensor;
  if (!inputShapes.is_none()) {
    if (!py::isinstance<py::dict>(inputShapes)) raise(Status::invalid("input_shapes: expected a dict name -> shape"));
    for (auto [k, v] : py::reinterpret_borrow<py::dict>(inputShapes)) {
      std::string name = py::str(k);
      o.import.inputShapes[name] = shapeArgument(v, name);
    }
  }
  CalibrationTable loaded;
  const CalibrationTable* t = nullptr;
  if (py::isinstance<CalibrationTable>(table)) {
    t = &table.cast<const CalibrationTable&>();
  } else {
    o.calibrationTableSource = pathArgument(table);
    loaded = take(readCalibrationTable(o.calibrationTableSource));
    t = &loaded;
  }
  const std::string in = pathArgument(model), out = pathArgument(output);
  py::gil_scoped_release release;
  Status s = onnx::exportQdq(in, *t, out, o);
  py::gil_scoped_acquire acquire;
  check(s);
}

ModuleHandle quantizeBinding(py::handle model, py::handle table, const std::string& mode, bool asymmetric,
                             bool perTensor, bool quantInput, bool quantOutput, bool fusePreprocess,
                             py::handle quantizeTable, const std::string& function) {
  std::string origin;
  std::shared_ptr<ir::Module> floatModel = sharedModelArgument(model, &origin);
  CalibrationTable loaded;
  const CalibrationTable* t = nullptr;
  if (py::isinstance<CalibrationTable>(table)) {
    t = &table.cast<const CalibrationTable&>();
  } else {
    loaded = take(readCalibrationTable(pathArgument(table)));
    t = &loaded;
  }
  QuantizeOptions o;
  o.mode = take(parseQuantMode(mode));
  o.asymmetric = asymmetric;
  o.perTensor = perTensor;
  o.quantInput = quantInput;
  o.quantOutput = quantOutput;
  o.fusePreprocess = fusePreprocess;
  o.layerModes = layerModesArgument(quantizeTable);
  o.function = function;
  auto q = [&] {
    py::gil_scoped_release release;
    return quantizeModel(*floatModel, *t, o);
  }();
  return ModuleHandle{std::shared_ptr<ir::Module>(take(std::move(q))), origin + " (" + quantModeName(o.mode) + ")"};
}

py::dict quantParamsDict(const std::map<std::string, TensorQuantParams>& params) {
  py::dict out;
  for (auto& [name, p] : params) out[py::str(name)] = py::make_tuple(p.scale, p.zeroPoint);
  return out;
}

std::map<std::string, TensorQuantParams> quantParamsArgument(py::handle arg, const std::string& function) {
  std::map<std::string, TensorQuantParams> out;
  if (arg.is_none()) return out;
  if (py::isinstance<ModuleHandle>(arg)) return recordedQuantParams(*arg.cast<ModuleHandle&>().module, function);
  if (!py::isinstance<py::dict>(arg))
    raise(Status::invalid("quant_params: expected a tosakit.Module or a dict name -> (scale, zero_point)"));
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(arg)) {
    try {
      auto [scale, zp] = v.cast<std::pair<double, int64_t>>();
      out[py::str(k)] = TensorQuantParams{scale, zp};
    } catch (const py::cast_error&) {
      raise(Status::invalid("quant_params['" + std::string(py::str(k)) + "']: expected (scale, zero_point)"));
    }
  }
  return out;
}

// A result set: a dict of arrays or an .npz file.
NamedTensors resultSetArgument(py::handle arg, const std::string& what) {
  if (py::isinstance<py::dict>(arg)) return tensorsFromDict(arg, what);
  return take(npy::readNpz(pathArgument(arg)));
}

void bindCompare(py::module_& m) {
  py::class_<TensorComparison>(m, "TensorComparison", "One row of a comparison.")
      .def_readonly("name", &TensorComparison::name)
      .def_readonly("shape", &TensorComparison::shape)
      .def_readonly("dequantized", &TensorComparison::dequantized)
      .def_readonly("cosine", &TensorComparison::cosine)
      .def_readonly("euclidean", &TensorComparison::euclidean)
      .def_readonly("sqnr", &TensorComparison::sqnr)
      .def_readonly("max_abs_diff", &TensorComparison::maxAbsDiff)
      .def_readonly("passed", &TensorComparison::pass)
      .def_readonly("note", &TensorComparison::note);
  py::class_<CompareReport>(m, "CompareReport", "Tensor-by-tensor similarity of two result sets.")
      .def_readonly("rows", &CompareReport::rows)
      .def_readonly("only_in_a", &CompareReport::onlyInA)
      .def_readonly("only_in_b", &CompareReport::onlyInB)
      .def_property_readonly("all_pass", &CompareReport::allPass)
      .def("__bool__", &CompareReport::allPass);
  m.def(
      "compare",
      [](py::handle a, py::handle b, double minCosine, double minEuclidean, std::vector<std::string> excepts,
         py::handle quantParams, const std::string& function) {
        CompareOptions o;
        o.minCosine = minCosine;
        o.minEuclidean = minEuclidean;
        o.excepts = std::set<std::string>(excepts.begin(), excepts.end());
        o.quantParams = quantParamsArgument(quantParams, function);
        NamedTensors ta = resultSetArgument(a, "a"), tb = resultSetArgument(b, "b");
        py::gil_scoped_release release;
        return compareTensors(ta, tb, o);
      },
      py::arg("a"), py::arg("b"), py::arg("min_cosine") = 0.99, py::arg("min_euclidean") = 0.9,
      py::arg("excepts") = std::vector<std::string>{}, py::arg("quant_params") = py::none(),
      py::arg("function") = "main");
}

// verify_quantized: verifyQuantizedModel (include/tosakit/quantize_model.h), `quantize --test-input`'s check.
void bindVerifyQuantized(py::module_& m) {
  py::class_<QuantizeVerification>(m, "QuantizeVerification",
                                   "A quantized model's outputs against reference outputs, and its layers against "
                                   "the float model's on the same input.")
      .def_readonly("outputs", &QuantizeVerification::outputs)
      .def_readonly("layers", &QuantizeVerification::layers)
      .def_property_readonly("passed", [](const QuantizeVerification& v) { return v.verdict.isOk(); })
      .def("__bool__", [](const QuantizeVerification& v) { return v.verdict.isOk(); });
  m.def(
      "verify_quantized",
      [](py::handle floatModel, py::handle quantized, py::handle testInput, py::handle testReference, double minCosine,
         double minEuclidean, const std::string& backend, int threads) {
        auto f = sharedModelArgument(floatModel);
        auto q = sharedModelArgument(quantized);
        QuantizeTestOptions o;
        o.testInput = pathArgument(testInput);
        o.testReference = pathArgument(testReference);
        o.minCosine = minCosine;
        o.minEuclidean = minEuclidean;
        o.session.backend = backend;
        if (threads < 0) raise(Status::invalid("must be >= 0 (0: the backend's default)").withParameter("threads"));
        if constexpr (requires { o.session.threads; }) o.session.threads = threads;
        auto v = [&] {
          py::gil_scoped_release release;
          return verifyQuantizedModel(*f, *q, o);
        }();
        return take(std::move(v));
      },
      py::arg("float_model"), py::arg("quantized"), py::arg("test_input"), py::arg("test_reference"),
      py::arg("min_cosine") = 0.99, py::arg("min_euclidean") = 0.95, py::arg("backend") = "fast",
      py::arg("threads") = 0);
}

void bindQuantize(py::module_& m) {
  bindCalibrationTable(m);
  m.def("calibrate", &calibrateBinding, py::arg("model"), py::arg("samples"), py::arg("method") = "kld",
        py::arg("input_num") = 0, py::arg("tune_num") = 5, py::arg("histogram_bins") = 2048, py::arg("we") = false,
        py::arg("bc") = false, py::arg("search_threshold") = false, py::arg("backend") = "fast", py::arg("threads") = 0,
        py::arg("function") = "main", py::arg("equalize_activations") = false);
  m.def("quantize", &quantizeBinding, py::arg("model"), py::arg("table"), py::arg("mode") = "INT8",
        py::arg("asymmetric") = false, py::arg("per_tensor") = false, py::arg("quant_input") = false,
        py::arg("quant_output") = false, py::arg("fuse_preprocess") = false, py::arg("quantize_table") = py::none(),
        py::arg("function") = "main");
  m.def("export_qdq", &exportQdqBinding, py::arg("model"), py::arg("table"), py::arg("output"),
        py::arg("input_shapes") = py::none(), py::arg("per_tensor") = false,
        "Write the float ONNX model as an ONNX QDQ model quantized by the calibration table (export-qdq).");
  m.def(
      "load_sample",
      [](py::handle model, py::handle path, const std::string& function) {
        std::string origin;
        auto mod = sharedModelArgument(model, &origin);
        const ir::Function* fn = mod->function(function);
        if (!fn) raise(Status::invalid(origin + ": no function '" + function + "'"));
        return dictFromTensors(take(loadSample(pathArgument(path), *fn)));
      },
      py::arg("model"), py::arg("path"), py::arg("function") = "main",
      "One sample file (.npz by input names; .npy or an image preprocessed by the recorded recipe for a "
      "single-input model) as the model's inputs, as calibrate and run read it.");
  m.def(
      "quant_params",
      [](const ModuleHandle& h, const std::string& function) {
        return quantParamsDict(recordedQuantParams(*h.module, function));
      },
      py::arg("module"), py::arg("function") = "main",
      "Scale and zero point each quantized tensor records: name -> (scale, zero_point).");
  bindCompare(m);
  bindVerifyQuantized(m);
}
#endif

#ifdef TOSAKIT_PY_CHECK
TensorSource sourceArgument(py::handle arg, const std::string& what) {
  TensorSource s;
  if (arg.is_none()) return s;
  if (py::isinstance<py::dict>(arg))
    s.tensors = tensorsFromDict(arg, what);
  else
    s.path = pathArgument(arg);
  return s;
}

void bindCheck(py::module_& m) {
  py::class_<CheckEntry>(m, "CheckEntry", "One judged tensor of a check report.")
      .def_readonly("name", &CheckEntry::name)
      .def_readonly("op", &CheckEntry::op)
      .def_readonly("location", &CheckEntry::location)
      .def_readonly("rule", &CheckEntry::rule)
      .def_readonly("section", &CheckEntry::section)
      .def_property_readonly("verdict", [](const CheckEntry& e) { return std::string(verdictName(e.verdict)); })
      .def_readonly("worst", &CheckEntry::worst)
      .def_readonly("worst_index", &CheckEntry::worstIndex)
      .def_readonly("reason", &CheckEntry::reason);
  py::class_<CheckReport>(m, "CheckReport", "The verdicts of `check`.")
      .def_readonly("per_op", &CheckReport::perOp)
      .def_readonly("entries", &CheckReport::entries)
      .def_readonly("notes", &CheckReport::notes)
      .def_property_readonly("compliant", &CheckReport::compliant)  // no result NOT compliant
      .def_property_readonly(
          "verdict", [](const CheckReport& r) { return std::string(verdictName(r.verdict())); },
          "The report's verdict: 'compliant', 'NOT compliant', or 'not judged' (a result without a verdict, "
          "unless allow_not_judged)")
      .def_property_readonly("exit_code", &CheckReport::exitCode, "What `tosakit check` exits with: 0, 1 or 7")
      .def_readonly("allow_not_judged", &CheckReport::allowNotJudged)
      .def("to_text", [](const CheckReport& r) { return r.toText(); })
      .def("to_json", [](const CheckReport& r) { return r.toJson(); })
      .def("__bool__", [](const CheckReport& r) { return r.verdict() == Verdict::Compliant; });
  m.def(
      "check",
      [](py::handle model, py::handle result, py::handle inputs, py::handle reference, py::handle bounds,
         py::handle intermediates, const std::string& mode, int testSet, const std::string& function,
         const std::string& backend, int threads, bool perOp, bool allowNotJudged) {
        CheckOptions o;
        std::shared_ptr<ir::Module> keep;
        if (py::isinstance<ModuleHandle>(model)) {
          keep = model.cast<ModuleHandle&>().module;
          o.module = keep.get();
        } else {
          o.model = pathArgument(model);
        }
        o.function = function;
        o.result = sourceArgument(result, "result");
        o.inputs = sourceArgument(inputs, "inputs");
        o.reference = sourceArgument(reference, "reference");
        o.bounds = sourceArgument(bounds, "bounds");
        o.intermediates = sourceArgument(intermediates, "intermediates");
        o.mode = mode;
        o.testSet = testSet;
        o.backend = backend;  // set instead of `result`: judge that backend's own run on `inputs`
        o.threads = threads;
        o.backendIntermediates = perOp;
        o.allowNotJudged = allowNotJudged;
        auto report = [&] {
          py::gil_scoped_release release;
          return checkResults(o);
        }();
        return take(std::move(report));
      },
      py::arg("model"), py::arg("result") = py::none(), py::arg("inputs") = py::none(),
      py::arg("reference") = py::none(), py::arg("bounds") = py::none(), py::arg("intermediates") = py::none(),
      py::arg("mode") = "", py::arg("test_set") = -1, py::arg("function") = "main", py::arg("backend") = "",
      py::arg("threads") = 0, py::arg("per_op") = false, py::arg("allow_not_judged") = false);
}
#endif

}  // namespace

void bindTools(py::module_& m) {
#ifdef TOSAKIT_PY_QUANTIZE
  bindQuantize(m);
#endif
#ifdef TOSAKIT_PY_CHECK
  bindCheck(m);
#endif
}

}  // namespace tosakit::py_bind
