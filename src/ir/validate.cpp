// Static validation against the TOSA 1.0 spec: (a) known operators, (b) supported-data-types rows and their
// profile/extension, (c) Compile Time Constant status, (d) the LEVEL_CHECKs that depend only on types and
// attributes, (e) the ERROR_IFs on shapes and constant operands that can be decided without running the graph.
// Every diagnostic names the op, its location and the spec condition; all violations are collected.
#include "ir/validate.h"

#include <algorithm>
#include <set>

#include "ir/op_tables.h"

namespace tosakit::ir {

std::string Diagnostic::toString() const {
  std::string s = op;
  if (!location.empty()) s += " at " + location;
  return s + ": " + message;
}

namespace {

using spec::ArgSpec;
using spec::OpSpec;

std::string shapeStr(const Shape& s) { return "[" + shapeToString(s) + "]"; }
std::string num(int64_t v) { return std::to_string(v); }

bool isStaticTensor(const Value* v) {
  if (!v || v->type.kind != ValueType::Kind::Tensor) return false;
  for (int64_t d : v->type.dims)
    if (d < 0) return false;
  return true;
}

bool isConstantProducer(const Value* v) {
  return v && v->definingOp && (v->definingOp->name == "tosa.const" || v->definingOp->name == "tosa.const_shape");
}

// Values of a tosa.const / tosa.const_shape operand, as doubles (zero points may be float).
std::optional<std::vector<double>> constValues(const Value* v) {
  if (!isConstantProducer(v)) return std::nullopt;
  const Attribute* a = v->definingOp->attr("values");
  if (!a || a->kind != Attribute::Kind::Tensor || !a->tensor) return std::nullopt;
  return a->tensor->toDoubles();
}
std::optional<std::vector<int64_t>> constInts(const Value* v) {
  auto d = constValues(v);
  if (!d) return std::nullopt;
  std::vector<int64_t> r;
  for (double x : *d) r.push_back(int64_t(x));
  return r;
}

class Validator {
 public:
  Validator(const TargetEnv& t, const ValidateOptions& o, std::vector<Diagnostic>& out)
      : target_(t), opts_(o), out_(out) {
    lim_ = spec::levelLimits(t.level);
  }

  void function(const Function& f) {
    for (const Value* a : f.body.args) valueLevel(nullptr, a, "input" + (a->name.empty() ? "" : " '" + a->name + "'"));
    block(f.body, 0);
  }

  void variables(const Module& m) {
    const OpSpec* vs = spec::findOp("tosa.variable");
    for (const Variable& v : m.variables) {
      Operation fake;  // for messages only
      fake.name = "tosa.variable";
      fake.loc = v.loc;
      if (fake.loc.name.empty()) fake.loc.name = v.name;
      if (lim_ && v.type.rank() > lim_->maxRank)
        error(fake,
              "LEVEL_CHECK(rank(shape) <= MAX_RANK) failed: variable '" + v.name + "' has rank " + num(v.type.rank()) +
                  " > " + num(lim_->maxRank) + " (level " + target_.level + ")");
      std::map<std::string, DType> bound = {{"var_t", v.type.dtype}};
      matchTypes(fake, *vs, bound, {});
    }
  }

 private:
  const TargetEnv& target_;
  const ValidateOptions& opts_;
  std::vector<Diagnostic>& out_;
  const spec::LevelLimits* lim_ = nullptr;

  void emit(const Operation& op, Diagnostic::Kind k, std::string msg) {
    Diagnostic d;
    d.kind = k;
    d.op = op.name;
    d.location = op.loc.toString();
    d.message = std::move(msg);
    out_.push_back(std::move(d));
  }
  void error(const Operation& op, std::string msg) { emit(op, Diagnostic::Kind::Error, std::move(msg)); }

  bool has(const std::string& id) const {
    return spec::isProfile(id) ? target_.hasProfile(id) : target_.hasExtension(id);
  }
  bool satisfied(const spec::Requirement& r) const {
    for (const auto& group : r) {
      bool any = false;
      for (const char* id : group) any = any || has(id);
      if (!any) return false;
    }
    return true;
  }

  // Rank and MAX_LOG2_SIZE limits for one value (each value is checked where it is defined).
  void valueLevel(const Operation* op, const Value* v, const std::string& what) {
    if (!lim_ || v->type.kind != ValueType::Kind::Tensor) return;
    Operation fn;  // function inputs have no op: report them under "func"
    fn.name = "func.func";
    const Operation& o = op ? *op : fn;
    if (v->type.rank() > lim_->maxRank)
      error(o,
            "LEVEL_CHECK(rank(shape) <= MAX_RANK) failed: " + what + " " + v->type.toString() + " has rank " +
                num(v->type.rank()) + " > MAX_RANK " + num(lim_->maxRank) + " (level " + target_.level + ")");
    // Shapes and sizes are tensor_size_t, which must hold [-(1 << MAX_LOG2_SIZE), (1 << MAX_LOG2_SIZE) - 1].
    const int64_t maxSize = lim_->maxLog2Size >= 63 ? INT64_MAX : (int64_t(1) << lim_->maxLog2Size) - 1;
    int64_t total = 1;
    for (int64_t d : v->type.dims) {
      if (d < 0) return;
      total = (d != 0 && total > maxSize / d) ? maxSize + 1 : total * d;
    }
    if (total > maxSize)
      error(o,
            "level MAX_LOG2_SIZE: tensor_size(" + what + " " + v->type.toString() + ") exceeds (1 << " +
                num(lim_->maxLog2Size) + ") - 1 (level " + target_.level + ")");
  }

  void block(const Block& b, int depth) {
    for (const Value* a : b.args) {
      if (b.parent && b.parent->parent) valueLevel(b.parent->parent, a, "region argument");
    }
    for (const auto& op : b.ops) operation(*op, depth);
  }

  void operation(const Operation& op, int depth) {
    if (op.name == "func.return" || op.name == "tosa.yield") return;  // structure, not spec operators
    for (const Value* r : op.results) valueLevel(&op, r, "result");
    const OpSpec* sp = spec::findOp(op.name);
    if (!sp) {
      emit(op, Diagnostic::Kind::Unsupported, "operator '" + op.name + "' is not a TOSA 1.0 operator (spec chapter 2)");
    } else {
      types(op, *sp);
      ctc(op, *sp);
      ranks(op, *sp);
      opChecks(op, depth);
    }
    bool cf = op.name == "tosa.cond_if" || op.name == "tosa.while_loop";
    for (const auto& region : op.regions)
      for (const auto& blk : region->blocks) block(*blk, cf ? depth + 1 : depth);
  }

  // Pairs of (value, spec argument) following the MLIR operand/result order of the op.
  static std::vector<std::pair<const Value*, const ArgSpec*>> bind(const OpSpec& sp,
                                                                   const std::vector<spec::MlirArg>& names,
                                                                   const std::vector<Value*>& values) {
    std::vector<std::pair<const Value*, const ArgSpec*>> r;
    size_t i = 0;
    for (const auto& n : names) {
      const ArgSpec* a = spec::findArg(sp, n.specArg);
      if (n.variadic) {
        for (; i < values.size(); ++i) r.push_back({values[i], a});
      } else if (i < values.size()) {
        r.push_back({values[i++], a});
      }
    }
    return r;
  }

  // (b) supported data types.
  void types(const Operation& op, const OpSpec& sp) {
    size_t wantIn = 0, wantOut = 0;
    bool varIn = false, varOut = false;
    for (const auto& n : sp.operands) n.variadic ? (void)(varIn = true) : (void)++wantIn;
    for (const auto& n : sp.results) n.variadic ? (void)(varOut = true) : (void)++wantOut;
    if (op.operands.size() < wantIn || (!varIn && op.operands.size() != wantIn) || op.results.size() < wantOut ||
        (!varOut && op.results.size() != wantOut)) {
      error(op,
            "has " + num(int64_t(op.operands.size())) + " operands and " + num(int64_t(op.results.size())) +
                " results; spec " + sp.section + " " + sp.specName + " (MLIR form) takes " + num(int64_t(wantIn)) +
                (varIn ? "+" : "") + " and " + num(int64_t(wantOut)) + (varOut ? "+" : ""));
      return;
    }
    std::map<std::string, DType> bound;
    std::set<std::string> conflicts;
    auto take = [&](const std::vector<std::pair<const Value*, const ArgSpec*>>& pairs) {
      for (const auto& [v, a] : pairs) {
        if (!a || v->type.kind == ValueType::Kind::Shape) continue;
        if (a->fixed.present && v->type.dtype != a->fixed.dtype)
          error(op,
                std::string("argument ") + a->name + " has element type " + std::string(dtypeName(v->type.dtype)) +
                    "; spec " + sp.section + " " + sp.specName + " declares it " + a->type);
        if (!*a->typeVar) continue;
        auto [it, fresh] = bound.emplace(a->typeVar, v->type.dtype);
        if (!fresh && it->second != v->type.dtype) conflicts.insert(a->typeVar);
      }
    };
    take(bind(sp, sp.operands, op.operands));
    take(bind(sp, sp.results, op.results));
    // acc_type is a type attribute that selects acc_t.
    if (const Attribute* acc = op.attr("acc_type"); acc && acc->kind == Attribute::Kind::Type)
      bound["acc_t"] = acc->dtype;
    if (op.name == "tosa.rescale" && op.operands.size() > 1) {
      // mul_t is not a table column: "if (scale32) mul_t=i32_t else mul_t=i16_t".
      DType mul = op.boolAttr("scale32") ? DType::I32 : DType::I16;
      if (op.operands[1]->type.dtype != mul)
        error(op,
              "multiplier has element type " + std::string(dtypeName(op.operands[1]->type.dtype)) +
                  "; spec 2.13.2 RESCALE: if (scale32) mul_t=i32_t else mul_t=i16_t");
    }
    matchTypes(op, sp, bound, conflicts);
  }

  void matchTypes(const Operation& op, const OpSpec& sp, const std::map<std::string, DType>& bound,
                  const std::set<std::string>& conflicts) {
    std::string combo;
    for (const auto& [var, dt] : bound) {
      if (!combo.empty()) combo += ", ";
      combo += var + "=" + std::string(dtypeName(dt));
    }
    std::vector<const spec::TypeRow*> matches;
    if (conflicts.empty()) {
      for (const auto& row : sp.types) {
        bool ok = true;
        for (const auto& b : row.types) {
          auto it = bound.find(b.var);
          if (b.isDType && it != bound.end() && it->second != b.dtype) ok = false;
        }
        if (ok) matches.push_back(&row);
      }
    }
    if (matches.empty()) {
      std::string why = conflicts.empty() ? "" : " (arguments sharing type variable " + *conflicts.begin() + " differ)";
      error(op,
            "type combination " + combo + why + " not in the supported-data-types table of spec " + sp.section + " " +
                sp.specName);
      return;
    }
    for (const auto* row : matches)
      if (satisfied(row->requires_)) return;
    const auto* row = matches.front();
    error(op,
          "type combination " + combo + " (mode '" + row->mode + "') needs " +
              spec::requirementToString(row->requires_) + ", which the target does not have (spec " + sp.section + " " +
              sp.specName + " supported data types)");
  }

  // (c) Compile Time Constant status.
  void ctc(const Operation& op, const OpSpec& sp) {
    if (sp.ctc.empty()) return;
    auto pairs = bind(sp, sp.operands, op.operands);
    for (const auto& c : sp.ctc) {
      bool applies = false, disabled = false;
      for (const char* p : c.profiles) applies = applies || has(p);
      for (const char* e : c.disabledBy) disabled = disabled || has(e);
      if (!applies || disabled) continue;
      for (const auto& [v, a] : pairs) {
        if (!a || std::string(a->name) != c.arg || isConstantProducer(v)) continue;
        std::string profs;
        for (const char* p : c.profiles) profs += (profs.empty() ? "" : ", ") + spec::profileOrExtensionName(p);
        error(op,
              std::string("argument ") + c.arg + " must be a compile-time constant (tosa.const/tosa.const_shape): " +
                  "Compile Time Constant Status of spec " + sp.section + " " + sp.specName + " lists it for " + profs +
                  (c.disabledBy.empty() ? "" : ", unless EXT-DYNAMIC"));
      }
    }
  }

  // Rank column of the argument tables (fixed ranks such as 4 for conv2d input; relative ranges are level
  // checked per value).
  void ranks(const Operation& op, const OpSpec& sp) {
    auto check = [&](const std::vector<std::pair<const Value*, const ArgSpec*>>& pairs) {
      for (const auto& [v, a] : pairs) {
        if (!a || a->rankMin < 0 || v->type.kind != ValueType::Kind::Tensor) continue;
        int maxR = a->rankMaxRelative ? (lim_ ? int(lim_->maxRank) : 1 << 20) + a->rankMax : a->rankMax;
        int r = v->type.rank();
        if (r < a->rankMin || (!a->rankMaxRelative && r > maxR))
          error(op,
                std::string("argument ") + a->name + " " + v->type.toString() + " has rank " + num(r) + "; spec " +
                    sp.section + " " + sp.specName + " requires rank " +
                    (a->rankMin == maxR ? num(a->rankMin) : num(a->rankMin) + " to " + num(maxR)));
        else if (a->rankMaxRelative && a->rankMax < 0 && r > maxR)
          error(op,
                std::string("LEVEL_CHECK failed: argument ") + a->name + " has rank " + num(r) + " > MAX_RANK - " +
                    num(-a->rankMax) + " (level " + target_.level + ")");
      }
    };
    check(bind(sp, sp.operands, op.operands));
    check(bind(sp, sp.results, op.results));
  }

  // ---- (d)/(e) per-operator level checks and static ERROR_IFs ----

  void level(const Operation& op, bool ok, const std::string& cond, const std::string& detail) {
    if (lim_ && !ok) error(op, "LEVEL_CHECK(" + cond + ") failed: " + detail + " (level " + target_.level + ")");
  }
  void errorIf(const Operation& op, bool bad, const std::string& cond, const std::string& detail = {}) {
    if (bad) error(op, "ERROR_IF(" + cond + ")" + (detail.empty() ? "" : ": " + detail));
  }
  int64_t maxKernel() const { return lim_ ? lim_->maxKernel : INT64_MAX; }
  int64_t maxStride() const { return lim_ ? lim_->maxStride : INT64_MAX; }

  // Zero point must be 0 unless the element type is i8 (conv, pools, negate, matmul).
  void zeroPoint(const Operation& op, size_t idx, const char* name, DType t, const char* cond) {
    if (idx >= op.operands.size()) return;
    auto v = constValues(op.operands[idx]);
    if (!v || v->empty()) return;
    errorIf(op, t != DType::I8 && (*v)[0] != 0, cond,
            std::string(name) + " is " + std::to_string((*v)[0]) + " for " + std::string(dtypeName(t)));
  }

  static std::string ints(const std::vector<int64_t>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + num(v[i]);
    return "[" + s + "]";
  }

  void opChecks(const Operation& op, int depth) {
    const std::string& n = op.name;
    if (n == "tosa.conv2d" || n == "tosa.depthwise_conv2d" || n == "tosa.conv3d") return conv(op);
    if (n == "tosa.transpose_conv2d") return transposeConv(op);
    if (n == "tosa.avg_pool2d" || n == "tosa.max_pool2d") return pool(op);
    if (n == "tosa.matmul") return matmul(op);
    if (n == "tosa.fft2d" || n == "tosa.rfft2d") return fft(op);
    if (n == "tosa.negate" && op.operands.size() == 3) {
      DType t = op.operands[0]->type.dtype;
      zeroPoint(op, 1, "input1_zp", t, "!is_same<in_out_t,i8_t>() && input1_zp != 0");
      zeroPoint(op, 2, "output_zp", t, "!is_same<in_out_t,i8_t>() && output_zp != 0");
      return;
    }
    if (n == "tosa.clamp") return clamp(op);
    if (n == "tosa.select") return broadcast(op, 3);
    if (isBroadcastBinary(n)) return broadcast(op, 2);
    if (n == "tosa.argmax") return argmax(op);
    if (n.rfind("tosa.reduce_", 0) == 0) return reduce(op);
    if (n == "tosa.concat") return concat(op);
    if (n == "tosa.pad") return pad(op);
    if (n == "tosa.reshape") return reshape(op);
    if (n == "tosa.reverse") return reverse(op);
    if (n == "tosa.slice") return slice(op);
    if (n == "tosa.tile") return tile(op);
    if (n == "tosa.transpose") return transpose(op);
    if (n == "tosa.resize") return resize(op);
    if (n == "tosa.rescale") return rescale(op);
    if (n == "tosa.cond_if" || n == "tosa.while_loop") return controlFlow(op, depth);
    if (n == "tosa.custom") {
      level(op, int64_t(op.operands.size()) <= lim_limit(), "tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE",
            num(int64_t(op.operands.size())) + " inputs");
      level(op, int64_t(op.results.size()) <= lim_limit(), "tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE",
            num(int64_t(op.results.size())) + " outputs");
    }
  }
  int64_t lim_limit() const { return lim_ ? lim_->maxTensorListSize : INT64_MAX; }

  static bool isBroadcastBinary(const std::string& n) {
    static const std::set<std::string> k = {"tosa.add",
                                            "tosa.arithmetic_right_shift",
                                            "tosa.bitwise_and",
                                            "tosa.bitwise_or",
                                            "tosa.bitwise_xor",
                                            "tosa.intdiv",
                                            "tosa.logical_and",
                                            "tosa.logical_left_shift",
                                            "tosa.logical_right_shift",
                                            "tosa.logical_or",
                                            "tosa.logical_xor",
                                            "tosa.maximum",
                                            "tosa.minimum",
                                            "tosa.mul",
                                            "tosa.pow",
                                            "tosa.sub",
                                            "tosa.equal",
                                            "tosa.greater",
                                            "tosa.greater_equal"};
    return k.count(n) != 0;
  }

  // Elementwise: inputs of the same rank, output = broadcast_shape of the inputs (spec 2.5 / 2.7 / 2.8).
  void broadcast(const Operation& op, size_t nIn) {
    if (op.operands.size() < nIn || op.results.empty()) return;
    for (size_t i = 0; i < nIn; ++i)
      if (!isStaticTensor(op.operands[i])) return;
    if (!isStaticTensor(op.results[0])) return;
    Shape shape = op.operands[0]->type.dims;
    for (size_t i = 1; i < nIn; ++i) {
      const Shape& s = op.operands[i]->type.dims;
      if (s.size() != shape.size()) {
        error(op,
              "input" + num(int64_t(i + 1)) + " " + shapeStr(s) + " must have the same rank as input1 " +
                  shapeStr(op.operands[0]->type.dims) + " (spec argument table)");
        return;
      }
      for (size_t d = 0; d < s.size(); ++d) {
        if (shape[d] == s[d] || s[d] == 1) continue;
        if (shape[d] == 1) {
          shape[d] = s[d];
          continue;
        }
        error(op,
              "ERROR_IF(shape != broadcast_shape(...)): input shapes are not broadcast compatible in dimension " +
                  num(int64_t(d)));
        return;
      }
    }
    const Shape& out = op.results[0]->type.dims;
    errorIf(op, out != shape,
            nIn == 3 ? "shape != broadcast_shape(broadcast_shape(shape1, shape2), shape3)"
                     : "shape != broadcast_shape(shape1, shape2)",
            "output " + shapeStr(out) + ", broadcast of the inputs is " + shapeStr(shape));
  }

  void conv(const Operation& op) {
    const bool is3d = op.name == "tosa.conv3d", dw = op.name == "tosa.depthwise_conv2d";
    const size_t sp = is3d ? 3 : 2;  // spatial dims
    auto pad = op.intArrayAttr("pad"), stride = op.intArrayAttr("stride"), dil = op.intArrayAttr("dilation");
    if (op.operands.size() < 5 || op.results.empty() || pad.size() != 2 * sp || stride.size() != sp ||
        dil.size() != sp) {
      error(op,
            "expects 5 operands and pad[" + num(int64_t(2 * sp)) + "], stride[" + num(int64_t(sp)) + "], dilation[" +
                num(int64_t(sp)) + "] attributes");
      return;
    }
    zeroPoint(op, 3, "input_zp", op.operands[0]->type.dtype, "!is_same<in_t,i8_t>() && input_zp != 0");
    zeroPoint(op, 4, "weight_zp", op.operands[1]->type.dtype, "!is_same<weight_t,i8_t>() && weight_zp != 0");
    static const char* kPadNames[] = {"pad_d0", "pad_d1", "pad_top", "pad_bottom", "pad_left", "pad_right"};
    static const char* kDimNames[] = {"d", "y", "x"};
    const char** padNames = is3d ? kPadNames : kPadNames + 2;
    const char** dimNames = is3d ? kDimNames : kDimNames + 1;
    for (size_t i = 0; i < pad.size(); ++i) {
      level(op, pad[i] <= maxKernel(), std::string(padNames[i]) + " <= MAX_KERNEL",
            padNames[i] + std::string(" = ") + num(pad[i]));
      errorIf(op, pad[i] < 0, std::string(padNames[i]) + " < 0");
    }
    for (size_t i = 0; i < sp; ++i) {
      std::string s = std::string("stride_") + dimNames[i], d = std::string("dilation_") + dimNames[i];
      level(op, stride[i] <= maxStride(), s + " <= MAX_STRIDE", s + " = " + num(stride[i]));
      errorIf(op, stride[i] < 1, s + " < 1");
      errorIf(op, dil[i] < 1, d + " < 1");
    }
    const Value *in = op.operands[0], *w = op.operands[1], *bias = op.operands[2], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(w) || !isStaticTensor(out) || !isStaticTensor(bias)) return;
    const Shape &I = in->type.dims, &W = w->type.dims, &O = out->type.dims;
    if (I.size() != sp + 2 || W.size() != sp + 2 || O.size() != sp + 2) return;  // rank already reported
    // Kernel dims: conv2d [OC,KH,KW,IC], conv3d [OC,KD,KH,KW,IC], depthwise [KH,KW,C,M].
    std::vector<int64_t> K(sp);
    for (size_t i = 0; i < sp; ++i) K[i] = dw ? W[i] : W[i + 1];
    static const char* kK[] = {"KD", "KH", "KW"};
    static const char* kO[] = {"OD", "OH", "OW"};
    static const char* kI[] = {"ID", "IH", "IW"};
    const char** kn = is3d ? kK : kK + 1;
    const char** on = is3d ? kO : kO + 1;
    const char** inn = is3d ? kI : kI + 1;
    for (size_t i = 0; i < sp; ++i) {
      std::string d = std::string("dilation_") + dimNames[i];
      level(op, dil[i] * K[i] <= maxKernel(), d + " * " + kn[i] + " <= MAX_KERNEL",
            d + " * " + kn[i] + " = " + num(dil[i] * K[i]));
      if (stride[i] < 1) continue;
      // ERROR_IF(OH != idiv_check(IH - 1 + pad_top + pad_bottom - (KH - 1) * dilation_y, stride_y) + 1)
      int64_t numer = I[i + 1] - 1 + pad[2 * i] + pad[2 * i + 1] - (K[i] - 1) * dil[i];
      std::string cond = std::string(on[i]) + " != idiv_check(" + inn[i] + " - 1 + " + padNames[2 * i] + " + " +
          padNames[2 * i + 1] + " - (" + kn[i] + " - 1) * dilation_" + dimNames[i] + ", stride_" + dimNames[i] +
          ") + 1";
      if (numer % stride[i] != 0) {
        error(op, "ERROR_IF(" + cond + "): idiv_check(" + num(numer) + ", " + num(stride[i]) + ") is not exact");
        continue;
      }
      int64_t expect = numer / stride[i] + 1;
      errorIf(op, O[i + 1] != expect, cond, std::string(on[i]) + " = " + num(O[i + 1]) + ", expected " + num(expect));
    }
    // Channels: conv OC = W[0], depthwise OC = C*M.
    int64_t oc = dw ? W[2] * W[3] : W[0];
    int64_t ic = dw ? W[2] : W[sp + 1];
    if (I[sp + 1] != ic)
      error(op, "input channels " + num(I[sp + 1]) + " differ from the weight's " + num(ic) + " (spec argument table)");
    if (O[sp + 1] != oc || O[0] != I[0])
      error(op,
            "output " + shapeStr(O) + " must have N = " + num(I[0]) + " and " + (dw ? "C*M" : "OC") + " = " + num(oc) +
                " channels (spec argument table)");
    int64_t bc = bias->type.dims.empty() ? 1 : bias->type.dims[0];
    errorIf(op, bc != oc && bc != 1, dw ? "BC != C*M && BC != 1" : "BC != OC && BC != 1",
            "BC = " + num(bc) + ", " + (dw ? "C*M" : "OC") + " = " + num(oc));
  }

  void transposeConv(const Operation& op) {
    auto opad = op.intArrayAttr("out_pad"), stride = op.intArrayAttr("stride");
    if (op.operands.size() < 5 || op.results.empty() || opad.size() != 4 || stride.size() != 2) return;
    zeroPoint(op, 3, "input_zp", op.operands[0]->type.dtype, "!is_same<in_t,i8_t>() && input_zp != 0");
    zeroPoint(op, 4, "weight_zp", op.operands[1]->type.dtype, "!is_same<weight_t,i8_t>() && weight_zp != 0");
    static const char* pn[] = {"out_pad_top", "out_pad_bottom", "out_pad_left", "out_pad_right"};
    for (int i = 0; i < 4; ++i)
      level(op, opad[i] <= maxKernel(), std::string(pn[i]) + " <= MAX_KERNEL",
            pn[i] + std::string(" = ") + num(opad[i]));
    level(op, stride[0] <= maxStride(), "stride_y <= MAX_STRIDE", "stride_y = " + num(stride[0]));
    level(op, stride[1] <= maxStride(), "stride_x <= MAX_STRIDE", "stride_x = " + num(stride[1]));
    errorIf(op, stride[0] < 1 || stride[1] < 1, "stride_y < 1 || stride_x < 1");
    const Value *in = op.operands[0], *w = op.operands[1], *bias = op.operands[2], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(w) || !isStaticTensor(out) || !isStaticTensor(bias)) return;
    const Shape &I = in->type.dims, &W = w->type.dims, &O = out->type.dims;  // W: [OC,KH,KW,IC]
    if (I.size() != 4 || W.size() != 4 || O.size() != 4) return;
    int64_t KH = W[1], KW = W[2];
    level(op, KH <= maxKernel(), "KH <= MAX_KERNEL", "KH = " + num(KH));
    level(op, KW <= maxKernel(), "KW <= MAX_KERNEL", "KW = " + num(KW));
    errorIf(op, opad[0] <= -KH || opad[1] <= -KH, "out_pad_top <= -KH || out_pad_bottom <= -KH");
    errorIf(op, opad[2] <= -KW || opad[3] <= -KW, "out_pad_left <= -KW || out_pad_right <= -KW");
    int64_t oh = (I[1] - 1) * stride[0] + opad[0] + opad[1] + KH;
    int64_t ow = (I[2] - 1) * stride[1] + opad[2] + opad[3] + KW;
    errorIf(op, O[1] != oh, "OH != (IH - 1) * stride_y + out_pad_top + out_pad_bottom + KH",
            "OH = " + num(O[1]) + ", expected " + num(oh));
    errorIf(op, O[2] != ow, "OW != (IW - 1) * stride_x + out_pad_left + out_pad_right + KW",
            "OW = " + num(O[2]) + ", expected " + num(ow));
    int64_t bc = bias->type.dims.empty() ? 1 : bias->type.dims[0];
    errorIf(op, bc != W[0] && bc != 1, "BC != OC && BC != 1", "BC = " + num(bc) + ", OC = " + num(W[0]));
  }

  void pool(const Operation& op) {
    auto kernel = op.intArrayAttr("kernel"), stride = op.intArrayAttr("stride"), pad = op.intArrayAttr("pad");
    if (op.results.empty() || op.operands.empty() || kernel.size() != 2 || stride.size() != 2 || pad.size() != 4) {
      error(op, "expects kernel[2], stride[2], pad[4] attributes");
      return;
    }
    if (op.name == "tosa.avg_pool2d" && op.operands.size() == 3) {
      DType t = op.operands[0]->type.dtype;
      zeroPoint(op, 1, "input_zp", t, "!is_same<in_out_t,i8_t>() && input_zp != 0");
      zeroPoint(op, 2, "output_zp", t, "!is_same<in_out_t,i8_t>() && output_zp != 0");
    }
    level(op, kernel[0] <= maxKernel(), "kernel_y <= MAX_KERNEL", "kernel_y = " + num(kernel[0]));
    level(op, kernel[1] <= maxKernel(), "kernel_x <= MAX_KERNEL", "kernel_x = " + num(kernel[1]));
    level(op, stride[0] <= maxStride(), "stride_y <= MAX_STRIDE", "stride_y = " + num(stride[0]));
    level(op, stride[1] <= maxStride(), "stride_x <= MAX_STRIDE", "stride_x = " + num(stride[1]));
    static const char* pn[] = {"pad_top", "pad_bottom", "pad_left", "pad_right"};
    for (int i = 0; i < 4; ++i)
      level(op, pad[i] <= maxKernel(), std::string(pn[i]) + " <= MAX_KERNEL", pn[i] + std::string(" = ") + num(pad[i]));
    errorIf(op, kernel[0] < 1 || kernel[1] < 1, "kernel_y < 1 || kernel_x < 1");
    errorIf(op, stride[0] < 1 || stride[1] < 1, "stride_y < 1 || stride_x < 1");
    errorIf(op, pad[0] < 0 || pad[1] < 0 || pad[2] < 0 || pad[3] < 0,
            "pad_top < 0 || pad_bottom < 0 || pad_left < 0 || pad_right < 0");
    errorIf(op, pad[3] >= kernel[1] || pad[2] >= kernel[1], "pad_right >= kernel_x || pad_left >= kernel_x");
    errorIf(op, pad[0] >= kernel[0] || pad[1] >= kernel[0], "pad_top >= kernel_y || pad_bottom >= kernel_y");
    const Value *in = op.operands[0], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(out) || in->type.rank() != 4 || out->type.rank() != 4) return;
    const Shape &I = in->type.dims, &O = out->type.dims;
    const char* conds[] = {"OH != idiv_check(IH + pad_top + pad_bottom - kernel_y, stride_y) + 1",
                           "OW != idiv_check(IW + pad_left + pad_right - kernel_x, stride_x) + 1"};
    for (int i = 0; i < 2; ++i) {
      if (stride[i] < 1) continue;
      int64_t numer = I[i + 1] + pad[2 * i] + pad[2 * i + 1] - kernel[i];
      if (numer % stride[i] != 0) {
        error(op,
              std::string("ERROR_IF(") + conds[i] + "): idiv_check(" + num(numer) + ", " + num(stride[i]) +
                  ") is not exact");
        continue;
      }
      int64_t expect = numer / stride[i] + 1;
      errorIf(op, O[i + 1] != expect, conds[i],
              std::string(i ? "OW" : "OH") + " = " + num(O[i + 1]) + ", expected " + num(expect));
    }
    if (O[0] != I[0] || O[3] != I[3])
      error(op, "output " + shapeStr(O) + " must keep N and C of the input " + shapeStr(I) + " (spec argument table)");
  }

  void matmul(const Operation& op) {
    if (op.operands.size() < 4 || op.results.empty()) return;
    DType t = op.operands[0]->type.dtype;
    for (int i : {2, 3}) {
      auto v = constValues(op.operands[i]);
      if (v && !v->empty())
        errorIf(
            op, t != DType::I8 && (*v)[0] != 0, "!is_same<in_t,i8_t> && (A_zp != 0 || B_zp != 0)",
            std::string(i == 2 ? "A_zp" : "B_zp") + " is " + std::to_string((*v)[0]) + " (zero point only for i8_t)");
    }
    const Value *a = op.operands[0], *b = op.operands[1], *o = op.results[0];
    if (!isStaticTensor(a) || !isStaticTensor(b) || !isStaticTensor(o)) return;
    const Shape &A = a->type.dims, &B = b->type.dims, &O = o->type.dims;
    if (A.size() != 3 || B.size() != 3 || O.size() != 3) return;
    if (B[0] != A[0] || B[1] != A[2])
      error(op,
            "B " + shapeStr(B) + " must be [N,C,W] with N = " + num(A[0]) + ", C = " + num(A[2]) +
                " from A [N,H,C] (spec 2.3.7 argument table)");
    Shape want = {A[0], A[1], B[2]};
    if (O != want)
      error(op, "output " + shapeStr(O) + " must be [N,H,W] = " + shapeStr(want) + " (spec 2.3.7 argument table)");
  }

  void fft(const Operation& op) {
    if (op.operands.empty() || !isStaticTensor(op.operands[0]) || op.operands[0]->type.rank() != 3) return;
    int64_t H = op.operands[0]->type.dims[1], W = op.operands[0]->type.dims[2];
    level(op, H <= maxKernel(), "H <= MAX_KERNEL", "H = " + num(H));
    level(op, W <= maxKernel(), "W <= MAX_KERNEL", "W = " + num(W));
    auto pow2 = [](int64_t x) { return x > 0 && (x & (x - 1)) == 0; };
    errorIf(op, !pow2(H), "!power_of_two(H)", "H = " + num(H));
    errorIf(op, !pow2(W), "!power_of_two(W)", "W = " + num(W));
  }

  void clamp(const Operation& op) {
    const Attribute *lo = op.attr("min_val"), *hi = op.attr("max_val");
    if (!lo || !hi) return;
    auto val = [](const Attribute* a) { return a->kind == Attribute::Kind::Float ? a->f : double(a->i); };
    double l = val(lo), h = val(hi);
    errorIf(op, l != l || h != h, "isNaN(min_val) || isNaN(max_val)");
    errorIf(op, h < l, "max_val < min_val", "min_val = " + lo->toString() + ", max_val = " + hi->toString());
  }

  bool axisInRange(const Operation& op, const Value* in, int64_t axis, const char* cond) {
    if (!in || in->type.kind != ValueType::Kind::Tensor) return false;
    bool bad = axis < 0 || axis >= in->type.rank();
    errorIf(op, bad, cond, "axis = " + num(axis) + ", rank = " + num(in->type.rank()));
    return !bad;
  }

  void argmax(const Operation& op) {
    if (op.operands.empty() || op.results.empty()) return;
    int64_t axis = op.intAttr("axis");
    if (!axisInRange(op, op.operands[0], axis, "axis < 0 || axis >= rank(shape1)")) return;
    if (!isStaticTensor(op.operands[0]) || !isStaticTensor(op.results[0])) return;
    Shape want = op.operands[0]->type.dims;
    want.erase(want.begin() + axis);
    errorIf(op, op.results[0]->type.dims != want, "flatten(left_shape, right_shape) != shape",
            "output " + shapeStr(op.results[0]->type.dims) + ", expected " + shapeStr(want));
  }

  void reduce(const Operation& op) {
    if (op.operands.empty() || op.results.empty()) return;
    int64_t axis = op.intAttr("axis");
    if (!axisInRange(op, op.operands[0], axis, "axis < 0  || axis >= rank(shape1)")) return;
    if (!isStaticTensor(op.operands[0]) || !isStaticTensor(op.results[0])) return;
    const Shape &I = op.operands[0]->type.dims, &O = op.results[0]->type.dims;
    if (O.size() != I.size()) {
      error(op, "output " + shapeStr(O) + " must have the rank of the input " + shapeStr(I) + " (spec argument table)");
      return;
    }
    errorIf(op, O[axis] != 1, "shape[axis] != 1", "output " + shapeStr(O) + ", axis " + num(axis));
    for (size_t d = 0; d < I.size(); ++d)
      if (int64_t(d) != axis && I[d] != O[d])
        error(op,
              "output " + shapeStr(O) + " must equal input " + shapeStr(I) + " outside the axis (spec argument table)");
  }

  void concat(const Operation& op) {
    level(op, int64_t(op.operands.size()) <= lim_limit(), "tensor_list_shape(input1) <= MAX_TENSOR_LIST_SIZE",
          num(int64_t(op.operands.size())) + " inputs");
    errorIf(op, op.operands.empty(), "input1 == []");
    if (op.operands.empty() || op.results.empty()) return;
    int64_t axis = op.intAttr("axis");
    int r0 = op.operands[0]->type.rank();
    errorIf(op, axis < 0 || axis >= std::max(1, r0), "axis < 0 || axis >= max(1,rank(shapes1[0]))",
            "axis = " + num(axis));
    for (const Value* v : op.operands)
      if (!isStaticTensor(v)) return;
    if (!isStaticTensor(op.results[0]) || axis < 0 || axis >= r0) return;
    const Shape& s0 = op.operands[0]->type.dims;
    int64_t sum = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const Shape& s = op.operands[i]->type.dims;
      if (int(s.size()) != r0) {
        error(op,
              "ERROR_IF(rank(shapes1[shape_index]) != rank(shapes1[0])): input " + num(int64_t(i)) + " " + shapeStr(s));
        return;
      }
      for (int d = 0; d < r0; ++d)
        if (d != axis && s[d] != s0[d]) {
          error(op,
                "ERROR_IF(shapes1[shape_index][axis_index] != shapes1[0][axis_index]): input " + num(int64_t(i)) + " " +
                    shapeStr(s) + " vs " + shapeStr(s0));
          return;
        }
      sum += s[axis];
    }
    const Shape& O = op.results[0]->type.dims;
    if (int(O.size()) != r0) return;
    errorIf(op, sum != O[axis], "axis_sum != shape[axis]", "sum " + num(sum) + ", output " + shapeStr(O));
  }

  void pad(const Operation& op) {
    if (op.operands.size() < 2 || op.results.empty()) return;
    const Value *in = op.operands[0], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(out)) return;
    const Shape &I = in->type.dims, &O = out->type.dims;
    if (O.size() != I.size()) {
      error(op, "ERROR_IF(rank(shape) != rank(shape1)): " + shapeStr(O) + " vs " + shapeStr(I));
      return;
    }
    auto p = constInts(op.operands[1]);
    if (!p) return;
    if (p->size() != 2 * I.size()) {
      error(op, "padding has " + num(int64_t(p->size())) + " values; spec 2.10.2 requires shape_t<[2*rank(shape1)]>");
      return;
    }
    for (size_t i = 0; i < I.size(); ++i) {
      errorIf(op, (*p)[2 * i] < 0 || (*p)[2 * i + 1] < 0, "padding[i * 2] < 0 || padding[(i * 2) + 1] < 0",
              "padding " + ints(*p));
      int64_t want = (*p)[2 * i] + I[i] + (*p)[2 * i + 1];
      errorIf(op, O[i] != want, "shape[i] != padding[i * 2] + shape1[i] + padding[(i * 2) + 1]",
              "dimension " + num(int64_t(i)) + ": " + num(O[i]) + ", expected " + num(want));
    }
  }

  void reshape(const Operation& op) {
    if (op.operands.size() < 2 || op.results.empty()) return;
    const Value *in = op.operands[0], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(out)) return;
    level(op, in->type.rank() <= (lim_ ? lim_->maxRank : 1 << 20), "rank(shape1) <= MAX_RANK",
          "rank " + num(in->type.rank()));
    errorIf(op, numElements(in->type.dims) != numElements(out->type.dims), "tensor_size(shape1) != tensor_size(shape)",
            shapeStr(in->type.dims) + " -> " + shapeStr(out->type.dims));
    if (auto s = constInts(op.operands[1]); s && *s != out->type.dims)
      error(op, "shape operand " + ints(*s) + " differs from the output shape " + shapeStr(out->type.dims));
  }

  void reverse(const Operation& op) {
    if (op.operands.empty()) return;
    axisInRange(op, op.operands[0], op.intAttr("axis"), "axis < 0 || axis >= rank(shape)");
  }

  void slice(const Operation& op) {
    if (op.operands.size() < 3 || op.results.empty()) return;
    const Value *in = op.operands[0], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(out)) return;
    const Shape &I = in->type.dims, &O = out->type.dims;
    errorIf(op, I.size() != O.size(), "rank(shape1) != rank(shape)");
    auto start = constInts(op.operands[1]), size = constInts(op.operands[2]);
    if (!start || !size) return;
    if (start->size() != I.size() || size->size() != I.size()) {
      error(op, "ERROR_IF(rank(shape1) != length(start) || rank(shape1) != length(size))");
      return;
    }
    if (I.size() != O.size()) return;
    for (size_t i = 0; i < I.size(); ++i) {
      int64_t st = (*start)[i], sz = (*size)[i];
      std::string at = "dimension " + num(int64_t(i)) + ": start " + num(st) + ", size " + num(sz);
      errorIf(op, st < 0, "start[index] < 0", at);
      errorIf(op, sz <= 0, "size[index] <= 0", at);
      errorIf(op, st + sz > I[i], "start[index] + size[index] > shape1[index]", at + ", input " + num(I[i]));
      errorIf(op, O[i] != sz, "shape[index] != size[index]", at + ", output " + num(O[i]));
    }
  }

  void tile(const Operation& op) {
    if (op.operands.size() < 2 || op.results.empty()) return;
    const Value *in = op.operands[0], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(out)) return;
    const Shape &I = in->type.dims, &O = out->type.dims;
    if (I.size() != O.size()) {
      error(op, "ERROR_IF(rank(shape1) != rank(shape))");
      return;
    }
    auto m = constInts(op.operands[1]);
    if (!m || m->size() != I.size()) return;
    for (size_t i = 0; i < I.size(); ++i)
      errorIf(op, I[i] * (*m)[i] != O[i], "shape1[i] * multiples[i] != shape[i]",
              "dimension " + num(int64_t(i)) + ": " + num(I[i]) + " * " + num((*m)[i]) + " != " + num(O[i]));
  }

  void transpose(const Operation& op) {
    if (op.operands.empty() || op.results.empty()) return;
    const Value *in = op.operands[0], *out = op.results[0];
    auto perms = op.intArrayAttr("perms");
    int r = in->type.rank();
    if (in->type.kind != ValueType::Kind::Tensor) return;
    if (int(perms.size()) != r) {
      error(op, "perms " + ints(perms) + " must have rank(shape1) = " + num(r) + " entries");
      return;
    }
    std::vector<bool> used(size_t(r), false);
    for (int64_t p : perms) {
      if (p >= r) {
        error(op, "ERROR_IF(index >= rank(shape1)): perms " + ints(perms));
        return;
      }
      if (p < 0) {
        error(op, "ERROR_IF(index < 0): perms " + ints(perms));
        return;
      }
      if (used[size_t(p)]) {
        error(op, "ERROR_IF(indexes_used[index] == true): perms " + ints(perms));
        return;
      }
      used[size_t(p)] = true;
    }
    if (!isStaticTensor(in) || !isStaticTensor(out)) return;
    if (out->type.rank() != r) {
      error(op, "ERROR_IF(rank(shape1) != rank(shape))");
      return;
    }
    for (int i = 0; i < r; ++i)
      if (in->type.dims[size_t(perms[size_t(i)])] != out->type.dims[size_t(i)]) {
        error(op,
              "ERROR_IF(shape1[perms[i]] != shape[i]): input " + shapeStr(in->type.dims) + ", perms " + ints(perms) +
                  ", output " + shapeStr(out->type.dims));
        return;
      }
  }

  void resize(const Operation& op) {
    if (op.operands.size() < 4 || op.results.empty()) return;
    auto scale = constInts(op.operands[1]), offset = constInts(op.operands[2]), border = constInts(op.operands[3]);
    if (!scale || !offset || !border || scale->size() != 4 || offset->size() != 2 || border->size() != 2) return;
    int64_t syn = (*scale)[0], syd = (*scale)[1], sxn = (*scale)[2], sxd = (*scale)[3];
    errorIf(op, syn <= 0 || syd <= 0 || sxn <= 0 || sxd <= 0,
            "scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0", "scale " + ints(*scale));
    if (syn <= 0 || syd <= 0 || sxn <= 0 || sxd <= 0) return;
    int64_t maxScale = lim_ ? lim_->maxScale : INT64_MAX;
    level(op, syn / syd <= maxScale, "scale_y_n/scale_y_d <= MAX_SCALE", "scale " + ints(*scale));
    level(op, sxn / sxd <= maxScale, "scale_x_n/scale_x_d <= MAX_SCALE", "scale " + ints(*scale));
    errorIf(op, syn > (1 << 11) || sxn > (1 << 11), "scale_y_n > (1 << 11) || scale_x_n > (1 << 11)");
    errorIf(op, syd >= 16 * syn || sxd >= 16 * sxn, "scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n");
    int64_t oy = (*offset)[0], ox = (*offset)[1], by = (*border)[0], bx = (*border)[1];
    errorIf(op, oy < -syn || oy >= 16 * syn, "offset_y < -scale_y_n || offset_y >= 16 * scale_y_n");
    errorIf(op, ox < -sxn || ox >= 16 * sxn, "offset_x < -scale_x_n || offset_x >= 16 * scale_x_n");
    errorIf(op, by < -16 * syn || by >= syn, "border_y < -16 * scale_y_n || border_y >= scale_y_n");
    errorIf(op, bx < -16 * sxn || bx >= sxn, "border_x < -16 * scale_x_n || border_x >= scale_x_n");
    const Value *in = op.operands[0], *out = op.results[0];
    if (!isStaticTensor(in) || !isStaticTensor(out) || in->type.rank() != 4 || out->type.rank() != 4) return;
    int64_t IH = in->type.dims[1], IW = in->type.dims[2], OH = out->type.dims[1], OW = out->type.dims[2];
    errorIf(op, std::max({OH, OW, IH, IW}) >= 16384, "max(OH,OW,IH,IW) >= 16384");
    int64_t ny = (IH - 1) * syn - oy + by, nx = (IW - 1) * sxn - ox + bx;
    const char* cy = "OH != idiv_check((IH - 1) * scale_y_n - offset_y + border_y, scale_y_d) + 1";
    const char* cx = "OW != idiv_check((IW - 1) * scale_x_n - offset_x + border_x, scale_x_d) + 1";
    if (ny % syd != 0)
      error(op, std::string("ERROR_IF(") + cy + "): idiv_check not exact");
    else
      errorIf(op, OH != ny / syd + 1, cy, "OH = " + num(OH) + ", expected " + num(ny / syd + 1));
    if (nx % sxd != 0)
      error(op, std::string("ERROR_IF(") + cx + "): idiv_check not exact");
    else
      errorIf(op, OW != nx / sxd + 1, cx, "OW = " + num(OW) + ", expected " + num(nx / sxd + 1));
  }

  void rescale(const Operation& op) {
    if (op.operands.size() < 5 || op.results.empty()) return;
    DType in = op.operands[0]->type.dtype, out = op.results[0]->type.dtype;
    bool scale32 = op.boolAttr("scale32"), perChannel = op.boolAttr("per_channel");
    bool inU = op.boolAttr("input_unsigned"), outU = op.boolAttr("output_unsigned");
    std::string mode = op.strAttr("rounding_mode", "SINGLE_ROUND");
    // Table 3: EXT-DOUBLEROUND / EXT-INEXACTROUND add these rounding modes to RESCALE.
    if (mode == "DOUBLE_ROUND" && !target_.hasExtension("doubleround"))
      error(op, "rounding_mode DOUBLE_ROUND needs EXT-DOUBLEROUND, which the target does not have (spec Table 3)");
    if (mode == "INEXACT_ROUND" && !target_.hasExtension("inexactround"))
      error(op, "rounding_mode INEXACT_ROUND needs EXT-INEXACTROUND, which the target does not have (spec Table 3)");
    errorIf(op, scale32 && in == DType::I48, "scale32 && is_same<in_t,i48_t>()");
    errorIf(op, !scale32 && mode == "DOUBLE_ROUND", "!scale32 && (rounding_mode == DOUBLE_ROUND)");
    errorIf(op, inU && outU, "input_unsigned && output_unsigned");
    errorIf(op, out == DType::I32 && inU, "is_same<out_t,i32_t>() && input_unsigned");
    errorIf(op, in == DType::I32 && outU, "is_same<in_t,i32_t>() && output_unsigned");
    errorIf(op, in == DType::I48 && outU, "is_same<in_t,i48_t>() && output_unsigned");
    errorIf(op, perChannel && op.operands[0]->type.kind == ValueType::Kind::Tensor && op.operands[0]->type.rank() < 1,
            "per_channel && rank(input) < 1");
    // An unsigned zero point is read zero-extended (the spec's zero_extend<int48_t>(input_zp)): the i16 bit
    // pattern 0x8000 is 32768.
    auto unsignedZp = [](double z, DType t, bool u) {
      return (u && t == DType::I16) ? double(int64_t(z) & 0xFFFF)
          : (u && t == DType::I8)   ? double(int64_t(z) & 0xFF)
                                    : z;
    };
    if (auto zp = constValues(op.operands[3]); zp && !zp->empty()) {
      double z = unsignedZp((*zp)[0], in, inU);
      errorIf(op, in != DType::I8 && (in != DType::I16 || !inU) && z != 0,
              "!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0",
              "input_zp = " + std::to_string(z));
      errorIf(op, in == DType::I16 && inU && z != 0 && z != 32768,
              "is_same<in_t,i16_t>() && input_unsigned == true && input_zp != 0 && input_zp != 32768");
    }
    if (auto zp = constValues(op.operands[4]); zp && !zp->empty()) {
      double z = unsignedZp((*zp)[0], out, outU);
      errorIf(op, out != DType::I8 && (out != DType::I16 || !outU) && z != 0,
              "!is_same<out_t,i8_t>() && (!is_same<out_t,i16_t>() || output_unsigned == false) && output_zp != 0",
              "output_zp = " + std::to_string(z));
      errorIf(op, out == DType::I16 && outU && z != 0 && z != 32768,
              "is_same<out_t,i16_t>() && output_unsigned == true && output_zp != 0 && output_zp != 32768");
    }
    // multiplier and shift are [NC]: NC = shape[rank(shape)-1] if per_channel else 1.
    const Value* x = op.operands[0];
    if (!isStaticTensor(x) || (perChannel && x->type.rank() < 1)) return;
    int64_t nc = perChannel ? x->type.dims.back() : 1;
    for (int i : {1, 2}) {
      const Value* v = op.operands[size_t(i)];
      if (!isStaticTensor(v)) continue;
      if (v->type.dims != Shape{nc})
        error(op,
              std::string(i == 1 ? "multiplier " : "shift ") + shapeStr(v->type.dims) + " must be [NC] = [" + num(nc) +
                  "] (spec 2.13.2: if (per_channel) NC=shape[rank(shape)-1] else NC=1)");
    }
  }

  static void collectDefined(const Region& r, std::set<const Value*>& defined) {
    for (const auto& b : r.blocks) {
      for (const Value* a : b->args) defined.insert(a);
      for (const auto& o : b->ops) {
        for (const Value* v : o->results) defined.insert(v);
        for (const auto& sub : o->regions) collectDefined(*sub, defined);
      }
    }
  }
  static const Value* firstOutsideUse(const Region& r, const std::set<const Value*>& defined) {
    for (const auto& b : r.blocks)
      for (const auto& o : b->ops) {
        for (const Value* v : o->operands)
          if (!defined.count(v)) return v;
        for (const auto& sub : o->regions)
          if (const Value* v = firstOutsideUse(*sub, defined)) return v;
      }
    return nullptr;
  }

  void controlFlow(const Operation& op, int depth) {
    const bool isIf = op.name == "tosa.cond_if";
    int64_t nIn = int64_t(op.operands.size()) - (isIf ? 1 : 0);
    level(op, nIn <= lim_limit(), "tensor_list_shape(input_list) <= MAX_TENSOR_LIST_SIZE", num(nIn) + " inputs");
    level(op, int64_t(op.results.size()) <= lim_limit(), "tensor_list_shape(output_list) <= MAX_TENSOR_LIST_SIZE",
          num(int64_t(op.results.size())) + " outputs");
    int64_t maxNesting = lim_ ? lim_->maxNesting : INT64_MAX;
    errorIf(op, depth >= maxNesting, "tosa_nesting_depth >= MAX_NESTING",
            "nesting depth " + num(depth) + ", MAX_NESTING " + num(maxNesting) + " (level " + target_.level + ")");
    if (isIf && !op.operands.empty() && isStaticTensor(op.operands[0]))
      errorIf(op, numElements(op.operands[0]->type.dims) != 1, "tensor_size(shape) != 1",
              "condition " + op.operands[0]->type.toString());
    // Region signatures: cond_if then/else take input_list and yield output_list; while_loop's cond and body
    // take input_list, body yields it, cond yields one bool.
    auto argTypes = [](const Region& r) {
      std::vector<ValueType> t;
      if (!r.blocks.empty())
        for (const Value* a : r.blocks[0]->args) t.push_back(a->type);
      return t;
    };
    auto yieldTypes = [](const Region& r) {
      std::vector<ValueType> t;
      if (!r.blocks.empty())
        if (const Operation* y = r.blocks[0]->terminator())
          for (const Value* v : y->operands) t.push_back(v->type);
      return t;
    };
    std::vector<ValueType> ins, outs;
    for (size_t i = isIf ? 1 : 0; i < op.operands.size(); ++i) ins.push_back(op.operands[i]->type);
    for (const Value* r : op.results) outs.push_back(r->type);
    if (op.regions.size() != 2) {
      error(op, "expects 2 regions");
      return;
    }
    // The regions are TOSA graphs of their own (tosa_graph_t): tosa_execute_graph(then_graph, input_list,
    // output_list) gives them no other inputs than input_list, so they cannot use values from outside.
    static const char* kGraphs[2][2] = {{"cond_graph", "body_graph"}, {"then_graph", "else_graph"}};
    for (int r = 0; r < 2 && !opts_.allowRegionCaptures; ++r) {
      std::set<const Value*> inside;
      collectDefined(*op.regions[size_t(r)], inside);
      if (const Value* v = firstOutsideUse(*op.regions[size_t(r)], inside))
        error(op,
              std::string(kGraphs[isIf][r]) + " uses a value defined outside it" +
                  (v->name.empty() ? "" : " ('" + v->name + "')") +
                  "; spec 2.16: a region is a separate TOSA graph whose only inputs are input_list");
    }
    if (isIf) {
      errorIf(op, ins != argTypes(*op.regions[0]), "tensor_list_shape(input_list) != tosa_input_shape(then_graph)");
      errorIf(op, ins != argTypes(*op.regions[1]), "tensor_list_shape(input_list) != tosa_input_shape(else_graph)");
      errorIf(op, outs != yieldTypes(*op.regions[0]),
              "tensor_list_shape(output_list) != tosa_output_shape(then_graph)");
      errorIf(op, outs != yieldTypes(*op.regions[1]),
              "tensor_list_shape(output_list) != tosa_output_shape(else_graph)");
    } else {
      errorIf(op, ins != outs, "tensor_list_shape(input_list) != tensor_list_shape(output_list)");
      errorIf(op, ins != argTypes(*op.regions[0]), "tensor_list_shape(input_list) != tosa_input_shape(cond_graph)");
      errorIf(op, ins != argTypes(*op.regions[1]), "tensor_list_shape(input_list) != tosa_input_shape(body_graph)");
      errorIf(op, ins != yieldTypes(*op.regions[1]), "tensor_list_shape(input_list) != tosa_output_shape(body_graph)");
      auto c = yieldTypes(*op.regions[0]);
      if (c.size() == 1 && c[0].kind == ValueType::Kind::Tensor) {
        errorIf(op, c[0].dtype != DType::Bool, "tosa_output_type(cond_graph) != bool_t");
        bool st = std::all_of(c[0].dims.begin(), c[0].dims.end(), [](int64_t d) { return d >= 0; });
        errorIf(op, st && numElements(c[0].dims) != 1, "tensor_size(tosa_output_shape(cond_graph)) != 1");
      } else {
        error(op, "cond_graph must yield exactly one bool_t tensor (spec 2.16.2)");
      }
    }
  }
};

}  // namespace

std::vector<Diagnostic> validateModule(const Module& m, const TargetEnv& target, const ValidateOptions& opts) {
  std::vector<Diagnostic> out;
  if (!spec::levelLimits(target.level)) {
    Diagnostic d;
    d.kind = Diagnostic::Kind::Unsupported;
    d.op = "module";
    d.message = "unknown level '" + target.level + "' (spec 1.7 defines 8k and none)";
    out.push_back(d);
  }
  Validator v(target, opts, out);
  v.variables(m);
  for (const auto& f : m.functions) v.function(*f);
  return out;
}

}  // namespace tosakit::ir
