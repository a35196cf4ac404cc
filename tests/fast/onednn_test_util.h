// Differential harness for the oneDNN kernels: a small graph (one op or a fused chain) is built with the
// builder API, run on the reference backend (the oracle: normal mode for integers, precise fp64 mode plus an
// absolute-value run for the dot-product bounds of floats), and compiled + run as one fused kernel through
// the oneDNN factories directly (the lead's plan tests cover whole graphs).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compliance/compliance.h"
#include "fast/kernels/common.h"
#include "fast/op_kernel.h"
#include "ir/builder.h"
#include "isa_test_util.h"
#include "tosakit/session.h"

namespace tosakit::testing {

// Builds the graph; `cst` wraps every constant (the bounds run passes absolute values through it).
using GraphFn = std::function<void(ir::Builder& b, const std::function<ir::Value*(Tensor)>& cst)>;

inline Tensor absTensor(const Tensor& t) {
  if (!isFloat(t.dtype())) return t;
  Tensor a = t;
  for (int64_t i = 0; i < a.size(); ++i) a.setFloat(i, std::fabs(a.getFloat(i)));
  return a;
}

inline std::unique_ptr<ir::Module> buildModule(const GraphFn& g, bool absConsts) {
  auto m = std::make_unique<ir::Module>();
  ir::Builder b(*m, "main");
  g(b, [&](Tensor t) { return b.constant(absConsts ? absTensor(t) : std::move(t)); });
  return m;
}

// Reference outputs (first output). precise: fp64 values; absValues: constants and inputs as |x| (bounds).
inline Tensor runReference(const GraphFn& g, const NamedTensors& inputs, bool precise, bool absValues = false) {
  SessionOptions opts;
  opts.precise = precise;
  auto s = Session::create(buildModule(g, absValues), opts);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  if (!s.isOk()) return Tensor();
  NamedTensors in = inputs;
  if (absValues)
    for (auto& [name, t] : in) t = absTensor(t);
  RunResult r;
  Status st = (*s)->run(in, r);
  EXPECT_TRUE(st.isOk()) << st.toString();
  return st.isOk() ? r.outputs.at(0).second : Tensor();
}

struct FastResult {
  bool compiled = false;
  int opsAbsorbed = 0;
  std::string impl;
  bool rerunOnReference = false;  // the kernel left this input to the reference kernels
  Tensor output;
};

// Compiles the graph's ops (constants excluded) as one OpChain through the implementation list of the active ISA
// level (kernel_list.cpp) and runs it.
inline FastResult runFast(const GraphFn& g, const NamedTensors& inputs) {
  const fast::FastKernelRegistry& registry = fast::fastKernels();
  FastResult res;
  auto m = buildModule(g, false);
  const ir::Function& fn = *m->function("main");
  fast::OpChain chain;
  for (const auto& op : fn.body.ops) {
    if (op->name == "tosa.const" || op->name == "func.return") continue;
    chain.ops.push_back(op.get());
    std::vector<const Tensor*> consts;
    for (const ir::Value* v : op->operands) {
      const ir::Operation* d = v->definingOp;
      consts.push_back(d && d->name == "tosa.const" ? d->attr("values")->tensor.get() : nullptr);
    }
    chain.constants.push_back(consts);
  }
  const auto* factories = registry.find(chain.ops[0]->name);
  if (!factories) return res;
  fast::CompiledKernel ck;
  for (const auto& f : *factories) {
    auto r = f(chain);
    EXPECT_TRUE(r.isOk()) << r.status().toString();
    if (r.isOk() && r->kernel) {
      ck = std::move(*r);
      break;
    }
  }
  if (!ck.kernel) return res;
  res.compiled = true;
  res.opsAbsorbed = ck.opsAbsorbed;
  res.impl = ck.kernel->implName();
  // Views: function arguments from `inputs` (by position), constants from their attribute, chained values null.
  std::vector<std::vector<fast::TensorView>> in;
  for (size_t k = 0; k < size_t(ck.opsAbsorbed); ++k) {
    std::vector<fast::TensorView> views;
    for (size_t j = 0; j < chain.ops[k]->operands.size(); ++j) {
      const ir::Value* v = chain.ops[k]->operands[j];
      fast::TensorView tv{v->type.dtype, v->type.dims, nullptr};
      if (chain.constants[k][j])
        tv.data = const_cast<uint8_t*>(chain.constants[k][j]->data());
      else if (!v->definingOp)
        tv.data = const_cast<uint8_t*>(inputs.at(size_t(v->index)).second.data());
      views.push_back(tv);
    }
    in.push_back(views);
  }
  const ir::ValueType& outT = chain.ops[size_t(ck.opsAbsorbed) - 1]->results[0]->type;
  res.output = Tensor(outT.dtype, outT.dims);
  std::vector<fast::TensorView> out{{outT.dtype, outT.dims, res.output.data()}};
  Status st = ck.kernel->run(in, out);
  if (fast::isRerunOnReference(st)) {  // as the plan does: the step's ops on their reference kernels
    res.rerunOnReference = true;
    res.output = runReference(g, inputs, false);
    return res;
  }
  EXPECT_TRUE(st.isOk()) << st.toString();
  return res;
}

// The fast result's integers equal the reference's, element for element (the first difference is reported).
inline void expectSameInts(const Tensor& ref, const FastResult& f, const std::string& what) {
  ASSERT_EQ(ref.dtype(), f.output.dtype()) << what;
  ASSERT_EQ(ref.shape(), f.output.shape()) << what;
  for (int64_t i = 0; i < ref.size(); ++i)
    if (ref.getInt(i) != f.output.getInt(i)) {
      ADD_FAILURE() << what << " [" << f.impl << "]: element " << i << ": fast " << f.output.getInt(i) << ", ref "
                    << ref.getInt(i);
      return;
    }
}

// Integer results: bit-identical to the reference backend.
inline void expectBitExact(const GraphFn& g, const NamedTensors& inputs, int expectAbsorbed, const std::string& what) {
  FastResult f = runFast(g, inputs);
  if (!f.compiled) {
    const std::string why = noOneDnnKernelReason(inputs.at(0).second.dtype());
    if (!why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_TRUE(f.compiled) << what << ": no fast kernel";
  EXPECT_EQ(f.opsAbsorbed, expectAbsorbed) << what;
  expectSameInts(runReference(g, inputs, false), f, what);
}

// Float results: the spec's dot-product compliance (1.10.3) against the fp64 reference, bounds from the same
// graph on absolute values; ksb = the dot-product length (KS, plus the bias term).
inline void expectDotProductCompliant(const GraphFn& g, const NamedTensors& inputs, int64_t ksb, int expectAbsorbed,
                                      const std::string& what) {
  FastResult f = runFast(g, inputs);
  if (!f.compiled) {
    const std::string why = noOneDnnKernelReason(inputs.at(0).second.dtype());
    if (!why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_TRUE(f.compiled) << what << ": no fast kernel";
  EXPECT_EQ(f.opsAbsorbed, expectAbsorbed) << what;
  Tensor ref = runReference(g, inputs, true);
  Tensor bnd = runReference(g, inputs, true, true);
  compliance::ComplianceMode mode;
  mode.mode = "DOT_PRODUCT";
  mode.ksb = ksb;
  compliance::ComplianceResult r = compliance::checkTensor(mode, f.output, ref, &bnd);
  EXPECT_TRUE(r.pass) << what << " [" << f.impl << "]: " << r.reason;
}

// ---- random data (fixed seeds) ----
struct Rng {
  std::mt19937 gen;
  explicit Rng(uint32_t seed) : gen(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen); }
  Tensor floats(DType t, Shape s, double lo = -1, double hi = 1) {
    Tensor x(t, s);
    std::uniform_real_distribution<double> d(lo, hi);
    for (int64_t i = 0; i < x.size(); ++i) x.setFloat(i, d(gen));
    return x;
  }
  Tensor ints(DType t, Shape s, int64_t lo, int64_t hi) {
    Tensor x(t, s);
    for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, uniform(lo, hi));
    return x;
  }
};

// fp32 tensors of small integers in [lo, hi]: every product and partial sum of a small conv is then exact in
// any order, so a kernel must match the reference bit for bit.
inline Tensor integerFloats(Rng& r, Shape s, int64_t lo, int64_t hi) {
  Tensor t(DType::FP32, std::move(s));
  for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, double(r.uniform(lo, hi)));
  return t;
}
// conv2d attributes with an fp32 accumulator and `pad` on every side (stride and dilation 1).
inline ir::Conv2dAttrs fp32ConvAttrs(int64_t pad) {
  ir::Conv2dAttrs a;
  a.pad = {pad, pad, pad, pad};
  a.accType = DType::FP32;
  return a;
}

// The same in [-3, 3] from a seed of its own.
inline Tensor smallInts(Shape s, uint32_t seed) {
  Rng r(seed);
  return integerFloats(r, std::move(s), -3, 3);
}

}  // namespace tosakit::testing
