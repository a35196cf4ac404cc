// Deep copy of a Module (functions, nested regions, variables, target). Values keep their ids so
// intermediateName() of every op is the same in the copy.
#pragma once
#include <memory>

#include "ir/graph.h"

namespace tosakit::ir {

std::unique_ptr<Module> cloneModule(const Module& m);

}  // namespace tosakit::ir
