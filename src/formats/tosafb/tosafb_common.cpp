// Operator table, attribute fields and data packing of the .tosa mapping (see tosafb_internal.h).
#include <cctype>
#include <cstring>
#include <unordered_map>

#include "core/numeric.h"
#include "core/size_budget.h"
#include "formats/tosafb/tosafb_internal.h"

namespace tosakit::tosafb {

namespace {

// ---- operators ----

// Operators whose 1.0 attribute table has no field: (Op suffix, table name prefix).
// clang-format off
#define TOSAFB_EMPTY_TABLES(X) \
  X(MATMUL, MatMul) \
  X(ERF, Erf) \
  X(SIGMOID, Sigmoid) \
  X(TANH, Tanh) \
  X(ADD, Add) \
  X(BITWISE_AND, BitwiseAnd) \
  X(BITWISE_OR, BitwiseOr) \
  X(BITWISE_XOR, BitwiseXor) \
  X(INTDIV, IntDiv) \
  X(LOGICAL_AND, LogicalAnd) \
  X(LOGICAL_LEFT_SHIFT, LogicalLeftShift) \
  X(LOGICAL_RIGHT_SHIFT, LogicalRightShift) \
  X(LOGICAL_OR, LogicalOr) \
  X(LOGICAL_XOR, LogicalXor) \
  X(MUL, Mul) \
  X(POW, Pow) \
  X(SUB, Sub) \
  X(TABLE, Table) \
  X(ABS, Abs) \
  X(BITWISE_NOT, BitwiseNot) \
  X(CEIL, Ceil) \
  X(CLZ, Clz) \
  X(COS, Cos) \
  X(EXP, Exp) \
  X(FLOOR, Floor) \
  X(LOG, Log) \
  X(LOGICAL_NOT, LogicalNot) \
  X(NEGATE, Negate) \
  X(RECIPROCAL, Reciprocal) \
  X(RSQRT, Rsqrt) \
  X(SIN, Sin) \
  X(SELECT, Select) \
  X(EQUAL, Equal) \
  X(GREATER, Greater) \
  X(GREATER_EQUAL, GreaterEqual) \
  X(PAD, Pad) \
  X(RESHAPE, Reshape) \
  X(SLICE, Slice) \
  X(TILE, Tile) \
  X(GATHER, Gather) \
  X(SCATTER, Scatter) \
  X(CAST, Cast) \
  X(CONST, Const) \
  X(IDENTITY, Identity) \
  X(VARIABLE, Variable) \
  X(VARIABLE_WRITE, VariableWrite) \
  X(VARIABLE_READ, VariableRead) \
  X(CONST_SHAPE, ConstShape)
// clang-format on

enum class Fld {
  Axis,
  NanMode,
  Kernel,
  Stride,
  Pad,
  Dilation,
  OutPad,
  Perms,
  AccType,
  LocalBound,
  Inverse,
  Round,
  Scale32,
  RoundingMode,
  PerChannel,
  InputUnsigned,
  OutputUnsigned,
  ResizeMode,
  MinVal,
  MaxVal,
  OperatorName,
  DomainName,
  ImplAttrs,
};

struct FieldSpec {
  const char* ir;  // MLIR 22 attribute name
  Fld f;
};

const std::vector<FieldSpec>& fieldsOf(tosa::Op op) {
  using namespace tosa;
  static const std::vector<FieldSpec> none;
  static const std::vector<FieldSpec> argmax = {{"axis", Fld::Axis}, {"nan_mode", Fld::NanMode}};
  static const std::vector<FieldSpec> avgPool = {
      {"kernel", Fld::Kernel}, {"stride", Fld::Stride}, {"pad", Fld::Pad}, {"acc_type", Fld::AccType}};
  static const std::vector<FieldSpec> conv = {{"pad", Fld::Pad},
                                              {"stride", Fld::Stride},
                                              {"dilation", Fld::Dilation},
                                              {"local_bound", Fld::LocalBound},
                                              {"acc_type", Fld::AccType}};
  static const std::vector<FieldSpec> fft = {{"inverse", Fld::Inverse}, {"local_bound", Fld::LocalBound}};
  static const std::vector<FieldSpec> maxPool = {
      {"kernel", Fld::Kernel}, {"stride", Fld::Stride}, {"pad", Fld::Pad}, {"nan_mode", Fld::NanMode}};
  static const std::vector<FieldSpec> rfft = {{"local_bound", Fld::LocalBound}};
  static const std::vector<FieldSpec> transposeConv = {
      {"out_pad", Fld::OutPad}, {"stride", Fld::Stride}, {"local_bound", Fld::LocalBound}, {"acc_type", Fld::AccType}};
  static const std::vector<FieldSpec> clamp = {
      {"min_val", Fld::MinVal}, {"max_val", Fld::MaxVal}, {"nan_mode", Fld::NanMode}};
  static const std::vector<FieldSpec> shift = {{"round", Fld::Round}};
  static const std::vector<FieldSpec> nan = {{"nan_mode", Fld::NanMode}};
  static const std::vector<FieldSpec> axis = {{"axis", Fld::Axis}};
  static const std::vector<FieldSpec> axisNan = {{"axis", Fld::Axis}, {"nan_mode", Fld::NanMode}};
  static const std::vector<FieldSpec> transpose = {{"perms", Fld::Perms}};
  static const std::vector<FieldSpec> resize = {{"mode", Fld::ResizeMode}};
  static const std::vector<FieldSpec> rescale = {{"scale32", Fld::Scale32},
                                                 {"rounding_mode", Fld::RoundingMode},
                                                 {"per_channel", Fld::PerChannel},
                                                 {"input_unsigned", Fld::InputUnsigned},
                                                 {"output_unsigned", Fld::OutputUnsigned}};
  static const std::vector<FieldSpec> custom = {
      {"operator_name", Fld::OperatorName}, {"domain_name", Fld::DomainName}, {"implementation_attrs", Fld::ImplAttrs}};
  switch (op) {
    case Op_ARGMAX: return argmax;
    case Op_AVG_POOL2D: return avgPool;
    case Op_CONV2D:
    case Op_CONV3D:
    case Op_DEPTHWISE_CONV2D: return conv;
    case Op_FFT2D: return fft;
    case Op_MAX_POOL2D: return maxPool;
    case Op_RFFT2D: return rfft;
    case Op_TRANSPOSE_CONV2D: return transposeConv;
    case Op_CLAMP: return clamp;
    case Op_ARITHMETIC_RIGHT_SHIFT: return shift;
    case Op_MAXIMUM:
    case Op_MINIMUM: return nan;
    case Op_REDUCE_ALL:
    case Op_REDUCE_ANY:
    case Op_REDUCE_PRODUCT:
    case Op_REDUCE_SUM:
    case Op_CONCAT:
    case Op_REVERSE: return axis;
    case Op_REDUCE_MAX:
    case Op_REDUCE_MIN: return axisNan;
    case Op_TRANSPOSE: return transpose;
    case Op_RESIZE: return resize;
    case Op_RESCALE: return rescale;
    case Op_CUSTOM: return custom;
    default: return none;
  }
}

// ---- enums ----

const char* const kRoundingNames[] = {"", "SINGLE_ROUND", "INEXACT_ROUND", "DOUBLE_ROUND"};
const char* const kResizeNames[] = {"", "NEAREST_NEIGHBOR", "BILINEAR"};

uint32_t enumIndex(const char* const* names, size_t n, const std::string& s) {
  for (size_t i = 1; i < n; ++i)
    if (s == names[i]) return uint32_t(i);
  return 0;
}

std::vector<int32_t> vec32(const flatbuffers::Vector<int32_t>* v) {
  return v ? std::vector<int32_t>(v->begin(), v->end()) : std::vector<int32_t>();
}
std::vector<uint8_t> bytes(const flatbuffers::Vector<uint8_t>* v) {
  return v ? std::vector<uint8_t>(v->begin(), v->end()) : std::vector<uint8_t>();
}
std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

template <class T>
void readConvLike(const T* t, AttrFields& f) {
  f.pad = vec32(t->pad());
  f.stride = vec32(t->stride());
  f.dilation = vec32(t->dilation());
  f.localBound = t->local_bound();
  f.accType = t->acc_type();
}

template <class T>
void readReduce(const T* t, AttrFields& f) {
  f.axis = t->axis();
}

// ---- packing ----

bool storageMatchesPacked(DType d, tosa::DType as) {
  switch (as) {
    case tosa::DType_INT8: return d == DType::I8;
    case tosa::DType_INT16: return d == DType::I16;
    case tosa::DType_INT32: return d == DType::I32;
    case tosa::DType_FP32: return d == DType::FP32;
    case tosa::DType_FP16: return d == DType::FP16;
    case tosa::DType_BF16: return d == DType::BF16;
    case tosa::DType_FP8E4M3: return d == DType::FP8E4M3;
    case tosa::DType_FP8E5M2: return d == DType::FP8E5M2;
    case tosa::DType_SHAPE: return d == DType::I64;
    default: return false;
  }
}

// Raw little-endian bits of element i in `bytes` bytes (the packed layout of every type but INT4/BOOL).
uint64_t rawBits(const Tensor& t, int64_t i) {
  if (isFloat(t.dtype())) return encodeFloatBits(t.dtype(), t.getFloat(i));
  return uint64_t(t.getInt(i));
}

}  // namespace

// ---- operators ----

bool isValidOp(uint32_t op) { return op > uint32_t(tosa::Op_MIN) && op <= uint32_t(tosa::Op_MAX); }

std::string irNameOf(tosa::Op op) {
  if (!isValidOp(uint32_t(op))) return {};
  std::string n = "tosa.";
  for (const char* p = tosa::EnumNameOp(op); *p; ++p) n += char(std::tolower(static_cast<unsigned char>(*p)));
  return n;
}

tosa::Op opOfIrName(const std::string& irName) {
  static const std::unordered_map<std::string, tosa::Op> byName = [] {
    std::unordered_map<std::string, tosa::Op> m;
    for (uint32_t v = 1; v <= uint32_t(tosa::Op_MAX); ++v) m[irNameOf(tosa::Op(v))] = tosa::Op(v);
    return m;
  }();
  auto it = byName.find(irName);
  return it == byName.end() ? tosa::Op_UNKNOWN : it->second;
}

bool dtypeToIr(tosa::DType t, DType& out) {
  switch (t) {
    case tosa::DType_BOOL: out = DType::Bool; return true;
    case tosa::DType_INT4: out = DType::I4; return true;
    case tosa::DType_INT8: out = DType::I8; return true;
    case tosa::DType_INT16: out = DType::I16; return true;
    case tosa::DType_INT32: out = DType::I32; return true;
    case tosa::DType_INT48: out = DType::I48; return true;
    case tosa::DType_FP32: out = DType::FP32; return true;
    case tosa::DType_FP16: out = DType::FP16; return true;
    case tosa::DType_BF16: out = DType::BF16; return true;
    case tosa::DType_SHAPE: out = DType::I64; return true;
    case tosa::DType_FP8E4M3: out = DType::FP8E4M3; return true;
    case tosa::DType_FP8E5M2: out = DType::FP8E5M2; return true;
    default: return false;
  }
}

bool dtypeFromIr(DType t, tosa::DType& out) {
  switch (t) {
    case DType::Bool: out = tosa::DType_BOOL; return true;
    case DType::I4: out = tosa::DType_INT4; return true;
    case DType::I8: out = tosa::DType_INT8; return true;
    case DType::I16: out = tosa::DType_INT16; return true;
    case DType::I32: out = tosa::DType_INT32; return true;
    case DType::I48: out = tosa::DType_INT48; return true;
    case DType::FP32: out = tosa::DType_FP32; return true;
    case DType::FP16: out = tosa::DType_FP16; return true;
    case DType::BF16: out = tosa::DType_BF16; return true;
    case DType::FP8E4M3: out = tosa::DType_FP8E4M3; return true;
    case DType::FP8E5M2: out = tosa::DType_FP8E5M2; return true;
    default: return false;
  }
}

int64_t packedBytes(tosa::DType t, int64_t count) {
  switch (t) {
    case tosa::DType_INT4: return (count + 1) / 2;
    case tosa::DType_BOOL:
    case tosa::DType_INT8:
    case tosa::DType_FP8E4M3:
    case tosa::DType_FP8E5M2: return count;
    case tosa::DType_INT16:
    case tosa::DType_FP16:
    case tosa::DType_BF16: return count * 2;
    case tosa::DType_INT32:
    case tosa::DType_FP32: return count * 4;
    case tosa::DType_INT48: return count * 6;
    case tosa::DType_SHAPE: return count * 8;
    default: return -1;
  }
}

static int packedElementBytes(tosa::DType t) { return int(packedBytes(t, 1)); }

std::vector<uint8_t> packTensor(const Tensor& t, tosa::DType as) {
  int64_t n = t.size();
  std::vector<uint8_t> out(size_t(packedBytes(as, n)), 0);
  if (storageMatchesPacked(t.dtype(), as)) {
    std::memcpy(out.data(), t.data(), out.size());  // little-endian storage, as the schema packs
    return out;
  }
  if (as == tosa::DType_INT4) {
    for (int64_t i = 0; i < n; ++i) out[size_t(i / 2)] |= uint8_t((uint64_t(t.getInt(i)) & 0xF) << (4 * (i % 2)));
    return out;
  }
  if (as == tosa::DType_BOOL) {
    for (int64_t i = 0; i < n; ++i) out[size_t(i)] = t.getInt(i) != 0;
    return out;
  }
  int eb = packedElementBytes(as);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = rawBits(t, i);
    for (int k = 0; k < eb; ++k) out[size_t(i * eb + k)] = uint8_t(bits >> (8 * k));
  }
  return out;
}

Status unpackInto(const uint8_t* data, size_t size, tosa::DType as, Tensor& t, const std::string& what) {
  int64_t n = t.size();
  int64_t want = packedBytes(as, n);
  if (want < 0 || int64_t(size) != want)
    return Status::parse(what + ": data holds " + std::to_string(size) + " bytes, " +
                         std::string(tosa::EnumNameDType(as)) + "[" + shapeToString(t.shape()) + "] needs " +
                         std::to_string(want));
  if (storageMatchesPacked(t.dtype(), as)) {
    if (size) std::memcpy(t.data(), data, size);
    return Status::ok();
  }
  if (as == tosa::DType_INT4) {
    for (int64_t i = 0; i < n; ++i) t.setInt(i, signExtend((data[size_t(i / 2)] >> (4 * (i % 2))) & 0xF, 4));
    return Status::ok();
  }
  if (as == tosa::DType_BOOL) {
    for (int64_t i = 0; i < n; ++i) t.setInt(i, data[size_t(i)] != 0);
    return Status::ok();
  }
  int eb = packedElementBytes(as);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t bits = 0;
    for (int k = 0; k < eb; ++k) bits |= uint64_t(data[size_t(i * eb + k)]) << (8 * k);
    if (isFloat(t.dtype()))
      t.setFloat(i, decodeFloatBits(t.dtype(), uint32_t(bits)));
    else
      t.setInt(i, signExtend(int64_t(bits), 8 * eb));
  }
  return Status::ok();
}

// ---- attribute fields ----

Status fieldsFromFb(const tosa::TosaOperator& op, AttrFields& f, const std::string& where) {
  using namespace tosa;
  Attribute type = op.attribute_type();
  if (type == Attribute_NONE) return Status::ok();  // every field at its default
  // The verifier accepts a union type without its table (a null offset): no typed accessor may be called then.
  if (!op.attribute())
    return Status::parse(where + ": operator " + std::string(EnumNameOp(op.op())) +
                         " names an attribute table it does not hold");
  if (uint32_t(type) != uint32_t(op.op()))
    return Status::parse(where + ": operator " + EnumNameOp(op.op()) + " carries the attribute table of " +
                         (isValidOp(uint32_t(type)) ? EnumNameOp(Op(type)) : "an unknown operator"));
  switch (type) {
    case Attribute_ArgMaxAttribute: {
      auto* t = op.attribute_as_ArgMaxAttribute();
      f.axis = t->axis();
      f.nanMode = t->nan_mode();
      break;
    }
    case Attribute_AvgPool2dAttribute: {
      auto* t = op.attribute_as_AvgPool2dAttribute();
      f.kernel = vec32(t->kernel());
      f.stride = vec32(t->stride());
      f.pad = vec32(t->pad());
      f.accType = t->acc_type();
      break;
    }
    case Attribute_Conv2dAttribute: readConvLike(op.attribute_as_Conv2dAttribute(), f); break;
    case Attribute_Conv3dAttribute: readConvLike(op.attribute_as_Conv3dAttribute(), f); break;
    case Attribute_DepthwiseConv2dAttribute: readConvLike(op.attribute_as_DepthwiseConv2dAttribute(), f); break;
    case Attribute_FFT2dAttribute: {
      auto* t = op.attribute_as_FFT2dAttribute();
      f.inverse = t->inverse();
      f.localBound = t->local_bound();
      break;
    }
    case Attribute_MaxPool2dAttribute: {
      auto* t = op.attribute_as_MaxPool2dAttribute();
      f.kernel = vec32(t->kernel());
      f.stride = vec32(t->stride());
      f.pad = vec32(t->pad());
      f.nanMode = t->nan_mode();
      break;
    }
    case Attribute_RFFT2dAttribute: f.localBound = op.attribute_as_RFFT2dAttribute()->local_bound(); break;
    case Attribute_TransposeConv2dAttribute: {
      auto* t = op.attribute_as_TransposeConv2dAttribute();
      f.outPad = vec32(t->out_pad());
      f.stride = vec32(t->stride());
      f.localBound = t->local_bound();
      f.accType = t->acc_type();
      break;
    }
    case Attribute_ClampAttribute: {
      auto* t = op.attribute_as_ClampAttribute();
      f.minVal = bytes(t->min_val());
      f.maxVal = bytes(t->max_val());
      f.nanMode = t->nan_mode();
      break;
    }
    case Attribute_ArithmeticRightShiftAttribute:
      f.round = op.attribute_as_ArithmeticRightShiftAttribute()->round();
      break;
    case Attribute_MaximumAttribute: f.nanMode = op.attribute_as_MaximumAttribute()->nan_mode(); break;
    case Attribute_MinimumAttribute: f.nanMode = op.attribute_as_MinimumAttribute()->nan_mode(); break;
    case Attribute_ReduceAllAttribute: readReduce(op.attribute_as_ReduceAllAttribute(), f); break;
    case Attribute_ReduceAnyAttribute: readReduce(op.attribute_as_ReduceAnyAttribute(), f); break;
    case Attribute_ReduceProductAttribute: readReduce(op.attribute_as_ReduceProductAttribute(), f); break;
    case Attribute_ReduceSumAttribute: readReduce(op.attribute_as_ReduceSumAttribute(), f); break;
    case Attribute_ReduceMaxAttribute:
      readReduce(op.attribute_as_ReduceMaxAttribute(), f);
      f.nanMode = op.attribute_as_ReduceMaxAttribute()->nan_mode();
      break;
    case Attribute_ReduceMinAttribute:
      readReduce(op.attribute_as_ReduceMinAttribute(), f);
      f.nanMode = op.attribute_as_ReduceMinAttribute()->nan_mode();
      break;
    case Attribute_ConcatAttribute: f.axis = op.attribute_as_ConcatAttribute()->axis(); break;
    case Attribute_ReverseAttribute: f.axis = op.attribute_as_ReverseAttribute()->axis(); break;
    case Attribute_TransposeAttribute: f.perms = vec32(op.attribute_as_TransposeAttribute()->perms()); break;
    case Attribute_ResizeAttribute: f.resizeMode = op.attribute_as_ResizeAttribute()->mode(); break;
    case Attribute_RescaleAttribute: {
      auto* t = op.attribute_as_RescaleAttribute();
      f.scale32 = t->scale32();
      f.roundingMode = t->rounding_mode();
      f.perChannel = t->per_channel();
      f.inputUnsigned = t->input_unsigned();
      f.outputUnsigned = t->output_unsigned();
      break;
    }
    case Attribute_CustomAttribute: {
      auto* t = op.attribute_as_CustomAttribute();
      f.operatorName = str(t->operator_name());
      f.domainName = str(t->domain_name());
      f.implAttrs = bytes(t->implementation_attrs());
      break;
    }
    case Attribute_CondIfAttribute: {
      auto* t = op.attribute_as_CondIfAttribute();
      f.branch0 = str(t->then_graph());
      f.branch1 = str(t->else_graph());
      break;
    }
    case Attribute_WhileLoopAttribute: {
      auto* t = op.attribute_as_WhileLoopAttribute();
      f.branch0 = str(t->cond_graph());
      f.branch1 = str(t->body_graph());
      break;
    }
    default: break;  // tables without fields
  }
  return Status::ok();
}

flatbuffers::Offset<void> fieldsToFb(flatbuffers::FlatBufferBuilder& fbb, tosa::Op op, const AttrFields& f) {
  using namespace tosa;
  auto v32 = [&](const std::vector<int32_t>& v) { return fbb.CreateVector(v); };
  auto aligned = [&](const std::vector<uint8_t>& v) {
    fbb.ForceVectorAlignment(v.size(), 1, 8);
    return fbb.CreateVector(v);
  };
  auto nan = NanPropagationMode(f.nanMode);
  auto acc = tosa::DType(f.accType);
  switch (op) {
    case Op_ARGMAX: return CreateArgMaxAttribute(fbb, f.axis, nan).Union();
    case Op_AVG_POOL2D: return CreateAvgPool2dAttribute(fbb, v32(f.kernel), v32(f.stride), v32(f.pad), acc).Union();
    case Op_CONV2D:
      return CreateConv2dAttribute(fbb, v32(f.pad), v32(f.stride), v32(f.dilation), f.localBound, acc).Union();
    case Op_CONV3D:
      return CreateConv3dAttribute(fbb, v32(f.pad), v32(f.stride), v32(f.dilation), f.localBound, acc).Union();
    case Op_DEPTHWISE_CONV2D:
      return CreateDepthwiseConv2dAttribute(fbb, v32(f.pad), v32(f.stride), v32(f.dilation), f.localBound, acc).Union();
    case Op_FFT2D: return CreateFFT2dAttribute(fbb, f.inverse, f.localBound).Union();
    case Op_MAX_POOL2D: return CreateMaxPool2dAttribute(fbb, v32(f.kernel), v32(f.stride), v32(f.pad), nan).Union();
    case Op_RFFT2D: return CreateRFFT2dAttribute(fbb, f.localBound).Union();
    case Op_TRANSPOSE_CONV2D:
      return CreateTransposeConv2dAttribute(fbb, v32(f.outPad), v32(f.stride), f.localBound, acc).Union();
    case Op_CLAMP: {
      auto lo = aligned(f.minVal);
      auto hi = aligned(f.maxVal);
      return CreateClampAttribute(fbb, lo, hi, nan).Union();
    }
    case Op_ARITHMETIC_RIGHT_SHIFT: return CreateArithmeticRightShiftAttribute(fbb, f.round).Union();
    case Op_MAXIMUM: return CreateMaximumAttribute(fbb, nan).Union();
    case Op_MINIMUM: return CreateMinimumAttribute(fbb, nan).Union();
    case Op_REDUCE_ALL: return CreateReduceAllAttribute(fbb, f.axis).Union();
    case Op_REDUCE_ANY: return CreateReduceAnyAttribute(fbb, f.axis).Union();
    case Op_REDUCE_MAX: return CreateReduceMaxAttribute(fbb, f.axis, nan).Union();
    case Op_REDUCE_MIN: return CreateReduceMinAttribute(fbb, f.axis, nan).Union();
    case Op_REDUCE_PRODUCT: return CreateReduceProductAttribute(fbb, f.axis).Union();
    case Op_REDUCE_SUM: return CreateReduceSumAttribute(fbb, f.axis).Union();
    case Op_CONCAT: return CreateConcatAttribute(fbb, f.axis).Union();
    case Op_REVERSE: return CreateReverseAttribute(fbb, f.axis).Union();
    case Op_TRANSPOSE: return CreateTransposeAttribute(fbb, v32(f.perms)).Union();
    case Op_RESIZE: return CreateResizeAttribute(fbb, ResizeMode(f.resizeMode)).Union();
    case Op_RESCALE:
      return CreateRescaleAttribute(fbb, f.scale32, RoundingMode(f.roundingMode), f.perChannel, f.inputUnsigned,
                                    f.outputUnsigned)
          .Union();
    case Op_CUSTOM: {
      auto name = fbb.CreateString(f.operatorName);
      auto domain = fbb.CreateString(f.domainName);
      auto impl = fbb.CreateVector(f.implAttrs);
      return CreateCustomAttribute(fbb, name, domain, impl).Union();
    }
    case Op_COND_IF: {
      auto a = fbb.CreateString(f.branch0);
      auto b = fbb.CreateString(f.branch1);
      return CreateCondIfAttribute(fbb, a, b).Union();
    }
    case Op_WHILE_LOOP: {
      auto a = fbb.CreateString(f.branch0);
      auto b = fbb.CreateString(f.branch1);
      return CreateWhileLoopAttribute(fbb, a, b).Union();
    }
#define TOSAFB_EMPTY_CASE(OP, TABLE) \
  case Op_##OP: return Create##TABLE##Attribute(fbb).Union();
      TOSAFB_EMPTY_TABLES(TOSAFB_EMPTY_CASE)
#undef TOSAFB_EMPTY_CASE
    default: return 0;
  }
}

static std::vector<int32_t> ints32(const ir::Attribute* a) {
  std::vector<int32_t> v;
  if (!a || a->kind != ir::Attribute::Kind::IntArray) return v;
  for (int64_t x : a->ints) v.push_back(int32_t(x));
  return v;
}

static bool boolOf(const ir::Attribute* a) { return a && a->kind == ir::Attribute::Kind::Bool && a->b; }

static std::vector<uint8_t> scalarBytes(const ir::Attribute* a, DType elem) {
  tosa::DType as;
  if (!a || !dtypeFromIr(elem, as)) return {};
  Tensor t(elem, {});
  if (a->kind == ir::Attribute::Kind::Int)
    t.setInt(0, a->i);
  else if (a->kind == ir::Attribute::Kind::Float)
    t.setFloat(0, a->f);
  else
    return {};
  return packTensor(t, as);
}

void fieldsFromIr(const ir::Operation& op, tosa::Op code, DType elem, AttrFields& f) {
  for (const FieldSpec& s : fieldsOf(code)) {
    const ir::Attribute* a = op.attr(s.ir);
    using K = ir::Attribute::Kind;
    switch (s.f) {
      case Fld::Axis: f.axis = a && a->kind == K::Int ? int32_t(a->i) : 0; break;
      case Fld::NanMode: f.nanMode = a && a->kind == K::Enum && a->s == "IGNORE" ? 2 : 1; break;
      case Fld::Kernel: f.kernel = ints32(a); break;
      case Fld::Stride: f.stride = ints32(a); break;
      case Fld::Pad: f.pad = ints32(a); break;
      case Fld::Dilation: f.dilation = ints32(a); break;
      case Fld::OutPad: f.outPad = ints32(a); break;
      case Fld::Perms: f.perms = ints32(a); break;
      case Fld::AccType: {
        tosa::DType t = tosa::DType_UNKNOWN;
        if (a && a->kind == K::Type) dtypeFromIr(a->dtype, t);
        f.accType = t;
        break;
      }
      case Fld::LocalBound: f.localBound = boolOf(a); break;
      case Fld::Inverse: f.inverse = boolOf(a); break;
      case Fld::Round: f.round = boolOf(a); break;
      case Fld::Scale32: f.scale32 = boolOf(a); break;
      case Fld::PerChannel: f.perChannel = boolOf(a); break;
      case Fld::InputUnsigned: f.inputUnsigned = boolOf(a); break;
      case Fld::OutputUnsigned: f.outputUnsigned = boolOf(a); break;
      case Fld::RoundingMode: f.roundingMode = a && a->kind == K::Enum ? enumIndex(kRoundingNames, 4, a->s) : 0; break;
      case Fld::ResizeMode: f.resizeMode = a && a->kind == K::Enum ? enumIndex(kResizeNames, 3, a->s) : 0; break;
      case Fld::MinVal: f.minVal = scalarBytes(a, elem); break;
      case Fld::MaxVal: f.maxVal = scalarBytes(a, elem); break;
      case Fld::OperatorName: f.operatorName = a && a->kind == K::String ? a->s : ""; break;
      case Fld::DomainName: f.domainName = a && a->kind == K::String ? a->s : ""; break;
      case Fld::ImplAttrs:
        if (a && a->kind == K::String) f.implAttrs.assign(a->s.begin(), a->s.end());
        break;
    }
  }
}

static std::vector<int64_t> widen(const std::vector<int32_t>& v) { return std::vector<int64_t>(v.begin(), v.end()); }

static Status scalarAttr(const std::vector<uint8_t>& b, DType elem, const std::string& what,
                         std::optional<ir::Attribute>& out) {
  tosa::DType as;
  if (b.empty() || !dtypeFromIr(elem, as)) return Status::ok();  // absent: left to validation
  Tensor t(elem, {});
  TK_RETURN_IF_ERROR(unpackInto(b.data(), b.size(), as, t, what));
  out = isFloat(elem) ? ir::Attribute::floating(t.getFloat(0), elem) : ir::Attribute::integer(t.getInt(0), elem);
  return Status::ok();
}

Status irFromFields(tosa::Op code, const AttrFields& f, DType elem, std::map<std::string, ir::Attribute>& out,
                    const std::string& where) {
  for (const FieldSpec& s : fieldsOf(code)) {
    std::optional<ir::Attribute> a;
    switch (s.f) {
      case Fld::Axis: a = ir::Attribute::integer(f.axis, DType::I32); break;
      case Fld::NanMode:
        if (f.nanMode == tosa::NanPropagationMode_IGNORE) a = ir::Attribute::enumCase("IGNORE");
        break;
      case Fld::Kernel: a = ir::Attribute::intArray(widen(f.kernel)); break;
      case Fld::Stride: a = ir::Attribute::intArray(widen(f.stride)); break;
      case Fld::Pad: a = ir::Attribute::intArray(widen(f.pad)); break;
      case Fld::Dilation: a = ir::Attribute::intArray(widen(f.dilation)); break;
      case Fld::OutPad: a = ir::Attribute::intArray(widen(f.outPad)); break;
      case Fld::Perms: a = ir::Attribute::intArray(widen(f.perms), DType::I32); break;
      case Fld::AccType: {
        DType t;
        if (dtypeToIr(tosa::DType(f.accType), t) && f.accType != tosa::DType_SHAPE) a = ir::Attribute::type(t);
        break;
      }
      case Fld::LocalBound:
        if (f.localBound) a = ir::Attribute::boolean(true);
        break;
      case Fld::Inverse: a = ir::Attribute::boolean(f.inverse); break;
      case Fld::Round: a = ir::Attribute::boolean(f.round); break;
      case Fld::Scale32: a = ir::Attribute::boolean(f.scale32); break;
      case Fld::PerChannel: a = ir::Attribute::boolean(f.perChannel); break;
      case Fld::InputUnsigned: a = ir::Attribute::boolean(f.inputUnsigned); break;
      case Fld::OutputUnsigned: a = ir::Attribute::boolean(f.outputUnsigned); break;
      case Fld::RoundingMode:
        if (f.roundingMode >= 1 && f.roundingMode <= 3) a = ir::Attribute::enumCase(kRoundingNames[f.roundingMode]);
        break;
      case Fld::ResizeMode:
        if (f.resizeMode >= 1 && f.resizeMode <= 2) a = ir::Attribute::enumCase(kResizeNames[f.resizeMode]);
        break;
      case Fld::MinVal: TK_RETURN_IF_ERROR(scalarAttr(f.minVal, elem, where + ": min_val", a)); break;
      case Fld::MaxVal: TK_RETURN_IF_ERROR(scalarAttr(f.maxVal, elem, where + ": max_val", a)); break;
      case Fld::OperatorName: a = ir::Attribute::string(f.operatorName); break;
      case Fld::DomainName: a = ir::Attribute::string(f.domainName); break;
      case Fld::ImplAttrs: a = ir::Attribute::string(std::string(f.implAttrs.begin(), f.implAttrs.end())); break;
    }
    if (a) out[s.ir] = std::move(*a);
  }
  return Status::ok();
}

std::string fieldsToText(tosa::Op code, const AttrFields& f) {
  std::map<std::string, ir::Attribute> attrs;
  std::string text;
  // The IR spelling is the readable one; clamp bounds need the element type, shown as raw bytes instead.
  for (const FieldSpec& s : fieldsOf(code)) {
    if (s.f == Fld::MinVal || s.f == Fld::MaxVal) {
      const std::vector<uint8_t>& b = s.f == Fld::MinVal ? f.minVal : f.maxVal;
      text += std::string(text.empty() ? "" : " ") + s.ir + "=[";
      for (size_t i = 0; i < b.size(); ++i) text += (i ? " " : "") + std::to_string(b[i]);
      text += "]";
      continue;
    }
    std::map<std::string, ir::Attribute> one;
    AttrFields only = f;
    (void)irFromFields(code, only, DType::FP32, one, "");
    auto it = one.find(s.ir);
    std::string v = it == one.end() ? (s.f == Fld::NanMode          ? "PROPAGATE"
                                           : s.f == Fld::LocalBound ? "false"
                                                                    : "-")
                                    : it->second.toString();
    text += std::string(text.empty() ? "" : " ") + s.ir + "=" + v;
  }
  if (code == tosa::Op_COND_IF) text += "then_graph=" + f.branch0 + " else_graph=" + f.branch1;
  if (code == tosa::Op_WHILE_LOOP) text += "cond_graph=" + f.branch0 + " body_graph=" + f.branch1;
  return text;
}

// ---- extension attributes ----

flatbuffers::Offset<tosa::TosakitAttr> encodeExtAttr(flatbuffers::FlatBufferBuilder& fbb, const std::string& key,
                                                     const ir::Attribute& a) {
  auto k = fbb.CreateString(key);
  auto s = a.s.empty() ? 0 : fbb.CreateString(a.s);
  auto ints = a.ints.empty() ? 0 : fbb.CreateVector(a.ints);
  flatbuffers::Offset<flatbuffers::Vector<int64_t>> shape = 0;
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> data = 0;
  if (a.kind == ir::Attribute::Kind::Tensor && a.tensor) {
    shape = fbb.CreateVector(std::vector<int64_t>(a.tensor->shape().begin(), a.tensor->shape().end()));
    fbb.ForceVectorAlignment(a.tensor->byteSize(), 1, 8);
    data = fbb.CreateVector(a.tensor->data(), a.tensor->byteSize());
  }
  return tosa::CreateTosakitAttr(fbb, k, uint8_t(a.kind), a.b, a.i, a.f, uint8_t(a.dtype), s, ints, shape, data);
}

Result<ir::Attribute> decodeExtAttr(const tosa::TosakitAttr& e, const std::string& where) {
  using K = ir::Attribute::Kind;
  if (e.kind() > uint8_t(K::Symbol)) return Status::parse(where + ": attribute kind " + std::to_string(e.kind()));
  if (e.dtype() > uint8_t(DType::FP64)) return Status::parse(where + ": element type " + std::to_string(e.dtype()));
  ir::Attribute a;
  a.kind = K(e.kind());
  a.b = e.b();
  a.i = e.i();
  a.f = e.f();
  a.dtype = DType(e.dtype());
  a.s = str(e.s());
  if (e.ints()) a.ints.assign(e.ints()->begin(), e.ints()->end());
  if (a.kind != K::Tensor) return a;
  Shape shape;
  if (e.shape()) shape.assign(e.shape()->begin(), e.shape()->end());
  TK_RETURN_IF_ERROR(checkAllocation(a.dtype, shape, where));
  Tensor t(a.dtype, shape);
  size_t have = e.data() ? e.data()->size() : 0;
  if (have != t.byteSize())
    return Status::parse(where + ": tensor data holds " + std::to_string(have) + " bytes, needs " +
                         std::to_string(t.byteSize()));
  if (have) std::memcpy(t.data(), e.data()->data(), have);
  if (a.dtype == DType::Bool || a.dtype == DType::I4 || a.dtype == DType::I48)
    for (int64_t i = 0; i < t.size(); ++i) t.setInt(i, t.getInt(i));  // normalize hostile storage bytes
  return ir::Attribute::dense(std::move(t));
}

}  // namespace tosakit::tosafb
