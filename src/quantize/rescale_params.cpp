#include "quantize/rescale_params.h"

#include <cmath>
#include <string>

namespace tosakit::quantize {

double RescaleParams::value() const { return std::ldexp(double(multiplier), -shift); }

Result<RescaleParams> deriveRescale(double scale, bool scale32) {
  if (!std::isfinite(scale) || scale <= 0)
    return Status::invalid("rescale: scale " + std::to_string(scale) + " is not a finite positive number");
  const int bits = scale32 ? 31 : 15;  // multiplier < 2^bits
  int exponent = 0;
  double fraction = std::frexp(scale, &exponent);  // scale = fraction * 2^exponent, fraction in [0.5, 1)
  // m = fraction * 2^bits is exact in double (a power-of-two scaling); std::round rounds ties away from 0.
  int64_t m = int64_t(std::round(std::ldexp(fraction, bits)));
  int shift = bits - exponent;
  if (m == (int64_t(1) << bits)) {  // rounded up to the next power of two: renormalize
    m >>= 1;
    shift -= 1;
  }
  if (shift > 62) {  // too small for a normalized multiplier: largest shift, denormal multiplier
    shift = 62;
    m = int64_t(std::round(std::ldexp(scale, 62)));
  }
  if (shift < 2)
    return Status::invalid("rescale: scale " + std::to_string(scale) + " is too large for a " +
                           std::to_string(bits + 1) + "-bit multiplier (shift would be " + std::to_string(shift) +
                           " < 2)");
  return RescaleParams{m, shift};
}

int64_t applyScale32(int64_t value, int64_t multiplier, int shift, bool doubleRound) {
  int64_t round = int64_t(1) << (shift - 1);
  if (doubleRound) {
    if (shift > 31 && value >= 0) round += int64_t(1) << 30;
    if (shift > 31 && value < 0) round -= int64_t(1) << 30;
  }
  int64_t result = value * multiplier + round;
  return result >> shift;
}

int64_t applyScale16(int64_t value, int64_t multiplier, int shift) {
  int64_t round = int64_t(1) << (shift - 1);
  return (value * multiplier + round) >> shift;
}

}  // namespace tosakit::quantize
