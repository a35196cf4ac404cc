// Shared by the fast-backend kernel tests: run a module on one backend through the Session, as users do, and
// keep the status, outputs and the plan (which kernel each step used).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit::testing {

// Random integers with fixed seeds, uniform in [lo, hi].
inline int64_t uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
inline Tensor randomInts(DType t, const Shape& s, std::mt19937& rng, int64_t lo, int64_t hi) {
  Tensor x(t, s);
  for (int64_t i = 0; i < x.size(); ++i) x.setInt(i, uniform(rng, lo, hi));
  return x;
}

struct RunOutcome {
  Status status;
  NamedTensors outputs;
  PlanStats stats;
};

// `threads` OpenMP threads (0: all cores).
inline RunOutcome runOn(std::unique_ptr<ir::Module> m, const std::string& backend, const NamedTensors& in,
                        int threads = 0) {
  SessionOptions so;
  so.backend = backend;
  so.threads = threads;
  auto s = Session::create(std::move(m), so);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  RunOutcome o;
  o.status = (*s)->run(in, r);
  o.outputs = r.outputs;
  o.stats = (*s)->planStats();
  return o;
}

// One input "x", one output, `threads` OpenMP threads (0: all): the output and the first step's kernel.
struct SingleOutcome {
  Status status;
  Tensor output;
  std::string impl;
};

inline SingleOutcome runSingle(std::unique_ptr<ir::Module> m, const std::string& backend, const Tensor& x,
                               int threads) {
  SessionOptions so;
  so.backend = backend;
  so.threads = threads;
  auto s = Session::create(std::move(m), so);
  EXPECT_TRUE(s.isOk()) << s.status().toString();
  RunResult r;
  SingleOutcome o;
  o.status = (*s)->run({{"x", x}}, r);
  if (o.status.isOk()) o.output = r.outputs[0].second;
  PlanStats st = (*s)->planStats();
  if (!st.steps.empty()) o.impl = st.steps[0].impl;
  return o;
}

}  // namespace tosakit::testing
