// Internals of tosakit::lang: the Graph's state and the small TOSA-emitting helpers every operator uses.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/graph.h"
#include "tosakit/lang.h"

namespace tosakit::lang {

using ir::Value;
using ir::ValueType;

struct VarInfo {
  Value* value = nullptr;       // the TOSA value (U8/U16 as i8/i16 bit patterns)
  DType type = DType::FP32;     // BMLang element type: I8, U8, I16, U16, I32, FP32
  std::optional<Tensor> coeff;  // the data of a constant (logical type), for operators that fold weights
};

// Thrown inside an operator's lowering only and caught by Graph::Impl::apply, which turns it into the
// recorded Status: lowering code stays linear (no Status plumbing through every helper).
struct OpError {
  Status status;
};
[[noreturn]] void fail(Status s);
[[noreturn]] inline void invalid(const std::string& m) { fail(Status::invalid(m)); }
[[noreturn]] inline void unsupported(const std::string& m) { fail(Status::unsupported(m)); }

// Element type of the TOSA storage of a BMLang type.
DType storageType(DType t);
bool isLangType(DType t);

struct Graph::Impl {
  explicit Impl(std::string functionName);

  std::unique_ptr<ir::Module> module;
  ir::Builder b;
  std::vector<VarInfo> vars;
  std::vector<std::pair<int, std::string>> outputs;
  Status error;
  std::optional<ir::TargetEnv> target;
  int opCount = 0;
  std::string opName;  // the BMLang operator being lowered, e.g. "conv_3"
  int step = 0;

  // Runs one operator's lowering: inputs that are errors make it a silent error; an OpError is recorded
  // (the first one) as "<op>: <reason>".
  Var apply(const char* op, const std::vector<Var>& inputs, const std::function<Var()>& lower);
  std::vector<Var> applyMany(const char* op, const std::vector<Var>& inputs,
                             const std::function<std::vector<Var>()>& lower);

  // ---- Vars ----
  const VarInfo& info(Var v) const;
  Value* val(Var v) const { return info(v).value; }
  DType type(Var v) const { return info(v).type; }
  const Shape& dims(Var v) const { return info(v).value->type.dims; }
  Var make(Value* v, DType logical, std::optional<Tensor> coeff = {});
  const Tensor& coeffOf(Var v, const char* what) const;  // fails unless v is a coeff

  // ---- Emission helpers (all name their ops "<op>_<n>.<step>") ----
  std::string loc();
  Value* op(const std::string& name, std::vector<Value*> operands, ValueType rt,
            std::map<std::string, ir::Attribute> attrs = {});
  Value* constant(const Tensor& t);
  Value* constI32(const std::vector<int64_t>& values, const Shape& shape);
  Value* constF32(const std::vector<double>& values, const Shape& shape);
  Value* splat(DType storage, double v, int rank);  // [1, ..., 1] of `rank`
  Value* shapeConst(const std::vector<int64_t>& v);
  Value* zp(DType storage, int64_t v);  // rank-1 one-element zero point

  // Exact widening of a BMLang-typed value to i32 / fp32, and saturating narrowing of an i32 value.
  Value* widen(Value* x, DType logical);
  Value* toF32(Value* x, DType logical);
  Value* narrow(Value* i32, DType out);
  // Saturating conversion from the i32 range [lo, hi] clamp to `out`.
  Value* clampI32(Value* i32, int64_t lo, int64_t hi);
  Value* clampF32(Value* f, double lo, double hi);
  // BMLang rounding right shift ((x >> (s-1)) + 1) >> 1 of an i32 value (s >= 0, constant or tensor).
  Value* roundShift(Value* i32, int s);
  Value* roundShiftT(Value* i32, Value* sI32);
  Value* ars(Value* x, Value* s, bool round);
  Value* lls(Value* x, Value* s);
  // round half away from zero of |v| * scale, sign restored: the exact real product, rounded once.
  Value* roundScaleHalfAway(Value* i32, double scale, int64_t bound);
  // round half away from zero of an fp32 value (exact for every fp32).
  Value* roundHalfAwayF32(Value* f);

  Value* binary(const char* tosaOp, Value* a, Value* b, DType resultType);
  Value* mulI32(Value* a, Value* b, int shift);
  Value* mulF32(Value* a, Value* b);
  Value* unary(const char* tosaOp, Value* x);
  Value* negate(Value* x);
  Value* cmp(const char* tosaOp, Value* a, Value* b);  // bool result
  Value* selectV(Value* pred, Value* a, Value* b);
  Value* cast(Value* x, DType to);
  Value* rescale(Value* x, DType outStorage, int64_t mult, int shift, int64_t izp, int64_t ozp, bool inU, bool outU);
  Value* reshape(Value* x, const Shape& s);
  Value* transpose(Value* x, const std::vector<int64_t>& perm);
  Value* slice(Value* x, const Shape& start, const Shape& size);
  Value* concatV(const std::vector<Value*>& xs, int axis);
  Value* tileV(Value* x, const std::vector<int64_t>& multiples);
  Value* padConst(Value* x, const std::vector<int64_t>& padding, double value);
  Value* reverse(Value* x, int axis);
  Value* reduceV(const char* tosaOp, Value* x, int axis);

  Value* toNHWC(Value* x);  // [N,C,H,W] -> [N,H,W,C] (and 5-D NCDHW -> NDHWC)
  Value* toNCHW(Value* x);
};

// Broadcast shape of two same-rank shapes, or fail naming both.
Shape broadcastOrFail(const Shape& a, const Shape& b);
int normAxis(int axis, int rank, const char* what);

}  // namespace tosakit::lang
