// ONNX lowerings: TfIdfVectorizer.
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {

void registerTextOps(HandlerTable& t) { (void)t; }

}  // namespace tosakit::onnx
