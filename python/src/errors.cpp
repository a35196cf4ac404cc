// Status -> tosakit.errors exception (the classes live in python/tosakit/errors.py).
#include "bindings.h"

namespace tosakit::py_bind {

static const char* className(StatusCode c) {
  switch (c) {
    case StatusCode::SpecError: return "SpecError";
    case StatusCode::Unpredictable: return "Unpredictable";
    case StatusCode::InvalidArgument: case StatusCode::ParseError: case StatusCode::IOError: return "BadInput";
    case StatusCode::Unsupported: return "Unsupported";
    case StatusCode::Ok: case StatusCode::Internal: break;
  }
  return "InternalError";
}

void raise(const Status& s) {
  py::object make = py::module_::import("tosakit.errors").attr("_make");
  py::object op = py::none(), location = py::none(), condition = py::none();
  if (const auto& v = s.verdict()) {
    op = py::str(v->op);
    location = py::str(v->location);
    condition = py::str(v->condition);
  }
  py::object exc = make(className(s.code()), std::string(statusCodeName(s.code())), s.message(), op, location,
                        condition);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  throw py::error_already_set();
}

void bindErrors(py::module_& m) {
  // Kind names and exit codes as the CLI reports them, for tests and tools that map one to the other.
  py::dict kinds;
  for (StatusCode c : {StatusCode::InvalidArgument, StatusCode::ParseError, StatusCode::IOError,
                       StatusCode::Unsupported, StatusCode::SpecError, StatusCode::Unpredictable,
                       StatusCode::Internal})
    kinds[py::str(std::string(statusCodeName(c)))] = py::str(className(c));
  m.attr("_error_kinds") = kinds;
}

}  // namespace tosakit::py_bind
