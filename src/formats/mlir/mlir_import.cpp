#include "formats/mlir/mlir_io.h"
