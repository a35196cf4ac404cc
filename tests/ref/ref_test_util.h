// Helpers for reference-kernel tests: build a one-op graph with the builder API and run it.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "tosakit/session.h"

namespace tosakit::testing {

// An operand of the op under test: a function argument (default) or a tosa.const (for operands the spec
// requires to be compile-time constant: zero points, shifts, multipliers, shapes...).
struct OpInput {
  Tensor tensor;
  bool isConst = false;
  bool isShape = false;  // a tosa.const_shape (!tosa.shape<N>) built from tensor's values
};
inline OpInput Arg(Tensor t) { return {std::move(t), false, false}; }
inline OpInput Const(Tensor t) { return {std::move(t), true, false}; }
inline OpInput ShapeConst(std::vector<int64_t> v) {
  return {Tensor::fromInts(DType::I64, {int64_t(v.size())}, v), true, true};
}

struct OpRun {
  Status status;
  std::vector<Tensor> outputs;
};

inline OpRun runOp(const std::string& opName, const std::vector<OpInput>& inputs,
                   const std::vector<ir::ValueType>& resultTypes,
                   const std::map<std::string, ir::Attribute>& attrs = {},
                   const ir::TargetEnv& target = ir::TargetEnv::all()) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  std::vector<ir::Value*> operands;
  NamedTensors feeds;
  for (const OpInput& in : inputs) {
    if (in.isShape) {
      operands.push_back(b.constShape(in.tensor.toInts()));
    } else if (in.isConst) {
      operands.push_back(b.constant(in.tensor));
    } else {
      ir::Value* v = b.input(ir::ValueType::tensor(in.tensor.dtype(), in.tensor.shape()));
      operands.push_back(v);
      feeds.emplace_back("arg" + std::to_string(v->index), in.tensor);
    }
  }
  ir::Location loc;
  loc.name = "op_under_test";
  ir::Operation& op = b.create(opName, operands, resultTypes, attrs, loc);
  b.output(op.results);
  SessionOptions so;
  so.target = target;
  auto session = Session::create(std::move(m), so);
  if (!session) return {session.status(), {}};
  RunResult r;
  Status s = (*session)->run(feeds, r);
  OpRun out{s, {}};
  for (auto& [n, t] : r.outputs) out.outputs.push_back(t);
  return out;
}

inline ir::ValueType TT(DType t, Shape s) { return ir::ValueType::tensor(t, std::move(s)); }

// Same one-op graph as runOp, run on the reference backend directly (no static validation first), so the
// kernel's own ERROR_IF / REQUIRE / LEVEL_CHECK verdicts are what the test sees.
inline OpRun runKernel(const std::string& opName, const std::vector<OpInput>& inputs,
                       const std::vector<ir::ValueType>& resultTypes,
                       const std::map<std::string, ir::Attribute>& attrs = {},
                       const ir::TargetEnv& target = ir::TargetEnv::all()) {
  ir::Module m;
  ir::Builder b(m, "main");
  std::vector<ir::Value*> operands;
  std::vector<Tensor> args;
  for (const OpInput& in : inputs) {
    if (in.isShape) {
      operands.push_back(b.constShape(in.tensor.toInts()));
    } else if (in.isConst) {
      operands.push_back(b.constant(in.tensor));
    } else {
      operands.push_back(b.input(ir::ValueType::tensor(in.tensor.dtype(), in.tensor.shape())));
      args.push_back(in.tensor);
    }
  }
  ir::Location loc;
  loc.name = "op_under_test";
  ir::Operation& op = b.create(opName, operands, resultTypes, attrs, loc);
  b.output(op.results);
  auto backend = createReferenceBackend();
  OpRun out;
  out.status = backend->run(b.function(), target, args, out.outputs, nullptr);
  return out;
}

// runOp / runKernel as values, for tests that expect the same verdict on both paths.
struct OpRunner {
  OpRun (*fn)(const std::string&, const std::vector<OpInput>&, const std::vector<ir::ValueType>&,
              const std::map<std::string, ir::Attribute>&, const ir::TargetEnv&);
  const char* name;
  OpRun operator()(const std::string& opName, const std::vector<OpInput>& inputs,
                   const std::vector<ir::ValueType>& resultTypes,
                   const std::map<std::string, ir::Attribute>& attrs = {},
                   const ir::TargetEnv& target = ir::TargetEnv::all()) const {
    return fn(opName, inputs, resultTypes, attrs, target);
  }
};
inline void PrintTo(const OpRunner& r, std::ostream* os) { *os << r.name; }
inline const OpRunner kValidatedPath{&runOp, "session"}, kKernelPath{&runKernel, "kernel"};

// Expect an ERROR_IF verdict (StatusCode::SpecError) / a REQUIRE verdict (Unpredictable).
#define EXPECT_SPEC_ERROR(run) \
  EXPECT_EQ((run).status.code(), ::tosakit::StatusCode::SpecError) << (run).status.toString()
#define EXPECT_UNPREDICTABLE(run) \
  EXPECT_EQ((run).status.code(), ::tosakit::StatusCode::Unpredictable) << (run).status.toString()
#define EXPECT_RUN_OK(run) ASSERT_TRUE((run).status.isOk()) << (run).status.toString()

}  // namespace tosakit::testing
