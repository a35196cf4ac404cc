// The accuracy rule of each TOSA operator (spec 1.10.3 and each operator's "Precision Requirements"), and
// judging a result by it. docs/COMPLIANCE.md lists the rule per operator.
#pragma once
#include <string>
#include <vector>

#include "compliance/compliance.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::compliance {

enum class RuleKind {
  Exact,  // integers equal; floats tosa_reference_check_fp(out, ref, 0)
  Bound,  // per element tosa_reference_check_fp_bnd(out, ref, err_bnd), err_bnd in `bound`
  Dot,    // 1.10.3 tosa_reference_check_dotproduct, out_bnd (the fp64 op on absolute values) in `bound`
  Mode,   // a conformance compliance mode (forced with --mode, or RESCALE INEXACT_ROUND)
};

struct OpRule {
  RuleKind kind = RuleKind::Exact;
  std::string name;                    // "ULP(0.5)", "ABS_ERROR(exp: calcAbsErrorBound(out_ref, 1+abs(x), 0, 1))", ...
  std::string section;                 // "2.5.1 ADD"
  Tensor bound;                        // FP64, shape of the op's result: err_bnd (Bound) or out_bnd (Dot)
  int64_t ksb = 0;                     // Dot
  bool special = false;                // inputs hold NaN/infinity: infinite references must be matched exactly
  ComplianceMode mode;                 // Mode
  const Tensor* modeBounds = nullptr;  // Mode: the --bounds tensor, if any
};

// Whether result `k` of `op` is an exact function of its inputs ("results must be exact").
bool isExactOp(const ir::Operation& op, size_t k = 0);

// Whether result `k` of `op` is a float that must be correctly rounded: its rule is 0.5 ulp of the exact
// result (ADD, SUB, MUL, CEIL, FLOOR, CAST to a narrower float), so it is the exact result rounded to nearest.
bool isCorrectlyRounded(const ir::Operation& op, size_t k = 0);

// Whether computing the rule of `op` needs its input values (not only the reference output).
bool ruleNeedsInputs(const ir::Operation& op, size_t k = 0);

// The rule for result k of op. `operands`: one tensor per operand in its declared dtype (shape operands may
// be empty); `ref`: the op's fp64 reference result k. Empty operands are allowed when !ruleNeedsInputs.
Result<OpRule> ruleFor(const ir::Operation& op, size_t k, const std::vector<Tensor>& operands, const Tensor& ref,
                       const ir::TargetEnv& target);

struct Judgement {
  bool pass = true;
  double worst = 0;  // largest |error| / bound; NaN when not measured
  int64_t worstIndex = -1;
  std::string reason;      // first failure: "element <failIndex>: <failWhy>", or a statistic
  int64_t failIndex = -1;  // the first failing element, -1 when none or a statistic failed
  std::string failWhy;
};

// Judges impl (declared dtype) against ref (fp64, or in the declared dtype when refRounded: then half an ulp
// of slack is added for the reference's own rounding). testSet >= 0 adds the dot-product mean/variance tests.
Judgement judge(const OpRule& rule, const Tensor& impl, const Tensor& ref, bool refRounded, int testSet);

// The rule restricted/permuted to the elements listed in `index` (movement chains: element i of the new
// rule is element index[i] of the old one).
OpRule remapRule(const OpRule& rule, const std::vector<int64_t>& index, const Shape& shape);

}  // namespace tosakit::compliance
