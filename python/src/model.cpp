// tosakit.Module, load/save/convert/validate/version and the extension module's entry point.
#include <pybind11/stl.h>

#include "bindings.h"
#include "formats/mlir/mlir_io.h"
#include "ir/module_clone.h"
#include "ir/validate.h"
#include "tosakit/inspect.h"
#include "tosakit/model_io.h"

namespace tosakit::py_bind {

std::string pathArgument(py::handle path) {
  if (py::isinstance<py::str>(path)) return path.cast<std::string>();
  py::object fspath = py::module_::import("os").attr("fspath");
  try {
    py::object p = fspath(path);
    if (py::isinstance<py::str>(p)) return p.cast<std::string>();
  } catch (const py::error_already_set&) {}
  raise(Status::invalid("expected a path (str or os.PathLike) or a tosakit.Module, got " +
                        std::string(py::str(path.get_type().attr("__name__")))));
}

std::shared_ptr<ir::Module> sharedModelArgument(py::handle model, std::string* origin) {
  if (py::isinstance<ModuleHandle>(model)) {
    auto& h = model.cast<ModuleHandle&>();
    if (origin) *origin = h.origin;
    return h.module;
  }
  std::string path = pathArgument(model);
  if (origin) *origin = path;
  return take(loadModelWithQuantParams(path));
}

std::unique_ptr<ir::Module> modelArgument(py::handle model, std::string* origin) {
  if (py::isinstance<ModuleHandle>(model)) {
    auto& h = model.cast<ModuleHandle&>();
    if (origin) *origin = h.origin;
    return ir::cloneModule(*h.module);
  }
  std::string path = pathArgument(model);
  if (origin) *origin = path;
  return take(loadModelWithQuantParams(path));
}

static const ir::Function& functionOf(const ModuleHandle& h, const std::string& name) {
  if (const ir::Function* f = h.module->function(name)) return *f;
  std::string avail;
  for (auto& f : h.module->functions) avail += (avail.empty() ? "" : ", ") + f->name;
  raise(Status::invalid(h.origin + ": no function '" + name + "' (available: " + avail + ")"));
}

static py::tuple typeTuple(const std::string& name, const ir::ValueType& t) {
  return py::make_tuple(name, std::string(dtypeName(t.dtype)), py::tuple(py::cast(t.dims)));
}

static void bindModuleClass(py::module_& m) {
  py::class_<ModuleHandle>(m, "Module", "A TOSA module (functions, variables, target), loaded or built.")
      .def_property_readonly("origin", [](const ModuleHandle& h) { return h.origin; })
      .def_property_readonly("functions",
                             [](const ModuleHandle& h) {
                               std::vector<std::string> names;
                               for (auto& f : h.module->functions) names.push_back(f->name);
                               return names;
                             })
      .def(
          "input_names",
          [](const ModuleHandle& h, const std::string& fn) {
            const ir::Function& f = functionOf(h, fn);
            std::vector<std::string> names;
            for (size_t i = 0; i < f.inputs().size(); ++i) names.push_back(f.inputName(i));
            return names;
          },
          py::arg("function") = "main")
      .def(
          "output_names",
          [](const ModuleHandle& h, const std::string& fn) {
            const ir::Function& f = functionOf(h, fn);
            std::vector<std::string> names;
            for (size_t i = 0; i < f.resultTypes.size(); ++i) names.push_back(f.outputName(i));
            return names;
          },
          py::arg("function") = "main")
      .def(
          "input_types",
          [](const ModuleHandle& h, const std::string& fn) {
            const ir::Function& f = functionOf(h, fn);
            py::list out;
            for (size_t i = 0; i < f.inputs().size(); ++i) out.append(typeTuple(f.inputName(i), f.inputs()[i]->type));
            return out;
          },
          py::arg("function") = "main")
      .def(
          "output_types",
          [](const ModuleHandle& h, const std::string& fn) {
            const ir::Function& f = functionOf(h, fn);
            py::list out;
            for (size_t i = 0; i < f.resultTypes.size(); ++i) out.append(typeTuple(f.outputName(i), f.resultTypes[i]));
            return out;
          },
          py::arg("function") = "main")
      .def("to_mlir", [](const ModuleHandle& h) { return take(mlirio::exportMlir(*h.module)); })
      .def("__repr__", [](const ModuleHandle& h) {
        std::string fns;
        for (auto& f : h.module->functions) fns += (fns.empty() ? "" : ", ") + f->name;
        return "<tosakit.Module " + h.origin + " functions: " + fns + ">";
      });
}

static ir::TargetEnv targetOf(const ir::Module& m) { return m.target ? *m.target : ir::TargetEnv::all(); }

void bindModel(py::module_& m) {
  bindModuleClass(m);
  m.def(
      "load",
      [](py::handle path) {
        std::string p = pathArgument(path);
        return ModuleHandle{std::shared_ptr<ir::Module>(take(loadModelWithQuantParams(p))), p};
      },
      py::arg("path"), "Load a model (.mlir MLIR TOSA text, .spv SPIR-V, .tosa TOSA flatbuffer) by extension.");
  m.def(
      "save",
      [](const ModuleHandle& h, py::handle path) {
        std::string p = pathArgument(path);
        Status s = [&] {
          py::gil_scoped_release release;
          return saveModelWithQuantParams(*h.module, p);
        }();
        check(s);  // raising needs the GIL
      },
      py::arg("module"), py::arg("path"),
      "Save a model by extension (.mlir, .spv or .tosa; a quantized .spv also writes OUT.spv.qparams.json); "
      "atomic.");
  m.def(
      "convert",
      [](py::handle in, py::handle out) {
        auto mod = take(loadModelWithQuantParams(pathArgument(in)));
        check(saveModelWithQuantParams(*mod, pathArgument(out)));
      },
      py::arg("input"), py::arg("output"), "Convert between .mlir, .spv and .tosa (the `convert` verb).");
  m.def(
      "dis", [](py::handle path) { return take(disassembleModel(pathArgument(path))); }, py::arg("path"),
      "Readable text of a .spv or .tosa file (the `dis` verb).");
  m.def(
      "validate",
      [](py::handle model) {
        std::string origin;
        auto mod = sharedModelArgument(model, &origin);
        std::vector<std::string> lines;
        for (const auto& d : ir::validateModule(*mod, targetOf(*mod))) lines.push_back(d.toString());
        return lines;
      },
      py::arg("model"), "Static checks (the `validate` verb): the list of violations, empty when the model is valid.");
  m.def("version", []() { return std::string(TOSAKIT_VERSION); });
}

}  // namespace tosakit::py_bind

PYBIND11_MODULE(_tosakit, m) {
  using namespace tosakit::py_bind;
  m.doc() = "tosakit: TOSA 1.0 toolchain (C++ bindings; import the `tosakit` package instead)";
  bindErrors(m);
  bindModel(m);
  bindSession(m);
  bindTools(m);
  bindLang(m);
  bindInspect(m);
}
