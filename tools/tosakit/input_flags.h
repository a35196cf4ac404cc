// --input NAME=FILE (run, visual): the door's spelling of the library's input sources (include/tosakit/inputs.h).
#pragma once
#include <string>
#include <vector>

#include "core/status.h"
#include "tosakit/inputs.h"

namespace tosakit::cli {

// Appends each "NAME=FILE" to sources.files; InvalidArgument naming the flag for a spec without a name.
Status addNamedInputFiles(const std::vector<std::string>& specs, InputSources& sources);

}  // namespace tosakit::cli
