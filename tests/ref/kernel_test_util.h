// runBoth: a one-op graph run through a Session (static validation, then the interpreter) and directly on the
// reference backend (runKernel, no static validation). Both must give the same verdict, so the kernel's own
// ERROR_IF / REQUIRE / LEVEL_CHECK checks are tested even where the validator rejects the graph first.
#pragma once
#include "ref_test_util.h"

namespace tosakit::testing {

// Returns the Session result, or an Internal status describing a disagreement (different status codes, or
// different outputs when both succeed).
inline OpRun runBoth(const std::string& opName, const std::vector<OpInput>& inputs,
                     const std::vector<ir::ValueType>& resultTypes,
                     const std::map<std::string, ir::Attribute>& attrs = {},
                     const ir::TargetEnv& target = ir::TargetEnv::all()) {
  OpRun viaSession = runOp(opName, inputs, resultTypes, attrs, target);
  OpRun viaKernel = runKernel(opName, inputs, resultTypes, attrs, target);
  if (viaSession.status.code() != viaKernel.status.code())
    return {Status::internal("session and kernel disagree: session '" + viaSession.status.toString() + "', kernel '" +
                             viaKernel.status.toString() + "'"),
            {}};
  if (viaSession.status.isOk()) {
    if (viaSession.outputs.size() != viaKernel.outputs.size())
      return {Status::internal("session and kernel output counts differ"), {}};
    for (size_t i = 0; i < viaSession.outputs.size(); ++i)
      if (!viaSession.outputs[i].identical(viaKernel.outputs[i]))
        return {Status::internal("session and kernel outputs differ: " + viaSession.outputs[i].summary() + " vs " +
                                 viaKernel.outputs[i].summary()),
                {}};
  }
  return viaSession;
}

}  // namespace tosakit::testing
