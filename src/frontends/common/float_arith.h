// Float arithmetic the frontends share, built from TOSA ops (TOSA 1.0 has no float divide).
#pragma once
#include <string>
#include <utility>

#include "ir/builder.h"

namespace tosakit::frontends {

// x / s for float32 (equal ranks, broadcasting), correctly rounded like a true division: q0 = x * fl(1/s), then
// one Newton step with the exact residual. x * reciprocal(s) alone can land on the other side of a rounding
// tie, which matters before a round or a cast (quantization). Ops are named `locPrefix`/mul, /add, ...
ir::Value* divideF32(ir::Builder& b, ir::Value* x, ir::Value* s, const std::string& locPrefix);

// Dekker's TwoProduct for float32: {p, e} with p = fl(a * c) and p + e = a * c exactly (Veltkamp splitting into
// 12-bit halves; exact because TOSA's fp32 MUL/ADD/SUB round correctly and no overflow or underflow occurs).
std::pair<ir::Value*, ir::Value*> twoProductF32(ir::Builder& b, ir::Value* a, ir::Value* c,
                                                const std::string& locPrefix);

}  // namespace tosakit::frontends
