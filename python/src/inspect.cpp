// info, cut, graph: the library functions the CLI verbs of the same names call (include/tosakit/inspect.h).
// Bound when tosakit_inspect is built.
#include <pybind11/stl.h>

#include "bindings.h"

#if defined(HAVE_TOSAKIT_INSPECT)
#include "core/file_io.h"
#include "tosakit/inspect.h"
#endif

namespace tosakit::py_bind {

#if defined(HAVE_TOSAKIT_INSPECT)
namespace {

// A tosakit.Module, or a path to any model `tosakit info` reads (.mlir, .spv, .onnx).
std::shared_ptr<ir::Module> inspectableModel(py::handle model) {
  if (py::isinstance<ModuleHandle>(model)) return model.cast<ModuleHandle&>().module;
  return std::shared_ptr<ir::Module>(take(loadInspectableModel(pathArgument(model))));
}

py::dict infoBinding(py::handle model, const std::string& function, bool plan) {
  auto module = inspectableModel(model);
  InfoOptions opts;
  opts.function = function;
  opts.plan = plan;
  auto info = [&] {
    py::gil_scoped_release release;
    return inspectModel(*module, opts);
  }();
  const std::string json = modelInfoJson(take(std::move(info)));
  return py::module_::import("json").attr("loads")(json).cast<py::dict>();
}

ModuleHandle cutBinding(py::handle model, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const std::string& function) {
  auto module = inspectableModel(model);
  CutOptions opts;
  opts.function = function;
  opts.inputs = inputs;
  opts.outputs = outputs;
  auto sub = take(cutModel(*module, opts));
  return ModuleHandle{std::shared_ptr<ir::Module>(std::move(sub)), "<cut>"};
}

py::object graphBinding(py::handle model, py::handle output, const std::string& function, bool collapseConstants) {
  auto module = inspectableModel(model);
  GraphOptions opts;
  opts.function = function;
  opts.collapseConstants = collapseConstants;
  if (output.is_none()) return py::str(take(graphDot(*module, opts)));
  const std::string path = pathArgument(output);
  Status s = [&] {
    py::gil_scoped_release release;
    return writeGraph(*module, path, opts);
  }();
  check(s);
  return py::none();
}

py::object visualBinding(py::handle floatModel, py::handle quantModel, py::handle samples, py::handle output,
                         double minCosine, double minEuclidean, const std::string& function,
                         const std::string& backend) {
  auto f = inspectableModel(floatModel);
  auto q = inspectableModel(quantModel);
  std::vector<NamedTensors> sampleSets;
  if (py::isinstance<py::dict>(samples))
    sampleSets.push_back(tensorsFromDict(samples, "samples"));
  else
    for (py::handle s : samples) sampleSets.push_back(tensorsFromDict(s, "samples"));
  VisualOptions opts;
  opts.function = function;
  opts.graph.function = function;
  opts.backend = backend;
  opts.minCosine = minCosine;
  opts.minEuclidean = minEuclidean;
  auto html = [&] {
    py::gil_scoped_release release;
    return visualReport(*f, *q, sampleSets, opts);
  }();
  std::string page = take(std::move(html));
  if (output.is_none()) return py::str(page);
  check(writeFileAtomic(pathArgument(output), page));
  return py::none();
}

}  // namespace

void bindInspect(py::module_& m) {
  m.def("info", &infoBinding, py::arg("model"), py::arg("function") = "main", py::arg("plan") = true,
        "What a model contains (the `info` verb's --json object as a dict).");
  m.def("cut", &cutBinding, py::arg("model"), py::arg("inputs"), py::arg("outputs"), py::arg("function") = "main",
        "The subgraph from the named tensors to the named outputs (the `cut` verb), as a new Module.");
  m.def("graph", &graphBinding, py::arg("model"), py::arg("output") = py::none(), py::arg("function") = "main",
        py::arg("collapse_constants") = false,
        "Draw the graph (the `graph` verb) to output (.svg, .dot, .html); without output, return the DOT text.");
  m.def("visual", &visualBinding, py::arg("float_model"), py::arg("quant_model"), py::arg("samples"),
        py::arg("output") = py::none(), py::arg("min_cosine") = 0.99, py::arg("min_euclidean") = 0.9,
        py::arg("function") = "main", py::arg("backend") = "fast",
        "Float vs quantized report (the `visual` verb) on samples (a dict of arrays or a list of them); "
        "writes output (.html) or returns the page.");
}
#else
void bindInspect(py::module_&) {}
#endif

}  // namespace tosakit::py_bind
