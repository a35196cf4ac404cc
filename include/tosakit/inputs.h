// One front door for a function's inputs: whatever a caller gives (tensors in memory, .npz bundles, .npy files,
// images) becomes the function's arguments in one place, used by `tosakit run`, `bench`, `import --test-input`,
// `calibrate`/`qtable`/`quantize`/`visual` samples and the Python package (docs/ARCHITECTURE.md, "doors").
//
// In order, for every given tensor: an image is decoded and preprocessed for its argument by the recipe
// recorded at import (include/tosakit/preprocess.h); ONNX Runtime's types are adapted to the function's
// (include/tosakit/io_adapt.h: int64 -> i32 with a range check, uint8 -> i8 bits, graph inputs the function does
// not take checked and dropped with a note, a cut function's extra tensors ignored); numpy's carrier types
// become the declared ones (bf16 from uint16 bits, ..., include/tosakit/npz.h). Session::run then checks
// shapes and that every argument is given.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit {

// What a caller gives; any mix. A name given twice (across all sources) is InvalidArgument.
struct InputSources {
  std::vector<std::string> npzFiles;                       // .npz files keyed by input name
  std::vector<std::pair<std::string, std::string>> files;  // name -> .npy file, or image (.jpg .jpeg .png .bmp)
  NamedTensors tensors;                                    // in memory (Python, C++ callers)

  static InputSources fromNpz(std::string path) {
    InputSources s;
    s.npzFiles.push_back(std::move(path));
    return s;
  }
  static InputSources fromTensors(NamedTensors tensors) {
    InputSources s;
    s.tensors = std::move(tensors);
    return s;
  }
};

struct PreparedInputs {
  NamedTensors tensors;            // the function's arguments, in the order given
  std::vector<std::string> notes;  // inputs checked and dropped, tensors a cut function ignores
};

// Errors name the file the offending tensor came from, the input and the function.
Result<PreparedInputs> prepareInputs(const ir::Function& fn, const InputSources& sources);

// One calibration or test sample: an .npz keyed by input names, or an .npy or image for a single-input
// function, prepared as prepareInputs does (its notes are dropped).
Result<NamedTensors> loadSample(const std::string& path, const ir::Function& fn);

// Deterministic data for every argument when none is given (timing): floats uniform in [-1, 1], integers over
// their whole range, from a fixed seed. InvalidArgument naming the argument when a shape is dynamic.
Result<NamedTensors> syntheticInputs(const ir::Function& fn, uint32_t seed = 42);

}  // namespace tosakit
