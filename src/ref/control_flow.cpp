// Spec section 2.16 Control flow operators: COND_IF, WHILE_LOOP.
//
// Operands and regions as MLIR 22 TOSA: cond_if(condition, input_list...) {then_graph} {else_graph};
// while_loop(input_list...) {cond_graph} {body_graph}. A graph's input shapes are its block arguments' types,
// its output shapes the types of its tosa.yield operands.
#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

const ir::Block* graphBlock(const ir::Operation& op, size_t region) {
  if (op.regions.size() <= region || op.regions[region]->blocks.size() != 1) return nullptr;
  return op.regions[region]->blocks.front().get();
}

std::vector<ir::ValueType> graphInputTypes(const ir::Block& b) {
  std::vector<ir::ValueType> t;
  for (const ir::Value* v : b.args) t.push_back(v->type);
  return t;
}

std::vector<ir::ValueType> graphOutputTypes(const ir::Block& b) {
  std::vector<ir::ValueType> t;
  if (const ir::Operation* term = b.terminator())
    for (const ir::Value* v : term->operands) t.push_back(v->type);
  return t;
}

// One tensor matches a declared type: same element type and, where the type is ranked, the same dims (a
// dynamic dim matches any size).
bool matches(const ir::ValueType& want, DType dtype, const Shape& shape) {
  if (want.dtype != dtype) return false;
  if (want.kind == ir::ValueType::Kind::UnrankedTensor) return true;
  if (want.dims.size() != shape.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i)
    if (want.dims[i] >= 0 && shape[i] >= 0 && want.dims[i] != shape[i]) return false;
  return true;
}
Shape dimsOf(const ir::ValueType& t) { return t.kind == ir::ValueType::Kind::UnrankedTensor ? Shape{} : t.dims; }

// tensor_list_shape(list) == tosa_*_shape(graph), for runtime tensors / declared types.
bool sameListShape(const KernelContext& ctx, const Inputs& list, const std::vector<ir::ValueType>& graph) {
  if (list.size() != graph.size()) return false;
  for (size_t i = 0; i < list.size(); ++i)
    if (!matches(graph[i], ctx.dtypeOf(*list[i]), list[i]->shape())) return false;
  return true;
}
bool sameListShape(const std::vector<ir::ValueType>& a, const std::vector<ir::ValueType>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind == ir::ValueType::Kind::UnrankedTensor) {
      if (a[i].dtype != b[i].dtype) return false;
    } else if (!matches(b[i], a[i].dtype, dimsOf(a[i]))) {
      return false;
    }
  }
  return true;
}

std::vector<ir::ValueType> resultTypes(const ir::Operation& op) {
  std::vector<ir::ValueType> t;
  for (const ir::Value* v : op.results) t.push_back(v->type);
  return t;
}

// tosa_execute_graph: runs region `region` (0 or 1) of the op.
Status executeGraph(KernelContext& ctx, size_t region, const std::vector<Tensor>& inputs,
                    std::vector<Tensor>& outputs) {
  if (!ctx.runRegion) return Status::internal(ctx.op.describe() + ": no region runner");
  return ctx.runRegion(*ctx.op.regions[region], inputs, outputs);
}

// 2.16.1 COND_IF
Status condIfKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  ERROR_IF(in.empty());
  const ir::Block* thenGraph = graphBlock(ctx.op, 0);
  const ir::Block* elseGraph = graphBlock(ctx.op, 1);
  if (!thenGraph || !elseGraph) return ctx.unsupported("needs then and else regions of one block each");
  const Tensor& condition = *in[0];
  Inputs inputList(in.begin() + 1, in.end());
  std::vector<ir::ValueType> outputList = resultTypes(ctx.op);

  const int64_t MAX_TENSOR_LIST_SIZE = ctx.level.maxTensorListSize, MAX_NESTING = ctx.level.maxNesting;
  const int64_t tosa_nesting_depth = ctx.state.nestingDepth;
  LEVEL_CHECK(int64_t(inputList.size()) <= MAX_TENSOR_LIST_SIZE);   // tensor_list_shape(input_list)
  LEVEL_CHECK(int64_t(outputList.size()) <= MAX_TENSOR_LIST_SIZE);  // tensor_list_shape(output_list)
  ERROR_IF(tosa_nesting_depth >= MAX_NESTING);
  ERROR_IF(ctx.dtypeOf(condition) != DType::Bool);  // cond_t is bool_t
  ERROR_IF(!sameListShape(ctx, inputList, graphInputTypes(*thenGraph)));
  ERROR_IF(!sameListShape(ctx, inputList, graphInputTypes(*elseGraph)));
  ERROR_IF(!sameListShape(outputList, graphOutputTypes(*thenGraph)));
  ERROR_IF(!sameListShape(outputList, graphOutputTypes(*elseGraph)));
  ERROR_IF(tensor_size(ctx, condition.shape()) != 1);

  std::vector<Tensor> args;
  for (const Tensor* t : inputList) args.push_back(*t);
  std::vector<Tensor> results;
  ctx.state.nestingDepth++;
  Status s = executeGraph(ctx, condition.getInt(0) != 0 ? 0 : 1, args, results);
  ctx.state.nestingDepth--;
  TK_RETURN_IF_ERROR(s);
  if (results.size() != out.size()) return Status::internal(ctx.op.describe() + ": graph returned wrong count");
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::move(results[i]);
  return Status::ok();
}

// 2.16.2 WHILE_LOOP
Status whileLoopKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  const ir::Block* condGraph = graphBlock(ctx.op, 0);
  const ir::Block* bodyGraph = graphBlock(ctx.op, 1);
  if (!condGraph || !bodyGraph) return ctx.unsupported("needs cond and body regions of one block each");
  std::vector<ir::ValueType> outputList = resultTypes(ctx.op);

  const int64_t MAX_TENSOR_LIST_SIZE = ctx.level.maxTensorListSize, MAX_NESTING = ctx.level.maxNesting;
  const int64_t tosa_nesting_depth = ctx.state.nestingDepth;
  LEVEL_CHECK(int64_t(in.size()) <= MAX_TENSOR_LIST_SIZE);          // tensor_list_shape(input_list)
  LEVEL_CHECK(int64_t(outputList.size()) <= MAX_TENSOR_LIST_SIZE);  // tensor_list_shape(output_list)
  ERROR_IF(tosa_nesting_depth >= MAX_NESTING);
  ERROR_IF(!sameListShape(ctx, in, outputList));  // tensor_list_shape(input_list) != tensor_list_shape(output_list)
  ERROR_IF(!sameListShape(ctx, in, graphInputTypes(*condGraph)));
  ERROR_IF(!sameListShape(ctx, in, graphInputTypes(*bodyGraph)));
  ERROR_IF(!sameListShape(ctx, in, graphOutputTypes(*bodyGraph)));
  // Condition graph output must be a single element tensor with a single bool value
  std::vector<ir::ValueType> condOut = graphOutputTypes(*condGraph);
  ERROR_IF(condOut.size() != 1);
  ERROR_IF(!condOut[0].isStatic() || numElements(condOut[0].dims) != 1);  // tensor_size(...) != 1
  ERROR_IF(condOut[0].dtype != DType::Bool);

  std::vector<Tensor> list;  // list[i]: only the current iteration's tensors are kept
  for (const Tensor* t : in) list.push_back(*t);
  std::vector<Tensor> condition;
  ctx.state.nestingDepth++;
  Status s = executeGraph(ctx, 0, list, condition);  // initial condition
  int64_t iterations = 0;
  while (s.isOk() && condition.size() == 1 && condition[0].size() == 1 && condition[0].getInt(0) != 0) {
    if (++iterations > ctx.state.maxLoopIterations) {
      s = Status::unsupported(ctx.op.describe() + ": stopped after " + std::to_string(ctx.state.maxLoopIterations) +
                              " iterations (the loop does not terminate within the session's maxLoopIterations)");
      break;
    }
    std::vector<Tensor> next;
    s = executeGraph(ctx, 1, list, next);
    if (!s.isOk()) break;
    list = std::move(next);
    s = executeGraph(ctx, 0, list, condition);
  }
  ctx.state.nestingDepth--;
  TK_RETURN_IF_ERROR(s);
  if (condition.size() != 1 || condition[0].size() != 1)
    return Status::internal(ctx.op.describe() + ": cond_graph did not return one element");
  if (list.size() != out.size()) return Status::internal(ctx.op.describe() + ": body returned wrong count");
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::move(list[i]);
  return Status::ok();
}

}  // namespace

void registerControlFlow(KernelRegistry& r) {
  r.add("tosa.cond_if", condIfKernel);
  r.add("tosa.while_loop", whileLoopKernel);
}

}  // namespace tosakit::ref
