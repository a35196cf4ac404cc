// Helpers for the ONNX frontend tests: a tiny protobuf writer to build ONNX models by hand (independent of the
// ONNX library the importer uses), and running an imported module on the reference backend.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "frontends/onnx/onnx_import.h"
#include "tosakit/session.h"

namespace tosakit::onnxtest {

// Protobuf wire format: varint (type 0), length-delimited (type 2), fixed32 (type 5).
class Pb {
 public:
  Pb& varint(int field, uint64_t v) {
    key(field, 0);
    raw(v);
    return *this;
  }
  Pb& bytes(int field, const std::string& s) {
    key(field, 2);
    raw(s.size());
    out_ += s;
    return *this;
  }
  Pb& msg(int field, const Pb& m) { return bytes(field, m.str()); }
  Pb& f32(int field, float f) {
    key(field, 5);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    for (int i = 0; i < 4; ++i) out_ += char((u >> (8 * i)) & 0xff);
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  void key(int field, int type) { raw(uint64_t(field) << 3 | uint64_t(type)); }
  void raw(uint64_t v) {
    do {
      uint8_t b = v & 0x7f;
      v >>= 7;
      out_ += char(v ? b | 0x80 : b);
    } while (v);
  }
  std::string out_;
};

// onnx.proto field numbers (ONNX 1.12).
inline Pb tensorType(const std::vector<int64_t>& dims, int elemType = 1 /*FLOAT*/) {
  Pb shape;
  for (int64_t d : dims) shape.msg(1, Pb().varint(1, uint64_t(d)));  // TensorShapeProto.dim.dim_value
  Pb tensor;
  tensor.varint(1, uint64_t(elemType)).msg(2, shape);  // TypeProto.Tensor
  return Pb().msg(1, tensor);                          // TypeProto.tensor_type
}
inline Pb valueInfo(const std::string& name, const std::vector<int64_t>& dims) {
  return Pb().bytes(1, name).msg(2, tensorType(dims));
}
inline Pb floatTensor(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
  Pb t;
  for (int64_t d : dims) t.varint(1, uint64_t(d));  // dims
  t.varint(2, 1);                                   // data_type FLOAT
  for (float f : v) t.f32(4, f);                    // float_data (unpacked encoding is accepted)
  t.bytes(8, name);
  return t;
}
inline Pb int64Tensor(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
  Pb t;
  for (int64_t d : dims) t.varint(1, uint64_t(d));
  t.varint(2, 7);                                // data_type INT64
  for (int64_t x : v) t.varint(7, uint64_t(x));  // int64_data
  t.bytes(8, name);
  return t;
}
inline Pb intAttr(const std::string& name, int64_t v) {
  return Pb().bytes(1, name).varint(3, uint64_t(v)).varint(20, 2);
}
struct NodeSpec {
  std::string op, name;
  std::vector<std::string> inputs, outputs;
  std::vector<Pb> attrs;
};
inline Pb node(const NodeSpec& n) {
  Pb p;
  for (auto& i : n.inputs) p.bytes(1, i);
  for (auto& o : n.outputs) p.bytes(2, o);
  p.bytes(3, n.name).bytes(4, n.op);
  for (auto& a : n.attrs) p.msg(5, a);
  return p;
}
inline Pb intsAttr(const std::string& name, const std::vector<int64_t>& v) {
  Pb a;
  a.bytes(1, name);
  for (int64_t x : v) a.varint(8, uint64_t(x));
  return a.varint(20, 7);  // type INTS
}
inline Pb floatAttr(const std::string& name, float f) { return Pb().bytes(1, name).f32(2, f).varint(20, 1); }
inline std::string model(const Pb& graph, int opset = 13) {
  return Pb().varint(1, 8).msg(8, Pb().bytes(1, "").varint(2, uint64_t(opset))).msg(7, graph).str();
}

inline std::string tempPath(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "tosakit_onnx_tests";
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}
inline std::string writeTemp(const std::string& name, const std::string& bytes) {
  std::string p = tempPath(name);
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

inline int countOps(const ir::Module& m, const std::string& name) {
  int n = 0;
  for (auto& f : m.functions)
    for (auto& op : f->body.ops) n += op->name == name;
  return n;
}

// rtol/atol comparison as numpy.testing.assert_allclose.
inline void expectClose(const Tensor& got, const Tensor& want, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  int bad = 0;
  for (int64_t i = 0; i < want.size() && bad < 5; ++i) {
    double g = got.getFloat(i), w = want.getFloat(i);
    if (std::isnan(w) && std::isnan(g)) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w))) {
      ADD_FAILURE() << what << " [" << i << "]: got " << g << ", want " << w;
      ++bad;
    }
  }
}

}  // namespace tosakit::onnxtest
