// LayerNormalization, InstanceNormalization, GroupNormalization, LRN, MeanVarianceNormalization, LpNormalization.
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

void registerNormalizationOps(HandlerTable& t) { (void)t; }

}  // namespace tosakit::onnx
