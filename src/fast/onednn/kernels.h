// Private to src/fast/onednn*.cpp: one registration function per oneDNN kernel family file.
#pragma once
#include "fast/op_kernel.h"

namespace tosakit::fast {
void registerOneDnnConvKernels(FastKernelRegistry& r);    // onednn/conv.cpp
void registerOneDnnMatmulKernels(FastKernelRegistry& r);  // onednn/matmul.cpp
void registerOneDnnPoolKernels(FastKernelRegistry& r);    // onednn/pool.cpp
}  // namespace tosakit::fast
