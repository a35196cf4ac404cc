// fp32 exp, sigmoid, tanh and erf over arrays, vectorized for every ISA level, within the TOSA 1.0 accuracy
// bounds of each operator (docs/FAST.md "Transcendentals"): EXP (1+|x|) ulp-style, SIGMOID 2(1+|x|), TANH
// 4(1+|x|) with an absolute floor, ERF 5 ulp. Infinities, zeros and NaN as the spec's tables (NaN in, NaN out);
// subnormal inputs are computed, not flushed. `out` may equal `x`.
#pragma once
#include <cstdint>

namespace tosakit::fast::vmath {

void exp(const float* x, float* out, int64_t n);
void sigmoid(const float* x, float* out, int64_t n);
// x * sigmoid(x) (SiLU, Swish) as x / (1 + e^-x), one rounding: each result lies between x times the two ends
// of the sigmoid's bound (what a compliant sigmoid followed by the multiply may give).
void silu(const float* x, float* out, int64_t n);
void tanh(const float* x, float* out, int64_t n);
void erf(const float* x, float* out, int64_t n);

}  // namespace tosakit::fast::vmath
