#include "ir/builder.h"

#include <stdexcept>

namespace tosakit::ir {

Builder::Builder(Module& m, const std::string& functionName) : m_(m) {
  f_ = m.function(functionName);
  if (!f_) f_ = &m.addFunction(functionName);
  block_ = &f_->body;
}

Value* Builder::input(ValueType type, std::string name) {
  Value* v = m_.newValue(std::move(type), std::move(name));
  v->ownerBlock = block_;
  v->index = int(block_->args.size());
  block_->args.push_back(v);
  return v;
}

Operation& Builder::create(std::string opName, std::vector<Value*> operands, std::vector<ValueType> resultTypes,
                           std::map<std::string, Attribute> attrs, Location loc) {
  auto op = std::make_unique<Operation>();
  op->name = std::move(opName);
  op->operands = std::move(operands);
  op->attrs = std::move(attrs);
  op->loc = std::move(loc);
  op->parent = block_;
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    Value* r = m_.newValue(std::move(resultTypes[i]));
    r->definingOp = op.get();
    r->index = int(i);
    op->results.push_back(r);
  }
  block_->ops.push_back(std::move(op));
  return *block_->ops.back();
}

Value* Builder::op1(std::string opName, std::vector<Value*> operands, ValueType resultType,
                    std::map<std::string, Attribute> attrs, std::string locName) {
  Location loc;
  loc.name = std::move(locName);
  return create(std::move(opName), std::move(operands), {std::move(resultType)}, std::move(attrs), loc).results[0];
}

void Builder::output(std::vector<Value*> values, std::vector<std::string> names) {
  const char* term = block_ == &f_->body ? "func.return" : "tosa.yield";
  create(term, values, {});
  if (block_ == &f_->body) {
    f_->resultTypes.clear();
    for (Value* v : values) f_->resultTypes.push_back(v->type);
    f_->resultNames = std::move(names);
    f_->resultNames.resize(values.size());
  }
}

Value* Builder::constant(Tensor t, std::string locName) {
  ValueType type = ValueType::tensor(t.dtype(), t.shape());
  return op1("tosa.const", {}, type, {{"values", Attribute::dense(std::move(t))}}, std::move(locName));
}

Value* Builder::constShape(std::vector<int64_t> values, std::string locName) {
  int64_t n = int64_t(values.size());
  Tensor t = Tensor::fromInts(DType::I64, {n}, values);
  return op1("tosa.const_shape", {}, ValueType::shape(n), {{"values", Attribute::dense(std::move(t))}},
             std::move(locName));
}

Value* Builder::scalar1(DType dtype, double value, std::string locName) {
  Tensor t(dtype, {1});
  if (isFloat(dtype))
    t.setFloat(0, value);
  else
    t.setInt(0, int64_t(value));
  return constant(std::move(t), std::move(locName));
}

std::optional<Shape> broadcastShape(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return std::nullopt;
  Shape out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i] || b[i] == 1)
      out[i] = a[i];
    else if (a[i] == 1)
      out[i] = b[i];
    else
      return std::nullopt;
  }
  return out;
}

static ValueType binaryResult(Value* a, Value* b) {
  auto s = broadcastShape(a->type.dims, b->type.dims);
  if (!s)
    throw std::invalid_argument("builder: operands " + a->type.toString() + " and " + b->type.toString() +
                                " do not broadcast");
  return ValueType::tensor(a->type.dtype, *s);
}

Value* Builder::add(Value* a, Value* b, std::string locName) {
  return op1("tosa.add", {a, b}, binaryResult(a, b), {}, std::move(locName));
}
Value* Builder::sub(Value* a, Value* b, std::string locName) {
  return op1("tosa.sub", {a, b}, binaryResult(a, b), {}, std::move(locName));
}
Value* Builder::mul(Value* a, Value* b, int shift, std::string locName) {
  Value* s = scalar1(DType::I8, shift);
  ValueType rt = binaryResult(a, b);
  if (isInteger(a->type.dtype)) rt.dtype = DType::I32;
  return op1("tosa.mul", {a, b, s}, rt, {}, std::move(locName));
}
Value* Builder::clamp(Value* x, double minVal, double maxVal, std::string locName) {
  DType t = x->type.dtype;
  auto bound = [&](double v) { return isFloat(t) ? Attribute::floating(v, t) : Attribute::integer(int64_t(v), t); };
  return op1("tosa.clamp", {x}, x->type, {{"min_val", bound(minVal)}, {"max_val", bound(maxVal)}}, std::move(locName));
}
Value* Builder::reshape(Value* x, Shape newShape, std::string locName) {
  Value* s = constShape(newShape);
  return op1("tosa.reshape", {x, s}, ValueType::tensor(x->type.dtype, newShape), {}, std::move(locName));
}
Value* Builder::transpose(Value* x, std::vector<int64_t> perms, std::string locName) {
  Shape out;
  for (int64_t p : perms) out.push_back(x->type.dims.at(size_t(p)));
  return op1("tosa.transpose", {x}, ValueType::tensor(x->type.dtype, out),
             {{"perms", Attribute::intArray(perms, DType::I32)}}, std::move(locName));
}

Value* Builder::conv2d(Value* input, Value* weight, Value* bias, const Conv2dAttrs& a, std::string locName) {
  const Shape& in = input->type.dims;  // N H W C
  const Shape& w = weight->type.dims;  // O KH KW C
  int64_t oh = (in[1] - 1 + a.pad[0] + a.pad[1] - (w[1] - 1) * a.dilation[0]) / a.stride[0] + 1;
  int64_t ow = (in[2] - 1 + a.pad[2] + a.pad[3] - (w[2] - 1) * a.dilation[1]) / a.stride[1] + 1;
  DType outType = a.accType;
  if (input->type.dtype == DType::I8 || input->type.dtype == DType::I16)
    outType = a.accType;
  else if (isFloat(input->type.dtype))
    outType =
        input->type.dtype == DType::FP8E4M3 || input->type.dtype == DType::FP8E5M2 ? DType::FP16 : input->type.dtype;
  Value* izp = scalar1(input->type.dtype, double(a.inputZp));
  Value* wzp = scalar1(weight->type.dtype, double(a.weightZp));
  std::map<std::string, Attribute> attrs = {{"pad", Attribute::intArray(a.pad)},
                                            {"stride", Attribute::intArray(a.stride)},
                                            {"dilation", Attribute::intArray(a.dilation)},
                                            {"acc_type", Attribute::type(a.accType)}};
  // MLIR omits default-valued attributes (local_bound = false); do the same so round trips are exact.
  if (a.localBound) attrs["local_bound"] = Attribute::boolean(true);
  return op1("tosa.conv2d", {input, weight, bias, izp, wzp}, ValueType::tensor(outType, {in[0], oh, ow, w[0]}),
             std::move(attrs), std::move(locName));
}

Value* Builder::rescale(Value* x, DType outType, const RescaleAttrs& a, std::string locName) {
  int64_t n = int64_t(a.multiplier.size());
  Value* mult = constant(Tensor::fromInts(a.scale32 ? DType::I32 : DType::I16, {n}, a.multiplier));
  Value* shift = constant(Tensor::fromInts(DType::I8, {n}, a.shift));
  DType inZpType = x->type.dtype == DType::I48 ? DType::I48 : x->type.dtype;
  Value* izp = scalar1(inZpType, double(a.inputZp));
  Value* ozp = scalar1(outType, double(a.outputZp));
  return op1("tosa.rescale", {x, mult, shift, izp, ozp}, ValueType::tensor(outType, x->type.dims),
             {{"scale32", Attribute::boolean(a.scale32)},
              {"rounding_mode", Attribute::enumCase(a.roundingMode)},
              {"per_channel", Attribute::boolean(a.perChannel)},
              {"input_unsigned", Attribute::boolean(a.inputUnsigned)},
              {"output_unsigned", Attribute::boolean(a.outputUnsigned)}},
             std::move(locName));
}

}  // namespace tosakit::ir
