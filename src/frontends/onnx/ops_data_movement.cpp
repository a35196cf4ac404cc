// Data movement: Split, Pad, Tile, Expand, run-time Gather, GatherElements, GatherND, DepthToSpace, SpaceToDepth, ...
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

void registerDataMovementOps(HandlerTable& t) { (void)t; }

}  // namespace tosakit::onnx
