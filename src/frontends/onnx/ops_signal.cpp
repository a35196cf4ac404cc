// ONNX lowerings: DFT, STFT, window functions, MelWeightMatrix, Det.
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

void registerSignalOps(HandlerTable& t) { (void)t; }

}  // namespace tosakit::onnx
