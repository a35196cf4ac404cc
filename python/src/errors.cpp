// Status -> tosakit.errors exception (the classes live in python/tosakit/errors.py).
#include "bindings.h"

namespace tosakit::py_bind {

static const char* className(StatusCode c) {
  switch (c) {
    case StatusCode::SpecError: return "SpecError";
    case StatusCode::Unpredictable: return "Unpredictable";
    case StatusCode::InvalidArgument:
    case StatusCode::ParseError:
    case StatusCode::IOError: return "BadInput";
    case StatusCode::Unsupported: return "Unsupported";
    case StatusCode::Ok:
    case StatusCode::Internal: break;
  }
  return "InternalError";
}

static py::object exceptionFor(const Status& s) {
  py::object make = py::module_::import("tosakit.errors").attr("_make");
  py::object op = py::none(), location = py::none(), condition = py::none();
  if (const auto& v = s.verdict()) {
    op = py::str(v->op);
    location = py::str(v->location);
    condition = py::str(v->condition);
  }
  // A library parameter is worded as this door's keyword: "histogram_bins: <message>".
  if (!s.parameter().empty())
    return make(className(s.code()), std::string(statusCodeName(s.code())), s.parameter() + ": " + s.message(), op,
                location, condition, py::str(s.parameter()));
  return make(className(s.code()), std::string(statusCodeName(s.code())), s.message(), op, location, condition);
}

static void setPythonError(const Status& s) {
  py::object exc = exceptionFor(s);
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
}

void raise(const Status& s) {
  setPythonError(s);
  throw py::error_already_set();
}

void bindErrors(py::module_& m) {
  // A C++ exception escaping the library is a bug: tosakit.InternalError (exit code 6), as the CLI reports it,
  // never an abort. Python's own errors and MemoryError keep their types.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::error_already_set&) { throw; } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::bad_alloc&) { throw; } catch (const std::exception& e) {
      setPythonError(Status::internal(std::string("unexpected C++ exception: ") + e.what()));
    }
  });
  // Kind names and exit codes as the CLI reports them, for tests and tools that map one to the other.
  py::dict kinds;
  for (StatusCode c : {StatusCode::InvalidArgument, StatusCode::ParseError, StatusCode::IOError,
                       StatusCode::Unsupported, StatusCode::SpecError, StatusCode::Unpredictable, StatusCode::Internal})
    kinds[py::str(std::string(statusCodeName(c)))] = py::str(className(c));
  m.attr("_error_kinds") = kinds;
}

}  // namespace tosakit::py_bind
