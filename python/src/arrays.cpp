// numpy <-> Tensor. Types numpy lacks follow docs/NUMPY.md (bf16 as uint16 bits, fp8 as uint8 bits, i4 as
// int8, i48 as int64), the same convention as the .npy/.npz files the CLI reads and writes.
#include <cstring>

#include "bindings.h"
#include "tosakit/npz.h"

namespace tosakit::py_bind {

static std::optional<DType> dtypeOfNumpy(const py::dtype& d) {
  char kind = d.kind();
  size_t size = size_t(d.itemsize());
  if (kind == 'b' && size == 1) return DType::Bool;
  if (kind == 'i' && size == 1) return DType::I8;
  if (kind == 'i' && size == 2) return DType::I16;
  if (kind == 'i' && size == 4) return DType::I32;
  if (kind == 'i' && size == 8) return DType::I64;
  if (kind == 'u' && size == 1) return DType::U8;
  if (kind == 'u' && size == 2) return DType::U16;
  if (kind == 'u' && size == 4) return DType::U32;
  if (kind == 'f' && size == 2) return DType::FP16;
  if (kind == 'f' && size == 4) return DType::FP32;
  if (kind == 'f' && size == 8) return DType::FP64;
  return std::nullopt;
}

static const char* numpyName(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::I8: return "int8";
    case DType::I16: return "int16";
    case DType::I32: return "int32";
    case DType::I64: return "int64";
    case DType::U8: return "uint8";
    case DType::U16: return "uint16";
    case DType::U32: return "uint32";
    case DType::FP16: return "float16";
    case DType::FP32: return "float32";
    case DType::FP64: return "float64";
    default: return nullptr;  // converted by npy::toNumpyDType first
  }
}

Tensor tensorFromArray(py::handle obj, const std::string& what) {
  if (!py::isinstance<py::array>(obj))
    raise(Status::invalid(what + ": expected a numpy array, got " +
                          std::string(py::str(obj.get_type().attr("__name__")))));
  auto arr = py::reinterpret_borrow<py::array>(obj);
  auto dt = dtypeOfNumpy(arr.dtype());
  if (!dt)
    raise(Status::invalid(what + ": unsupported dtype '" + std::string(py::str(arr.dtype().attr("str"))) +
                          "' (tosakit reads bool, int8/16/32/64, uint8/16/32, float16/32/64)"));
  // Native byte order, C order (copies only when the array is not already so).
  if (arr.dtype().attr("byteorder").cast<std::string>() == ">")
    arr = arr.attr("astype")(arr.dtype().attr("newbyteorder")("="));
  auto c = py::array::ensure(arr, py::array::c_style);
  if (!c) throw py::error_already_set();
  Shape shape(c.shape(), c.shape() + c.ndim());
  Tensor t(*dt, shape);
  if (t.byteSize()) std::memcpy(t.data(), c.data(), t.byteSize());
  return t;
}

Tensor tensorFromArray(py::handle obj, DType want, const std::string& what) {
  Tensor t = tensorFromArray(obj, what);
  if (t.dtype() == want) return t;
  return take(npy::adaptToDType(t, want, what));
}

py::array arrayFromTensor(Tensor t) {
  if (!numpyName(t.dtype())) t = npy::toNumpyDType(t);
  auto* owned = new Tensor(std::move(t));
  py::capsule owner(owned, [](void* p) { delete static_cast<Tensor*>(p); });
  std::vector<py::ssize_t> shape(owned->shape().begin(), owned->shape().end());
  py::dtype dt(numpyName(owned->dtype()));
  if (owned->byteSize() == 0) return py::array(dt, shape);
  return py::array(dt, shape, {}, owned->data(), owner);
}

py::dict dictFromTensors(NamedTensors ts) {
  py::dict d;
  for (auto& [name, t] : ts) d[py::str(name)] = arrayFromTensor(std::move(t));
  return d;
}

NamedTensors tensorsFromDict(py::handle d, const std::string& what) {
  if (!py::isinstance<py::dict>(d)) raise(Status::invalid(what + ": expected a dict of name -> numpy array"));
  NamedTensors out;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(d)) {
    if (!py::isinstance<py::str>(k)) raise(Status::invalid(what + ": names must be strings"));
    std::string name = k.cast<std::string>();
    out.emplace_back(name, tensorFromArray(v, what + ": '" + name + "'"));
  }
  return out;
}

}  // namespace tosakit::py_bind
