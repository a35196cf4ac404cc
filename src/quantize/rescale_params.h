// Multiplier/shift pairs for tosa.rescale (TOSA 1.0 2.13.2 RESCALE and 4.5.5 "Scaling Helpers";
// TPU-MLIR technical reference 6.2 "Scale Conversion": Scale = Multiplier / 2^rshift).
//
// apply_scale_32 multiplies by an int32 multiplier (0 <= m < 2^31), apply_scale_16 by an int16 one
// (0 <= m < 2^15); both then shift right by 2 <= shift <= 62 with round-half-up. deriveRescale picks the pair
// whose m / 2^shift is nearest to the real scale with the largest shift (most precision): m normalized to
// [2^30, 2^31) (resp. [2^14, 2^15)), m = round(scale * 2^shift) (ties away from zero), and when the scale is
// so small that the shift would pass 62, shift = 62 with a denormal (smaller) m, possibly 0.
#pragma once
#include <cstdint>

#include "core/status.h"

namespace tosakit::quantize {

struct RescaleParams {
  int64_t multiplier = 1 << 30;
  int shift = 30;
  double value() const;  // multiplier / 2^shift
};

// Errors (InvalidArgument): a scale that is not finite and positive, or too large for the multiplier width
// (scale32: >= 2^29 - 0.5 ulp, 16-bit: >= 2^13 - 0.5 ulp), where shift would fall below 2.
Result<RescaleParams> deriveRescale(double scale, bool scale32);

// The spec's helpers (4.5.5), for evaluation and tests; `value` must satisfy their REQUIREs.
int64_t applyScale32(int64_t value, int64_t multiplier, int shift, bool doubleRound);
int64_t applyScale16(int64_t value, int64_t multiplier, int shift);

}  // namespace tosakit::quantize
