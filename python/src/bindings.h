// Shared pieces of the Python bindings: Status -> Python exception, numpy <-> Tensor, models given as a
// tosakit.Module or a path. Bindings only: every function here converts and forwards to the C++ library.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit::py_bind {

namespace py = pybind11;

// Raises the tosakit.errors class of the status (BadInput, SpecError, ...) with the CLI's kind and message.
[[noreturn]] void raise(const Status& s);
inline void check(const Status& s) {
  if (!s) raise(s);
}
template <typename T>
T take(Result<T>&& r) {
  if (!r) raise(r.status());
  return std::move(r).value();
}

// A loaded or built module. Python shares it; a Session gets its own copy (Session owns its module).
struct ModuleHandle {
  std::shared_ptr<ir::Module> module;
  std::string origin;  // file it came from, or "<import_onnx>" etc.
};

// A sequence of non-negative ints (input_shapes['name'] of import_onnx, export_qdq).
Shape shapeArgument(py::handle dims, const std::string& name);
// A tosakit.Module or a path (str / os.PathLike) -> a module the caller owns.
std::unique_ptr<ir::Module> modelArgument(py::handle model, std::string* origin = nullptr);
// Same, without copying when given a tosakit.Module.
std::shared_ptr<ir::Module> sharedModelArgument(py::handle model, std::string* origin = nullptr);
std::string pathArgument(py::handle path);

// numpy -> Tensor of numpy's dtype (one copy; bool, int8..64, uint8..32, float16/32/64).
Tensor tensorFromArray(py::handle obj, const std::string& what);
// numpy -> Tensor of the declared dtype (bf16 from uint16 bits, fp8 from uint8 bits, i4/i48 range-checked).
Tensor tensorFromArray(py::handle obj, DType want, const std::string& what);
// Tensor -> numpy without copying (the array owns the tensor); types numpy lacks as in docs/NUMPY.md.
py::array arrayFromTensor(Tensor t);
py::dict dictFromTensors(NamedTensors ts);
NamedTensors tensorsFromDict(py::handle d, const std::string& what);

void bindErrors(py::module_& m);
void bindModel(py::module_& m);
void bindSession(py::module_& m);
void bindTools(py::module_& m);
void bindLang(py::module_& m);
void bindInspect(py::module_& m);

}  // namespace tosakit::py_bind
