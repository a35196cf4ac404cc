// Accuracy checks of the TOSA spec (1.10 "Compliance", 4.5.3 "Numeric Accuracy Helpers") and the compliance
// modes that the conformance vectors' test.json files name (EXACT, ULP, FP_SPECIAL, ABS_ERROR, DOT_PRODUCT,
// RELATIVE, REDUCE_PRODUCT, RESCALE_INEXACT). See docs/COMPLIANCE.md for how each mode's parameters map to the
// spec formulas.
#pragma once
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"

namespace tosakit::compliance {

// ---- Spec 4.5.3 helpers (fp64 arithmetic). t is the floating-point type of the value checked. ----
double exp2i(int n);        // spec exp2(int): 0 below -1075
int ilog2(double v);        // spec ilog2: floor(log2(v)) for 0 < v < inf
double normalMin(DType t);  // smallest positive normal value of t
double normalMax(DType t);  // largest finite value of t
int normalFrac(DType t);    // number of stored fraction bits of t
double calcAbsErrorBound(DType t, double boundMagnitude, double boundsValue, double lowerBound, double normalDivisor);
bool referenceCheckFp(DType t, double testValue, double refValue, double numUlp);
bool referenceCheckFpBnd(DType t, double testValue, double refValue, double errBnd);

// ---- Compliance modes ----
struct ComplianceMode {
  std::string mode = "EXACT";
  // ULP: ulp_info {ulp, ulp_lower}. ulp_lower (when given) is the allowance below the reference.
  double ulp = 0.5;
  double ulpLower = -1;  // < 0: same as ulp
  // ABS_ERROR: abs_error_info {base_bound, lower_bound, normal_divisor, bound_as_magnitude, max_compare}.
  double baseBound = 0.0;  // added to the bounds value; 0 when not recorded
  double lowerBound = 0.0;
  double normalDivisor = 1.0;
  bool boundAsMagnitude = false;
  double maxCompare = 0.0;
  // DOT_PRODUCT: dot_product_info {s, ksb, abs_bound, variance_error_bound}.
  int s = -1;
  int64_t ksb = 0;
  double absBound = 0;            // 0: spec value ksb
  double varianceErrorBound = 0;  // 0: spec value 0.4 * ksb
  // RELATIVE: relative_info {max, scale, ulp_bound} (RESIZE: max(abs(input)), 0.006, 20).
  double relMax = 0;
  double relScale = 0;
  double relUlpBound = 0;
  // REDUCE_PRODUCT: reduce_product_info {n}.
  int64_t n = 0;
  // RESCALE_INEXACT: rescale_inexact_info {unsigned_data}.
  bool unsignedData = false;

  bool needsBounds() const { return mode == "ABS_ERROR" || mode == "DOT_PRODUCT"; }
  // "ULP(ulp=0.5)" style summary for messages.
  std::string toString() const;
};

// Parses one tensor's entry of a test.json "compliance.tensors" block (a JSON object text), e.g.
// {"mode": "ULP", "data_type": "FP16", "ulp_info": {"ulp": 0.5}}.
Result<ComplianceMode> parseComplianceJson(const std::string& jsonText);
// Parses a command-line mode: "EXACT", "ULP:ulp=1", "ABS_ERROR:base_bound=2,lower_bound=0.5", or a JSON object.
Result<ComplianceMode> parseComplianceSpec(const std::string& spec);

struct ComplianceResult {
  bool pass = true;
  std::string reason;  // for a failure: first failing index, values, bound
  int64_t index = -1;  // first failing element (-1: a whole-tensor criterion failed)
};

// Judges `impl` (the implementation's output, in its declared dtype) against the reference:
//   EXACT: `ref` is the expected tensor in the same dtype (integers equal; floats by the spec's exact check
//   tosa_reference_check_fp with num_ulp 0: any NaN matches a NaN, zero sign not distinguished).
//   other modes: `ref` is the fp64 reference (expected*_fp64.npy); `bounds` the fp64 bounds tensor
//   (bounds*_fp64.npy) for ABS_ERROR and DOT_PRODUCT.
ComplianceResult checkTensor(const ComplianceMode& mode, const Tensor& impl, const Tensor& ref,
                             const Tensor* bounds = nullptr);

}  // namespace tosakit::compliance
