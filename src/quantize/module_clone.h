// Deep copy of an ir::Module (functions, nested regions, variables, target). Values keep their ids so
// intermediateName() of every op is the same in the copy.
#pragma once
#include <memory>

#include "ir/graph.h"

namespace tosakit::quantize {

std::unique_ptr<ir::Module> cloneModule(const ir::Module& m);

}  // namespace tosakit::quantize
