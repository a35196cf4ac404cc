// Deep copy of an ir::Module (functions with their attributes, nested regions, variables, target). Values keep
// their ids so intermediateName() of every op is the same in the copy. Sessions own their module: quantize
// and check run private copies of one they were given.
#pragma once
#include <memory>

#include "ir/graph.h"

namespace tosakit::ir {

std::unique_ptr<Module> cloneModule(const Module& m);

}  // namespace tosakit::ir
