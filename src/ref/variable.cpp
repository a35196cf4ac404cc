// Spec section 2.17 Variable operators: VARIABLE, VARIABLE_WRITE, VARIABLE_READ.
//
// In MLIR 22 tosa.variable is a module-level symbol (ir::Module::variables): the reference backend declares
// those at the start of every run (allocating and initializing them on the first run only), so their values
// persist across runs of one Session. variable_read / variable_write name the variable with a `name` symbol
// attribute (the spec's uid). The kernel for tosa.variable below serves graphs that declare a variable as an
// operation inside a function body.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

// Supported Data Types: var_t in {fp16, fp32, i8}.
bool varTypeSupported(DType t) { return t == DType::FP16 || t == DType::FP32 || t == DType::I8; }

// Declared element type of variable uid: in precise mode a floating-point variable is stored as fp64.
DType varType(const KernelContext& ctx, const std::string& uid, const Tensor& var) {
  auto it = ctx.state.variableTypes.find(uid);
  return ctx.precise && it != ctx.state.variableTypes.end() ? it->second : var.dtype();
}

// Precise mode stores floating-point values unrounded as fp64.
Tensor storedValue(const KernelContext& ctx, const Tensor& t) {
  if (!ctx.precise || !isFloat(t.dtype()) || t.dtype() == DType::FP64) return t;
  Tensor out(DType::FP64, t.shape());
  for (int64_t i = 0; i < t.size(); ++i) out.setFloat(i, t.getFloat(i));
  return out;
}

std::string symbolAttr(const ir::Operation& op, const char* key) {
  const ir::Attribute* a = op.attr(key);
  return a ? a->s : std::string();
}

// 2.17.1 VARIABLE: attributes sym_name, var_shape, type, initial_value (optional).
Status variableKernel(KernelContext& ctx, const Inputs&, Outputs&) {
  std::string uid = symbolAttr(ctx.op, "sym_name");
  if (uid.empty()) return ctx.unsupported("missing sym_name attribute");
  const ir::Attribute* typeAttr = ctx.op.attr("type");
  const ir::Attribute* shapeAttr = ctx.op.attr("var_shape");
  if (!typeAttr || typeAttr->kind != ir::Attribute::Kind::Type || !shapeAttr)
    return ctx.unsupported("missing type or var_shape attribute");
  DType var_t = typeAttr->dtype;
  Shape var_shape = shapeAttr->kind == ir::Attribute::Kind::Tensor && shapeAttr->tensor ? shapeAttr->tensor->toInts()
                                                                                        : shapeAttr->ints;
  const ir::Attribute* init = ctx.op.attr("initial_value");
  const Tensor* initial_value = init && init->kind == ir::Attribute::Kind::Tensor ? init->tensor.get() : nullptr;
  ERROR_IF(!varTypeSupported(var_t));  // var_t not in Supported Data Types
  LEVEL_CHECK(rankWithinLevel(ctx, int(var_shape.size())));

  auto it = ctx.state.variables.find(uid);
  if (it == ctx.state.variables.end()) {  // invocation for the first time
    int64_t size = tensor_size(ctx, var_shape);
    (void)size;
    if (ctx.failed()) return ctx.result();
    Tensor var_tensor(ctx.precise && isFloat(var_t) ? DType::FP64 : var_t, var_shape);
    bool written = false;
    if (initial_value) {
      REQUIRE(var_t == initial_value->dtype());
      REQUIRE(var_shape == initial_value->shape());
      var_tensor = storedValue(ctx, *initial_value);
      written = true;
    }
    ctx.state.variables[uid] = std::move(var_tensor);
    ctx.state.variableTypes[uid] = var_t;
    ctx.state.variableWritten[uid] = written;
  } else {
    // It's invalid to declare the second variable with the same uid in a single graph execution.
    REQUIRE(!ctx.state.variableSeen[uid]);
  }
  ctx.state.variableSeen[uid] = true;
  return Status::ok();
}

// 2.17.2 VARIABLE_WRITE: operand input1, attribute name.
Status variableWriteKernel(KernelContext& ctx, const Inputs& in, Outputs&) {
  ERROR_IF(in.size() != 1);
  const Tensor& input1 = *in[0];
  std::string uid = symbolAttr(ctx.op, "name");
  ERROR_IF(!varTypeSupported(ctx.dtypeOf(input1)));  // var_t not in Supported Data Types
  LEVEL_CHECK(rankWithinLevel(ctx, input1.rank()));
  auto it = ctx.state.variables.find(uid);
  // Check this variable tensor has been declared
  REQUIRE(it != ctx.state.variables.end());
  // The tensor has to be seen before to be written to
  REQUIRE(ctx.state.variableSeen[uid]);
  Tensor& variable_tensor = it->second;
  REQUIRE(variable_tensor.shape() == input1.shape());
  REQUIRE(varType(ctx, uid, variable_tensor) == ctx.dtypeOf(input1));
  variable_tensor = input1;
  ctx.state.variableWritten[uid] = true;
  return Status::ok();
}

// 2.17.3 VARIABLE_READ: attribute name, result output1.
Status variableReadKernel(KernelContext& ctx, const Inputs&, Outputs& out) {
  ERROR_IF(out.size() != 1);
  Tensor& output1 = out[0];
  std::string uid = symbolAttr(ctx.op, "name");
  ERROR_IF(!varTypeSupported(ctx.dtypeOf(output1)));  // var_t not in Supported Data Types
  LEVEL_CHECK(rankWithinLevel(ctx, output1.rank()));
  auto it = ctx.state.variables.find(uid);
  // Check this variable tensor has been declared
  REQUIRE(it != ctx.state.variables.end());
  // Check this variable tensor has been written
  REQUIRE(ctx.state.variableWritten[uid]);
  const Tensor& variable_tensor = it->second;
  REQUIRE(variable_tensor.shape() == output1.shape());
  REQUIRE(varType(ctx, uid, variable_tensor) == ctx.dtypeOf(output1));
  output1 = variable_tensor;
  return Status::ok();
}

}  // namespace

void registerVariable(KernelRegistry& r) {
  r.add("tosa.variable", variableKernel);
  r.add("tosa.variable_write", variableWriteKernel);
  r.add("tosa.variable_read", variableReadKernel);
}

}  // namespace tosakit::ref
