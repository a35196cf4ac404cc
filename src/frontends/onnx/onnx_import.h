// The ONNX frontend's API is public: include/tosakit/import.h.
#pragma once
#include "tosakit/import.h"
