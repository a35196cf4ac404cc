// Spec 1.10.3 / 4.5.3 accuracy checks, written after the pseudocode, and the conformance compliance modes.
#include "compliance/compliance.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/numeric.h"

namespace tosakit::compliance {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

bool isNormalFp64(double v) { return std::isnormal(v); }
}  // namespace

// ---- 4.5.3 ----

double exp2i(int n) {
  if (n < -1075) return 0.0;  // smaller than the smallest subnormal
  return std::ldexp(1.0, n);  // exact, same as the spec's repeated doubling/halving
}

int ilog2(double v) {
  int n = 0;
  while (v >= 2.0) {
    v = v / 2.0;
    n++;
  }
  while (v < 1.0) {
    v = v * 2.0;
    n--;
  }
  return n;
}

double normalMin(DType t) {
  switch (t) {
    case DType::FP32:
    case DType::BF16: return exp2i(-126);
    case DType::FP16: return exp2i(-14);
    case DType::FP8E4M3: return exp2i(-6);
    case DType::FP8E5M2: return exp2i(-14);
    case DType::FP64: return std::numeric_limits<double>::min();
    default: return 0.0;
  }
}

double normalMax(DType t) {
  switch (t) {
    case DType::FP32: return exp2i(128) - exp2i(127 - 23);
    case DType::BF16: return exp2i(128) - exp2i(127 - 7);
    case DType::FP16: return exp2i(16) - exp2i(15 - 10);
    case DType::FP8E4M3: return exp2i(9) - exp2i(8 - 2);
    case DType::FP8E5M2: return exp2i(16) - exp2i(15 - 2);
    case DType::FP64: return std::numeric_limits<double>::max();
    default: return 0.0;
  }
}

int normalFrac(DType t) {
  switch (t) {
    case DType::FP32: return 23;
    case DType::BF16: return 7;
    case DType::FP16: return 10;
    case DType::FP8E4M3: return 3;
    case DType::FP8E5M2: return 2;
    case DType::FP64: return 52;
    default: return 0;
  }
}

double calcAbsErrorBound(DType t, double boundMagnitude, double boundsValue, double lowerBound, double normalDivisor) {
  double errorBound = 0.0;
  // Avoid an error bound of NaN from inf * 0.
  if (std::isfinite(boundsValue) || std::fabs(boundMagnitude) != 0.0) {
    double valueBound = std::max(std::fabs(boundMagnitude), normalMin(t));
    // Spec: value_bound = max(lower_bound / bounds_value, value_bound); error_bound = ... * value_bound *
    // bounds_value. Written as max(lower_bound, value_bound * bounds_value), which is equal for
    // bounds_value > 0 and does not produce NaN for bounds_value == 0.
    double scaled = valueBound * boundsValue;
    if (lowerBound > 0) scaled = std::max(lowerBound, scaled);
    errorBound = std::exp2(-normalFrac(t) / normalDivisor) * scaled;
  }
  return errorBound;
}

bool referenceCheckFp(DType t, double testValue, double refValue, double numUlp) {
  double errBnd = 0.0;
  if (isNormalFp64(refValue) && std::fabs(refValue) != 0) {
    int refExp = ilog2(std::fabs(refValue));
    double refPow2 = std::max(exp2i(refExp), normalMin(t));
    double valUlp = refPow2 * exp2i(-normalFrac(t));
    errBnd = valUlp * numUlp;
  }
  return referenceCheckFpBnd(t, testValue, refValue, errBnd);
}

bool referenceCheckFpBnd(DType t, double testValue, double refValue, double errBnd) {
  if (std::isnan(refValue)) return std::isnan(testValue);  // any NaN matches a NaN reference
  if (!std::isfinite(errBnd)) return true;
  if (errBnd < 0.0) return false;  // spec: REQUIRE(err_bnd >= 0.0)
  if (refValue < 0) {
    refValue = -refValue;
    testValue = -testValue;
  }
  double refMax = refValue + errBnd;
  double refMin = refValue - errBnd;
  if (refMax > normalMax(t)) refMax = kInf;
  if (refMin > normalMax(t)) refMin = kInf;
  if (refMin < -normalMax(t)) refMin = -kInf;
  if (t == DType::BF16 || t == DType::FP16 || t == DType::FP32) {
    // Subnormal values may be flushed to zero for non-fp8 types.
    if (testValue == 0) return refMin < normalMin(t);
  }
  if (t == DType::FP8E4M3 && std::isnan(testValue)) {
    // fp8e4m3 has no infinity: NaN is its overflow value.
    return refMax == kInf;
  }
  return testValue >= refMin && testValue <= refMax;
}

// ---- Modes ----

std::string ComplianceMode::toString() const {
  std::ostringstream o;
  o << mode;
  if (mode == "ULP") {
    o << "(ulp=" << ulp;
    if (ulpLower >= 0) o << ", ulp_lower=" << ulpLower;
    o << ")";
  } else if (mode == "ABS_ERROR") {
    o << "(base_bound=" << baseBound << ", lower_bound=" << lowerBound << ", normal_divisor=" << normalDivisor
      << (boundAsMagnitude ? ", bound_as_magnitude" : "") << ", max_compare=" << maxCompare << ")";
  } else if (mode == "DOT_PRODUCT") {
    o << "(s=" << s << ", ksb=" << ksb << ", abs_bound=" << absBound << ", variance_error_bound=" << varianceErrorBound
      << ")";
  } else if (mode == "RELATIVE") {
    o << "(max=" << relMax << ", scale=" << relScale << ", ulp_bound=" << relUlpBound << ")";
  } else if (mode == "REDUCE_PRODUCT") {
    o << "(n=" << n << ")";
  } else if (mode == "RESCALE_INEXACT") {
    o << "(unsigned_data=" << (unsignedData ? "true" : "false") << ")";
  }
  return o.str();
}

namespace {

const char* kModes[] = {"EXACT",       "ULP",      "FP_SPECIAL",     "ABS_ERROR",
                        "DOT_PRODUCT", "RELATIVE", "REDUCE_PRODUCT", "RESCALE_INEXACT"};

bool knownMode(const std::string& m) {
  for (const char* k : kModes)
    if (m == k) return true;
  return false;
}

double num(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_boolean()) return j.get<bool>() ? 1.0 : 0.0;
  if (j.is_string()) return std::stod(j.get<std::string>());
  throw std::runtime_error("expected a number");
}

// Sets one parameter by its test.json name. Unknown names are errors so typos do not pass silently.
Status setParam(ComplianceMode& m, const std::string& key, const nlohmann::json& v) {
  try {
    if (key == "ulp")
      m.ulp = num(v);
    else if (key == "ulp_lower")
      m.ulpLower = num(v);
    else if (key == "base_bound")
      m.baseBound = num(v);
    else if (key == "lower_bound")
      m.lowerBound = num(v);
    else if (key == "normal_divisor")
      m.normalDivisor = num(v);
    else if (key == "bound_as_magnitude")
      m.boundAsMagnitude = num(v) != 0;
    else if (key == "max_compare")
      m.maxCompare = num(v);
    else if (key == "s")
      m.s = int(num(v));
    else if (key == "ksb")
      m.ksb = int64_t(num(v));
    else if (key == "abs_bound")
      m.absBound = num(v);
    else if (key == "variance_error_bound")
      m.varianceErrorBound = num(v);
    else if (key == "max")
      m.relMax = num(v);
    else if (key == "scale")
      m.relScale = num(v);
    else if (key == "ulp_bound")
      m.relUlpBound = num(v);
    else if (key == "n")
      m.n = int64_t(num(v));
    else if (key == "unsigned_data")
      m.unsignedData = num(v) != 0;
    else
      return Status::invalid("compliance mode " + m.mode + ": unknown parameter '" + key + "'");
  } catch (const std::exception& e) {
    return Status::invalid("compliance mode " + m.mode + ": parameter '" + key + "': " + e.what());
  }
  return Status::ok();
}

Result<ComplianceMode> fromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("mode") || !j["mode"].is_string())
    return Status::invalid("compliance entry has no \"mode\"");
  ComplianceMode m;
  m.mode = j["mode"].get<std::string>();
  if (!knownMode(m.mode)) return Status::invalid("unknown compliance mode '" + m.mode + "'");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k.size() > 5 && k.compare(k.size() - 5, 5, "_info") == 0) {
      if (it->is_null()) continue;
      if (!it->is_object()) return Status::invalid("compliance " + k + " is not an object");
      for (auto p = it->begin(); p != it->end(); ++p) TK_RETURN_IF_ERROR(setParam(m, p.key(), *p));
    }
  }
  return m;
}

}  // namespace

Result<ComplianceMode> parseComplianceJson(const std::string& jsonText) {
  nlohmann::json j = nlohmann::json::parse(jsonText, nullptr, false);
  if (j.is_discarded()) return Status::parse("compliance: malformed JSON");
  return fromJson(j);
}

Result<ComplianceMode> parseComplianceSpec(const std::string& spec) {
  if (!spec.empty() && spec[0] == '{') return parseComplianceJson(spec);
  ComplianceMode m;
  size_t colon = spec.find(':');
  m.mode = spec.substr(0, colon);
  if (!knownMode(m.mode)) return Status::invalid("unknown compliance mode '" + m.mode + "'").withParameter("mode");
  if (colon == std::string::npos) return m;
  std::string rest = spec.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t comma = rest.find(',', pos);
    std::string kv = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = kv.find('=');
    if (eq == std::string::npos) return Status::invalid("expected key=value, got '" + kv + "'").withParameter("mode");
    std::string key = kv.substr(0, eq), val = kv.substr(eq + 1);
    nlohmann::json v = val == "true" ? nlohmann::json(true)
        : val == "false"             ? nlohmann::json(false)
                                     : nlohmann::json(val);
    TK_RETURN_IF_ERROR(setParam(m, key, v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return m;
}

namespace {

ComplianceResult fail(int64_t i, std::string reason) {
  ComplianceResult r;
  r.pass = false;
  r.index = i;
  r.reason = std::move(reason);
  return r;
}

std::string at(int64_t i) { return "element " + std::to_string(i) + ": "; }

// Exact match. Integers: equal values. Floats: the spec's exact check, tosa_reference_check_fp with
// num_ulp = 0 (1.10.3): any NaN matches a NaN, the sign of zero is not distinguished and a subnormal
// reference may be flushed to zero (bf16/fp16/fp32).
ComplianceResult checkExact(const Tensor& impl, const Tensor& ref) {
  bool flt = isFloat(impl.dtype());
  for (int64_t i = 0; i < impl.size(); ++i) {
    if (flt) {
      double a = impl.getFloat(i), b = ref.getFloat(i);
      if (!referenceCheckFp(impl.dtype(), a, b, 0.0))
        return fail(i, at(i) + "got " + fmt(a) + ", expected " + fmt(b) + " (exact match required)");
    } else if (impl.getInt(i) != ref.getInt(i)) {
      return fail(i,
                  at(i) + "got " + std::to_string(impl.getInt(i)) + ", expected " + std::to_string(ref.getInt(i)) +
                      " (exact match required)");
    }
  }
  return {};
}

ComplianceResult checkUlp(const ComplianceMode& m, const Tensor& impl, const Tensor& ref) {
  DType t = impl.dtype();
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a = impl.getFloat(i), r = ref.getFloat(i);
    bool ok = referenceCheckFp(t, a, r, m.ulp);
    // ulp_lower: the generator's extra allowance (used for casts); accept within the larger of the two.
    if (!ok && m.ulpLower >= 0) ok = referenceCheckFp(t, a, r, std::max(m.ulp, m.ulpLower));
    if (!ok)
      return fail(
          i,
          at(i) + "got " + fmt(a) + ", reference " + fmt(r) + ", outside " + fmt(std::max(m.ulp, m.ulpLower)) + " ulp");
  }
  return {};
}

// Special-value tests: NaN and infinities must match; finite results must round correctly (0.5 ulp,
// with the spec's subnormal flush-to-zero allowance).
ComplianceResult checkFpSpecial(const Tensor& impl, const Tensor& ref) {
  DType t = impl.dtype();
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a = impl.getFloat(i), r = ref.getFloat(i);
    if (std::isnan(r)) {
      if (!std::isnan(a)) return fail(i, at(i) + "got " + fmt(a) + ", expected NaN");
      continue;
    }
    if (std::isinf(r)) {
      if (a != r && !(t == DType::FP8E4M3 && std::isnan(a)))
        return fail(i, at(i) + "got " + fmt(a) + ", expected " + fmt(r));
      continue;
    }
    if (!referenceCheckFp(t, a, r, 0.5))
      return fail(i, at(i) + "got " + fmt(a) + ", reference " + fmt(r) + " (special-value test, 0.5 ulp)");
  }
  return {};
}

ComplianceResult checkAbsError(const ComplianceMode& m, const Tensor& impl, const Tensor& ref, const Tensor* bounds) {
  DType t = impl.dtype();
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a = impl.getFloat(i), r = ref.getFloat(i);
    double b = bounds ? bounds->getFloat(i) : 1.0;
    double err;
    if (m.boundAsMagnitude) {
      // SIN/COS: the bounds tensor holds the magnitude argument (x or 1+abs(x)); bounds_value is base_bound.
      err = calcAbsErrorBound(t, b, m.baseBound > 0 ? m.baseBound : 1.0, m.lowerBound, m.normalDivisor);
    } else {
      // bounds_value = base_bound + bounds: e.g. SIGMOID records 2*(1+abs(x)) and no base_bound (the spec's
      // bounds_value); EXP records 2*abs(x) with base_bound 1 (fp32: 3), i.e. 1+2*abs(x).
      err = calcAbsErrorBound(t, r, m.baseBound + b, m.lowerBound, m.normalDivisor);
    }
    if (m.maxCompare > 0) err = std::max(err, m.maxCompare);
    if (!referenceCheckFpBnd(t, a, r, err))
      return fail(i, at(i) + "got " + fmt(a) + ", reference " + fmt(r) + ", error bound " + fmt(err));
  }
  return {};
}

ComplianceResult checkRelative(const ComplianceMode& m, const Tensor& impl, const Tensor& ref) {
  DType t = impl.dtype();
  // RESIZE: err_bnd = max(calcAbsErrorBound(max, ulp_bound, 0, 1), max * scale), max = max(abs(input)).
  // The recorded max is 1.0 even for special-value inputs; as abs(out_ref) <= max(abs(input)) for RESIZE
  // (non-negative interpolation weights), max(max, abs(out_ref)) never exceeds the spec's true bound.
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a = impl.getFloat(i), r = ref.getFloat(i);
    double mx = std::isfinite(r) ? std::max(m.relMax, std::fabs(r)) : m.relMax;
    double err = std::max(calcAbsErrorBound(t, mx, m.relUlpBound, 0, 1), mx * m.relScale);
    if (!referenceCheckFpBnd(t, a, r, err))
      return fail(i, at(i) + "got " + fmt(a) + ", reference " + fmt(r) + ", error bound " + fmt(err));
  }
  return {};
}

ComplianceResult checkReduceProduct(const ComplianceMode& m, const Tensor& impl, const Tensor& ref) {
  DType t = impl.dtype();
  double factor = std::pow(1.0 + std::pow(2.0, -normalFrac(t) - 1), double(m.n)) - 1.0;
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a = impl.getFloat(i), r = ref.getFloat(i);
    double err = std::max(std::fabs(r), normalMin(t)) * factor;
    if (!referenceCheckFpBnd(t, a, r, err))
      return fail(i, at(i) + "got " + fmt(a) + ", reference " + fmt(r) + ", error bound " + fmt(err));
  }
  return {};
}

// RESCALE with INEXACT_ROUND: abs(out_imp - out_ref) <= 0.5 + 3 * abs(out_ref) * 2^-24. The recorded
// reference is already rounded to an integer, which adds up to 0.5 to the distance.
ComplianceResult checkRescaleInexact(const ComplianceMode& m, const Tensor& impl, const Tensor& ref) {
  int bits = bitWidth(impl.dtype());
  for (int64_t i = 0; i < impl.size(); ++i) {
    double a, r;
    if (m.unsignedData && bits < 64) {
      a = double(zeroExtend(impl.getInt(i), bits));
      r = double(zeroExtend(int64_t(ref.getFloat(i)), bits));
    } else {
      a = isFloat(impl.dtype()) ? impl.getFloat(i) : double(impl.getInt(i));
      r = ref.getFloat(i);
    }
    double err = 1.0 + 3.0 * std::fabs(r) * exp2i(-normalFrac(DType::FP32) - 1);
    if (!(std::fabs(a - r) <= err))
      return fail(i, at(i) + "got " + fmt(a) + ", reference " + fmt(r) + ", error bound " + fmt(err));
  }
  return {};
}

// Spec 1.10.3 tosa_reference_check_dotproduct, on the recorded reference and bounds tensors.
// abs_bound / variance_error_bound (when recorded) replace ksb in the per-element check and 0.4 * ksb in
// the variance check; the bias check scales with abs_bound / ksb in the same way.
ComplianceResult checkDotProduct(const ComplianceMode& m, const Tensor& impl, const Tensor& ref, const Tensor& bnd) {
  DType t = impl.dtype();
  double ksb = double(m.ksb);
  double absBound = m.absBound > 0 ? m.absBound : ksb;
  double varBound = m.varianceErrorBound > 0 ? m.varianceErrorBound : 0.4 * ksb;
  double T = double(impl.size());
  double sum = 0.0, sumsq = 0.0;
  for (int64_t i = 0; i < impl.size(); ++i) {
    double outBnd = bnd.getFloat(i), outRef = ref.getFloat(i), outImp = impl.getFloat(i);
    double err;
    if (std::isnan(outRef)) {
      if (!std::isnan(outImp)) return fail(i, at(i) + "got " + fmt(outImp) + ", reference NaN");
      err = 0.0;
    } else if (std::isnan(outBnd)) {
      err = 0.0;  // no accuracy requirement for a NaN bound
    } else if (std::isinf(roundToFloat(t, outBnd * (1 + ksb * exp2i(-1 - normalFrac(t)))))) {
      err = 0.0;  // the dot product can overflow within the error bound
    } else if (outBnd == 0.0) {
      if (outRef != 0.0 || outImp != 0.0)
        return fail(i,
                    at(i) + "got " + fmt(outImp) + ", reference " + fmt(outRef) +
                        ": all products are zero, result must be zero");
      err = 0.0;
    } else {
      double errBnd = std::max(outBnd * exp2i(-1 - normalFrac(t)), normalMin(t));
      err = (outImp - outRef) / errBnd;
      if (!(std::fabs(err) <= absBound))
        return fail(i,
                    at(i) + "got " + fmt(outImp) + ", reference " + fmt(outRef) + ", bound " + fmt(outBnd) +
                        ": normalized error " + fmt(err) + " exceeds " + fmt(absBound));
    }
    sum += err;
    sumsq += err * err;
  }
  if (m.s >= 3 && m.s <= 5) {
    double maxBias = 2 * std::sqrt(ksb * T) * (absBound / (ksb > 0 ? ksb : 1));
    if (std::fabs(sum) > maxBias)
      return fail(-1,
                  "error bias " + fmt(sum) + " exceeds " + fmt(maxBias) + " (test set S" + std::to_string(m.s) + ")");
  }
  double maxVar = varBound * T;
  if (sumsq > maxVar) return fail(-1, "error variance sum " + fmt(sumsq) + " exceeds " + fmt(maxVar));
  return {};
}

}  // namespace

ComplianceResult checkTensor(const ComplianceMode& mode, const Tensor& impl, const Tensor& ref, const Tensor* bounds) {
  if (impl.shape() != ref.shape() && impl.size() != ref.size())
    return fail(-1,
                "shape " + shapeToString(impl.shape()) + " differs from reference shape " + shapeToString(ref.shape()));
  if (bounds && bounds->size() != impl.size())
    return fail(
        -1,
        "bounds tensor has " + std::to_string(bounds->size()) + " elements, output has " + std::to_string(impl.size()));
  const std::string& m = mode.mode;
  if (m == "EXACT") return checkExact(impl, ref);
  if (m == "RESCALE_INEXACT") return checkRescaleInexact(mode, impl, ref);
  if (!isFloat(impl.dtype())) return checkExact(impl, ref);  // integer results must match exactly
  if (m == "ULP") return checkUlp(mode, impl, ref);
  if (m == "FP_SPECIAL") return checkFpSpecial(impl, ref);
  if (m == "ABS_ERROR") return checkAbsError(mode, impl, ref, bounds);
  if (m == "RELATIVE") return checkRelative(mode, impl, ref);
  if (m == "REDUCE_PRODUCT") return checkReduceProduct(mode, impl, ref);
  if (m == "DOT_PRODUCT") {
    if (!bounds) return fail(-1, "DOT_PRODUCT needs a bounds tensor");
    return checkDotProduct(mode, impl, ref, *bounds);
  }
  return fail(-1, "unknown compliance mode '" + m + "'");
}

}  // namespace tosakit::compliance
