// The .npy/.npz API is public: include/tosakit/npz.h.
#pragma once
#include "tosakit/npz.h"
