// consumer MODEL.onnx NAME=D0xD1x... INPUTS.npz OUT.npz: imports an ONNX model with that input shape, runs it on
// the fast backend on the inputs and writes the outputs, using only tosakit's installed public headers.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tosakit/import.h"
#include "tosakit/npz.h"
#include "tosakit/session.h"

namespace {

int fail(const tosakit::Status& s) {
  std::fprintf(stderr, "consumer: %s\n", s.toString().c_str());
  return 1;
}

// "x=1x3x48x192" -> name "x", shape {1, 3, 48, 192}.
bool parseShape(const std::string& spec, std::string& name, tosakit::Shape& shape) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos) return false;
  name = spec.substr(0, eq);
  std::string dims = spec.substr(eq + 1);
  for (size_t at = 0; at <= dims.size();) {
    size_t x = dims.find('x', at);
    if (x == std::string::npos) x = dims.size();
    shape.push_back(std::strtoll(dims.substr(at, x - at).c_str(), nullptr, 10));
    at = x + 1;
  }
  return !name.empty();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: consumer MODEL.onnx NAME=SHAPE INPUTS.npz OUT.npz\n");
    return 2;
  }
  tosakit::onnx::OnnxImportOptions options;
  std::string name;
  tosakit::Shape shape;
  if (!parseShape(argv[2], name, shape)) return fail(tosakit::Status::invalid(std::string("bad shape ") + argv[2]));
  options.inputShapes[name] = shape;
  auto module = tosakit::onnx::importOnnx(argv[1], options);
  if (!module) return fail(module.status());
  auto inputs = tosakit::npy::readNpz(argv[3]);
  if (!inputs) return fail(inputs.status());
  tosakit::SessionOptions sessionOptions;
  sessionOptions.backend = "fast";
  auto session = tosakit::Session::create(std::move(*module), sessionOptions);
  if (!session) return fail(session.status());
  tosakit::RunResult result;
  if (tosakit::Status s = (*session)->run(*inputs, result); !s) return fail(s);
  if (tosakit::Status s = tosakit::npy::writeNpz(argv[4], result.outputs); !s) return fail(s);
  for (const auto& [outName, t] : result.outputs)
    std::printf("consumer: %s %s\n", outName.c_str(), tosakit::shapeToString(t.shape()).c_str());
  return 0;
}
