// Shared by the fast-backend kernel tests: run a module on one backend through the Session, as users do, and
// keep the status, outputs and the plan (which kernel each step used).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit::testing {

struct RunOutcome {
  Status status;
  NamedTensors outputs;
  PlanStats stats;
};

inline RunOutcome runOn(std::unique_ptr<ir::Module> m, const std::string& backend, const NamedTensors& in) {
  SessionOptions so;
  so.backend = backend;
  auto s = Session::create(std::move(m), so);
  EXPECT_TRUE(s.isOk());
  RunResult r;
  RunOutcome o;
  o.status = (*s)->run(in, r);
  o.outputs = r.outputs;
  o.stats = (*s)->planStats();
  return o;
}

}  // namespace tosakit::testing
